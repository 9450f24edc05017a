package redislock_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/benchkit"
	"github.com/stockade/stockade/lock/redislock"
)

// BenchmarkUncontended measures one acquire and release of a free key,
// against a bare SET NX PX plus a compare-and-delete script on the same
// server: the floor any Redis lock pays.
//
//	go test -run '^$' -bench Uncontended -cpu 1,16 ./redislock/
func BenchmarkUncontended(b *testing.B) {
	addr := testkit.SharedRedis(b).Addr()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	ctx := b.Context()

	b.Run("redislock", func(b *testing.B) {
		l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
		defer l.Close()
		b.RunParallel(func(pb *testing.PB) {
			benchkit.LockUnlock(b, pb, l.TryAcquire, fmt.Sprintf("k%d", time.Now().UnixNano()))
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
	c := redis.NewClient(&redis.Options{Addr: testkit.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })
	key := fmt.Sprintf("handoff%d", time.Now().UnixNano())

	b.SetParallelism(2) // 2 × GOMAXPROCS goroutines queue on the key
	b.RunParallel(func(pb *testing.PB) { benchkit.LockUnlock(b, pb, l.Acquire, key) })
}

// BenchmarkSemaphore measures one acquire and release of a permit of a
// semaphore shared by every goroutine, whose limit they never reach,
// against one acquire and release of a lock on a key per goroutine: at
// the same concurrency neither ever waits, so the two differ by the cost
// of their scripts and of sending them. Each reports the CPU time the
// benchmark's process and the Redis server spent per operation, which
// varies less from run to run than the rate.
//
//	go test -run '^$' -bench Semaphore ./redislock/
func BenchmarkSemaphore(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: testkit.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })
	const parallelism = 8 // × GOMAXPROCS goroutines

	b.Run("mutex", func(b *testing.B) {
		cpu := benchkit.CPU(b, serverCPU(c))
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			benchkit.LockUnlock(b, pb, l.TryAcquire, fmt.Sprintf("k%d", time.Now().UnixNano()))
		})
		benchkit.ReportRate(b, float64(b.N), "ops/s")
		cpu(float64(b.N))
	})
	b.Run("semaphore", func(b *testing.B) {
		key := fmt.Sprintf("sem%d", time.Now().UnixNano())
		acquire := func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.TryAcquirePermits(ctx, key, lock.MaxPermits, 1, opts...)
		}
		cpu := benchkit.CPU(b, serverCPU(c))
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) { benchkit.LockUnlock(b, pb, acquire, key) })
		benchkit.ReportRate(b, float64(b.N), "ops/s")
		cpu(float64(b.N))
	})
}

// BenchmarkRWLock has 16 readers and a writer share one key, each holding
// it for a millisecond, against the same 17 callers taking a lock on one
// key: readers share the read-write lock, so they read many times as
// often as through the lock. An operation is a read. With writer=always
// the writer asks again as soon as it has written, so readers are always
// waiting behind it; this caps the read-write lock's reads at about half
// of what 16 readers could do, about 8.5 times the lock's. With
// writer=paused it writes, then pauses for 10 holds.
//
//	go test -run '^$' -bench RWLock ./redislock/
func BenchmarkRWLock(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: testkit.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })

	benchkit.RWLockVersusMutex(b, time.Millisecond, l.AcquireShared, l.AcquireExclusive, l.Acquire)
}

// serverCPU returns the CPU time, user and system, the Redis server c
// talks to has spent, as INFO reports it.
func serverCPU(c *redis.Client) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		info, err := c.Info(context.Background(), "cpu").Result()
		if err != nil {
			return 0, err
		}
		var total float64
		for line := range strings.Lines(info) {
			name, value, _ := strings.Cut(strings.TrimSpace(line), ":")
			if name == "used_cpu_sys" || name == "used_cpu_user" {
				v, err := strconv.ParseFloat(value, 64)
				if err != nil {
					return 0, fmt.Errorf("INFO cpu: %s: %w", line, err)
				}
				total += v
			}
		}
		return time.Duration(total * float64(time.Second)), nil
	}
}
