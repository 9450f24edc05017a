package locktest

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// budget bounds the extra rounds of the load tests: every goroutine does
// its first round, and further rounds only while the budget lasts, so a slow
// backend runs fewer rounds instead of a long test.
const budget = 5 * time.Second

// testMutualExclusion hammers one key from 64 goroutines over 4 lockers and
// checks that no two critical sections overlap and that the tokens of
// successive holders increase.
func (s *suite) testMutualExclusion(t *testing.T) {
	const goroutines, rounds = 64, 16
	ls := s.lockers(t, 4)
	key := s.key(t)
	ctx := s.ctx(t)
	stop := time.Now().Add(budget)

	var (
		inside, overlaps, sections, acquires atomic.Int64
		tokMu                                sync.Mutex
		lastToken                            uint64
		haveToken                            bool
		tokenErrs                            int
	)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			l := ls[g%len(ls)]
			for r := 0; r < rounds && (r == 0 || time.Now().Before(stop)); r++ {
				lease, err := l.Acquire(ctx, key)
				if err != nil {
					t.Errorf("goroutine %d round %d: Acquire = %v", g, r, err)
					return
				}
				acquires.Add(1)
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				tokMu.Lock()
				if haveToken && lease.Token() <= lastToken {
					tokenErrs++
				}
				lastToken, haveToken = lease.Token(), true
				tokMu.Unlock()
				runtime.Gosched()
				inside.Add(-1)
				sections.Add(1)
				if err := lease.Release(ctx); err != nil {
					t.Errorf("goroutine %d round %d: Release = %v", g, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d critical sections overlapped another", n)
	}
	if tokenErrs > 0 {
		t.Errorf("%d holders got a token not larger than the previous holder's", tokenErrs)
	}
	if a, c := acquires.Load(), sections.Load(); c != a || c < goroutines {
		t.Errorf("completed %d critical sections for %d acquisitions; want all, and at least %d", c, a, goroutines)
	}
	t.Logf("%d critical sections", sections.Load())
}

// testFencingTokens checks that tokens strictly increase across successive
// holders of a key on different lockers, and that another key, held at the
// same time, neither blocks nor disturbs them.
func (s *suite) testFencingTokens(t *testing.T) {
	ls := s.lockers(t, 3)
	k1, k2 := s.key(t), s.key(t)
	var last1, last2 uint64
	for i := range 9 {
		a := s.acquire(t, ls[i%3], k1)
		b, err := ls[(i+1)%3].TryAcquire(s.ctx(t), k2)
		if err != nil {
			t.Fatalf("round %d: TryAcquire of another key while %q is held = %v", i, k1, err)
		}
		cleanupRelease(t, b)
		if i > 0 && a.Token() <= last1 {
			t.Fatalf("round %d: token %d on %q not larger than the previous holder's %d", i, a.Token(), k1, last1)
		}
		if i > 0 && b.Token() <= last2 {
			t.Fatalf("round %d: token %d on %q not larger than the previous holder's %d", i, b.Token(), k2, last2)
		}
		if a.Key() != k1 || b.Key() != k2 {
			t.Fatalf("round %d: Key() = %q, %q; want %q, %q", i, a.Key(), b.Key(), k1, k2)
		}
		last1, last2 = a.Token(), b.Token()
		if i%2 == 0 {
			s.release(t, a)
			s.release(t, b)
		} else {
			s.release(t, b)
			s.release(t, a)
		}
	}
}

// testTryAcquireHeld checks that TryAcquire refuses a held key at once,
// from any locker including the holder's.
func (s *suite) testTryAcquireHeld(t *testing.T) {
	ls := s.lockers(t, 2)
	key := s.key(t)
	a := s.acquire(t, ls[0], key)
	for _, l := range ls {
		// The holder keeps the key for the default TTL: a TryAcquire that
		// waited would get it, or run into s.ctx, and fail either way.
		s.mustBeHeld(t, l, key)
	}
	mustBeLive(t, a)
	s.release(t, a)
	s.mustBeFree(t, ls[1], key)
}

// testAcquireAllNoDeadlock runs AcquireAll with overlapping random key sets
// from many goroutines and checks that every multi-lease is exclusive on
// each of its keys and that all calls finish.
func (s *suite) testAcquireAllNoDeadlock(t *testing.T) {
	const goroutines, rounds, pool = 16, 10, 6
	ls := s.lockers(t, 4)
	keys := make([]string, pool)
	for i := range keys {
		keys[i] = s.key(t)
	}
	ctx := s.ctx(t)
	stop := time.Now().Add(budget)
	var inside [pool]atomic.Int64
	var overlaps, sections atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), rand.Uint64()))
			l := ls[g%len(ls)]
			for r := 0; r < rounds && (r == 0 || time.Now().Before(stop)); r++ {
				idx := rng.Perm(pool)[:2+rng.IntN(3)]
				names := make([]string, 0, len(idx)+1)
				for _, i := range idx {
					names = append(names, keys[i])
				}
				if r%3 == 0 {
					names = append(names, names[0]) // duplicates are taken once
				}
				m, err := lock.AcquireAll(ctx, l, names)
				if err != nil {
					t.Errorf("goroutine %d round %d: AcquireAll = %v", g, r, err)
					return
				}
				for _, i := range idx {
					if inside[i].Add(1) > 1 {
						overlaps.Add(1)
					}
				}
				runtime.Gosched()
				for _, i := range idx {
					inside[i].Add(-1)
				}
				sections.Add(1)
				if n := len(m.Leases()); n != len(idx) {
					t.Errorf("goroutine %d round %d: %d leases for %d distinct keys", g, r, n, len(idx))
				}
				if err := m.Release(ctx); err != nil {
					t.Errorf("goroutine %d round %d: Release = %v", g, r, err)
					return
				}
				if err := m.Err(); !errors.Is(err, lock.ErrReleased) {
					t.Errorf("goroutine %d round %d: Err() after Release = %v; want ErrReleased", g, r, err)
				}
				if !waitDone(m, hang) {
					t.Errorf("goroutine %d round %d: Done not closed after Release", g, r)
				}
			}
		})
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d times a key was held by two multi-leases at once", n)
	}
	t.Logf("%d multi-key critical sections", sections.Load())
}

// testAcquireAllAllOrNothing checks that a failed AcquireAll leaves none of
// its keys held.
func (s *suite) testAcquireAllAllOrNothing(t *testing.T) {
	ls := s.lockers(t, 3)
	base := s.key(t)
	a, b, m, z := base+"/a", base+"/b", base+"/m", base+"/z"
	holder := s.acquire(t, ls[0], m)

	got, err := lock.AcquireAll(s.ctx(t), ls[1], []string{z, a, m, b}, lock.WithWait(100*time.Millisecond))
	if err == nil {
		cleanupRelease(t, got)
		t.Fatalf("AcquireAll with %q held succeeded", m)
	}
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AcquireAll with %q held = %v; want ErrNotAcquired and context.DeadlineExceeded", m, err)
	}
	for _, k := range []string{a, b, z} {
		s.mustBeFree(t, ls[2], k)
	}
	s.mustBeHeld(t, ls[2], m)
	mustBeLive(t, holder)
	s.release(t, holder)

	all, err := lock.AcquireAll(s.ctx(t), ls[1], []string{z, a, m, b})
	if err != nil {
		t.Fatalf("AcquireAll after the holder released = %v", err)
	}
	cleanupRelease(t, all)
	var keys []string
	for _, l := range all.Leases() {
		keys = append(keys, l.Key())
	}
	if want := []string{a, b, m, z}; !slices.Equal(keys, want) {
		t.Errorf("Leases() keys = %q; want %q in sorted order", keys, want)
	}
	s.release(t, all)
}

// testFairness queues waiters one at a time behind a holder and checks
// that they are served in arrival order. It needs WithWaiters: a waiter has
// arrived when the server shows it in the queue, and only then may the
// next one start.
func (s *suite) testFairness(t *testing.T) {
	if s.waiters == nil {
		t.Fatal("Fairness needs locktest.WithWaiters to see each waiter queued before the next starts")
	}
	const waiters = 12
	ls := s.lockers(t, 3)
	key := s.key(t)
	ctx := s.ctx(t)
	holder := s.acquire(t, ls[0], key)

	type service struct {
		arrival int
		token   uint64
	}
	served := make(chan service, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		ready := make(chan struct{})
		wg.Go(func() {
			l := ls[(i+1)%len(ls)]
			close(ready)
			lease, err := l.Acquire(ctx, key)
			if err != nil {
				t.Errorf("waiter %d: Acquire = %v", i, err)
				return
			}
			served <- service{i, lease.Token()} // in serving order: the key is held
			time.Sleep(time.Millisecond)
			if err := lease.Release(ctx); err != nil {
				t.Errorf("waiter %d: Release = %v", i, err)
			}
		})
		<-ready
		if !s.awaitQueued(t, key, i+1) {
			break // the holder's release below lets the started ones finish
		}
	}
	s.release(t, holder)
	wg.Wait()
	close(served)

	var order []int
	last := holder.Token()
	for sv := range served {
		if sv.arrival-len(order) > 1 || len(order)-sv.arrival > 1 {
			t.Errorf("waiter %d (by arrival) was served in position %d", sv.arrival, len(order))
		}
		if sv.token <= last {
			t.Errorf("waiter %d got token %d, not larger than the previous holder's %d", sv.arrival, sv.token, last)
		}
		last = sv.token
		order = append(order, sv.arrival)
	}
	if len(order) != waiters {
		t.Errorf("served %d of %d waiters", len(order), waiters)
	}
	t.Logf("serving order: %v", order)
}

// awaitQueued returns once n acquirers wait for key. It reports false,
// having failed t, if they never do.
func (s *suite) awaitQueued(t *testing.T, key string, n int) bool {
	t.Helper()
	deadline := time.Now().Add(hang)
	for s.waiters(t, key) < n {
		if time.Now().After(deadline) {
			t.Errorf("%d waiters on %q never queued", n, key)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}
