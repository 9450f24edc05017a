package redislock_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/redislock"
)

func TestSemaphoresConformance(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	prefix := "locktest:"
	admin := newClient(t, addr)
	locktest.RunSemaphores(t,
		func(t *testing.T) lock.Semaphores {
			return newLocker(t, addr, &redislock.Options{Prefix: prefix})
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return int(admin.ZCard(t.Context(), prefix+"{"+key+"}:sem:q").Val())
		}),
	)
}

func TestRWLockersConformance(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	prefix := "locktest:"
	admin := newClient(t, addr)
	locktest.RunRWLockers(t,
		func(t *testing.T) lock.RWLockers {
			return newLocker(t, addr, &redislock.Options{Prefix: prefix})
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return int(admin.ZCard(t.Context(), prefix+"{"+key+"}:rw:q").Val())
		}),
	)
}

// weightedKinds are a semaphore of two permits and a read-write lock,
// each with a way to take a whole key (both permits, the exclusive lease)
// and one to take a part of it (a permit, a shared lease).
var weightedKinds = []struct {
	name  string
	queue string // the suffix of the key's queue
	whole func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error)
	part  func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error)
	// tryPart is part's TryAcquire.
	tryPart func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error)
}{
	{
		name:  "semaphore",
		queue: ":sem:q",
		whole: func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.AcquirePermits(ctx, key, 2, 2, opts...)
		},
		part: func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.AcquirePermits(ctx, key, 2, 1, opts...)
		},
		tryPart: func(l *redislock.Locker, ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.TryAcquirePermits(ctx, key, 2, 1, opts...)
		},
	},
	{
		name:    "rwlock",
		queue:   ":rw:q",
		whole:   (*redislock.Locker).AcquireExclusive,
		part:    (*redislock.Locker).AcquireShared,
		tryPart: (*redislock.Locker).TryAcquireShared,
	},
}

// TestVanishedHolderGivesPermitsBack takes a whole key with a Locker whose
// process then vanishes (its client is closed, nothing is released): the
// key comes back once the lease's TTL has passed, and not before.
func TestVanishedHolderGivesPermitsBack(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	for _, kind := range weightedKinds {
		t.Run(kind.name, func(t *testing.T) {
			opts := &redislock.Options{Prefix: t.Name() + ":"}
			ctx := t.Context()
			const ttl = 3 * time.Second

			ghostClient := redis.NewClient(&redis.Options{Addr: addr})
			ghost := redislock.New(ghostClient, opts)
			if _, err := kind.whole(ghost, ctx, "k", lock.WithTTL(ttl)); err != nil {
				t.Fatal(err)
			}
			ghost.Close()
			ghostClient.Close()

			l := newLocker(t, addr, opts)
			if _, err := kind.tryPart(l, ctx, "k"); !errors.Is(err, lock.ErrNotAcquired) {
				t.Fatalf("TryAcquire while the vanished holder's lease runs = %v; want ErrNotAcquired", err)
			}
			le, err := kind.part(l, ctx, "k", lock.WithWait(10*ttl))
			if err != nil {
				t.Fatalf("Acquire behind a vanished holder = %v; want its permits back after its TTL", err)
			}
			if err := le.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDeadWaiterDropsOutOfWeighted queues a waiter for a whole key, whose
// process then vanishes (its client is closed, so it neither re-announces
// itself nor leaves), and a live waiter behind it: once the holder
// releases, the live waiter is served after at most a few WaiterTimeouts,
// not after the hour the dead one asked to hold the key for.
func TestDeadWaiterDropsOutOfWeighted(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	for _, kind := range weightedKinds {
		t.Run(kind.name, func(t *testing.T) {
			opts := &redislock.Options{Prefix: t.Name() + ":", WaiterTimeout: time.Second}
			queue := opts.Prefix + "{k}" + kind.queue
			ctx := t.Context()
			c := newClient(t, addr)

			held, err := kind.whole(newLocker(t, addr, opts), ctx, "k", lock.WithTTL(time.Minute))
			if err != nil {
				t.Fatal(err)
			}

			ghostClient := redis.NewClient(&redis.Options{Addr: addr})
			ghost := redislock.New(ghostClient, opts)
			ghostDone := make(chan struct{})
			go func() {
				defer close(ghostDone)
				kind.whole(ghost, ctx, "k", lock.WithTTL(time.Hour), lock.WithWait(time.Minute))
			}()
			awaitQueued(t, c, queue, 1)
			ghost.Close()
			ghostClient.Close()
			<-ghostDone // its next call failed, and so did its clean-up

			next := make(chan error, 1)
			go func() {
				le, err := kind.part(newLocker(t, addr, opts), ctx, "k", lock.WithWait(30*time.Second))
				if err == nil {
					err = le.Release(ctx)
				}
				next <- err
			}()
			awaitQueued(t, c, queue, 2) // behind the ghost
			if err := held.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-next; err != nil {
				t.Fatalf("the live waiter behind a dead one: %v", err)
			}
			if n := c.ZCard(ctx, queue).Val(); n != 0 {
				t.Errorf("%d waiters left in the queue", n)
			}
		})
	}
}

// TestWeightedKeysShareHashTagAndExpire checks the Redis side of a
// semaphore: every key carries the prefix and the key's hash tag, and
// every one expires, while held and waited for and once released.
func TestWeightedKeysShareHashTagAndExpire(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	prefix := t.Name() + ":"
	l := newLocker(t, c.Options().Addr, &redislock.Options{Prefix: prefix})
	ctx := t.Context()

	held, err := l.AcquirePermits(ctx, "sku-1", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	waited := make(chan error, 1)
	go func() { _, err := l.AcquirePermits(waitCtx, "sku-1", 2, 1); waited <- err }()
	awaitQueued(t, c, prefix+"{sku-1}:sem:q", 1)

	base := prefix + "{sku-1}:sem"
	mustExpire(t, c, []string{base, base + ":h", base + ":q"})
	cancel()
	if err := <-waited; !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("waiter: %v, want ErrNotAcquired", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	mustExpire(t, c, []string{base}) // the state hash keeps when the keys expire
}

// mustExpire fails t unless the keys under want's prefix are want, each
// with an expiry.
func mustExpire(t *testing.T, c *redis.Client, want []string) {
	t.Helper()
	keys, err := c.Keys(t.Context(), want[0]+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Fatalf("keys = %q, want %q", keys, want)
	}
	for _, k := range keys {
		if ttl := c.PTTL(t.Context(), k).Val(); ttl <= 0 {
			t.Errorf("%s has no expiry (PTTL %v): it would stay forever", k, ttl)
		}
	}
}

// TestHandedOverPermitsKeepTheirTTL hands permits to a waiter whose TTL
// is longer than WaiterTimeout: the hand-off holds them only for the
// claim window, and the lease must extend them to its full TTL in time.
func TestHandedOverPermitsKeepTheirTTL(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	const waiterTimeout, ttl = 2 * time.Second, 10 * time.Second
	prefix := t.Name() + ":"
	l := newLocker(t, c.Options().Addr, &redislock.Options{Prefix: prefix, WaiterTimeout: waiterTimeout})
	ctx := t.Context()

	first, err := l.AcquirePermits(ctx, "k", 1, 1, lock.WithTTL(ttl))
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan lock.Lease, 1)
	go func() {
		le, err := l.AcquirePermits(ctx, "k", 1, 1, lock.WithTTL(ttl))
		if err != nil {
			t.Error(err)
		}
		next <- le
	}()
	awaitQueued(t, c, prefix+"{k}:sem:q", 1)
	// Nothing extends the permit before the release hands it over, so its
	// full TTL runs from later than this: a bound that a goroutine slow
	// to see the hand-over cannot break.
	handing := time.Now()
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	second := <-next
	if second == nil {
		return
	}
	time.Sleep(waiterTimeout + waiterTimeout/4) // past the claim window
	if err := second.Err(); err != nil {
		t.Fatalf("handed-over lease lost after the claim window, %v into its %v TTL: %v", time.Since(handing), ttl, err)
	}
	expiries, err := c.ZRangeWithScores(ctx, prefix+"{k}:sem:h", 0, -1).Result()
	if err != nil || len(expiries) != 1 {
		t.Fatalf("holders = %v, %v; want one", expiries, err)
	}
	if left := time.Until(time.UnixMilli(int64(expiries[0].Score))); left < ttl-time.Since(handing)-time.Second {
		t.Fatalf("the holder's lease ends in %v on the server; its TTL is %v", left, ttl)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
