// Package redislock is a lock.Locker on a single Redis server, a Redis
// Cluster or a Sentinel-managed primary, through a go-redis client.
//
//	locker := redislock.New(redis.NewClient(&redis.Options{Addr: "localhost:6379"}), nil)
//	defer locker.Close()
//	lease, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(5*time.Second), lock.WithAutoRenew())
//
// # How it works
//
// Acquire, release and refresh are Lua scripts (the .lua files in the
// module's internal/redisq package), run atomically on the server by hash. A
// lease is owned by 128 random bits that only its holder knows, so nobody
// else can release or refresh it, and a retried Release cannot free a newer
// holder. A free key with nobody queued costs one round trip to acquire and
// one to release.
//
// The scripts that a Locker's goroutines run at the same time share round
// trips: at most eight batches are on the wire at once, and the calls that
// arrive meanwhile wait their turn. When one returns, its caller hands its
// place to the first of them, which sends them all in one pipeline. A lone
// caller's call goes out at once. Under load that saves the client and the
// server most of their per-call work; a call whose context ends while it
// waits its turn is never sent.
//
// Waiters queue in Redis in arrival order (a sorted set scored by the
// server's clock). Release hands the lock straight to the first live
// waiter inside the release script and publishes that waiter's id and new
// token on the key's channel. The waiter, subscribed through one shared
// pub/sub connection per Locker, holds the lock as soon as the message
// arrives. A waiter of the releaser's own Locker is woken by the release's
// reply instead, if that comes first, and the releasing goroutine yields
// so that the new holder runs at once. The hand-off holds the lock for at
// most WaiterTimeout, so that a waiter that died unseen cannot hold up the
// queue for a whole TTL; a holder still holding it halfway through is
// extended to its own TTL in the background. A key's channel stays
// subscribed for 10 s after its last waiter leaves, so a key contended in
// bursts does not subscribe each time, and a waiter that finds its channel
// subscribed queues in its first call. No waiter polls, and a releasing
// holder cannot take the lock back ahead of the queue. Waiters also
// re-check on a timer (when the holder's lease would expire, and every
// WaiterTimeout/3 to keep their place), so a lost notification or a holder
// that died costs time, never a deadlock.
//
// Close the Locker before its client: Close waits for the notification
// connection's goroutines and for the background clean-ups of failed
// calls.
//
// # Fencing tokens
//
// Each grant's token is the Redis server's time in microseconds, or one
// more than the key's last token if that is not smaller. A released lock's
// key keeps its last token for a minute; a key's grants are at least a
// microsecond apart, so tokens follow the clock, and rise for as long as
// the Redis data lives and beyond, unless the server's clock steps
// backwards.
//
// Tokens come from the clock rather than a count so that they survive a
// failover. Redis replicates asynchronously: a replica promoted by
// Sentinel (or by a Redis Cluster) may lack the latest grants, and hand a
// key whose grant it never saw to a new holder while the lost lease's
// holder still believes it holds it. A count would continue from the last
// token the replica saw, and give the new holder the lost lease's own
// token, which a resource that takes tokens at least as large as its fence
// cannot tell apart. The clock of the new primary has moved on by the
// failover's length, so the new holder's token is the larger, as long as
// the servers' clocks agree more closely than that; the resource then
// refuses the stale holder's writes once the new holder has written
// (tested with a failover that loses a grant).
//
// # Failure modes
//
// A single Redis is a single point of failure: if it restarts without its
// data (or a replica without the latest writes is promoted), a lock can be
// granted twice. The lease lost that way learns of it at its next Refresh
// (or renewal), which finds another holder or none, and ends with
// lock.ErrLost; until then only its fencing token, smaller than the new
// holder's, keeps its writes out of a resource that checks tokens. Redis
// persistence with fsync on every write, or a backend with consensus (etcd)
// or a database (pglock), closes that gap; fencing tokens still protect a
// resource that checks them only while tokens keep rising. When Redis
// cannot be reached, Acquire returns ErrUnavailable and a lease whose
// refreshes fail is declared lost at its deadline.
//
// A Redis that stops answering (paused, overloaded) holds no caller past
// its context: Acquire returns when ctx ends, whatever is on the wire, and
// the clean-up of the abandoned acquisition goes on in the background.
// Every acquisition carries its caller's deadline, and the server ignores
// one that reaches it later, so that a paused server, once resumed, grants
// nothing to callers that have left. The client's clock and the server's
// must agree as closely as they must for TTLs. Give the client
// ContextTimeoutEnabled, or its own read timeout bounds each call instead
// of ctx.
//
// # Keys
//
// Keys are stored as Prefix + "{" + key + "}" plus ":q" and ":w" for the
// queue and its waiters, all with one hash tag so they share a Redis
// Cluster slot; hand-offs are published on the channel with suffix ":c".
// A key that starts with '}' would leave the hash tag empty, so it, and a
// key that starts with '\', is stored with a '\' in front (tested on a
// real three-master cluster). A Prefix should hold no braces: its own
// would take the place of the key's hash tag.
// The lock key holds "<owner id>:<token>", followed by ":q" while waiters
// may be queued, and ":<token>" for a minute after release: an uncontended
// acquire and release each run one script that reads and writes only the
// lock key.
// The scripts need Redis 6.2 or later (SET with GET and KEEPTTL).
//
// # Semaphores and read-write locks
//
// A Locker is also lock.Semaphores and lock.RWLockers, on keys apart from
// its locks'. Both are one mechanism: a key with a limit of permits, its
// holders, and one queue of waiters in arrival order whose first waiter
// alone may be granted, when its permits fit. A read-write lock has
// lock.MaxPermits permits: a reader takes one and a writer all of them, so
// a writer excludes everyone and a queued writer holds back the readers
// that come after it.
//
//	permit, err := locker.AcquirePermits(ctx, "exports", 4, 1) // one of 4
//	read, err := locker.AcquireShared(ctx, "catalog")
//
// Acquire, release and refresh are Lua scripts (the weighted_*.lua files),
// run atomically on the server. A key is three Redis keys: a hash of its
// limit, the permits held, the arrival counter and one field per waiter
// (its permits, TTL and when it was last seen alive); the holders, a
// sorted set of "<owner id>:<permits>" scored by when their leases end;
// and the queue, a sorted set of waiters scored by the arrival number the
// server gave them. A free key with nobody queued costs one round trip to
// acquire and one to release, and the calls of a Locker's goroutines share
// pipelines, as the locks' do.
//
// A release, and a waiter that gives up, grant in the script the waiters
// at the front of the queue that then fit, and publish each grant on the
// key's channel; a waiter, subscribed through the Locker's one pub/sub
// connection, holds its permits as soon as the message (or, within the
// releaser's Locker, the reply) arrives. As with locks, a hand-off holds
// the permits for at most WaiterTimeout until the new holder extends them
// to its TTL, waiters re-announce themselves every WaiterTimeout/3 and
// re-check when the first holder's lease would end, and a waiter that
// stopped announcing itself is dropped when it reaches the front: a
// waiter that died holds up the queue for about WaiterTimeout, never for
// a TTL. The permits of a holder that vanished come back when its lease
// ends: holders whose lease ended are counted until permits do not fit,
// and then dropped.
//
// A permit carries no fencing token (Token returns 0): a semaphore has up
// to its limit of holders at once, and no single number can tell a
// resource which older permits have ended and which are still current. A
// write that must never come from a stale holder takes a lock or an
// exclusive lease. An exclusive lease's token is the Redis server's time
// in microseconds, or one more than the key's last token if that is not
// smaller: tokens rise, per key, unless the server's clock steps back.
// Shared leases carry none.
//
// The keys of a semaphore are Prefix + "{" + key + "}:sem" (the hash) and
// that plus ":h" (holders) and ":q" (queue); grants are published on the
// channel with suffix ":c". A read-write lock's keys end in ":rw" in place
// of ":sem". All of them share the key's hash tag, so a key's scripts run
// on one Redis Cluster slot, and all expire together, some time after the
// last lease or waiter would; the hash keeps the last token until then.
// A single Redis that loses its data can grant permits twice, as it can
// grant a lock twice (see Failure modes).
//
// # Inspecting
//
// A Locker is also a lock.Inspector and a lock.Breaker. Inspect walks the
// Redis keys under Prefix whose key starts with the given prefix with
// SCAN (never KEYS), on every master of a Redis Cluster, and reads each
// key's state in every kind with one read-only script: its holders, with
// their fencing tokens (for a lock or an exclusive lease), permits,
// sharing and when their leases end, and its live waiters, first in line
// first. Holders and waiters are named by handles, the first 16 hex
// digits of the SHA-1 of their owner ids, never by the ids, which prove
// ownership; when a lease was granted is not kept. Leases that ended and
// waiters that stopped announcing themselves are not shown. InspectKey
// reads one key by its names, without a scan.
//
// Break frees a stuck key in every kind, one script per kind: it drops the
// holders, hands the key to the waiters at the front as a release does
// (they are woken by the message, not by a timer), and keeps the key's
// last token, so the next holder's is larger than every broken one's. It
// publishes each broken holder's handle on the channel Prefix + "broken",
// which every Locker watches from its first grant; the holder's lease then
// ends with lock.ErrLost. A holder whose Locker misses the message (it was
// not yet subscribed, or its connection was down) learns of the break at
// its next Refresh or Release, or when its TTL runs out.
//
// Measured on a shared 2-core machine (go test -run '^$' -bench
// 'Semaphore|RWLock' -benchtime 2s ./redislock/): a permit of a semaphore
// shared by 16 goroutines costs about 1.3 times the CPU, client and
// server together, of a lock on a key per goroutine, whose scripts touch
// one Redis key rather than three. 16 readers that each hold a read-write
// lock for 1 ms, and a writer that pauses between writes, read about 9
// times as often as the same 17 callers taking turns on a lock; a writer
// that always waits bounds that ratio at 8.5, as every read phase is then
// followed by a write, and about 5 is measured.
package redislock
