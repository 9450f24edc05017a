package pglock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/benchkit"
	"github.com/stockade/stockade/lock/pglock"
)

// newBenchLocker returns a Locker on a database of its own, with a pool
// of 32 connections: more than the benchmarks' callers, each of which
// pins one while it holds a lock or waits.
func newBenchLocker(b *testing.B) *pglock.Locker {
	b.Helper()
	url := newDatabase(b, testkit.SharedPostgres(b))
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
			benchkit.LockUnlock(b, pb, l.TryAcquire, fmt.Sprintf("k%d", time.Now().UnixNano()))
		})
		benchkit.ReportRate(b, float64(b.N), "ops/s")
	})
	b.Run("semaphore", func(b *testing.B) {
		key := fmt.Sprintf("sem%d", time.Now().UnixNano())
		acquire := func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
			return l.TryAcquirePermits(ctx, key, lock.MaxPermits, 1, opts...)
		}
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) { benchkit.LockUnlock(b, pb, acquire, key) })
		benchkit.ReportRate(b, float64(b.N), "ops/s")
	})
}

// BenchmarkRWLock has 16 readers and a writer share one key, each holding
// it for a millisecond, against the same 17 callers taking a lock on one
// key: readers share the read-write lock, so they read many times as
// often as through the lock. An operation is a read. With writer=always
// the writer asks again as soon as it has written; with writer=paused it
// writes, then pauses for 10 holds.
//
//	go test -run '^$' -bench RWLock ./pglock/
func BenchmarkRWLock(b *testing.B) {
	l := newBenchLocker(b)

	benchkit.RWLockVersusMutex(b, time.Millisecond, l.AcquireShared, l.AcquireExclusive, l.Acquire)
}
