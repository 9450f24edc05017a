package etcdlock_test

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
)

// The lock fences a write to etcd itself: the put happens only if the lease
// still holds the lock when etcd applies it.
func ExampleLease_IsOwner() {
	ctx := context.Background()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"localhost:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	locker := etcdlock.New(client, &etcdlock.Options{Prefix: "/shop/lock/"})
	le, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
	if err != nil {
		log.Fatal(err)
	}
	defer le.Release(context.WithoutCancel(ctx))

	resp, err := client.Txn(ctx).
		If(le.(*etcdlock.Lease).IsOwner()).
		Then(clientv3.OpPut("/shop/stock/sku:42", "7")).
		Commit()
	if err != nil {
		log.Fatal(err)
	}
	if !resp.Succeeded {
		log.Print("lost the lock before the write")
	}
}
