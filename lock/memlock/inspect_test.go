package memlock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/memlock"
)

func TestInspect(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	l := memlock.New(nil)
	a, err := l.Acquire(ctx, "app/a", lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() {
		le, err := l.Acquire(ctx, "app/a")
		if err == nil {
			err = le.Release(ctx)
		}
		waiting <- err
	}()
	p1, _ := l.AcquirePermits(ctx, "app/sem", 3, 2)
	r1, _ := l.AcquireShared(ctx, "app/rw")
	r2, _ := l.AcquireShared(ctx, "app/rw")
	other, _ := l.Acquire(ctx, "other/b")
	for _, le := range []lock.Lease{p1, r1, r2, other} {
		if le == nil {
			t.Fatal("an acquisition failed")
		}
	}
	waitFor(t, func() bool {
		st, _ := l.InspectKey(ctx, "app/a")
		return len(st) == 1 && st[0].Waiters == 1
	})

	got, err := l.Inspect(ctx, "app/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Inspect(app/) = %+v; want the lock, the semaphore and the read-write lock", got)
	}
	lk, sem, rw := got[0], got[1], got[2]
	if lk.Key != "app/a" || lk.Kind != lock.KindLock || len(lk.Holders) != 1 || lk.Holders[0].Token != a.Token() || lk.Waiters != 1 ||
		lk.Holders[0].ExpiresAt.Before(time.Now().Add(50*time.Second)) {
		t.Errorf("lock: %+v; want app/a held by token %d for about a minute, one waiter", lk, a.Token())
	}
	if sem.Key != "app/sem" || sem.Kind != lock.KindSemaphore || sem.Limit != 3 || len(sem.Holders) != 1 || sem.Holders[0].Permits != 2 || sem.Holders[0].Token != 0 {
		t.Errorf("semaphore: %+v; want app/sem of 3 with one holder of 2 permits", sem)
	}
	if rw.Key != "app/rw" || rw.Kind != lock.KindRWLock || len(rw.Holders) != 2 || !rw.Holders[0].Shared || !rw.Holders[1].Shared {
		t.Errorf("read-write lock: %+v; want app/rw with two shared holders", rw)
	}
	if st, _ := l.InspectKey(ctx, "app/free"); len(st) != 0 {
		t.Errorf("InspectKey of a free key = %+v; want nothing", st)
	}

	broken, err := l.Break(ctx, "app/a")
	if err != nil || len(broken) != 1 || broken[0].Holders[0].Token != a.Token() {
		t.Fatalf("Break(app/a) = %+v, %v; want the lock as it was", broken, err)
	}
	select {
	case <-a.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the broken lease's Done did not close")
	}
	if !errors.Is(a.Err(), lock.ErrLost) {
		t.Errorf("broken lease: Err() = %v; want ErrLost", a.Err())
	}
	if err := <-waiting; err != nil {
		t.Errorf("the waiter after a break: %v", err)
	}
	next, err := l.Acquire(ctx, "app/a")
	if err != nil || next.Token() <= a.Token() {
		t.Fatalf("Acquire after the break: token %v, %v; want one larger than the broken %d", next, err, a.Token())
	}
	_ = next.Release(ctx)

	if _, err := l.Break(ctx, "app/rw"); err != nil {
		t.Fatal(err)
	}
	for _, le := range []lock.Lease{r1, r2} {
		if !errors.Is(le.Release(ctx), lock.ErrLost) {
			t.Errorf("a broken shared lease's Release did not say it was lost")
		}
	}
	if st, _ := l.InspectKey(ctx, "app/rw"); len(st) != 0 {
		t.Errorf("app/rw after Break: %+v; want free", st)
	}
	_ = p1.Release(ctx)
	_ = other.Release(ctx)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestInspectorConformance(t *testing.T) {
	t.Parallel()
	l := memlock.New(nil)
	locktest.RunInspector(t, func(*testing.T) lock.Locker { return l })
}
