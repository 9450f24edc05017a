package memlock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	l := New(nil)
	locktest.Run(t, func(*testing.T) lock.Locker { return l },
		locktest.WithRevoke(func(_ *testing.T, key string) { l.revoke(key) }),
		locktest.WithWaiters(func(_ *testing.T, key string) int { return l.waiting(key) }))
	// Every lease the suite took has been released or has expired.
	if n := l.size(); n != 0 {
		t.Errorf("%d keys still held after the suite", n)
	}
}

func TestSemaphoresConformance(t *testing.T) {
	t.Parallel()
	l := New(nil)
	locktest.RunSemaphores(t, func(*testing.T) lock.Semaphores { return l },
		locktest.WithQueued(func(_ *testing.T, key string) int { return l.queuedFor(wname{semaphores, key}) }))
	if n := l.weightedSize(); n != 0 {
		t.Errorf("%d semaphores still held or waited for after the suite", n)
	}
}

func TestRWLockersConformance(t *testing.T) {
	t.Parallel()
	l := New(nil)
	locktest.RunRWLockers(t, func(*testing.T) lock.RWLockers { return l },
		locktest.WithQueued(func(_ *testing.T, key string) int { return l.queuedFor(wname{rwLocks, key}) }))
	if n := l.weightedSize(); n != 0 {
		t.Errorf("%d read-write locks still held or waited for after the suite", n)
	}
}

// queuedFor is how many callers wait for name.
func (l *Locker) queuedFor(name wname) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.weighted[name]; e != nil {
		return e.waiters.Len()
	}
	return 0
}

// weightedSize is how many keys of every kind are held or waited for.
func (l *Locker) weightedSize() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.weighted)
}

// revoke forgets key's holder without telling it, as a restarted server
// would; the holder learns of it from Refresh or its deadline.
func (l *Locker) revoke(key string) {
	l.mu.Lock()
	grants := l.endHolder(key)
	l.mu.Unlock()
	deliverAll(grants)
}

// endHolder ends the hold of lock key, as its Release would, and returns
// the grants to deliver. l.mu must be held.
func (l *Locker) endHolder(key string) []wgrant {
	e := l.weighted[wname{locks, key}]
	if e == nil {
		return nil
	}
	for h := range e.holds {
		return h.end(e)
	}
	return nil
}

// waiting returns how many acquirers are queued for lock key.
func (l *Locker) waiting(key string) int { return l.queuedFor(wname{locks, key}) }

// size is how many keys of every kind are held or waited for.
func (l *Locker) size() int { return l.weightedSize() }

func (l *Locker) queued(key string) int { return l.waiting(key) }

// waitQueued waits until n callers are queued for key.
func waitQueued(t *testing.T, l *Locker, key string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); l.queued(key) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d callers queued for %q; want %d", l.queued(key), key, n)
		}
		time.Sleep(10 * time.Microsecond)
	}
}

func TestForgetsReleasedKeys(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	if raceEnabled {
		n = 100_000 // the race detector makes each round many times dearer
	}
	l := New(nil)
	ctx := t.Context()
	for i := range n {
		lease, err := l.TryAcquire(ctx, strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.size(); got != 0 {
		t.Errorf("%d keys remembered after acquiring and releasing %d", got, n)
	}
}

func TestForgetsExpiredKeys(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := New(nil)
		ctx := t.Context()
		var leases []lock.Lease
		for i := range 1000 {
			lease, err := l.Acquire(ctx, fmt.Sprint("key-", i), lock.WithTTL(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			leases = append(leases, lease)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := l.size(); got != 0 {
			t.Errorf("%d keys remembered after their leases expired", got)
		}
		for _, lease := range leases {
			if err := lease.Err(); !errors.Is(err, lock.ErrLost) {
				t.Fatalf("lease on %q: Err() = %v; want ErrLost", lease.Key(), err)
			}
		}
	})
}

func TestForgetsCancelledWaiters(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := New(nil)
		ctx := t.Context()
		holder, err := l.Acquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 300 {
			wg.Go(func() {
				var opts []lock.Option
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				switch i % 3 {
				case 0:
					cancel()
				case 1:
					time.AfterFunc(time.Duration(i)*time.Millisecond, cancel)
				case 2:
					opts = append(opts, lock.WithWait(time.Duration(i)*time.Millisecond))
				}
				if _, err := l.Acquire(ctx, "k", opts...); !errors.Is(err, lock.ErrNotAcquired) {
					t.Errorf("waiter %d: Acquire = %v; want ErrNotAcquired", i, err)
				}
			})
		}
		wg.Wait()
		if n := l.queued("k"); n != 0 {
			t.Errorf("%d waiters still queued after all gave up", n)
		}
		if err := holder.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if n := l.size(); n != 0 {
			t.Errorf("%d keys remembered after the holder released", n)
		}
	})
}

// TestHandedOverWhileGivingUp makes a waiter give up and be handed the key
// at the same moment: its ctx ends while l.mu is held, so its select has
// chosen ctx.Done, and the key is handed to it before it can leave the
// queue. It must pass the key on to the next waiter, or free it.
func TestHandedOverWhileGivingUp(t *testing.T) {
	t.Parallel()
	for _, behind := range []bool{false, true} {
		t.Run(fmt.Sprintf("behind=%v", behind), func(t *testing.T) {
			l := New(nil)
			if _, err := l.TryAcquire(t.Context(), "k"); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			gaveUp := make(chan error, 1)
			go func() {
				_, err := l.Acquire(ctx, "k", lock.WithTTL(time.Hour))
				gaveUp <- err
			}()
			waitQueued(t, l, "k", 1)
			next := make(chan lock.Lease, 1)
			if behind {
				go func() {
					if lease, err := l.Acquire(t.Context(), "k"); err == nil {
						next <- lease
					}
				}()
				waitQueued(t, l, "k", 2)
			}

			l.mu.Lock()
			cancel()
			grants := l.endHolder("k") // what the holder's Release does
			l.mu.Unlock()
			deliverAll(grants)

			if err := <-gaveUp; !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.Canceled) {
				t.Fatalf("Acquire = %v; want ErrNotAcquired and context.Canceled", err)
			}
			if behind {
				select {
				case lease := <-next:
					if err := lease.Release(t.Context()); err != nil {
						t.Fatal(err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the key was not passed on to the next waiter")
				}
			}
			if n := l.size(); n != 0 {
				t.Fatalf("key still held after everyone left")
			}
		})
	}
}

// TestCancelRacesRelease races waiters' cancellations against releases, and
// checks that nothing is left held or queued.
func TestCancelRacesRelease(t *testing.T) {
	t.Parallel()
	l := New(nil)
	ctx := t.Context()
	var took, gaveUp int
	for i := range 300 {
		holder, err := l.TryAcquire(ctx, "k")
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		wctx, cancel := context.WithCancel(ctx)
		type result struct {
			lease lock.Lease
			err   error
		}
		done := make(chan result, 1)
		go func() {
			lease, err := l.Acquire(wctx, "k", lock.WithTTL(time.Hour))
			done <- result{lease, err}
		}()
		if i%2 == 0 {
			waitQueued(t, l, "k", 1)
		}
		go cancel()
		if err := holder.Release(ctx); err != nil {
			t.Fatalf("round %d: Release = %v", i, err)
		}
		switch r := <-done; {
		case r.err == nil:
			took++
			if err := r.lease.Release(ctx); err != nil {
				t.Fatalf("round %d: Release = %v", i, err)
			}
		case errors.Is(r.err, context.Canceled):
			gaveUp++
		default:
			t.Fatalf("round %d: Acquire = %v", i, r.err)
		}
		if n := l.size(); n != 0 {
			t.Fatalf("round %d: key still held after everyone left", i)
		}
	}
	t.Logf("the waiter took the key %d times and gave up %d times", took, gaveUp)
}

// TestExpiryReportedBeforeHandover checks the in-process promise that an
// expired holder's Done is closed before the next waiter gets the key.
func TestExpiryReportedBeforeHandover(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := New(nil)
		ctx := t.Context()
		a, err := l.Acquire(ctx, "k", lock.WithTTL(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.Acquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Err(); !errors.Is(err, lock.ErrLost) {
			t.Errorf("expired holder's Err() = %v when the next got the key; want ErrLost", err)
		}
		if b.Token() != a.Token()+1 {
			t.Errorf("tokens %d then %d; want consecutive", a.Token(), b.Token())
		}
		if err := b.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTinyTTL hands the key on with a TTL that may end before the waiter
// has built its lease: the lease must still end, as lost, and the key be
// forgotten.
func TestTinyTTL(t *testing.T) {
	t.Parallel()
	l := New(nil)
	ctx := t.Context()
	for i := range 200 {
		holder, err := l.TryAcquire(ctx, "k")
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		got := make(chan lock.Lease, 1)
		go func() {
			lease, err := l.Acquire(ctx, "k", lock.WithTTL(time.Nanosecond))
			if err != nil {
				t.Errorf("round %d: Acquire = %v", i, err)
			}
			got <- lease
		}()
		waitQueued(t, l, "k", 1)
		if err := holder.Release(ctx); err != nil {
			t.Fatalf("round %d: Release = %v", i, err)
		}
		lease := <-got
		if lease == nil {
			t.FailNow()
		}
		select {
		case <-lease.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: a lease with a 1ns TTL did not end", i)
		}
		if err := lease.Err(); !errors.Is(err, lock.ErrLost) {
			t.Fatalf("round %d: Err() = %v; want ErrLost", i, err)
		}
		for deadline := time.Now().Add(10 * time.Second); l.size() != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: expired key not forgotten", i)
			}
		}
	}
}

func TestFirstToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts *Options
		want uint64
	}{
		{nil, 1},
		{&Options{}, 1},
		{&Options{FirstToken: 1000}, 1000},
	} {
		l := New(tc.opts)
		a, err := l.TryAcquire(t.Context(), "a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.TryAcquire(t.Context(), "b")
		if err != nil {
			t.Fatal(err)
		}
		if a.Token() != tc.want || b.Token() != tc.want+1 {
			t.Errorf("New(%+v): tokens %d, %d; want %d, %d", tc.opts, a.Token(), b.Token(), tc.want, tc.want+1)
		}
	}
}
