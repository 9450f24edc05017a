package lock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// releaseTimeout bounds the clean-up of a failed AcquireAll, which runs even
// when the caller's context is already done.
const releaseTimeout = 5 * time.Second

// AcquireAll acquires every key or none. Keys are de-duplicated and taken in
// sorted order, so two callers with overlapping key sets cannot deadlock;
// if any acquisition fails, the leases already taken are released and the
// error names the key that failed. The WithWait bound and ctx apply to the
// whole call, not to each key.
func AcquireAll(ctx context.Context, l Locker, keys []string, opts ...Option) (*MultiLease, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no keys", ErrInvalid)
	}
	cfg, err := NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for _, k := range sorted {
		if err := CheckKey(k); err != nil {
			return nil, err
		}
	}
	if cfg.Wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Wait)
		defer cancel()
	}

	m := &MultiLease{leases: make([]Lease, 0, len(sorted)), done: make(chan struct{})}
	for _, k := range sorted {
		lease, err := l.Acquire(ctx, k, opts...)
		if err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
			defer cancel()
			if rerr := m.releaseAll(rctx); rerr != nil {
				return nil, errors.Join(fmt.Errorf("acquire all: %q: %w", k, err), rerr)
			}
			return nil, fmt.Errorf("acquire all: %q: %w", k, err)
		}
		m.leases = append(m.leases, lease)
	}
	m.watch()
	return m, nil
}

// MultiLease is the set of leases returned by AcquireAll. It implements
// Lease: Done is closed as soon as any of its leases ends, and Refresh and
// Release act on all of them.
type MultiLease struct {
	leases []Lease
	done   chan struct{}
	once   sync.Once
}

var _ Lease = (*MultiLease)(nil)

// Leases returns the individual leases in key order. Use their tokens to
// fence writes to each key's resource.
func (m *MultiLease) Leases() []Lease { return slices.Clone(m.leases) }

// Key returns the first key in sorted order.
func (m *MultiLease) Key() string { return m.leases[0].Key() }

// Token returns the fencing token of the first key in sorted order. A token
// guards one key's resource; fence each key with its own lease from Leases.
func (m *MultiLease) Token() uint64 { return m.leases[0].Token() }

// Done is closed when any of the leases is released or lost.
func (m *MultiLease) Done() <-chan struct{} { return m.done }

// Err returns ErrLost if any lease was lost, else ErrReleased if any was
// released, else nil.
func (m *MultiLease) Err() error {
	var released error
	for _, l := range m.leases {
		switch err := l.Err(); {
		case errors.Is(err, ErrLost):
			return err
		case err != nil:
			released = err
		}
	}
	return released
}

// Refresh extends every lease to ttl and returns the errors joined.
func (m *MultiLease) Refresh(ctx context.Context, ttl time.Duration) error {
	var errs []error
	for _, l := range m.leases {
		errs = append(errs, l.Refresh(ctx, ttl))
	}
	return errors.Join(errs...)
}

// Release releases every lease, in reverse key order, and returns the
// errors joined. Like Lease.Release it is safe to retry.
func (m *MultiLease) Release(ctx context.Context) error { return m.releaseAll(ctx) }

func (m *MultiLease) releaseAll(ctx context.Context) error {
	var errs []error
	for _, l := range slices.Backward(m.leases) {
		errs = append(errs, l.Release(ctx))
	}
	return errors.Join(errs...)
}

// watch closes m.done when the first lease ends.
func (m *MultiLease) watch() {
	for _, l := range m.leases {
		go func() {
			<-l.Done()
			m.once.Do(func() { close(m.done) })
		}()
	}
}
