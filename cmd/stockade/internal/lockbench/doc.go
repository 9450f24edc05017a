// Package lockbench measures lock implementations side by side, one after
// another, on the same workloads: our lock/redislock and three common
// alternatives against the same Redis server, our lock/redlock and
// go-redsync/redsync against the same five Redis servers, and our
// lock/pglock and lock/etcdlock on servers of their own. It backs
// "stockade locks bench".
//
//	report, err := lockbench.Run(ctx, &lockbench.Options{
//		Addr:          "127.0.0.1:6379",
//		PostgresURL:   "postgres://bench@127.0.0.1:5432/bench", // optional, adds pglock
//		EtcdEndpoints: []string{"http://127.0.0.1:2379"},      // optional, adds etcdlock
//	})
//	if err != nil {
//		return err
//	}
//	report.WriteText(os.Stdout)
//
// # Implementations
//
//   - stockade: lock/redislock with default Options and a 10 s TTL. It waits
//     with Acquire bounded only by the run's context: a fair FIFO queue, the
//     release script hands the lock to the first waiter and wakes it by
//     pub/sub, or by the release's reply when the waiter shares the
//     releaser's Locker, as every goroutine of the bench does.
//   - redsync: github.com/go-redsync/redsync/v4 over a go-redis v9 pool, with
//     every option at its default: 8 s expiry, 32 tries, a random delay of
//     50–250 ms between tries. After the 32nd failed try LockContext gives
//     up, which counts as a failure.
//   - bsm: github.com/bsm/redislock with RetryStrategy LinearBackoff(50 ms)
//     and a context deadline (Options.BSMWait, 1 s: a request's budget, and
//     short enough that a give-up can happen inside a cell) as the bound of
//     each wait. A wait that reaches the deadline returns the context's
//     error (bsm returns ErrNotObtained only when its retry strategy runs
//     out) and counts as a failure.
//   - setnx: the hand-written loop: SET key token NX PX ttl; if the key is
//     taken, sleep a fixed 50 ms and try again, with no jitter and no bound
//     but the end of the run. Release is a Lua compare-and-DEL
//     (setnx_release.lua). It never gives up, so it has no failures.
//   - redlock: lock/redlock over the independent Redis servers of
//     Options.RedlockAddrs (a client each, with ContextTimeoutEnabled), with
//     default Options and a 10 s TTL: a grant needs a majority of the nodes,
//     and waiters queue fairly on every node, as with stockade.
//   - redsync5: redsync as above, over the same nodes as redlock (a go-redis
//     v9 pool each, its client configured as redlock's), with every option
//     at its default: each try asks every node, each bounded by 5% of the
//     8 s expiry, and succeeds on a majority. The two Redlock
//     implementations thus run on the same servers.
//   - pglock: lock/pglock on PostgreSQL session advisory locks, with
//     default Options and a 10 s TTL, on a pgx pool of its own with one
//     connection per goroutine and four to spare: every waiting and every
//     holding goroutine pins one. It waits in PostgreSQL's lock queue.
//   - etcdlock: lock/etcdlock on the etcd cluster of Options.EtcdEndpoints,
//     on a client of its own, with default Options and a 10 s TTL (etcd
//     leases count whole seconds). Waiters queue by the create revision of
//     their keys and are woken by a watch.
//
// The first four need only the Redis server at Options.Addr; redlock and
// redsync5 share the servers of Options.RedlockAddrs, and pglock and
// etcdlock need their own. By default every
// implementation whose server is given runs, in the order above. A server
// is checked before the first cell, and only if an implementation to run
// needs it.
//
// # Workloads
//
// A workload is a number of goroutines looping acquire → hold → release on a
// number of keys (goroutine i uses key i mod Keys) for Options.Duration.
// The standard three (Workloads) are: a, 16 goroutines on 16 keys with no
// hold, which measures the uncontended round trip; b, 64 goroutines on one
// key holding it 1 ms, a hot key; c, 8 goroutines on one key holding it 5 ms.
//
// A hold stands for the work of a critical section. On Linux it sleeps in a
// nanosleep system call rather than in time.Sleep: an idle Go process waits
// for its timers in whole milliseconds, so a 1 ms time.Sleep lasts longer
// the more events wake the process during it, and the implementation under
// test would lengthen its own holds by what it does while the key is held.
//
// # What is measured
//
// Per implementation and workload (a Result):
//
//   - ops/s: completed critical sections per second of the cell's wall time
//     (from the start to the moment the last goroutine stopped).
//   - utilization: for each key, the sum of hold times (acquire returned →
//     release started) divided by the wall time, averaged over the keys. With
//     one key it is the fraction of time the lock did useful work; 1 is the
//     ceiling.
//   - acquire wait: time from calling acquire to its successful return.
//   - hand-off: per key, the sections sorted by acquisition; for each one
//     whose acquire call had started before the previous holder began its
//     release (so it was waiting), the time from that release start to this
//     acquire's return. Acquisitions that found the key idle are not
//     hand-offs and are left out, so workload a has none; so are sections
//     taken again by the goroutine that had just released the key (barging).
//     The table shows hand-offs as a share of all sections.
//   - share: each goroutine's completed sections divided by the mean, as
//     min and max. 1×/1× is perfectly even; 0× means a goroutine starved.
//   - failures: acquisitions that gave up or failed while the run was still
//     going; the goroutine pauses 10 ms and carries on. Acquisitions cut
//     short by the end of the run are not failures.
//   - violations: each critical section runs an overlap detector (a per-key
//     counter of holders); entering a key somebody else is inside of is a
//     violation. It must be zero.
//
// Wall time includes Go's own scheduling: on a busy machine every number is
// noisy, and the comparison between implementations in one run is what
// means something. On a machine whose speed drifts, Options.Rounds runs
// every cell several times, the implementations taking turns within each
// workload, and reports each one's median round; failures and violations
// count every round.
//
// # Keys
//
// Every key of a run starts with "lockbench:" and 16 random hex digits,
// followed by the implementation, the workload and the round. Each cell's keys are
// deleted when the cell ends, and the run's prefix once more at the end: on
// Redis and on every Redlock node with SCAN + UNLINK, on etcd with a
// prefix delete. Nothing else in those databases is read, written or
// flushed. etcdlock keeps the etcd leases of released locks for reuse;
// they have no keys and etcd drops them when their TTL runs out. On
// PostgreSQL, pglock's advisory lock ids are hashed from the same prefixes
// and end with the sessions, which end when the cell closes its pool;
// the one thing that stays is pglock's token sequence
// (public.lock_token_seq), created on first use if it is missing, and
// shared with every other pglock user of the database.
package lockbench
