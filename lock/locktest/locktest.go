package locktest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// hang bounds every wait in the suite. It is an upper bound that only
// catches hangs: no test's outcome depends on how fast a backend is.
const hang = 20 * time.Second

// steadyTTL is the TTL of a lease that must not lapse while the test does
// its own work (a Refresh to send, renewals to come): long enough that a
// goroutine stalled by the race detector or a busy machine cannot let it
// run out.
const steadyTTL = 2 * time.Second

// queuedWait is the wait bound of a caller that must give up, but only
// after the test has seen it queued: long enough for that on a busy
// machine.
const queuedWait = 2 * time.Second

// Option configures Run.
type Option func(*config)

type config struct {
	revoke  func(t *testing.T, key string)
	waiters func(t *testing.T, key string) int
	queued  func(t *testing.T, key string) int // semaphores and read-write locks
	ttl     time.Duration
}

// WithRevoke lets the suite delete a key's current lease behind its holder's
// back, as an operator or a server restart would. revoke must return once
// the server has forgotten the lease; it reports its own failures through t.
// The tests that need it are skipped without it.
func WithRevoke(revoke func(t *testing.T, key string)) Option {
	return func(c *config) { c.revoke = revoke }
}

// WithWaiters lets the suite ask how many acquirers wait for key on the
// server: the length of the backend's queue, not counting the holder. The
// fairness test starts each waiter once the one before it is queued, and
// fails without it: arrival order is only known once the server has seen
// each waiter. waiters reports its own failures through t.
func WithWaiters(waiters func(t *testing.T, key string) int) Option {
	return func(c *config) { c.waiters = waiters }
}

// WithShortTTL sets the TTL of the tests that wait for a lease to expire.
// Backends whose leases have a coarse granularity (etcd counts in whole
// seconds) raise it; the suite then takes longer. The tests of Refresh and
// auto-renewal use a TTL of seconds instead, and at least this one.
// Default: 300ms.
func WithShortTTL(ttl time.Duration) Option {
	return func(c *config) { c.ttl = ttl }
}

// Run runs the conformance suite against the backend that newLocker
// creates. Each call of newLocker must return a Locker on the same shared
// state, like another process on the same server; the suite uses several to
// play several processes. newLocker registers its own clean-up with t.
//
// Every test uses keys of its own, so a server may be shared with other
// tests, and the tests run in parallel (t.Parallel): newLocker must be safe
// for concurrent use.
func Run(t *testing.T, newLocker func(t *testing.T) lock.Locker, opts ...Option) {
	t.Helper()
	c := config{ttl: 300 * time.Millisecond}
	for _, o := range opts {
		o(&c)
	}
	s := &suite{config: c, newLocker: newLocker}
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"MutualExclusion", s.testMutualExclusion},
		{"FencingTokens", s.testFencingTokens},
		{"TryAcquireHeld", s.testTryAcquireHeld},
		{"Expiry", s.testExpiry},
		{"StaleHolder", s.testStaleHolder},
		{"RevokedHolder", s.testRevokedHolder},
		{"ReleaseRetry", s.testReleaseRetry},
		{"Cancellation", s.testCancellation},
		{"Refresh", s.testRefresh},
		{"AutoRenew", s.testAutoRenew},
		{"AutoRenewRevoked", s.testAutoRenewRevoked},
		{"AcquireAllNoDeadlock", s.testAcquireAllNoDeadlock},
		{"AcquireAllAllOrNothing", s.testAcquireAllAllOrNothing},
		{"Fairness", s.testFairness},
		{"Observer", s.testObserver},
		{"InvalidInput", s.testInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

type suite struct {
	config
	newLocker func(t *testing.T) lock.Locker
}

// lockers returns n lockers on the shared state: n processes.
func (s *suite) lockers(t *testing.T, n int) []lock.Locker {
	t.Helper()
	ls := make([]lock.Locker, n)
	for i := range ls {
		ls[i] = s.newLocker(t)
	}
	return ls
}

// key returns a key no other test uses.
func (s *suite) key(t *testing.T) string {
	return fmt.Sprintf("locktest/%s/%016x", t.Name(), rand.Uint64())
}

// ctx returns the test's context, bounded so that a hang fails the test.
func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	t.Cleanup(cancel)
	return ctx
}

// acquire takes key with l or fails the test. The lease is released at the
// end of the test if it is still held.
func (s *suite) acquire(t *testing.T, l lock.Locker, key string, opts ...lock.Option) lock.Lease {
	t.Helper()
	lease, err := l.Acquire(s.ctx(t), key, opts...)
	if err != nil {
		t.Fatalf("Acquire(%q) = %v", key, err)
	}
	if lease == nil {
		t.Fatalf("Acquire(%q) returned a nil lease and no error", key)
	}
	cleanupRelease(t, lease)
	return lease
}

// cleanupRelease releases lease at the end of the test, so that a failed
// test leaves nothing held on a shared server.
func cleanupRelease(t *testing.T, lease lock.Lease) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = lease.Release(ctx) // ErrLost is expected for expired leases
	})
}

// release releases lease and fails the test on an error.
func (s *suite) release(t *testing.T, lease lock.Lease) {
	t.Helper()
	if err := lease.Release(s.ctx(t)); err != nil {
		t.Fatalf("Release(%q) = %v", lease.Key(), err)
	}
}

// mustBeHeld fails the test unless TryAcquire of key by l is refused.
func (s *suite) mustBeHeld(t *testing.T, l lock.Locker, key string) {
	t.Helper()
	lease, err := l.TryAcquire(s.ctx(t), key)
	if err == nil {
		cleanupRelease(t, lease)
		t.Fatalf("TryAcquire(%q) succeeded; want the key still held", key)
	}
	if !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("TryAcquire(%q) = %v; want ErrNotAcquired", key, err)
	}
	if lease != nil {
		t.Fatalf("TryAcquire(%q) returned a lease with error %v", key, err)
	}
}

// mustBeFree fails the test unless TryAcquire of key by l succeeds; it
// releases the lease at once.
func (s *suite) mustBeFree(t *testing.T, l lock.Locker, key string) {
	t.Helper()
	lease, err := l.TryAcquire(s.ctx(t), key)
	if err != nil {
		t.Fatalf("TryAcquire(%q) = %v; want the key free", key, err)
	}
	s.release(t, lease)
}

// waitDone waits up to bound for lease's Done and reports whether it closed.
func waitDone(lease lock.Lease, bound time.Duration) bool {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-lease.Done():
		return true
	case <-t.C:
		return false
	}
}

// isClosed reports whether lease's Done is closed now.
func isClosed(lease lock.Lease) bool {
	select {
	case <-lease.Done():
		return true
	default:
		return false
	}
}

// mustBeLive fails the test unless lease is still held as far as it knows.
func mustBeLive(t *testing.T, lease lock.Lease) {
	t.Helper()
	if err := lease.Err(); err != nil {
		t.Fatalf("lease on %q: Err() = %v; want nil while held", lease.Key(), err)
	}
	if isClosed(lease) {
		t.Fatalf("lease on %q: Done closed while held", lease.Key())
	}
}

// mustBeLost waits (bounded) for lease to end and fails the test unless it
// ended with ErrLost.
func mustBeLost(t *testing.T, lease lock.Lease, bound time.Duration) {
	t.Helper()
	if !waitDone(lease, bound) {
		t.Fatalf("lease on %q: Done not closed after %v; want it lost", lease.Key(), bound)
	}
	if err := lease.Err(); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("lease on %q: Err() = %v; want ErrLost", lease.Key(), err)
	}
}

// recorder is an Observer that keeps the events it sees.
type recorder struct {
	mu     sync.Mutex
	events []lock.Event
}

func (r *recorder) Observe(e lock.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// find waits (bounded: some events, such as Lost, are reported from the
// backend's goroutines) for an event of kind on key and returns it.
func (r *recorder) find(t *testing.T, kind lock.EventKind, key string) lock.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if e.Kind == kind && e.Key == key {
				r.mu.Unlock()
				return e
			}
		}
		seen := fmt.Sprint(r.events)
		r.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %v event for %q; saw %s", kind, key, seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
