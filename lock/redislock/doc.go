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
// Each grant's token is one more than the last one on its key. A released
// lock's key keeps its last token for a minute; when the key has gone (a
// minute after its last release, or when a holder's lease ran out), the
// next token is the Redis server's time in microseconds. A key's grants
// are at least a microsecond apart, so a count never passes the clock, and
// tokens rise for as long as the Redis data lives and beyond, unless the
// server's clock steps backwards.
//
// # Failure modes
//
// A single Redis is a single point of failure: if it restarts without its
// data (or a replica without the latest writes is promoted), a lock can be
// granted twice. Redis persistence with fsync on every write, or a backend
// with consensus (etcd) or a database (pglock), closes that gap; fencing
// tokens still protect a resource that checks them only while tokens keep
// rising. When Redis cannot be reached, Acquire returns ErrUnavailable and
// a lease whose refreshes fail is declared lost at its deadline.
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
// The lock key holds "<owner id>:<token>", followed by ":q" while waiters
// may be queued, and ":<token>" for a minute after release: an uncontended
// acquire and release each run one script that reads and writes only the
// lock key.
// The scripts need Redis 6.2 or later (SET with GET and KEEPTTL).
package redislock
