// Package lock is one API over several distributed-lock backends: in-process
// (memlock), a single Redis (redislock), Redlock over independent Redis
// masters, PostgreSQL advisory locks and etcd. Every lease carries a
// fencing token, can renew itself, and says when it is lost.
//
// # The common path
//
//	lease, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
//	if err != nil {
//		return err // errors.Is(err, lock.ErrNotAcquired) when ctx or WithWait ran out
//	}
//	defer lease.Release(context.WithoutCancel(ctx))
//	select {
//	case <-lease.Done(): // lost: stop, the key may have a new holder
//		return lease.Err()
//	default:
//	}
//	return store.Write(ctx, lease.Token(), update) // the store refuses tokens older than one it has seen
//
// # What a lease guarantees, and what it does not
//
// A lease is a promise that no other caller of the same backend holds the
// key, for as long as the lease is valid: until it is released, or its TTL
// runs out without a refresh. Each lease keeps a local deadline, counted
// from before the acquire request was sent, and closes Done with ErrLost
// when that deadline passes or a refresh finds the lease gone. With
// WithAutoRenew a watchdog refreshes every TTL/3, so a live holder keeps its
// lease for as long as it needs.
//
// No lease can stop a holder that is paused (a long GC pause, a stopped VM,
// a slow disk) from waking up after its lease expired and acting as if it
// still held it: the check "is my lease valid?" and the write that follows
// are two steps. That is what the fencing token is for. Tokens are strictly
// increasing per key across holders; a resource that records the largest
// token it has accepted, and refuses writes that carry a smaller one,
// cannot be corrupted by a stale holder. The stockade service writes its
// counters that way. A lock protects only what checks its token.
//
// When Done closes, stop the work the lease protected as soon as possible
// and do not commit anything that is not fenced: another holder may
// already be at work.
//
// # Waiting
//
// Acquire waits by notification, never by sleeping in a loop, and serves
// waiters in arrival order: a releasing holder cannot grab the key straight
// back ahead of those already queued, and TryAcquire fails while anyone is
// queued. The wait ends at the context's deadline or the WithWait bound,
// with an error matching both ErrNotAcquired and the context's error.
//
// # Several keys
//
// AcquireAll takes a set of keys all-or-nothing, in sorted order, so callers
// with overlapping key sets cannot deadlock one another.
//
// # Semaphores and read-write locks
//
// A backend that implements Semaphores grants up to a key's limit of
// permits at once, each in a lease of its own: permits of a vanished
// holder come back when its lease ends, a Release gives back its own
// permits once however often it is retried, and a caller of several
// permits first in line is not passed by callers of one. A permit has no
// fencing token (see Semaphores for why).
//
// A backend that implements RWLockers grants shared and exclusive leases
// on a key in arrival order, so that neither writers nor readers starve;
// exclusive leases carry fencing tokens. Both are checked by the suites in
// locktest (RunSemaphores, RunRWLockers).
//
// The backends share one mechanism for both. A key (apart from the keys
// of locks, and semaphores apart from read-write locks) has a limit of
// permits and an arrival-ordered queue of entries, holders and waiters,
// each asking n permits. An entry is granted exactly when the permits of
// every live entry that arrived before it, plus its own, fit the limit:
// first come, first served, and a waiter behind a waiting caller of many
// permits waits behind it even when it would fit. A read-write lock is a
// key of MaxPermits permits: a reader asks one, a writer all of them, so a
// writer is granted when nobody arrived before it, and readers behind a
// waiting writer wait. Every entry is leased, a waiter's too (kept alive
// while it waits), so that a holder or a waiter that died is dropped when
// its lease ends; dropping an entry, as a Release, an expiry or a waiter
// that gave up does, wakes the entries it lets through. memlock is the
// reference; locktest.RunSemaphores and RunRWLockers check every backend.
//
// # Inspecting
//
// A backend that implements Inspector lists who holds each key and how
// many wait, and one that implements Breaker frees a stuck key: its
// leases are lost, and the next holder's token is larger than theirs.
// memlock implements both.
//
// # Observing leases
//
// WithObserver reports each acquisition, refusal, release, failed renewal
// and loss to an Observer, for metrics and logs. The module
// github.com/stockade/stockade/lock/lockprom records them in Prometheus
// metrics; it is a module of its own, so that this one does not depend on
// client_golang.
//
// # Errors
//
// ErrNotAcquired, ErrLost, ErrReleased, ErrUnavailable and ErrInvalid are
// sentinels; match them with errors.Is.
package lock
