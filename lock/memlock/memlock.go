package memlock

import (
	"context"
	"sync"

	"github.com/stockade/stockade/lock"
)

// Options configures a Locker. A nil *Options means all defaults.
type Options struct {
	// FirstToken is the fencing token of the first lease granted; every
	// later lease gets a larger one. A service whose resources remember the
	// largest token they have accepted starts its Locker above that value,
	// so that after a restart its writes are not refused as stale.
	// Default: 1.
	FirstToken uint64
}

// withDefaults returns a copy of o with the defaults applied.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.FirstToken == 0 {
		c.FirstToken = 1
	}
	return c
}

// Locker is an in-process lock.Locker, lock.Semaphores and
// lock.RWLockers. Create it with New; it is safe for concurrent use, and
// all leases taken through it exclude each other as their kinds say.
type Locker struct {
	mu       sync.Mutex
	weighted map[wname]*wentry // keys of every kind, while held or waited for
	token    uint64            // the last fencing token granted, across all keys
}

var _ lock.Locker = (*Locker)(nil)

// New returns an empty Locker.
func New(opts *Options) *Locker {
	o := opts.withDefaults()
	return &Locker{weighted: make(map[wname]*wentry), token: o.FirstToken - 1}
}

// Acquire implements lock.Locker. It waits in a first-come, first-served
// queue until the key is free, ctx is done or the WithWait bound passes.
// A lock is the case of one permit of one (see weighted.go).
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{locks, key}, 1, 1, true, true, opts)
}

// TryAcquire implements lock.Locker. It refuses a key that is held or has
// callers queued for it.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{locks, key}, 1, 1, true, false, opts)
}
