// Package etcdlock is a lock.Locker, lock.Semaphores and lock.RWLockers
// on an etcd cluster, through the official clientv3 client.
//
//	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"localhost:2379"}})
//	if err != nil {
//		return err
//	}
//	defer client.Close()
//	locker := etcdlock.New(client, nil)
//	defer locker.Close() // waits for background clean-ups; before client.Close
//	lease, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
//	if err != nil {
//		return err
//	}
//	defer lease.Release(context.WithoutCancel(ctx))
//	return store.Write(ctx, lease.Token(), update) // refuses tokens older than one it has seen
//
// # How it works
//
// Each acquisition puts one key,
//
//	Prefix + key + "/" + ID of the etcd lease it is put with, in hex
//
// attached to an etcd lease that no other acquisition uses meanwhile, with
// '/' and '%' in the lock key escaped as %2F and %25 so that the queue of
// "a" never holds the keys of "a/b". The keys under Prefix + key + "/" are
// the lock's queue, ordered by create revision; the oldest one holds the
// lock. This is the layout of etcd's concurrency.Mutex, with a protocol of
// its own on KV, Txn, Watch and Lease:
//
//   - Acquire puts its key and reads the queue in one transaction. If its
//     key is the oldest, it holds the lock. Otherwise it watches the queue's
//     deletions and waits until every key older than its own is gone. The
//     watch starts at the current revision, not in the past: etcd serves a
//     watch that starts in the past from a catch-up loop that runs every
//     100ms, which would add up to 100ms to a hand-off whenever anything at
//     all was written to the cluster between the read and the watch
//     (concurrency.Mutex watches from the read's revision, and its
//     hand-offs pay that delay under load). If the watch started
//     after the read, the queue is read again, so no deletion is missed. A
//     hand-off costs the delete's commit and one watch event; only a waiter
//     that waited longer than a tenth of its TTL renews its etcd lease once
//     more before it returns.
//   - Waiters are served in the order their keys were created. While one
//     waits, the client keeps its etcd lease alive. A waiter that gives up
//     (its context ends, or the WithWait bound) deletes its key, even when
//     its context is already done.
//   - TryAcquire puts its key only if the queue is empty, in one
//     transaction, so a refusal leaves no trace in the queue.
//   - Release deletes the key in a transaction guarded by the key's create
//     revision, so a release sent twice, or late, never deletes a newer
//     holder's key of the same name (etcd issue 22082).
//   - While a lease is held, its key is watched (for a lock taken without
//     waiting, once it has been held for 100ms): if the key is deleted
//     behind the holder's back (its etcd lease revoked or expired, or the
//     key deleted by hand), Done closes with lock.ErrLost at once.
//
// Only Acquire's return makes a holder: there is no state in which a
// waiter could pass for an owner (etcd issue 12017). Lease.IsOwner, for
// guarding writes to etcd itself, is true exactly while the key exists
// with the revision it was created at.
//
// # Semaphores and read-write locks
//
// Semaphores (AcquirePermits) and read-write locks (AcquireShared,
// AcquireExclusive) have queues like the locks', in namespaces of their
// own:
//
//	Prefix + "%sem/" + key + "/" + ID of the etcd lease, in hex
//	Prefix + "%rw/" + key + "/" + ID of the etcd lease, in hex
//
// with key escaped as a lock key is; an escaped key holds no '%' but in
// %25 and %2F, so neither namespace shares a queue with a lock or with the
// other. Each key holds the permits it asks for and the key's limit, as
// "n/limit" (a lock's key holds nothing: the only permit of one). A
// read-write lock has lock.MaxPermits permits: a reader asks for one, a
// writer for all of them. Every key, a waiter's as well as a holder's, is
// attached to an etcd lease of its own with the caller's TTL, which the
// client keeps alive while the caller waits: the key of a caller that died
// goes with its etcd lease, and so do the permits it held or held back.
//
// A key is granted when the permits asked by the keys created before it,
// plus its own, are within the limit. A lock is the case of one permit of
// one. The rule is checked on the queue as read by the transaction that
// puts the key, so at one revision; keys put later cannot change it, and
// deleted ones only let more through, so a granted key stays granted.
// Until then the caller watches the queue's deletions, as a lock's waiter
// does (from the current revision, reading the queue again if the watch
// started after the read), and checks the rule again on each deletion of a
// key ahead of it, without asking etcd. That is one watch per waiter: any
// deletion ahead may let a caller of several permits through, not only its
// predecessor's, so it cannot watch just the key ahead of it as a lock
// could, and watching each key ahead would cost as many watches as the
// queue is long per waiter. The price is that every deletion in a queue
// reaches each of its waiters.
//
// The rule serves in arrival order and blocks at the head of the line: a
// caller of many permits holds back those behind it even when they would
// fit, so it is not starved; a writer waits for the readers ahead of it and
// holds back those behind it. TryAcquirePermits, TryAcquireShared and
// TryAcquireExclusive put their key in a transaction conditional on the
// queue being empty, or on no key in it having been written since the read
// the rule granted it on, so a refusal leaves no trace. A caller whose
// limit differs from a key's ahead of it is refused with lock.ErrInvalid
// (and takes its key back out).
//
// Release, loss and giving up work as for locks: a release deletes only
// the caller's key, guarded by its create revision, and returns its etcd
// lease to the pool; a waiter that gives up deletes its key even if it was
// granted meanwhile; every deletion is the wake-up of the waiters it lets
// through. An exclusive lease's token is its key's create revision, like a
// lock's. Permits and shared leases have no token (Token returns 0): up to
// the limit of them are held at once, and no number can tell a resource
// which older holders have ended; a write that must be fenced needs a lock
// or an exclusive lease.
//
// # Guarantees
//
// etcd is linearizable through Raft: a lock is held by at most one lease
// at a time as long as a majority of the cluster is up and the holder's
// etcd lease lives, and holders survive the restart or loss of any
// minority of members. The fencing token (Token) is the create revision of
// the holder's key: it rises strictly from holder to holder, across
// restarts of clients and servers, for as long as the cluster's revision
// does (restoring a snapshot from before the last grant breaks it). A lock
// protects only what checks its revision: pass the token to the resource
// and have it refuse tokens older than one it has seen, or, for data in
// etcd, put Lease.IsOwner in the transaction's If.
//
// # TTL
//
// etcd leases count whole seconds: a TTL is rounded up to the next second,
// and etcd raises one below its minimum (1.5 election timeouts, 2s with
// the default settings) to that minimum. A lease lives, and Done stays
// open, for the TTL etcd granted. Refresh renews the etcd lease to its TTL;
// etcd cannot change a lease's TTL, so a Refresh with a longer TTL moves
// the key to a new etcd lease (a put keeps the key's create revision, so
// its token and place stay the same), and one with a shorter TTL keeps the
// longer one. WithAutoRenew uses the shared watchdog: a renewal every TTL/3.
// A new lock's etcd lease was granted or renewed within the last tenth of
// its TTL, so the lock has at least nine tenths of its TTL left.
//
// The etcd leases of released locks are kept by the Locker for its next
// acquisitions with the same TTL, without keys and without renewals, so
// that an acquisition writes to etcd twice (put and delete its key)
// instead of four times. etcd drops an idle lease when its TTL runs out.
//
// # Failure modes
//
//   - etcd unreachable: requests fail after Options.RequestTimeout with
//     lock.ErrUnavailable, or when the caller's context ends if that is
//     sooner; that holds for a waiter's watch of its queue too, which the
//     etcd client does not start while it reconnects. A held lease whose renewals fail is declared lost
//     at its deadline, counted from before the last successful renewal was
//     sent, so before etcd can free the key. The Locker then tries to revoke
//     the etcd lease, so that the key is free before its TTL runs out.
//   - etcd restarted: etcd keeps leases and keys, and its new leader renews
//     every lease to its full TTL. A renewed lease survives a restart
//     shorter than its TTL; watches and waiters resume.
//   - A member cut off from its leader: watches through it end, so that
//     they cannot fall silent, and are started again; a waiter that cannot
//     start again within RequestTimeout gives up with lock.ErrUnavailable.
//   - Pauses: a holder paused past its TTL (GC, a stopped VM) may act on a
//     key that was since taken by another: fence with the token.
package etcdlock
