package lock

import (
	"context"
	"fmt"
)

// Semaphores grants permits on named keys: up to a key's limit of them at
// once, taken and given back in leases.
//
// A lease of permits is a Lease like a lock's: it has a TTL, renews itself
// with WithAutoRenew, tells through Done and Err that it was lost, and its
// Release gives back its own permits only, once, however often it is
// retried. The permits of a holder that vanished come back when its lease
// ends. Waiters are served in arrival order, and the first in line holds
// back those behind it even when they would fit: a request for several
// permits is not starved by requests for one. Waiting is notified, not
// polled.
//
// A permit carries no fencing token: Token returns 0. A fencing token lets
// a resource refuse a holder older than the newest it has seen, because a
// lock has one holder at a time. A semaphore has up to its limit of
// holders at once, and no number can tell a resource which older permits
// have ended and which are still current. A write that must never come
// from a stale holder needs a lock (or a read-write lock's exclusive
// lease), not a permit.
//
// The keys of semaphores, read-write locks and locks are apart: a key
// taken with Acquire does not hold back the same key's permits.
type Semaphores interface {
	// AcquirePermits waits until n of key's permits are free and takes
	// them. limit is how many permits the key has: every caller of a key
	// passes the same one, and a call whose limit differs from the one the
	// key's holders and waiters were given is refused with ErrInvalid, as
	// is n outside [1, limit]. The wait ends as Locker.Acquire's does.
	AcquirePermits(ctx context.Context, key string, limit, n int, opts ...Option) (Lease, error)

	// TryAcquirePermits takes n permits if they are free now and nobody
	// waits ahead, and returns ErrNotAcquired at once if not.
	TryAcquirePermits(ctx context.Context, key string, limit, n int, opts ...Option) (Lease, error)
}

// RWLockers grants shared (read) and exclusive (write) leases on named
// keys: any number of shared leases on a key at once, or one exclusive
// lease and nothing else.
//
// Requests are served in arrival order. A writer waits only for the
// holders and waiters ahead of it, and readers that arrive behind a
// waiting writer wait for it: a stream of readers cannot starve a writer,
// nor a stream of writers the readers. An exclusive lease carries a
// fencing token, strictly increasing per key as a Locker's; a shared lease
// carries none (Token returns 0): it is for reading, and a resource fences
// writes.
//
// Leases are Leases like a lock's (TTL, auto-renew, Done, Err, Refresh,
// Release of one's own lease only, safe to retry). The keys of read-write
// locks are apart from those of locks and semaphores.
type RWLockers interface {
	// AcquireShared waits for a shared lease on key.
	AcquireShared(ctx context.Context, key string, opts ...Option) (Lease, error)

	// TryAcquireShared takes a shared lease if no writer holds or waits
	// for key now, and returns ErrNotAcquired at once if one does.
	TryAcquireShared(ctx context.Context, key string, opts ...Option) (Lease, error)

	// AcquireExclusive waits for the exclusive lease on key.
	AcquireExclusive(ctx context.Context, key string, opts ...Option) (Lease, error)

	// TryAcquireExclusive takes the exclusive lease if nobody holds or
	// waits for key now, and returns ErrNotAcquired at once if not.
	TryAcquireExclusive(ctx context.Context, key string, opts ...Option) (Lease, error)
}

// MaxPermits bounds a semaphore's limit, so that every backend can count
// permits in its own integers.
const MaxPermits = 1 << 30

// CheckPermits returns an ErrInvalid error unless 1 ≤ n ≤ limit ≤
// MaxPermits.
func CheckPermits(limit, n int) error {
	switch {
	case limit < 1 || limit > MaxPermits:
		return fmt.Errorf("%w: a semaphore's limit must be between 1 and %d, got %d", ErrInvalid, MaxPermits, limit)
	case n < 1 || n > limit:
		return fmt.Errorf("%w: permits asked must be between 1 and the limit %d, got %d", ErrInvalid, limit, n)
	}
	return nil
}
