package etcdlock_test

import (
	"testing"
	"time"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/locktest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/locktest/"}
	admin := newClient(t, endpoint)
	locktest.Run(t,
		func(t *testing.T) lock.Locker {
			// A client of its own per locker: separate processes share
			// nothing but the server.
			return etcdlock.New(newClient(t, endpoint), opts)
		},
		locktest.WithRevoke(func(t *testing.T, key string) {
			revokeHolder(t, admin, etcdlock.QueuePrefix(opts, key))
		}),
		locktest.WithWaiters(func(t *testing.T, key string) int {
			return max(len(queue(t, admin, etcdlock.QueuePrefix(opts, key)))-1, 0) // less the holder
		}),
		// etcd leases count whole seconds.
		locktest.WithShortTTL(time.Second),
	)
}
