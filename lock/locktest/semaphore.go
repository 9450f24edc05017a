package locktest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// WithQueued lets the suites of semaphores and read-write locks ask how
// many callers wait for key (of the suite's kind) on the server, not
// counting the holders. Their fairness tests start each waiter once the
// one before it is queued, and fail without it.
func WithQueued(queued func(t *testing.T, key string) int) Option {
	return func(c *config) { c.queued = queued }
}

// RunSemaphores runs the conformance suite of semaphores against the
// backend that newSemaphores creates; each call returns Semaphores on the
// same shared state, as another process would. Every test uses keys of
// its own, and the tests run in parallel, as Run's do.
func RunSemaphores(t *testing.T, newSemaphores func(t *testing.T) lock.Semaphores, opts ...Option) {
	t.Helper()
	s := &semSuite{config: newConfig(opts), newSem: newSemaphores}
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"NeverOverLimit", s.testNeverOverLimit},
		{"TryAcquire", s.testTryAcquire},
		{"NoToken", s.testNoToken},
		{"Expiry", s.testExpiry},
		{"DoubleRelease", s.testDoubleRelease},
		{"StaleRelease", s.testStaleRelease},
		{"ManyPermitsNotStarved", s.testManyNotStarved},
		{"ArrivalOrder", s.testArrivalOrder},
		{"Cancellation", s.testCancellation},
		{"AbandonedHeadOfLine", s.testAbandonedHead},
		{"AutoRenew", s.testAutoRenew},
		{"InvalidInput", s.testInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

func newConfig(opts []Option) config {
	c := config{ttl: 300 * time.Millisecond}
	for _, o := range opts {
		o(&c)
	}
	return c
}

type semSuite struct {
	config
	newSem func(t *testing.T) lock.Semaphores
}

func (s *semSuite) sems(t *testing.T, n int) []lock.Semaphores {
	ss := make([]lock.Semaphores, n)
	for i := range ss {
		ss[i] = s.newSem(t)
	}
	return ss
}

func key(t *testing.T) string { return fmt.Sprintf("locktest/%s/%016x", t.Name(), rand.Uint64()) }

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	t.Cleanup(cancel)
	return ctx
}

// take takes n of key's limit permits with sem or fails the test; the
// lease is released at the end of the test if still held.
func take(t *testing.T, sem lock.Semaphores, key string, limit, n int, opts ...lock.Option) lock.Lease {
	t.Helper()
	le, err := sem.AcquirePermits(bounded(t), key, limit, n, opts...)
	if err != nil {
		t.Fatalf("AcquirePermits(%q, %d, %d) = %v", key, limit, n, err)
	}
	cleanupRelease(t, le)
	return le
}

// tryTake is TryAcquirePermits; a lease is released at the end of the test.
func tryTake(t *testing.T, sem lock.Semaphores, key string, limit, n int) (lock.Lease, error) {
	le, err := sem.TryAcquirePermits(bounded(t), key, limit, n)
	if err == nil {
		cleanupRelease(t, le)
	}
	return le, err
}

func mustRelease(t *testing.T, le lock.Lease) {
	t.Helper()
	if err := le.Release(bounded(t)); err != nil {
		t.Fatalf("Release(%q) = %v", le.Key(), err)
	}
}

// mustRefuse fails the test, going on, unless err is ErrNotAcquired:
// the callers the test started still finish within it.
func mustRefuse(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, lock.ErrNotAcquired) {
		t.Errorf("%s = %v; want ErrNotAcquired", what, err)
	}
}

// refused is mustRefuse for a call that returned le, which it releases
// at the end of the test if the call was not refused.
func refused(t *testing.T, what string, le lock.Lease, err error) {
	t.Helper()
	if err == nil {
		cleanupRelease(t, le)
	}
	mustRefuse(t, what, err)
}

// awaitQueuedOn returns once n callers wait for key, failing t if they
// never do.
func (c *config) awaitQueuedOn(t *testing.T, key string, n int) {
	t.Helper()
	if c.queued == nil {
		t.Fatal("this test needs locktest.WithQueued to see each waiter queued before the next starts")
	}
	deadline := time.Now().Add(hang)
	for c.queued(t, key) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters on %q never queued", n, key)
		}
		time.Sleep(time.Millisecond)
	}
}

// testNeverOverLimit runs callers of one and two permits from several
// processes at once: the permits held never exceed the limit, and the
// limit is reached.
func (s *semSuite) testNeverOverLimit(t *testing.T) {
	const limit, workers, rounds = 3, 8, 12
	ss := s.sems(t, 3)
	k := key(t)
	ctx := bounded(t)
	var inUse, most atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			sem := ss[w%len(ss)]
			n := 1 + w%2
			for range rounds {
				le, err := sem.AcquirePermits(ctx, k, limit, n)
				if err != nil {
					t.Errorf("worker %d: AcquirePermits = %v", w, err)
					return
				}
				now := inUse.Add(int64(n))
				if now > limit {
					t.Errorf("%d permits held at once, limit %d", now, limit)
				}
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				inUse.Add(-int64(n))
				if err := le.Release(ctx); err != nil {
					t.Errorf("worker %d: Release = %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	if most.Load() < 2 {
		t.Errorf("at most %d permits were held at once: the semaphore did not let holders share it", most.Load())
	}
}

// testTryAcquire: permits are taken all or nothing, and a full semaphore
// refuses at once.
func (s *semSuite) testTryAcquire(t *testing.T) {
	ss := s.sems(t, 2)
	k := key(t)
	take(t, ss[0], k, 3, 2)
	if _, err := tryTake(t, ss[1], k, 3, 2); !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("TryAcquirePermits of 2 with 1 left = %v; want ErrNotAcquired", err)
	}
	if _, err := tryTake(t, ss[1], k, 3, 1); err != nil {
		t.Fatalf("TryAcquirePermits of the last permit = %v", err)
	}
	_, err := tryTake(t, ss[0], k, 3, 1)
	mustRefuse(t, "TryAcquirePermits on a full semaphore", err)
}

// testNoToken: a permit carries no fencing token.
func (s *semSuite) testNoToken(t *testing.T) {
	le := take(t, s.newSem(t), key(t), 2, 1)
	if le.Token() != 0 {
		t.Errorf("a permit's Token() = %d; want 0: a semaphore cannot fence", le.Token())
	}
}

// testExpiry: the permits of a holder that vanished come back when its
// lease ends, and the lease says it was lost.
func (s *semSuite) testExpiry(t *testing.T) {
	ss := s.sems(t, 2)
	k := key(t)
	a := take(t, ss[0], k, 1, 1, lock.WithTTL(s.ttl))
	b := take(t, ss[1], k, 1, 1) // waits for the expiry
	mustBeLost(t, a, 10*s.ttl+5*time.Second)
	mustBeLive(t, b)
	mustRelease(t, b)
}

// testDoubleRelease: a second Release is harmless; it frees nobody
// else's permit.
func (s *semSuite) testDoubleRelease(t *testing.T) {
	ss := s.sems(t, 2)
	k := key(t)
	a := take(t, ss[0], k, 2, 1)
	take(t, ss[1], k, 2, 1)
	mustRelease(t, a)
	mustRelease(t, a)
	if _, err := tryTake(t, ss[0], k, 2, 1); err != nil {
		t.Fatalf("the permit released = %v", err)
	}
	_, err := tryTake(t, ss[1], k, 2, 1)
	mustRefuse(t, "TryAcquirePermits after a double release", err)
}

// testStaleRelease: a holder whose lease expired and whose permit was
// taken by another cannot release or refresh the other's.
func (s *semSuite) testStaleRelease(t *testing.T) {
	ss := s.sems(t, 3)
	k := key(t)
	a := take(t, ss[0], k, 1, 1, lock.WithTTL(s.ttl))
	b := take(t, ss[1], k, 1, 1)
	mustBeLost(t, a, 10*s.ttl+5*time.Second)
	if err := a.Release(bounded(t)); !errors.Is(err, lock.ErrLost) {
		t.Errorf("stale holder's Release = %v; want ErrLost", err)
	}
	if err := a.Refresh(bounded(t), time.Minute); !errors.Is(err, lock.ErrLost) {
		t.Errorf("stale holder's Refresh = %v; want ErrLost", err)
	}
	_, err := tryTake(t, ss[2], k, 1, 1)
	mustRefuse(t, "TryAcquirePermits while the new holder holds", err)
	mustBeLive(t, b)
}

// testManyNotStarved: a caller of all the permits, first in line, is
// served before a caller of one that came after it, although the one
// would fit first.
func (s *semSuite) testManyNotStarved(t *testing.T) {
	ss := s.sems(t, 3)
	k := key(t)
	ctx := bounded(t)
	var held []lock.Lease
	for range 3 {
		held = append(held, take(t, ss[0], k, 3, 1))
	}
	order := make(chan string, 2)
	var wg sync.WaitGroup
	waiter := func(name string, sem lock.Semaphores, n int) {
		wg.Go(func() {
			le, err := sem.AcquirePermits(ctx, k, 3, n)
			if err != nil {
				t.Errorf("%s: AcquirePermits = %v", name, err)
				return
			}
			order <- name
			time.Sleep(5 * time.Millisecond)
			if err := le.Release(ctx); err != nil {
				t.Errorf("%s: Release = %v", name, err)
			}
		})
	}
	waiter("three", ss[1], 3)
	s.awaitQueuedOn(t, k, 1)
	waiter("one", ss[2], 1)
	s.awaitQueuedOn(t, k, 2)
	mustRelease(t, held[0]) // one permit free: "one" fits, but "three" is first
	_, err := tryTake(t, ss[0], k, 3, 1)
	mustRefuse(t, "TryAcquirePermits with callers queued", err)
	mustRelease(t, held[1])
	mustRelease(t, held[2])
	wg.Wait()
	close(order)
	var got []string
	for name := range order {
		got = append(got, name)
	}
	if fmt.Sprint(got) != "[three one]" {
		t.Errorf("served %v; want [three one]: the caller of three permits was first in line", got)
	}
}

// testArrivalOrder: waiters of one and two permits are served in the
// order they came.
func (s *semSuite) testArrivalOrder(t *testing.T) {
	const waiters = 8
	ss := s.sems(t, 3)
	k := key(t)
	ctx := bounded(t)
	full := take(t, ss[0], k, 2, 2)
	served := make(chan int, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			le, err := ss[1+i%2].AcquirePermits(ctx, k, 2, 1+i%2)
			if err != nil {
				t.Errorf("waiter %d: AcquirePermits = %v", i, err)
				return
			}
			served <- i
			time.Sleep(time.Millisecond)
			if err := le.Release(ctx); err != nil {
				t.Errorf("waiter %d: Release = %v", i, err)
			}
		})
		s.awaitQueuedOn(t, k, i+1)
	}
	mustRelease(t, full)
	wg.Wait()
	close(served)
	var order []int
	for i := range served {
		// Two callers of one permit may be served together, and report
		// in either order.
		if d := i - len(order); d > 1 || d < -1 {
			t.Errorf("waiter %d (by arrival) was served in position %d", i, len(order))
		}
		order = append(order, i)
	}
	if len(order) != waiters {
		t.Errorf("served %d of %d waiters", len(order), waiters)
	}
	t.Logf("serving order: %v", order)
}

// testCancellation: a wait bound and a cancelled context end the wait
// with ErrNotAcquired joined with the context's error, and leave nothing
// behind.
func (s *semSuite) testCancellation(t *testing.T) {
	ss := s.sems(t, 2)
	k := key(t)
	a := take(t, ss[0], k, 1, 1)
	_, err := ss[1].AcquirePermits(bounded(t), k, 1, 1, lock.WithWait(50*time.Millisecond))
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AcquirePermits with a wait bound = %v; want ErrNotAcquired and DeadlineExceeded", err)
	}
	ctx, cancel := context.WithCancel(bounded(t))
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	_, err = ss[1].AcquirePermits(ctx, k, 1, 1)
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.Canceled) {
		t.Errorf("AcquirePermits cancelled = %v; want ErrNotAcquired and Canceled", err)
	}
	mustRelease(t, a)
	le, err := tryTake(t, ss[1], k, 1, 1)
	if err != nil {
		t.Fatalf("TryAcquirePermits after the waiters gave up = %v; want the semaphore free", err)
	}
	mustRelease(t, le)
}

// testAbandonedHead: when the first in line gives up, those behind it
// that fit are served at once, without a release. The first gives up when
// the test cancels its wait, once the one behind it is queued too, so that
// a slow machine cannot end the wait before the queue is as the test
// needs it.
func (s *semSuite) testAbandonedHead(t *testing.T) {
	ss := s.sems(t, 3)
	k := key(t)
	ctx := bounded(t)
	take(t, ss[0], k, 2, 1)
	headCtx, giveUp := context.WithCancel(ctx)
	defer giveUp()
	gaveUp := make(chan error, 1)
	go func() {
		_, err := ss[1].AcquirePermits(headCtx, k, 2, 2)
		gaveUp <- err
	}()
	s.awaitQueuedOn(t, k, 1)
	behind := make(chan error, 1)
	go func() {
		le, err := ss[2].AcquirePermits(ctx, k, 2, 1) // fits, but behind the caller of two
		if err == nil {
			cleanupRelease(t, le)
		}
		behind <- err
	}()
	s.awaitQueuedOn(t, k, 2)
	giveUp()
	if err := <-gaveUp; !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("the caller of two permits: %v; want ErrNotAcquired once it gave up", err)
	}
	if err := <-behind; err != nil {
		t.Fatalf("AcquirePermits behind an abandoned caller = %v", err)
	}
}

// testAutoRenew: a permit that renews itself outlives many TTLs.
func (s *semSuite) testAutoRenew(t *testing.T) {
	ttl := max(s.ttl, steadyTTL)
	ss := s.sems(t, 2)
	k := key(t)
	a := take(t, ss[0], k, 1, 1, lock.WithTTL(ttl), lock.WithAutoRenew())
	time.Sleep(3 * ttl)
	mustBeLive(t, a)
	_, err := tryTake(t, ss[1], k, 1, 1)
	mustRefuse(t, "TryAcquirePermits while a renewed permit is held", err)
	mustRelease(t, a)
}

// testInvalid: bad arguments are refused with ErrInvalid, and a limit
// other than the key's too.
func (s *semSuite) testInvalid(t *testing.T) {
	sem := s.newSem(t)
	k := key(t)
	for _, tc := range []struct {
		key      string
		limit, n int
	}{{"", 1, 1}, {k, 0, 1}, {k, 2, 0}, {k, 2, 3}, {k, lock.MaxPermits + 1, 1}} {
		if _, err := sem.AcquirePermits(bounded(t), tc.key, tc.limit, tc.n); !errors.Is(err, lock.ErrInvalid) {
			t.Errorf("AcquirePermits(%q, %d, %d) = %v; want ErrInvalid", tc.key, tc.limit, tc.n, err)
		}
		if _, err := sem.TryAcquirePermits(bounded(t), tc.key, tc.limit, tc.n); !errors.Is(err, lock.ErrInvalid) {
			t.Errorf("TryAcquirePermits(%q, %d, %d) = %v; want ErrInvalid", tc.key, tc.limit, tc.n, err)
		}
	}
	take(t, sem, k, 2, 1)
	if _, err := sem.TryAcquirePermits(bounded(t), k, 3, 1); !errors.Is(err, lock.ErrInvalid) {
		t.Errorf("TryAcquirePermits with a limit of 3 on a semaphore of 2 = %v; want ErrInvalid", err)
	}
}
