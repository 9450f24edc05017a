// Package etcdlock is a lock.Locker on an etcd cluster, through the
// official clientv3 client.
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
//     lock.ErrUnavailable; a held lease whose renewals fail is declared lost
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
