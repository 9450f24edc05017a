package pglock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/pglock"
)

// TestLockTxSerializes runs read-modify-write transactions on one counter
// row from several goroutines, each under LockTx: no update is lost, no
// two critical sections overlap, and tokens rise in commit order. The first
// LockTx creates the token sequence outside its transaction, which then
// rolls back: the sequence stays.
func TestLockTxSerializes(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	pool := newPool(t, url, 8)
	ctx := t.Context()
	opts := &pglock.Options{Sequence: "tx_tokens"}
	if _, err := pool.Exec(ctx, "CREATE TABLE counter (n int NOT NULL); INSERT INTO counter VALUES (0)"); err != nil {
		t.Fatal(err)
	}

	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := pglock.LockTx(ctx, tx, "counter", opts)
		if err != nil {
			return err
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatalf("first LockTx: %v", err)
	}
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT to_regclass('public.tx_tokens') IS NOT NULL").Scan(&exists); err != nil || !exists {
		t.Fatalf("token sequence after the first transaction rolled back: exists %v, %v", exists, err)
	}

	const goroutines, rounds = 4, 6
	var inside, overlaps atomic.Int64
	var mu sync.Mutex
	var last uint64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					token, err := pglock.LockTx(ctx, tx, "counter", opts)
					if err != nil {
						return err
					}
					if inside.Add(1) > 1 {
						overlaps.Add(1)
					}
					defer inside.Add(-1)
					mu.Lock()
					if token <= last {
						t.Errorf("token %d after %d", token, last)
					}
					last = token
					mu.Unlock()
					var n int
					if err := tx.QueryRow(ctx, "SELECT n FROM counter").Scan(&n); err != nil {
						return err
					}
					time.Sleep(time.Millisecond) // widen the window for a lost update
					_, err = tx.Exec(ctx, "UPDATE counter SET n = $1", n+1)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var n int
	if err := pool.QueryRow(ctx, "SELECT n FROM counter").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != goroutines*rounds {
		t.Errorf("counter = %d after %d locked increments: updates were lost", n, goroutines*rounds)
	}
	if overlaps.Load() > 0 {
		t.Errorf("%d critical sections overlapped", overlaps.Load())
	}
}

// TestLockTxReleasedAtCommit checks that LockTx holds the key until commit
// (a second transaction and a Locker wait, in the server's queue) and
// releases it then, and that a cancelled LockTx leaves no waiter behind.
func TestLockTxReleasedAtCommit(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	pool := newPool(t, url, 8)
	ctx := t.Context()
	l := pglock.New(newPool(t, url, 2), nil)
	id := pglock.LockID("k", nil)

	tx1, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(ctx)
	t1, err := pglock.LockTx(ctx, tx1, "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("Locker.TryAcquire while a transaction holds the key = %v; want ErrNotAcquired", err)
	}

	got := make(chan uint64, 1)
	go func() {
		tx2, err := pool.Begin(ctx)
		if err != nil {
			t.Error(err)
			got <- 0
			return
		}
		defer tx2.Rollback(ctx)
		t2, err := pglock.LockTx(ctx, tx2, "k", nil)
		if err != nil {
			t.Error(err)
		}
		got <- t2 // and roll back, releasing
	}()
	eventually(t, "the second transaction is not queued on the server", func() bool { return lockCount(t, pool, id, false) == 1 })
	select {
	case <-got:
		t.Fatal("a second transaction took the key while the first held it")
	default:
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if t2 := <-got; t2 <= t1 {
		t.Errorf("second transaction's token %d not larger than the first's %d", t2, t1)
	}

	// Rolled back: the key is free for a Locker, which now holds it.
	le, err := l.Acquire(ctx, "k", lock.WithWait(bound))
	if err != nil {
		t.Fatal(err)
	}
	tx3, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx3.Rollback(ctx)
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := pglock.LockTx(wctx, tx3, "k", nil); !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockTx while a lease holds the key, until a deadline = %v; want ErrNotAcquired and DeadlineExceeded", err)
	}
	if n := lockCount(t, pool, id, false); n != 0 {
		t.Errorf("%d waiting locks after the cancelled LockTx; want 0", n)
	}
	if err := tx3.Rollback(ctx); err != nil {
		t.Errorf("rolling back after a cancelled LockTx: %v", err)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
