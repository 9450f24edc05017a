package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// RunRWLockers runs the conformance suite of read-write locks against the
// backend that newRW creates; each call returns RWLockers on the same
// shared state, as another process would. Every test uses keys of its
// own, and the tests run in parallel, as Run's do.
func RunRWLockers(t *testing.T, newRW func(t *testing.T) lock.RWLockers, opts ...Option) {
	t.Helper()
	s := &rwSuite{config: newConfig(opts), newRW: newRW}
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"ReadersShare", s.testReadersShare},
		{"WritersExclude", s.testWritersExclude},
		{"TryAcquire", s.testTryAcquire},
		{"Tokens", s.testTokens},
		{"WriterNotStarved", s.testWriterNotStarved},
		{"ReaderNotStarved", s.testReaderNotStarved},
		{"WriterWaitBounded", s.testWriterWaitBounded},
		{"Expiry", s.testExpiry},
		{"DoubleRelease", s.testDoubleRelease},
		{"Cancellation", s.testCancellation},
		{"InvalidInput", s.testInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

type rwSuite struct {
	config
	newRW func(t *testing.T) lock.RWLockers
}

func (s *rwSuite) rws(t *testing.T, n int) []lock.RWLockers {
	rs := make([]lock.RWLockers, n)
	for i := range rs {
		rs[i] = s.newRW(t)
	}
	return rs
}

// read and write take a shared or the exclusive lease or fail the test;
// the lease is released at the end of the test if still held.
func read(t *testing.T, rw lock.RWLockers, key string, opts ...lock.Option) lock.Lease {
	t.Helper()
	le, err := rw.AcquireShared(bounded(t), key, opts...)
	if err != nil {
		t.Fatalf("AcquireShared(%q) = %v", key, err)
	}
	cleanupRelease(t, le)
	return le
}

func write(t *testing.T, rw lock.RWLockers, key string, opts ...lock.Option) lock.Lease {
	t.Helper()
	le, err := rw.AcquireExclusive(bounded(t), key, opts...)
	if err != nil {
		t.Fatalf("AcquireExclusive(%q) = %v", key, err)
	}
	cleanupRelease(t, le)
	return le
}

// testReadersShare: readers from several processes hold the key at once.
// Each waits, holding, until all hold: readers that excluded each other
// would never get there.
func (s *rwSuite) testReadersShare(t *testing.T) {
	const readers = 6
	rs := s.rws(t, 3)
	k := key(t)
	ctx := bounded(t)
	var all sync.WaitGroup
	all.Add(readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			le, err := rs[i%len(rs)].AcquireShared(ctx, k)
			if err != nil {
				t.Errorf("reader %d: AcquireShared = %v", i, err)
				all.Done()
				return
			}
			all.Done()
			all.Wait()
			if err := le.Release(ctx); err != nil {
				t.Errorf("reader %d: Release = %v", i, err)
			}
		})
	}
	wg.Wait()
}

// testWritersExclude runs readers and writers from several processes at
// once: a writer never overlaps anyone, readers overlap each other.
func (s *rwSuite) testWritersExclude(t *testing.T) {
	const workers, rounds = 8, 12
	rs := s.rws(t, 3)
	k := key(t)
	ctx := bounded(t)
	var readers, writers, mostReaders atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rw := rs[w%len(rs)]
			for r := range rounds {
				if (w+r)%4 == 0 {
					le, err := rw.AcquireExclusive(ctx, k)
					if err != nil {
						t.Errorf("writer %d: AcquireExclusive = %v", w, err)
						return
					}
					if n := writers.Add(1); n != 1 || readers.Load() != 0 {
						t.Errorf("a writer holds with %d writers and %d readers", n, readers.Load())
					}
					time.Sleep(time.Millisecond)
					writers.Add(-1)
					if err := le.Release(ctx); err != nil {
						t.Errorf("writer %d: Release = %v", w, err)
					}
					continue
				}
				le, err := rw.AcquireShared(ctx, k)
				if err != nil {
					t.Errorf("reader %d: AcquireShared = %v", w, err)
					return
				}
				n := readers.Add(1)
				if writers.Load() != 0 {
					t.Errorf("a reader holds with a writer")
				}
				for m := mostReaders.Load(); n > m && !mostReaders.CompareAndSwap(m, n); m = mostReaders.Load() {
				}
				time.Sleep(time.Millisecond)
				readers.Add(-1)
				if err := le.Release(ctx); err != nil {
					t.Errorf("reader %d: Release = %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("at most %d readers at once", mostReaders.Load())
}

// testTryAcquire: a reader refuses a writer at once, and a writer both.
func (s *rwSuite) testTryAcquire(t *testing.T) {
	rs := s.rws(t, 2)
	k := key(t)
	r := read(t, rs[0], k)
	if le, err := rs[1].TryAcquireShared(bounded(t), k); err != nil {
		t.Fatalf("TryAcquireShared beside a reader = %v", err)
	} else {
		mustRelease(t, le)
	}
	le, err := rs[1].TryAcquireExclusive(bounded(t), k)
	refused(t, "TryAcquireExclusive beside a reader", le, err)
	mustRelease(t, r)
	w := write(t, rs[0], k)
	le, err = rs[1].TryAcquireShared(bounded(t), k)
	refused(t, "TryAcquireShared beside a writer", le, err)
	le, err = rs[1].TryAcquireExclusive(bounded(t), k)
	refused(t, "TryAcquireExclusive beside a writer", le, err)
	mustRelease(t, w)
}

// testTokens: exclusive leases carry increasing fencing tokens, shared
// ones none.
func (s *rwSuite) testTokens(t *testing.T) {
	rs := s.rws(t, 2)
	k := key(t)
	var last uint64
	for i := range 4 {
		w := write(t, rs[i%2], k)
		if w.Token() <= last {
			t.Errorf("writer %d: token %d, not larger than the one before, %d", i, w.Token(), last)
		}
		last = w.Token()
		mustRelease(t, w)
		r := read(t, rs[i%2], k)
		if r.Token() != 0 {
			t.Errorf("a shared lease's Token() = %d; want 0", r.Token())
		}
		mustRelease(t, r)
	}
}

// testWriterNotStarved: readers that come after a waiting writer wait for
// it.
func (s *rwSuite) testWriterNotStarved(t *testing.T) {
	rs := s.rws(t, 3)
	k := key(t)
	ctx := bounded(t)
	first := read(t, rs[0], k)
	order := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		le, err := rs[1].AcquireExclusive(ctx, k)
		if err != nil {
			t.Errorf("writer: AcquireExclusive = %v", err)
			return
		}
		order <- "writer"
		time.Sleep(5 * time.Millisecond)
		if err := le.Release(ctx); err != nil {
			t.Errorf("writer: Release = %v", err)
		}
	})
	s.awaitQueuedOn(t, k, 1)
	le, err := rs[2].TryAcquireShared(ctx, k)
	refused(t, "TryAcquireShared behind a waiting writer", le, err)
	wg.Go(func() {
		le, err := rs[2].AcquireShared(ctx, k)
		if err != nil {
			t.Errorf("reader: AcquireShared = %v", err)
			return
		}
		order <- "reader"
		if err := le.Release(ctx); err != nil {
			t.Errorf("reader: Release = %v", err)
		}
	})
	s.awaitQueuedOn(t, k, 2)
	mustRelease(t, first)
	wg.Wait()
	close(order)
	var got []string
	for who := range order {
		got = append(got, who)
	}
	if fmt.Sprint(got) != "[writer reader]" {
		t.Errorf("served %v; want [writer reader]", got)
	}
}

// testReaderNotStarved: a writer that comes after a waiting reader waits
// for it.
func (s *rwSuite) testReaderNotStarved(t *testing.T) {
	rs := s.rws(t, 3)
	k := key(t)
	ctx := bounded(t)
	first := write(t, rs[0], k)
	order := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		le, err := rs[1].AcquireShared(ctx, k)
		if err != nil {
			t.Errorf("reader: AcquireShared = %v", err)
			return
		}
		order <- "reader"
		time.Sleep(5 * time.Millisecond)
		if err := le.Release(ctx); err != nil {
			t.Errorf("reader: Release = %v", err)
		}
	})
	s.awaitQueuedOn(t, k, 1)
	wg.Go(func() {
		le, err := rs[2].AcquireExclusive(ctx, k)
		if err != nil {
			t.Errorf("writer: AcquireExclusive = %v", err)
			return
		}
		order <- "writer"
		if err := le.Release(ctx); err != nil {
			t.Errorf("writer: Release = %v", err)
		}
	})
	s.awaitQueuedOn(t, k, 2)
	mustRelease(t, first)
	wg.Wait()
	close(order)
	var got []string
	for who := range order {
		got = append(got, who)
	}
	if fmt.Sprint(got) != "[reader writer]" {
		t.Errorf("served %v; want [reader writer]", got)
	}
}

// testWriterWaitBounded: under a continuous stream of readers, whose
// holds always overlap, a writer still gets the key.
func (s *rwSuite) testWriterWaitBounded(t *testing.T) {
	const readers = 4
	rs := s.rws(t, 2)
	k := key(t)
	ctx, stop := context.WithCancel(bounded(t))
	var reads atomic.Int64
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			for ctx.Err() == nil {
				le, err := rs[i%2].AcquireShared(ctx, k)
				if err != nil {
					if ctx.Err() == nil {
						t.Errorf("reader %d: AcquireShared = %v", i, err)
					}
					return
				}
				reads.Add(1)
				time.Sleep(3 * time.Millisecond)
				if err := le.Release(context.WithoutCancel(ctx)); err != nil {
					t.Errorf("reader %d: Release = %v", i, err)
				}
			}
		})
	}
	for reads.Load() < 2*readers { // the stream is flowing
		time.Sleep(time.Millisecond)
	}
	w, err := rs[1].AcquireExclusive(ctx, k, lock.WithWait(hang/2))
	stop()
	wg.Wait()
	if err != nil {
		t.Fatalf("a writer among a stream of readers: AcquireExclusive = %v", err)
	}
	cleanupRelease(t, w)
	mustRelease(t, w)
}

// testExpiry: the key of a writer that vanished comes back when its lease
// ends; so does a reader's place.
func (s *rwSuite) testExpiry(t *testing.T) {
	rs := s.rws(t, 2)
	k := key(t)
	w := write(t, rs[0], k, lock.WithTTL(s.ttl))
	r := read(t, rs[1], k) // waits for the expiry
	mustBeLost(t, w, 10*s.ttl+5*time.Second)
	mustRelease(t, r)
	r = read(t, rs[0], k, lock.WithTTL(s.ttl))
	w = write(t, rs[1], k)
	mustBeLost(t, r, 10*s.ttl+5*time.Second)
	mustRelease(t, w)
}

// testDoubleRelease: a reader's second Release frees nobody else's lease.
func (s *rwSuite) testDoubleRelease(t *testing.T) {
	rs := s.rws(t, 2)
	k := key(t)
	a := read(t, rs[0], k)
	read(t, rs[1], k)
	mustRelease(t, a)
	mustRelease(t, a)
	le, err := rs[0].TryAcquireExclusive(bounded(t), k)
	refused(t, "TryAcquireExclusive while a reader still holds", le, err)
}

// testCancellation: a writer that gives up its wait no longer holds back
// the readers behind it.
func (s *rwSuite) testCancellation(t *testing.T) {
	rs := s.rws(t, 3)
	k := key(t)
	read(t, rs[0], k)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := rs[1].AcquireExclusive(bounded(t), k, lock.WithWait(queuedWait))
		gaveUp <- err
	}()
	s.awaitQueuedOn(t, k, 1)
	r, err := rs[2].AcquireShared(bounded(t), k) // behind the writer
	if err != nil {
		t.Fatalf("AcquireShared behind a writer that gave up = %v", err)
	}
	cleanupRelease(t, r)
	if err := <-gaveUp; !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the writer: %v; want ErrNotAcquired and DeadlineExceeded once its wait bound passed", err)
	}
}

// testInvalid: an empty key is refused with ErrInvalid.
func (s *rwSuite) testInvalid(t *testing.T) {
	rw := s.newRW(t)
	ctx := bounded(t)
	for name, f := range map[string]func() (lock.Lease, error){
		"AcquireShared":       func() (lock.Lease, error) { return rw.AcquireShared(ctx, "") },
		"TryAcquireShared":    func() (lock.Lease, error) { return rw.TryAcquireShared(ctx, "") },
		"AcquireExclusive":    func() (lock.Lease, error) { return rw.AcquireExclusive(ctx, "") },
		"TryAcquireExclusive": func() (lock.Lease, error) { return rw.TryAcquireExclusive(ctx, "") },
	} {
		if _, err := f(); !errors.Is(err, lock.ErrInvalid) {
			t.Errorf("%s(\"\") = %v; want ErrInvalid", name, err)
		}
	}
}
