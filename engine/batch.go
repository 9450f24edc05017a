package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// batcher group-commits the Reserve, Checkout and Confirm calls of one
// engine under the Batch strategy. Calls queue while a batch transaction runs; the next
// transaction takes every queued call, up to Options.MaxBatch, in arrival
// order. Nothing lingers: a call that finds the batcher idle starts a
// batch of its own at once, so a lone call costs one transaction, as under
// any other strategy, and under load the batches grow by themselves.
//
// One goroutine drains the queue while it is not empty and exits when it
// is, so an idle engine holds no goroutine and needs no Close.
type batcher struct {
	e *Engine

	mu      sync.Mutex
	queue   []*pending // arrival order
	running bool       // a drain goroutine is running
}

// pending is one call in the batcher: queued, then decided by a batch.
type pending struct {
	c        *call
	r        *request // a Reserve or Checkout, or nil
	checkout bool
	confirm  string // or a Confirm of this reservation

	// Guarded by batcher.mu.
	taken     bool // a batch holds it
	withdrawn bool // its caller gave up before a batch took it

	done     chan struct{} // closed once attempts and the outcome below are set
	attempts int           // the batch transaction's attempts
	outcome
}

// outcome is what a batch decided for one call.
type outcome struct {
	res stockade.Reservation // a reservation made, for Reserve
	ord stockade.Order       // an order made, for Checkout and Confirm
	// replayed: the call's idempotency key had a stored result, which
	// res or ord is.
	replayed bool
	// err is the call's refusal, or the batch transaction's failure.
	err error
}

// submit queues p and waits for the batch that decides it. A caller whose
// ctx ends while its call is still queued withdraws it, which changes
// nothing. One whose ctx ends once a batch holds its call does not wait
// for the batch either: it gets EUnavailable saying that the outcome is
// unknown, and the batch goes on under its own deadline (Options.Timeout)
// and commits or rolls back the call with the others, its outcome
// dropped. The call's idempotency key, whose record commits with the
// batch, tells a retry which it was: the stored result, or a fresh run.
func (b *batcher) submit(ctx context.Context, p *pending) (outcome, error) {
	c := p.c
	if c.idem != nil {
		// The batch may read the key after the caller has left.
		idem := *c.idem
		c.idem = &idem
	}
	p.done = make(chan struct{})
	b.mu.Lock()
	b.queue = append(b.queue, p)
	if !b.running {
		b.running = true
		go b.drain()
	}
	b.mu.Unlock()

	select {
	case <-p.done:
	case <-ctx.Done():
		b.mu.Lock()
		p.withdrawn = !p.taken
		b.mu.Unlock()
		if p.withdrawn {
			return outcome{}, fmt.Errorf("engine: %s: queued for a batch: %w", c.op, ctx.Err())
		}
		select {
		case <-p.done: // decided meanwhile: that is the answer
		default:
			err := fmt.Errorf("engine: %s: in a batch: %w: %w", c.op, stockade.Errorf(stockade.EUnavailable,
				"the request did not finish before its deadline and its outcome is unknown; retry with the same Idempotency-Key to learn it"), ctx.Err())
			c.e.log.Warn("engine: call left its batch undecided", "op", c.op, "err", err)
			return outcome{}, err
		}
	}
	c.attempts += p.attempts
	c.replayed = p.replayed
	return p.outcome, p.err
}

// drain runs batches until the queue is empty.
func (b *batcher) drain() {
	for {
		b.mu.Lock()
		var batch []*pending
		n := 0
		for ; n < len(b.queue) && len(batch) < b.e.opts.MaxBatch; n++ {
			if p := b.queue[n]; !p.withdrawn {
				p.taken = true
				batch = append(batch, p)
			}
		}
		clear(b.queue[:n]) // let the taken calls be collected
		b.queue = b.queue[n:]
		if len(batch) == 0 {
			b.queue, b.running = nil, false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.e.runBatch(batch)
	}
}

// runBatch decides every call of batch in one write transaction, retried
// whole on conflicts, and hands each call its outcome once the transaction
// has ended. Nothing of a batch whose transaction failed was committed, so
// every call of it gets the failure. The transaction runs under a context
// of its own, bounded by Options.Timeout: no caller's cancellation may
// abort a transaction that decides other calls too.
func (e *Engine) runBatch(batch []*pending) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "batch", start: time.Now()}
	var out []outcome
	err := c.retry(ctx, func(ctx context.Context) error {
		return e.store.Update(ctx, func(tx stockade.Tx) error {
			var err error
			out, err = e.decide(ctx, tx, batch)
			return err
		})
	})
	if err != nil {
		err = fmt.Errorf("engine: batch of %d calls: %w", len(batch), err)
	} else {
		e.written.notify()
	}
	if obs := e.opts.Observer; obs != nil {
		obs(Event{Op: "batch", Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Calls: len(batch)})
	}
	for i, p := range batch {
		p.attempts = c.attempts
		if err != nil {
			p.err = err
		} else {
			p.outcome = out[i]
		}
		close(p.done)
	}
}

// decide is one attempt of a batch transaction. It reads the records of
// the calls' idempotency keys, holding the keys, then plans (see plan):
// it reads the levels that the calls may draw on, finds the lapsed holds
// on them and the reservations to confirm, and locks the levels in key
// order. Then it decides each call in arrival order from what is left: a
// call is met in full or refused, as it would be alone, or answered from
// its key's record. Last it commits the batch's writes in bulk (see
// commit), each level once, with the sum of the batch's changes to it.
func (e *Engine) decide(ctx context.Context, tx stockade.Tx, batch []*pending) ([]outcome, error) {
	now := e.now()
	records, err := idempotencyRecords(ctx, tx, batch)
	if err != nil {
		return nil, err
	}
	var confirms []string
	for _, p := range batch {
		if p.r == nil {
			confirms = append(confirms, p.confirm)
		}
	}
	pl, err := e.plan(ctx, tx, union(batch), confirms, now)
	if err != nil {
		return nil, err
	}
	var (
		out = make([]outcome, len(batch))
		w   writes
		ob  outbox // the events of the calls decided
	)
	// confirm confirms the reservation id as Confirm does, or says why
	// not; one confirmed earlier in this batch gives its order again.
	confirmed := map[string]stockade.Order{}
	confirm := func(c *call, id string) (stockade.Order, error) {
		r, ok := pl.targets[id]
		switch {
		case !ok || !c.actor.Sees(r.Owner):
			return stockade.Order{}, refuse(stockade.ENotFound, "reservation %q not found", id)
		case confirmed[id].ID != "":
			return confirmed[id], nil
		case r.Status != stockade.Held:
			return notHeld(ctx, tx, r)
		}
		o, rows, err := confirmHeld(ctx, tx, r, c.actor.Name, &ob, now)
		if err != nil {
			return stockade.Order{}, err
		}
		w.orders, w.movements, confirmed[id] = append(w.orders, o), append(w.movements, rows...), o
		return o, nil
	}
	// place allocates a Reserve or Checkout from what is left.
	place := func(p *pending, o *outcome) (any, error) {
		allocs, err := pl.allocate(ctx, e, tx, p.r)
		if err != nil {
			return nil, err
		}
		if p.checkout {
			o.ord = stockade.Order{ID: newID("ord"), Status: stockade.Committed, CreatedAt: now, Lines: p.r.lines, Allocations: allocs, Owner: p.c.actor.KeyID, Version: 1}
			w.orders, w.movements = append(w.orders, o.ord), append(w.movements, movements(allocs, stockade.MoveCheckout, o.ord.ID, "", p.c.actor.Name, now)...)
			ob.order(stockade.EventOrderCommitted, o.ord, now)
			return o.ord, nil
		}
		o.res = stockade.Reservation{ID: newID("res"), Status: stockade.Held, CreatedAt: now,
			ExpiresAt: now.Add(p.r.ttl), Lines: p.r.lines, Allocations: allocs, Owner: p.c.actor.KeyID}
		w.reservations, w.movements = append(w.reservations, o.res), append(w.movements, movements(allocs, stockade.MoveReserve, o.res.ID, "", p.c.actor.Name, now)...)
		ob.reservation(stockade.EventReservationHeld, o.res, now)
		return o.res, nil
	}
	for i, p := range batch {
		o := &out[i]
		idem := p.c.idem
		if idem != nil {
			if p.r != nil && !p.checkout {
				o.replayed, o.err = replayed(e, p.c, records, now, &o.res)
			} else {
				o.replayed, o.err = replayed(e, p.c, records, now, &o.ord)
			}
			if o.err != nil || o.replayed {
				continue
			}
		}
		var result any
		if p.r == nil {
			o.ord, o.err = confirm(p.c, p.confirm)
			result = o.ord
		} else {
			result, o.err = place(p, o)
		}
		switch {
		case o.err != nil && !isRefusal(o.err):
			return nil, o.err // the store failed
		case o.err != nil || idem == nil:
			continue // a refusal is not recorded: a retry runs afresh
		}
		// Recorded with the batch, and replayed to a later call of the
		// batch with the key.
		rec, err := e.record(p.c.op, p.c.key, idem, result)
		if err != nil {
			return nil, err
		}
		w.records, records[p.c.key] = append(w.records, rec), rec
	}
	if ob.err != nil {
		return nil, ob.err
	}
	w.events = ob.evs
	if err := e.commit(ctx, tx, pl, w); err != nil {
		return nil, err
	}
	return out, nil
}

// confirmTargets reads the reservations with the given ids, locking them
// in id order.
func confirmTargets(ctx context.Context, tx stockade.Tx, ids []string) (map[string]stockade.Reservation, error) {
	targets := map[string]stockade.Reservation{}
	if len(ids) == 0 {
		return targets, nil
	}
	ids = slices.Sorted(slices.Values(ids))
	rs, err := tx.Reservations(ctx, slices.Compact(ids), true)
	for _, r := range rs {
		targets[r.ID] = r
	}
	return targets, err
}

// isRefusal reports whether err is a refusal (a *stockade.Error) rather
// than a failure.
func isRefusal(err error) bool {
	_, ok := errors.AsType[*stockade.Error](err)
	return ok
}

// idempotencyRecords reads the records of the idempotency keys of the
// calls of batch, by key, holding the keys until the transaction ends.
func idempotencyRecords(ctx context.Context, tx stockade.Tx, batch []*pending) (map[string]stockade.IdempotencyRecord, error) {
	var keys []string
	for _, p := range batch {
		if p.c.idem != nil {
			keys = append(keys, p.c.key)
		}
	}
	return recordsOf(ctx, tx, keys)
}

// recordsOf reads the idempotency records of keys, by key, holding the
// keys until the transaction ends. It sorts keys.
func recordsOf(ctx context.Context, tx stockade.Tx, keys []string) (map[string]stockade.IdempotencyRecord, error) {
	records := map[string]stockade.IdempotencyRecord{}
	if len(keys) == 0 {
		return records, nil
	}
	slices.Sort(keys)
	recs, err := tx.Idempotencies(ctx, slices.Compact(keys))
	for _, rec := range recs {
		records[rec.Key] = rec
	}
	return records, err
}

// union returns a request that draws on every level the calls of batch
// may draw on, for read: their located keys, SKUs needed anywhere and
// SKUs, and a ship-to point if any has one, so that locations'
// coordinates are read.
func union(batch []*pending) *request {
	u := &request{}
	for _, p := range batch {
		if p.r == nil {
			continue // a Confirm
		}
		u.located = append(u.located, p.r.located...)
		u.anywhere = append(u.anywhere, p.r.anywhere...)
		u.skus = append(u.skus, p.r.skus...)
		if p.r.shipTo != nil {
			u.shipTo = p.r.shipTo
		}
	}
	slices.SortFunc(u.located, stockade.Key.Compare)
	u.located = slices.Compact(u.located)
	slices.Sort(u.anywhere)
	u.anywhere = slices.Compact(u.anywhere)
	slices.Sort(u.skus)
	u.skus = slices.Compact(u.skus)
	return u
}
