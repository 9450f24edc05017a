package pglock_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/testserver"
)

// newBenchLocker returns a Locker on a database of its own, with a pool
// of 32 connections: more than the benchmarks' callers, each of which
// pins one while it holds a lock or waits.
func newBenchLocker(b *testing.B) *pglock.Locker {
	b.Helper()
	url := newDatabase(b, testserver.SharedPostgres(b))
	l := pglock.New(newPool(b, url, 32), &pglock.Options{Prefix: "bench:"})
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkSemaphore measures one acquire and release of a permit of a
// semaphore shared by every goroutine, whose limit they never reach,
// against one acquire and release of a lock on a key per goroutine: at
// the same concurrency neither ever waits. A permit is a row written and
// deleted under a short transaction-level lock; a lock is an advisory
// lock on a pinned connection.
//
//	go test -run '^$' -bench Semaphore ./pglock/
func BenchmarkSemaphore(b *testing.B) {
	l := newBenchLocker(b)
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
//	go test -run '^$' -bench RWLock ./pglock/
func BenchmarkRWLock(b *testing.B) {
	const readers, hold = 16, time.Millisecond
	l := newBenchLocker(b)

	b.Run("rwlock", func(b *testing.B) {
		readWrite(b, readers, hold, l.AcquireShared, l.AcquireExclusive, fmt.Sprintf("rw%d", time.Now().UnixNano()))
	})
	b.Run("mutex", func(b *testing.B) {
		readWrite(b, readers, hold, l.Acquire, l.Acquire, fmt.Sprintf("rwm%d", time.Now().UnixNano()))
	})
}

// acquireFunc is a Locker's Acquire, or a method of the same shape.
type acquireFunc = func(context.Context, string, ...lock.Option) (lock.Lease, error)

// lockUnlock acquires key with acquire and releases it until pb is done.
func lockUnlock(b *testing.B, pb *testing.PB, acquire acquireFunc, key string) {
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

// readWrite runs readers goroutines that read key and one that writes it,
// each holding it for hold, until b.N reads are done, and reports the
// reads and writes per second.
func readWrite(b *testing.B, readers int, hold time.Duration, read, write acquireFunc, key string) {
	ctx, stop := context.WithCancel(b.Context())
	defer stop()
	var reads, writes atomic.Int64
	// loop takes key with acquire and holds it, counting each time in n,
	// until the benchmark has done its reads.
	loop := func(acquire acquireFunc, n *atomic.Int64) {
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
			if n.Add(1) >= int64(b.N) && n == &reads {
				stop()
			}
		}
	}
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() { loop(read, &reads) })
	}
	wg.Go(func() { loop(write, &writes) })
	wg.Wait()
	reportRate(b, float64(reads.Load()), "reads/s")
	reportRate(b, float64(writes.Load()), "writes/s")
}

// reportRate reports n operations over the benchmark's time as a rate.
func reportRate(b *testing.B, n float64, unit string) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit)
}
