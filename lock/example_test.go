package lock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
)

// AcquireAll takes a cart's SKUs all-or-nothing, in sorted order, so two
// carts that share SKUs cannot deadlock each other.
func ExampleAcquireAll() {
	ctx := context.Background()
	locker := memlock.New(nil)

	cart := []string{"sku:tea", "sku:cup", "sku:tea", "sku:pot"}
	all, err := lock.AcquireAll(ctx, locker, cart, lock.WithTTL(5*time.Second))
	if err != nil {
		fmt.Println("not acquired:", err)
		return
	}
	defer all.Release(ctx)
	for _, l := range all.Leases() {
		fmt.Println("holding", l.Key())
	}

	// Another cart that needs one of the same SKUs must wait.
	_, err = lock.AcquireAll(ctx, locker, []string{"sku:pot", "sku:lid"}, lock.WithWait(10*time.Millisecond))
	fmt.Println(errors.Is(err, lock.ErrNotAcquired))
	// Output:
	// holding sku:cup
	// holding sku:pot
	// holding sku:tea
	// true
}
