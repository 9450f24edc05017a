package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// Reserve implements stockade.Service: it holds stock for every line or
// for none, allocated as the package documentation describes.
func (e *Engine) Reserve(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Reservation, error) {
	return run(e, ctx, "reserve", idem, func(ctx context.Context, c *call) (stockade.Reservation, error) {
		r, err := e.checkRequest(req, false)
		if err != nil {
			return stockade.Reservation{}, err
		}
		sc := &stockCall{slot: slot{c: c}, r: r}
		if err := e.stock.apply(ctx, sc); err != nil {
			return stockade.Reservation{}, err
		}
		return sc.res, nil
	})
}

// Checkout implements stockade.Service: reserve and confirm in one
// transaction, available → committed, without a reservation.
func (e *Engine) Checkout(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return run(e, ctx, "checkout", idem, func(ctx context.Context, c *call) (stockade.Order, error) {
		r, err := e.checkRequest(req, true)
		if err != nil {
			return stockade.Order{}, err
		}
		sc := &stockCall{slot: slot{c: c}, r: r, checkout: true}
		if err := e.stock.apply(ctx, sc); err != nil {
			return stockade.Order{}, err
		}
		return sc.ord, nil
	})
}

// Confirm implements stockade.Service: a held reservation becomes an
// order, its reserved stock committed.
//
// A held reservation whose expiry has passed is expired in the same
// transaction (its stock returns) and Confirm returns EReservationExpired,
// as it does for one already expired. Confirming a confirmed reservation
// changes nothing and returns its order, so a client may retry a confirm
// safely even without an idempotency key. A released one is
// EInvalidState.
func (e *Engine) Confirm(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Order, error) {
	return run(e, ctx, "confirm", idem, func(ctx context.Context, c *call) (stockade.Order, error) {
		if err := checkID("reservation id", id); err != nil {
			return stockade.Order{}, err
		}
		sc := &stockCall{slot: slot{c: c}, confirm: id}
		if err := e.stock.apply(ctx, sc); err != nil {
			return stockade.Order{}, err
		}
		return sc.ord, nil
	})
}

// stockCall is one Reserve, Checkout or Confirm call in its lane.
type stockCall struct {
	slot
	r        *request // a Reserve or Checkout, or nil
	checkout bool
	confirm  string // or a Confirm of this reservation

	// The call's result, set by decideStock.
	res stockade.Reservation // of a Reserve
	ord stockade.Order       // of a Checkout or a Confirm
}

// stockTxn runs the transaction that decides batch (see decideStock),
// retried whole on conflicts. Under the Lock strategy each attempt first
// takes a lease on every SKU the calls may draw on (all or none, in
// sorted order) and fences the writes to levels with their tokens; the
// leases are released once the transaction has ended. A Confirm needs
// no lease: it takes only stock that its reservation holds.
func (e *Engine) stockTxn(ctx context.Context, c *call, batch []*stockCall) error {
	skus := union(batch).skus
	if !e.strat.leases || len(skus) == 0 {
		return c.update(ctx, func(tx stockade.Tx) error { return e.decideStock(ctx, tx, batch, nil) })
	}
	keys := make([]string, len(skus))
	for i, sku := range skus {
		keys[i] = skuLockPrefix + sku
	}
	return c.leased(ctx, keys, func(tx stockade.Tx, tokens map[string]uint64) error {
		fences := make(map[string]uint64, len(tokens))
		for key, token := range tokens {
			fences[strings.TrimPrefix(key, skuLockPrefix)] = token
		}
		return e.decideStock(ctx, tx, batch, fences)
	})
}

// decideStock is the body of Reserve, Checkout and Confirm: one attempt
// of the transaction that decides a batch of them, or one alone. It reads
// the records of the calls' idempotency keys, holding the keys, then
// plans (see plan): it reads the levels that the calls may draw on, finds
// the lapsed holds on them and the reservations to confirm, and takes the
// locks the strategy takes before deciding. Then it decides each call in
// arrival order from what is left: a call is met in full or refused, or
// answered from its key's record; a later call in the batch sees what the
// earlier ones took. Last it commits the writes in bulk (see commit),
// each level once, with the sum of the changes to it; fences are the Lock
// strategy's tokens, by SKU.
//
// A refusal is the call's, not the transaction's: the transaction commits
// what else it decided, the lapsed holds it expired included.
func (e *Engine) decideStock(ctx context.Context, tx stockade.Tx, batch []*stockCall, fences map[string]uint64) error {
	now := e.now()
	calls := make([]*call, len(batch))
	var confirms []string
	for i, sc := range batch {
		sc.reset()
		calls[i] = sc.c
		if sc.r == nil {
			confirms = append(confirms, sc.confirm)
		}
	}
	rs, err := e.readRecords(ctx, tx, calls, now)
	if err != nil {
		return err
	}
	pl, err := e.plan(ctx, tx, union(batch), confirms, now)
	if err != nil {
		return err
	}
	w := writes{fences: fences}
	var ob outbox // the events of the calls decided
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
	place := func(sc *stockCall) (any, error) {
		allocs, err := pl.allocate(ctx, e, tx, sc.r)
		if err != nil {
			return nil, err
		}
		c := sc.c
		if sc.checkout {
			sc.ord = stockade.Order{ID: newID("ord"), Status: stockade.Committed, CreatedAt: now, Lines: sc.r.lines, Allocations: allocs, Owner: c.actor.KeyID, Version: 1}
			w.orders, w.movements = append(w.orders, sc.ord), append(w.movements, movements(allocs, stockade.MoveCheckout, sc.ord.ID, "", c.actor.Name, now)...)
			ob.order(stockade.EventOrderCommitted, sc.ord, now)
			return sc.ord, nil
		}
		sc.res = stockade.Reservation{ID: newID("res"), Status: stockade.Held, CreatedAt: now,
			ExpiresAt: now.Add(sc.r.ttl), Lines: sc.r.lines, Allocations: allocs, Owner: c.actor.KeyID}
		w.reservations, w.movements = append(w.reservations, sc.res), append(w.movements, movements(allocs, stockade.MoveReserve, sc.res.ID, "", c.actor.Name, now)...)
		ob.reservation(stockade.EventReservationHeld, sc.res, now)
		return sc.res, nil
	}
	for _, sc := range batch {
		if sc.r != nil && !sc.checkout {
			sc.replayed, sc.err = replay(rs, sc.c, &sc.res)
		} else {
			sc.replayed, sc.err = replay(rs, sc.c, &sc.ord)
		}
		if sc.err != nil || sc.replayed {
			continue
		}
		var result any
		if sc.r == nil {
			sc.ord, sc.err = confirm(sc.c, sc.confirm)
			result = sc.ord
		} else {
			result, sc.err = place(sc)
		}
		switch {
		case sc.err != nil && !isRefusal(sc.err):
			return sc.err // the store failed
		case sc.err != nil:
			continue // a refusal is not recorded: a retry runs afresh
		}
		if err := rs.keep(sc.c, result); err != nil {
			return err
		}
	}
	if ob.err != nil {
		return ob.err
	}
	w.events, w.records = ob.evs, rs.made
	return e.commit(ctx, tx, pl, w)
}

// notHeld answers a Confirm of r, a reservation that is no longer held:
// with its order if it was confirmed, else with why it cannot be.
func notHeld(ctx context.Context, tx stockade.Tx, r stockade.Reservation) (stockade.Order, error) {
	switch r.Status {
	case stockade.Confirmed:
		return tx.Order(ctx, r.OrderID, false)
	case stockade.Released:
		return stockade.Order{}, refuse(stockade.EInvalidState, "reservation %q is released, not held", r.ID)
	default:
		return stockade.Order{}, expiredErr(r.ID, r.ExpiresAt)
	}
}

func expiredErr(id string, at time.Time) error {
	return refuse(stockade.EReservationExpired, "reservation %q expired at %s", id, at.Format(time.RFC3339))
}

// confirmHeld confirms r, a held, unlapsed reservation whose row tx holds,
// for the actor named by: it sets r's status, adds the events of both to
// ob, and returns its order (owned by r's owner) and ledger rows, for the
// caller to insert; the caller moves the levels' counters as the rows say.
func confirmHeld(ctx context.Context, tx stockade.Tx, r stockade.Reservation, by string, ob *outbox, now time.Time) (stockade.Order, []stockade.Movement, error) {
	o := stockade.Order{
		ID:            newID("ord"),
		Status:        stockade.Committed,
		CreatedAt:     now,
		Lines:         r.Lines,
		Allocations:   r.Allocations,
		ReservationID: r.ID,
		Owner:         r.Owner,
		Version:       1,
	}
	if ok, err := tx.SetReservationStatus(ctx, r.ID, stockade.Held, stockade.Confirmed, o.ID); err != nil || !ok {
		return stockade.Order{}, nil, statusErr(err, "reservation", r.ID)
	}
	r.Status, r.OrderID = stockade.Confirmed, o.ID
	ob.reservation(stockade.EventReservationConfirmed, r, now)
	ob.order(stockade.EventOrderCommitted, o, now)
	return o, movements(r.Allocations, stockade.MoveConfirm, o.ID, "confirm reservation "+r.ID, by, now), nil
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

// union returns a request that draws on every level the calls of batch
// may draw on, for read: their located keys, SKUs needed anywhere and
// SKUs, and a ship-to point if any has one, so that locations'
// coordinates are read.
func union(batch []*stockCall) *request {
	u := &request{}
	for _, sc := range batch {
		if sc.r == nil {
			continue // a Confirm
		}
		u.located = append(u.located, sc.r.located...)
		u.anywhere = append(u.anywhere, sc.r.anywhere...)
		u.skus = append(u.skus, sc.r.skus...)
		if sc.r.shipTo != nil {
			u.shipTo = sc.r.shipTo
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

// leased runs fn in a write transaction, retried whole on conflicts, as
// update does, each attempt under lock.Locker leases on keys (all or
// none, taken in sorted order; see lock.AcquireAll), which fn gets the
// fencing tokens of, by key. The leases are released once the
// transaction has ended.
func (c *call) leased(ctx context.Context, keys []string, fn func(tx stockade.Tx, tokens map[string]uint64) error) error {
	e := c.e
	err := c.retry(ctx, func(ctx context.Context) error {
		m, err := lock.AcquireAll(ctx, e.opts.Locker, keys, lock.WithTTL(e.opts.LockTTL))
		if err != nil {
			return fmt.Errorf("engine: lock %s: %w", lockedWhat(keys), err)
		}
		defer e.release(ctx, m)
		tokens := make(map[string]uint64, len(keys))
		for _, l := range m.Leases() {
			tokens[l.Key()] = l.Token()
		}
		return e.store.Update(ctx, func(tx stockade.Tx) error { return fn(tx, tokens) })
	})
	if err == nil {
		e.written.notify()
	}
	return err
}

// lockedWhat names what the lock keys keys guard, for errors.
func lockedWhat(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return fmt.Sprintf("%d keys", len(keys))
}
