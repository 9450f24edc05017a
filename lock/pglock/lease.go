package pglock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

// backend is one lease's pinned connection, whose session holds the
// advisory lock; it implements lease.Backend. Every use of the connection
// holds mu: Refresh, Release, the health check and the clean-up after a
// loss take turns.
type backend struct {
	locker *Locker
	key    string
	kind   lock.KeyKind // lock.KindLock or lock.KindRWLock
	id     int64
	mode   *lockMode
	lease  *lease.Lease // set before watch starts

	mu   sync.Mutex
	conn *pgxpool.Conn // nil once given back to the pool or discarded
}

// lockMode is how a lease's session holds its advisory lock: exclusively
// (a lock, or a read-write lock's writer), with a fencing token, or shared
// (a read-write lock's reader), without one.
type lockMode struct {
	name   string // the mode as pg_locks shows it
	try    string // SQL: take the lock if it is free and nobody waits
	wait   string // SQL: queue for the lock
	unlock string // SQL: release it
	token  bool   // the grant draws a fencing token
}

var (
	exclusive = &lockMode{name: "ExclusiveLock", try: tryAcquireSQL, wait: acquireSQL, unlock: releaseSQL, token: true}
	shared    = &lockMode{name: "ShareLock", try: tryAcquireSharedSQL, wait: acquireSharedSQL, unlock: releaseSharedSQL}
)

// args are the arguments of b.mode.wait, and, followed by whether a
// refusal will wait and the wait's turn in the queue (see WaitSlice), of
// b.mode.try: the lock id, the token sequence (if the
// mode draws tokens), the idle_session_timeout, and the kind and the key
// that the session's application_name shows (see sessionKey).
func (b *backend) args(seq, idle string) []any {
	if b.mode.token {
		return []any{b.id, seq, idle, string(b.kind), sessionKey(b.key)}
	}
	return []any{b.id, idle, string(b.kind), sessionKey(b.key)}
}

// Refresh implements lease.Backend: it checks on the server that the
// session still holds the lock in its mode, and sets the session's idle_session_timeout
// for ttl. The lease then moves its local deadline.
func (b *backend) Refresh(ctx context.Context, ttl time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return fmt.Errorf("%w: %q: its connection is gone", lock.ErrLost, b.key)
	}
	var held bool
	err := b.conn.QueryRow(ctx, heldSQL, b.id, b.locker.opts.idleTimeout(ttl), b.mode.name).Scan(&held, nil)
	switch {
	case err == nil && held:
		return nil
	case err == nil:
		return fmt.Errorf("%w: %q: the session no longer holds the lock", lock.ErrLost, b.key)
	case b.conn.Conn().IsClosed():
		// The session is over, and its locks with it. (A refresh cut short
		// by its context also ends here: pgx closes a connection whose
		// query it abandoned.)
		return fmt.Errorf("%w: %q: connection lost: %w", lock.ErrLost, b.key, err)
	default:
		return err // the session lives, so it still holds the lock
	}
}

// Release implements lease.Backend: it unlocks, resets the session's
// idle_session_timeout and application_name and gives the connection back
// to the pool.
func (b *backend) Release(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return fmt.Errorf("%w: %q: its connection is gone", lock.ErrLost, b.key)
	}
	var released bool
	err := b.conn.QueryRow(ctx, b.mode.unlock, b.id).Scan(&released, nil, nil, nil)
	closed := b.conn.Conn().IsClosed()
	switch {
	case err == nil && released:
		b.conn.Release()
		b.conn = nil
		return nil
	case err == nil:
		b.discard()
		return fmt.Errorf("%w: %q: the session no longer held the lock", lock.ErrLost, b.key)
	case closed && ctx.Err() != nil:
		// pgx cut the connection when ctx ended mid-query: the session
		// ends with it and frees the lock.
		b.discard()
		return nil
	case closed:
		// The connection died under the lease (the backend was terminated,
		// the server restarted): the lock went with it, maybe long ago.
		b.discard()
		return fmt.Errorf("%w: %q: connection lost: %w", lock.ErrLost, b.key, err)
	case ctx.Err() != nil:
		// Not sent, or cancelled on the server: the session still holds
		// the lock; a retry can release it.
		return err
	default:
		// The session is alive but would not unlock: end it, which does.
		b.discard()
		return nil
	}
}

// discard closes the pinned connection. b.mu is held.
func (b *backend) discard() {
	discard(b.conn)
	b.conn = nil
}

// watch runs for the life of the lease. It checks the connection every
// CheckInterval and declares the lease lost when it has died. When the
// lease ends lost (a dead connection, or its deadline passed unrenewed), it
// frees the lock on the server, so that an expired lease frees its key as
// with any other backend.
func (b *backend) watch() {
	t := time.NewTicker(b.locker.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-b.lease.Done():
			if errors.Is(b.lease.Err(), lock.ErrLost) {
				b.drop()
			}
			return
		case <-t.C:
			if err := b.check(); err != nil {
				b.lease.Lose(err)
			}
		}
	}
}

// check pings the pinned connection. It returns an error wrapping
// lock.ErrLost if the session is over.
func (b *backend) check() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.locker.opts.CheckTimeout)
	defer cancel()
	if err := b.conn.Ping(ctx); err != nil && b.conn.Conn().IsClosed() {
		return fmt.Errorf("%w: %q: connection lost: %w", lock.ErrLost, b.key, err)
	}
	return nil
}

// drop frees the lock of a lost lease: it gives the connection back to the
// pool after releasing the lock, or discards it.
func (b *backend) drop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil {
		giveBack(b.conn, b.id)
		b.conn = nil
	}
}

// queryRower runs a query returning one row: a connection or a transaction.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

const (
	// cancelRetry is how often a wait that ctx ended is cancelled again
	// while it goes on: a cancel request that reached the server before
	// the query did is ignored.
	cancelRetry = 250 * time.Millisecond
	// cancelGrace is how long a cancelled wait may take to end before its
	// connection is cut instead.
	cancelGrace = 5 * time.Second
)

// queryCancellable runs a query that waits for a lock, on the connection
// pg, and scans its one row into dest. When ctx ends, it cancels the query
// on the server with a cancel request, as psql's Ctrl-C does: the backend
// leaves the lock queue at once and the connection stays usable. (pgx's
// default reaction to a done context cuts the connection instead, and a
// backend blocked on a lock does not notice that until it is granted the
// lock.) If the server does not end the query within cancelGrace, the
// connection is cut after all. The error is then the query's, such as
// "canceling statement due to user request"; callers check ctx.
func queryCancellable(ctx context.Context, db queryRower, pg *pgconn.PgConn, sql string, args []any, dest ...any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	qctx, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	finished := make(chan struct{})
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cancelled)
		grace := time.NewTimer(cancelGrace)
		defer grace.Stop()
		for {
			cctx, cancel := context.WithTimeout(context.Background(), cancelGrace)
			err := pg.CancelRequest(cctx)
			cancel()
			if err != nil {
				cut()
				return
			}
			retry := time.NewTimer(cancelRetry)
			select {
			case <-finished:
				retry.Stop()
				return
			case <-grace.C:
				retry.Stop()
				cut()
				return
			case <-retry.C:
			}
		}
	})
	err := db.QueryRow(qctx, sql, args...).Scan(dest...)
	close(finished)
	if !stop() {
		// A cancel request is under way. Let it finish, so that it cannot
		// reach the server after the next query has started.
		<-cancelled
	}
	return err
}
