// Package redlock is a lock.Locker over N independent Redis masters, using
// the Redlock algorithm: a lease is granted when a majority of the nodes
// (N/2+1) grant it within its validity.
//
//	l, err := redlock.New([]redis.UniversalClient{c1, c2, c3, c4, c5}, nil)
//	lease, err := l.Acquire(ctx, "sku:42", lock.WithTTL(5*time.Second), lock.WithAutoRenew())
//
// Configure each client with ContextTimeoutEnabled: true, so that the
// per-node timeout also cuts a call to a node that stopped answering;
// otherwise such a call lingers in the background until the client's own
// read timeout.
//
// # How it works
//
// Every node runs the same scripts as redislock, and concurrent calls to a
// node share pipelines as they do there. An attempt asks all nodes in
// parallel, each bounded by NodeTimeout × TTL, and ends as soon as its
// outcome is decided: once a majority granted, or once so many refused that
// no majority can. It succeeds when a majority grant and the time left,
// TTL − elapsed − drift (DriftFactor × TTL + 2 ms), is still positive; that
// is the lease's validity, counted from before the requests were sent. A
// failed attempt gives back the nodes it won. Refresh extends the lock on
// every node and succeeds on a majority; only then does it re-create the
// lock on nodes that lost it (a node that restarted empty), so the lease
// keeps a full majority behind it. Release frees every node. It returns
// once a majority confirm they held the lock, or with lock.ErrLost once
// enough have said they did not that no majority did: a lease left on a
// minority was lost, whatever the nodes still hold.
//
// Waiting is fair and notified, as in redislock: each node queues waiters by
// the time they arrived at this process, so all nodes agree on who is next
// and a release hands the lock to the same waiter on every node. That
// waiter is notified by each node and claims the lock once a majority has
// handed it over. A waiter that won some nodes but not a majority yields
// them: each goes to whoever is first in that node's queue, which is the
// waiter itself unless someone arrived earlier, so two waiters never end
// up holding a minority each.
//
// An attempt waits for a node still to answer only while the outcome
// depends on it, and not at all for a node whose connection failed on its
// last call (refused or dropped: the node is down) once the nodes that
// answered leave no majority within reach; the nodes the attempt won then
// go back to the queues at once. A node that has just gone down still
// costs the first calls to it their client's dial retries (about 0.4 s
// with go-redis's defaults), and one that is stopped or cut off, which
// only times out, costs each attempt that needs it the per-node timeout:
// a node that is merely slow must not pass for a dead one. Nodes that did
// not answer an attempt are left to the waiter's next attempt, which asks
// them again and claims or yields what they hold for it then (a failed
// TryAcquire releases them). A waiter queues as soon as it is refused,
// without waiting for its subscriptions to be confirmed (a node that is
// down would hold it up for a second), and looks again once they are. So
// the caller that just released the key cannot take it again past waiters
// that have yet to queue: with a minority of nodes down, waiters are still
// served in arrival order.
//
// Failures: with up to N − quorum nodes down, stopped or partitioned, locks
// are still granted (more slowly, since a silent node costs its timeout).
// With more down, Acquire fails at once with lock.ErrUnavailable wrapped in
// a *QuorumError, whose Nodes list each failed node (*NodeError, reachable
// with errors.As); it never waits out its context for a quorum that cannot
// form, and never grants without one.
//
// # What Redlock cannot promise
//
// Redlock's safety rests on timing: on bounded network delay, bounded
// process pauses, and clocks that run at about the same rate. A holder that
// is paused (GC, a stopped VM) past its validity wakes up believing it holds
// the lock while another process does; a node whose clock jumps forward
// expires a lock early; a node that restarts without its data forgets a
// lock it granted, and with one more such node a second majority can form.
// Martin Kleppmann's "How to do distributed locking" sets these out. The
// lease's Done channel and local deadline tell a holder when its lease ran
// out, but only once it runs again.
//
// Redlock therefore cannot give a safe fencing token: there is no single
// sequence that every grant passes through. Token returns the largest of
// the per-node tokens (each max(that node's clock in µs, its last token +
// 1)) among the granting majority. Tokens from overlapping majorities rise
// as long as the nodes' clocks roughly agree, which makes them useful for
// ordering and logs, but a resource that must never accept a stale writer
// needs a backend with a real sequence: etcdlock (the etcd revision) or
// pglock (a database sequence).
package redlock
