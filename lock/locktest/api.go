package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// testCancellation checks that a wait for a held key ends with ctx or the
// WithWait bound, with an error that matches both ErrNotAcquired and the
// context's error, and that the waiters that gave up leave nothing behind.
func (s *suite) testCancellation(t *testing.T) {
	ls := s.lockers(t, 3)
	key := s.key(t)
	holder := s.acquire(t, ls[0], key)

	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		opts []lock.Option
		want error
	}{
		{"CancelledWhileWaiting", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(s.ctx(t))
			time.AfterFunc(20*time.Millisecond, cancel)
			return ctx
		}, nil, context.Canceled},
		{"CancelledBefore", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(s.ctx(t))
			cancel()
			return ctx
		}, nil, context.Canceled},
		{"Deadline", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(s.ctx(t), 50*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, nil, context.DeadlineExceeded},
		{"WithWait", s.ctx, []lock.Option{lock.WithWait(50 * time.Millisecond)}, context.DeadlineExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lease, err := ls[1].Acquire(tc.ctx(t), key, tc.opts...)
			if err == nil {
				cleanupRelease(t, lease)
				t.Fatalf("Acquire of a held key succeeded")
			}
			if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, tc.want) {
				t.Fatalf("Acquire = %v; want ErrNotAcquired and %v", err, tc.want)
			}
			if lease != nil {
				t.Fatalf("Acquire returned a lease with error %v", err)
			}
		})
	}

	mustBeLive(t, holder)
	s.mustBeHeld(t, ls[2], key)
	s.release(t, holder)
	// A waiter that gave up but stayed queued would block this forever.
	b := s.acquire(t, ls[2], key)
	s.release(t, b)

	t.Run("RacingRelease", func(t *testing.T) { s.cancelRacingRelease(t, ls, key) })
}

// cancelRacingRelease cancels a waiter as the holder releases, so that it
// is sometimes handed the key as it gives up: it must then take the key or
// pass it on, never keep it. The waiter asks for a TTL longer than the
// suite's bound on any wait, so a leaked lease fails the next Acquire.
func (s *suite) cancelRacingRelease(t *testing.T, ls []lock.Locker, key string) {
	const rounds = 20
	type result struct {
		lease lock.Lease
		err   error
	}
	for r := range rounds {
		holder := s.acquire(t, ls[0], key)
		ctx, cancel := context.WithCancel(s.ctx(t))
		done := make(chan result, 1)
		go func() {
			lease, err := ls[1].Acquire(ctx, key, lock.WithTTL(3*hang))
			done <- result{lease, err}
		}()
		time.Sleep(time.Duration(r%4) * time.Millisecond) // vary who is first
		go cancel()
		s.release(t, holder)
		switch res := <-done; {
		case res.err == nil:
			s.release(t, res.lease)
		case !errors.Is(res.err, lock.ErrNotAcquired) || !errors.Is(res.err, context.Canceled):
			t.Fatalf("round %d: Acquire = %v; want a lease, or ErrNotAcquired and context.Canceled", r, res.err)
		}
		b := s.acquire(t, ls[2], key)
		s.release(t, b)
	}
}

// testObserver checks the events reported for an acquisition, a refusal, a
// release and a loss.
func (s *suite) testObserver(t *testing.T) {
	ls := s.lockers(t, 2)
	key := s.key(t)

	var held recorder
	a := s.acquire(t, ls[0], key, lock.WithObserver(&held))
	if e := held.find(t, lock.Acquired, key); e.Token != a.Token() {
		t.Errorf("Acquired event token = %d; want %d", e.Token, a.Token())
	}

	var refused recorder
	if lease, err := ls[1].TryAcquire(s.ctx(t), key, lock.WithObserver(&refused)); err == nil {
		cleanupRelease(t, lease)
		t.Fatalf("TryAcquire of a held key succeeded")
	}
	if e := refused.find(t, lock.NotAcquired, key); !errors.Is(e.Err, lock.ErrNotAcquired) {
		t.Errorf("NotAcquired event Err = %v; want ErrNotAcquired", e.Err)
	}

	s.release(t, a)
	if e := held.find(t, lock.Released, key); e.Token != a.Token() {
		t.Errorf("Released event token = %d; want %d", e.Token, a.Token())
	}

	var lost recorder
	b := s.acquire(t, ls[1], key, lock.WithTTL(s.ttl), lock.WithObserver(&lost))
	mustBeLost(t, b, s.lossBound())
	if e := lost.find(t, lock.Lost, key); e.Token != b.Token() || !errors.Is(e.Err, lock.ErrLost) {
		t.Errorf("Lost event = token %d, Err %v; want token %d, ErrLost", e.Token, e.Err, b.Token())
	}
	lost.mu.Lock()
	defer lost.mu.Unlock()
	for _, e := range lost.events {
		if e.Kind == lock.Released {
			t.Errorf("a lost lease was reported released: %+v", e)
		}
	}
}

// testInvalidInput checks that invalid keys and options are refused with
// ErrInvalid and leave nothing held.
func (s *suite) testInvalidInput(t *testing.T) {
	ls := s.lockers(t, 2)
	l := ls[0]
	key := s.key(t)
	tests := []struct {
		name string
		call func(ctx context.Context) (lock.Lease, error)
	}{
		{"AcquireEmptyKey", func(ctx context.Context) (lock.Lease, error) { return l.Acquire(ctx, "") }},
		{"TryAcquireEmptyKey", func(ctx context.Context) (lock.Lease, error) { return l.TryAcquire(ctx, "") }},
		{"AcquireZeroTTL", func(ctx context.Context) (lock.Lease, error) { return l.Acquire(ctx, key, lock.WithTTL(0)) }},
		{"TryAcquireNegativeTTL", func(ctx context.Context) (lock.Lease, error) {
			return l.TryAcquire(ctx, key, lock.WithTTL(-time.Second))
		}},
		{"AcquireNegativeWait", func(ctx context.Context) (lock.Lease, error) {
			return l.Acquire(ctx, key, lock.WithWait(-time.Second))
		}},
		{"AcquireAllNoKeys", func(ctx context.Context) (lock.Lease, error) { return acquireAll(ctx, l, nil) }},
		{"AcquireAllEmptyKey", func(ctx context.Context) (lock.Lease, error) {
			return acquireAll(ctx, l, []string{key, ""})
		}},
		{"AcquireAllZeroTTL", func(ctx context.Context) (lock.Lease, error) {
			return acquireAll(ctx, l, []string{key}, lock.WithTTL(0))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lease, err := tc.call(s.ctx(t))
			if err == nil {
				cleanupRelease(t, lease)
			}
			if !errors.Is(err, lock.ErrInvalid) || lease != nil {
				t.Fatalf("got lease %v, error %v; want no lease and ErrInvalid", lease, err)
			}
		})
	}
	s.mustBeFree(t, ls[1], key)

	a := s.acquire(t, l, key)
	if err := a.Refresh(s.ctx(t), 0); !errors.Is(err, lock.ErrInvalid) {
		t.Errorf("Refresh(0) = %v; want ErrInvalid", err)
	}
	mustBeLive(t, a)
	s.release(t, a)
}

// acquireAll calls lock.AcquireAll and returns a nil interface, not a nil
// *MultiLease, when it fails.
func acquireAll(ctx context.Context, l lock.Locker, keys []string, opts ...lock.Option) (lock.Lease, error) {
	m, err := lock.AcquireAll(ctx, l, keys, opts...)
	if err != nil {
		return nil, err
	}
	return m, nil
}
