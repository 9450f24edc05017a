package pglock

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

var (
	//go:embed semaphore_table.sql
	semaphoreTableSQL string
	//go:embed semaphore_lock.sql
	semaphoreLockSQL string
	//go:embed semaphore_enqueue.sql
	semaphoreEnqueueSQL string
	//go:embed semaphore_check.sql
	semaphoreCheckSQL string
	//go:embed semaphore_refresh.sql
	semaphoreRefreshSQL string
	//go:embed semaphore_release.sql
	semaphoreReleaseSQL string
	//go:embed semaphore_inspect.sql
	semaphoreInspectSQL string
	//go:embed semaphore_break.sql
	semaphoreBreakSQL string
)

// waiterChecks is how many CheckIntervals a waiter's entry outlives its
// last check: a waiter checks every CheckInterval, so a live one keeps its
// place, and the entry of one that died stops holding back those behind it
// within this many.
const waiterChecks = 3

// semaphoreSQL holds the semaphore statements, with the table's name in
// them.
type semaphoreSQL struct {
	tableID                                 int64 // the advisory lock taken to create the table
	table, enqueue, check, refresh, release string
	inspect, breakHolders                   string
}

func newSemaphoreSQL(o *Options) semaphoreSQL {
	name := pgx.Identifier{o.Schema, o.Semaphores}.Sanitize()
	r := strings.NewReplacer("__TABLE__", name)
	return semaphoreSQL{
		tableID:      lockID("table\x00", name),
		table:        r.Replace(semaphoreTableSQL),
		enqueue:      r.Replace(semaphoreEnqueueSQL),
		check:        r.Replace(semaphoreCheckSQL),
		refresh:      r.Replace(semaphoreRefreshSQL),
		release:      r.Replace(semaphoreReleaseSQL),
		inspect:      r.Replace(semaphoreInspectSQL),
		breakHolders: r.Replace(semaphoreBreakSQL),
	}
}

// semKey is a semaphore key as the server knows it.
type semKey struct {
	name    string // Prefix+key, as the table stores it
	id      int64  // the advisory lock that serializes the statements on it
	channel string // notified when entries go
}

func (l *Locker) semKey(key string) semKey {
	id := lockID("sem\x00"+l.opts.Prefix, key)
	return semKey{name: l.opts.Prefix + key, id: id, channel: fmt.Sprintf("lock_semaphore_%016x", uint64(id))}
}

// AcquirePermits implements lock.Semaphores. The caller's entry waits in
// the semaphore table, and the caller on a pool connection of its own that
// LISTENs for the key's notifications; ctx ending, or the WithWait bound
// passing, deletes the entry.
func (l *Locker) AcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquirePermits(ctx, key, limit, n, true, opts)
}

// TryAcquirePermits implements lock.Semaphores, in one statement.
func (l *Locker) TryAcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquirePermits(ctx, key, limit, n, false, opts)
}

func (l *Locker) acquirePermits(ctx context.Context, key string, limit, n int, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	if err := lock.CheckPermits(limit, n); err != nil {
		return nil, a.Refuse(ctx, err)
	}
	p := &permits{locker: l, key: l.semKey(key), owner: int64(rand.Uint64())}
	r := request{limit: limit, n: n, ttl: ceilMS(a.Config.TTL)}
	var sent time.Time
	var granted bool
	if wait {
		sent, granted, err = p.wait(ctx, r, a)
	} else {
		sent, granted, err = p.try(ctx, r, a)
	}
	if err != nil || !granted {
		return nil, a.Refuse(ctx, err)
	}
	// The server's expires_at counts from the start of the statement that
	// saw the grant, after sent: the local deadline ends first.
	le := lease.New(key, 0, sent.Add(a.Config.TTL), a.Config, p)
	a.Granted(0)
	return le, nil
}

// request is what an entry asks for.
type request struct {
	limit, n int
	ttl      int64 // the holder's TTL, in milliseconds
}

// permits is one entry of the semaphore table: a waiter's, then a lease's.
// It implements lease.Backend. A held lease pins no connection: its entry
// is a row, kept by Refresh and deleted by Release or by anyone's
// statement on the key once it has expired.
type permits struct {
	locker  *Locker
	key     semKey
	owner   int64
	arrival int64 // set when the entry is added

	mu sync.Mutex
	// unsure is set when a Release failed without knowing whether its
	// deletion committed: a retry that finds the entry gone then did not
	// lose it.
	unsure bool
}

// enqueued is what adding an entry found.
type enqueued struct {
	arrival    *int64 // nil when not added
	granted    bool
	otherLimit *int32   // the key's limit, when it is not the one asked
	nextExpiry *float64 // ms until the first live entry ahead expires
}

// enqueue adds p's entry, as a waiter's for waiterMS if it does not hold at
// once, or (waiterMS nil) only if it holds.
func (p *permits) enqueue(ctx context.Context, db batcher, r request, waiterMS *int64) (enqueued, error) {
	var e enqueued
	err := p.locker.onKey(ctx, db, p.key, p.locker.sem.enqueue,
		[]any{p.key.name, r.limit, r.n, p.owner, r.ttl, waiterMS, p.key.channel},
		&e.arrival, &e.granted, &e.otherLimit, &e.nextExpiry, nil)
	switch {
	case err != nil:
		return e, err
	case e.otherLimit != nil:
		return e, fmt.Errorf("%w: semaphore %q has a limit of %d, asked with %d", lock.ErrInvalid, p.key.name, *e.otherLimit, r.limit)
	}
	if e.arrival != nil {
		p.arrival = *e.arrival
	}
	return e, nil
}

// try adds p's entry if it holds at once. Its statement runs in a
// statementContext, as a waiter's do; a grant that comes back after ctx
// ended is given back, and the caller refused.
func (p *permits) try(ctx context.Context, r request, a *lease.Attempt) (sent time.Time, granted bool, err error) {
	sent = time.Now()
	sctx, cancel := p.statementContext(ctx)
	defer cancel()
	e, err := p.enqueue(sctx, p.locker.pool, r, nil)
	a.Contended = err == nil && !e.granted
	if err == nil && e.granted && ctx.Err() != nil {
		p.locker.cleanups.Run(func() {
			rctx, cancel := p.statementContext(context.Background())
			defer cancel()
			_ = p.Release(rctx) // else the entry lapses after its TTL
		})
		return sent, false, nil
	}
	return sent, err == nil && e.granted, err
}

// wait adds p's entry and waits until it holds, on a pinned connection
// that LISTENs to the key's channel, checking again at each notification
// and at least every CheckInterval (sooner when an entry ahead expires
// sooner). A check keeps the entry alive. An entry found expired (its
// waiter stalled for waiterChecks CheckIntervals) is added again, at the
// back. Only the wait for a notification ends with ctx (see
// statementContext); the entry is then deleted.
func (p *permits) wait(ctx context.Context, r request, a *lease.Attempt) (sent time.Time, granted bool, err error) {
	l := p.locker
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return sent, false, err
	}
	waiterMS := ceilMS(waiterChecks * l.opts.CheckInterval)
	added := false
	defer func() {
		if granted {
			l.cleanups.Go(func() { unlisten(conn) })
			return
		}
		l.cleanups.Run(func() {
			if added {
				p.remove()
			}
			unlisten(conn)
		})
	}()
	sctx, cancel := p.statementContext(ctx)
	_, err = conn.Exec(sctx, "LISTEN "+pgx.Identifier{p.key.channel}.Sanitize())
	cancel()
	if err != nil {
		return sent, false, err
	}
	for {
		sent = time.Now()
		sctx, cancel := p.statementContext(ctx)
		e, err := p.enqueue(sctx, conn, r, &waiterMS)
		cancel()
		// After a failure the entry's arrival is unknown: if it was added,
		// it expires within waiterChecks CheckIntervals.
		added = added || e.arrival != nil
		if err != nil || e.granted {
			return sent, err == nil, err
		}
		a.Contended = true
		var gone bool
		sent, granted, gone, err = p.await(ctx, conn, r, waiterMS, e.nextExpiry)
		if !gone {
			return sent, granted, err
		}
		// The entry expired while this waiter stalled: queue again.
	}
}

// await checks p's waiting entry at each notification on conn, and at
// least every CheckInterval (sooner when the entry ahead that expires
// first, next ms from now, does), until the entry holds (granted), has
// expired (gone), or ctx ends. sent is when the last check was sent.
func (p *permits) await(ctx context.Context, conn *pgxpool.Conn, r request, waiterMS int64, next *float64) (sent time.Time, granted, gone bool, err error) {
	l := p.locker
	for {
		if err := awaitNotification(ctx, conn, recheck(l.opts.CheckInterval, next)); err != nil {
			return sent, false, false, err
		}
		sent = time.Now()
		var held *bool // nil: the entry is gone
		sctx, cancel := p.statementContext(ctx)
		err := l.onKey(sctx, conn, p.key, l.sem.check,
			[]any{p.key.name, p.arrival, p.owner, r.ttl, waiterMS, p.key.channel},
			&held, &next, nil)
		cancel()
		if err != nil || held == nil || *held {
			return sent, err == nil && held != nil, err == nil && held == nil, err
		}
	}
}

// statementContext bounds a statement of a waiter by CheckTimeout, and not
// by ctx: pgx would cut the connection mid-statement when ctx ended, and
// the waiter would not know whether its entry was added.
func (p *permits) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), p.locker.opts.CheckTimeout)
}

// recheck is how long a waiter waits for a notification before it checks
// anyway: CheckInterval, or less when an entry ahead expires sooner.
func recheck(interval time.Duration, nextExpiryMS *float64) time.Duration {
	if nextExpiryMS != nil {
		return max(min(interval, time.Duration(*nextExpiryMS*float64(time.Millisecond))), time.Millisecond)
	}
	return interval
}

// awaitNotification waits up to d for a notification on conn. It returns
// nil when one came or d passed, and ctx's error when ctx ended first.
func awaitNotification(ctx context.Context, conn *pgxpool.Conn, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := conn.Conn().WaitForNotification(wctx)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err == nil, wctx.Err() != nil && !conn.Conn().IsClosed():
		return nil
	default:
		return err
	}
}

// unlisten stops conn listening and gives it back to the pool, or discards
// it.
func unlisten(conn *pgxpool.Conn) {
	if !conn.Conn().IsClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if _, err := conn.Exec(ctx, "UNLISTEN *"); err == nil {
			conn.Release()
			return
		}
	}
	discard(conn)
}

// remove deletes the entry of a waiter that gave up, through the pool,
// whether or not it was granted meanwhile: either way its permits go to
// those behind it, who are notified. If it cannot, the entry expires
// within waiterChecks CheckIntervals.
func (p *permits) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, _ = p.delete(ctx)
}

// delete deletes p's entry, and reports whether it was there, unexpired.
func (p *permits) delete(ctx context.Context) (bool, error) {
	var deleted bool
	err := p.locker.onKey(ctx, p.locker.pool, p.key, p.locker.sem.release,
		[]any{p.key.name, p.arrival, p.owner, p.key.channel}, &deleted, nil)
	return deleted, err
}

// Refresh implements lease.Backend: it extends the entry to ttl from now,
// unless it has expired.
func (p *permits) Refresh(ctx context.Context, ttl time.Duration) error {
	var kept bool
	err := p.locker.onKey(ctx, p.locker.pool, p.key, p.locker.sem.refresh,
		[]any{p.key.name, p.arrival, p.owner, ceilMS(ttl), p.key.channel}, &kept, nil)
	switch {
	case err != nil:
		return err
	case !kept:
		return p.lost()
	}
	return nil
}

// Release implements lease.Backend: it deletes the entry, waking those it
// lets through.
func (p *permits) Release(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	deleted, err := p.delete(ctx)
	switch {
	case err != nil:
		p.unsure = true
		return err
	case !deleted && !p.unsure:
		return p.lost()
	}
	return nil
}

func (p *permits) lost() error {
	return fmt.Errorf("%w: semaphore %q: the entry has expired", lock.ErrLost, p.key.name)
}

// batcher runs batches: a pool or a connection.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// onKey runs sql, a semaphore statement returning one row, on key k, and
// scans the row into dest. It runs in one batch, whose implicit transaction
// first takes the key's advisory lock (semaphore_lock.sql): statements on a
// key run one at a time, each seeing every entry committed before it. The
// table is created when found missing.
func (l *Locker) onKey(ctx context.Context, db batcher, k semKey, sql string, args []any, dest ...any) error {
	err := inLockedBatch(ctx, db, k.id, sql, args, dest...)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table: the first use
		// Under a lock of its own: CREATE TABLE IF NOT EXISTS run by two
		// sessions at once can fail on the catalog's unique indexes.
		if err := inLockedBatch(ctx, db, l.sem.tableID, l.sem.table, nil); err != nil {
			return fmt.Errorf("create semaphore table: %w", err)
		}
		err = inLockedBatch(ctx, db, k.id, sql, args, dest...)
	}
	return err
}

// inLockedBatch runs sql in a batch after semaphore_lock.sql takes
// advisory lock id for the batch's transaction, and scans its one row, if
// dest is given, into dest.
func inLockedBatch(ctx context.Context, db batcher, id int64, sql string, args []any, dest ...any) error {
	var b pgx.Batch
	b.Queue(semaphoreLockSQL, id)
	q := b.Queue(sql, args...)
	if len(dest) > 0 {
		q.QueryRow(func(row pgx.Row) error { return row.Scan(dest...) })
	}
	return db.SendBatch(ctx, &b).Close()
}
