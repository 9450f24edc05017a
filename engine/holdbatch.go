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

// holdBatcher group-commits the HoldSeats calls of one engine under the
// Batch strategy, event by event: while a batch transaction of an event
// runs, that event's calls queue, and the next transaction decides them
// all, up to Options.MaxBatch, in arrival order, on one read of the
// event's free seats. As with batcher, a call that finds its event idle
// starts a batch at once, and an event's goroutine exits when its queue
// is empty.
type holdBatcher struct {
	e *Engine

	mu     sync.Mutex
	events map[string]*holdQueue // by event id, while it has calls
}

type holdQueue struct {
	calls []*holdCall // arrival order
}

// holdCall is one HoldSeats call in the batcher.
type holdCall struct {
	c   *call
	req stockade.HoldRequest
	ttl time.Duration

	// Guarded by holdBatcher.mu.
	taken     bool
	withdrawn bool

	done     chan struct{} // closed once the fields below are set
	attempts int
	hold     stockade.Hold
	replayed bool
	err      error
}

// submit queues h and waits for the batch that decides it, as
// batcher.submit does.
func (b *holdBatcher) submit(ctx context.Context, h *holdCall) (stockade.Hold, error) {
	c := h.c
	if c.idem != nil {
		idem := *c.idem // the batch may read it after the caller has left
		c.idem = &idem
	}
	h.done = make(chan struct{})
	b.mu.Lock()
	q, ok := b.events[h.req.EventID]
	if !ok {
		q = &holdQueue{}
		b.events[h.req.EventID] = q
		go b.drain(h.req.EventID, q)
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
			return stockade.Hold{}, fmt.Errorf("engine: %s: queued for a batch: %w", c.op, ctx.Err())
		}
		select {
		case <-h.done:
		default:
			err := fmt.Errorf("engine: %s: in a batch: %w: %w", c.op, stockade.Errorf(stockade.EUnavailable,
				"the request did not finish before its deadline and its outcome is unknown; retry with the same Idempotency-Key to learn it"), ctx.Err())
			c.e.log.Warn("engine: call left its batch undecided", "op", c.op, "err", err)
			return stockade.Hold{}, err
		}
	}
	c.attempts += h.attempts
	c.replayed = h.replayed
	return h.hold, h.err
}

// drain runs the batches of one event until its queue is empty, and then
// forgets the event.
func (b *holdBatcher) drain(eventID string, q *holdQueue) {
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
			delete(b.events, eventID)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.e.runHoldBatch(eventID, batch)
	}
}

// runHoldBatch decides every call of batch in one write transaction,
// retried whole on conflicts, as runBatch does.
func (e *Engine) runHoldBatch(eventID string, batch []*holdCall) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "hold batch", start: time.Now()}
	var out []holdOutcome
	err := c.retry(ctx, func(ctx context.Context) error {
		return e.store.Update(ctx, func(tx stockade.Tx) error {
			var err error
			out, err = e.decideHolds(ctx, tx, eventID, batch)
			return err
		})
	})
	if err != nil {
		err = fmt.Errorf("engine: batch of %d holds of event %s: %w", len(batch), eventID, err)
	} else {
		e.written.notify()
	}
	if obs := e.opts.Observer; obs != nil {
		obs(Event{Op: "batch", Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Calls: len(batch)})
	}
	for i, h := range batch {
		h.attempts = c.attempts
		if err != nil {
			h.err = err
		} else {
			h.hold, h.replayed, h.err = out[i].hold, out[i].replayed, out[i].err
		}
		close(h.done)
	}
}

type holdOutcome struct {
	hold     stockade.Hold
	replayed bool
	err      error
}

// decideHolds is one attempt of a hold batch. It reads the records of
// the calls' idempotency keys, holding them; locks the event's row, which
// orders the batches of one event across instances; expires the event's
// lapsed holds; reads its free seats and areas once, and the seats the
// calls name. It then decides each call in arrival order on what is left,
// all or nothing as it would be alone, and writes the batch in bulk: one
// MoveSeats, one MovePlaces per area, the holds, the history, the events
// and the records. A seat or place that a writer outside the batch took
// meanwhile makes a bulk write fall short: a conflict, and the batch is
// decided again.
func (e *Engine) decideHolds(ctx context.Context, tx stockade.Tx, eventID string, batch []*holdCall) ([]holdOutcome, error) {
	now := e.now()
	var keys []string
	for _, h := range batch {
		if h.c.idem != nil {
			keys = append(keys, h.c.key)
		}
	}
	records, err := recordsOf(ctx, tx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]holdOutcome, len(batch))
	st, err := e.readSeats(ctx, tx, eventID, true)
	if stockade.ErrorCode(err) == stockade.ENotFound {
		for i := range out {
			out[i].err = err
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	lapsed, err := tx.LapsedHolds(ctx, now, eventID, e.opts.SweepBatch)
	if err != nil {
		return nil, err
	}
	if len(lapsed) > 0 {
		if err := e.expireHolds(ctx, tx, lapsed, now); err != nil {
			return nil, err
		}
		if st, err = e.readSeats(ctx, tx, eventID, false); err != nil { // with the seats they freed
			return nil, err
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
			return nil, err
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
		if idem := h.c.idem; idem != nil {
			rec, ok := records[h.c.key]
			replay, err := e.admit(h.c.op, idem, rec, ok, now)
			if o.err = err; err == nil && replay {
				o.replayed, o.err = true, recall(rec, &o.hold)
			}
			if o.err != nil || o.replayed {
				continue
			}
		}
		ids, _, split, err := st.choose(h.req, named)
		if err == nil {
			err = takePlaces(eventID, h.req.Places, areas)
		}
		if err != nil {
			if !isRefusal(err) {
				return nil, err
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
				return nil, err
			}
			recs, records[h.c.key] = append(recs, rec), rec
		}
	}
	if len(moves) > 0 {
		moved, err := tx.MoveSeats(ctx, eventID, moves)
		if err != nil {
			return nil, err
		}
		if len(moved) < len(moves) {
			return nil, conflictf("%d of the batch's %d seats were taken meanwhile", len(moves)-len(moved), len(moves))
		}
	}
	for _, area := range slices.Sorted(maps.Keys(places)) {
		if _, ok, err := tx.MovePlaces(ctx, eventID, area, places[area], 0); err != nil || !ok {
			if err == nil {
				err = conflictf("the places of area %s were taken meanwhile", area)
			}
			return nil, err
		}
	}
	if len(holds) == 0 {
		return out, tx.PutIdempotency(ctx, recs...)
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
			st.spots[i].Free = true
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
