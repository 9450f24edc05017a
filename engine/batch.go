package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	taken     bool // a batch holds it: its caller waits for the outcome
	withdrawn bool // its caller gave up before a batch took it

	done chan struct{} // closed once the outcome below is set
	outcome
}

// outcome is what a batch decided for one call.
type outcome struct {
	res stockade.Reservation // a reservation made, for Reserve
	ord stockade.Order       // an order made, for Checkout and Confirm
	// err is the call's refusal, the replay of its idempotency key, or the
	// batch transaction's failure.
	err error
}

// submit queues p and waits for the batch that decides it. A caller whose
// ctx ends while its call is still queued withdraws it, which changes
// nothing; once a batch holds it, the caller waits for the outcome, which
// the batch transaction's own deadline (Options.Timeout) bounds, so that
// what the caller is told is what was committed.
func (b *batcher) submit(ctx context.Context, p *pending) (outcome, error) {
	c := p.c
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
		<-p.done
	}
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
	}
	if obs := e.opts.Observer; obs != nil {
		obs(Event{Op: "batch", Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Calls: len(batch)})
	}
	for i, p := range batch {
		p.c.attempts += c.attempts
		if err != nil {
			p.err = err
		} else {
			p.outcome = out[i]
		}
		close(p.done)
	}
}

// decide is one attempt of a batch transaction. It reads the records of
// the calls' idempotency keys, holding the keys, then the levels that the
// calls may draw on; it expires the lapsed holds on them (locking those
// first, as every transaction does), locks the levels in key order, and
// then decides each call in arrival order from what is left: a call is
// met in full or refused, as it would be alone, or answered from its
// key's record. Then it writes, in bulk, the expiries, the reservations
// and orders, the ledger rows and the idempotency records of the calls it
// decided, and last each level once, with the sum of the batch's changes
// to it.
func (e *Engine) decide(ctx context.Context, tx stockade.Tx, batch []*pending) ([]outcome, error) {
	now := e.now()
	records, err := idempotencyRecords(ctx, tx, batch)
	if err != nil {
		return nil, err
	}
	v, err := e.read(ctx, tx, union(batch))
	if err != nil {
		return nil, err
	}
	lapsed, err := e.lapsed(ctx, tx, v, now)
	if err != nil {
		return nil, err
	}
	// The reservations to confirm, locked in id order; those that lapsed
	// are expired with the rest.
	targets, err := confirmTargets(ctx, tx, batch)
	if err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(targets)) {
		r := targets[id]
		if r.Status != stockade.Held || !r.ExpiresAt.Before(now) {
			continue
		}
		if !slices.ContainsFunc(lapsed, func(l stockade.Reservation) bool { return l.ID == id }) {
			lapsed = append(lapsed, r)
		}
		r.Status = stockade.Expired // below, with the other lapsed holds
		targets[id] = r
	}
	freed := map[stockade.Key]int64{}
	for _, res := range lapsed {
		for _, a := range res.Allocations {
			freed[a.Key()] += a.Quantity
		}
	}
	touched := slices.Clone(v.keys)
	for k := range freed {
		touched = append(touched, k)
	}
	for _, r := range targets {
		for _, a := range r.Allocations {
			touched = append(touched, a.Key())
		}
	}
	slices.SortFunc(touched, stockade.Key.Compare)
	touched = slices.Compact(touched)
	if err := v.refresh(ctx, tx, touched, true); err != nil {
		return nil, err
	}

	stock := stockView{avail: make(map[stockade.Key]int64, len(v.keys)), locations: v.locs, coords: v.coords}
	for _, k := range v.keys {
		if l, ok := v.levels[k]; ok {
			stock.avail[k] = l.Available() + freed[k]
		}
	}
	ms, err := e.markExpired(ctx, tx, lapsed, now)
	if err != nil {
		return nil, err
	}
	var (
		out     = make([]outcome, len(batch))
		rs      []stockade.Reservation
		orders  []stockade.Order
		replays []stockade.Idempotency
	)
	// confirm confirms the reservation id as Confirm does, or says why
	// not; one confirmed earlier in this batch gives its order again.
	confirmed := map[string]stockade.Order{}
	confirm := func(id string) (stockade.Order, error) {
		r, ok := targets[id]
		switch {
		case !ok:
			return stockade.Order{}, refuse(stockade.ENotFound, "reservation %q not found", id)
		case confirmed[id].ID != "":
			return confirmed[id], nil
		case r.Status != stockade.Held:
			return notHeld(ctx, tx, r)
		}
		o, rows, err := confirmHeld(ctx, tx, r, now)
		if err != nil {
			return stockade.Order{}, err
		}
		orders, ms, confirmed[id] = append(orders, o), append(ms, rows...), o
		return o, nil
	}
	// place allocates a Reserve or Checkout from what is left.
	place := func(p *pending, o *outcome) (any, error) {
		allocs, short := allocate(p.r.needs, stock, p.r.shipTo)
		if short != nil {
			return nil, e.refusal(ctx, tx, p.r, v, short)
		}
		for _, a := range allocs {
			stock.avail[a.Key()] -= a.Quantity
		}
		if p.checkout {
			o.ord = stockade.Order{ID: newID("ord"), Status: stockade.Committed, CreatedAt: now, Lines: p.r.lines, Allocations: allocs}
			orders, ms = append(orders, o.ord), append(ms, movements(allocs, stockade.MoveCheckout, o.ord.ID, "", now)...)
			return o.ord, nil
		}
		o.res = stockade.Reservation{ID: newID("res"), Status: stockade.Held, CreatedAt: now,
			ExpiresAt: now.Add(p.r.ttl), Lines: p.r.lines, Allocations: allocs}
		rs, ms = append(rs, o.res), append(ms, movements(allocs, stockade.MoveReserve, o.res.ID, "", now)...)
		return o.res, nil
	}
	for i, p := range batch {
		o := &out[i]
		idem := p.c.idem
		if idem != nil {
			rec, ok := records[idem.Key]
			if o.err = e.admit(p.c.op, idem, rec, ok, now); o.err != nil {
				continue
			}
		}
		var result any
		if p.r == nil {
			o.ord, o.err = confirm(p.confirm)
			result = o.ord
		} else {
			result, o.err = place(p, o)
		}
		if o.err != nil {
			if !isRefusal(o.err) {
				return nil, o.err // the store failed
			}
			result = nil
		}
		if idem != nil {
			// Recorded with the batch, and replayed to a later call of the
			// batch with the key.
			status, body := idem.Render(result, o.err)
			rec := done(idem, status, body, now)
			replays, records[idem.Key] = append(replays, rec), rec
		}
	}

	if err := tx.InsertReservations(ctx, rs...); err != nil {
		return nil, err
	}
	if err := tx.InsertOrders(ctx, orders...); err != nil {
		return nil, err
	}
	if err := tx.AppendMovements(ctx, ms...); err != nil {
		return nil, err
	}
	if err := tx.PutIdempotency(ctx, replays...); err != nil {
		return nil, err
	}
	// Each level moves by the sum of the batch's ledger rows on it.
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
	ls, err := tx.UpdateLevels(ctx, changes)
	if err != nil {
		return nil, err
	}
	if len(ls) != len(changes) {
		// The rows are locked and were read under the lock: only a store
		// that does not lock could get here.
		return nil, conflictf("%d of %d levels changed under the batch's lock", len(changes)-len(ls), len(changes))
	}
	return out, nil
}

// confirmTargets reads the reservations that the Confirm calls of batch
// name, by id, locking them in id order.
func confirmTargets(ctx context.Context, tx stockade.Tx, batch []*pending) (map[string]stockade.Reservation, error) {
	var ids []string
	for _, p := range batch {
		if p.r == nil {
			ids = append(ids, p.confirm)
		}
	}
	targets := map[string]stockade.Reservation{}
	if len(ids) == 0 {
		return targets, nil
	}
	slices.Sort(ids)
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
func idempotencyRecords(ctx context.Context, tx stockade.Tx, batch []*pending) (map[string]stockade.Idempotency, error) {
	var keys []string
	for _, p := range batch {
		if p.c.idem != nil {
			keys = append(keys, p.c.idem.Key)
		}
	}
	records := map[string]stockade.Idempotency{}
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
