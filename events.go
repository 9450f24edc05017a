package stockade

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
)

// Event types: one per state change the service makes. Each is written in
// the transaction of its change (a transactional outbox), so an event
// exists exactly when its change committed.
const (
	EventStockSet      = "stock.set"      // a level's on hand was set (level)
	EventStockAdjusted = "stock.adjusted" // a level's on hand was adjusted (level)
	// EventOutOfStock: a level's available fell to 0; EventBackInStock:
	// it rose from 0. Both come with the event of the change that moved it.
	EventOutOfStock  = "stock.out"
	EventBackInStock = "stock.in"

	EventReservationHeld      = "reservation.held"
	EventReservationConfirmed = "reservation.confirmed"
	EventReservationReleased  = "reservation.released"
	EventReservationExpired   = "reservation.expired"
	EventReservationUpdated   = "reservation.updated" // its metadata changed

	EventOrderCommitted = "order.committed" // a checkout, or a confirmed reservation
	EventOrderCancelled = "order.cancelled"
	EventOrderFulfilled = "order.fulfilled"
	EventOrderUpdated   = "order.updated" // its metadata changed
	// EventOrderShipped: part of an order, or the rest of it, left. Its
	// payload is the order after the shipment with the shipment under
	// "shipment"; the shipment that ships the last units comes with
	// EventOrderFulfilled too.
	EventOrderShipped = "order.shipped"

	EventShowPut = "event.put" // an event's seat map was created or changed

	EventHoldHeld      = "hold.held"
	EventHoldExtended  = "hold.extended"
	EventHoldConfirmed = "hold.confirmed"
	EventHoldReleased  = "hold.released"
	EventHoldExpired   = "hold.expired"
	EventHoldUpdated   = "hold.updated" // its metadata changed

	EventBookingBooked    = "booking.booked" // a confirmed hold
	EventBookingCancelled = "booking.cancelled"
	EventBookingUpdated   = "booking.updated" // its metadata changed

	EventPaymentCreated = "payment.created"
	// EventPaymentMoved: a payment's status moved (an outcome, or a
	// cancel).
	EventPaymentMoved = "payment.moved"
	// EventPaymentResolved: what the payment did to its target is
	// settled: confirmed, released, reordered or needs_refund (see
	// PaymentResolution).
	EventPaymentResolved = "payment.resolved"
	// EventPaymentStuck: a payment was still in flight when its target's
	// grace period ran out; its target is kept until a person or a late
	// outcome settles it.
	EventPaymentStuck = "payment.stuck"
	// EventPaymentUpdated: a payment's metadata changed.
	EventPaymentUpdated = "payment.updated"

	EventRoomCreated = "room.created" // a waiting room was put in front of a show or SKUs
	// EventRoomUpdated: an admin changed a room: its settings, its
	// metadata, or its status (closed, or open again).
	EventRoomUpdated = "room.updated"
	// EventRoomOpened: a room's opening came, and it admits from its
	// queue (under random_at_opening, in the order drawn then).
	EventRoomOpened = "room.opened"
	// EventRoomSoldOut: what a room stands in front of is sold out;
	// every visitor still waiting is told so, and the room stops queueing.
	EventRoomSoldOut = "room.sold_out"
)

// Aggregates: what an event is about.
const (
	AggregateLevel       = "level"       // id: "SKU@LOCATION" (Key.String)
	AggregateReservation = "reservation" // id: the reservation's id
	AggregateOrder       = "order"       // id: the order's id
	AggregateShow        = "event"       // id: the event's (the show's) id
	AggregateHold        = "hold"        // id: the hold's id
	AggregateBooking     = "booking"     // id: the booking's id
	AggregatePayment     = "payment"     // id: the payment's id
	AggregateRoom        = "room"        // id: the waiting room's id
)

// Aggregates are the kinds of aggregate, in the order of the constants.
var Aggregates = []string{
	AggregateLevel, AggregateReservation, AggregateOrder, AggregateShow, AggregateHold, AggregateBooking, AggregatePayment, AggregateRoom,
}

// DomainEvent is one state change, as the outbox keeps it. (An Event, in
// the bookings to come, is a show with seats.)
type DomainEvent struct {
	// ID is unique among events ("evt_…"): consumers drop a second
	// delivery by it, and a relay sends it as the message id.
	ID   string `json:"id"`
	Type string `json:"type"`
	// Aggregate and AggregateID name what changed.
	Aggregate   string `json:"aggregate"`
	AggregateID string `json:"aggregate_id"`
	// Version is the aggregate's version after the change: a level's
	// Version; for a reservation 1 when held and 2 once it is confirmed,
	// released or expired; for an order 1 when committed and one more at
	// each shipment, cancel or fulfilment. The events of one change share
	// it. An update of metadata alone (the *.updated events) leaves the
	// version as it was: metadata is the shop's, not the aggregate's state.
	Version int64     `json:"version"`
	At      time.Time `json:"at"`
	// Payload is the aggregate after the change, in JSON: a Level, a
	// Reservation or an Order.
	Payload json.RawMessage `json:"payload"`
	// Position is where the store keeps the event, in commit order; the
	// store sets it when it reads the event.
	Position EventPosition `json:"-"`
}

// EventPosition is an event's place in the outbox. Events are read in
// the order of their positions, which is the order in which their
// transactions committed as far as a reader can tell: an event never
// appears behind a position that a reader has already passed.
type EventPosition struct {
	// Tx orders events by the transaction that wrote them, where the
	// store hands out transaction ids (PostgreSQL's xid8); 0 where one
	// writer at a time makes ids follow commits (SQLite).
	Tx uint64
	// Seq orders events within a transaction, and on SQLite all of them.
	Seq int64
}

// Less reports whether p comes before q.
func (p EventPosition) Less(q EventPosition) bool {
	return p.Tx < q.Tx || (p.Tx == q.Tx && p.Seq < q.Seq)
}

// Cursor returns the cursor of the events after p: the byte 'e', then Tx
// and Seq as 8 bytes big-endian each, in unpadded base64url, opaque to
// clients. An SSE stream sends it as each event's id.
func (p EventPosition) Cursor() string {
	var b [17]byte
	b[0] = 'e'
	binary.BigEndian.PutUint64(b[1:], p.Tx)
	binary.BigEndian.PutUint64(b[9:], uint64(p.Seq))
	return eventCursors.EncodeToString(b[:])
}

var eventCursors = base64.RawURLEncoding.Strict()

// ParseEventCursor returns the position that a cursor made by Cursor
// holds, or the zero position for the empty cursor (from the first
// event). Anything else is refused with EInvalid.
func ParseEventCursor(s string) (EventPosition, error) {
	if s == "" {
		return EventPosition{}, nil
	}
	b, err := eventCursors.DecodeString(s)
	if err == nil && len(b) == 17 && b[0] == 'e' {
		if seq := binary.BigEndian.Uint64(b[9:]); seq <= math.MaxInt64 {
			return EventPosition{Tx: binary.BigEndian.Uint64(b[1:]), Seq: int64(seq)}, nil
		}
	}
	return EventPosition{}, invalidf("cursor: malformed; set cursor to the next_cursor of a previous page of the feed (or an event's id), or leave it out for the first page")
}

// DomainEventFilter selects events for Tx.EventList. Zero fields match everything.
type DomainEventFilter struct {
	// After: only events after this position; the zero position reads
	// from the first.
	After EventPosition
	// Types keeps the events of these types.
	Types []string
	// Aggregate and AggregateID keep the events of one kind of aggregate,
	// or of one aggregate.
	Aggregate   string
	AggregateID string
	// Limit is the most events returned; it is always set (1 or more).
	Limit int
}

const (
	// DefaultEventLimit is how many events a page holds when the query
	// does not say.
	DefaultEventLimit = 100
	// MaxEventLimit is the most events one page holds.
	MaxEventLimit = 1000
	// MaxEventWait is the longest a query may wait for an event.
	MaxEventWait = 60 * time.Second
)

// LatestEventCursor, as a DomainEventQuery's Cursor, reads the events
// after every event committed so far: those that become readable from the
// call on. No cursor the service gives out is spelled so.
const LatestEventCursor = "latest"

// DomainEventQuery asks Service.Events for the events after a cursor.
type DomainEventQuery struct {
	// Cursor is the Next of the page before; empty to read from the
	// oldest event kept; LatestEventCursor to read from the head of the
	// feed (Tx.EventLatestPosition), the answer's Next then being the
	// head's cursor. It is opaque: only a cursor the service gave out, or
	// LatestEventCursor, is accepted (EInvalid otherwise).
	Cursor string
	// Types keeps the events of these types; none keeps all.
	Types []string
	// Aggregate keeps the events of one kind of aggregate, and
	// AggregateID, if set too, of one aggregate.
	Aggregate   string
	AggregateID string
	// Limit is the most events in the page: 1 to MaxEventLimit, or 0 for
	// DefaultEventLimit.
	Limit int
	// Wait, if no event matches yet, is how long to wait for one before
	// answering with an empty page (a long poll): up to MaxEventWait, and
	// never past the call's deadline. 0 answers at once.
	Wait time.Duration
}

// Validate refuses a query with an unknown event type or aggregate, an
// aggregate id without its aggregate, or a limit or wait out of range.
func (q DomainEventQuery) Validate() error {
	for _, t := range q.Types {
		if !slices.Contains(EventTypes, t) {
			return invalidf("type: unknown event type %q (want one of %s)", t, strings.Join(EventTypes, ", "))
		}
	}
	if q.Aggregate != "" && !slices.Contains(Aggregates, q.Aggregate) {
		return invalidf("aggregate: must be one of %s, got %q", strings.Join(Aggregates, ", "), q.Aggregate)
	}
	if q.AggregateID != "" {
		if q.Aggregate == "" {
			return invalidf("aggregate_id: needs aggregate too")
		}
		if err := ValidateID("aggregate_id", q.AggregateID); err != nil {
			return err
		}
	}
	if q.Limit < 0 || q.Limit > MaxEventLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxEventLimit, DefaultEventLimit, q.Limit)
	}
	if q.Wait < 0 || q.Wait > MaxEventWait {
		return invalidf("wait: must be between 0 and %s, got %s", MaxEventWait, q.Wait)
	}
	return nil
}

// EventTypes are the event types, in the order of the constants.
var EventTypes = []string{
	EventStockSet, EventStockAdjusted, EventOutOfStock, EventBackInStock,
	EventReservationHeld, EventReservationConfirmed, EventReservationReleased, EventReservationExpired, EventReservationUpdated,
	EventOrderCommitted, EventOrderCancelled, EventOrderFulfilled, EventOrderShipped, EventOrderUpdated,
	EventShowPut,
	EventHoldHeld, EventHoldExtended, EventHoldConfirmed, EventHoldReleased, EventHoldExpired, EventHoldUpdated,
	EventBookingBooked, EventBookingCancelled, EventBookingUpdated,
	EventPaymentCreated, EventPaymentMoved, EventPaymentResolved, EventPaymentStuck, EventPaymentUpdated,
	EventRoomCreated, EventRoomUpdated, EventRoomOpened, EventRoomSoldOut,
}

// DomainEventPage is the events after a query's cursor, in commit order.
// Following Next from any cursor reads every event committed after it
// once, in the order of their positions: an event that commits late is
// waited for, never passed (see Tx.EventList).
type DomainEventPage struct {
	Events []DomainEvent
	// Next is the cursor after the last event of the page; with no event,
	// the query's cursor, or for LatestEventCursor the head's. It is
	// always the cursor of the next query.
	Next string
}
