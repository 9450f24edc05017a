package memlock

import (
	"container/list"
	"context"
	"fmt"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

// Locks, semaphores and read-write locks are one mechanism: a key with a
// limit of permits, held by leases of some permits each, and a queue of
// waiters in arrival order of which only the first may be granted, when
// its permits fit. A lock is the one permit of one. A semaphore's lease
// takes the permits it asks for. A read-write lock has rwLimit permits: a
// reader takes one, a writer all of them, so that a writer excludes
// everyone and a queued writer holds back the readers behind it. On
// release or expiry the permits pass straight to the waiters at the front,
// so nobody barges in.

var (
	_ lock.Semaphores = (*Locker)(nil)
	_ lock.RWLockers  = (*Locker)(nil)
)

// rwLimit is the permits of a read-write lock: more readers than can
// exist at once.
const rwLimit = lock.MaxPermits

// space tells the keys of locks, semaphores and read-write locks apart.
type space uint8

const (
	locks space = iota + 1
	semaphores
	rwLocks
)

func (s space) String() string {
	switch s {
	case locks:
		return "lock"
	case semaphores:
		return "semaphore"
	}
	return "read-write lock"
}

// wname names a key of a space.
type wname struct {
	space space
	key   string
}

// wentry is a key of a space while it has holders or waiters.
type wentry struct {
	limit   int
	used    int                 // permits held
	holds   map[*whold]struct{} // the leases holding them
	waiters list.List           // of *wwaiter, in arrival order
}

// whold is one lease of n permits. Like hold, it is identified by its
// pointer: one that is not in its entry's holds has ended.
type whold struct {
	l     *Locker
	name  wname
	n     int
	token uint64      // locks' and exclusive leases only
	timer *time.Timer // fires at deadline and expires the hold
	at    time.Time   // when it was granted

	// Guarded by l.mu.
	deadline time.Time
	lease    *lease.Lease
}

// wwaiter is a call queued for n permits.
type wwaiter struct {
	n         int
	ttl       time.Duration
	exclusive bool
	elem      *list.Element // guarded by l.mu; nil once dequeued
	ch        chan *whold   // receives the grant; buffered
}

// AcquirePermits implements lock.Semaphores.
func (l *Locker) AcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{semaphores, key}, limit, n, false, true, opts)
}

// TryAcquirePermits implements lock.Semaphores.
func (l *Locker) TryAcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{semaphores, key}, limit, n, false, false, opts)
}

// AcquireShared implements lock.RWLockers.
func (l *Locker) AcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{rwLocks, key}, rwLimit, 1, false, true, opts)
}

// TryAcquireShared implements lock.RWLockers.
func (l *Locker) TryAcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{rwLocks, key}, rwLimit, 1, false, false, opts)
}

// AcquireExclusive implements lock.RWLockers.
func (l *Locker) AcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{rwLocks, key}, rwLimit, rwLimit, true, true, opts)
}

// TryAcquireExclusive implements lock.RWLockers.
func (l *Locker) TryAcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, wname{rwLocks, key}, rwLimit, rwLimit, true, false, opts)
}

func (l *Locker) acquireWeighted(ctx context.Context, name wname, limit, n int, exclusive, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, name.key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	if err := lock.CheckPermits(limit, n); err != nil {
		return nil, a.Refuse(ctx, err)
	}
	cfg := a.Config
	if ctx.Err() != nil {
		return nil, a.Refuse(ctx, nil)
	}

	l.mu.Lock()
	e := l.weighted[name]
	switch {
	case e == nil:
		e = &wentry{limit: limit, holds: map[*whold]struct{}{}}
		l.weighted[name] = e
	case e.limit != limit:
		l.mu.Unlock()
		return nil, a.Refuse(ctx, fmt.Errorf("%w: semaphore %q has a limit of %d, asked with %d", lock.ErrInvalid, name.key, e.limit, limit))
	}
	if e.waiters.Len() == 0 && e.used+n <= e.limit {
		le := l.newWeightedLease(l.grantWeighted(name, e, n, exclusive, cfg.TTL), cfg)
		l.mu.Unlock()
		a.Granted(le.Token())
		return le, nil
	}
	a.Contended = true
	if !wait {
		l.dropIfIdle(name, e)
		l.mu.Unlock()
		return nil, a.Refuse(ctx, nil)
	}
	w := &wwaiter{n: n, ttl: cfg.TTL, exclusive: exclusive, ch: make(chan *whold, 1)}
	w.elem = e.waiters.PushBack(w)
	l.mu.Unlock()

	select {
	case h := <-w.ch:
		l.mu.Lock()
		le := l.newWeightedLease(h, cfg)
		_, live := h.current()
		l.mu.Unlock()
		a.Granted(le.Token())
		if !live { // expired before its lease was built
			le.Lose(h.lost())
		}
		return le, nil
	case <-ctx.Done():
		l.abandonWeighted(name, w)
		return nil, a.Refuse(ctx, nil)
	}
}

// abandonWeighted takes a waiter that gave up out of its queue: the
// waiters behind it may fit now. If it was granted meanwhile, it gives
// the permits back.
func (l *Locker) abandonWeighted(name wname, w *wwaiter) {
	l.mu.Lock()
	if w.elem != nil {
		e := l.weighted[name]
		e.waiters.Remove(w.elem)
		w.elem = nil
		grants := l.admit(name, e)
		l.dropIfIdle(name, e)
		l.mu.Unlock()
		deliverAll(grants)
		return
	}
	l.mu.Unlock()
	h := <-w.ch
	_ = h.Release(context.Background()) // only fails if it has already expired
}

// grantWeighted makes a new hold of n permits on e. l.mu must be held.
func (l *Locker) grantWeighted(name wname, e *wentry, n int, exclusive bool, ttl time.Duration) *whold {
	now := time.Now()
	h := &whold{l: l, name: name, n: n, at: now, deadline: now.Add(ttl)}
	if exclusive {
		l.token++
		h.token = l.token
	}
	h.timer = time.AfterFunc(ttl, h.expire)
	e.used += n
	e.holds[h] = struct{}{}
	return h
}

// newWeightedLease builds the caller's lease on h. l.mu must be held.
func (l *Locker) newWeightedLease(h *whold, cfg lock.Config) *lease.Lease {
	h.lease = lease.New(h.name.key, h.token, h.deadline, cfg, h)
	return h.lease
}

// wgrant is a grant decided under l.mu, delivered after it is unlocked.
type wgrant struct {
	w *wwaiter
	h *whold
}

func deliverAll(gs []wgrant) {
	for _, g := range gs {
		g.w.ch <- g.h
	}
}

// admit grants permits to the waiters at the front of e's queue while the
// first one's fit. l.mu must be held; the caller delivers the grants
// after unlocking.
func (l *Locker) admit(name wname, e *wentry) []wgrant {
	var gs []wgrant
	for front := e.waiters.Front(); front != nil; front = e.waiters.Front() {
		w := front.Value.(*wwaiter)
		if e.used+w.n > e.limit {
			break
		}
		e.waiters.Remove(front)
		w.elem = nil
		gs = append(gs, wgrant{w, l.grantWeighted(name, e, w.n, w.exclusive, w.ttl)})
	}
	return gs
}

// dropIfIdle forgets e once nobody holds or waits for it. l.mu must be
// held.
func (l *Locker) dropIfIdle(name wname, e *wentry) {
	if len(e.holds) == 0 && e.waiters.Len() == 0 {
		delete(l.weighted, name)
	}
}

// end takes h off its entry and grants the permits it frees. l.mu must be
// held; the caller delivers the grants after unlocking.
func (h *whold) end(e *wentry) []wgrant {
	h.timer.Stop()
	delete(e.holds, h)
	e.used -= h.n
	gs := h.l.admit(h.name, e)
	h.l.dropIfIdle(h.name, e)
	return gs
}

// current reports whether h still holds its permits and returns its
// entry. l.mu must be held.
func (h *whold) current() (*wentry, bool) {
	e := h.l.weighted[h.name]
	if e == nil {
		return nil, false
	}
	_, ok := e.holds[h]
	return e, ok
}

func (h *whold) lost() error {
	if h.token != 0 {
		return fmt.Errorf("memlock: %s %q is no longer held by token %d: %w", h.name.space, h.name.key, h.token, lock.ErrLost)
	}
	return fmt.Errorf("memlock: %s %q: the lease of %d permits is no longer held: %w", h.name.space, h.name.key, h.n, lock.ErrLost)
}

// expire runs when the hold's deadline may have passed.
func (h *whold) expire() {
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
	grants := h.end(e)
	l.mu.Unlock()
	if le != nil {
		le.Lose(fmt.Errorf("memlock: %s %q expired: %w", h.name.space, h.name.key, lock.ErrLost))
	}
	deliverAll(grants)
}

// Refresh implements lease.Backend.
func (h *whold) Refresh(_ context.Context, ttl time.Duration) error {
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
func (h *whold) Release(context.Context) error {
	l := h.l
	l.mu.Lock()
	e, ok := h.current()
	if !ok {
		l.mu.Unlock()
		return h.lost()
	}
	expired := !time.Now().Before(h.deadline)
	grants := h.end(e)
	l.mu.Unlock()
	deliverAll(grants)
	if expired { // its timer had not run yet
		return h.lost()
	}
	return nil
}
