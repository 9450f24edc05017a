package pglock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/pglock"
)

func TestRWLockersConformance(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{Prefix: "locktest:"}
	locktest.RunRWLockers(t,
		func(t *testing.T) lock.RWLockers {
			// A pool of its own per locker, as in TestConformance.
			return pglock.New(newPool(t, url, 24), opts)
		},
		// A caller waits once its request waits in the server's queue.
		locktest.WithQueued(func(t *testing.T, key string) int {
			return lockCount(t, admin, pglock.RWLockID(key, opts), false)
		}),
	)
}

func TestSemaphoresConformance(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{Prefix: "locktest:"}
	locktest.RunSemaphores(t,
		func(t *testing.T) lock.Semaphores {
			return pglock.New(newPool(t, url, 24), opts)
		},
		// A caller waits while its entry does not hold.
		locktest.WithQueued(func(t *testing.T, key string) int {
			return waitingEntries(t, admin, opts.Prefix+key)
		}),
	)
}

// waitingEntries counts the live entries of a semaphore key that do not
// hold their permits: those whose permits, with those of the live entries
// that arrived before them, exceed the limit.
func waitingEntries(t *testing.T, db *pgxpool.Pool, name string) int {
	t.Helper()
	var n int
	err := db.QueryRow(t.Context(), `
		SELECT count(*) FROM (
			SELECT "limit", sum(n) OVER (ORDER BY arrival) AS upto
			FROM public.lock_semaphore
			WHERE key = $1 AND expires_at > now()
		) AS e
		WHERE upto > "limit"`, name).Scan(&n)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // no semaphore used yet
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTerminatedReader: when an operator terminates a reader's backend,
// the session's shared lock goes with it at once: the writer queued
// behind it is granted the key, and the reader's lease is lost.
func TestTerminatedReader(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{Prefix: "terminated:"}
	reader := pglock.New(newPool(t, url, 2), opts)
	writer := pglock.New(newPool(t, url, 2), opts)
	ctx := t.Context()
	const key = "k"
	id := pglock.RWLockID(key, opts)

	r, err := reader.AcquireShared(ctx, key, lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release(ctx)
	granted := make(chan error, 1)
	go func() {
		w, err := writer.AcquireExclusive(ctx, key, lock.WithWait(bound))
		if err == nil {
			defer w.Release(context.WithoutCancel(ctx))
		}
		granted <- err
	}()
	eventually(t, "the writer never queued", func() bool { return lockCount(t, admin, id, false) == 1 })

	terminateHolder(t, admin, id)
	if err := <-granted; err != nil {
		t.Fatalf("the writer behind a terminated reader: %v", err)
	}
	mustBeLost(t, r)
}

// TestVanishedSemaphoreHolder: the permits of a holder that stops
// talking to the server (its pool closed: no Release, no Refresh) come
// back when its TTL has passed on the server, not before.
func TestVanishedSemaphoreHolder(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{Prefix: "vanished:"}
	gonePool := newPool(t, url, 2)
	gone := pglock.New(gonePool, opts)
	waiter := pglock.New(newPool(t, url, 2), opts)
	ctx := t.Context()
	const key = "k"

	if _, err := gone.AcquirePermits(ctx, key, 1, 1, lock.WithTTL(time.Second)); err != nil {
		t.Fatal(err)
	}
	var expiresAt time.Time
	if err := admin.QueryRow(ctx, `SELECT expires_at FROM public.lock_semaphore WHERE key = $1`, opts.Prefix+key).Scan(&expiresAt); err != nil {
		t.Fatal(err)
	}
	gonePool.Close()

	le, err := waiter.AcquirePermits(ctx, key, 1, 1, lock.WithWait(bound))
	if err != nil {
		t.Fatalf("AcquirePermits behind a vanished holder = %v", err)
	}
	defer le.Release(ctx)
	var now time.Time
	if err := admin.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		t.Fatal(err)
	}
	if now.Before(expiresAt) {
		t.Errorf("granted at %v, before the vanished holder's entry expired at %v", now, expiresAt)
	}
}
