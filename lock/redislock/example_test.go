package redislock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/redislock"
)

// The examples run against a throwaway redis-server that TestMain starts
// and names in STOCKADE_REDIS_ADDR, the variable the stockade binary reads.

// The README's lock snippet: a client and a Locker per process, the Locker
// closed first, and a lease released however the work ends.
func ExampleNew() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, nil) // one per process, shared by its goroutines
	defer locker.Close()                 // before client.Close: it ends the Locker's pub/sub connection

	lease, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
	if err != nil {
		fmt.Println(err) // errors.Is(err, lock.ErrNotAcquired) when ctx or lock.WithWait ran out
		return
	}
	defer lease.Release(context.WithoutCancel(ctx))

	// lease.Done() closes if the lease is lost; pass lease.Token() to the
	// resource, which refuses writes that carry a smaller one.
	fmt.Println("holding", lease.Key())
	// Output:
	// holding sku:42
}

// A second caller waits in Acquire while the key is held, and gets it when
// the holder releases, with a larger fencing token.
func ExampleLocker_Acquire() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, nil)
	defer locker.Close()

	first, err := locker.Acquire(ctx, "sku-42", lock.WithTTL(10*time.Second), lock.WithWait(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first holds", first.Key())

	next := make(chan lock.Lease, 1)
	go func() {
		lease, err := locker.Acquire(ctx, "sku-42", lock.WithTTL(10*time.Second), lock.WithWait(5*time.Second))
		if err != nil {
			fmt.Println(err) // lock.ErrNotAcquired joined with context.DeadlineExceeded after 5s
		}
		next <- lease
	}()

	if err := first.Release(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println(first.Err())
	second := <-next
	if second == nil {
		return
	}
	defer second.Release(ctx)
	fmt.Println("second holds", second.Key(), "with a larger token:", second.Token() > first.Token())
	// Output:
	// first holds sku-42
	// lock: lease released
	// second holds sku-42 with a larger token: true
}

func ExampleLocker_TryAcquire() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, nil)
	defer locker.Close()

	first, err := locker.TryAcquire(ctx, "nightly-report")
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = locker.TryAcquire(ctx, "nightly-report")
	fmt.Println(err)
	fmt.Println("held elsewhere:", errors.Is(err, lock.ErrNotAcquired))

	_ = first.Release(ctx)
	second, err := locker.TryAcquire(ctx, "nightly-report")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer second.Release(ctx)
	fmt.Println("free again, with a larger token:", second.Token() > first.Token())
	// Output:
	// lock: not acquired: "nightly-report" is held
	// held elsewhere: true
	// free again, with a larger token: true
}

// A long job keeps its lease alive with WithAutoRenew and watches Done, so
// that it stops as soon as the lease is lost: here when Redis forgets the
// lock's key, as a restart without persistence would.
func ExampleLocker_Acquire_autoRenew() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, &redislock.Options{Prefix: "jobs:"})
	defer locker.Close()

	lease, err := locker.Acquire(ctx, "nightly-report", lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lease.Release(context.WithoutCancel(ctx))

	select {
	case <-lease.Done():
		fmt.Println("lease lost, stopping:", lease.Err())
		return
	case <-time.After(1500 * time.Millisecond): // longer than the TTL
		fmt.Println("still held past its TTL:", lease.Err() == nil)
	}

	client.Del(ctx, "jobs:{nightly-report}") // the key is Prefix + "{" + key + "}"
	select {
	case <-lease.Done(): // the next renewal finds the key gone
		fmt.Println("lease lost, stopping:", lease.Err())
	case <-time.After(5 * time.Second):
		fmt.Println("the loss went unnoticed")
	}
	// Output:
	// still held past its TTL: true
	// lease lost, stopping: lock: lease lost
}

// At most four exports run at once, across every process that shares the
// Redis: a fifth caller is told at once that none is free, and gets one as
// soon as an export ends. Permits carry no fencing token.
func ExampleLocker_AcquirePermits() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, nil)
	defer locker.Close()

	var running []lock.Lease
	for range 4 {
		p, err := locker.AcquirePermits(ctx, "exports", 4, 1, lock.WithTTL(time.Minute))
		if err != nil {
			fmt.Println(err)
			return
		}
		running = append(running, p)
	}
	_, err := locker.TryAcquirePermits(ctx, "exports", 4, 1)
	fmt.Println("fifth:", errors.Is(err, lock.ErrNotAcquired))

	_ = running[0].Release(ctx)
	p, err := locker.TryAcquirePermits(ctx, "exports", 4, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("after one ends: token", p.Token())
	for _, le := range append(running[1:], p) {
		_ = le.Release(ctx)
	}
	// Output:
	// fifth: true
	// after one ends: token 0
}

// Readers share the catalog; a writer waits for them, and readers who
// come after the writer wait for it. The writer's lease carries a fencing
// token.
func ExampleLocker_AcquireExclusive() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("STOCKADE_REDIS_ADDR")})
	defer client.Close()
	locker := redislock.New(client, nil)
	defer locker.Close()

	r, err := locker.AcquireShared(ctx, "catalog")
	if err != nil {
		fmt.Println(err)
		return
	}
	written := make(chan uint64)
	go func() {
		w, err := locker.AcquireExclusive(ctx, "catalog", lock.WithWait(5*time.Second))
		if err != nil {
			fmt.Println(err)
			close(written)
			return
		}
		written <- w.Token()
		_ = w.Release(ctx)
	}()
	for { // until the writer is queued: a new reader is then refused
		r2, err := locker.TryAcquireShared(ctx, "catalog")
		if err != nil {
			break
		}
		_ = r2.Release(ctx)
		time.Sleep(time.Millisecond)
	}
	fmt.Println("a reader behind the writer waits")
	_ = r.Release(ctx)
	fmt.Println("the writer has a token:", <-written > 0)
	// Output:
	// a reader behind the writer waits
	// the writer has a token: true
}
