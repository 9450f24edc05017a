// Package lease holds the parts of a lock.Lease that every backend shares:
// the Done channel and Err state, the local validity deadline, the
// auto-renew watchdog, and observer events. A backend supplies only the two
// operations that talk to its server.
package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stockade/stockade/lock"
)

// Backend performs the server side of one held lease.
type Backend interface {
	// Refresh extends the lease to ttl. It returns an error wrapping
	// lock.ErrLost if the lease is no longer held by this owner; any other
	// error is taken as transient.
	Refresh(ctx context.Context, ttl time.Duration) error

	// Release deletes the lease if it is still held by this owner. It
	// returns nil if it did, an error wrapping lock.ErrLost if the lease was
	// no longer held, and any other error when it could not tell.
	Release(ctx context.Context) error
}

// Lease implements lock.Lease over a Backend.
type Lease struct {
	key      string
	token    uint64
	backend  Backend
	observer lock.Observer
	acquired time.Time
	done     chan struct{}

	releaseMu sync.Mutex // one Release at a time: a second waits and sees the first's outcome

	mu        sync.Mutex
	err       error       // nil while held; lock.ErrReleased or lock.ErrLost after
	deadline  time.Time   // local estimate of when the server forgets the lease
	expiry    *time.Timer // fires at deadline and declares the lease lost
	releasing bool        // a Release is under way; it decides how the lease ended
}

var _ lock.Lease = (*Lease)(nil)

// New returns a held lease. validUntil is the local deadline. For a
// backend whose server expires leases, it is the time the acquire request
// was sent plus the TTL (less any drift allowance), so that the local view
// never outlives the server's; a backend without server-side expiry counts
// from the grant and frees the key itself when the deadline passes. With cfg.AutoRenew a watchdog
// refreshes the lease every TTL/3.
func New(key string, token uint64, validUntil time.Time, cfg lock.Config, b Backend) *Lease {
	l := &Lease{
		key:      key,
		token:    token,
		backend:  b,
		observer: cfg.Observer,
		acquired: time.Now(),
		done:     make(chan struct{}),
		deadline: validUntil,
	}
	l.mu.Lock()
	l.expiry = time.AfterFunc(time.Until(validUntil), l.checkExpiry)
	l.mu.Unlock()
	if cfg.AutoRenew {
		go l.renew(cfg.TTL)
	}
	return l
}

// Key implements lock.Lease.
func (l *Lease) Key() string { return l.key }

// Token implements lock.Lease.
func (l *Lease) Token() uint64 { return l.token }

// Done implements lock.Lease.
func (l *Lease) Done() <-chan struct{} { return l.done }

// Err implements lock.Lease.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Refresh implements lock.Lease.
func (l *Lease) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("%w: ttl must be positive, got %v", lock.ErrInvalid, ttl)
	}
	return l.refresh(ctx, ttl)
}

func (l *Lease) refresh(ctx context.Context, ttl time.Duration) error {
	if err := l.Err(); err != nil {
		return err
	}
	start := time.Now()
	err := l.backend.Refresh(ctx, ttl)
	switch {
	case err == nil:
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.err != nil {
			return l.err
		}
		l.deadline = start.Add(ttl)
		l.expiry.Reset(time.Until(l.deadline))
		return nil
	case errors.Is(err, lock.ErrLost):
		l.mu.Lock()
		releasing := l.releasing
		l.mu.Unlock()
		if releasing {
			// The server may have found the lease gone because a concurrent
			// Release freed it: leave the verdict to Release, which learns
			// from the server whether it was still ours.
			return lock.ErrReleased
		}
		l.Lose(err)
		return l.Err()
	default:
		return fmt.Errorf("lock: refresh %q: %w", l.key, err)
	}
}

// Release implements lock.Lease.
func (l *Lease) Release(ctx context.Context) error {
	l.releaseMu.Lock()
	defer l.releaseMu.Unlock()
	l.mu.Lock()
	if errors.Is(l.err, lock.ErrReleased) {
		l.mu.Unlock()
		return nil
	}
	l.releasing = true
	l.mu.Unlock()
	err := l.backend.Release(ctx)
	switch {
	case err == nil:
		if l.finish(lock.ErrReleased) {
			lock.Notify(l.observer, lock.Event{Kind: lock.Released, Key: l.key, Token: l.token, Held: time.Since(l.acquired)})
			return nil
		}
		// The local deadline passed first and Done already said lost;
		// keep saying so.
		return l.Err()
	case errors.Is(err, lock.ErrLost):
		l.Lose(err)
		return l.Err()
	default:
		l.mu.Lock()
		l.releasing = false
		l.mu.Unlock()
		return fmt.Errorf("lock: release %q: %w", l.key, err)
	}
}

// Lose ends the lease with lock.ErrLost, closing Done. Backends call it when
// they learn the lease is gone (a broken connection, a revoked session).
// cause is reported to the observer; Err always returns lock.ErrLost.
func (l *Lease) Lose(cause error) {
	if l.finish(lock.ErrLost) {
		lock.Notify(l.observer, lock.Event{Kind: lock.Lost, Key: l.key, Token: l.token, Held: time.Since(l.acquired), Err: cause})
	}
}

// finish records the lease's end once and reports whether this call did it.
func (l *Lease) finish(err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return false
	}
	l.err = err
	l.expiry.Stop()
	close(l.done)
	return true
}

// checkExpiry runs when the local deadline may have passed.
func (l *Lease) checkExpiry() {
	l.mu.Lock()
	remaining := time.Until(l.deadline)
	if l.err == nil && remaining > 0 { // refreshed meanwhile
		l.expiry.Reset(remaining)
	}
	l.mu.Unlock()
	if remaining <= 0 {
		l.Lose(fmt.Errorf("%w: %q expired before it was renewed", lock.ErrLost, l.key))
	}
}

// renew is the auto-renew watchdog: it refreshes every ttl/3 and retries a
// failed refresh sooner, until the lease ends. A refresh that finds the
// lease gone ends it at once; one that cannot reach the server leaves the
// expiry timer to end it at the deadline.
func (l *Lease) renew(ttl time.Duration) {
	interval := ttl / 3
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		err := l.refresh(ctx, ttl)
		cancel()
		switch {
		case err == nil:
			t.Reset(interval)
		case errors.Is(err, lock.ErrLost), errors.Is(err, lock.ErrReleased):
			return
		default:
			lock.Notify(l.observer, lock.Event{Kind: lock.RenewFailed, Key: l.key, Token: l.token, Err: err})
			t.Reset(interval / 4)
		}
	}
}
