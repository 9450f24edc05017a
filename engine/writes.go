package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// The ground floor
//
// What every write does, whatever its aggregate, lives here and nowhere
// else: the outbox of events, the ledger rows of stock and the counter
// moves they make (shift), the seat and place moves of holds and
// bookings with their history, and the error of a status that moved
// under a transaction. The files of the aggregates (stock.go,
// reservations.go, holds.go, payments.go, outcomes.go, sweep.go) call
// down into it; it calls nothing above it.

// The outbox
//
// Every change a transaction makes is described by events appended in the
// same transaction (stockade.Tx.EventAppend), so that an event exists
// exactly when its change committed. A transaction collects them in an
// outbox as it decides its writes, and flushes them with the rest.

// outbox collects the events of one transaction.
type outbox struct {
	evs []stockade.DomainEvent
	err error // the first payload that did not encode
}

// add adds an event of typ about the aggregate id, at version, whose
// payload is v in JSON.
func (o *outbox) add(typ, aggregate, id string, version int64, at time.Time, v any) {
	payload, err := json.Marshal(v)
	if err != nil {
		if o.err == nil {
			o.err = fmt.Errorf("engine: encode the payload of a %s event of %s %s: %w", typ, aggregate, id, err)
		}
		return
	}
	o.evs = append(o.evs, stockade.DomainEvent{ID: newID("evt"), Type: typ, Aggregate: aggregate, AggregateID: id,
		Version: version, At: wire(at), Payload: payload})
}

// levelPayload is a level as its events show it: with what is
// available.
type levelPayload struct {
	stockade.Level
	Available int64 `json:"available"`
}

// level adds the events of a level moved by d to after: an event of typ,
// if typ is not empty, and stock.out or stock.in if its available fell to
// 0 or rose from 0.
func (o *outbox) level(typ string, after stockade.Level, d stockade.Delta, at time.Time) {
	id, payload := after.Key().String(), levelPayload{after, after.Available()}
	if typ != "" {
		o.add(typ, stockade.AggregateLevel, id, after.Version, at, payload)
	}
	before := after.Available() - (d.OnHand - d.Reserved - d.Committed)
	switch {
	case before > 0 && after.Available() == 0:
		o.add(stockade.EventOutOfStock, stockade.AggregateLevel, id, after.Version, at, payload)
	case before <= 0 && after.Available() > 0:
		o.add(stockade.EventBackInStock, stockade.AggregateLevel, id, after.Version, at, payload)
	}
}

// wire is t as the stores keep it and the API shows it: UTC, to the
// microsecond. Payloads use it, so that an event shows the times that
// reading its aggregate later shows.
func wire(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// reservation adds an event of typ about r, as r is after the change.
func (o *outbox) reservation(typ string, r stockade.Reservation, at time.Time) {
	r.CreatedAt, r.ExpiresAt = wire(r.CreatedAt), wire(r.ExpiresAt)
	version := int64(2)
	if r.Status == stockade.Held {
		version = 1
	}
	o.add(typ, stockade.AggregateReservation, r.ID, version, at, r)
}

// order adds an event of typ about ord, as it is after the change.
func (o *outbox) order(typ string, ord stockade.Order, at time.Time) {
	ord.CreatedAt = wire(ord.CreatedAt)
	o.add(typ, stockade.AggregateOrder, ord.ID, ord.Version, at, ord)
}

// shipment adds the order.shipped event of s, a shipment of ord, as ord
// is after it: the order, with the shipment under "shipment".
func (o *outbox) shipment(ord stockade.Order, s stockade.Shipment, at time.Time) {
	ord.CreatedAt, s.CreatedAt = wire(ord.CreatedAt), wire(s.CreatedAt)
	o.add(stockade.EventOrderShipped, stockade.AggregateOrder, ord.ID, ord.Version, at, struct {
		stockade.Order
		Shipment stockade.Shipment `json:"shipment"`
	}{ord, s})
}

// hold adds an event of typ about h, as it is after the change.
func (o *outbox) hold(typ string, h stockade.Hold, at time.Time) {
	h.CreatedAt, h.ExpiresAt = wire(h.CreatedAt), wire(h.ExpiresAt)
	o.add(typ, stockade.AggregateHold, h.ID, h.Version, at, h)
}

// booking adds an event of typ about bk, as it is after the change.
func (o *outbox) booking(typ string, bk stockade.Booking, at time.Time) {
	bk.CreatedAt = wire(bk.CreatedAt)
	version := int64(2)
	if bk.Status == stockade.BookingBooked {
		version = 1
	}
	o.add(typ, stockade.AggregateBooking, bk.ID, version, at, bk)
}

// payment adds an event of typ about p, as it is after the change.
func (o *outbox) payment(typ string, p stockade.Payment, at time.Time) {
	p.CreatedAt, p.UpdatedAt = wire(p.CreatedAt), wire(p.UpdatedAt)
	if !p.StuckAt.IsZero() {
		p.StuckAt = wire(p.StuckAt)
	}
	o.add(typ, stockade.AggregatePayment, p.ID, p.Version, at, p)
}

// flush appends the events collected so far in tx, and empties o.
func (o *outbox) flush(ctx context.Context, tx stockade.Tx) error {
	if o.err != nil {
		return o.err
	}
	if len(o.evs) == 0 {
		return nil
	}
	err := tx.EventAppend(ctx, o.evs...)
	o.evs = nil
	return err
}

// Ledger rows

// shift moves the counters of the level of each allocation as ledger rows
// of kind do, in key order, and adds to ob the levels that went out of
// stock or came back. The allocations are those of a reservation or
// order whose row the caller holds, so the counters they draw on are
// there: a refused write means the counters and the records disagree, an
// internal error.
func shift(ctx context.Context, tx stockade.Tx, allocs []stockade.Allocation, kind stockade.MovementKind, ob *outbox, now time.Time) error {
	per := map[stockade.Key]int64{}
	for _, a := range allocs {
		per[a.Key()] += a.Quantity
	}
	for _, k := range sortedKeys(per) {
		d := moved(kind, per[k])
		l, ok, err := tx.LevelUpdate(ctx, k, d, stockade.Guard{})
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("engine: level %s refused %+v: its counters do not cover the records that hold it", k, d)
		}
		ob.level("", l, d, now)
	}
	return nil
}

// perUnit is how one allocated unit moves a level's counters, by the kind
// of ledger row that records the move.
var perUnit = map[stockade.MovementKind]stockade.Delta{
	stockade.MoveReserve:  {Reserved: 1},
	stockade.MoveCheckout: {Committed: 1},
	stockade.MoveConfirm:  {Reserved: -1, Committed: 1},
	stockade.MoveRelease:  {Reserved: -1},
	stockade.MoveExpire:   {Reserved: -1},
	stockade.MoveCancel:   {Committed: -1},
	stockade.MoveFulfill:  {OnHand: -1, Committed: -1},
}

// moved returns how q allocated units move a level's counters in a move of
// kind (see perUnit).
func moved(kind stockade.MovementKind, q int64) stockade.Delta {
	u, ok := perUnit[kind]
	if !ok {
		panic("engine: no per-unit move for ledger rows of kind " + string(kind))
	}
	return stockade.Delta{OnHand: u.OnHand * q, Reserved: u.Reserved * q, Committed: u.Committed * q}
}

// levelChanges returns the change to each level that the ledger rows ms
// make together, in key order, leaving out those that sum to nothing.
func levelChanges(ms []stockade.Movement) []stockade.LevelChange {
	sums := map[stockade.Key]stockade.Delta{}
	for _, m := range ms {
		k := stockade.Key{SKU: m.SKU, Location: m.Location}
		d := sums[k]
		d.OnHand, d.Reserved, d.Committed = d.OnHand+m.OnHand, d.Reserved+m.Reserved, d.Committed+m.Committed
		sums[k] = d
	}
	var changes []stockade.LevelChange
	for _, k := range sortedKeys(sums) {
		if d := sums[k]; d != (stockade.Delta{}) {
			changes = append(changes, stockade.LevelChange{Key: k, Delta: d})
		}
	}
	return changes
}

// movements returns one ledger row of kind per allocation, made by the
// actor named by (see stockade.Movement.Actor).
func movements(allocs []stockade.Allocation, kind stockade.MovementKind, ref, reason, by string, at time.Time) []stockade.Movement {
	ms := make([]stockade.Movement, len(allocs))
	for i, a := range allocs {
		ms[i] = stockade.Movement{At: at, SKU: a.SKU, Location: a.Location, Kind: kind, Delta: moved(kind, a.Quantity), Ref: ref, Reason: reason, Actor: by}
	}
	return ms
}

// Seats and places

// history returns the history rows of h's seats and places moving from
// from to to.
func history(h stockade.Hold, from, to stockade.SeatStatus, booking, by string, now time.Time) []stockade.SeatChange {
	cs := make([]stockade.SeatChange, 0, len(h.Seats)+len(h.Places))
	for _, s := range h.Seats {
		cs = append(cs, stockade.SeatChange{At: now, ShowID: h.ShowID, Seat: s, Quantity: 1, From: from, To: to, HoldID: h.ID, BookingID: booking, Actor: by})
	}
	for _, p := range h.Places {
		cs = append(cs, stockade.SeatChange{At: now, ShowID: h.ShowID, Area: p.Area, Quantity: p.Quantity, From: from, To: to, HoldID: h.ID, BookingID: booking, Actor: by})
	}
	return cs
}

// settleHolds moves hs, held holds of distinct ids whose rows tx holds,
// out of held: to HoldConfirmed, which books their seats and places
// under bks (one booking per hold, in the order of hs), or to
// HoldReleased or HoldExpired, which free them (bks nil). It writes in
// bulk, whatever the number of holds: one SeatMoveMany per event, one
// AreaMovePlaces per event and area, one HoldSetStatus, one
// SeatChangeAppend, with by[i] as the actor of hs[i]'s history (none if
// by is nil); each hold's event goes to ob. A seat or place that does not move means the seats and the
// records disagree, an internal error.
func settleHolds(ctx context.Context, tx stockade.Tx, hs []stockade.Hold, to stockade.HoldStatus, bks []stockade.Booking, by []string, now time.Time, ob *outbox) error {
	if len(hs) == 0 {
		return nil
	}
	seat, typ := stockade.SeatFree, stockade.EventHoldReleased
	switch to {
	case stockade.HoldConfirmed:
		seat, typ = stockade.SeatBooked, stockade.EventHoldConfirmed
	case stockade.HoldExpired:
		typ = stockade.EventHoldExpired
	}
	type areaKey struct{ event, area string }
	var (
		seats   = map[string][]stockade.SeatMove{} // by event
		places  = map[areaKey]int64{}
		moves   = make([]stockade.HoldMove, len(hs))
		changes []stockade.SeatChange
	)
	for i, h := range hs {
		booking := ""
		if bks != nil {
			booking = bks[i].ID
		}
		for _, id := range h.Seats {
			seats[h.ShowID] = append(seats[h.ShowID], stockade.SeatMove{Seat: id, From: stockade.SeatHeld, To: seat, Hold: h.ID, Booking: booking})
		}
		for _, p := range h.Places {
			places[areaKey{h.ShowID, p.Area}] += p.Quantity
		}
		actor := ""
		if by != nil {
			actor = by[i]
		}
		moves[i] = stockade.HoldMove{Hold: h.ID, Booking: booking}
		changes = append(changes, history(h, stockade.SeatHeld, seat, booking, actor, now)...)
	}
	for _, event := range slices.Sorted(maps.Keys(seats)) {
		ms := seats[event]
		moved, err := tx.SeatMoveMany(ctx, event, ms)
		if err != nil {
			return err
		}
		if len(moved) != len(ms) {
			return fmt.Errorf("engine: %d of the %d seats of %d holds of show %s are not held by them", len(ms)-len(moved), len(ms), len(hs), event)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(places), func(a, b areaKey) int {
		return cmp.Or(strings.Compare(a.event, b.event), strings.Compare(a.area, b.area))
	}) {
		q, booked := places[k], int64(0)
		if seat == stockade.SeatBooked {
			booked = q
		}
		if _, ok, err := tx.AreaMovePlaces(ctx, k.event, k.area, -q, booked); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("engine: area %s of show %s does not count the %d places its holds hold", k.area, k.event, q)
			}
			return err
		}
	}
	if n, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, to, moves...); err != nil || n != len(moves) {
		if err == nil {
			err = fmt.Errorf("engine: %d of %d holds to set %s were not held", len(moves)-n, len(moves), to)
		}
		return err
	}
	if err := tx.SeatChangeAppend(ctx, changes...); err != nil {
		return err
	}
	for i, h := range hs {
		h.Status, h.Version = to, h.Version+1
		if bks != nil {
			h.BookingID = bks[i].ID
		}
		ob.hold(typ, h, now)
	}
	return nil
}

// moveTaken moves the seats and places of one hold or booking (what names
// it) from status from to status to, as SeatMoves with hold and booking.
// The caller holds the hold's or booking's row, so its seats and places
// are where it says: one that does not move means the seats and the
// records disagree, an internal error.
func moveTaken(ctx context.Context, b stockade.BookingTx, what, showID string, seats []string, places []stockade.Places,
	from, to stockade.SeatStatus, hold, booking string) error {
	if len(seats) > 0 {
		moves := make([]stockade.SeatMove, len(seats))
		for i, s := range seats {
			moves[i] = stockade.SeatMove{Seat: s, From: from, To: to, Hold: hold, Booking: booking}
		}
		moved, err := b.SeatMoveMany(ctx, showID, moves)
		if err != nil {
			return err
		}
		if len(moved) != len(moves) {
			return fmt.Errorf("engine: %s: %d of its %d seats are not %s by it", what, len(moves)-len(moved), len(moves), from)
		}
	}
	for _, p := range places {
		var held, booked int64
		for _, end := range []struct {
			s stockade.SeatStatus
			q int64
		}{{from, -p.Quantity}, {to, p.Quantity}} {
			switch end.s {
			case stockade.SeatHeld:
				held += end.q
			case stockade.SeatBooked:
				booked += end.q
			}
		}
		if _, ok, err := b.AreaMovePlaces(ctx, showID, p.Area, held, booked); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("engine: %s: area %s does not count its %d places", what, p.Area, p.Quantity)
			}
			return err
		}
	}
	return nil
}

// statusErr is the error of a status change that did not apply although
// the caller holds the row: err if there was one, else a conflict.
func statusErr(err error, what, id string) error {
	if err != nil {
		return err
	}
	return conflictf("%s %q changed status concurrently", what, id)
}
