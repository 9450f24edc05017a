// Package pglock is a lock.Locker on PostgreSQL advisory locks, through a
// pgx connection pool, plus LockTx, which locks a key for the rest of a
// transaction. Its Locker is also lock.RWLockers, on shared advisory
// locks, and lock.Semaphores, on a table; and a lock.Inspector and a
// lock.Breaker (see Inspecting).
//
//	pool, err := pgxpool.New(ctx, "postgres://app@db/app") // sized for the leases held at once
//	locker := pglock.New(pool, nil)
//	lease, err := locker.Acquire(ctx, "sku:42", lock.WithTTL(10*time.Second), lock.WithAutoRenew())
//	if err != nil {
//		return err
//	}
//	defer lease.Release(context.WithoutCancel(ctx))
//	// … act on sku:42, passing lease.Token() to the resource; stop if lease.Done() closes …
//
// # How it works
//
// A key maps to a bigint advisory lock id (see LockID). Acquire takes a
// connection from the pool and pins it: pg_try_advisory_lock on it, and if
// the key is held, pg_advisory_lock, which waits in PostgreSQL's own lock
// queue. The server grants the lock to its waiters in arrival order and
// refuses pg_try_advisory_lock while anyone is queued, so nobody barges in
// and nobody starves; no client polls. The connection stays pinned to the
// lease, its session holding the lock, until Release unlocks it and gives
// it back to the pool. The SQL is in the package's .sql files.
//
// When the context of a waiting Acquire ends (or its WithWait bound
// passes), the wait is cancelled on the server with a cancel request, as
// psql's Ctrl-C does: the backend leaves the lock queue at once, and the
// connection goes back to the pool, still open, once it is known to hold no
// lock on the key (a grant that raced with the cancellation is released).
// pgx's default reaction to a done context, cutting the connection, would
// leave the backend queued until it was granted the lock. A server that
// does not answer the cancel request (silent, partitioned) holds the caller
// for at most 300 ms more: Acquire then returns, and the cancellation and
// the connection's clean-up go on in the background, where Close waits for
// them.
//
// # Leases and their TTL
//
// PostgreSQL keeps an advisory lock for as long as the session that took it
// and has no expiry of its own. A lease is therefore held while its
// connection lives, and no longer than a local deadline: the TTL from the
// grant, moved by Refresh and by the WithAutoRenew watchdog. Refresh checks
// on the server (in pg_locks) that the session still holds the lock.
//
// When the deadline passes without a refresh, the lease is declared lost
// (Done closes, Err is lock.ErrLost) and then the Locker releases the lock
// on the server itself, so that a holder that stopped renewing frees its
// key after its TTL, as with the other backends. Done is closed before the
// next holder can be granted the key. (When the connection dies instead,
// the server frees the lock at once and the holder learns it at its next
// check: that gap is what fencing tokens are for.)
//
// A holder that cannot release anything — its process paused (SIGSTOP, a
// frozen VM or container, a long stall), hung, or cut off from the server
// by a partition — loses its key to the server instead. With the grant,
// in the same statement, and again at every Refresh, the Locker sets the
// session's idle_session_timeout to IdleTimeout(TTL):
//
//	max(TTL, CheckInterval) + CheckInterval   // TTL + 1s with the default CheckInterval and TTL ≥ 1s
//
// PostgreSQL ends a session that has waited that long for its client's
// next statement, and the lock goes with the session. So the key of a
// holder that went silent is free at most IdleTimeout after its last
// statement, which is at most IdleTimeout after the pause or the cut,
// without the holder: its TTL plus a margin of one CheckInterval. The
// server's timer counts milliseconds, and the backend exits as soon as it
// fires, at once granting the key to the next waiter. The timer starts when
// a statement ends, so the server frees the key no sooner than about a
// CheckInterval after the lease's own deadline: a holder that still runs
// has closed Done by then. A live lease is never cut: its check every
// CheckInterval (and its refresh every TTL/3 with WithAutoRenew) keeps its
// session from being idle for even half of IdleTimeout. A paused holder
// learns of the loss when it runs again (its deadline has passed, or its
// connection is closed: the server's FATAL 57P05); what it does before it
// looks is what fencing tokens are for.
//
// The process's waiters stop with it, and a waiter is a statement in the
// server's lock queue: granted the lock, a stopped waiter's session would
// keep it for a whole IdleTimeout in turn, and a live waiter queued
// behind a stopped process's four would wait five of them. So a waiter
// stays queued for WaitSlice(TTL) at a time,
//
//	max(TTL, CheckInterval) - CheckInterval/2   // 9.5s with the defaults
//
// (lock_timeout, on the server's clock), and queues again, on the same
// session, while its caller still waits. A stopped waiter cannot queue
// again: its turn has run out before the stopped holder's session ends, at
// least max(TTL, CheckInterval) after the stop, and the server grants the
// key to a live waiter. The price is the order of long waits: a waiter
// that has waited a whole slice queues again behind those that came after
// it, so first come, first served holds for waits shorter than the slice.
//
// For the life of a lease this timeout replaces whatever
// idle_session_timeout the session had (from postgresql.conf, ALTER ROLE
// or DATABASE … SET, or the connection string). Release resets it in the
// statement that unlocks, and so does the clean-up of a lost lease or a
// cancelled wait, before the connection goes back to the pool; a
// connection that cannot be reset is closed. PostgreSQL before 14 has no
// idle_session_timeout: the Locker finds the setting missing and sets
// nothing, and the bound does not hold. A paused holder then keeps its key
// for the whole pause (its kernel keeps the connection alive), and a
// partitioned one until the server's TCP keepalives give up on the
// connection (see Failure modes).
//
// Each held lease also checks its connection every Options.CheckInterval
// with an empty query. When the connection has died — the server
// restarted, an operator ran pg_terminate_backend, the network cut it —
// the session and its lock are gone, and the lease is declared lost within
// about that interval, with the pgx error (say a *pgconn.PgError with code
// 57P01) in the Lost event. A connection that broke, or whose unlock
// failed, is closed and taken out of the pool, never returned holding a
// lock. Closing it ends the session, which frees its locks.
//
// # Fencing tokens
//
// Tokens are drawn with nextval from one sequence, on the pinned
// connection right after the lock is granted. A sequence only goes up, so
// each holder of a key gets a larger token than the holders before it,
// across processes and across server restarts. nextval is WAL-logged, and
// a lease's token reaches the client only after its statement committed,
// so with synchronous_commit on (the default) a crash cannot hand it out
// again.
// One sequence serves every key, so nothing is kept per key. It is created
// on first use; to create it up front, or with a role that may not create
// objects, run (with the names from Options):
//
//	CREATE SEQUENCE IF NOT EXISTS public.lock_token_seq AS bigint MINVALUE 1 NO CYCLE CACHE 1;
//	GRANT USAGE ON SEQUENCE public.lock_token_seq TO app; -- nextval needs USAGE or UPDATE
//
// Keep CACHE 1: with a larger cache each session hands out its own block of
// values, and tokens would no longer rise across sessions.
//
// # Transactions
//
// LockTx takes a key with pg_advisory_xact_lock for the rest of a
// transaction, released at commit or rollback, and returns a token from
// the same sequence. It is the tool for writes to the same database: they
// are serialized with no lease to keep alive and no connection pinned
// beyond the transaction. LockTx and a Locker with the same Prefix exclude
// each other on the same key.
//
// # Read-write locks
//
// A read-write lock is a session advisory lock too, on an id of its own
// (see RWLockID: the SHA-256 of "rw\x00"+Prefix+key), so that the
// read-write lock on a key and the lock on the same key are apart. A
// reader takes it with pg_advisory_lock_shared (TryAcquireShared with
// pg_try_advisory_lock_shared), a writer with pg_advisory_lock (and
// pg_try_advisory_lock), each on a pinned connection, and everything said
// above of a lock's lease holds for both: the TTL and idle_session_timeout,
// the check every CheckInterval, Refresh (which looks in pg_locks for the
// lock in its mode, ShareLock or ExclusiveLock), Release, cancellation,
// Close. A writer's lease carries a fencing token from the sequence; a
// reader's has none (Token returns 0).
//
// Fairness is PostgreSQL's own. Its lock manager keeps one queue per lock
// in arrival order, and grants a new request only if it conflicts neither
// with the holders nor with any request already waiting; a release wakes
// the waiters from the front for as long as each conflicts with nobody
// granted or waiting ahead of it. So readers that come after a waiting
// writer wait for it, pg_try_advisory_lock_shared is refused while a
// writer waits, and a writer waits only for those ahead of it: neither side
// starves. (locktest.RunRWLockers checks this against the server.)
//
// # Semaphores
//
// Advisory locks cannot count, so permits are rows of a table, created
// with CREATE TABLE IF NOT EXISTS on first use (Options.Schema and
// Options.Semaphores; see semaphore_table.sql). Each holder or waiter of
// a key has an entry: the key, an arrival number from a bigserial, the
// permits n it asks for, the key's limit, random owner bits that only its
// caller knows, and expires_at. Nothing else is stored: an entry holds its
// permits exactly when the permits of the live entries that arrived
// before it, plus its own, fit the limit, evaluated in SQL at each check.
// That is first come, first served, and a caller of many permits first in
// line holds back the callers of one behind it. To create the table up
// front, or for a role that may not create objects, run
// semaphore_table.sql with the table's name in it, and grant SELECT,
// INSERT, UPDATE and DELETE on it and USAGE on its arrival sequence.
//
// Every statement on a key runs in a batch whose implicit transaction
// first takes a transaction-level advisory lock on the key (in a
// namespace of its own), so statements on a key run one at a time and
// arrival order is the order in which entries are seen. Every statement
// also deletes the key's expired entries. A holder's entry expires at its
// TTL (Refresh and WithAutoRenew extend it); a key's limit is that of its
// live entries, and a call with another gets lock.ErrInvalid. A held
// lease pins no connection: it is a row. Its local deadline runs from
// before the statement that saw the grant, so it ends before the entry
// expires on the server.
//
// A waiter waits on a pool connection of its own, pinned while it waits,
// that LISTENs on the key's channel (lock_semaphore_ and the hex of the
// key's id). A statement that deletes entries (a Release, a waiter giving
// up, an expiry found) NOTIFYs the channel when entries arrived after
// them; the waiters then check. A waiter also checks every CheckInterval,
// and when the first entry ahead of it expires, so that it never depends
// on a notification alone: a vanished holder's permits come back when its
// entry expires on the server. Each check keeps the waiter's entry alive
// for 3 CheckIntervals more: the entry of a waiter that died stops holding
// back those behind it within that time. A waiter that stalled longer
// finds its entry gone and queues again, at the back. When ctx ends (or
// the WithWait bound passes) the waiter deletes its entry, which gives
// back a grant that raced with the cancellation and wakes those behind.
// Release deletes only the caller's entry (by its arrival and owner bits),
// returns lock.ErrLost if it had expired, and is safe to retry.
//
// A permit has no fencing token (Token returns 0): up to limit holders
// hold at once, and no single rising number could tell a resource which
// of them are current. Fence writes with a lock or a writer's lease.
//
// # Inspecting
//
// The Locker is a lock.Inspector and a lock.Breaker. The server knows an
// advisory lock by its id only, so each pinned session says what it holds
// or waits for in its application_name, which pg_stat_activity shows to
// every role:
//
//	lock:<kind>:<token>:<key>   // lock:lock:1042:sku:42, lock:rwlock:0:sku:42
//
// with kind lock or rwlock, the token 0 for a waiter and a reader, and
// the key without Prefix, '%' and its bytes other than printable ASCII
// escaped as %XX. The statement that grants the lock sets the name, as
// does the try that comes before a wait, so naming takes no round trip of
// its own; the statement that unlocks, or the clean-up of a cancelled wait
// or a lost lease, resets it to the connection's own before the connection
// goes back to the pool.
//
// Inspect reads pg_locks joined with pg_stat_activity: the advisory locks
// of the current database that sessions named so hold or wait for, with
// every session on them (a LockTx holder shows as a holder without a
// token). Holders and waiters are named by their backend's pid, the
// waiters in the order their waits began. A holder's AcquiredAt and
// ExpiresAt are zero: the server keeps neither, and the TTL is the
// client's. pg_stat_activity keeps the first 63 bytes of a name, so a
// longer one shows its key cut short, and cannot be told from a key of
// another Prefix that starts alike; InspectKey finds a key exactly,
// whatever its length, by its ids (LockID and RWLockID). Semaphores are
// read from their table: holders by the grant rule, with their entries'
// expires_at, and holders and waiters named by their arrival numbers.
//
// Break terminates the sessions that hold the key's lock and read-write
// lock, as pg_terminate_backend does, which takes the holders' role or
// pg_signal_backend: the server frees their locks and grants them to the
// waiters, and each holder's lease is lost within CheckInterval. A session
// that holds the key with LockTx, or any other client's, ends too. Break
// also deletes the entries that hold the key's permits and wakes its
// waiters; a holder of permits learns of it at its next Refresh or
// Release, or when its TTL passes. Tokens come from one sequence, so the
// next holder's is larger than any broken one's.
//
// # Pool size and proxies
//
// Every held lease of a lock or a read-write lock pins one connection of
// the pool, and so does every Acquire (AcquireShared, AcquireExclusive,
// AcquirePermits) while it waits; AcquireAll on n keys pins n. A held
// semaphore lease pins none. An Acquire that finds
// the pool exhausted waits for a connection, within its context and WithWait
// bound, and so does TryAcquire. Size the pool (pgxpool's MaxConns, by
// default the larger of 4 and the number of CPUs) for the leases held and
// waited for at once, plus what the application needs, and the server's
// max_connections for every process's pool. Release leases before closing
// the pool: Close waits for pinned connections.
//
// Session advisory locks belong to one server connection. A connection
// proxy in transaction-pooling mode (PgBouncer's pool_mode=transaction, and
// most "serverless" poolers) hands that server connection to other clients
// between statements, so the Locker does not work through one: use a direct
// connection or session pooling. LockTx, whose lock lives inside one
// transaction, works through either.
//
// # Keys and collisions
//
// The lock id of a key is the first 8 bytes of the SHA-256 of Prefix+key,
// as a signed big-endian integer. Advisory lock ids are shared by everything
// that uses advisory locks in the database, so applications use a Prefix of
// their own. Two keys whose ids collide share one lock: that is safe (they
// exclude each other when they need not, never the reverse), only less
// concurrent. Among n keys in use at once, a collision has a chance of about
// n²/2⁶⁵ — for a million keys, about one in 37 million. To see who holds a
// key (InspectKey does this; see Inspecting):
//
//	SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
//	  AND classid = (id >> 32) & 4294967295 AND objid = id & 4294967295 AND objsubid = 1;
//
// # Failure modes
//
//   - Server restart or crash: every session ends and every lock is freed.
//     Holders learn it within CheckInterval (or at their next Refresh) and
//     get lock.ErrLost; tokens keep rising after the restart. Until then
//     a holder may still see Done open while a waiter whose session
//     outlived the holder's by a moment is granted the key: for up to
//     about CheckInterval two clients believe they hold it, and only the
//     fencing token (the new holder's is larger) tells their writes apart.
//     The lock-history tests in lock/internal/lockhistory observe
//     exactly this and allow for it.
//   - A failover to a replica: advisory locks are not replicated, so they
//     are gone, and the holders' connections to the old primary die. With
//     asynchronous replication the last nextval calls may be lost too, and
//     tokens could repeat: fence resources outside this database only with
//     synchronous replication.
//   - A holder paused or hung: the server ends its idle session after
//     IdleTimeout(TTL) and frees the key (PostgreSQL 14 and later; see
//     Leases and their TTL). The holder, once it runs again, finds its
//     lease lost.
//   - Network partition: the holder's deadline passes, or its check times
//     out (CheckTimeout) and it cuts the connection: either way it declares
//     the lease lost. The server, hearing nothing from the session, ends it
//     after IdleTimeout(TTL) and frees the lock, no sooner than about a
//     CheckInterval after the lease's deadline, so another holder is never
//     admitted early. Before PostgreSQL 14 the server frees the lock only
//     when it notices the connection is dead, which on an idle session
//     takes TCP keepalives: set tcp_keepalives_idle (and _interval, _count)
//     on the server or in the connection string, or the lock can outlive
//     its holder by hours.
//   - The server is unreachable: Acquire and TryAcquire return
//     lock.ErrUnavailable wrapping pgx's error (a *pgconn.ConnectError, a
//     *pgconn.PgError…), and nothing is held.
//   - An operator's pg_terminate_backend ends a holder's session: its
//     lease is lost. (The server's own idle_session_timeout does not apply
//     to a held lease's session, which has IdleTimeout's.)
//
// As with every lock, a holder that pauses past its lease's end can still
// act as if it held it; only a resource that checks the fencing token is
// safe from it. Writes to the same database under LockTx are the exception:
// the lock and the writes commit together.
package pglock
