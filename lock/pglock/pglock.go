package pglock

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

var (
	//go:embed try_acquire.sql
	tryAcquireSQL string
	//go:embed acquire.sql
	acquireSQL string
	//go:embed token.sql
	tokenSQL string
	//go:embed held.sql
	heldSQL string
	//go:embed release.sql
	releaseSQL string
	//go:embed release_if_held.sql
	releaseIfHeldSQL string
	//go:embed sequence.sql
	sequenceSQL string
	//go:embed session_name.sql
	sessionNameSQL string
)

// cleanupTimeout bounds the clean-up of a connection after a failed or
// cancelled acquisition or a lost lease, which runs even when the caller's
// context is done.
const cleanupTimeout = 5 * time.Second

// Options configures a Locker, and LockTx. A nil *Options means all defaults.
type Options struct {
	// Prefix is put before every key before it is hashed into an advisory
	// lock id (see LockID), e.g. "booking:". Lockers and LockTx calls that
	// should exclude each other must use the same prefix; applications that
	// share a database use different ones.
	// Default: "lock:".
	Prefix string

	// Schema holds the fencing-token sequence and the semaphore table. It
	// must exist.
	// Default: "public".
	Schema string

	// Sequence is the name of the sequence that fencing tokens are drawn
	// from. It is created with CREATE SEQUENCE IF NOT EXISTS when first
	// found missing.
	// Default: "lock_token_seq".
	Sequence string

	// Semaphores is the name of the table of semaphore entries (see
	// Semaphores in the package documentation). It is created with CREATE
	// TABLE IF NOT EXISTS when first found missing.
	// Default: "lock_semaphore".
	Semaphores string

	// CheckInterval is how often each held lease checks that its connection
	// is alive, with an empty query. A lease whose connection died (the
	// server restarted, the backend was terminated) is declared lost within
	// about this time. It is also the margin of the lease's
	// idle_session_timeout (see IdleTimeout), which these checks keep from
	// ending a live session.
	// Default: 1s.
	CheckInterval time.Duration

	// CheckTimeout bounds each check. A check that takes longer cuts the
	// connection, which ends the session and its lock, and the lease is
	// declared lost.
	// Default: 5s.
	CheckTimeout time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Prefix == "" {
		out.Prefix = "lock:"
	}
	if out.Schema == "" {
		out.Schema = "public"
	}
	if out.Sequence == "" {
		out.Sequence = "lock_token_seq"
	}
	if out.Semaphores == "" {
		out.Semaphores = "lock_semaphore"
	}
	if out.CheckInterval <= 0 {
		out.CheckInterval = time.Second
	}
	if out.CheckTimeout <= 0 {
		out.CheckTimeout = 5 * time.Second
	}
	return out
}

// IdleTimeout returns the idle_session_timeout that a Locker with opts sets
// on the session of a lease with the given TTL (from the grant, and again
// at each Refresh): max(ttl, CheckInterval) + CheckInterval, rounded up to
// whole milliseconds and at most PostgreSQL's limit, 2³¹-1 ms (about 24
// days). The server ends a session that has sent nothing for that long,
// which frees its lock without the holder's help; a live lease sends its
// check every CheckInterval, so its session is never idle for half as
// long.
func IdleTimeout(ttl time.Duration, opts *Options) time.Duration {
	o := opts.withDefaults()
	return time.Duration(o.idleTimeoutMS(ttl)) * time.Millisecond
}

// idleTimeoutMS is IdleTimeout in milliseconds.
func (o *Options) idleTimeoutMS(ttl time.Duration) int64 {
	// Milliseconds of two Durations add up without overflow.
	return min(ceilMS(max(ttl, o.CheckInterval))+ceilMS(o.CheckInterval), math.MaxInt32)
}

// ceilMS is d in whole milliseconds, rounded up.
func ceilMS(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// WaitSlice returns how long a waiter of a lease with the given TTL stays
// queued on the server at a time (lock_timeout) before it queues again:
// max(ttl, CheckInterval) - CheckInterval/2. A holder that stops (paused,
// frozen) keeps its lock until the server ends its idle session, at least
// max(ttl, CheckInterval) after the stop (see IdleTimeout); a waiter of the
// same process, stopped too, has left the queue by then, so the server
// grants the lock to a live waiter rather than to it.
func WaitSlice(ttl time.Duration, opts *Options) time.Duration {
	o := opts.withDefaults()
	return time.Duration(o.waitSliceMS(ttl)) * time.Millisecond
}

// waitSliceMS is WaitSlice in milliseconds, at least 1.
func (o *Options) waitSliceMS(ttl time.Duration) int64 {
	return max(min(ceilMS(max(ttl, o.CheckInterval))-ceilMS(o.CheckInterval)/2, math.MaxInt32), 1)
}

// idleTimeout is the idle_session_timeout value, in milliseconds, as the
// SQL files take it.
func (o *Options) idleTimeout(ttl time.Duration) string {
	return strconv.FormatInt(o.idleTimeoutMS(ttl), 10)
}

// sequence returns the quoted, schema-qualified name of the token sequence.
func (o *Options) sequence() string {
	return pgx.Identifier{o.Schema, o.Sequence}.Sanitize()
}

// LockID returns the advisory lock id that key maps to with opts: the first
// 8 bytes of the SHA-256 of Prefix+key, read as a big-endian int64. It is
// the argument of pg_advisory_lock(bigint); pg_locks shows the lock as
// classid = id>>32, objid = id&0xffffffff, objsubid = 1, which is how an
// operator finds the holder of a key.
//
// Two keys whose ids collide share one lock: that is safe (they exclude
// each other, never fail to), only less concurrent. The chance of any
// collision among n keys in use is about n²/2⁶⁵.
func LockID(key string, opts *Options) int64 {
	o := opts.withDefaults()
	return lockID(o.Prefix, key)
}

func lockID(prefix, key string) int64 {
	sum := sha256.Sum256([]byte(prefix + key))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// Locker is a lock.Locker on PostgreSQL session advisory locks, taken
// through a pgx connection pool. Each held lease, and each waiting Acquire,
// keeps one connection of the pool to itself. It is safe for concurrent use.
type Locker struct {
	pool     *pgxpool.Pool
	opts     Options
	seq      string
	sem      semaphoreSQL
	cleanups lease.Cleanups // of the connections of abandoned acquisitions
}

var (
	_ lock.Locker     = (*Locker)(nil)
	_ lock.RWLockers  = (*Locker)(nil)
	_ lock.Semaphores = (*Locker)(nil)
)

// New returns a Locker that takes its connections from pool. The pool must
// connect to PostgreSQL directly or through a session-pooling proxy, not a
// transaction-pooling one (see the package documentation), and be large
// enough for every lease held and every Acquire waiting at once.
func New(pool *pgxpool.Pool, opts *Options) *Locker {
	o := opts.withDefaults()
	return &Locker{pool: pool, opts: o, seq: o.sequence(), sem: newSemaphoreSQL(&o)}
}

// Close waits for the clean-ups that outlived their callers: connections
// of failed or abandoned acquisitions checked and given back to the pool,
// or discarded, each bounded by five seconds. It does not close the pool;
// close that after. Leases already granted stay valid.
func (l *Locker) Close() error {
	l.cleanups.Close()
	return nil
}

// Acquire implements lock.Locker. It waits in PostgreSQL's lock queue; ctx
// ending, or the WithWait bound passing, cancels the wait on the server.
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindLock, exclusive, true, opts)
}

// TryAcquire implements lock.Locker. It does not wait for the key, but it
// does wait (bounded by ctx) for a free connection from the pool.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindLock, exclusive, false, opts)
}

// acquire takes the advisory lock of key of kind (a lock, or a read-write
// lock) in mode m: the lease of a lock, or of either side of a read-write
// lock.
func (l *Locker) acquire(ctx context.Context, key string, kind lock.KeyKind, m *lockMode, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	b := &backend{locker: l, key: key, kind: kind, id: l.advisoryID(kind, key), mode: m}
	token, granted, contended, err := b.take(ctx, wait, a.Config.TTL)
	a.Contended = contended
	if err != nil || !granted {
		return nil, a.Refuse(ctx, err)
	}
	// The server keeps no deadline on an advisory lock, so the local one
	// runs from the grant; the lease ends it, and watch frees the lock.
	// The session's idle timeout, set with the grant, frees it if this
	// process stops talking to the server.
	b.lease = lease.New(key, token, time.Now().Add(a.Config.TTL), a.Config, b)
	go b.watch()
	a.Granted(token)
	return b.lease, nil
}

// take pins a pool connection and takes the lock on it in b.mode: at once
// if it is free, else (with wait) by queueing on the server, the session
// named as a waiter (see Inspecting in the package documentation). With the grant, it draws a token
// (exclusive mode only), sets the session's idle_session_timeout for ttl
// and names it as the holder. On success the connection stays pinned in
// b.conn. A failure leaves nothing held: the connection goes back to the
// pool only once it is known to hold no lock on the key (and has its
// default timeout and name back), and is discarded otherwise.
func (b *backend) take(ctx context.Context, wait bool, ttl time.Duration) (token uint64, granted, contended bool, err error) {
	seq, idle := b.locker.seq, b.locker.opts.idleTimeout(ttl)
	slice := strconv.FormatInt(b.locker.opts.waitSliceMS(ttl), 10) // see WaitSlice
	for attempt := 0; ; attempt++ {
		var conn *pgxpool.Conn
		if conn, err = b.locker.pool.Acquire(ctx); err != nil {
			return 0, false, false, err
		}
		var (
			taken bool
			tok   *int64
		)
		// The last columns, the timeout, the name and the lock_timeout as
		// set, are not needed.
		err = conn.QueryRow(ctx, b.mode.try, append(b.args(seq, idle), wait, slice)...).Scan(&taken, &tok, nil, nil, nil)
		switch {
		case err == nil && taken:
		case err == nil && !wait: // held, or waiters queued
			conn.Release() // a refused try holds nothing and named nothing
			return 0, false, true, nil
		case err == nil:
			contended = true
			// Queue for the lock, again each time a turn in the server's
			// queue runs out (see WaitSlice).
			for {
				var left bool
				if err, left = b.wait(ctx, conn, seq, idle, &tok); left {
					return 0, false, true, err
				}
				if !isLockTimeout(err) || ctx.Err() != nil {
					break
				}
			}
			if err != nil || ctx.Err() != nil {
				// Cancelled, or the server failed: the wait may still have
				// been granted just as it ended. A server that does not
				// answer must not hold the caller for cleanupTimeout.
				b.locker.cleanups.Run(func() { giveBack(conn, b.id) })
				return 0, false, true, err
			}
		case conn.Conn().IsClosed() && ctx.Err() == nil && attempt == 0:
			// A connection the server closed while it sat in the pool (a
			// restart): its session, and anything it took, is gone. Try
			// once more on a fresh one.
			discard(conn)
			continue
		default:
			b.locker.cleanups.Run(func() { giveBack(conn, b.id) })
			return 0, false, false, err
		}
		if tok == nil { // granted, but the sequence is missing
			if tok, err = b.drawAfterGrant(ctx, conn); err != nil {
				b.locker.cleanups.Run(func() { giveBack(conn, b.id) })
				return 0, false, contended, err
			}
		}
		b.conn = conn
		return uint64(*tok), true, contended, nil
	}
}

// drawAfterGrant creates the token sequence, draws a token and names the
// session's holder with it: what the grant's statement could not do when
// the sequence did not exist yet.
func (b *backend) drawAfterGrant(ctx context.Context, conn *pgxpool.Conn) (*int64, error) {
	tok, err := createAndDraw(ctx, conn.Conn(), &b.locker.opts)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, sessionNameSQL, string(b.kind), *tok, sessionKey(b.key)); err != nil {
		return nil, fmt.Errorf("name session: %w", err)
	}
	return tok, nil
}

// execQuerier is what creating the sequence and drawing a token need: a
// connection or a transaction.
type execQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// createAndDraw creates the token sequence (a concurrent creator is not an
// error) and draws a token from it.
func createAndDraw(ctx context.Context, db execQuerier, o *Options) (*int64, error) {
	if err := createSequence(ctx, db, o); err != nil {
		return nil, err
	}
	return draw(ctx, db, o)
}

func createSequence(ctx context.Context, db execQuerier, o *Options) error {
	_, err := db.Exec(ctx, strings.ReplaceAll(sequenceSQL, "__SEQUENCE__", o.sequence()))
	var pgErr *pgconn.PgError
	// Two sessions creating it at once: the second fails on the catalog's
	// unique index (23505) or finds it already there (42P07).
	if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create token sequence %s: %w", o.sequence(), err)
	}
	return nil
}

func draw(ctx context.Context, db execQuerier, o *Options) (*int64, error) {
	var tok *int64
	if err := db.QueryRow(ctx, tokenSQL, o.sequence()).Scan(&tok); err != nil {
		return nil, fmt.Errorf("draw token: %w", err)
	}
	if tok == nil {
		return nil, fmt.Errorf("draw token: sequence %s does not exist", o.sequence())
	}
	return tok, nil
}

// abandonWait is how long a waiter whose context ended waits for the
// server to end its wait in the lock queue. A server that does not answer
// the cancel request must not hold the caller: past abandonWait the caller
// leaves, and the wait's cancellation (see queryCancellable) and the
// connection's clean-up go on in the background.
const abandonWait = 300 * time.Millisecond

// wait queues for the lock on conn and scans the token into tok. It
// reports left when ctx ended and the wait did not end within abandonWait:
// the caller must then leave conn, whose clean-up has been taken over, and
// return err, ctx's error.
func (b *backend) wait(ctx context.Context, conn *pgxpool.Conn, seq, idle string, tok **int64) (err error, left bool) {
	var (
		got  *int64
		qerr error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		qerr = queryCancellable(ctx, conn, conn.Conn().PgConn(), b.mode.wait, b.args(seq, idle), &got, nil, nil)
	}()
	select {
	case <-done:
		*tok = got
		return qerr, false
	case <-ctx.Done():
	}
	t := time.NewTimer(abandonWait)
	defer t.Stop()
	select {
	case <-done:
		*tok = got
		return qerr, false
	case <-t.C:
	}
	// The lock may yet be granted just as the wait ends: giveBack
	// releases it.
	b.locker.cleanups.Go(func() {
		<-done
		giveBack(conn, b.id)
	})
	return ctx.Err(), true
}

// isLockTimeout reports whether err is a wait in the server's lock queue
// that lock_timeout ended (SQLSTATE 55P03).
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// giveBack returns conn to the pool once it is known to hold no lock on id,
// releasing the lock (in either mode) if it does and resetting
// idle_session_timeout and application_name; if that cannot be done, it
// discards the connection, which ends the session and so frees whatever it
// held.
func giveBack(conn *pgxpool.Conn, id int64) {
	if !conn.Conn().IsClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if _, err := conn.Exec(ctx, releaseIfHeldSQL, id); err == nil {
			conn.Release()
			return
		}
	}
	discard(conn)
}

// discard takes conn out of the pool and closes it. The server ends the
// session, releasing its advisory locks, as soon as it sees the connection
// closed.
func discard(conn *pgxpool.Conn) {
	c := conn.Hijack()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	c.Close(ctx) // an error means it was broken already: closed either way
}
