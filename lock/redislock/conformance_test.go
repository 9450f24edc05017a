package redislock_test

import (
	"testing"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/redislock"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	prefix := "locktest:"
	admin := newClient(t, addr)
	locktest.Run(t,
		func(t *testing.T) lock.Locker {
			// A client of its own per locker: separate processes share
			// nothing but the server.
			return newLocker(t, addr, &redislock.Options{Prefix: prefix})
		},
		locktest.WithRevoke(func(t *testing.T, key string) {
			if err := admin.Del(t.Context(), prefix+"{"+key+"}").Err(); err != nil {
				t.Fatal(err)
			}
		}),
		locktest.WithWaiters(func(t *testing.T, key string) int {
			return int(admin.ZCard(t.Context(), prefix+"{"+key+"}:q").Val())
		}),
	)
}
