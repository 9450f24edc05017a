package lock

import (
	"context"
	"errors"
	"time"
)

// Locker grants leases on named keys.
//
// Implementations live in the backend packages (memlock, redislock, …); each
// passes the conformance suite in locktest.
type Locker interface {
	// Acquire waits until the key is free and returns a lease on it. Waiters
	// are served in arrival order. The wait ends when ctx is done or the
	// WithWait bound passes; the error is then ErrNotAcquired joined with
	// the context's error.
	Acquire(ctx context.Context, key string, opts ...Option) (Lease, error)

	// TryAcquire returns a lease if the key is free now and ErrNotAcquired
	// at once if it is held (or has waiters queued ahead).
	TryAcquire(ctx context.Context, key string, opts ...Option) (Lease, error)
}

// Lease is the right to act on a key until it is released or lost.
//
// A lease is a promise with a deadline, not a guarantee of exclusion: a
// process pause or a network partition can outlast it. Writes that must never
// come from a stale holder carry Token and are refused by the resource when a
// larger token has been seen (see the package documentation).
type Lease interface {
	// Key is the key the lease is on.
	Key() string

	// Token is the fencing token: strictly increasing per key, across
	// holders and across processes.
	Token() uint64

	// Done is closed when the lease is released or lost.
	Done() <-chan struct{}

	// Err is nil while the lease is held; after Done is closed it is
	// ErrReleased or ErrLost.
	Err() error

	// Refresh extends the lease to ttl from now. It returns ErrLost if the
	// lease is no longer held, and ErrReleased after Release.
	Refresh(ctx context.Context, ttl time.Duration) error

	// Release gives the key up. It never releases a lease held by someone
	// else, and it is safe to retry: after a successful release it returns
	// nil again. It returns ErrLost if the lease had been lost first.
	Release(ctx context.Context) error
}

// Errors returned by lockers and leases. Match them with errors.Is: the
// returned errors wrap them with the key and, for a cancelled or timed-out
// wait, are joined with the context's error.
var (
	// ErrNotAcquired means the key was held and the caller would not (or
	// could no longer) wait.
	ErrNotAcquired = errors.New("lock: not acquired")

	// ErrLost means the lease ended without Release: it expired, was not
	// renewed in time, or the backend lost it.
	ErrLost = errors.New("lock: lease lost")

	// ErrReleased means the lease was released by its holder.
	ErrReleased = errors.New("lock: lease released")

	// ErrUnavailable means the backend could not be reached or could not
	// decide (for Redlock: no quorum). Nothing is held when it is returned.
	ErrUnavailable = errors.New("lock: backend unavailable")

	// ErrInvalid means a key or option was refused before anything was
	// attempted: an empty key, a non-positive TTL, a negative wait.
	ErrInvalid = errors.New("lock: invalid argument")
)
