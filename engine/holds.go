package engine

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// HoldSeats holds what req asks of an event, all or nothing: named seats,
// best-available seats (see bestAvailable) and general-admission places,
// until the hold's TTL passes. Lapsed holds of the event are expired
// first, in the same transaction. A named seat that is not free is
// refused with ESeatsUnavailable naming it; a request for seats or
// places that no free ones meet with ESoldOut; an unknown event, seat or
// area with ENotFound.
func (e *Engine) HoldSeats(ctx context.Context, req stockade.HoldRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return run(e, ctx, "hold", idem, func(ctx context.Context, c *call) (stockade.Hold, error) {
		if err := req.Validate(e.opts.MaxHoldLifetime); err != nil {
			return stockade.Hold{}, err
		}
		ttl := req.TTL
		if ttl == 0 {
			ttl = min(e.opts.DefaultTTL, e.opts.MaxHoldLifetime)
		}
		h := &holdCall{slot: slot{c: c}, req: req, ttl: ttl}
		if err := e.holds.apply(ctx, h); err != nil {
			return stockade.Hold{}, err
		}
		return h.hold, nil
	})
}

// ConfirmHold books a held hold: its seats become booked and its places
// booked, under a new booking. Confirming a confirmed hold changes
// nothing and returns its booking, so a client may retry it safely even
// without an idempotency key; a lapsed one is expired and refused with
// EHoldExpired; a released one with EInvalidState.
func (e *Engine) ConfirmHold(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Booking, error) {
	return run(e, ctx, "confirm hold", idem, func(ctx context.Context, c *call) (stockade.Booking, error) {
		if err := checkID("hold id", id); err != nil {
			return stockade.Booking{}, err
		}
		h := &holdCall{slot: slot{c: c}, confirm: id}
		if err := e.holds.apply(ctx, h); err != nil {
			return stockade.Booking{}, err
		}
		return h.booking, nil
	})
}

// holdCall is one HoldSeats or ConfirmHold call in its lane.
type holdCall struct {
	slot
	req     stockade.HoldRequest // a hold
	ttl     time.Duration
	confirm string // or a confirm of this hold

	// The call's result, set by decideHolds or decideConfirms.
	hold    stockade.Hold    // of a hold
	booking stockade.Booking // of a confirm
}

// holdQueue names the queue of a hold call in a group lane: holds batch
// show by show, on one read of the show's free seats; confirms batch in
// one queue of their own, whatever their shows, as a confirm needs only
// its hold's row.
func holdQueue(h *holdCall) string {
	if h.confirm != "" {
		return "" // no show id is empty
	}
	return h.req.EventID
}

// holdTxn runs the transaction that decides batch, retried whole on
// conflicts: a batch of confirms (decideConfirms), or of holds of one show
// (decideHolds). Under the Lock strategy each attempt of holds first takes
// a lease on the show, as the designs that lock a whole show do: it
// serialises the show's buyers. The seats need no fencing token: a seat
// moves only from the status it is in (MoveSeats), so a holder whose
// lease lapsed cannot take a seat that another has taken.
func (e *Engine) holdTxn(ctx context.Context, c *call, batch []*holdCall) error {
	if batch[0].confirm != "" {
		return c.update(ctx, func(tx stockade.Tx) error { return e.decideConfirms(ctx, tx, batch) })
	}
	show := batch[0].req.EventID
	var keep *seatState
	decide := func(tx stockade.Tx) (err error) {
		keep, err = e.decideHolds(ctx, tx, show, batch)
		return err
	}
	var err error
	if e.strat.leases {
		err = c.leased(ctx, []string{showLockPrefix + show}, func(tx stockade.Tx, _ map[string]uint64) error { return decide(tx) })
	} else {
		err = c.update(ctx, decide)
	}
	if err == nil && keep != nil {
		e.kept.keep(keep)
	}
	return err
}

// showLockPrefix starts the lock key of every show under the Lock
// strategy.
const showLockPrefix = "stockade:event:"

// decideHolds is the body of HoldSeats: one attempt of the transaction
// that decides a batch of holds of one show, or one alone. It reads the
// records of the calls' idempotency keys, holding them; reads the show's
// row, locked under the Batch strategy, which orders the batches of one
// show across instances; expires the show's lapsed holds; reads its free
// seats (or takes those kept from its last batch) when a call asks for
// best-available seats or the batch has several calls, and the seats the
// calls name, locked under RowLock. It then decides each call in arrival
// order on what is left, all or nothing, and writes in bulk: one
// MoveSeats, one MovePlaces per area, the holds, the history, the events
// and the records. A seat or place that a writer outside the transaction
// took meanwhile makes a write fall short: a conflict, and the
// transaction is decided again on a fresh read.
//
// Under the Batch strategy it last bumps the show's seat epoch, and keep
// is the free seats as the batch leaves them, for the next batch once
// this one has committed; nil if another transaction freed seats of the
// show meanwhile, or under the other strategies.
func (e *Engine) decideHolds(ctx context.Context, tx stockade.Tx, showID string, batch []*holdCall) (keep *seatState, err error) {
	now := e.now()
	calls := make([]*call, len(batch))
	needFree := len(batch) > 1 || e.kept != nil
	for i, h := range batch {
		h.reset()
		h.hold = stockade.Hold{}
		calls[i] = h.c
		needFree = needFree || len(h.req.Best) > 0
	}
	rs, err := e.readRecords(ctx, tx, calls, now)
	if err != nil {
		return nil, err
	}
	ev, err := tx.EventHead(ctx, showID, e.strat.group)
	if stockade.ErrorCode(err) == stockade.ENotFound {
		for _, h := range batch {
			if h.replayed, h.err = replay(rs, h.c, &h.hold); h.err == nil && !h.replayed {
				h.err = err
			}
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lapsed, err := lapsedHolds(ctx, tx, now, showID, e.opts.SweepBatch)
	if err != nil {
		return nil, err
	}
	if len(lapsed) > 0 {
		if err := e.expireHolds(ctx, tx, lapsed, now); err != nil {
			return nil, err
		}
		if ev, err = tx.EventHead(ctx, showID, false); err != nil { // with the places they freed
			return nil, err
		}
	}
	var st *seatState
	if needFree {
		var epoch int64
		if e.kept != nil {
			if epoch, err = tx.SeatEpoch(ctx, showID, false); err != nil {
				return nil, err
			}
			if st = e.kept.take(showID, ev.Version, epoch); len(lapsed) > 0 {
				st = nil // without the seats they freed
			}
		}
		if st == nil {
			if st, err = e.freeSeats(ctx, tx, ev); err != nil {
				return nil, err
			}
		}
		st.epoch = epoch
	}
	areas := map[string]stockade.Area{}
	for _, a := range ev.Areas {
		areas[a.Name] = a
	}
	var names []string
	for _, h := range batch {
		names = append(names, h.req.Seats...)
	}
	named := map[string]stockade.Seat{}
	if len(names) > 0 {
		slices.Sort(names)
		if named, err = namedSeats(ctx, tx, showID, slices.Compact(names), e.strat.lockSeats); err != nil {
			return nil, err
		}
	}

	var (
		moves   []stockade.SeatMove
		best    []string             // the best-available seats chosen
		places  = map[string]int64{} // by area
		holds   []stockade.Hold
		changes []stockade.SeatChange
		ob      outbox
	)
	for _, h := range batch {
		if h.replayed, h.err = replay(rs, h.c, &h.hold); h.err != nil || h.replayed {
			continue
		}
		ids, chosen, split, err := st.choose(h.req, named)
		if err == nil {
			if err = takePlaces(showID, h.req.Places, areas); err != nil {
				st.release(ids)
			}
		}
		if err != nil {
			if !isRefusal(err) {
				return nil, err
			}
			h.err = err
			continue
		}
		hold := stockade.Hold{ID: newID("hld"), EventID: showID, Status: stockade.HoldHeld, CreatedAt: now,
			ExpiresAt: now.Add(h.ttl), Owner: h.c.actor.KeyID, Version: 1, Split: split, Places: h.req.Places}
		for _, id := range ids {
			moves = append(moves, stockade.SeatMove{Seat: id, From: stockade.SeatFree, To: stockade.SeatHeld, Hold: hold.ID})
		}
		best = append(best, chosen...)
		hold.Seats = slices.SortedFunc(slices.Values(ids), func(a, b string) int {
			return st.seat(a, named).Compare(st.seat(b, named))
		})
		for _, p := range h.req.Places {
			places[p.Area] += p.Quantity
		}
		h.hold = hold
		holds = append(holds, hold)
		changes = append(changes, history(hold, stockade.SeatFree, stockade.SeatHeld, "", h.c.actor.Name, now)...)
		ob.hold(stockade.EventHoldHeld, hold, now)
		if err := rs.keep(h.c, hold); err != nil {
			return nil, err
		}
	}
	if e.strat.lockSeats && len(best) > 0 {
		// Chosen on an unlocked read: lock them and check that they are
		// still free.
		locked, err := tx.Seats(ctx, showID, stockade.SeatFilter{IDs: slices.Sorted(slices.Values(best))}, true)
		if err != nil {
			return nil, err
		}
		for _, s := range locked {
			if s.Status != stockade.SeatFree {
				return nil, conflictf("seat %s was taken meanwhile", s.ID)
			}
		}
	}
	if len(moves) > 0 {
		moved, err := tx.MoveSeats(ctx, showID, moves)
		if err != nil {
			return nil, err
		}
		if len(moved) < len(moves) {
			return nil, conflictf("%d of %d seats were taken meanwhile", len(moves)-len(moved), len(moves))
		}
	}
	for _, area := range slices.Sorted(maps.Keys(places)) {
		if _, ok, err := tx.MovePlaces(ctx, showID, area, places[area], 0); err != nil || !ok {
			if err == nil {
				err = conflictf("the places of area %s were taken meanwhile", area)
			}
			return nil, err
		}
	}
	if len(holds) == 0 {
		if e.kept == nil {
			st = nil
		}
		return st, rs.write(ctx, tx) // nothing taken: the seats are as read
	}
	if err := tx.InsertHolds(ctx, holds...); err != nil {
		return nil, err
	}
	if err := tx.AppendSeatChanges(ctx, changes...); err != nil {
		return nil, err
	}
	if err := ob.flush(ctx, tx); err != nil {
		return nil, err
	}
	if err := rs.write(ctx, tx); err != nil {
		return nil, err
	}
	if e.kept == nil || st == nil {
		return nil, nil
	}
	// Last, so that the epoch stays locked for as short as can be.
	bumped, err := tx.SeatEpoch(ctx, showID, true)
	if err != nil {
		return nil, err
	}
	if bumped != st.epoch+1 {
		return nil, nil // freed meanwhile: read them at the next batch
	}
	st.epoch = bumped
	return st, nil
}

// decideConfirms is the body of ConfirmHold: one attempt of the
// transaction that decides a batch of confirms, or one alone. It reads
// the records of the calls' idempotency keys and the calls' holds,
// holding them (in id order), and decides each call in arrival order: a
// held, unlapsed hold is booked (a second confirm of it in the batch gets
// the same booking); a confirmed one answers its booking; a lapsed one is
// expired and refused with EHoldExpired. It then writes in bulk
// (expireHolds, confirmHolds), the events and the records.
func (e *Engine) decideConfirms(ctx context.Context, tx stockade.Tx, batch []*holdCall) error {
	now := e.now()
	calls := make([]*call, len(batch))
	ids := make([]string, len(batch))
	for i, h := range batch {
		h.reset()
		h.booking = stockade.Booking{}
		calls[i], ids[i] = h.c, h.confirm
	}
	rs, err := e.readRecords(ctx, tx, calls, now)
	if err != nil {
		return err
	}
	slices.Sort(ids)
	hs, err := tx.Holds(ctx, slices.Compact(ids), true)
	if err != nil {
		return err
	}
	holds := make(map[string]stockade.Hold, len(hs))
	for _, h := range hs {
		holds[h.ID] = h
	}

	var (
		book   []stockade.Hold                 // to confirm, in the order of their first calls
		bks    []stockade.Booking              // their bookings
		by     []string                        // the actor of each one's first call
		booked = map[string]stockade.Booking{} // by hold id, for a second call
		expire []stockade.Hold
	)
	for _, h := range batch {
		if h.replayed, h.err = replay(rs, h.c, &h.booking); h.err != nil || h.replayed {
			continue
		}
		hold, ok := holds[h.confirm]
		gone := false
		if ok && hold.Status == stockade.HoldHeld {
			if gone, err = lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: hold.ID}, hold.ExpiresAt, now); err != nil {
				return err
			}
		}
		switch {
		case !ok || !h.c.actor.Sees(hold.Owner):
			h.err = refuse(stockade.ENotFound, "hold %q not found", h.confirm)
		case hold.Status == stockade.HoldExpired:
			h.err = holdExpired(hold)
		case hold.Status == stockade.HoldConfirmed:
			h.booking, h.err = tx.Booking(ctx, hold.BookingID, false)
		case hold.Status != stockade.HoldHeld:
			h.err = refuse(stockade.EInvalidState, "hold %q is %s, not held", hold.ID, hold.Status)
		case gone:
			expire = append(expire, hold)
			hold.Status = stockade.HoldExpired
			holds[hold.ID] = hold // as a second confirm of it will find it
			h.err = holdExpired(hold)
		default:
			bk, ok := booked[hold.ID]
			if !ok {
				bk = newBooking(hold, now)
				book, bks, by = append(book, hold), append(bks, bk), append(by, h.c.actor.Name)
				booked[hold.ID] = bk
			}
			h.booking = bk
		}
		switch {
		case h.err != nil && !isRefusal(h.err):
			return h.err // the store failed
		case h.err != nil:
			continue // a refusal is not recorded: a retry runs afresh
		}
		if err := rs.keep(h.c, h.booking); err != nil {
			return err
		}
	}
	if err := e.expireHolds(ctx, tx, expire, now); err != nil {
		return err
	}
	var ob outbox
	if err := confirmHolds(ctx, tx, book, bks, by, now, &ob); err != nil {
		return err
	}
	if err := ob.flush(ctx, tx); err != nil {
		return err
	}
	return rs.write(ctx, tx)
}

// takePlaces takes the places ps asks for from areas, all or none.
func takePlaces(showID string, ps []stockade.Places, areas map[string]stockade.Area) error {
	for _, p := range ps {
		a, ok := areas[p.Area]
		switch {
		case !ok:
			return refuse(stockade.ENotFound, "event %q has no area %q", showID, p.Area)
		case a.Available() < p.Quantity:
			return refuse(stockade.ESoldOut, "area %q of event %q: %d places asked, %d left", p.Area, showID, p.Quantity, a.Available())
		}
	}
	for _, p := range ps {
		a := areas[p.Area]
		a.Held += p.Quantity
		areas[p.Area] = a
	}
	return nil
}

// release marks the seats ids free again in st: a choice that the
// places of its hold turned down.
func (st *seatState) release(ids []string) {
	if st == nil {
		return
	}
	for _, id := range ids {
		if i, ok := st.index[id]; ok {
			st.setFree(i, true)
		}
	}
}

// seat returns the seat id, from st (which may be nil) or from named.
func (st *seatState) seat(id string, named map[string]stockade.Seat) stockade.Seat {
	if st != nil {
		if i, ok := st.index[id]; ok {
			return st.free[i]
		}
	}
	return named[id]
}

// keptSeats keeps, under the Batch strategy, the free seats of each show
// as its last hold batch left them, with the show's version and seat
// epoch (stockade.BookingTx.SeatEpoch). The next batch, holding the
// show's row, uses them instead of reading them again if the show and its
// epoch are as they were: no transaction has freed seats of the show
// since, nor has a batch of another engine taken any (each batch that
// takes seats bumps the epoch, and keeps its seats only if its bump is
// the next one). A seat taken meanwhile by a writer that does not bump
// the epoch (a hold under another strategy) makes the batch's MoveSeats
// fall short: a conflict, and the batch is decided again on a fresh read.
type keptSeats struct {
	mu    sync.Mutex
	shows map[string]*seatState // by show id
}

// take returns the free seats kept of a show if they are of its version
// and epoch, and forgets them either way: the caller may change them, and
// keeps them again only once its batch has committed.
func (k *keptSeats) take(showID string, version, epoch int64) *seatState {
	k.mu.Lock()
	defer k.mu.Unlock()
	st := k.shows[showID]
	delete(k.shows, showID)
	if st == nil || st.version != version || st.epoch != epoch {
		return nil
	}
	return st
}

// keep keeps st, a show's free seats as a committed batch left them, for
// its next batch.
func (k *keptSeats) keep(st *seatState) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.shows[st.event]; !ok && len(k.shows) >= maxLayouts {
		for id := range k.shows { // any one: it is read again at need
			delete(k.shows, id)
			break
		}
	}
	k.shows[st.event] = st
}
