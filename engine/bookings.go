package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// Bookings
//
// An event's seats are rows of their own, each in one status (free, held,
// booked, blocked), and its general-admission areas are counters, like
// levels: capacity, held, booked. A hold moves seats from free to held
// with one conditional write per transaction (stockade.BookingTx.MoveSeats,
// which moves a seat only from the status it is in) and counts its
// places with a conditional counter update (MovePlaces), so that under
// every strategy the database itself refuses a second taker: a hold that
// finds fewer seats than it chose was raced, and its transaction is
// retried whole, its choice made again on what is free then. Every
// change writes the seat history in the same transaction.
//
// Seats are rows rather than units of stock because a seat has an
// identity that a buyer picks and that best-available selection places
// (row, order, position): a unit count cannot say which seats are free.
// What stock and seats share is the engine: the same calls, retries,
// deadlines, idempotency, outbox and sweeper.

var _ stockade.BookingService = (*Engine)(nil)

// PutEvent creates an event, or changes its map: its name, focal point,
// rows and areas. A seat that the new map drops or changes (layout or
// blocked) must be free; an area's capacity may not fall below its held
// and booked places. Seats the map keeps unchanged keep their status.
func (e *Engine) PutEvent(ctx context.Context, ev stockade.Event, idem *stockade.Idempotency) (stockade.Event, error) {
	return run(e, ctx, "put event", idem, func(ctx context.Context, c *call) (stockade.Event, error) {
		if err := ev.Validate(); err != nil {
			return stockade.Event{}, err
		}
		var out stockade.Event
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			out, err = once(ctx, c, tx, func() (stockade.Event, error) { return e.putEvent(ctx, tx, c, ev) })
			return err
		})
		return out, err
	})
}

func (e *Engine) putEvent(ctx context.Context, tx stockade.Tx, c *call, ev stockade.Event) (stockade.Event, error) {
	now := e.now()
	old, err := tx.Event(ctx, ev.ID, true)
	switch {
	case stockade.ErrorCode(err) == stockade.ENotFound:
		ev.CreatedAt, ev.Version = now, 1
	case err != nil:
		return stockade.Event{}, err
	default:
		ev.CreatedAt, ev.Version = old.CreatedAt, old.Version+1
	}
	want := map[string]stockade.Seat{}
	for _, r := range ev.Rows {
		for _, s := range r.Seats() {
			want[s.ID] = s
		}
	}
	var have []stockade.Seat
	if err == nil {
		if have, err = tx.Seats(ctx, ev.ID, stockade.SeatFilter{}, true); err != nil {
			return stockade.Event{}, err
		}
	}
	var (
		put     []stockade.Seat
		drop    []string
		changes []stockade.SeatChange
		busy    []string
	)
	for _, s := range have {
		w, ok := want[s.ID]
		delete(want, s.ID)
		if ok && sameSeat(s, w) {
			continue
		}
		if s.Status != stockade.SeatFree && s.Status != stockade.SeatBlocked {
			busy = append(busy, fmt.Sprintf("%s (%s)", s.ID, s.Status))
			continue
		}
		if !ok {
			drop = append(drop, s.ID)
			continue
		}
		put = append(put, w)
		if w.Status != s.Status {
			changes = append(changes, stockade.SeatChange{At: now, EventID: ev.ID, Seat: s.ID, Quantity: 1, From: s.Status, To: w.Status, Actor: c.actor.Name})
		}
	}
	if len(busy) > 0 {
		return stockade.Event{}, refuse(stockade.EInvalidState, "event %q: only free or blocked seats may change or go, and these are not: %s", ev.ID, list(busy))
	}
	for _, s := range want { // new seats
		put = append(put, s)
		changes = append(changes, stockade.SeatChange{At: now, EventID: ev.ID, Seat: s.ID, Quantity: 1, From: stockade.SeatFree, To: s.Status, Actor: c.actor.Name})
	}
	slices.SortFunc(put, stockade.Seat.Compare)
	slices.SortFunc(changes, func(a, b stockade.SeatChange) int { return strings.Compare(a.Seat, b.Seat) })
	changes = slices.DeleteFunc(changes, func(ch stockade.SeatChange) bool { return ch.From == ch.To })
	var dropAreas []string
	for _, a := range old.Areas {
		if slices.ContainsFunc(ev.Areas, func(b stockade.Area) bool { return b.Name == a.Name }) {
			continue
		}
		if a.Held+a.Booked > 0 {
			return stockade.Event{}, refuse(stockade.EInvalidState, "event %q: area %q has %d places held and %d booked; it cannot go", ev.ID, a.Name, a.Held, a.Booked)
		}
		dropAreas = append(dropAreas, a.Name)
	}
	if err := tx.PutEvent(ctx, ev); err != nil {
		return stockade.Event{}, err
	}
	if len(drop) > 0 {
		if _, err := tx.DeleteSeats(ctx, ev.ID, drop); err != nil {
			return stockade.Event{}, err
		}
	}
	if len(put) > 0 {
		if err := tx.PutSeats(ctx, ev.ID, put); err != nil {
			return stockade.Event{}, err
		}
	}
	if len(ev.Areas) > 0 {
		if err := tx.PutAreas(ctx, ev.ID, ev.Areas); err != nil {
			return stockade.Event{}, err
		}
	}
	if n, err := tx.DeleteAreas(ctx, ev.ID, dropAreas); err != nil {
		return stockade.Event{}, err
	} else if n != len(dropAreas) {
		return stockade.Event{}, conflictf("event %s: %d of the %d areas to drop took places meanwhile", ev.ID, len(dropAreas)-n, len(dropAreas))
	}
	if err := tx.AppendSeatChanges(ctx, changes...); err != nil {
		return stockade.Event{}, err
	}
	out, err := tx.Event(ctx, ev.ID, false)
	if err != nil {
		return stockade.Event{}, err
	}
	var ob outbox
	ob.add(stockade.EventEventPut, stockade.AggregateEvent, out.ID, out.Version, now, eventPayload(out))
	return out, ob.flush(ctx, tx)
}

// sameSeat reports whether a seat the store has and one a map makes are
// the same seat in the same place, blocked or not alike.
func sameSeat(have, want stockade.Seat) bool {
	blocked := func(s stockade.Seat) bool { return s.Status == stockade.SeatBlocked }
	return have.Section == want.Section && have.Row == want.Row && have.Label == want.Label && have.Order == want.Order &&
		have.Category == want.Category && have.Accessible == want.Accessible && have.Position == want.Position &&
		blocked(have) == blocked(want)
}

// eventPayload is an event as its outbox events show it: without its
// rows, which can be large (GET the event for them).
func eventPayload(ev stockade.Event) stockade.Event {
	ev.Rows = nil
	ev.CreatedAt = wire(ev.CreatedAt)
	return ev
}

// list joins up to ten items, and says how many more there are.
func list(items []string) string {
	if len(items) <= 10 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:10], ", "), len(items)-10)
}

// Event implements stockade.BookingService.
func (e *Engine) Event(ctx context.Context, id string) (stockade.EventView, error) {
	return run(e, ctx, "get event", nil, func(ctx context.Context, c *call) (stockade.EventView, error) {
		if err := checkID("event id", id); err != nil {
			return stockade.EventView{}, err
		}
		var v stockade.EventView
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			if v.Event, err = tx.Event(ctx, id, false); err != nil {
				return err
			}
			v.Counts, err = tx.SeatCounts(ctx, id)
			return err
		})
		return v, err
	})
}

// namedSeats reads the seats of an event with the given ids, by id,
// locking them with lock.
func namedSeats(ctx context.Context, b stockade.BookingTx, eventID string, ids []string, lock bool) (map[string]stockade.Seat, error) {
	seats, err := b.Seats(ctx, eventID, stockade.SeatFilter{IDs: ids}, lock)
	if err != nil {
		return nil, err
	}
	named := make(map[string]stockade.Seat, len(seats))
	for _, s := range seats {
		named[s.ID] = s
	}
	return named, nil
}

// seatState is what best-available seats are chosen on: an event's free
// seats, in seat order, as bestAvailable sees them. Choosing seats marks
// them taken, so that the holds of a batch are decided one after the
// other on one read.
type seatState struct {
	event   string
	version int64           // the event's, as read with the seats
	epoch   int64           // its seat epoch (BookingTx.SeatEpoch), once a hold batch knows it
	areas   []stockade.Area // as read with the seats
	free    []stockade.Seat
	spots   []seatSpot     // Free changes through setFree
	index   map[string]int // seat id → its place in free

	// rows indexes spots from the second choice of best-available
	// seats on: a state a batch keeps answers many.
	rows      *seatRows
	choices   int
	unordered bool // spots are not in seat order: rows cannot index them
}

// setFree sets the Free of spot i.
func (st *seatState) setFree(i int, free bool) {
	if st.rows != nil {
		st.rows.setFree(i, free)
		return
	}
	st.spots[i].Free = free
}

// bestSeats is bestAvailable on st's spots.
func (st *seatState) bestSeats(ask seatAsk) (picked []int, together, ok bool) {
	if st.rows == nil && st.choices > 0 && !st.unordered {
		st.rows, st.unordered = newSeatRows(st.spots)
		st.unordered = !st.unordered
	}
	st.choices++
	if st.rows != nil {
		return st.rows.best(ask)
	}
	return bestAvailable(st.spots, ask)
}

// freeSeats reads the free seats of ev: their ids, and their places
// from the show's layout, which the engine keeps between calls and reads
// again when the show's version moves.
func (e *Engine) freeSeats(ctx context.Context, b stockade.BookingTx, ev stockade.Event) (*seatState, error) {
	eventID := ev.ID
	l, err := e.layouts.get(ctx, b, ev)
	if err != nil {
		return nil, err
	}
	ids, err := b.FreeSeatIDs(ctx, eventID)
	if err != nil {
		return nil, err
	}
	st := &seatState{event: eventID, version: ev.Version, areas: ev.Areas, free: make([]stockade.Seat, 0, len(ids)),
		spots: make([]seatSpot, 0, len(ids)), index: make(map[string]int, len(ids))}
	for _, id := range ids {
		i, ok := l.index[id]
		if !ok {
			return nil, conflictf("seat %s of event %s is not in its layout of version %d", id, eventID, l.version)
		}
		st.index[id] = len(st.free)
		st.free = append(st.free, l.seats[i])
		st.spots = append(st.spots, l.spots[i])
	}
	return st, nil
}

// layouts keeps the layout of the events whose seats were chosen
// lately: what a seat is and where, which only PutEvent changes.
type layouts struct {
	mu     sync.Mutex
	events map[string]*layout
}

// maxLayouts bounds how many events' layouts an engine keeps.
const maxLayouts = 64

// layout is an event's seats at one version of its map, in seat order,
// with their spots (all free) and their places by id.
type layout struct {
	version int64
	seats   []stockade.Seat
	spots   []seatSpot
	index   map[string]int
}

// get returns the layout of ev at its version, reading the event's seats
// if the engine has no such layout.
func (ls *layouts) get(ctx context.Context, b stockade.BookingTx, ev stockade.Event) (*layout, error) {
	ls.mu.Lock()
	l := ls.events[ev.ID]
	ls.mu.Unlock()
	if l != nil && l.version == ev.Version {
		return l, nil
	}
	seats, err := b.Seats(ctx, ev.ID, stockade.SeatFilter{}, false)
	if err != nil {
		return nil, err
	}
	l = &layout{version: ev.Version, seats: seats, spots: make([]seatSpot, len(seats)), index: make(map[string]int, len(seats))}
	// One string per section and per row, so that comparing two of a
	// row's seats compares pointers, not bytes.
	interned := map[string]string{}
	intern := func(s string) string {
		if t, ok := interned[s]; ok {
			return t
		}
		interned[s] = s
		return s
	}
	for i, s := range seats {
		s.Section, s.Row = intern(s.Section), intern(s.Row)
		s.Status, s.HoldID, s.BookingID = stockade.SeatFree, "", ""
		l.seats[i] = s
		l.spots[i] = seatSpot{Section: s.Section, Row: s.Row, Order: s.Order, Category: s.Category, Accessible: s.Accessible,
			Distance: math.Hypot(s.Position.X-ev.Focal.X, s.Position.Y-ev.Focal.Y), Free: true}
		l.index[s.ID] = i
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.events == nil {
		ls.events = map[string]*layout{}
	}
	if _, ok := ls.events[ev.ID]; !ok && len(ls.events) >= maxLayouts {
		for id := range ls.events { // any one: a layout is read again at need
			delete(ls.events, id)
			break
		}
	}
	if cur := ls.events[ev.ID]; cur == nil || cur.version <= l.version {
		ls.events[ev.ID] = l
	}
	return l, nil
}

// choose decides the seats of req: its named seats, which named holds
// (read from the store) and which must be free and not taken in st, then
// the best available on st. It marks them taken in st, and returns them
// all in the order chosen, the best available apart, and whether some
// best-available seats are apart. st may be nil for a request with no
// best-available seats. On a refusal st is as it was.
func (st *seatState) choose(req stockade.HoldRequest, named map[string]stockade.Seat) (ids, best []string, split bool, err error) {
	var taken []string
	for _, id := range req.Seats {
		s, ok := named[id]
		if !ok {
			return nil, nil, false, refuse(stockade.ENotFound, "event %q has no seat %q", req.EventID, id)
		}
		if s.Status == stockade.SeatFree && st != nil {
			if i, ok := st.index[id]; ok && !st.spots[i].Free {
				s.Status = stockade.SeatHeld // by a hold decided before, in this batch
			}
		}
		if s.Status != stockade.SeatFree {
			taken = append(taken, fmt.Sprintf("%s (%s)", s.ID, s.Status))
		}
		ids = append(ids, s.ID)
	}
	if len(taken) > 0 {
		return nil, nil, false, refuse(stockade.ESeatsUnavailable, "seats not available: %s", list(taken))
	}
	var marked []int
	undo := func() {
		for _, i := range marked {
			st.setFree(i, true)
		}
	}
	if st != nil {
		for _, id := range ids {
			if i, ok := st.index[id]; ok {
				st.setFree(i, false)
				marked = append(marked, i)
			}
		}
	}
	for _, ask := range req.Best {
		picked, together, ok := st.bestSeats(seatAsk{Quantity: ask.Quantity, Category: ask.Category, Section: ask.Section,
			Accessible: ask.Accessible, Split: ask.AllowSplit})
		if !ok {
			err := soldOut(req.EventID, ask, st.spots)
			undo()
			return nil, nil, false, err
		}
		for _, i := range picked {
			st.setFree(i, false)
			marked = append(marked, i)
			best = append(best, st.free[i].ID)
		}
		split = split || !together
	}
	return append(ids, best...), best, split, nil
}

// soldOut explains why no seats meet ask: too few fit it, or not enough
// of them sit together.
func soldOut(event string, ask stockade.BestSeats, spots []seatSpot) error {
	var what []string
	if ask.Category != "" {
		what = append(what, "category "+ask.Category)
	}
	if ask.Section != "" {
		what = append(what, "section "+ask.Section)
	}
	if ask.Accessible {
		what = append(what, "accessible")
	}
	kind := "seats"
	if len(what) > 0 {
		kind = "seats of " + strings.Join(what, ", ")
	}
	fit := 0
	sa := seatAsk{Category: ask.Category, Section: ask.Section, Accessible: ask.Accessible}
	for i := range spots {
		if sa.fits(&spots[i]) {
			fit++
		}
	}
	if fit >= ask.Quantity {
		return refuse(stockade.ESoldOut, "event %q: no %d free %s side by side in one row (%d free apart; allow_split takes them)", event, ask.Quantity, kind, fit)
	}
	return refuse(stockade.ESoldOut, "event %q: %d free %s asked, %d left", event, ask.Quantity, kind, fit)
}

// history returns the history rows of h's seats and places moving from
// from to to.
func history(h stockade.Hold, from, to stockade.SeatStatus, booking, by string, now time.Time) []stockade.SeatChange {
	cs := make([]stockade.SeatChange, 0, len(h.Seats)+len(h.Places))
	for _, s := range h.Seats {
		cs = append(cs, stockade.SeatChange{At: now, EventID: h.EventID, Seat: s, Quantity: 1, From: from, To: to, HoldID: h.ID, BookingID: booking, Actor: by})
	}
	for _, p := range h.Places {
		cs = append(cs, stockade.SeatChange{At: now, EventID: h.EventID, Area: p.Area, Quantity: p.Quantity, From: from, To: to, HoldID: h.ID, BookingID: booking, Actor: by})
	}
	return cs
}

// Hold returns a hold. A held hold whose expiry has passed reads as
// expired, as it is to every call, although the sweeper may not have
// given its seats back yet; one whose payment is in flight is still
// held.
func (e *Engine) Hold(ctx context.Context, id string) (stockade.Hold, error) {
	return run(e, ctx, "get hold", nil, func(ctx context.Context, c *call) (stockade.Hold, error) {
		if err := checkID("hold id", id); err != nil {
			return stockade.Hold{}, err
		}
		var h stockade.Hold
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			if h, err = c.hold(ctx, tx, id, false); err != nil {
				return err
			}
			if h.Status != stockade.HoldHeld {
				return nil
			}
			gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: id}, h.ExpiresAt, e.now())
			if gone {
				h.Status = stockade.HoldExpired
			}
			return err
		})
		return h, err
	})
}

// hold reads the hold id as reservation reads a reservation: another
// storefront's is ENotFound.
func (c *call) hold(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Hold, error) {
	h, err := tx.Hold(ctx, id, lock)
	if err == nil && !c.actor.Sees(h.Owner) {
		return stockade.Hold{}, refuse(stockade.ENotFound, "hold %q not found", id)
	}
	return h, err
}

// ExtendHold makes a held hold last ttl from now, within the maximum
// lifetime from its creation (Options.MaxHoldLifetime): an extension past
// it is refused with EInvalid, one of a hold that is no longer held with
// EInvalidState (EHoldExpired if it lapsed).
func (e *Engine) ExtendHold(ctx context.Context, id string, ttl time.Duration, idem *stockade.Idempotency) (stockade.Hold, error) {
	return run(e, ctx, "extend hold", idem, func(ctx context.Context, c *call) (stockade.Hold, error) {
		if err := checkID("hold id", id); err != nil {
			return stockade.Hold{}, err
		}
		if ttl <= 0 || ttl > e.opts.MaxHoldLifetime {
			return stockade.Hold{}, refuse(stockade.EInvalid, "ttl_seconds: must be between 1 and %d, got %d", int64(e.opts.MaxHoldLifetime/time.Second), int64(ttl/time.Second))
		}
		return lapsing(ctx, c, id, func(tx stockade.Tx, h stockade.Hold, now time.Time) (stockade.Hold, error) {
			until := now.Add(ttl)
			if last := h.CreatedAt.Add(e.opts.MaxHoldLifetime); until.After(last) {
				return h, refuse(stockade.EInvalid, "ttl_seconds: hold %q may last until %s at most (%s from its creation), %s asked",
					id, last.Format(time.RFC3339), e.opts.MaxHoldLifetime, until.Format(time.RFC3339))
			}
			if ok, err := tx.ExtendHold(ctx, id, until); err != nil || !ok {
				return h, statusErr(err, "hold", id)
			}
			h.ExpiresAt, h.Version = until, h.Version+1
			var ob outbox
			ob.hold(stockade.EventHoldExtended, h, now)
			return h, ob.flush(ctx, tx)
		})
	})
}

// lapsing runs fn, as the effect of c, on the hold id, held and
// unlapsed, in a write transaction that holds its row. A hold that was
// confirmed or released is refused with EInvalidState; one that expired
// with EHoldExpired, and one that has lapsed is expired (which commits)
// and refused so too.
func lapsing(ctx context.Context, c *call, id string, fn func(tx stockade.Tx, h stockade.Hold, now time.Time) (stockade.Hold, error)) (stockade.Hold, error) {
	e := c.e
	var (
		v       stockade.Hold
		expired time.Time
	)
	err := c.update(ctx, func(tx stockade.Tx) (err error) {
		expired = time.Time{}
		v, err = once(ctx, c, tx, func() (stockade.Hold, error) {
			var zero stockade.Hold
			now := e.now()
			h, err := c.hold(ctx, tx, id, true)
			switch {
			case err != nil:
				return zero, err
			case h.Status == stockade.HoldExpired:
				return zero, holdExpired(h)
			case h.Status != stockade.HoldHeld:
				return zero, refuse(stockade.EInvalidState, "hold %q is %s, not held", id, h.Status)
			}
			switch gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: id}, h.ExpiresAt, now); {
			case err != nil:
				return zero, err
			case gone:
				expired = h.ExpiresAt
				if err := e.expireHolds(ctx, tx, []stockade.Hold{h}, now); err != nil {
					return zero, err
				}
				return zero, errLapsed
			}
			return fn(tx, h, now)
		})
		if errors.Is(err, errLapsed) {
			return nil // commit the expiry; the call is refused below
		}
		return err
	})
	if err == nil && !expired.IsZero() {
		err = holdExpired(stockade.Hold{ID: id, ExpiresAt: expired})
	}
	return v, err
}

// errLapsed ends the function of a call whose hold had lapsed: it has
// expired the hold, which commits, but has no result to store for the
// idempotency key.
var errLapsed = errors.New("engine: the hold lapsed")

func holdExpired(h stockade.Hold) error {
	return refuse(stockade.EHoldExpired, "hold %q expired at %s", h.ID, h.ExpiresAt.Format(time.RFC3339))
}

// newBooking returns the booking that confirming h at now makes.
func newBooking(h stockade.Hold, now time.Time) stockade.Booking {
	return stockade.Booking{ID: newID("bkg"), EventID: h.EventID, HoldID: h.ID, Status: stockade.BookingBooked,
		Seats: h.Seats, Places: h.Places, CreatedAt: now, Owner: h.Owner}
}

// confirmHolds books hs, held and unlapsed holds of distinct ids whose
// rows tx holds, under bks (newBooking's, one per hold, in the order of
// hs), in bulk (see settleHolds). The events go to ob.
func confirmHolds(ctx context.Context, tx stockade.Tx, hs []stockade.Hold, bks []stockade.Booking, by []string, now time.Time, ob *outbox) error {
	if len(hs) == 0 {
		return nil
	}
	if err := settleHolds(ctx, tx, hs, stockade.HoldConfirmed, bks, by, now, ob); err != nil {
		return err
	}
	if err := tx.InsertBookings(ctx, bks...); err != nil {
		return err
	}
	for _, bk := range bks {
		ob.booking(stockade.EventBookingBooked, bk, now)
	}
	return nil
}

// settleHolds moves hs, held holds of distinct ids whose rows tx holds,
// out of held: to HoldConfirmed, which books their seats and places
// under bks (one booking per hold, in the order of hs), or to
// HoldReleased or HoldExpired, which free them (bks nil). It writes in
// bulk, whatever the number of holds: one MoveSeats per event, one
// MovePlaces per event and area, one SetHoldStatus, one
// AppendSeatChanges, with by[i] as the actor of hs[i]'s history (none if
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
			seats[h.EventID] = append(seats[h.EventID], stockade.SeatMove{Seat: id, From: stockade.SeatHeld, To: seat, Hold: h.ID, Booking: booking})
		}
		for _, p := range h.Places {
			places[areaKey{h.EventID, p.Area}] += p.Quantity
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
		moved, err := tx.MoveSeats(ctx, event, ms)
		if err != nil {
			return err
		}
		if len(moved) != len(ms) {
			return fmt.Errorf("engine: %d of the %d seats of %d holds of event %s are not held by them", len(ms)-len(moved), len(ms), len(hs), event)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(places), func(a, b areaKey) int {
		return cmp.Or(strings.Compare(a.event, b.event), strings.Compare(a.area, b.area))
	}) {
		q, booked := places[k], int64(0)
		if seat == stockade.SeatBooked {
			booked = q
		}
		if _, ok, err := tx.MovePlaces(ctx, k.event, k.area, -q, booked); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("engine: area %s of event %s does not count the %d places its holds hold", k.area, k.event, q)
			}
			return err
		}
	}
	if n, err := tx.SetHoldStatus(ctx, stockade.HoldHeld, to, moves...); err != nil || n != len(moves) {
		if err == nil {
			err = fmt.Errorf("engine: %d of %d holds to set %s were not held", len(moves)-n, len(moves), to)
		}
		return err
	}
	if err := tx.AppendSeatChanges(ctx, changes...); err != nil {
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
func moveTaken(ctx context.Context, b stockade.BookingTx, what, eventID string, seats []string, places []stockade.Places,
	from, to stockade.SeatStatus, hold, booking string) error {
	if len(seats) > 0 {
		moves := make([]stockade.SeatMove, len(seats))
		for i, s := range seats {
			moves[i] = stockade.SeatMove{Seat: s, From: from, To: to, Hold: hold, Booking: booking}
		}
		moved, err := b.MoveSeats(ctx, eventID, moves)
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
		if _, ok, err := b.MovePlaces(ctx, eventID, p.Area, held, booked); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("engine: %s: area %s does not count its %d places", what, p.Area, p.Quantity)
			}
			return err
		}
	}
	return nil
}

// ReleaseHold gives a held hold's seats and places back. Releasing a
// released or expired hold changes nothing and returns it; a held one
// whose expiry has passed is expired; a confirmed one is EInvalidState
// (cancel its booking instead).
func (e *Engine) ReleaseHold(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Hold, error) {
	return run(e, ctx, "release hold", idem, func(ctx context.Context, c *call) (stockade.Hold, error) {
		if err := checkID("hold id", id); err != nil {
			return stockade.Hold{}, err
		}
		var h stockade.Hold
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			h, err = once(ctx, c, tx, func() (stockade.Hold, error) {
				now := e.now()
				h, err := c.hold(ctx, tx, id, true)
				switch {
				case err != nil:
					return h, err
				case h.Status == stockade.HoldConfirmed:
					return h, refuse(stockade.EInvalidState, "hold %q is confirmed (booking %q), not held: cancel the booking instead", id, h.BookingID)
				case h.Status != stockade.HoldHeld:
					return h, nil
				case h.ExpiresAt.Before(now):
					err := e.expireHolds(ctx, tx, []stockade.Hold{h}, now)
					h.Status = stockade.HoldExpired
					return h, err
				}
				var ob outbox
				if err := settleHolds(ctx, tx, []stockade.Hold{h}, stockade.HoldReleased, nil, []string{c.actor.Name}, now, &ob); err != nil {
					return h, err
				}
				h.Status, h.Version = stockade.HoldReleased, h.Version+1
				return h, ob.flush(ctx, tx)
			})
			return err
		})
		return h, err
	})
}

// expireHolds gives back the seats and places of hs, held holds that
// lapsed and whose rows the transaction holds, and marks them expired, in
// bulk (see settleHolds).
func (e *Engine) expireHolds(ctx context.Context, tx stockade.Tx, hs []stockade.Hold, now time.Time) error {
	var ob outbox
	if err := settleHolds(ctx, tx, hs, stockade.HoldExpired, nil, nil, now, &ob); err != nil {
		return err
	}
	return ob.flush(ctx, tx)
}

// Booking returns a booking.
func (e *Engine) Booking(ctx context.Context, id string) (stockade.Booking, error) {
	return run(e, ctx, "get booking", nil, func(ctx context.Context, c *call) (stockade.Booking, error) {
		if err := checkID("booking id", id); err != nil {
			return stockade.Booking{}, err
		}
		var bk stockade.Booking
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			bk, err = c.booking(ctx, tx, id, false)
			return err
		})
		return bk, err
	})
}

func (c *call) booking(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Booking, error) {
	bk, err := tx.Booking(ctx, id, lock)
	if err == nil && !c.actor.Sees(bk.Owner) {
		return stockade.Booking{}, refuse(stockade.ENotFound, "booking %q not found", id)
	}
	return bk, err
}

// CancelBooking gives a booking's seats and places back. Cancelling a
// cancelled booking changes nothing and returns it.
func (e *Engine) CancelBooking(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Booking, error) {
	return run(e, ctx, "cancel booking", idem, func(ctx context.Context, c *call) (stockade.Booking, error) {
		if err := checkID("booking id", id); err != nil {
			return stockade.Booking{}, err
		}
		var bk stockade.Booking
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			bk, err = once(ctx, c, tx, func() (stockade.Booking, error) {
				now := e.now()
				bk, err := c.booking(ctx, tx, id, true)
				if err != nil || bk.Status == stockade.BookingCancelled {
					return bk, err
				}
				var ob outbox
				if err := cancelBooked(ctx, tx, bk, c.actor.Name, now, &ob); err != nil {
					return bk, err
				}
				bk.Status = stockade.BookingCancelled
				return bk, ob.flush(ctx, tx)
			})
			return err
		})
		return bk, err
	})
}

// cancelBooked cancels bk, a booked booking whose row tx holds, for the
// actor named by: its seats and places go back, and its event goes to ob.
func cancelBooked(ctx context.Context, tx stockade.Tx, bk stockade.Booking, by string, now time.Time, ob *outbox) error {
	err := moveTaken(ctx, tx, "booking "+bk.ID, bk.EventID, bk.Seats, bk.Places, stockade.SeatBooked, stockade.SeatFree, "", bk.ID)
	if err != nil {
		return err
	}
	if ok, err := tx.SetBookingStatus(ctx, bk.ID, stockade.BookingBooked, stockade.BookingCancelled); err != nil || !ok {
		return statusErr(err, "booking", bk.ID)
	}
	h := stockade.Hold{ID: bk.HoldID, EventID: bk.EventID, Seats: bk.Seats, Places: bk.Places}
	if err := tx.AppendSeatChanges(ctx, history(h, stockade.SeatBooked, stockade.SeatFree, bk.ID, by, now)...); err != nil {
		return err
	}
	bk.Status = stockade.BookingCancelled
	ob.booking(stockade.EventBookingCancelled, bk, now)
	return nil
}

// sweepHolds expires lapsed holds, Options.SweepBatch per transaction,
// and returns how many.
func (e *Engine) sweepHolds(ctx context.Context, c *call) (expired int, err error) {
	for {
		n := 0
		err := c.update(ctx, func(tx stockade.Tx) error {
			now := e.now()
			hs, err := lapsedHolds(ctx, tx, now, "", e.opts.SweepBatch)
			if err != nil {
				return err
			}
			n = len(hs)
			return e.expireHolds(ctx, tx, hs, now)
		})
		if err != nil {
			return expired, err
		}
		expired += n
		if n < e.opts.SweepBatch {
			return expired, nil
		}
	}
}

// A seat cursor is the place of the last seat of a page: the byte 's',
// then its section and row each followed by a zero byte (which an id
// cannot hold), then its order as 8 bytes big-endian, in unpadded
// base64url.
const seatCursorTag = 's'

func seatCursor(s stockade.Seat) string {
	b := append([]byte{seatCursorTag}, s.Section...)
	b = append(append(b, 0), s.Row...)
	b = binary.BigEndian.AppendUint64(append(b, 0), uint64(int64(s.Order)))
	return cursorEncoding.EncodeToString(b)
}

// parseSeatCursor returns the seat place a cursor made by seatCursor
// holds, or nil for the empty cursor. Anything else is EInvalid.
func parseSeatCursor(s string) (*stockade.Seat, error) {
	if s == "" {
		return nil, nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) > 10 && b[0] == seatCursorTag && b[len(b)-9] == 0 {
		if section, row, ok := strings.Cut(string(b[1:len(b)-9]), "\x00"); ok && !strings.Contains(row, "\x00") {
			order := int64(binary.BigEndian.Uint64(b[len(b)-8:]))
			if order >= math.MinInt32 && order <= math.MaxInt32 {
				return &stockade.Seat{Section: section, Row: row, Order: int(order)}, nil
			}
		}
	}
	return nil, refuse(stockade.EInvalid, "cursor: malformed; pass the next cursor of an earlier page, or none for the first")
}

// Seats implements stockade.BookingService.
func (e *Engine) Seats(ctx context.Context, eventID string, q stockade.SeatQuery) (stockade.SeatPage, error) {
	return run(e, ctx, "seats", nil, func(ctx context.Context, c *call) (stockade.SeatPage, error) {
		if err := checkID("event id", eventID); err != nil {
			return stockade.SeatPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.SeatPage{}, err
		}
		after, err := parseSeatCursor(q.Cursor)
		if err != nil {
			return stockade.SeatPage{}, err
		}
		limit := q.Limit
		if limit == 0 {
			limit = stockade.DefaultSeatLimit
		}
		var seats []stockade.Seat
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if _, err := tx.EventHead(ctx, eventID, false); err != nil {
				return err
			}
			seats, err = tx.Seats(ctx, eventID, stockade.SeatFilter{Status: q.Status, Section: q.Section, After: after, Limit: limit + 1}, false)
			return err
		})
		if err != nil {
			return stockade.SeatPage{}, err
		}
		page := stockade.SeatPage{Seats: seats[:min(limit, len(seats))]}
		if len(seats) > limit {
			page.Next = seatCursor(page.Seats[len(page.Seats)-1])
		}
		if c.actor.Role == stockade.RoleStorefront {
			// Which hold or booking has a seat is its owner's to know:
			// a storefront sees the seat's status only.
			for i := range page.Seats {
				page.Seats[i].HoldID, page.Seats[i].BookingID = "", ""
			}
		}
		return page, nil
	})
}
