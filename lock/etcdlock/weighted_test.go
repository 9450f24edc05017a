package etcdlock_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/locktest"
)

func TestSemaphoresConformance(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/locktest/"}
	admin := newClient(t, endpoint)
	locktest.RunSemaphores(t,
		func(t *testing.T) lock.Semaphores {
			// A client of its own per locker: separate processes share
			// nothing but the server.
			return etcdlock.New(newClient(t, endpoint), opts)
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return waiting(t, admin, etcdlock.SemaphorePrefix(opts, key))
		}),
		// etcd leases count whole seconds.
		locktest.WithShortTTL(time.Second),
	)
}

func TestRWLockersConformance(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/locktest/"}
	admin := newClient(t, endpoint)
	locktest.RunRWLockers(t,
		func(t *testing.T) lock.RWLockers {
			return etcdlock.New(newClient(t, endpoint), opts)
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return waiting(t, admin, etcdlock.RWLockPrefix(opts, key))
		}),
		locktest.WithShortTTL(time.Second),
	)
}

// waiting counts the keys in the queue under prefix that the grant rule
// does not let through: those for which the permits asked by the keys
// created before them, and their own, exceed the limit.
func waiting(t *testing.T, c *clientv3.Client, prefix string) int {
	t.Helper()
	resp, err := c.Get(t.Context(), prefix, clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		t.Fatal(err)
	}
	waiters, asked := 0, 0
	for _, kv := range resp.Kvs {
		var n, limit int
		if _, err := fmt.Sscanf(string(kv.Value), "%d/%d", &n, &limit); err != nil {
			t.Fatalf("etcd key %s holds %q: %v", kv.Key, kv.Value, err)
		}
		if asked += n; asked > limit {
			waiters++
		}
	}
	return waiters
}

// TestVanishedHolder: the permits of a holder whose process vanished,
// without a Release, come back when its etcd lease expires, although it
// was renewing them.
func TestVanishedHolder(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/" + t.Name() + "/"}
	admin := newClient(t, endpoint)
	const key, limit = "sem", 2
	ctx := t.Context()

	gone := newClient(t, endpoint)
	held, err := etcdlock.New(gone, opts).AcquirePermits(ctx, key, limit, 2, lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	waiter := etcdlock.New(newClient(t, endpoint), opts)
	granted := make(chan error, 1)
	go func() {
		le, err := waiter.AcquirePermits(ctx, key, limit, 1, lock.WithWait(30*time.Second))
		if err == nil {
			err = le.Release(ctx)
		}
		granted <- err
	}()
	for end := time.Now().Add(20 * time.Second); waiting(t, admin, etcdlock.SemaphorePrefix(opts, key)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the waiter never queued")
		}
	}

	gone.Close() // no Release, no more renewals
	if err := <-granted; err != nil {
		t.Fatalf("waiter behind a vanished holder: %v", err)
	}
	select {
	case <-held.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the vanished holder's lease still says it is held")
	}
	if kvs := queue(t, admin, etcdlock.SemaphorePrefix(opts, key)); len(kvs) != 0 {
		t.Errorf("keys left in the queue: %v", kvs)
	}
}

// TestLimitMismatch: a waiting caller whose limit differs from the one
// of the key's holders is refused with ErrInvalid, and leaves no key.
func TestLimitMismatch(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	opts := &etcdlock.Options{Prefix: "/" + t.Name() + "/"}
	admin := newClient(t, endpoint)
	const key = "sem"
	ctx := t.Context()
	held, err := etcdlock.New(newClient(t, endpoint), opts).AcquirePermits(ctx, key, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	other := etcdlock.New(newClient(t, endpoint), opts)
	if _, err := other.AcquirePermits(ctx, key, 3, 1); !errors.Is(err, lock.ErrInvalid) {
		t.Errorf("AcquirePermits with a limit of 3 on a semaphore of 2 = %v; want ErrInvalid", err)
	}
	if kvs := queue(t, admin, etcdlock.SemaphorePrefix(opts, key)); len(kvs) != 1 {
		t.Errorf("keys in the queue = %v; want the holder's alone", kvs)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
