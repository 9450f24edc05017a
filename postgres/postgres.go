package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
)

// rollbackTimeout bounds the rollback of a failed transaction whose
// context has a later deadline, or none.
const rollbackTimeout = 5 * time.Second

// defaultCancelGrace is Options.CancelGrace's default.
const defaultCancelGrace = 300 * time.Millisecond

// DefaultIdleInTransaction is Options.IdleInTransaction's default.
const DefaultIdleInTransaction = 10 * time.Second

// idleInTransactionParam is the server setting Options.IdleInTransaction
// sets.
const idleInTransactionParam = "idle_in_transaction_session_timeout"

// jitParam is the server setting that Open turns off unless the URL sets
// it (jit=on). The store's statements are short, and PostgreSQL decides
// to compile one from the planner's estimates, which a generic plan can
// put far above the work: the sweeper's prune of old events, 3 ms of
// work, spent 15–250 ms compiling at every sweep.
const jitParam = "jit"

// Options configures Open. A nil *Options means all defaults.
type Options struct {
	// MaxConns is the most connections the pool opens. Every running
	// Update or View holds one for its whole length, including while it
	// waits for a row or advisory lock; see the package documentation.
	// Default: the URL's pool_max_conns if it has one, else pgxpool's
	// default, the larger of 4 and runtime.NumCPU().
	MaxConns int32

	// CancelGrace is how long a statement may go on after its context
	// ends. Open makes the pool cancel such a statement on the server with
	// a cancel request, so that a transaction waiting for a lock leaves
	// the lock queue at once and its connection stays usable (pgx's
	// default cuts it); if the statement has not ended after CancelGrace,
	// the connection is cut after all. A transaction whose context has
	// ended gets CancelGrace to roll back too. Together they bound how
	// long an Update or View outlasts its context when the server does
	// not answer: see the package documentation.
	// Default: 300ms.
	CancelGrace time.Duration

	// IdleInTransaction is how long a session in a transaction may wait
	// for its client's next statement before the server ends it
	// (idle_in_transaction_session_timeout), rolling the transaction back
	// and freeing its row and advisory locks. It bounds how long a process
	// that stops in the middle of a transaction — paused, frozen, cut off
	// — holds up every other instance that needs the same rows, without
	// that process's help: its kernel keeps the connection open, so the
	// server would otherwise wait for it for ever. A running transaction
	// idles only between its statements. A negative value leaves the
	// server's setting alone, as does a URL that sets
	// idle_in_transaction_session_timeout itself.
	// Default: DefaultIdleInTransaction.
	IdleInTransaction time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.CancelGrace <= 0 {
		out.CancelGrace = defaultCancelGrace
	}
	if out.IdleInTransaction == 0 {
		out.IdleInTransaction = DefaultIdleInTransaction
	}
	return out
}

// Store is a stockade.Store on a PostgreSQL database, through a pgx
// connection pool. It is safe for concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	ownsPool bool
	grace    time.Duration // Options.CancelGrace
	commits  *commitWatch  // warnings the server sends during a COMMIT
	signal   *signal       // LISTEN/NOTIFY of committed events
	upkeep   *upkeep       // vacuums the seats table after large puts
}

var (
	_ stockade.Store         = (*Store)(nil)
	_ stockade.EventSignaler = (*Store)(nil)
)

// Open connects to the database at url (a postgres:// URL or a key=value
// connection string, as pgxpool.ParseConfig takes) and checks that it
// answers. It does not migrate the schema: call Migrate. Close closes the
// pool Open made.
func Open(ctx context.Context, url string, opts *Options) (*Store, error) {
	o := opts.withDefaults()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	if _, set := cfg.ConnConfig.RuntimeParams[jitParam]; !set {
		cfg.ConnConfig.RuntimeParams[jitParam] = "off"
	}
	if _, set := cfg.ConnConfig.RuntimeParams[idleInTransactionParam]; !set && o.IdleInTransaction > 0 {
		cfg.ConnConfig.RuntimeParams[idleInTransactionParam] = strconv.FormatInt(max(o.IdleInTransaction.Milliseconds(), 1), 10)
	}
	grace := o.CancelGrace
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		// The cancel request goes out as soon as the context ends; the
		// connection's deadline cuts a read that is still waiting grace
		// later, whether or not the cancel request got through.
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: 0, DeadlineDelay: grace}
	}
	commits := newCommitWatch()
	cfg.ConnConfig.OnNotice = chainNotice(cfg.ConnConfig.OnNotice, commits.notice)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{pool: pool, ownsPool: true, grace: grace, commits: commits, signal: newSignal(pool), upkeep: newUpkeep(pool)}
	// Reachable is enough to open: a standby serves reads (a
	// reconciliation), and Ping tells the service whether it can write.
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, mapError(ctx, "ping", "", err)
	}
	return s, nil
}

// New returns a Store on pool, which the caller configures and closes:
// Close leaves it open. See Open for the context handling it should have;
// a failed transaction gets the default CancelGrace to roll back. The
// store cannot see the server's notices on a pool it did not configure,
// so a COMMIT whose wait for a synchronous standby the server cut short
// (see Durable commits in the package documentation) is taken as
// durable: use Open with a synchronous standby.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, grace: defaultCancelGrace, commits: newCommitWatch(), signal: newSignal(pool), upkeep: newUpkeep(pool)}
}

// Update implements stockade.Store. fn runs in a READ COMMITTED read-write
// transaction. A statement that fails aborts the transaction: Update then
// rolls back and returns the failure even if fn swallowed it.
func (s *Store) Update(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return s.run(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadWrite}, fn)
}

// View implements stockade.Store. fn runs in a REPEATABLE READ read-only
// transaction: every read sees the same snapshot (a reconciliation
// compares levels and ledger as of one moment), takes no lock and can
// never fail with a serialization error.
func (s *Store) View(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return s.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

func (s *Store) run(ctx context.Context, opts pgx.TxOptions, fn func(tx stockade.Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return mapError(ctx, "begin", "", err)
	}
	defer conn.Release() // a connection left in a transaction or closed is destroyed
	lt := &lazyTx{conn: conn.Conn(), opts: opts}
	t := &tx{tx: lt, readOnly: opts.AccessMode == pgx.ReadOnly}
	finished := false
	defer func() {
		if !finished && lt.tx != nil { // fn panicked
			s.rollback(ctx, lt.tx)
		}
	}()
	err = fn(t)
	finished = true
	switch {
	case lt.beginErr != nil:
		if opts.AccessMode == pgx.ReadWrite && inRecovery(ctx, conn, lt.beginErr) {
			// A standby: none of this session's transactions can write,
			// and with the DSN's hosts in failover the next connection
			// may reach the new primary.
			s.drop(conn)
			return standbyError("begin", lt.beginErr)
		}
		return mapError(ctx, "begin", "", lt.beginErr)
	case lt.tx == nil: // fn ran no statement: nothing began
		return err
	case err != nil:
		s.rollback(ctx, lt.tx)
		return err
	case t.failed != nil:
		s.rollback(ctx, lt.tx)
		return fmt.Errorf("postgres: transaction aborted by an earlier error: %w", t.failed)
	}
	if err := s.commit(ctx, lt.tx); err != nil {
		return err
	}
	if t.appended {
		s.signal.announce()
	}
	if t.seatsPut >= vacuumSeatsAt {
		s.upkeep.seatsPut()
	}
	if t.levelsAdded > 0 {
		s.upkeep.levelsAdded(t.levelsAdded)
	}
	return nil
}

// rollback rolls ptx back, even after ctx ended, so that its connection
// goes back to the pool clean. It runs until ctx's deadline, but for at
// least the cancel grace (a transaction whose context has just ended
// still rolls back on a server that answers) and at most rollbackTimeout.
// A rollback that fails closes the connection, which rolls back on the
// server.
func (s *Store) rollback(ctx context.Context, ptx pgx.Tx) {
	now := time.Now()
	end := now.Add(rollbackTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(end) {
		end = d
	}
	if least := now.Add(s.grace); ctx.Err() != nil || end.Before(least) {
		end = least
	}
	rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), end)
	defer cancel()
	_ = ptx.Rollback(rctx)
}

// Features implements stockade.Store: PostgreSQL has row locks, advisory
// locks and SKIP LOCKED.
func (s *Store) Features() stockade.Features {
	return stockade.Features{RowLocks: true, AdvisoryLocks: true, SkipLocked: true}
}

// Ping implements stockade.Store: the server answers and is not a
// standby in recovery, whose error wraps stockade.ErrUnavailable too.
func (s *Store) Ping(ctx context.Context) error {
	var recovering bool
	if err := s.pool.QueryRow(ctx, inRecoverySQL).Scan(&recovering); err != nil {
		return mapError(ctx, "ping", "", err)
	}
	if recovering {
		return standbyError("ping", nil)
	}
	return nil
}

// EventsCommitted implements stockade.EventSignaler: the channel closes
// when a notification on the database says that events committed (see
// the package documentation). The first call starts listening.
func (s *Store) EventsCommitted() <-chan struct{} { return s.signal.events() }

// Close implements stockade.Store. It stops listening for events, stops
// a vacuum of the seats table that runs, and closes the pool if Open
// made it, waiting for connections in use to be released.
func (s *Store) Close() error {
	s.signal.close()
	s.upkeep.close()
	if s.ownsPool {
		s.pool.Close()
	}
	return nil
}

// SQLSTATE codes the store tells apart.
const (
	uniqueViolation      = "23505"
	foreignKeyViolation  = "23503"
	checkViolation       = "23514"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
	lockNotAvailable     = "55P03"
	adminShutdown        = "57P01"
	crashShutdown        = "57P02"
	cannotConnectNow     = "57P03"
	queryCanceled        = "57014"
	// connectionException is the class of SQLSTATEs about the connection
	// (08000, 08003, 08006, …).
	connectionException = "08"
)

// mapError turns an error from pgx into the error the store returns,
// prefixed with what was being done; loc is the location the statement
// wrote to, if it is known. The pgx error stays in the chain
// (errors.As reaches *pgconn.PgError), and so does ctx's error when ctx
// has ended.
//
//   - serialization failures, deadlocks, lock timeouts and unique
//     violations (a concurrent transaction inserted the same key first)
//     wrap stockade.ErrConflict: retrying the transaction may cure them;
//   - a foreign-key violation on a level's location is a *stockade.Error
//     with ENotFound;
//   - a check violation is a *stockade.Error saying which invariant the
//     write would have broken;
//   - a database that cannot be reached wraps stockade.ErrUnavailable (see
//     unreachable), unless ctx has ended: that is the caller's deadline,
//     not the database;
//   - a statement cancelled while ctx lives (statement_timeout, an
//     operator, a late cancel request) wraps stockade.ErrUnavailable too.
func mapError(ctx context.Context, what, loc string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w: %w", cerr, err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case serializationFailure, deadlockDetected, lockNotAvailable, uniqueViolation:
			return fmt.Errorf("postgres: %s: %w: %w", what, stockade.ErrConflict, err)
		case foreignKeyViolation:
			if pe.ConstraintName == "levels_location_fkey" {
				msg := "location not found (" + pe.Detail + ")"
				if loc != "" {
					msg = fmt.Sprintf("location %q not found", loc)
				}
				return fmt.Errorf("postgres: %s: %w: %w", what, stockade.Errorf(stockade.ENotFound, msg), err)
			}
		case checkViolation:
			return fmt.Errorf("postgres: %s: %w: %w", what, checkError(pe), err)
		case queryCanceled:
			if ctx.Err() == nil {
				// Not by our context: statement_timeout, an operator's
				// pg_cancel_backend, or the cancel request of an earlier
				// statement on this connection that reached the server
				// late (one held up on the network does). The transaction
				// is rolled back; a retry is safe.
				return fmt.Errorf("postgres: %s: %w: statement cancelled by the server: %w", what, stockade.ErrUnavailable, err)
			}
		}
	}
	if ctx.Err() == nil && unreachable(err) {
		return fmt.Errorf("postgres: %s: %w: %w", what, stockade.ErrUnavailable, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// unreachable reports whether err, from pgx, means that the database
// cannot be reached: a server that says it is shutting down, has crashed
// or is starting up (57P01, 57P02, 57P03) or reports a connection problem
// (class 08); or, when the server said nothing, a connection that could
// not be made (*pgconn.ConnectError) or that broke (pgconn.ErrConnClosed,
// a network error, the stream ending early). A server that refuses the
// connection for a reason of its own, such as a wrong password or a
// missing database, is not unreachable: that wants an operator, not a
// retry.
func unreachable(err error) bool {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pe.Code {
		case adminShutdown, crashShutdown, cannotConnectNow:
			return true
		}
		return strings.HasPrefix(pe.Code, connectionException)
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// checkError explains the check constraint that pe reports.
func checkError(pe *pgconn.PgError) *stockade.Error {
	switch pe.ConstraintName {
	case "levels_available_check":
		return stockade.Errorf(stockade.EInsufficientStock, "on hand would fall below reserved plus committed")
	case "levels_on_hand_check", "levels_reserved_check", "levels_committed_check":
		return stockade.Errorf(stockade.EInsufficientStock, "a stock counter would go below zero")
	case "levels_fence_check":
		return stockade.Errorf(stockade.EInvalid, "fencing token out of range")
	case "reservations_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid reservation status")
	case "orders_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid order status")
	case "idempotency_state_check":
		return stockade.Errorf(stockade.EInvalid, "invalid idempotency state")
	case "api_keys_role_check":
		return stockade.Errorf(stockade.EInvalid, "invalid api key role")
	case "api_keys_rate_limit_check":
		return stockade.Errorf(stockade.EInvalid, "invalid api key rate limit")
	case "seats_status_check", "seat_history_from_status_check", "seat_history_to_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid seat status")
	case "holds_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid hold status")
	case "bookings_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid booking status")
	case "areas_capacity_check":
		return stockade.Errorf(stockade.EInvalid, "area capacity below zero")
	case "areas_within_capacity", "areas_held_check", "areas_booked_check":
		return stockade.Errorf(stockade.EInvalidState, "an area's held and booked places would exceed its capacity or go below zero")
	case "payments_target_kind_check":
		return stockade.Errorf(stockade.EInvalid, "invalid payment target kind")
	case "payments_amount_check":
		return stockade.Errorf(stockade.EInvalid, "payment amount not above zero")
	case "payments_currency_check":
		return stockade.Errorf(stockade.EInvalid, "payment currency not three characters")
	case "payments_status_check", "payment_changes_from_status_check", "payment_changes_to_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid payment status")
	case "payments_resolution_check", "payment_changes_resolution_check":
		return stockade.Errorf(stockade.EInvalid, "invalid payment resolution")
	case "payments_version_check":
		return stockade.Errorf(stockade.EInvalid, "payment version below 1")
	case "rooms_admission_order_check":
		return stockade.Errorf(stockade.EInvalid, "invalid room order")
	case "rooms_status_check":
		return stockade.Errorf(stockade.EInvalid, "invalid room status")
	case "rooms_joined_check", "rooms_ordered_check", "rooms_admitted_check":
		return stockade.Errorf(stockade.EInvalid, "a room's count below zero")
	case "rooms_version_check":
		return stockade.Errorf(stockade.EInvalid, "room version below 1")
	case "room_visitors_position_check":
		return stockade.Errorf(stockade.EInvalid, "room visitor position below zero")
	}
	return stockade.Errorf(stockade.EInvalid, "refused by check constraint "+pe.ConstraintName)
}

// LockID returns the advisory lock id that Tx.AdvisoryLock takes for k:
// the first 8 bytes of the SHA-256 of "stockade/level", k.SKU and
// k.Location (each followed by a NUL byte), read as a big-endian int64.
// pg_locks shows it as classid = id>>32, objid = id&0xffffffff,
// objsubid = 1. Two keys whose ids collide share one lock, which only
// serializes them needlessly; among n keys in use, a collision has a
// chance of about n²/2⁶⁵.
func LockID(k stockade.Key) int64 { return lockID("stockade/level", k.SKU, k.Location) }

// idempotencyLockID is the advisory lock id of an idempotency key.
func idempotencyLockID(key string) int64 { return lockID("stockade/idempotency", key) }

// migrateLockID is the advisory lock id that Migrate takes.
var migrateLockID = lockID("stockade/migrate")

func lockID(parts ...string) int64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}
