package etcdlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/locktest"
)

// TestServerRestart restarts etcd under a renewed lease with a waiter
// queued behind it and under a short lease nobody renews. etcd keeps leases
// across a restart (the new leader renews them all), so the renewed lease
// should survive and the short one expire; whatever happens, Done must tell
// the truth: nobody else gets a key while its lease says it is held. The
// waiter, and new acquisitions, must work after the restart, with tokens
// still rising.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	srv := testkit.NewEtcd(t)
	admin := newClient(t, srv.Endpoint())
	opts := &etcdlock.Options{Prefix: "/restart/"}
	a := etcdlock.New(newClient(t, srv.Endpoint()), opts)
	b := etcdlock.New(newClient(t, srv.Endpoint()), opts)
	c := etcdlock.New(newClient(t, srv.Endpoint()), opts)
	ctx := t.Context()

	renewed, err := a.Acquire(ctx, "renewed", lock.WithTTL(5*time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	defer renewed.Release(context.WithoutCancel(ctx))
	short, err := a.Acquire(ctx, "short", lock.WithTTL(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan lock.Lease, 1)
	go func() {
		le, err := b.Acquire(ctx, "renewed", lock.WithWait(30*time.Second))
		if err != nil {
			t.Errorf("waiter queued across the restart: %v", err)
		}
		waited <- le
	}()
	waitQueued(t, admin, etcdlock.QueuePrefix(opts, "renewed"), 2)

	start := time.Now()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %v", time.Since(start))

	// For a while after the restart, check that neither key can be taken
	// while its lease says it is held.
	var waiter lock.Lease
	shortTaken := false
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if waiter == nil {
			select {
			case waiter = <-waited:
				if waiter == nil {
					t.FailNow()
				}
				if !isDone(renewed) {
					t.Fatalf("the waiter got %q while its lease said it was held", renewed.Key())
				}
			default:
			}
		}
		got, err := c.TryAcquire(ctx, short.Key())
		switch {
		case err == nil:
			if !isDone(short) {
				t.Fatalf("%q taken by another while its lease said it was held", short.Key())
			}
			shortTaken = true
			if err := got.Release(ctx); err != nil {
				t.Fatal(err)
			}
		case errors.Is(err, lock.ErrNotAcquired), errors.Is(err, lock.ErrUnavailable):
		default:
			t.Fatal(err)
		}
	}
	t.Logf("after the restart: renewed lease %v, short lease %v", renewed.Err(), short.Err())
	if !shortTaken {
		t.Errorf("%q never became free after its TTL", short.Key())
	}

	if waiter == nil {
		// The renewed lease survived: the waiter gets the key when it is
		// released, through watches that outlived the restart.
		if _, err := c.TryAcquire(ctx, renewed.Key()); !errors.Is(err, lock.ErrNotAcquired) {
			t.Fatalf("TryAcquire of the renewed key = %v, want ErrNotAcquired", err)
		}
		if err := renewed.Release(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case waiter = <-waited:
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter was not served after the release")
		}
		if waiter == nil {
			t.FailNow()
		}
	}
	if waiter.Token() <= renewed.Token() {
		t.Errorf("waiter's token %d not above %d", waiter.Token(), renewed.Token())
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
	fresh, err := c.TryAcquire(ctx, "fresh")
	if err != nil {
		t.Fatalf("new acquisition after the restart: %v", err)
	}
	if fresh.Token() <= waiter.Token() {
		t.Errorf("token %d after the restart not above %d", fresh.Token(), waiter.Token())
	}
	if err := fresh.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestServerPaused freezes etcd for longer than a renewed lease's TTL: the
// holder must say it lost the lease by its deadline, while etcd (frozen)
// still has the key; once etcd runs again, the key goes to the next
// waiter, and the old holder can neither release nor refresh it.
func TestServerPaused(t *testing.T) {
	t.Parallel()
	srv := testkit.NewEtcd(t)
	opts := &etcdlock.Options{Prefix: "/paused/", RequestTimeout: time.Second}
	a := etcdlock.New(newClient(t, srv.Endpoint()), opts)
	b := etcdlock.New(newClient(t, srv.Endpoint()), opts)
	ctx := t.Context()
	held, err := a.Acquire(ctx, "k", lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	select {
	case <-held.Done():
	case <-time.After(5 * time.Second):
		srv.Resume()
		t.Fatal("lease not declared lost while etcd was frozen")
	}
	t.Logf("lost %v after the pause", time.Since(paused))
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	next, err := b.Acquire(ctx, "k", lock.WithWait(10*time.Second))
	if err != nil {
		t.Fatalf("Acquire after the resume: %v", err)
	}
	if next.Token() <= held.Token() {
		t.Errorf("token %d not above the lost holder's %d", next.Token(), held.Token())
	}
	if err := held.Refresh(ctx, time.Second); !errors.Is(err, lock.ErrLost) {
		t.Errorf("lost holder's Refresh = %v, want ErrLost", err)
	}
	if err := held.Release(ctx); !errors.Is(err, lock.ErrLost) {
		t.Errorf("lost holder's Release = %v, want ErrLost", err)
	}
	if err := next.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestServerDown checks that with etcd gone a held lease is declared lost
// at its deadline and new acquisitions fail with ErrUnavailable after
// RequestTimeout, not when the caller's context ends; an Acquire whose
// context is shorter than that fails with its context's error.
func TestServerDown(t *testing.T) {
	t.Parallel()
	srv := testkit.NewEtcd(t)
	l := etcdlock.New(newClient(t, srv.Endpoint()), &etcdlock.Options{RequestTimeout: 300 * time.Millisecond})
	locktest.ServerDown(t, l, srv.Kill, time.Second)
	short, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(short, "k"); !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire with a short context and the server down = %v, want ErrNotAcquired and DeadlineExceeded", err)
	}
}

func isDone(le lock.Lease) bool {
	select {
	case <-le.Done():
		return true
	default:
		return false
	}
}

// TestWatchStartHeedsContext: a waiter's watch of its queue starts only
// once etcd answers, and the client does not take the request at all
// while it reopens the stream that the Locker's watches share. The start
// must end with the caller's context all the same: an etcd frozen, or
// killed under a live watch, held callers past their deadline until it
// came back.
func TestWatchStartHeedsContext(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name   string
		inject func(*testing.T, *testkit.Etcd, *etcdlock.Locker)
	}{
		{"paused", func(t *testing.T, srv *testkit.Etcd, _ *etcdlock.Locker) {
			if err := srv.Pause(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Resume() })
		}},
		{"killed under a watch", func(t *testing.T, srv *testkit.Etcd, l *etcdlock.Locker) {
			// A waiter behind a holder keeps a watch open, so that the
			// Locker's watch stream exists when etcd dies.
			// The holder's lease is not released: etcd is gone.
			if _, err := l.Acquire(t.Context(), "busy"); err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithCancel(t.Context())
			waited := make(chan error, 1)
			go func() {
				_, err := l.Acquire(wctx, "busy")
				waited <- err
			}()
			t.Cleanup(func() { cancel(); <-waited })
			waitQueued(t, newClient(t, srv.Endpoint()), etcdlock.QueuePrefix(nil, "busy"), 2)
			if err := srv.Kill(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			srv := testkit.NewEtcd(t)
			// RequestTimeout far beyond the caller's deadline: only the
			// context can end the start in time.
			l := etcdlock.New(newClient(t, srv.Endpoint()), &etcdlock.Options{RequestTimeout: time.Minute})
			f.inject(t, srv, l)
			const deadline = 300 * time.Millisecond
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			start := time.Now()
			ended := make(chan error, 1)
			go func() { ended <- etcdlock.StartQueueWatch(ctx, l, "other") }()
			// Without the fix the start waits for etcd, which does not
			// come back: a bound far above the deadline tells the two
			// apart on a busy machine.
			select {
			case err := <-ended:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("watch start = %v, want the context's deadline", err)
				}
				t.Logf("the watch start ended %v after it began (deadline %v)", time.Since(start).Round(time.Millisecond), deadline)
			case <-time.After(10 * time.Second):
				t.Fatalf("the watch start still waits 10s after it began, its deadline %v", deadline)
			}
		})
	}
}
