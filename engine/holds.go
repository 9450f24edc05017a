package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// HoldSeats holds what req asks of a show, all or nothing: named seats,
// best-available seats (see bestAvailable) and general-admission places,
// until the hold's TTL passes. Lapsed holds of the show are expired
// first, in the same transaction. A named seat that is not free is
// refused with ESeatsUnavailable naming it; a request for seats or
// places that no free ones meet with ESoldOut; an unknown show, seat or
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
	return h.req.ShowID
}

// holdTxn runs the transaction that decides batch, retried whole on
// conflicts: a batch of confirms (decideConfirms), or of holds of one show
// (decideHolds). Under the Lock strategy each attempt of holds first takes
// a lease on the show, as the designs that lock a whole show do: it
// serialises the show's buyers. The seats need no fencing token: a seat
// moves only from the status it is in (SeatMoveMany), so a holder whose
// lease lapsed cannot take a seat that another has taken.
func (e *Engine) holdTxn(ctx context.Context, c *call, batch []*holdCall) error {
	if batch[0].confirm != "" {
		return c.update(ctx, func(tx stockade.Tx) error { return e.decideConfirms(ctx, tx, batch) })
	}
	show := batch[0].req.ShowID
	if e.kept != nil && !keyed(batch) {
		if done, err := e.peekRefusals(ctx, c, show, batch); err != nil || done {
			return err
		}
	}
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

// decideHolds is the body of HoldSeats: one attempt of the transaction
// that decides a batch of holds of one show, or one alone. It reads the
// records of the calls' idempotency keys, holding them. Under the Batch
// strategy a batch with keys that the seats kept from the show's last
// batch refuse whole ends there (refuseOnKept; a batch without keys tried
// that before its transaction, in peekRefusals). Otherwise it reads the
// rooms in front of the show and the show's row, locked under the Batch
// strategy, which orders the batches of one show across instances; expires the
// show's lapsed holds, if its seat epoch's read says any may have lapsed;
// reads its free seats (or brings those kept up to date) when a call asks for
// best-available seats or the batch has several calls, and the seats the
// calls name, locked under RowLock. It then decides each call in arrival
// order on what is left, all or nothing, and writes in bulk: one
// SeatMoveMany, one AreaMovePlaces per area, the holds, the history, the events
// and the records. A seat or place that a writer outside the transaction
// took meanwhile makes a write fall short: a conflict, and the
// transaction is decided again on a fresh read.
//
// Under the Batch strategy it last bumps the show's seat epoch, recording
// the seats it took, and keep is the seats as the batch leaves them, for
// the next batch once this one has committed; nil under the other
// strategies.
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
	var kept *seatState
	if e.kept != nil {
		// A batch without keys tried its refusals before its transaction
		// (peekRefusals); one with keys holds them first.
		if kept = e.kept.take(showID); kept != nil && keyed(batch) {
			if done, err := e.refuseOnKept(ctx, tx, kept, batch, rs, now); err != nil || done {
				return kept, err
			} // else each call is decided afresh below
		}
	}
	// The rooms in front of the show, before the show's row is locked.
	g, err := readGate(ctx, tx, []string{stockade.ShowTarget(showID)})
	if err != nil {
		return nil, err
	}
	ev, err := tx.ShowGetHead(ctx, stockade.ByID{ID: showID, Lock: e.strat.group})
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
	se, err := tx.SeatEpochGet(ctx, showID)
	if err != nil {
		return nil, err
	}
	if mayLapse(se, now) {
		lapsed, err := lapsedHolds(ctx, tx, now, showID, e.opts.SweepBatch)
		if err != nil {
			return nil, err
		}
		if len(lapsed) > 0 {
			if err := e.expireHolds(ctx, tx, lapsed, now); err != nil {
				return nil, err
			}
			if ev, err = tx.ShowGetHead(ctx, stockade.ByID{ID: showID}); err != nil { // with the places they freed
				return nil, err
			}
			// The epoch of their expiry, which records the seats it freed.
			if se, err = tx.SeatEpochGet(ctx, showID); err != nil {
				return nil, err
			}
		}
	}
	var st *seatState
	if needFree {
		if kept != nil && kept.version == ev.Version {
			ok, err := kept.catchUp(ctx, tx, se.Epoch)
			if err != nil {
				return nil, err
			}
			if ok {
				st = kept
			} // else read them again
		}
		if st == nil {
			if st, err = e.freeSeats(ctx, tx, ev); err != nil {
				return nil, err
			}
		}
		st.epoch = se.Epoch
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
		admitted, err := g.check([]string{stockade.ShowTarget(showID)}, h.req.Admission, now)
		if err != nil {
			h.err = err
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
		hold := stockade.Hold{ID: newID("hld"), ShowID: showID, Status: stockade.HoldHeld, CreatedAt: now,
			ExpiresAt: now.Add(h.ttl), Owner: h.c.actor.KeyID, Version: 1, Split: split, Places: h.req.Places, Metadata: h.req.Metadata}
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
		if admitted != nil {
			g.use(admitted, h.req.Admission.VisitorID)
		}
		changes = append(changes, history(hold, stockade.SeatFree, stockade.SeatHeld, "", h.c.actor.Name, now)...)
		ob.hold(stockade.EventHoldHeld, hold, now)
		if err := rs.keep(h.c, hold); err != nil {
			return nil, err
		}
	}
	if e.strat.lockSeats && len(best) > 0 {
		// Chosen on an unlocked read: lock them and check that they are
		// still free.
		locked, err := tx.SeatList(ctx, showID, stockade.SeatFilter{IDs: slices.Sorted(slices.Values(best)), Lock: true})
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
		moved, err := tx.SeatMoveMany(ctx, showID, moves)
		if err != nil {
			return nil, err
		}
		if len(moved) < len(moves) {
			return nil, conflictf("%d of %d seats were taken meanwhile", len(moves)-len(moved), len(moves))
		}
	}
	for _, area := range slices.Sorted(maps.Keys(places)) {
		if _, ok, err := tx.AreaMovePlaces(ctx, showID, area, places[area], 0); err != nil || !ok {
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
	if err := tx.HoldInsert(ctx, holds...); err != nil {
		return nil, err
	}
	if err := g.write(ctx, tx, now); err != nil {
		return nil, err
	}
	if err := tx.SeatChangeAppend(ctx, changes...); err != nil {
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
	taken := make([]string, len(moves))
	for i, m := range moves {
		taken[i] = m.Seat
	}
	bumped, err := tx.SeatEpochBump(ctx, showID, taken)
	if err != nil {
		return nil, err
	}
	if bumped == st.epoch+1 {
		st.epoch = bumped
	} // else the epoch moved meanwhile: the next batch applies what moved it, and this batch's own change again
	return st, nil
}

// refuseOnKept decides, under the Batch strategy, a batch of holds that
// the seats kept of its show refuse whole (a sold-out show's crowd asking
// again) without locking the show or writing anything, and reports
// whether it did. Each call gets the answer decideHolds would give it:
// its key's stored result, else a refusal of the rooms in front of the
// show, else the refusal of its seats, on kept and on the seats the calls
// name, read unlocked as the Batch strategy reads them. The answers stand
// if no call can be held on kept and kept still holds: the show is of
// kept's version, its seat epoch is kept's (no seat was freed since; one
// taken since only leaves fewer free) and none of its held holds may have
// lapsed, which decideHolds would expire first, freeing their seats. The
// rooms are read only if one holds the show. A call for places needs the
// show's areas, which kept lacks: its batch is decided in full. kept is
// as it was whatever the answer.
func (e *Engine) refuseOnKept(ctx context.Context, tx stockade.Tx, kept *seatState, batch []*holdCall, rs *records, now time.Time) (bool, error) {
	var names []string
	for _, h := range batch {
		if len(h.req.Places) > 0 {
			return false, nil
		}
		names = append(names, h.req.Seats...)
	}
	named := map[string]stockade.Seat{}
	if len(names) > 0 {
		slices.Sort(names)
		var err error
		if named, err = namedSeats(ctx, tx, kept.event, slices.Compact(names), false); err != nil {
			return false, err
		}
	}
	refusals := make([]error, len(batch))
	for i, h := range batch {
		if h.replayed, h.err = replay(rs, h.c, &h.hold); h.err != nil || h.replayed {
			continue
		}
		ids, _, _, err := kept.choose(h.req, named)
		switch {
		case err == nil:
			kept.release(ids)
			return false, nil
		case !isRefusal(err):
			return false, err
		}
		refusals[i] = err
	}
	se, err := tx.SeatEpochGet(ctx, kept.event)
	if err != nil || se.Version != kept.version || se.Epoch != kept.epoch || mayLapse(se, now) {
		return false, err
	}
	var g *gate
	targets := []string{stockade.ShowTarget(kept.event)}
	if se.Gated {
		if g, err = readGate(ctx, tx, targets); err != nil {
			return false, err
		}
	}
	for i, h := range batch {
		if h.err != nil || h.replayed {
			continue
		}
		if _, h.err = g.check(targets, h.req.Admission, now); h.err == nil {
			h.err = refusals[i]
		}
	}
	return true, nil
}

// peekRefusals is refuseOnKept for a batch without idempotency keys,
// outside any transaction: its reads are peeks (stockade.Store.Peek),
// which on PostgreSQL spare the transaction's BEGIN and COMMIT, a round
// trip each. A batch with keys needs them held while its calls are
// decided, and so a transaction.
func (e *Engine) peekRefusals(ctx context.Context, c *call, showID string, batch []*holdCall) (bool, error) {
	kept := e.kept.take(showID)
	if kept == nil {
		return false, nil
	}
	done := false
	err := c.peek(ctx, func(tx stockade.Tx) (err error) {
		done, err = e.refuseOnKept(ctx, tx, kept, batch, &records{e: e}, e.now())
		return err
	})
	if err == nil {
		e.kept.keep(kept) // as it was
	}
	return done, err // if not done, decideHolds decides every call afresh
}

// keyed reports whether a call of batch has an idempotency key.
func keyed(batch []*holdCall) bool {
	return slices.ContainsFunc(batch, func(h *holdCall) bool { return h.c.idem != nil })
}

// mayLapse reports whether a held hold of the show that se was read of
// may have lapsed at now: the earliest expiry among them has passed.
// lapsedHolds, which reads each one's payment, says which have.
func mayLapse(se stockade.SeatEpoch, now time.Time) bool {
	return !se.HeldUntil.IsZero() && lapse{expiresAt: se.HeldUntil}.lapses(now)
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
	hs, err := tx.HoldGetMany(ctx, stockade.ByIDs{IDs: slices.Compact(ids), Lock: true})
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
			h.booking, h.err = tx.BookingGet(ctx, stockade.ByID{ID: hold.BookingID})
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
			return refuse(stockade.ENotFound, "show %q has no area %q", showID, p.Area)
		case a.Available() < p.Quantity:
			return refuse(stockade.ESoldOut, "area %q of show %q: %d places asked, %d left", p.Area, showID, p.Quantity, a.Available())
		}
	}
	for _, p := range ps {
		a := areas[p.Area]
		a.Held += p.Quantity
		areas[p.Area] = a
	}
	return nil
}

// keptSeats keeps, under the Batch strategy, the seats of each show as
// its last hold batch left them, with the show's version and seat epoch
// (stockade.SeatEpoch). The next batch, holding the show's row,
// uses them instead of reading them again if the show is of the same
// version: it brings them to the epoch it reads by the epoch's recorded
// changes (seatState.catchUp), the seats that transactions freed since and
// those that batches of other engines took (each batch that takes seats
// bumps the epoch and records them). A seat taken meanwhile by a writer
// that does not bump the epoch (a hold under another strategy) makes the
// batch's SeatMoveMany fall short: a conflict, and the batch is decided
// again on a fresh read. A batch that they refuse whole, at the epoch and
// version they are of, needs no lock at all (refuseOnKept).
type keptSeats struct {
	mu    sync.Mutex
	shows map[string]*seatState // by show id
}

// take returns the seats kept of a show, nil if none, and forgets them:
// the caller may change them, checks that they are of the show's version,
// and keeps them again only once its batch has committed.
func (k *keptSeats) take(showID string) *seatState {
	k.mu.Lock()
	defer k.mu.Unlock()
	st := k.shows[showID]
	delete(k.shows, showID)
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
			h, err = c.holdView(ctx, tx, id, false)
			return err
		})
		return h, err
	})
}

// holdView reads the hold id as c.hold does, and reports a held one that
// has lapsed as expired, as reservationView does a reservation.
func (c *call) holdView(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Hold, error) {
	h, err := c.hold(ctx, tx, id, lock)
	if err != nil || h.Status != stockade.HoldHeld {
		return h, err
	}
	gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: id}, h.ExpiresAt, c.e.now())
	if gone {
		h.Status = stockade.HoldExpired
	}
	return h, err
}

// hold reads the hold id as reservation reads a reservation: another
// storefront's is ENotFound.
func (c *call) hold(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Hold, error) {
	h, err := tx.HoldGet(ctx, stockade.ByID{ID: id, Lock: lock})
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
			if ok, err := tx.HoldExtend(ctx, id, until); err != nil || !ok {
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
	return stockade.Booking{ID: newID("bkg"), ShowID: h.ShowID, HoldID: h.ID, Status: stockade.BookingBooked,
		Seats: h.Seats, Places: h.Places, CreatedAt: now, Owner: h.Owner, Metadata: h.Metadata}
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
	if err := tx.BookingInsert(ctx, bks...); err != nil {
		return err
	}
	for _, bk := range bks {
		ob.booking(stockade.EventBookingBooked, bk, now)
	}
	return nil
}

// ReleaseHold gives a held hold's seats and places back. Releasing a
// released or expired hold changes nothing and returns it; a held one
// whose expiry has passed is expired; a confirmed one is EInvalidState
// (cancel its booking instead); a held one whose payment is processing or
// authorized is EPaymentInFlight (see refuseInFlight).
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
				if err == nil && h.Status == stockade.HoldHeld {
					err = refuseInFlight(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: h.ID})
				}
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
	bk, err := tx.BookingGet(ctx, stockade.ByID{ID: id, Lock: lock})
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
	err := moveTaken(ctx, tx, "booking "+bk.ID, bk.ShowID, bk.Seats, bk.Places, stockade.SeatBooked, stockade.SeatFree, "", bk.ID)
	if err != nil {
		return err
	}
	if ok, err := tx.BookingSetStatus(ctx, bk.ID, stockade.BookingBooked, stockade.BookingCancelled); err != nil || !ok {
		return statusErr(err, "booking", bk.ID)
	}
	h := stockade.Hold{ID: bk.HoldID, ShowID: bk.ShowID, Seats: bk.Seats, Places: bk.Places}
	if err := tx.SeatChangeAppend(ctx, history(h, stockade.SeatBooked, stockade.SeatFree, bk.ID, by, now)...); err != nil {
		return err
	}
	bk.Status = stockade.BookingCancelled
	ob.booking(stockade.EventBookingCancelled, bk, now)
	return nil
}

// The cursors of the lists of holds and bookings, as those of
// reservations and orders (see listCursor).
const (
	holdCursorTag    = 'H'
	bookingCursorTag = 'B'
)

// Holds returns a page of the holds that match q, newest first: all of
// them, or a show's (q.ShowID); a storefront key's own only. A held hold
// that has lapsed is reported expired, as Hold reports it; the status
// filter is on the stored status, as for Reservations.
func (e *Engine) Holds(ctx context.Context, q stockade.ListQuery) (stockade.HoldPage, error) {
	return run(e, ctx, "holds", nil, func(ctx context.Context, c *call) (stockade.HoldPage, error) {
		if err := q.ValidateHolds(); err != nil {
			return stockade.HoldPage{}, err
		}
		f, err := c.listFilter(q, holdCursorTag)
		if err != nil {
			return stockade.HoldPage{}, err
		}
		f.ShowID = q.ShowID
		var hs []stockade.Hold
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if hs, err = tx.HoldList(ctx, f); err != nil {
				return err
			}
			now := e.now()
			for i := range hs {
				if hs[i].Status != stockade.HoldHeld {
					continue
				}
				gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: hs[i].ID}, hs[i].ExpiresAt, now)
				if err != nil {
					return err
				}
				if gone {
					hs[i].Status = stockade.HoldExpired
				}
			}
			return nil
		})
		if err != nil {
			return stockade.HoldPage{}, err
		}
		page := stockade.HoldPage{Holds: hs}
		page.Holds, page.Next = cutPage(hs, f.Limit-1, holdCursorTag, func(x stockade.Hold) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}

// Bookings returns a page of the bookings that match q, newest first, as
// Holds does.
func (e *Engine) Bookings(ctx context.Context, q stockade.ListQuery) (stockade.BookingPage, error) {
	return run(e, ctx, "bookings", nil, func(ctx context.Context, c *call) (stockade.BookingPage, error) {
		if err := q.ValidateBookings(); err != nil {
			return stockade.BookingPage{}, err
		}
		f, err := c.listFilter(q, bookingCursorTag)
		if err != nil {
			return stockade.BookingPage{}, err
		}
		f.ShowID = q.ShowID
		var bs []stockade.Booking
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			bs, err = tx.BookingList(ctx, f)
			return err
		})
		if err != nil {
			return stockade.BookingPage{}, err
		}
		page := stockade.BookingPage{Bookings: bs}
		page.Bookings, page.Next = cutPage(bs, f.Limit-1, bookingCursorTag, func(x stockade.Booking) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}
