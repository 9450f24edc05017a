// Package memlock is the in-process lock.Locker: keys, queues and fencing
// tokens kept in the memory of one process.
//
// Use it in tests, in a service that runs as a single process (stockade on
// its embedded store), and in examples. It has the semantics of the
// distributed backends, so code written against lock.Locker behaves the
// same when it moves to Redis, PostgreSQL or etcd:
//
//	locker := memlock.New(nil)
//	lease, err := locker.Acquire(ctx, "sku-42", lock.WithTTL(5*time.Second))
//	if err != nil {
//		return err // lock.ErrNotAcquired joined with ctx.Err() if the wait ended
//	}
//	defer lease.Release(ctx)
//	// … act on sku-42, passing lease.Token() to the resource …
//
// # Guarantees
//
//   - Exclusion: at most one live lease per key, across all goroutines that
//     share the Locker.
//   - Expiry: a lease that is neither released nor refreshed within its TTL
//     expires. Its Done channel is closed with Err lock.ErrLost before the
//     key is handed to the next waiter, and its Refresh and Release then
//     return lock.ErrLost; a late Release never frees a newer holder.
//   - Fairness: waiters are served in arrival order. On release or expiry
//     the key passes straight to the first waiter, so nobody barges in, and
//     TryAcquire refuses a key that has waiters. Waiting is on channels: no
//     polling, no sleeping.
//   - Fencing: one counter over all keys (starting at Options.FirstToken)
//     numbers the leases, so the tokens of one key strictly increase.
//   - Cancellation: a waiter whose ctx ends, or whose WithWait bound passes,
//     leaves the queue and returns lock.ErrNotAcquired joined with the
//     context's error; if the key reached it just as it gave up, it passes
//     the key on.
//   - Memory: only held keys are remembered. A key that is released or
//     expires with nobody waiting is forgotten.
//
// # Semaphores and read-write locks
//
// A Locker is also lock.Semaphores and lock.RWLockers, on keys apart from
// its locks'. All three are one mechanism: a key with a limit of permits
// and one queue in arrival order whose first waiter alone may be granted,
// when its permits fit. A lock is the one permit of one. A read-write lock
// has lock.MaxPermits permits; a reader takes one and a writer all of
// them, so a writer excludes everyone, and a queued writer holds back the
// readers that come after it. Locks and exclusive leases take their
// fencing tokens from one counter.
//
//	sem, err := locker.AcquirePermits(ctx, "exports", 4, 1) // one of 4
//	rd, err := locker.AcquireShared(ctx, "catalog")
//
// # Limits
//
// A memlock Locker protects only the process it lives in: two processes,
// or two Lockers in one process, do not exclude each other. Use one Locker
// per process and share it. Tokens restart at Options.FirstToken when the
// process does. Within one process a lease can still outlive its usefulness
// (a goroutine stalls past the TTL while another takes the key), so writes
// that must never come from a stale holder carry the token and are checked by
// the resource, as with any backend.
package memlock
