// Package benchkit holds what the backends' benchmarks share: the loops
// that take and give back locks, semaphores and read-write locks, and the
// metrics they report beside ns/op.
//
// Rates (ops/s, reads/s) move with whatever else the machine runs; the CPU
// spent per operation moves much less, so benchmarks that compare two
// mechanisms report it too (see CPU).
package benchkit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// AcquireFunc is a Locker's Acquire, or a method of the same shape.
type AcquireFunc = func(context.Context, string, ...lock.Option) (lock.Lease, error)

// LockUnlock acquires key with acquire and releases it until pb is done.
func LockUnlock(b *testing.B, pb *testing.PB, acquire AcquireFunc, key string) {
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

// ReportRate reports n operations over the benchmark's time as a rate.
func ReportRate(b *testing.B, n float64, unit string) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit)
}

// CPU starts measuring the CPU time this process, and the server if
// server is not nil, spend; the function it returns reports both per
// operation, for ops operations, as client-µs/op and server-µs/op.
// server returns the server's CPU time so far.
func CPU(b *testing.B, server func() (time.Duration, error)) (report func(ops float64)) {
	b.Helper()
	serverCPU := func() time.Duration {
		if server == nil {
			return 0
		}
		d, err := server()
		if err != nil {
			b.Fatalf("server CPU time: %v", err)
		}
		return d
	}
	client0, server0 := processCPU(b), serverCPU()
	return func(ops float64) {
		client, srv := processCPU(b)-client0, serverCPU()-server0
		b.ReportMetric(float64(client.Microseconds())/ops, "client-µs/op")
		if server != nil {
			b.ReportMetric(float64(srv.Microseconds())/ops, "server-µs/op")
		}
	}
}

// processCPU is the CPU time, user and system, this process has spent.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// RWLockVersusMutex runs 16 readers and a writer, each holding the key
// for hold, on a read-write lock (read, write) and then on a mutex, twice:
// with the writer always in line (writer=always, which caps the readers
// at about half of what they could do alone) and pausing for 10 holds
// after each write (writer=paused). Each sub-benchmark uses a key of its
// own.
func RWLockVersusMutex(b *testing.B, hold time.Duration, read, write, mutex AcquireFunc) {
	for _, writer := range []struct {
		name  string
		pause time.Duration
	}{{"always", 0}, {"paused", 10 * hold}} {
		rw := ReadWrite{Readers: 16, Hold: hold, WriterPause: writer.pause}
		b.Run("writer="+writer.name+"/rwlock", func(b *testing.B) {
			rw.Run(b, read, write, fmt.Sprintf("rw%d", time.Now().UnixNano()))
		})
		b.Run("writer="+writer.name+"/mutex", func(b *testing.B) {
			rw.Run(b, mutex, mutex, fmt.Sprintf("rwm%d", time.Now().UnixNano()))
		})
	}
}

// ReadWrite is a crowd of readers and one writer on one key, each holding
// it for Hold each time it has it.
type ReadWrite struct {
	Readers int
	Hold    time.Duration
	// WriterPause is how long the writer waits after each write before it
	// asks again; with 0 it is always in line, the hardest case for the
	// readers.
	WriterPause time.Duration
}

// Run has the readers take key with read and the writer with write until
// b.N reads are done. It reports reads/s and writes/s; the 99th
// percentile of the readers' holds, from the grant to the release's
// return (read-hold-p99-ms); and the 99th percentile of the writer's
// waits, from its call to its grant (writer-p99-ms).
func (rw ReadWrite) Run(b *testing.B, read, write AcquireFunc, key string) {
	ctx, stop := context.WithCancel(b.Context())
	defer stop()
	var reads, writes atomic.Int64
	var mu sync.Mutex
	var holds, waits []time.Duration
	// loop takes key with acquire and holds it, then pauses, and calls
	// done with the time it waited and the time it held the key, until the
	// benchmark has done its reads.
	loop := func(acquire AcquireFunc, pause time.Duration, done func(wait, held time.Duration)) {
		for ctx.Err() == nil {
			start := time.Now()
			le, err := acquire(ctx, key, lock.WithTTL(10*time.Second))
			if err != nil {
				if ctx.Err() == nil {
					b.Error(err)
				}
				return
			}
			granted := time.Now()
			time.Sleep(rw.Hold)
			if err := le.Release(context.WithoutCancel(ctx)); err != nil {
				b.Error(err)
				return
			}
			done(granted.Sub(start), time.Since(granted))
			if pause > 0 {
				select {
				case <-time.After(pause):
				case <-ctx.Done():
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range rw.Readers {
		wg.Go(func() {
			var mine []time.Duration
			loop(read, 0, func(_, held time.Duration) {
				mine = append(mine, held)
				if reads.Add(1) >= int64(b.N) {
					stop()
				}
			})
			mu.Lock()
			holds = append(holds, mine...)
			mu.Unlock()
		})
	}
	wg.Go(func() {
		loop(write, rw.WriterPause, func(wait, _ time.Duration) {
			waits = append(waits, wait)
			writes.Add(1)
		})
	})
	wg.Wait()
	ReportRate(b, float64(reads.Load()), "reads/s")
	ReportRate(b, float64(writes.Load()), "writes/s")
	reportP99(b, holds, "read-hold-p99-ms")
	reportP99(b, waits, "writer-p99-ms")
}

// reportP99 reports the 99th percentile of ds, in milliseconds, if there
// are any.
func reportP99(b *testing.B, ds []time.Duration, unit string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	p99 := ds[min(len(ds)-1, len(ds)*99/100)]
	b.ReportMetric(float64(p99.Microseconds())/1000, unit)
}
