package redislock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/testserver"
)

// BenchmarkUncontended measures one acquire and release of a free key,
// against a bare SET NX PX plus a compare-and-delete script on the same
// server: the floor any Redis lock pays.
//
//	go test -run '^$' -bench Uncontended -cpu 1,16 ./redislock/
func BenchmarkUncontended(b *testing.B) {
	addr := testserver.SharedRedis(b).Addr()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	ctx := b.Context()

	b.Run("redislock", func(b *testing.B) {
		l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
		defer l.Close()
		b.RunParallel(func(pb *testing.PB) {
			lockUnlock(b, pb, l.TryAcquire, fmt.Sprintf("k%d", time.Now().UnixNano()))
		})
	})
	b.Run("setnx", func(b *testing.B) {
		del := redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)
		b.RunParallel(func(pb *testing.PB) {
			key := fmt.Sprintf("bench:s%d", time.Now().UnixNano())
			for pb.Next() {
				if err := c.SetArgs(ctx, key, "tok", redis.SetArgs{Mode: "NX", TTL: 10 * time.Second}).Err(); err != nil {
					b.Error(err)
					return
				}
				if err := del.Run(ctx, c, []string{key}, "tok").Err(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkHandOff has goroutines take turns on one key with no work in
// between: almost every acquisition is a hand-off from the previous holder,
// so the time per operation is the hand-off latency (release script,
// notification, waiter wake-up).
//
//	go test -run '^$' -bench HandOff ./redislock/
func BenchmarkHandOff(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: testserver.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })
	key := fmt.Sprintf("handoff%d", time.Now().UnixNano())

	b.SetParallelism(2) // 2 × GOMAXPROCS goroutines queue on the key
	b.RunParallel(func(pb *testing.PB) { lockUnlock(b, pb, l.Acquire, key) })
}

// lockUnlock acquires key with acquire and releases it until pb is done.
func lockUnlock(b *testing.B, pb *testing.PB, acquire func(context.Context, string, ...lock.Option) (lock.Lease, error), key string) {
	ctx := b.Context()
	for pb.Next() {
		le, err := acquire(ctx, key, lock.WithTTL(10*time.Second))
		if err != nil {
			b.Error(err)
			return
		}
		if err := le.Release(ctx); err != nil {
			b.Error(err)
			return
		}
	}
}
