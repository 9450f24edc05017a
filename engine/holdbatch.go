package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// holdBatcher group-commits the HoldSeats and ConfirmHold calls of one
// engine under the Batch strategy. Holds batch event by event: while a
// batch transaction of an event runs, that event's calls queue, and the
// next transaction decides them all, up to Options.MaxBatch, in arrival
// order, on one read of the event's free seats. Confirms batch in one
// queue of their own, whatever their events: a confirm needs no read of
// free seats, only its hold's row. As with batcher, a call that finds its
// queue idle starts a batch at once, and a queue's goroutine exits when
// the queue is empty.
//
// Between the batches of an event the batcher keeps the event's free
// seats, as its last batch left them, with the event's version and seat
// epoch (stockade.BookingTx.SeatEpoch). The next batch, holding the
// event's row, uses them instead of reading them again if the event and
// its epoch are as they were: no transaction has freed seats of the event
// since, nor has a batch of another engine taken any (each batch that
// takes seats bumps the epoch, and keeps its seats only if its bump is
// the next one). A seat taken meanwhile by a writer that does not bump
// the epoch (a hold under another strategy) makes the batch's MoveSeats
// fall short: a conflict, and the batch is decided again on a fresh read.
type holdBatcher struct {
	e *Engine

	mu     sync.Mutex
	queues map[batchKey]*holdQueue // while they have calls
	seats  map[string]*seatState   // by event id, between its batches
}

// takeSeats returns the free seats kept of an event if they are of its
// version and epoch, and forgets them either way: the caller may change
// them, and keeps them again only once its batch has committed.
func (b *holdBatcher) takeSeats(eventID string, version, epoch int64) *seatState {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.seats[eventID]
	delete(b.seats, eventID)
	if st == nil || st.version != version || st.epoch != epoch {
		return nil
	}
	return st
}

// keepSeats keeps st, an event's free seats as a committed batch left
// them, for its next batch.
func (b *holdBatcher) keepSeats(st *seatState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seats[st.event]; !ok && len(b.seats) >= maxLayouts {
		for id := range b.seats { // any one: it is read again at need
			delete(b.seats, id)
			break
		}
	}
	b.seats[st.event] = st
}

// batchKey names a queue of a holdBatcher: the holds of an event, or the
// confirms.
type batchKey struct {
	event   string
	confirm bool
}

type holdQueue struct {
	calls []*holdCall // arrival order
}

// holdCall is one HoldSeats or ConfirmHold call in the batcher.
type holdCall struct {
	c       *call
	req     stockade.HoldRequest // a hold
	ttl     time.Duration
	confirm string // or a confirm of this hold

	// Guarded by holdBatcher.mu.
	taken     bool
	withdrawn bool

	done     chan struct{} // closed once the fields below are set
	attempts int
	out      holdOutcome
}

// holdOutcome is what a batch decided for one call.
type holdOutcome struct {
	hold     stockade.Hold    // of a hold
	booking  stockade.Booking // of a confirm
	replayed bool
	err      error
}

// submit queues h and waits for the batch that decides it, as
// batcher.submit does.
func (b *holdBatcher) submit(ctx context.Context, h *holdCall) (holdOutcome, error) {
	c := h.c
	if c.idem != nil {
		idem := *c.idem // the batch may read it after the caller has left
		c.idem = &idem
	}
	key := batchKey{event: h.req.EventID}
	if h.confirm != "" {
		key = batchKey{confirm: true}
	}
	h.done = make(chan struct{})
	b.mu.Lock()
	q, ok := b.queues[key]
	if !ok {
		q = &holdQueue{}
		b.queues[key] = q
		go b.drain(key, q)
	}
	q.calls = append(q.calls, h)
	b.mu.Unlock()

	select {
	case <-h.done:
	case <-ctx.Done():
		b.mu.Lock()
		h.withdrawn = !h.taken
		b.mu.Unlock()
		if h.withdrawn {
			return holdOutcome{}, fmt.Errorf("engine: %s: queued for a batch: %w", c.op, ctx.Err())
		}
		select {
		case <-h.done:
		default:
			err := fmt.Errorf("engine: %s: in a batch: %w: %w", c.op, stockade.Errorf(stockade.EUnavailable,
				"the request did not finish before its deadline and its outcome is unknown; retry with the same Idempotency-Key to learn it"), ctx.Err())
			c.e.log.Warn("engine: call left its batch undecided", "op", c.op, "err", err)
			return holdOutcome{}, err
		}
	}
	c.attempts += h.attempts
	c.replayed = h.out.replayed
	return h.out, h.out.err
}

// drain runs the batches of one queue until it is empty, and then
// forgets the queue.
func (b *holdBatcher) drain(key batchKey, q *holdQueue) {
	for {
		b.mu.Lock()
		var batch []*holdCall
		n := 0
		for ; n < len(q.calls) && len(batch) < b.e.opts.MaxBatch; n++ {
			if h := q.calls[n]; !h.withdrawn {
				h.taken = true
				batch = append(batch, h)
			}
		}
		clear(q.calls[:n])
		q.calls = q.calls[n:]
		if len(batch) == 0 {
			delete(b.queues, key)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.e.runHoldBatch(key, batch)
	}
}

// runHoldBatch decides every call of batch in one write transaction,
// retried whole on conflicts, as runBatch does.
func (e *Engine) runHoldBatch(key batchKey, batch []*holdCall) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "hold batch", start: time.Now()}
	what := fmt.Sprintf("holds of event %s", key.event)
	if key.confirm {
		c.op, what = "confirm batch", "confirms"
	}
	var (
		out  []holdOutcome
		keep *seatState
	)
	err := c.retry(ctx, func(ctx context.Context) error {
		return e.store.Update(ctx, func(tx stockade.Tx) error {
			var err error
			if key.confirm {
				out, err = e.decideConfirms(ctx, tx, batch)
			} else {
				out, keep, err = e.decideHolds(ctx, tx, key.event, batch)
			}
			return err
		})
	})
	if err != nil {
		err = fmt.Errorf("engine: batch of %d %s: %w", len(batch), what, err)
	} else {
		if keep != nil {
			e.holds.keepSeats(keep)
		}
		e.written.notify()
	}
	if obs := e.opts.Observer; obs != nil {
		obs(Event{Op: "batch", Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Calls: len(batch)})
	}
	for i, h := range batch {
		h.attempts = c.attempts
		if err != nil {
			h.out = holdOutcome{err: err}
		} else {
			h.out = out[i]
		}
		close(h.done)
	}
}

// decideHolds is one attempt of a hold batch. It reads the records of
// the calls' idempotency keys, holding them; locks the event's row, which
// orders the batches of one event across instances; expires the event's
// lapsed holds; reads its free seats (or takes those the batcher kept)
// and areas once, and the seats the calls name. It then decides each call
// in arrival order on what is left, all or nothing as it would be alone,
// and writes the batch in bulk: one MoveSeats, one MovePlaces per area,
// the holds, the history, the events and the records, and last bumps the
// event's seat epoch. A seat or place that a writer outside the batch
// took meanwhile makes a bulk write fall short: a conflict, and the batch
// is decided again. keep is the free seats as the batch leaves them, for
// the next batch once this one has committed; nil if another transaction
// freed seats of the event meanwhile.
func (e *Engine) decideHolds(ctx context.Context, tx stockade.Tx, eventID string, batch []*holdCall) (out []holdOutcome, keep *seatState, err error) {
	now := e.now()
	var keys []string
	for _, h := range batch {
		if h.c.idem != nil {
			keys = append(keys, h.c.key)
		}
	}
	records, err := recordsOf(ctx, tx, keys)
	if err != nil {
		return nil, nil, err
	}
	out = make([]holdOutcome, len(batch))
	ev, err := tx.EventHead(ctx, eventID, true)
	if stockade.ErrorCode(err) == stockade.ENotFound {
		for i := range out {
			out[i].err = err
		}
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	epoch, err := tx.SeatEpoch(ctx, eventID, false)
	if err != nil {
		return nil, nil, err
	}
	st := e.holds.takeSeats(eventID, ev.Version, epoch)
	if st == nil {
		if st, err = e.freeSeats(ctx, tx, ev); err != nil {
			return nil, nil, err
		}
	}
	st.areas, st.epoch = ev.Areas, epoch
	lapsed, err := lapsedHolds(ctx, tx, now, eventID, e.opts.SweepBatch)
	if err != nil {
		return nil, nil, err
	}
	if len(lapsed) > 0 {
		if err := e.expireHolds(ctx, tx, lapsed, now); err != nil {
			return nil, nil, err
		}
		if st, err = e.readSeats(ctx, tx, eventID, false); err != nil { // with the seats they freed
			return nil, nil, err
		}
		if st.epoch, err = tx.SeatEpoch(ctx, eventID, false); err != nil {
			return nil, nil, err
		}
	}
	areas := map[string]stockade.Area{}
	for _, a := range st.areas {
		areas[a.Name] = a
	}
	var names []string
	for _, h := range batch {
		names = append(names, h.req.Seats...)
	}
	named := map[string]stockade.Seat{}
	if len(names) > 0 {
		slices.Sort(names)
		if named, err = namedSeats(ctx, tx, eventID, slices.Compact(names), false); err != nil {
			return nil, nil, err
		}
	}

	var (
		moves   []stockade.SeatMove
		places  = map[string]int64{} // the batch's places, by area
		holds   []stockade.Hold
		changes []stockade.SeatChange
		recs    []stockade.IdempotencyRecord
		ob      outbox
	)
	for i, h := range batch {
		o := &out[i]
		if h.c.idem != nil {
			if o.replayed, o.err = replayed(e, h.c, records, now, &o.hold); o.err != nil || o.replayed {
				continue
			}
		}
		ids, _, split, err := st.choose(h.req, named)
		if err == nil {
			err = takePlaces(eventID, h.req.Places, areas)
		}
		if err != nil {
			if !isRefusal(err) {
				return nil, nil, err
			}
			st.release(ids)
			o.err = err
			continue
		}
		hold := stockade.Hold{ID: newID("hld"), EventID: eventID, Status: stockade.HoldHeld, CreatedAt: now,
			ExpiresAt: now.Add(h.ttl), Owner: h.c.actor.KeyID, Version: 1, Split: split, Places: h.req.Places}
		for _, id := range ids {
			moves = append(moves, stockade.SeatMove{Seat: id, From: stockade.SeatFree, To: stockade.SeatHeld, Hold: hold.ID})
		}
		hold.Seats = slices.SortedFunc(slices.Values(ids), func(a, b string) int {
			return st.seat(a, named).Compare(st.seat(b, named))
		})
		for _, p := range h.req.Places {
			places[p.Area] += p.Quantity
		}
		o.hold = hold
		holds = append(holds, hold)
		changes = append(changes, history(hold, stockade.SeatFree, stockade.SeatHeld, "", h.c.actor.Name, now)...)
		ob.hold(stockade.EventHoldHeld, hold, now)
		if idem := h.c.idem; idem != nil {
			rec, err := e.record(h.c.op, h.c.key, idem, hold)
			if err != nil {
				return nil, nil, err
			}
			recs, records[h.c.key] = append(recs, rec), rec
		}
	}
	if len(moves) > 0 {
		moved, err := tx.MoveSeats(ctx, eventID, moves)
		if err != nil {
			return nil, nil, err
		}
		if len(moved) < len(moves) {
			return nil, nil, conflictf("%d of the batch's %d seats were taken meanwhile", len(moves)-len(moved), len(moves))
		}
	}
	for _, area := range slices.Sorted(maps.Keys(places)) {
		if _, ok, err := tx.MovePlaces(ctx, eventID, area, places[area], 0); err != nil || !ok {
			if err == nil {
				err = conflictf("the places of area %s were taken meanwhile", area)
			}
			return nil, nil, err
		}
	}
	if len(holds) == 0 {
		return out, st, tx.PutIdempotency(ctx, recs...)
	}
	if err := tx.InsertHolds(ctx, holds...); err != nil {
		return nil, nil, err
	}
	if err := tx.AppendSeatChanges(ctx, changes...); err != nil {
		return nil, nil, err
	}
	if err := ob.flush(ctx, tx); err != nil {
		return nil, nil, err
	}
	if err := tx.PutIdempotency(ctx, recs...); err != nil {
		return nil, nil, err
	}
	// Last, so that the epoch stays locked for as short as can be.
	bumped, err := tx.SeatEpoch(ctx, eventID, true)
	if err != nil {
		return nil, nil, err
	}
	if bumped != st.epoch+1 {
		return out, nil, nil // freed meanwhile: read them at the next batch
	}
	st.epoch = bumped
	return out, st, nil
}

// decideConfirms is one attempt of a confirm batch. It reads the records
// of the calls' idempotency keys and the calls' holds, holding them (in
// id order), and decides each call in arrival order as ConfirmHold would
// alone: a held, unlapsed hold is booked (a second confirm of it in the
// batch gets the same booking); a confirmed one answers its booking; a
// lapsed one is expired and refused with EHoldExpired. It then writes the
// batch in bulk (expireHolds, confirmHolds), the events and the records.
func (e *Engine) decideConfirms(ctx context.Context, tx stockade.Tx, batch []*holdCall) ([]holdOutcome, error) {
	now := e.now()
	var keys, ids []string
	for _, h := range batch {
		if h.c.idem != nil {
			keys = append(keys, h.c.key)
		}
		ids = append(ids, h.confirm)
	}
	records, err := recordsOf(ctx, tx, keys)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	hs, err := tx.Holds(ctx, slices.Compact(ids), true)
	if err != nil {
		return nil, err
	}
	holds := make(map[string]stockade.Hold, len(hs))
	for _, h := range hs {
		holds[h.ID] = h
	}

	var (
		out    = make([]holdOutcome, len(batch))
		book   []stockade.Hold                 // to confirm, in the order of their first calls
		bks    []stockade.Booking              // their bookings
		by     []string                        // the actor of each one's first call
		booked = map[string]stockade.Booking{} // by hold id, for a second call
		expire []stockade.Hold
		recs   []stockade.IdempotencyRecord
	)
	for i, h := range batch {
		o := &out[i]
		if h.c.idem != nil {
			if o.replayed, o.err = replayed(e, h.c, records, now, &o.booking); o.err != nil || o.replayed {
				continue
			}
		}
		hold, ok := holds[h.confirm]
		lapsed := ok && hold.Status == stockade.HoldHeld && hold.ExpiresAt.Before(now)
		if lapsed {
			// One whose payment is in flight has not lapsed.
			in, err := paying(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayHold, ID: hold.ID})
			if err != nil {
				return nil, err
			}
			lapsed = !in
		}
		switch {
		case !ok || !h.c.actor.Sees(hold.Owner):
			o.err = refuse(stockade.ENotFound, "hold %q not found", h.confirm)
		case hold.Status == stockade.HoldExpired:
			o.err = holdExpired(hold)
		case hold.Status == stockade.HoldConfirmed:
			o.booking, o.err = tx.Booking(ctx, hold.BookingID, false)
		case hold.Status != stockade.HoldHeld:
			o.err = refuse(stockade.EInvalidState, "hold %q is %s, not held", hold.ID, hold.Status)
		case lapsed:
			expire = append(expire, hold)
			hold.Status = stockade.HoldExpired
			holds[hold.ID] = hold // as a second confirm of it will find it
			o.err = holdExpired(hold)
		default:
			bk, ok := booked[hold.ID]
			if !ok {
				bk = newBooking(hold, now)
				book, bks, by = append(book, hold), append(bks, bk), append(by, h.c.actor.Name)
				booked[hold.ID] = bk
			}
			o.booking = bk
		}
		switch {
		case o.err != nil && !isRefusal(o.err):
			return nil, o.err // the store failed
		case o.err != nil || h.c.idem == nil:
			continue // a refusal is not recorded: a retry runs afresh
		}
		// Recorded with the batch, and replayed to a later call of the
		// batch with the key.
		rec, err := e.record(h.c.op, h.c.key, h.c.idem, o.booking)
		if err != nil {
			return nil, err
		}
		recs, records[h.c.key] = append(recs, rec), rec
	}
	if err := e.expireHolds(ctx, tx, expire, now); err != nil {
		return nil, err
	}
	var ob outbox
	if err := confirmHolds(ctx, tx, book, bks, by, now, &ob); err != nil {
		return nil, err
	}
	if err := ob.flush(ctx, tx); err != nil {
		return nil, err
	}
	return out, tx.PutIdempotency(ctx, recs...)
}

// takePlaces takes the places ps asks for from areas, all or none.
func takePlaces(eventID string, ps []stockade.Places, areas map[string]stockade.Area) error {
	for _, p := range ps {
		a, ok := areas[p.Area]
		switch {
		case !ok:
			return refuse(stockade.ENotFound, "event %q has no area %q", eventID, p.Area)
		case a.Available() < p.Quantity:
			return refuse(stockade.ESoldOut, "area %q of event %q: %d places asked, %d left", p.Area, eventID, p.Quantity, a.Available())
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

// seat returns the seat id, from st or from named.
func (st *seatState) seat(id string, named map[string]stockade.Seat) stockade.Seat {
	if i, ok := st.index[id]; ok {
		return st.free[i]
	}
	return named[id]
}
