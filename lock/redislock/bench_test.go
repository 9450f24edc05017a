package redislock_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
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

// BenchmarkSemaphore measures one acquire and release of a permit of a
// semaphore shared by every goroutine, whose limit they never reach,
// against one acquire and release of a lock on a key per goroutine: at
// the same concurrency neither ever waits, so the two differ by the cost
// of their scripts and of sending them.
//
//	go test -run '^$' -bench Semaphore ./redislock/
func BenchmarkSemaphore(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: testserver.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })
	const parallelism = 8 // × GOMAXPROCS goroutines

	b.Run("mutex", func(b *testing.B) {
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			lockUnlock(b, pb, l.TryAcquire, fmt.Sprintf("k%d", time.Now().UnixNano()))
		})
		reportRate(b, float64(b.N), "ops/s")
	})
	b.Run("semaphore", func(b *testing.B) {
		key := fmt.Sprintf("sem%d", time.Now().UnixNano())
		acquire := func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.TryAcquirePermits(ctx, key, lock.MaxPermits, 1, opts...)
		}
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) { lockUnlock(b, pb, acquire, key) })
		reportRate(b, float64(b.N), "ops/s")
	})
}

// BenchmarkRWLock has 16 readers and a writer take turns on one key, each
// holding it for a millisecond, against the same 17 callers taking a lock
// on one key: readers share the read-write lock, so they read many times
// as often as through the lock. An operation is a read.
//
//	go test -run '^$' -bench RWLock ./redislock/
func BenchmarkRWLock(b *testing.B) {
	const readers, hold = 16, time.Millisecond
	c := redis.NewClient(&redis.Options{Addr: testserver.SharedRedis(b).Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	l := redislock.New(c, &redislock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })

	b.Run("rwlock", func(b *testing.B) {
		readWrite(b, readers, hold, l.AcquireShared, l.AcquireExclusive, fmt.Sprintf("rw%d", time.Now().UnixNano()))
	})
	b.Run("mutex", func(b *testing.B) {
		readWrite(b, readers, hold, l.Acquire, l.Acquire, fmt.Sprintf("rwm%d", time.Now().UnixNano()))
	})
}

// readWrite runs readers goroutines that read key and one that writes it,
// each holding it for hold, until b.N reads are done, and reports the
// reads and writes per second.
func readWrite(b *testing.B, readers int, hold time.Duration, read, write acquireFunc, key string) {
	ctx, stop := context.WithCancel(b.Context())
	defer stop()
	var reads, writes atomic.Int64
	// loop takes key with acquire and holds it, and calls done after each
	// release, until the benchmark has done its reads.
	loop := func(acquire acquireFunc, done func()) {
		for ctx.Err() == nil {
			le, err := acquire(ctx, key, lock.WithTTL(10*time.Second))
			if err != nil {
				if ctx.Err() == nil {
					b.Error(err)
				}
				return
			}
			time.Sleep(hold)
			if err := le.Release(context.WithoutCancel(ctx)); err != nil {
				b.Error(err)
				return
			}
			done()
		}
	}
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			loop(read, func() {
				if reads.Add(1) >= int64(b.N) {
					stop()
				}
			})
		})
	}
	// The writer's waits: each from its Acquire to its grant.
	var waits []time.Duration
	timedWrite := func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
		start := time.Now()
		le, err := write(ctx, key, opts...)
		if err == nil {
			waits = append(waits, time.Since(start))
		}
		return le, err
	}
	wg.Go(func() { loop(timedWrite, func() { writes.Add(1) }) })
	wg.Wait()
	reportRate(b, float64(reads.Load()), "reads/s")
	reportRate(b, float64(writes.Load()), "writes/s")
	if len(waits) > 0 {
		slices.Sort(waits)
		p99 := waits[min(len(waits)-1, len(waits)*99/100)]
		b.ReportMetric(float64(p99.Microseconds())/1000, "writer-p99-ms")
	}
}

// acquireFunc is a Locker's Acquire, or a method of the same shape.
type acquireFunc = func(context.Context, string, ...lock.Option) (lock.Lease, error)

// reportRate reports n operations over the benchmark's time as a rate.
func reportRate(b *testing.B, n float64, unit string) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit)
}
