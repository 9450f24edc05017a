package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// Strategy names, for Options.Strategy.
const (
	// Atomic checks and writes each level in one conditional UPDATE.
	Atomic = "atomic"
	// RowLock locks the levels it reads (SELECT … FOR UPDATE) in key order.
	RowLock = "rowlock"
	// Optimistic reads without locks and writes at the versions it read.
	Optimistic = "optimistic"
	// Lock takes a lock.Locker lease per SKU and fences writes with it.
	Lock = "lock"
	// Advisory takes the store's advisory locks on the levels first.
	Advisory = "advisory"
	// Batch queues concurrent calls and decides each batch of them in one
	// transaction that locks the levels it touches (group commit).
	Batch = "batch"
)

// Strategies returns every strategy name, in the order of the package
// documentation.
func Strategies() []string { return []string{Atomic, RowLock, Optimistic, Lock, Advisory, Batch} }

// Options configure an Engine. A nil *Options means every default.
type Options struct {
	// Strategy is how Reserve and Checkout check availability and write
	// (and, under Batch, how Confirm is committed): Atomic, RowLock,
	// Optimistic, Lock, Advisory or Batch. Strategies the store cannot
	// offer fall back; see the package documentation and Engine.Strategy.
	// Default: Atomic.
	Strategy string

	// Locker grants the per-SKU leases of the Lock strategy. Required for
	// it, ignored by the others.
	// Default: none.
	Locker lock.Locker

	// LockTTL is the time-to-live of the Lock strategy's leases. A lease
	// that runs out mid-transaction is harmless: its writes are fenced and
	// the request is retried.
	// Default: 10s.
	LockTTL time.Duration

	// MaxBatch is the most Reserve, Checkout and Confirm calls that one
	// transaction of the Batch strategy decides; more wait for the next.
	// Ignored by the other strategies.
	// Default: 512.
	MaxBatch int

	// DefaultTTL is how long a reservation holds its stock when the
	// request does not say.
	// Default: 15m.
	DefaultTTL time.Duration

	// MaxHoldLifetime is the longest a hold of seats may last from its
	// creation, extensions included: a hold may ask for a TTL, and an
	// extension may reach, no further.
	// Default: 2h.
	MaxHoldLifetime time.Duration

	// MaxTTL is the longest hold a request may ask for; the other limits
	// on requests are the domain's (stockade.MaxLines and the rest).
	// Default: stockade.MaxTTL (24h).
	MaxTTL time.Duration

	// Timeout bounds every call, including its lock waits and retries,
	// when the caller's context has no earlier deadline.
	// Default: 30s.
	Timeout time.Duration

	// MinBackoff and MaxBackoff bound the pause before a transaction that
	// met a conflict is retried: it starts at MinBackoff, doubles on each
	// retry up to MaxBackoff, and is jittered between half and all of that.
	// Default: 1ms and 50ms.
	MinBackoff, MaxBackoff time.Duration

	// SweepBatch is how many lapsed reservations one transaction of Sweep
	// expires.
	// Default: 500.
	SweepBatch int

	// IdempotencyTTL is how long the result of an idempotent call is
	// kept for replay; Sweep purges older records, and a key whose record
	// is older is free again.
	// Default: 24h.
	IdempotencyTTL time.Duration

	// EventRetention is how long events stay in the outbox; Sweep prunes
	// older ones, SweepBatch at a time, each batch its own transaction. A
	// reader whose cursor is older than this misses what was pruned.
	// Finished webhook deliveries are pruned after as long.
	// Default: 168h (a week).
	EventRetention time.Duration

	// PaymentGrace is how long a reservation or hold whose payment is in
	// flight (processing or authorized) is kept past its expiry before
	// the sweeper marks the payment stuck. It is kept after that too, for
	// a person or a late outcome to settle: it never lapses while its
	// payment may still move money.
	// Default: 10m.
	PaymentGrace time.Duration

	// OutcomeRetention is how long the inbox remembers an applied
	// payment outcome's id, so that a delivery again of it changes
	// nothing; Sweep purges older records. It should outlast the
	// payment system's redeliveries.
	// Default: 168h (a week).
	OutcomeRetention time.Duration

	// EventPoll is how often a reader of events that waits reads again
	// without being woken. Commits of this engine wake readers at once,
	// and so do other instances' on a store that signals them
	// (stockade.EventSignaler, as PostgreSQL's does); EventPoll bounds the
	// wait for the rest.
	// Default: 1s.
	EventPoll time.Duration
	// TicketPoll is how often a room's watched tickets (WatchTicket) are
	// read again: a visitor learns of an admission or a sell-out at most
	// this long after the admissions' round that made it.
	// Default: 250ms.
	TicketPoll time.Duration

	// WebhookPrivate lets webhook endpoints name loopback, private and
	// link-local hosts (stockade.WebhookHostAllowed); without it they are
	// refused, so that an admin key cannot make the service call its own
	// network. The sender checks the addresses it connects to as well
	// (webhook.Options.AllowPrivate): give both the same value.
	// Default: false.
	WebhookPrivate bool

	// Now tells the time for expiries and records.
	// Default: time.Now.
	Now func() time.Time

	// Logger receives strategy fallbacks, calls that gave up, and sweeper
	// errors.
	// Default: slog.Default().
	Logger *slog.Logger

	// Observer, if set, is called once at the end of every call, for
	// metrics. It must be quick and safe for concurrent use.
	// Default: nil.
	Observer func(CallReport)
}

// CallReport describes one finished call, for Options.Observer; or under the
// Batch strategy one batch transaction (Op "batch"), which is reported
// once its calls have their outcomes and before they report theirs; or
// one run of Sweep (Op "sweep"), whether RunSweeper or the caller made it.
type CallReport struct {
	Op   string // the method: "reserve", "checkout", "confirm", …, "batch" or "sweep"
	Code string // stockade.ErrorCode of its error, "" on success
	// Attempts counts the transactions started, retries included. A call
	// may run several transactions (a sweep runs at least two), so only
	// Retries tells how many were run again.
	Attempts int
	// Retries counts the transactions started again after a conflict:
	// Attempts less the first attempt of each transaction. A call that a
	// batch decides reports none of its own; its batch's event does.
	Retries  int
	Duration time.Duration // wall time of the call
	Calls    int           // for a batch: how many calls it decided
	Expired  int           // for a sweep: how many lapsed reservations it expired
	Purged   int           // for a sweep: how many old idempotency records it purged
	Pruned   int           // for a sweep: how many old events it pruned
	Stuck    int           // for a sweep: how many payments it found stuck
	Replayed bool          // the call returned an earlier call's stored result
	// Rooms, for a round of admissions ("admit rooms") that succeeded:
	// each room that gated when the round began, as the round left it.
	Rooms []RoomReport
}

// RoomReport is a waiting room as a round of admissions left it.
type RoomReport struct {
	ID     string
	Status stockade.RoomStatus
	// Queued counts the visitors still waiting, Active the admissions in
	// force (0 before the room opens and once it has sold out), Admitted
	// every admission the room has made.
	Queued, Active, Admitted int64
	// Paused says why visitors wait for another reason than the rate:
	// stockade.RoomPausedActive or stockade.RoomPausedStock; "" if not.
	Paused string
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Strategy == "" {
		c.Strategy = Atomic
	}
	if c.LockTTL <= 0 {
		c.LockTTL = 10 * time.Second
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 512
	}
	if c.DefaultTTL <= 0 {
		c.DefaultTTL = 15 * time.Minute
	}
	if c.MaxTTL <= 0 {
		c.MaxTTL = stockade.MaxTTL
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 50 * time.Millisecond
	}
	c.MaxBackoff = max(c.MaxBackoff, c.MinBackoff)
	if c.SweepBatch <= 0 {
		c.SweepBatch = 500
	}
	if c.IdempotencyTTL <= 0 {
		c.IdempotencyTTL = 24 * time.Hour
	}
	if c.EventRetention <= 0 {
		c.EventRetention = 7 * 24 * time.Hour
	}
	if c.MaxHoldLifetime <= 0 {
		c.MaxHoldLifetime = 2 * time.Hour
	}
	if c.PaymentGrace <= 0 {
		c.PaymentGrace = 10 * time.Minute
	}
	if c.OutcomeRetention <= 0 {
		c.OutcomeRetention = 7 * 24 * time.Hour
	}
	if c.TicketPoll <= 0 {
		c.TicketPoll = time.Second / 4
	}
	if c.EventPoll <= 0 {
		c.EventPoll = time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Engine is the stockade reservation engine: a stockade.Service on a
// stockade.Store. It is safe for concurrent use and keeps no state of its
// own between calls, so any number of engines may share one database.
type Engine struct {
	store stockade.Store
	opts  Options
	strat strategy
	log   *slog.Logger
	// serialStore: the store has no row locks, so its write transactions
	// run one at a time (stockade.Features).
	serialStore bool
	// The lanes of the writes that the Batch strategy groups (see lane).
	stock    lane[*stockCall]   // Reserve, Checkout, Confirm
	holds    lane[*holdCall]    // HoldSeats, ConfirmHold
	outcomes lane[*outcomeCall] // ApplyOutcome
	// joins is JoinRoom's lane: a group lane under every strategy (see
	// rooms.go).
	joins lane[*joinCall]
	// tickets is RoomTicket's lane: a group lane too.
	tickets lane[*ticketCall]
	// watches are the rooms whose tickets someone watches (WatchTicket).
	watches watches
	// kept are the free seats of shows as their last hold batches left
	// them, under the Batch strategy; nil under the others.
	kept    *keptSeats
	layouts layouts // of the events whose seats were chosen lately
	// seatReads counts the reads of a show's free seats (freeSeats): a
	// batch that could bring its kept seats up to date reads none.
	seatReads atomic.Int64
	// written wakes the readers of events at each commit of a write
	// transaction.
	written notifier
}

var _ stockade.Service = (*Engine)(nil)

// New returns an engine on store. It refuses an unknown strategy and the
// Lock strategy without a Locker; a strategy the store cannot offer falls
// back as the package documentation describes, and says so in a log line
// and in Strategy.
func New(store stockade.Store, opts *Options) (*Engine, error) {
	if store == nil {
		return nil, errors.New("engine: nil store")
	}
	o := opts.withDefaults()
	f := store.Features()
	strat, err := newStrategy(o.Strategy, f, o.Locker != nil)
	if err != nil {
		return nil, err
	}
	e := &Engine{store: store, opts: o, strat: strat, log: o.Logger, serialStore: !f.RowLocks}
	if sig, ok := store.(stockade.EventSignaler); ok {
		e.written.remote = sig.EventsCommitted
	}
	const retry = "retry with the same Idempotency-Key to learn it"
	if strat.group {
		e.stock = newGroup(e, e.stockTxn, "calls", nil, retry)
		e.holds = newGroup(e, e.holdTxn, "hold calls", holdQueue, retry)
		e.outcomes = newGroup(e, e.outcomeTxn, "payment outcomes", nil, "report the outcome again to learn it")
		e.kept = &keptSeats{shows: map[string]*seatState{}}
	} else {
		e.stock, e.holds, e.outcomes = direct[*stockCall]{e.stockTxn}, direct[*holdCall]{e.holdTxn}, direct[*outcomeCall]{e.outcomeTxn}
	}
	e.joins = newGroup(e, e.joinTxn, "joins", joinQueue, "join again to learn it: a visitor has one place")
	e.tickets = newGroup(e, e.ticketTxn, "ticket reads", ticketQueue, "read the ticket again")
	if strat.name != o.Strategy {
		e.log.Info("engine: strategy falls back", "requested", o.Strategy, "effective", strat.name)
	}
	return e, nil
}

// Strategy returns the strategy in effect: the name asked for, such as
// "atomic", or when it fell back, the name followed by what runs instead
// and why, such as "rowlock (fallback: serialized write transactions, the
// store has no row locks)". The first word is always the name asked for.
func (e *Engine) Strategy() string { return e.strat.name }

// MaxFence returns the largest lock fencing token that has written a level
// of s. A process that starts an in-memory Locker (memlock) for the Lock
// strategy on a store that outlives it starts its tokens above this value,
// or every write it fences would be refused as stale.
func MaxFence(ctx context.Context, s stockade.Store) (uint64, error) {
	var top uint64
	err := s.View(ctx, func(tx stockade.Tx) error {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{All: true})
		for _, l := range ls {
			top = max(top, l.Fence)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("engine: max fence: %w", err)
	}
	return top, nil
}

// now returns the time in the precision the stores keep (microseconds),
// in UTC, so that what a call returns equals what a later read returns.
func (e *Engine) now() time.Time {
	return e.opts.Now().UTC().Truncate(time.Microsecond)
}

// idAlphabet is base32 in ASCII order, so that ids sort as their bits do.
const idAlphabet = "234567abcdefghijklmnopqrstuvwxyz"

// newID returns a new id with the given prefix, such as "res_…", and 26
// base32 characters: 10 for the time in milliseconds, then 80 random bits.
// Ids made later sort after those made earlier (to the millisecond), so a
// store's indexes on them grow at one end: a batch of inserts writes a few
// index pages rather than one page per id. Ids are made inside the
// retried function, so a retry never reuses one.
func newID(prefix string) string {
	var random [10]byte
	rand.Read(random[:]) // never fails
	b := make([]byte, 0, len(prefix)+1+26)
	b = append(b, prefix...)
	b = append(b, '_')
	ms := uint64(time.Now().UnixMilli())
	for i := 9; i >= 0; i-- {
		b = append(b, idAlphabet[ms>>(5*i)&31])
	}
	hi, lo := uint64(random[0])<<32|uint64(random[1])<<24|uint64(random[2])<<16|uint64(random[3])<<8|uint64(random[4]),
		uint64(random[5])<<32|uint64(random[6])<<24|uint64(random[7])<<16|uint64(random[8])<<8|uint64(random[9])
	for _, half := range [2]uint64{hi, lo} { // 40 bits each: 8 characters
		for i := 7; i >= 0; i-- {
			b = append(b, idAlphabet[half>>(5*i)&31])
		}
	}
	return string(b)
}

// call is one call of a Service method: its deadline, its transaction
// attempts and its idempotency key.
type call struct {
	e        *Engine
	op       string
	start    time.Time
	attempts int
	retries  int // attempts beyond the first of a transaction (see retry)
	// idem is the call's idempotency key, or nil (see once), and key the
	// key its record is stored under (see recordKey).
	idem *stockade.Idempotency
	key  string
	// actor is who makes the call: an API key's, or stockade.System.
	actor stockade.Actor
	// replayed: the call's last transaction found its key's stored result
	// and did nothing else.
	replayed bool
}

// run runs fn as the call op: within Options.Timeout, idempotently under
// idem if it is not nil (fn's transactions go through once, or a batch
// that does the same), with its errors classified (see classify) and the
// call reported to the Observer. It sets idem.Replayed when the result is
// an earlier call's.
func run[T any](e *Engine, ctx context.Context, op string, idem *stockade.Idempotency, fn func(ctx context.Context, c *call) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: op, start: time.Now(), idem: idem}
	var (
		v   T
		err error
		ok  bool
	)
	if c.actor, ok = stockade.ActorFrom(ctx); !ok || c.actor.Role == "" {
		err = errNoActor
	} else if idem != nil {
		idem.Replayed = false
		err = stockade.ValidateIdempotencyKey("idempotency key", idem.Key)
		c.key = recordKey(c.actor.KeyID, idem.Key)
	}
	if err == nil {
		v, err = fn(ctx, c)
	}
	err = c.classify(ctx, err)
	if err == nil && idem != nil {
		idem.Replayed = c.replayed
	}
	if obs := e.opts.Observer; obs != nil {
		obs(CallReport{Op: op, Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Replayed: err == nil && c.replayed})
	}
	return v, err
}

// errNoActor refuses a call whose context says nobody makes it, or an
// actor without a role.
var errNoActor = stockade.Errorf(stockade.EUnauthenticated,
	"the call's context carries no actor, or one without a role: say who makes it with stockade.WithActor (stockade.System for the service's own work)")

// logGaveUp logs a call that ended without an answer: at Warn, unless its
// context was cancelled (its client went away, or the server is stopping),
// which is no fault of the service and is logged at Debug. A deadline that
// passed stays a warning.
func logGaveUp(ctx context.Context, log *slog.Logger, msg string, args ...any) {
	level := slog.LevelWarn
	if errors.Is(ctx.Err(), context.Canceled) {
		level = slog.LevelDebug
	}
	log.Log(ctx, level, msg, args...)
}

// classify turns the errors that mean "not now" into EUnavailable, logged:
// conflicts still met when the deadline came, lock waits that ran out, a
// lock backend or a database that cannot be reached
// (stockade.ErrUnavailable), and anything that failed because the call's
// context ended. Refusals (*stockade.Error) and other internal errors
// pass unchanged; the edge logs the internal ones.
func (c *call) classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*stockade.Error](err); ok {
		return err
	}
	var msg string
	switch {
	case errors.Is(err, stockade.ErrConflict):
		msg = "too much contention: the request did not get through before its deadline; try again"
	case errors.Is(err, lock.ErrUnavailable):
		msg = "the lock service is unavailable; try again"
	case errors.Is(err, stockade.ErrUnavailable):
		msg = "the database cannot be reached; try again"
	case errors.Is(err, lock.ErrNotAcquired), ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
		msg = "the request did not finish before its deadline; try again"
	default:
		return err
	}
	logGaveUp(ctx, c.e.log, "engine: call gave up", "op", c.op, "attempts", c.attempts, "err", err)
	return fmt.Errorf("engine: %s: %w: %w", c.op, stockade.Errorf(stockade.EUnavailable, msg), err)
}

// retry runs fn until it returns an error that does not wrap
// stockade.ErrConflict, pausing between attempts with jittered
// exponential backoff. It stops when ctx ends, or earlier when the next
// pause would outlast ctx's deadline, and then returns the last conflict.
func (c *call) retry(ctx context.Context, fn func(ctx context.Context) error) error {
	backoff := c.e.opts.MinBackoff
	for {
		c.attempts++
		err := fn(ctx)
		if !errors.Is(err, stockade.ErrConflict) {
			return err
		}
		pause := backoff/2 + mathrand.N(backoff/2+1)
		backoff = min(2*backoff, c.e.opts.MaxBackoff)
		if d, ok := ctx.Deadline(); ok && time.Until(d) < pause {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		c.retries++
	}
}

// update runs fn in a write transaction, retried whole on conflicts, and
// wakes the readers waiting for events once it commits.
func (c *call) update(ctx context.Context, fn func(tx stockade.Tx) error) error {
	err := c.retry(ctx, func(ctx context.Context) error { return c.e.store.Update(ctx, fn) })
	if err == nil {
		c.e.written.notify()
	}
	return err
}

// view runs fn in a read transaction.
func (c *call) view(ctx context.Context, fn func(tx stockade.Tx) error) error {
	c.attempts++
	return c.e.store.View(ctx, fn)
}

// peek runs fn's reads each on its own (stockade.Store.Peek).
func (c *call) peek(ctx context.Context, fn func(tx stockade.Tx) error) error {
	c.attempts++
	return c.e.store.Peek(ctx, fn)
}

// conflictf returns an error wrapping stockade.ErrConflict: the call is
// retried.
func conflictf(format string, args ...any) error {
	return fmt.Errorf("engine: %s: %w", fmt.Sprintf(format, args...), stockade.ErrConflict)
}

// isRefusal reports whether err is a refusal (a *stockade.Error) rather
// than a failure.
func isRefusal(err error) bool {
	_, ok := errors.AsType[*stockade.Error](err)
	return ok
}

// refuse returns a refusal with code and a formatted message.
func refuse(code, format string, args ...any) error {
	return stockade.Errorf(code, fmt.Sprintf(format, args...))
}

func ptr[T any](v T) *T { return &v }
