package etcdlock_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
)

// The benchmarks run etcdlock next to etcd's own concurrency.Mutex, and
// its semaphores and read-write locks next to its locks, each goroutine
// with a client of its own, and report acquisitions per second and, when
// goroutines take turns on a key, the hand-off time: from the holder's
// release call to the next holder's return from Acquire.
//
//	go test -run '^$' -bench . -benchtime 400x ./etcdlock/

// BenchmarkHandoff: 8 goroutines take turns on one key, holding it 5ms.
func BenchmarkHandoff(b *testing.B) { benchLockers(b, 8, 1, 5*time.Millisecond) }

// BenchmarkUncontended: 16 goroutines, each on a key of its own, no hold.
func BenchmarkUncontended(b *testing.B) { benchLockers(b, 16, 16, 0) }

// BenchmarkSemaphore: 8 goroutines take and give back permits of one
// key, no hold: a lock next to semaphores of 1 and of 4 permits.
func BenchmarkSemaphore(b *testing.B) {
	const goroutines = 8
	endpoint := testkit.SharedEtcd(b).Endpoint()
	b.Run("Acquire", func(b *testing.B) {
		opts := &etcdlock.Options{Prefix: "/" + b.Name() + "/"}
		bench(b, goroutines, 0, func(b *testing.B, g int) mutex {
			return leaseMutex(etcdlock.New(newClient(b, endpoint), opts).Acquire)
		})
	})
	for _, limit := range []int{1, 4} {
		b.Run(fmt.Sprintf("AcquirePermits-limit-%d", limit), func(b *testing.B) {
			opts := &etcdlock.Options{Prefix: "/" + b.Name() + "/"}
			bench(b, goroutines, 0, func(b *testing.B, g int) mutex {
				l := etcdlock.New(newClient(b, endpoint), opts)
				m := leaseMutex(func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
					return l.AcquirePermits(ctx, key, limit, 1, opts...)
				})
				m.shared = limit > 1
				return m
			})
		})
	}
}

// BenchmarkRWLock: 16 readers and a writer on one key, each holding it
// 2ms, next to 17 goroutines taking turns on a lock with the same hold.
func BenchmarkRWLock(b *testing.B) {
	const readers, hold = 16, 2 * time.Millisecond
	endpoint := testkit.SharedEtcd(b).Endpoint()
	b.Run("Acquire", func(b *testing.B) {
		opts := &etcdlock.Options{Prefix: "/" + b.Name() + "/"}
		bench(b, readers+1, hold, func(b *testing.B, g int) mutex {
			return leaseMutex(etcdlock.New(newClient(b, endpoint), opts).Acquire)
		})
	})
	b.Run("AcquireShared+AcquireExclusive", func(b *testing.B) {
		opts := &etcdlock.Options{Prefix: "/" + b.Name() + "/"}
		bench(b, readers+1, hold, func(b *testing.B, g int) mutex {
			l := etcdlock.New(newClient(b, endpoint), opts)
			m := leaseMutex(l.AcquireShared)
			if g == 0 {
				m = leaseMutex(l.AcquireExclusive)
			}
			m.shared = true
			return m
		})
	})
}

// mutex is one goroutine's lock on its key.
type mutex struct {
	lock   func(ctx context.Context) error
	unlock func(ctx context.Context) error
	shared bool // holders overlap: there are no hand-offs to time
}

// leaseMutex is the mutex of a goroutine that takes key "0" with acquire.
func leaseMutex(acquire func(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error)) mutex {
	var held lock.Lease
	return mutex{
		lock: func(ctx context.Context) (err error) {
			held, err = acquire(ctx, "0")
			return err
		},
		unlock: func(ctx context.Context) error { return held.Release(ctx) },
	}
}

func benchLockers(b *testing.B, goroutines, keys int, hold time.Duration) {
	endpoint := testkit.SharedEtcd(b).Endpoint()
	b.Run("etcdlock", func(b *testing.B) {
		opts := &etcdlock.Options{Prefix: "/" + b.Name() + "/"}
		bench(b, goroutines, hold, func(b *testing.B, g int) mutex {
			l := etcdlock.New(newClient(b, endpoint), opts)
			key := fmt.Sprint(g % keys)
			var held lock.Lease
			return mutex{
				lock: func(ctx context.Context) (err error) {
					held, err = l.Acquire(ctx, key)
					return err
				},
				unlock: func(ctx context.Context) error { return held.Release(ctx) },
			}
		})
	})
	b.Run("concurrency.Mutex", func(b *testing.B) {
		prefix := "/" + b.Name() + "/"
		bench(b, goroutines, hold, func(b *testing.B, g int) mutex {
			s, err := concurrency.NewSession(newClient(b, endpoint))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			m := concurrency.NewMutex(s, prefix+fmt.Sprint(g%keys))
			return mutex{lock: m.Lock, unlock: m.Unlock}
		})
	})
}

// bench runs b.N acquisitions over goroutines, each with the mutex
// newMutex returns for it, holding each for hold.
func bench(b *testing.B, goroutines int, hold time.Duration, newMutex func(b *testing.B, g int) mutex) {
	mus := make([]mutex, goroutines)
	for g := range mus {
		mus[g] = newMutex(b, g)
	}
	ctx := b.Context()
	var (
		left     atomic.Int64
		released atomic.Int64 // when the last release began, in ns since start; shared keys only
		mu       sync.Mutex
		handoffs []time.Duration
		wg       sync.WaitGroup
	)
	left.Store(int64(b.N))
	b.ResetTimer()
	start := time.Now()
	for _, m := range mus {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := m.lock(ctx); err != nil {
					b.Error(err)
					return
				}
				if r := released.Load(); r != 0 && !m.shared {
					mu.Lock()
					handoffs = append(handoffs, time.Since(start)-time.Duration(r))
					mu.Unlock()
				}
				if hold > 0 {
					time.Sleep(hold)
					released.Store(int64(time.Since(start)))
				}
				if err := m.unlock(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "acq/s")
	if len(handoffs) > 0 {
		slices.Sort(handoffs)
		b.ReportMetric(ms(handoffs[len(handoffs)/2]), "handoff-p50-ms")
		b.ReportMetric(ms(handoffs[len(handoffs)*99/100]), "handoff-p99-ms")
	}
	b.ReportMetric(0, "ns/op")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
