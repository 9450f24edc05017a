package locktest

import (
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// RunInspector checks a backend's lock.Inspector and lock.Breaker against
// what the test holds and queues: each call of newLocker returns a Locker
// on the shared state that implements both. Semaphores and read-write
// locks are checked too if the Locker implements them.
func RunInspector(t *testing.T, newLocker func(t *testing.T) lock.Locker) {
	t.Helper()
	l := newLocker(t)
	ins, ok := l.(lock.Inspector)
	if !ok {
		t.Fatalf("%T is not a lock.Inspector", l)
	}
	br, ok := l.(lock.Breaker)
	if !ok {
		t.Fatalf("%T is not a lock.Breaker", l)
	}
	ctx := bounded(t)
	prefix := key(t) + "/"
	lk, sem, rw := prefix+"lock", prefix+"sem", prefix+"rw"
	const ttl = time.Minute

	holder, err := l.Acquire(ctx, lk, lock.WithTTL(ttl))
	if err != nil {
		t.Fatalf("Acquire(%q) = %v", lk, err)
	}
	cleanupRelease(t, holder)
	next := make(chan lock.Lease, 1)
	go func() {
		le, err := newLocker(t).Acquire(ctx, lk)
		if err != nil {
			t.Errorf("waiter: Acquire = %v", err)
		}
		next <- le
	}()
	want := []lock.KeyState{{Key: lk, Kind: lock.KindLock, Holders: []lock.Holder{{Token: holder.Token()}}, Waiters: 1}}
	if s, ok := l.(lock.Semaphores); ok {
		take(t, s, sem, 3, 2, lock.WithTTL(ttl))
		go func() {
			if le, err := newLocker(t).(lock.Semaphores).AcquirePermits(ctx, sem, 3, 2); err == nil {
				_ = le.Release(ctx)
			}
		}()
		want = append(want, lock.KeyState{Key: sem, Kind: lock.KindSemaphore, Limit: 3, Holders: []lock.Holder{{Permits: 2}}, Waiters: 1})
	}
	if r, ok := l.(lock.RWLockers); ok {
		read(t, r, rw, lock.WithTTL(ttl))
		read(t, newLocker(t).(lock.RWLockers), rw, lock.WithTTL(ttl))
		want = append(want, lock.KeyState{Key: rw, Kind: lock.KindRWLock, Holders: []lock.Holder{{Shared: true}, {Shared: true}}})
	}

	// Wait until the waiters show, then compare what matters: the key,
	// its kind, limit and waiters, and each holder's token, permits and
	// sharing; expiry within the TTL where the backend knows it.
	var got []lock.KeyState
	deadline := time.Now().Add(hang)
	for {
		if got, err = ins.Inspect(ctx, prefix); err != nil {
			t.Fatalf("Inspect(%q) = %v", prefix, err)
		}
		if sameStates(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sameStates(got, want) {
		t.Fatalf("Inspect(%q) = %+v; want %+v", prefix, got, want)
	}
	for _, st := range got {
		for _, h := range st.Holders {
			if !h.ExpiresAt.IsZero() && (h.ExpiresAt.Before(time.Now()) || h.ExpiresAt.After(time.Now().Add(ttl+5*time.Second))) {
				t.Errorf("%s %q: a holder expires at %v; want within the TTL of %v from now", st.Kind, st.Key, h.ExpiresAt, ttl)
			}
		}
	}
	if one, err := ins.InspectKey(ctx, lk); err != nil || !sameStates(one, want[:1]) {
		t.Errorf("InspectKey(%q) = %+v, %v; want %+v", lk, one, err, want[:1])
	}
	if none, err := ins.InspectKey(ctx, prefix+"free"); err != nil || len(none) != 0 {
		t.Errorf("InspectKey of a free key = %+v, %v; want nothing", none, err)
	}

	broken, err := br.Break(ctx, lk)
	if err != nil || len(broken) != 1 || len(broken[0].Holders) != 1 || broken[0].Holders[0].Token != holder.Token() {
		t.Fatalf("Break(%q) = %+v, %v; want the lock held by token %d", lk, broken, err, holder.Token())
	}
	mustBeLost(t, holder, hang)
	le := <-next
	if le == nil {
		t.Fatal("the waiter got no lease after the break")
	}
	cleanupRelease(t, le)
	if le.Token() <= holder.Token() {
		t.Errorf("the next holder's token %d is not larger than the broken holder's %d", le.Token(), holder.Token())
	}
	if err := holder.Release(ctx); !errors.Is(err, lock.ErrLost) {
		t.Errorf("the broken holder's Release = %v; want ErrLost", err)
	}
}

// sameStates compares states on what every backend must know.
func sameStates(got, want []lock.KeyState) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		if g.Key != w.Key || g.Kind != w.Kind || g.Limit != w.Limit || g.Waiters != w.Waiters || len(g.Holders) != len(w.Holders) {
			return false
		}
		for j, h := range g.Holders {
			wh := w.Holders[j]
			if h.Token != wh.Token || h.Permits != wh.Permits || h.Shared != wh.Shared {
				return false
			}
		}
	}
	return true
}
