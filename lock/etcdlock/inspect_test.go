package etcdlock_test

import (
	"testing"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/locktest"
)

func TestInspector(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/inspecttest/"}
	locktest.RunInspector(t, func(t *testing.T) lock.Locker {
		return etcdlock.New(newClient(t, endpoint), opts)
	})
}
