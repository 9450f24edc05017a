package pglock_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/pglock"
)

// Examples that need a server have no Output line: they are compiled, not
// run. The tests run the same calls against a real PostgreSQL.

func ExampleNew() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("STOCKADE_POSTGRES_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.MaxConns = 32 // one per lease held or waited for, plus the application's own
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	locker := pglock.New(pool, &pglock.Options{Prefix: "booking:"})
	lease, err := locker.Acquire(ctx, "event-7/seat-12", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
	if err != nil {
		fmt.Println(err) // lock.ErrNotAcquired with ctx's error, or lock.ErrUnavailable
		return
	}
	defer lease.Release(context.WithoutCancel(ctx))
	fmt.Println("holding", lease.Key(), "with token", lease.Token())
}

func ExampleLockTx() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STOCKADE_POSTGRES_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		token, err := pglock.LockTx(ctx, tx, "sku-42", nil) // held until commit or rollback
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE stock SET on_hand = on_hand - 1, fence = $1 WHERE sku = 'sku-42'", token)
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
}

func ExampleLockID() {
	id := pglock.LockID("sku-1", nil) // Prefix "lock:"
	fmt.Println(id)
	fmt.Println("pg_locks classid", uint64(id)>>32, "objid", uint64(id)&0xffffffff)
	// Output:
	// -507704955303063623
	// pg_locks classid 4176758024 objid 2020904889
}

func ExampleIdleTimeout() {
	// How long a lease's session may go silent before the server ends it,
	// freeing the key of a paused or cut-off holder.
	fmt.Println(pglock.IdleTimeout(10*time.Second, nil))                                             // TTL + CheckInterval
	fmt.Println(pglock.IdleTimeout(200*time.Millisecond, nil))                                       // 2 × CheckInterval
	fmt.Println(pglock.IdleTimeout(10*time.Second, &pglock.Options{CheckInterval: 5 * time.Second})) // a sparser check, a later release
	// Output:
	// 11s
	// 2s
	// 15s
}

func ExampleLocker_Inspect() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STOCKADE_POSTGRES_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	locker := pglock.New(pool, &pglock.Options{Prefix: "booking:"})
	states, err := locker.Inspect(ctx, "event-7/")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range states {
		for _, h := range st.Holders {
			// A lock's holder: its backend's pid and its token.
			fmt.Println(st.Kind, st.Key, "held by pid", h.ID, "with token", h.Token)
		}
		fmt.Println(st.Kind, st.Key, "waited for by", st.Waiters)
	}
}

func ExampleLocker_Break() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STOCKADE_POSTGRES_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	locker := pglock.New(pool, &pglock.Options{Prefix: "booking:"})
	// Ends the sessions holding the key: their leases are lost, and the
	// waiters are granted it with larger tokens.
	broken, err := locker.Break(ctx, "event-7/seat-12")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("broke", len(broken), "kinds of the key")
}
