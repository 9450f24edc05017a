package memlock

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
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

// Locker is an in-process lock.Locker. Create it with New; it is safe for
// concurrent use, and all leases taken through it exclude each other.
type Locker struct {
	mu       sync.Mutex
	keys     map[string]*entry // an entry lives exactly as long as its key is held
	weighted map[wname]*wentry // semaphores and read-write locks, while held or waited for
	token    uint64            // the last fencing token granted, across all keys
}

var _ lock.Locker = (*Locker)(nil)

// New returns an empty Locker.
func New(opts *Options) *Locker {
	o := opts.withDefaults()
	return &Locker{keys: make(map[string]*entry), weighted: make(map[wname]*wentry), token: o.FirstToken - 1}
}

// entry is a held key and the callers waiting for it. Waiters exist only
// while the key is held: a release hands the key straight to the first one.
type entry struct {
	holder  *hold
	waiters list.List // of *waiter, in arrival order
}

// hold is one grant of a key. It is the lease.Backend of the lease built on
// it, and it is identified by its pointer: a hold that is no longer its
// entry's holder has been released, has expired or was revoked.
type hold struct {
	l     *Locker
	key   string
	token uint64
	timer *time.Timer // fires at deadline and expires the hold
	at    time.Time   // when it was granted

	// Guarded by l.mu.
	deadline time.Time
	lease    *lease.Lease // told of the expiry; nil until built
}

// waiter is an Acquire call queued for a held key.
type waiter struct {
	ttl  time.Duration
	elem *list.Element // guarded by l.mu; nil once dequeued
	ch   chan *hold    // receives the grant once dequeued; buffered
}

// handover is a grant decided under l.mu and delivered after it is
// unlocked, so that the previous holder's loss is reported first.
type handover struct {
	w *waiter
	h *hold
}

func (g handover) deliver() {
	if g.w != nil {
		g.w.ch <- g.h
	}
}

// Acquire implements lock.Locker. It waits in a first-come, first-served
// queue until the key is free, ctx is done or the WithWait bound passes.
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, true, opts)
}

// TryAcquire implements lock.Locker. It refuses a key that is held or has
// callers queued for it.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, false, opts)
}

func (l *Locker) acquire(ctx context.Context, key string, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	cfg := a.Config
	if ctx.Err() != nil {
		return nil, a.Refuse(ctx, nil)
	}

	l.mu.Lock()
	e := l.keys[key]
	if e == nil {
		e = &entry{}
		l.keys[key] = e
		le := l.newLease(l.grant(key, e, cfg.TTL), cfg)
		l.mu.Unlock()
		a.Granted(le.Token())
		return le, nil
	}
	a.Contended = true
	if !wait {
		l.mu.Unlock()
		return nil, a.Refuse(ctx, nil)
	}
	w := &waiter{ttl: cfg.TTL, ch: make(chan *hold, 1)}
	w.elem = e.waiters.PushBack(w)
	l.mu.Unlock()

	select {
	case h := <-w.ch:
		l.mu.Lock()
		le := l.newLease(h, cfg)
		_, live := h.current()
		l.mu.Unlock()
		a.Granted(le.Token())
		if !live { // expired before its lease was built: a TTL shorter than a wake-up
			le.Lose(h.lost())
		}
		return le, nil
	case <-ctx.Done():
		l.abandon(key, w)
		return nil, a.Refuse(ctx, nil)
	}
}

// abandon takes a waiter that gave up out of the queue. If the key was
// handed to it meanwhile, it passes the key on.
func (l *Locker) abandon(key string, w *waiter) {
	l.mu.Lock()
	if w.elem != nil {
		l.keys[key].waiters.Remove(w.elem)
		w.elem = nil
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	h := <-w.ch
	_ = h.Release(context.Background()) // only fails if it has already expired
}

// grant makes a new hold the holder of e. l.mu must be held.
func (l *Locker) grant(key string, e *entry, ttl time.Duration) *hold {
	l.token++
	now := time.Now()
	h := &hold{l: l, key: key, token: l.token, at: now, deadline: now.Add(ttl)}
	h.timer = time.AfterFunc(ttl, h.expire)
	e.holder = h
	return h
}

// newLease builds the caller's lease on h. l.mu must be held.
func (l *Locker) newLease(h *hold, cfg lock.Config) *lease.Lease {
	h.lease = lease.New(h.key, h.token, h.deadline, cfg, h)
	return h.lease
}

// handOff ends e's current hold and grants the key to the first waiter, or
// forgets the key if nobody waits. l.mu must be held; the caller delivers
// the handover after unlocking.
func (l *Locker) handOff(key string, e *entry) handover {
	e.holder.timer.Stop()
	e.holder = nil
	front := e.waiters.Front()
	if front == nil {
		delete(l.keys, key)
		return handover{}
	}
	w := e.waiters.Remove(front).(*waiter)
	w.elem = nil
	return handover{w: w, h: l.grant(key, e, w.ttl)}
}

// current reports whether h still holds its key and returns the entry.
// l.mu must be held.
func (h *hold) current() (*entry, bool) {
	e := h.l.keys[h.key]
	return e, e != nil && e.holder == h
}

func (h *hold) lost() error {
	return fmt.Errorf("memlock: %q is no longer held by token %d: %w", h.key, h.token, lock.ErrLost)
}

// expire runs when the hold's deadline may have passed.
func (h *hold) expire() {
	l := h.l
	l.mu.Lock()
	e, ok := h.current()
	if !ok {
		l.mu.Unlock()
		return
	}
	if d := time.Until(h.deadline); d > 0 { // refreshed meanwhile
		h.timer.Reset(d)
		l.mu.Unlock()
		return
	}
	le := h.lease
	next := l.handOff(h.key, e)
	l.mu.Unlock()
	if le != nil {
		le.Lose(fmt.Errorf("memlock: %q expired: %w", h.key, lock.ErrLost))
	}
	next.deliver()
}

// Refresh implements lease.Backend.
func (h *hold) Refresh(_ context.Context, ttl time.Duration) error {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	now := time.Now()
	if _, ok := h.current(); !ok || !now.Before(h.deadline) {
		return h.lost()
	}
	h.deadline = now.Add(ttl)
	h.timer.Reset(ttl)
	return nil
}

// Release implements lease.Backend.
func (h *hold) Release(context.Context) error {
	l := h.l
	l.mu.Lock()
	e, ok := h.current()
	if !ok {
		l.mu.Unlock()
		return h.lost()
	}
	expired := !time.Now().Before(h.deadline)
	next := l.handOff(h.key, e)
	l.mu.Unlock()
	next.deliver()
	if expired { // its timer had not run yet
		return h.lost()
	}
	return nil
}
