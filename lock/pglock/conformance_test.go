package pglock_test

import (
	"testing"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/pglock"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{Prefix: "locktest:"}
	locktest.Run(t,
		func(t *testing.T) lock.Locker {
			// A pool of its own per locker: separate processes share
			// nothing but the database. Every waiter pins a connection
			// (MutualExclusion runs 16 per locker).
			return pglock.New(newPool(t, url, 24), opts)
		},
		// The realistic revoke: an operator terminates the holder's
		// backend, and the session's locks go with it.
		locktest.WithRevoke(func(t *testing.T, key string) {
			terminateHolder(t, admin, pglock.LockID(key, opts))
		}),
		// A waiter is queued once its pg_advisory_lock waits in the server.
		locktest.WithWaiters(func(t *testing.T, key string) int {
			return lockCount(t, admin, pglock.LockID(key, opts), false)
		}),
	)
}
