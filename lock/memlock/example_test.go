package memlock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
)

func ExampleLocker_Acquire() {
	locker := memlock.New(nil)
	ctx := context.Background()

	lease, err := locker.Acquire(ctx, "sku-42", lock.WithTTL(5*time.Second), lock.WithWait(time.Second))
	if err != nil {
		fmt.Println(err) // lock.ErrNotAcquired, joined with the context's error
		return
	}
	fmt.Println("holding", lease.Key(), "with token", lease.Token())

	if err := lease.Release(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println(lease.Err())
	// Output:
	// holding sku-42 with token 1
	// lock: lease released
}

func ExampleLocker_TryAcquire() {
	locker := memlock.New(nil)
	ctx := context.Background()

	first, _ := locker.TryAcquire(ctx, "nightly-report")

	_, err := locker.TryAcquire(ctx, "nightly-report")
	fmt.Println(err)
	fmt.Println("held elsewhere:", errors.Is(err, lock.ErrNotAcquired))

	_ = first.Release(ctx)
	second, err := locker.TryAcquire(ctx, "nightly-report")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer second.Release(ctx)
	fmt.Println("now held with token", second.Token())
	// Output:
	// lock: not acquired: "nightly-report" is held
	// held elsewhere: true
	// now held with token 2
}

// AcquireAll takes every key of an order or none, in sorted order so that
// two orders sharing SKUs cannot deadlock.
func Example_acquireAll() {
	locker := memlock.New(nil)
	ctx := context.Background()

	order, err := lock.AcquireAll(ctx, locker, []string{"sku-9", "sku-1", "sku-5"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range order.Leases() {
		fmt.Println(l.Key(), "token", l.Token())
	}

	// Another order needs sku-5 too, and gives up after 10ms: it gets
	// nothing, not even sku-2, which was free.
	_, err = lock.AcquireAll(ctx, locker, []string{"sku-5", "sku-2"}, lock.WithWait(10*time.Millisecond))
	fmt.Println("second order:", errors.Is(err, lock.ErrNotAcquired), errors.Is(err, context.DeadlineExceeded))
	sku2, err := locker.TryAcquire(ctx, "sku-2")
	fmt.Println("sku-2 free:", err == nil)
	_ = sku2.Release(ctx)

	_ = order.Release(ctx)
	// Output:
	// sku-1 token 1
	// sku-5 token 2
	// sku-9 token 3
	// second order: true true
	// sku-2 free: true
}

// A long job keeps its lease alive with WithAutoRenew and watches Done, so
// that it stops as soon as the lease is lost.
func Example_autoRenew() {
	locker := memlock.New(nil)
	ctx := context.Background()

	lease, err := locker.Acquire(ctx, "nightly-report", lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		fmt.Println(err)
		return
	}

	work := time.After(1500 * time.Millisecond) // longer than the TTL
	select {
	case <-lease.Done():
		fmt.Println("lease lost, stopping:", lease.Err())
		return
	case <-work:
		fmt.Println("report written; lease still held:", lease.Err() == nil)
	}

	_ = lease.Release(ctx)
	<-lease.Done()
	fmt.Println(lease.Err())

	// Without renewal the lease ends at its TTL, and Done says so.
	short, _ := locker.Acquire(ctx, "nightly-report", lock.WithTTL(20*time.Millisecond))
	<-short.Done()
	fmt.Println(short.Err())
	// Output:
	// report written; lease still held: true
	// lock: lease released
	// lock: lease lost
}

// stock is a resource that fences its writers: it remembers the largest
// token it has accepted and refuses writes that carry a smaller one.
type stock struct {
	mu        sync.Mutex
	lastToken uint64
	onHand    int
}

func (s *stock) set(token uint64, onHand int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.lastToken {
		return fmt.Errorf("stale token %d, already saw %d", token, s.lastToken)
	}
	s.lastToken, s.onHand = token, onHand
	return nil
}

// A holder that stalls past its TTL loses the key to another, and its late
// write is refused by the resource, which checks the fencing token.
func Example_fencing() {
	locker := memlock.New(nil)
	ctx := context.Background()
	sku := &stock{onHand: 10}

	a, _ := locker.Acquire(ctx, "sku-42", lock.WithTTL(50*time.Millisecond))
	<-a.Done() // A stalls, say in a long GC pause, and its lease expires

	b, _ := locker.Acquire(ctx, "sku-42")
	fmt.Println("B writes:", sku.set(b.Token(), 9))
	_ = b.Release(ctx)

	fmt.Println("A writes:", sku.set(a.Token(), 8))
	fmt.Println("on hand:", sku.onHand)
	// Output:
	// B writes: <nil>
	// A writes: stale token 1, already saw 2
	// on hand: 9
}

// At most four exports run at once; a fifth caller is told at once that
// none is free, and gets one as soon as an export ends.
func ExampleLocker_AcquirePermits() {
	locker := memlock.New(nil)
	ctx := context.Background()
	var running []lock.Lease
	for range 4 {
		p, _ := locker.AcquirePermits(ctx, "exports", 4, 1)
		running = append(running, p)
	}
	_, err := locker.TryAcquirePermits(ctx, "exports", 4, 1)
	fmt.Println("fifth:", errors.Is(err, lock.ErrNotAcquired))

	_ = running[0].Release(ctx)
	p, err := locker.TryAcquirePermits(ctx, "exports", 4, 1)
	fmt.Println("after one ends:", err, "token:", p.Token())
	// Output:
	// fifth: true
	// after one ends: <nil> token: 0
}

// Readers share the catalog; a writer waits for them, and readers who
// come after the writer wait for it.
func ExampleLocker_AcquireExclusive() {
	locker := memlock.New(nil)
	ctx := context.Background()
	r, _ := locker.AcquireShared(ctx, "catalog")

	written := make(chan uint64)
	go func() {
		w, _ := locker.AcquireExclusive(ctx, "catalog")
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
	fmt.Println("writer's token:", <-written)
	// Output:
	// a reader behind the writer waits
	// writer's token: 1
}
