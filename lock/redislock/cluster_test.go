package redislock_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/redislock"
)

// The tests on a Redis Cluster of three masters: a key's Redis keys share
// a hash tag, so each script runs on the one master that serves the key,
// and hand-offs are published to every node.

func TestClusterConformance(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	prefix := t.Name() + ":"
	admin := newClusterClient(t, c)
	locktest.Run(t,
		func(t *testing.T) lock.Locker {
			return newClusterLocker(t, c, &redislock.Options{Prefix: prefix})
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

func TestClusterSemaphoresConformance(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	prefix := t.Name() + ":"
	admin := newClusterClient(t, c)
	locktest.RunSemaphores(t,
		func(t *testing.T) lock.Semaphores {
			return newClusterLocker(t, c, &redislock.Options{Prefix: prefix})
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return int(admin.ZCard(t.Context(), prefix+"{"+key+"}:sem:q").Val())
		}),
	)
}

func TestClusterRWLockersConformance(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	prefix := t.Name() + ":"
	admin := newClusterClient(t, c)
	locktest.RunRWLockers(t,
		func(t *testing.T) lock.RWLockers {
			return newClusterLocker(t, c, &redislock.Options{Prefix: prefix})
		},
		locktest.WithQueued(func(t *testing.T, key string) int {
			return int(admin.ZCard(t.Context(), prefix+"{"+key+"}:rw:q").Val())
		}),
	)
}

// TestClusterHandOffBesideAnotherMaster queues waiters from several
// Lockers on a held key a while other Lockers take and release a key b
// that another master serves: a goes to its waiters one at a time, in
// arrival order, with rising fencing tokens, each holding it until b has
// changed hands again, and no operation on b fails.
func TestClusterHandOffBesideAnotherMaster(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	// Re-checks are a WaiterTimeout/3 apart: a waiter must learn of its
	// hand-off from the message the release publishes.
	opts := &redislock.Options{Prefix: t.Name() + ":", WaiterTimeout: time.Minute}
	admin := newClusterClient(t, c)
	ctx := t.Context()
	const a, waiters = "a", 4
	b := keyOnOtherMaster(t, c, opts.Prefix, a)
	hold := []lock.Option{lock.WithTTL(time.Minute), lock.WithWait(time.Minute)}

	holder, err := newClusterLocker(t, c, opts).Acquire(ctx, a, hold...)
	if err != nil {
		t.Fatal(err)
	}

	// Two Lockers take and release b, from each other too, until stopped.
	var bRounds atomic.Int64
	stop := make(chan struct{})
	bDone := make(chan error, 2)
	for range 2 {
		l := newClusterLocker(t, c, opts)
		go func() {
			for {
				select {
				case <-stop:
					bDone <- nil
					return
				default:
				}
				le, err := l.Acquire(ctx, b, hold...)
				if err == nil {
					err = le.Release(ctx)
				}
				if err != nil {
					bDone <- fmt.Errorf("%s, on the other master: %w", b, err)
					return
				}
				bRounds.Add(1)
			}
		}()
	}

	type grant struct {
		waiter int
		token  uint64
	}
	grants := make(chan grant, waiters)
	done := make(chan error, waiters)
	var holding atomic.Int32
	for i := range waiters {
		l := newClusterLocker(t, c, opts)
		go func() {
			le, err := l.Acquire(ctx, a, hold...)
			if err != nil {
				done <- fmt.Errorf("waiter %d: %w", i, err)
				return
			}
			var overlap error
			if n := holding.Add(1); n != 1 {
				overlap = fmt.Errorf("granted %s while %d others hold it", a, n-1)
			}
			grants <- grant{i, le.Token()}
			err = awaitRounds(ctx, &bRounds, bRounds.Load()+1)
			holding.Add(-1)
			if err == nil {
				err = le.Release(ctx)
			}
			if err = errors.Join(overlap, err); err != nil {
				err = fmt.Errorf("waiter %d: %w", i, err)
			}
			done <- err
		}()
		// Each waiter queues before the next one starts: this is the
		// arrival order.
		awaitQueuedOn(t, admin, opts.Prefix+"{"+a+"}:q", i+1)
	}

	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	for range 2 {
		if err := <-bDone; err != nil {
			t.Error(err)
		}
	}
	close(grants)
	last, next := holder.Token(), 0
	for g := range grants {
		if g.waiter != next || g.token <= last {
			t.Errorf("grant %d went to waiter %d with token %d after token %d; want waiter %d and a higher token", next, g.waiter, g.token, last, next)
		}
		last, next = g.token, next+1
	}
	if next != waiters {
		t.Errorf("%d of %d waiters granted %s", next, waiters, a)
	}
}

// TestClusterOddKeys takes keys with braces of their own, which must not
// split a key's Redis keys over slots, as a lock, a semaphore and a
// read-write lock.
func TestClusterOddKeys(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	l := newClusterLocker(t, c, &redislock.Options{Prefix: t.Name() + ":"})
	kinds := []struct {
		name string
		try  func(ctx context.Context, key string) (lock.Lease, error)
	}{
		{"lock", func(ctx context.Context, key string) (lock.Lease, error) { return l.TryAcquire(ctx, key) }},
		{"semaphore", func(ctx context.Context, key string) (lock.Lease, error) { return l.TryAcquirePermits(ctx, key, 2, 1) }},
		{"rwlock", func(ctx context.Context, key string) (lock.Lease, error) { return l.TryAcquireExclusive(ctx, key) }},
	}
	// A key that starts with '}' would leave its Redis keys' hash tag
	// empty, and '\' is the escape that keeps it whole (redisq.Tag).
	for _, key := range []string{"{x", "x}", "a{b}c", "{}", "}x", "}", `\}x`, `\`, `\x`} {
		t.Run(key, func(t *testing.T) {
			for _, kind := range kinds {
				le, err := kind.try(t.Context(), key)
				if err == nil {
					// Inspect finds it under its own name.
					if got, ierr := l.Inspect(t.Context(), key); ierr != nil || len(got) != 1 || got[0].Key != key {
						t.Errorf("%s: Inspect(%q) = %+v, %v; want the key", kind.name, key, got, ierr)
					}
					err = le.Release(t.Context())
				}
				if err != nil {
					t.Errorf("%s: %v", kind.name, err)
				}
			}
		})
	}
}

// keyOnOtherMaster returns a key whose Redis keys, under prefix, another
// master serves than key's.
func keyOnOtherMaster(t *testing.T, c *testkit.RedisCluster, prefix, key string) string {
	t.Helper()
	node := c.NodeFor(prefix + "{" + key + "}")
	for i := range 1000 {
		other := fmt.Sprint("other-", i)
		if c.NodeFor(prefix+"{"+other+"}") != node {
			return other
		}
	}
	t.Fatalf("no key of 1000 on another master than %s's", key)
	return ""
}

// awaitRounds waits until rounds reaches want, for at most 30s.
func awaitRounds(ctx context.Context, rounds *atomic.Int64, want int64) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for rounds.Load() < want {
		if ctx.Err() != nil {
			return fmt.Errorf("the other key changed hands %d times in 30s, want %d", rounds.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// awaitQueuedOn is awaitQueued through any client, a cluster's included.
func awaitQueuedOn(t *testing.T, c redis.Cmdable, queue string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for c.ZCard(ctx, queue).Val() != int64(n) {
		if ctx.Err() != nil {
			t.Fatalf("%d waiters never queued on %s", n, queue)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// newClusterClient returns a client of the cluster c, closed when the test
// ends.
func newClusterClient(t *testing.T, c *testkit.RedisCluster) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), PoolSize: 128})
	t.Cleanup(func() { cc.Close() })
	return cc
}

// newClusterLocker returns a Locker with a cluster client of its own, as
// a process of its own would have.
func newClusterLocker(t *testing.T, c *testkit.RedisCluster, opts *redislock.Options) *redislock.Locker {
	t.Helper()
	l := redislock.New(newClusterClient(t, c), opts)
	t.Cleanup(func() { l.Close() })
	return l
}
