package etcdlock_test

import (
	"testing"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/testserver"
)

func TestInspector(t *testing.T) {
	endpoint := testserver.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/inspecttest/"}
	locktest.RunInspector(t, func(t *testing.T) lock.Locker {
		return etcdlock.New(newClient(t, endpoint), opts)
	})
}
