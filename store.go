package stockade

import (
	"context"
	"errors"
	"time"
)

// ErrConflict is wrapped by store errors that a concurrent transaction
// caused and that a retry of the whole transaction may cure: PostgreSQL's
// serialization failures (40001) and deadlocks (40P01), a unique key that a
// concurrent transaction inserted first, SQLite's busy database. The engine
// retries them within the request's deadline; callers never see them.
var ErrConflict = errors.New("stockade: transaction conflict, retry")

// ErrUnavailable is wrapped by store errors that mean the database cannot
// be reached or cannot take the write: it refused or dropped the
// connection, is shutting down or starting up, is a standby, did not
// confirm a commit as durable, or its file cannot be opened or read. The
// engine answers them with EUnavailable (HTTP 503): the request may
// succeed later, but the store cannot tell whether one that failed at
// commit took effect, so the client retries with its idempotency key.
var ErrUnavailable = errors.New("stockade: the database cannot be reached")

// ErrUnsupported is returned by a store for a feature it does not have,
// such as advisory locks on SQLite.
var ErrUnsupported = errors.New("stockade: not supported by this store")

// Store is a stockade database. The sqlite and postgres packages implement
// it and both pass storetest.Run.
type Store interface {
	// Update runs fn in a read-write transaction and commits if fn returns
	// nil; otherwise it rolls back and returns fn's error. Errors from the
	// database that a retry may cure wrap ErrConflict. It returns nil only
	// for a commit that is durable as the database is configured to make
	// it (with a synchronous standby, once the standby has it).
	Update(ctx context.Context, fn func(tx Tx) error) error

	// View runs fn in a read-only transaction. All its reads see one
	// consistent snapshot (reconcile compares levels with ledger sums).
	View(ctx context.Context, fn func(tx Tx) error) error

	// Peek runs fn's reads each on its own: each sees what had committed
	// when it began, none takes a lock, and a write fails. Where a
	// transaction costs the database round trips (PostgreSQL), Peek saves
	// them to a read of one statement, which needs no snapshot in common
	// with another; reads that must agree use View.
	Peek(ctx context.Context, fn func(tx Tx) error) error

	// Features says which locking primitives the store offers.
	Features() Features

	// Ping checks that the database answers and can take writes.
	Ping(ctx context.Context) error

	// Close closes the store.
	Close() error
}

// EventSignaler is implemented by a store whose database can tell it
// that events committed, whoever committed them: the PostgreSQL store,
// through LISTEN/NOTIFY. An engine wakes its readers of events with it
// when another instance writes, instead of waiting for its next poll.
type EventSignaler interface {
	// EventsCommitted returns a channel that closes when the store next
	// hears that a transaction that appended events committed, in this
	// process or another on the same database. The signal may come more
	// than once for one commit, or (when the store cannot listen) not at
	// all: readers still poll, less often. After Close it is closed.
	EventsCommitted() <-chan struct{}
}

// Features are the locking primitives a store offers; the engine picks
// its strategies' fallbacks from them.
type Features struct {
	// RowLocks: LevelList with Lock takes row locks (SELECT …
	// FOR UPDATE). Without them, a write transaction holds the whole
	// database (SQLite), which serialises writers anyway.
	RowLocks bool
	// AdvisoryLocks: Tx.AdvisoryLock works.
	AdvisoryLocks bool
	// SkipLocked: ReservationLapseCandidates without keys and
	// HoldLapseCandidates without an event skip the rows that another
	// transaction has locked, so sweepers on many instances share work.
	SkipLocked bool
}

// Tx is one transaction on a Store. Every method returns *Error with
// ENotFound for a missing row, where it says so; other errors are internal
// (or wrap ErrConflict).
//
// Its methods are named noun first, then verb, and grouped by noun:
// LocationPut, LevelList, ReservationGet and ReservationGetMany,
// HoldSetStatus. A read that may lock rows takes a query value that says
// so (ByID, ByIDs, ByTarget, LevelQuery, SeatFilter: Lock), never a bare
// flag. Rules (which reservation lapses, what a strategy checks) live in
// the engine; a method stores and finds, and checks only what keeps the
// data whole (counters never below zero, a seat moved only from the
// status it is in).
//
// Who may implement it: the sqlite and postgres packages do, and a store
// of another database may, if it passes storetest.Run, which is the
// contract's test; the engine is its one caller. Tests may wrap a Tx,
// embedding it, to count calls or inject faults.
type Tx interface {
	// Locations.

	// LocationPut creates or replaces a location.
	LocationPut(ctx context.Context, loc Location) error

	// LocationList returns the locations with the given ids, or all of them
	// when ids is empty, sorted by id. Missing ids are left out.
	LocationList(ctx context.Context, ids ...string) ([]Location, error)

	// Levels, and the totals of SKUs.

	// LevelList returns the levels that q selects, in key order, locking
	// their rows (taken in key order) with q.Lock.
	LevelList(ctx context.Context, q LevelQuery) ([]Level, error)

	// LevelSetOnHand sets a level's on-hand quantity, creating the level (at
	// location, which must exist) if it is missing. With expectedVersion
	// non-nil the write happens only if the level's version equals it (a
	// missing level has version 0); ok is false otherwise. It returns the
	// level after the write, or with ok false the current level (the zero
	// Level if missing). A negative onHand is refused with EInvalid and one
	// below reserved + committed with EInsufficientStock, changing nothing.
	LevelSetOnHand(ctx context.Context, k Key, onHand int64, expectedVersion *int64) (l Level, ok bool, err error)

	// LevelUpdate adds d to the level at k and bumps its version if the
	// level exists, guard holds, and no counter nor available would go
	// below zero; it then returns the new level and true. Otherwise it
	// changes nothing and returns false: that is how the atomic strategy
	// checks availability and writes in one statement.
	LevelUpdate(ctx context.Context, k Key, d Delta, guard Guard) (Level, bool, error)

	// LevelUpdateMany adds each change's delta to its level as LevelUpdate
	// does without a guard, in one statement where the store can, and
	// returns the levels it changed, in key order. A change whose level is
	// missing, or where a counter or available would go below zero, is
	// left out and changes nothing; the caller decides whether the others
	// stand. The keys must be distinct. The store may lock the rows in any
	// order: lock them first (LevelList with Lock) to keep key order.
	LevelUpdateMany(ctx context.Context, changes []LevelChange) ([]Level, error)

	// SKUTotalList returns the totals of the SKUs that have a level, in SKU
	// (byte) order: those after after ("" for from the first), from from
	// and before to ("" for no end), at most limit of them. Available is
	// left zero: the caller sums it.
	SKUTotalList(ctx context.Context, after, from, to string, limit int) ([]SKUTotals, error)

	// LevelListAt returns the levels at location, in SKU order, as
	// SKUTotalList selects SKUs: after after, from from and before to, at
	// most limit of them.
	LevelListAt(ctx context.Context, location, after, from, to string, limit int) ([]Level, error)

	// The ledger, and what records hold.

	// MovementAppend adds rows to the ledger; the store assigns IDs.
	MovementAppend(ctx context.Context, ms ...Movement) error

	// MovementList returns ledger rows matching f in id order, oldest first.
	// The service pages with AfterID set to the last id of the page before
	// (its cursor). Where ids are handed out in commit order (SQLite) that
	// walk misses nothing; where they are handed out at insert
	// (PostgreSQL), a row may commit after a larger id was read, so AfterID
	// is not a gap-free cursor while writes are in progress (see
	// MovementPage).
	MovementList(ctx context.Context, f MovementFilter) ([]Movement, error)

	// MovementSums returns the sum of the movements of every level that has
	// any.
	MovementSums(ctx context.Context) (map[Key]Delta, error)

	// AllocationSums returns, for every level that records hold units of, the
	// sums of those units: Reserved, of the allocations of held
	// reservations (lapsed ones too, until they are expired); Committed, of
	// the allocations of committed orders less what they have shipped.
	// OnHand is zero.
	AllocationSums(ctx context.Context) (map[Key]Delta, error)

	// Reservations.

	// ReservationInsert stores new reservations, in one statement where
	// the store can. An id in use is an error (on PostgreSQL it wraps
	// ErrConflict, so generate ids inside the retried function).
	ReservationInsert(ctx context.Context, rs ...Reservation) error

	// ReservationGet returns a reservation (ENotFound if there is none).
	ReservationGet(ctx context.Context, q ByID) (Reservation, error)

	// ReservationGetMany returns the reservations of q that exist.
	ReservationGetMany(ctx context.Context, q ByIDs) ([]Reservation, error)

	// ReservationList returns the reservations that match f, newest
	// first (by created_at, then id, both descending).
	ReservationList(ctx context.Context, f ListFilter) ([]Reservation, error)

	// ReservationSetStatus moves a reservation from status from to to (and
	// sets its order id when orderID is not empty) and reports whether it
	// was in status from.
	ReservationSetStatus(ctx context.Context, id string, from, to ReservationStatus, orderID string) (bool, error)

	// ReservationLapseCandidates returns the candidates of q: held
	// reservations that expired strictly before q.ExpiredBefore, in
	// (ExpiresAt, ID) order after q.After, at most q.Limit of them, each
	// with the status of its payment. Which of them lapse is the engine's
	// rule, not the store's. Without q.Keys (a sweeper), each is locked for
	// the transaction, its payment's status read once it is, and a store
	// with SkipLocked leaves out those that another transaction has
	// locked, so sweepers share the work; a page of fewer than q.Limit is
	// the last, but where a row another transaction changed was left out.
	// With q.Keys (a request that needs their stock), only those with an
	// allocation on one of them, read without locks: the caller locks the
	// ones it expires (Reservations) and checks them again, so that a
	// reservation its payment keeps never holds up the requests for its
	// stock.
	ReservationLapseCandidates(ctx context.Context, q ReservationLapseQuery) ([]ReservationLapseCandidate, error)

	// Orders.

	// OrderInsert stores new orders, at version 1 and with nothing
	// shipped, in one statement where the store can. An id in use is an
	// error, as for ReservationInsert.
	OrderInsert(ctx context.Context, orders ...Order) error

	// OrderGet returns an order (ENotFound if there is none).
	OrderGet(ctx context.Context, q ByID) (Order, error)

	// OrderList returns the orders that match f, newest first (by
	// created_at, then id, both descending).
	OrderList(ctx context.Context, f ListFilter) ([]Order, error)

	// OrderSetStatus moves an order from status from to to, one version
	// on, and reports whether it was in status from.
	OrderSetStatus(ctx context.Context, id string, from, to OrderStatus) (bool, error)

	// OrderUpdate writes o's status, shipped allocations and version over
	// the order with o's id if its version is o.Version-1, and reports
	// whether it was.
	OrderUpdate(ctx context.Context, o Order) (bool, error)

	// Shipments.

	// ShipmentInsert stores new shipments. An id in use is an error, as
	// for OrderInsert; the order must exist.
	ShipmentInsert(ctx context.Context, ss ...Shipment) error

	// ShipmentList returns the shipments of f's order that f selects,
	// newest first (by created_at, then id, both descending).
	ShipmentList(ctx context.Context, f ShipmentFilter) ([]Shipment, error)

	// Metadata.

	// MetadataSet writes m over the metadata of the aggregate id, a
	// reservation, order, hold, booking or payment (aggregate is one of
	// those Aggregate names), and reports whether it exists; it changes
	// nothing else, its version included. Another aggregate name is an
	// internal error.
	MetadataSet(ctx context.Context, aggregate, id string, m Metadata) (bool, error)

	// Idempotency records.

	// IdempotencyGetMany returns the records of keys that exist, in key order.
	// In an Update it holds every key until the transaction ends, so that
	// reading keys and then writing them with IdempotencyPut is atomic: a
	// second transaction that reads one of them waits, and then reads what
	// the first wrote. It takes the keys in one fixed order chosen by the
	// store, so that callers never wait in a cycle.
	IdempotencyGetMany(ctx context.Context, keys []string) ([]IdempotencyRecord, error)

	// IdempotencyPut inserts or replaces the records for each rec.Key.
	// The keys must be distinct.
	IdempotencyPut(ctx context.Context, recs ...IdempotencyRecord) error

	// IdempotencyPurge removes records created strictly before before and
	// returns how many.
	IdempotencyPurge(ctx context.Context, before time.Time) (int, error)

	// API keys.

	// KeyInsert stores a new API key. An id or name in use is an error
	// wrapping ErrConflict; check with KeyGetByName first.
	KeyInsert(ctx context.Context, k APIKey) error

	// KeyGet returns the API key with the given id (ENotFound if there is
	// none), revoked or not.
	KeyGet(ctx context.Context, id string) (APIKey, error)

	// KeyGetByName returns the API key with the given name, if there is one.
	KeyGetByName(ctx context.Context, name string) (APIKey, bool, error)

	// KeyList returns up to limit API keys with an id greater than after,
	// in id order.
	KeyList(ctx context.Context, after string, limit int) ([]APIKey, error)

	// KeyRevoke sets the revocation time of a live key and reports
	// whether the key was live.
	KeyRevoke(ctx context.Context, id string, at time.Time) (bool, error)

	// The outbox of events, and the relays that publish it.

	// EventAppend adds events to the outbox; the store gives each its
	// position.
	EventAppend(ctx context.Context, evs ...DomainEvent) error

	// EventList returns the events that match f, after f.After in position
	// order, with their positions: only those that no transaction still
	// running can come before. A reader that pages by the last position
	// it read therefore never misses an event that commits later, nor
	// reads one twice. On SQLite, whose one writer makes ids follow
	// commits, that is every committed event; on PostgreSQL, the events of
	// transactions older than the oldest one still running (the
	// snapshot's xmin), ordered by transaction id: a transaction that
	// began earlier but commits later is waited for, not skipped. So one
	// long write transaction anywhere on the PostgreSQL server holds every
	// reader back until it ends: events are late then, never lost. Read
	// in a View: an Update that has written reads nothing written since.
	EventList(ctx context.Context, f DomainEventFilter) ([]DomainEvent, error)

	// EventLatestPosition returns the head of the outbox: a position that
	// every event Events returns now is at or before, and every event it
	// returns only later is after. A reader that starts there reads the
	// events that become readable from now on, each once, and none of
	// those readable already. On SQLite it is the largest seq (the zero
	// position when there is no event); on PostgreSQL, the end of the
	// transactions older than the snapshot's xmin, so that an event
	// already committed but held back by an older transaction still
	// running comes after it. Read it in a View, as Events.
	EventLatestPosition(ctx context.Context) (EventPosition, error)

	// EventPrune deletes, of the first limit events by position, those
	// written strictly before before that every relay has published (at
	// or before its checkpoint, see RelayLock), and returns how many.
	// Positions follow time closely, so these are the oldest events, and
	// the work is bounded however many younger events there are.
	EventPrune(ctx context.Context, before time.Time, limit int) (int, error)

	// RelayLock takes the turn of the relay named name (an outbox relay
	// to a broker) until the transaction ends, and returns its checkpoint:
	// the position of the last event it published, the zero position if
	// none. ok is false, and nothing is taken, when another transaction
	// has the turn: another instance is relaying. Taking the turn gives
	// the transaction no transaction id (it would hold back every reader
	// of events while the relay waits for its broker).
	RelayLock(ctx context.Context, name string) (pos EventPosition, ok bool, err error)

	// RelaySetPosition moves the checkpoint of the relay named name,
	// whose turn the transaction has, to pos.
	RelaySetPosition(ctx context.Context, name string, pos EventPosition) error

	// Advisory locks.

	// AdvisoryLock takes a transaction-scoped advisory lock on each key,
	// waiting for each, in one fixed order chosen by the store so that
	// callers never wait in a cycle; they are released at commit or
	// rollback. ErrUnsupported where Features().AdvisoryLocks is false.
	AdvisoryLock(ctx context.Context, keys []Key) error

	BookingTx
	PaymentTx
	WebhookTx
	RoomTx
}

// PaymentTx is the part of a transaction that keeps payments, their
// history and the inbox of the outcomes applied to them. Every method
// returns *Error with ENotFound for a missing row where it says so;
// other errors are internal (or wrap ErrConflict).
//
// ReservationLapseCandidates and HoldLapseCandidates return each
// candidate with the status of its payment, read once the candidate is
// locked: the engine keeps the targets whose payment is in flight
// (PaymentStatus.InFlight), and finds their payments stuck through
// PaymentLapseCandidates. That status holds until the transaction ends
// only if a payment's status changes under its target's row lock: change
// a payment with the target's row locked (ReservationGet, HoldGet or OrderGet with
// Lock), then the payment's (PaymentGet with Lock), in that order.
type PaymentTx interface {
	// Payments.

	// PaymentInsert stores a new payment. An id in use, or a target that
	// has a payment already, is an error wrapping ErrConflict: read with
	// PaymentGetByTarget first, under the target's row lock.
	PaymentInsert(ctx context.Context, p Payment) error

	// PaymentGet returns a payment (ENotFound if there is none).
	PaymentGet(ctx context.Context, q ByID) (Payment, error)

	// PaymentGetMany returns the payments of q that exist.
	PaymentGetMany(ctx context.Context, q ByIDs) ([]Payment, error)

	// PaymentGetByTarget returns the payment of q's target, if it has
	// one, locking its row with q.Lock.
	PaymentGetByTarget(ctx context.Context, q ByTarget) (Payment, bool, error)

	// PaymentList returns the payments that match f, newest first (by
	// created_at, then id, both descending).
	PaymentList(ctx context.Context, f PaymentFilter) ([]Payment, error)

	// PaymentUpdate writes p's status, resolution, order, booking,
	// stuck time, update time and version over the payment with p's id
	// if its version is p.Version-1, and reports whether it was.
	PaymentUpdate(ctx context.Context, p Payment) (bool, error)

	// PaymentLapseCandidates returns the candidates of q: the payments,
	// whatever their status, whose target is a held reservation or hold
	// that expired strictly before q.TargetExpiredBefore, each with its
	// target's expiry, in (target's ExpiresAt, payment ID) order after
	// q.After, at most q.Limit of them. Which of them are stuck is the
	// engine's rule. It locks nothing: lock the target, then the payment,
	// and check again.
	PaymentLapseCandidates(ctx context.Context, q PaymentLapseQuery) ([]PaymentLapseCandidate, error)

	// The history of payments.

	// PaymentChangeAppend adds rows to the payments' history.
	PaymentChangeAppend(ctx context.Context, cs ...PaymentChange) error

	// PaymentChangeList returns the history of a payment, oldest first.
	PaymentChangeList(ctx context.Context, paymentID string) ([]PaymentChange, error)

	// The inbox of outcomes.

	// OutcomeInsert adds the outcomes' ids to the inbox, and returns
	// the ids of those that were new, in id order: the others were
	// recorded before (by a transaction that committed; one still running
	// is waited for). The records commit or roll back with the
	// transaction, so an outcome counts as applied exactly when its effect
	// committed. The event ids must be distinct. The store takes them in
	// id order, so that transactions that each record one set at once
	// never wait for each other in a cycle, however their sets overlap.
	OutcomeInsert(ctx context.Context, outcomes []OutcomeRecord, at time.Time) ([]string, error)

	// OutcomeDelete removes the inbox records of the event ids, so that
	// outcomes this transaction recorded and then refused are not counted
	// as applied when it commits. It returns how many it removed.
	OutcomeDelete(ctx context.Context, eventIDs []string) (int, error)

	// OutcomePurge removes inbox records made strictly before before
	// and returns how many.
	OutcomePurge(ctx context.Context, before time.Time) (int, error)
}

// ByID selects one row by its id, for the Get methods of Tx.
type ByID struct {
	ID string
	// Lock locks the row for the rest of the transaction.
	Lock bool
}

// ByIDs selects rows by id, for the GetMany methods of Tx: those that
// exist, in id order.
type ByIDs struct {
	IDs []string
	// Lock locks the rows for the rest of the transaction, taken in id
	// order.
	Lock bool
}

// ByTarget selects the payment of a target, for Tx.PaymentGetByTarget.
type ByTarget struct {
	Target PaymentTarget
	// Lock locks the payment's row for the rest of the transaction.
	Lock bool
}

// LevelQuery selects levels for Tx.LevelList by one of its fields: the
// levels among Keys that exist, every level of the SKUs, or, with All,
// every level. The zero LevelQuery selects none; one that sets more than
// one of them is an error (see Check).
type LevelQuery struct {
	Keys []Key
	SKUs []string
	All  bool
	// Lock locks the levels' rows for the rest of the transaction, taken
	// in key order.
	Lock bool
}

// Check returns an error if q selects by more than one of Keys, SKUs and
// All.
func (q LevelQuery) Check() error {
	n := 0
	for _, set := range []bool{len(q.Keys) > 0, len(q.SKUs) > 0, q.All} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("stockade: a LevelQuery selects by one of Keys, SKUs and All")
	}
	return nil
}

// LapseCursor is a place in the order of lapse candidates: by expiry,
// then by id in byte order. A page after it holds the candidates that
// expire later than ExpiresAt, or at ExpiresAt with an id greater than
// ID. The zero LapseCursor is before the first candidate.
type LapseCursor struct {
	ExpiresAt time.Time
	ID        string
}

// ReservationLapseQuery selects the candidates of
// Tx.ReservationLapseCandidates.
type ReservationLapseQuery struct {
	// ExpiredBefore is the bound: reservations that expired strictly
	// before it.
	ExpiredBefore time.Time
	// Keys, if any, keeps the reservations with an allocation on one of
	// them, and makes the store wait for rows that others have locked.
	Keys []Key
	// After is the cursor: candidates after it (its ID a reservation's).
	After LapseCursor
	// Limit is the most candidates returned; 0 or less for all.
	Limit int
}

// ReservationLapseCandidate is a held reservation past its expiry, and
// what the rule of lapse reads besides: its payment's status.
type ReservationLapseCandidate struct {
	Reservation Reservation
	// Payment is the status of the reservation's payment, "" if it has
	// none.
	Payment PaymentStatus
}

// HoldLapseQuery selects the candidates of BookingTx.HoldLapseCandidates.
type HoldLapseQuery struct {
	// ExpiredBefore is the bound: holds that expired strictly before it.
	ExpiredBefore time.Time
	// ShowID, if not empty, keeps the event's holds, and makes the
	// store wait for rows that others have locked.
	ShowID string
	// After is the cursor: candidates after it (its ID a hold's).
	After LapseCursor
	// Limit is the most candidates returned; 0 or less for all.
	Limit int
}

// HoldLapseCandidate is a held hold past its expiry, and what the rule of
// lapse reads besides: its payment's status.
type HoldLapseCandidate struct {
	Hold Hold
	// Payment is the status of the hold's payment, "" if it has none.
	Payment PaymentStatus
}

// PaymentLapseQuery selects the candidates of
// PaymentTx.PaymentLapseCandidates.
type PaymentLapseQuery struct {
	// TargetExpiredBefore is the bound: payments whose target expired
	// strictly before it.
	TargetExpiredBefore time.Time
	// After is the cursor: candidates after it, ExpiresAt a target's
	// expiry and ID a payment's.
	After LapseCursor
	// Limit is the most candidates returned; 0 or less for all.
	Limit int
}

// PaymentLapseCandidate is the payment of a held reservation or hold
// past its expiry, and when that target expires.
type PaymentLapseCandidate struct {
	Payment         Payment
	TargetExpiresAt time.Time
}

// PaymentFilter selects payments for PaymentList. Zero fields match
// everything.
type PaymentFilter struct {
	Status PaymentStatus
	// Stuck keeps the payments that are stuck (Payment.Stuck).
	Stuck bool
	// Resolution, if not nil, keeps the payments with this resolution.
	Resolution *PaymentResolution
	// Owner is the id of the API key that created them.
	Owner string
	// Metadata keeps those whose metadata holds each of its keys with its
	// value.
	Metadata Metadata
	// BeforeAt and BeforeID are the cursor, as in ListFilter.
	BeforeAt time.Time
	BeforeID string
	// Limit is the most rows returned; it is always set (1 or more).
	Limit int
}

// OutcomeRecord is an outcome as the inbox keeps it: its event id and
// the payment it is about.
type OutcomeRecord struct {
	EventID, PaymentID string
}

// Guard is the condition of an LevelUpdate beyond "nothing goes negative".
type Guard struct {
	// Version, if not nil, must equal the level's version (optimistic
	// strategy).
	Version *int64
	// Fence, if not zero, must be at least the level's fence, which is
	// then set to it (lock strategy: a stale lock holder's write fails).
	// At most math.MaxInt64; larger is EInvalid.
	Fence uint64
}

// LevelChange is a delta to one level, for LevelUpdateMany.
type LevelChange struct {
	Key
	Delta
}

// MovementFilter selects ledger rows. Zero fields match everything.
type MovementFilter struct {
	SKU      string
	Location string
	Ref      string
	AfterID  int64 // rows with a larger ID
	Limit    int   // at most this many; 0 means the store's default, DefaultMovementLimit
}

// ListFilter selects reservations, orders, holds or bookings for
// ReservationList, OrderList, HoldList and BookingList. Zero fields match
// everything.
type ListFilter struct {
	// Status is a ReservationStatus, an OrderStatus, a HoldStatus or a
	// BookingStatus.
	Status string
	// ShowID is the show of holds or bookings.
	ShowID string
	// Metadata keeps the reservations or orders whose metadata holds each
	// of its keys with its value.
	Metadata Metadata
	// Owner is the id of the API key that created them.
	Owner string
	// CreatedAfter and CreatedBefore bound created_at: at or after
	// CreatedAfter, strictly before CreatedBefore.
	CreatedAfter, CreatedBefore time.Time
	// Before is the cursor: only rows that come after it in the list's
	// order (created_at, id descending), that is, created strictly before
	// BeforeAt, or at BeforeAt with an id smaller than BeforeID. Zero
	// BeforeAt: from the newest.
	BeforeAt time.Time
	BeforeID string
	// Limit is the most rows returned; it is always set (1 or more).
	Limit int
}

// IdempotencyRecord is what the service remembers of a call that carried
// an idempotency key and succeeded: which call it was and its result.
type IdempotencyRecord struct {
	Key string
	// Op is the Service method that ran ("reserve", "confirm", …).
	Op string
	// Fingerprint identifies the request (see Idempotency.Fingerprint).
	Fingerprint string
	// Result is the call's result in JSON, the encoding of the domain
	// value (a Reservation, an Order, …) that the call returned.
	Result    []byte
	CreatedAt time.Time
}

// BookingTx is the part of a transaction that keeps events (shows), their
// seats and general-admission areas, holds, bookings and the seat
// history. Every method returns *Error with ENotFound for a missing row
// where it says so; other errors are internal (or wrap ErrConflict).
type BookingTx interface {
	// Shows.

	// ShowPut creates or replaces an event's row: its id, name, focal
	// point, map as given (Rows and the areas' names, categories and
	// capacities), CreatedAt and Version. Seats and areas are written by
	// SeatPut and AreaPut.
	ShowPut(ctx context.Context, e Show) error

	// ShowGet returns a show (ENotFound if there is none), its Areas with
	// their current counts.
	ShowGet(ctx context.Context, q ByID) (Show, error)

	// ShowGetHead returns a show as ShowGet does, but without its seat
	// map: Rows nil, and Areas those of the show in name order. It is
	// what a hold needs of a show at every call, without decoding the
	// map.
	ShowGetHead(ctx context.Context, q ByID) (Show, error)

	// ShowList returns up to limit events with an id greater than
	// after, in id order.
	ShowList(ctx context.Context, after string, limit int) ([]Show, error)

	// ShowListNewest returns the heads of the shows that match f (its
	// times and cursor; they have no status nor owner), newest first, as
	// ReservationList does: no Rows nor Areas.
	ShowListNewest(ctx context.Context, f ListFilter) ([]Show, error)

	// Seats, and their history.

	// SeatPut creates an event's seats or replaces them whole (layout,
	// status, hold and booking), in one statement where the store can.
	// The event must exist.
	SeatPut(ctx context.Context, showID string, seats []Seat) error

	// SeatDelete deletes seats of an event and returns how many there
	// were.
	SeatDelete(ctx context.Context, showID string, ids []string) (int, error)

	// SeatList returns the seats of a show that match f, in seat order
	// (Seat.Compare), locking their rows (taken in seat order) with
	// f.Lock.
	SeatList(ctx context.Context, showID string, f SeatFilter) ([]Seat, error)

	// SeatFreeIDs returns the ids of an event's free seats, in seat
	// order: what a hold of best-available seats chooses from, read as
	// cheaply as the store can (an index of the free seats alone).
	SeatFreeIDs(ctx context.Context, showID string) ([]string, error)

	// SeatMoveMany applies the moves whose seat is where the move says it
	// is from (see SeatMove), in one statement where the store can, and
	// returns the ids of the seats it moved, in seat order. The others
	// change nothing; the caller decides whether the moves that were made
	// stand. The seats must be distinct.
	SeatMoveMany(ctx context.Context, showID string, moves []SeatMove) ([]string, error)

	// SeatCounts counts an event's seats by section, category and
	// status, in that order; only counts above zero.
	SeatCounts(ctx context.Context, showID string) ([]SeatCount, error)

	// SeatEpochGet reads a show's seat epoch (see SeatEpoch), its
	// version, the earliest expiry of its held holds and whether a room
	// holds it, in one snapshot and without a lock; ENotFound if the show
	// does not exist.
	SeatEpochGet(ctx context.Context, showID string) (SeatEpoch, error)

	// SeatEpochBump adds one to the seat epoch of a show, records taken
	// as the seats its transaction took under the new epoch (see
	// SeatEpochChanges), and returns the new value; the epoch stays
	// locked until the transaction ends. SeatMoveMany's own bumps record
	// the seats it freed.
	SeatEpochBump(ctx context.Context, showID string, taken []string) (int64, error)

	// SeatEpochChanges returns the recorded changes of a show's seat
	// epoch after epoch after, one per epoch in epoch order: what each
	// transaction that moved the epoch freed and took. The store keeps
	// at least the last SeatEpochKept of a show's changes; a caller
	// missing an epoch reads the seats again.
	SeatEpochChanges(ctx context.Context, showID string, after int64) ([]SeatEpochChange, error)

	// SeatChangeAppend adds rows to the seat history; the store assigns
	// their ids, in the order given.
	SeatChangeAppend(ctx context.Context, cs ...SeatChange) error

	// SeatChangeList returns the history rows of an event that match f, in
	// id order.
	SeatChangeList(ctx context.Context, showID string, f SeatChangeFilter) ([]SeatChange, error)

	// General-admission areas.

	// AreaPut creates an event's general-admission areas, or sets the
	// category and capacity of existing ones, keeping their counts. A
	// capacity below an area's held and booked places is refused with
	// EInvalidState, changing nothing.
	AreaPut(ctx context.Context, showID string, areas []Area) error

	// AreaDelete deletes the areas of an event with the given names
	// that have no place held or booked, and returns how many it deleted.
	AreaDelete(ctx context.Context, showID string, names []string) (int, error)

	// AreaMovePlaces adds held and booked to the counts of an event's area
	// if the area exists, neither count would go below zero, and held +
	// booked would stay within its capacity: it then returns the area
	// after the change and true. Otherwise it changes nothing and returns
	// false, with the area as it is (the zero Area if missing).
	AreaMovePlaces(ctx context.Context, showID, area string, held, booked int64) (Area, bool, error)

	// Holds.

	// HoldInsert stores new holds, in one statement where the store
	// can. An id in use is an error (on PostgreSQL it wraps ErrConflict).
	HoldInsert(ctx context.Context, hs ...Hold) error

	// HoldGet returns a hold (ENotFound if there is none).
	HoldGet(ctx context.Context, q ByID) (Hold, error)

	// HoldGetMany returns the holds of q that exist.
	HoldGetMany(ctx context.Context, q ByIDs) ([]Hold, error)

	// HoldList returns the holds that match f, newest first, as
	// ReservationList does.
	HoldList(ctx context.Context, f ListFilter) ([]Hold, error)

	// HoldSetStatus moves the holds that moves name (distinct ids) from
	// status from to to, each setting its booking id where the move
	// names one, in one statement where the store can, and returns how
	// many moved: a hold not in status from, or none, does not.
	HoldSetStatus(ctx context.Context, from, to HoldStatus, moves ...HoldMove) (int, error)

	// HoldExtend sets a held hold's expiry and reports whether it was
	// held.
	HoldExtend(ctx context.Context, id string, expiresAt time.Time) (bool, error)

	// HoldLapseCandidates returns the candidates of q: held holds that
	// expired strictly before q.ExpiredBefore, in (ExpiresAt, ID) order
	// after q.After, at most q.Limit of them, each with the status of its
	// payment, as ReservationLapseCandidates does. Without q.ShowID (a
	// sweeper), each is locked, its payment's status read once it is, and
	// a store with SkipLocked leaves out those another transaction has
	// locked. With a show (a hold that needs the show's seats), only the
	// show's, read without locks: the caller locks those it expires (Holds)
	// and checks them again.
	HoldLapseCandidates(ctx context.Context, q HoldLapseQuery) ([]HoldLapseCandidate, error)

	// Bookings.

	// BookingInsert stores new bookings. An id in use is an error, as
	// for HoldInsert.
	BookingInsert(ctx context.Context, bs ...Booking) error

	// BookingGet returns a booking (ENotFound if there is none).
	BookingGet(ctx context.Context, q ByID) (Booking, error)

	// BookingList returns the bookings that match f, newest first, as
	// ReservationList does.
	BookingList(ctx context.Context, f ListFilter) ([]Booking, error)

	// BookingSetStatus moves a booking from status from to to and
	// reports whether it was in status from.
	BookingSetStatus(ctx context.Context, id string, from, to BookingStatus) (bool, error)
}

// HoldMove names a hold for BookingTx.HoldSetStatus, and the booking it
// was confirmed into ("" to keep the one it has).
type HoldMove struct {
	Hold    string
	Booking string
}

// SeatFilter selects seats for BookingTx.SeatList. Zero fields match
// everything.
type SeatFilter struct {
	// IDs keeps these seats; ids that do not exist are left out.
	IDs     []string
	Status  SeatStatus
	Section string
	// After, if not nil, keeps the seats after it in seat order (its
	// Section, Row and Order are read): the cursor of a page.
	After *Seat
	// Limit is the most seats returned; 0 for all.
	Limit int
	// Lock locks the seats' rows for the rest of the transaction, taken
	// in seat order.
	Lock bool
}

// SeatMove moves one seat from status From to status To. The seat must
// be in From; where From is SeatHeld it must be held by Hold, and where
// From is SeatBooked booked by Booking. To SeatHeld sets Hold as the
// seat's hold; to SeatBooked sets Booking as its booking and keeps Hold;
// to SeatFree or SeatBlocked clears both.
type SeatMove struct {
	Seat     string
	From, To SeatStatus
	Hold     string
	Booking  string
}

// EpochChange returns what moves did to a show's free seats, given the
// seats that SeatMoveMany moved of them: the seats they freed and those
// they took out of SeatFree. A store's SeatMoveMany bumps the seat epoch
// with them when it freed any.
func EpochChange(moves []SeatMove, moved []string) (freed, taken []string) {
	if len(moved) == 0 {
		return nil, nil
	}
	done := make(map[string]bool, len(moved))
	for _, id := range moved {
		done[id] = true
	}
	for _, m := range moves {
		switch {
		case !done[m.Seat] || m.From == m.To:
		case m.To == SeatFree:
			freed = append(freed, m.Seat)
		case m.From == SeatFree:
			taken = append(taken, m.Seat)
		}
	}
	return freed, taken
}

// SeatEpoch is what BookingTx.SeatEpochGet reads of a show: whether a
// copy of its free seats read earlier still holds, whether any of its
// holds may have lapsed since, and whether a room is in front of it.
type SeatEpoch struct {
	// Epoch grows in every transaction that frees seats of the show
	// (SeatMoveMany to SeatFree, from any status) and at every
	// SeatEpochBump; it is 0 until the first. A copy of the show's free
	// seats read in a transaction that saw epoch E, at the same Version,
	// still holds in a later transaction that sees E, but for seats that
	// writers who do not bump it took meanwhile.
	Epoch int64
	// Version is the show's Version.
	Version int64
	// HeldUntil is the earliest expiry of the show's held holds, zero if
	// it has none: none of them has lapsed before it.
	HeldUntil time.Time
	// Gated: a room holds the show (RoomHolding of its ShowTarget finds
	// it).
	Gated bool
}

// SeatEpochKept is how many of a show's latest seat epoch changes a store
// keeps at least (BookingTx.SeatEpochChanges).
const SeatEpochKept = 1000

// SeatEpochChange is what one transaction that moved a show's seat epoch
// changed: the seats it freed (SeatMoveMany to SeatFree) and those it
// took out of SeatFree and recorded (SeatEpochBump), in no particular
// order. Epochs are taken in the order their transactions commit, so a
// copy of a show's free seats as of epoch E is brought to epoch F by
// applying the changes E+1 … F in order, but for seats that writers who
// do not bump the epoch took meanwhile.
type SeatEpochChange struct {
	Epoch int64
	Freed []string
	Taken []string
}

// SeatCount is how many seats of a section and category are in a status.
type SeatCount struct {
	Section  string     `json:"section"`
	Category string     `json:"category,omitempty"`
	Status   SeatStatus `json:"status"`
	Count    int64      `json:"count"`
}

// SeatChangeFilter selects seat history rows. Zero fields match
// everything.
type SeatChangeFilter struct {
	Seat    string
	Area    string
	AfterID int64 // rows with a larger id
	Limit   int   // at most this many; 0 for all
}

// WebhookTx is the part of a transaction that keeps outbound webhooks:
// the endpoints, and the deliveries of events to them. Every method
// returns *Error with ENotFound for a missing row where it says so; other
// errors are internal (or wrap ErrConflict).
type WebhookTx interface {
	// WebhookEndpointInsert stores a new endpoint. An id in use wraps
	// ErrConflict.
	WebhookEndpointInsert(ctx context.Context, ep WebhookEndpoint) error

	// WebhookEndpointGet returns an endpoint (ENotFound if there is
	// none), locking its row with q.Lock.
	WebhookEndpointGet(ctx context.Context, q ByID) (WebhookEndpoint, error)

	// WebhookEndpointList returns up to limit endpoints with an id greater
	// than after, in id order.
	WebhookEndpointList(ctx context.Context, after string, limit int) ([]WebhookEndpoint, error)

	// WebhookEndpointUpdate writes ep's URL, events, description,
	// disabled state and reason, secrets, update time and version over the
	// endpoint with ep's id if its version is ep.Version-1, and reports
	// whether it was.
	WebhookEndpointUpdate(ctx context.Context, ep WebhookEndpoint) (bool, error)

	// WebhookEndpointDelete deletes an endpoint and its deliveries, and
	// reports whether there was one.
	WebhookEndpointDelete(ctx context.Context, id string) (bool, error)

	// WebhookDeliveryInsert stores new deliveries, giving each its Seq
	// in the order given. An id in use wraps ErrConflict.
	WebhookDeliveryInsert(ctx context.Context, ds ...WebhookDelivery) error

	// WebhookDeliveryGet returns a delivery of an endpoint (ENotFound if
	// the endpoint has none with that id).
	WebhookDeliveryGet(ctx context.Context, endpointID, id string) (WebhookDelivery, error)

	// WebhookDeliveryHeads returns the first pending delivery (by Seq) of
	// each aggregate of q's endpoint, those of them due at q.Before
	// (NextAttemptAt at or before it), in (NextAttemptAt, Seq) order, at
	// most q.Limit. Which of them to try is the caller's: a later
	// delivery of an aggregate is never among them while an earlier one
	// is pending, which keeps an aggregate's deliveries in order.
	WebhookDeliveryHeads(ctx context.Context, q WebhookHeadQuery) ([]WebhookDelivery, error)

	// WebhookDeliveryUpdate writes d's status, attempts, next attempt,
	// retry bound, last answer and version over the delivery with d's id if
	// its version is d.Version-1, and reports whether it was.
	WebhookDeliveryUpdate(ctx context.Context, d WebhookDelivery) (bool, error)

	// WebhookDeliveryList returns the deliveries of f's endpoint that
	// match f, newest first (by Seq, descending).
	WebhookDeliveryList(ctx context.Context, f WebhookDeliveryFilter) ([]WebhookDelivery, error)

	// WebhookDeliveryPrune deletes up to limit finished deliveries
	// (succeeded or failed) made before before, the oldest first, and
	// returns how many.
	WebhookDeliveryPrune(ctx context.Context, before time.Time, limit int) (int, error)
}

// WebhookHeadQuery selects the deliveries of WebhookTx.WebhookDeliveryHeads.
type WebhookHeadQuery struct {
	EndpointID string
	Before     time.Time
	Limit      int
}

// WebhookDeliveryFilter selects deliveries for WebhookDeliveryList.
type WebhookDeliveryFilter struct {
	EndpointID string
	// Status keeps those in one status; empty for all.
	Status WebhookDeliveryStatus
	// BeforeSeq keeps those with a smaller Seq; 0 for no bound.
	BeforeSeq int64
	Limit     int
}

// RoomTx is the part of a transaction that keeps waiting rooms and their
// visitors. A room holds its targets (Room.Targets) while its status
// gates (RoomStatus.Gates): no two such rooms hold one target. Every
// method returns *Error with ENotFound for a missing row where it says
// so; other errors are internal (or wrap ErrConflict). Which visitors to
// admit, and when, is the engine's (Room.Admissions); a method stores and
// finds.
type RoomTx interface {
	// RoomInsert stores a new room, holding its targets if its status
	// gates. An id in use, or a target that another room holds, wraps
	// ErrConflict.
	RoomInsert(ctx context.Context, r Room) error

	// RoomGet returns a room (ENotFound if there is none), locking its
	// row with q.Lock.
	RoomGet(ctx context.Context, q ByID) (Room, error)

	// RoomList returns up to limit rooms with an id greater than after, in
	// id order.
	RoomList(ctx context.Context, after string, limit int) ([]Room, error)

	// RoomListGating returns the rooms whose status gates, in id order:
	// those the admissions serve.
	RoomListGating(ctx context.Context) ([]Room, error)

	// RoomUpdate writes every field of r but its id, targets and creation
	// time over the room with r's id if its version is r.Version-1, and
	// reports whether it was. The room holds its targets while r's status
	// gates and lets them go when it does not; a target that another room
	// holds wraps ErrConflict.
	RoomUpdate(ctx context.Context, r Room) (bool, error)

	// RoomHolding returns the rooms that hold any of targets, in id
	// order.
	RoomHolding(ctx context.Context, targets []string) ([]Room, error)

	// RoomVisitorInsert stores new visitors of a room. A visitor already
	// in the room wraps ErrConflict, as does a position in use.
	RoomVisitorInsert(ctx context.Context, vs []RoomVisitor) error

	// RoomVisitorGetMany returns those of a room's visitors named by ids
	// that have joined, in visitor id order.
	RoomVisitorGetMany(ctx context.Context, roomID string, ids []string) ([]RoomVisitor, error)

	// RoomVisitorUnplace takes their positions from every visitor of a
	// room (all positions 0 again, their draws kept), and returns how many
	// had one.
	RoomVisitorUnplace(ctx context.Context, roomID string) (int64, error)

	// RoomVisitorDraw gives the room's visitors that have no position the
	// positions after+1, after+2, … in the order of their Draw, then of
	// their visitor id, and returns how many it gave: after is the last
	// position given before, as RoomAdmit.After is the last admitted.
	RoomVisitorDraw(ctx context.Context, roomID string, after int64) (int64, error)

	// RoomVisitorAdmit admits the room's visitors at positions after+1
	// through through: sets their AdmittedAt to at and ExpiresAt to
	// expires. It returns how many it admitted.
	RoomVisitorAdmit(ctx context.Context, q RoomAdmit) (int64, error)

	// RoomVisitorActivity counts the room's admissions in force at now:
	// the visitors admitted whose ExpiresAt is after now, and of them
	// those with no UsedAt.
	RoomVisitorActivity(ctx context.Context, roomID string, now time.Time) (RoomActivity, error)

	// RoomVisitorEnd ends a visitor's admission at at: sets its
	// ExpiresAt to at if the visitor is admitted and its admission is in
	// force after at, and reports whether it was.
	RoomVisitorEnd(ctx context.Context, roomID, visitorID string, at time.Time) (bool, error)

	// RoomVisitorUse sets UsedAt to at for the named visitors of a room
	// that have none.
	RoomVisitorUse(ctx context.Context, roomID string, ids []string, at time.Time) error
}

// RoomAdmit selects the visitors of RoomTx.RoomVisitorAdmit: those of
// the room at positions After+1 … Through, admitted at At until Expires.
type RoomAdmit struct {
	RoomID  string
	After   int64
	Through int64
	At      time.Time
	Expires time.Time
}
