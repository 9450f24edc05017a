package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade"
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
	u := union(batch)
	skus := u.skus
	if !e.strat.leases || len(skus) == 0 {
		return c.update(ctx, func(tx stockade.Tx) error { return e.decideStock(ctx, tx, batch, u, nil) })
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
		return e.decideStock(ctx, tx, batch, u, fences)
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
// each level once, with the sum of the changes to it. u is union(batch),
// what the calls may draw on; fences are the Lock strategy's tokens, by
// SKU.
//
// A refusal is the call's, not the transaction's: the transaction commits
// what else it decided, the lapsed holds it expired included.
func (e *Engine) decideStock(ctx context.Context, tx stockade.Tx, batch []*stockCall, u *request, fences map[string]uint64) error {
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
	// The rooms in front of the SKUs, before the plan takes its locks, so
	// that the read does not lengthen how long they are held.
	g, err := readGate(ctx, tx, skuTargets(u.skus))
	if err != nil {
		return err
	}
	pl, err := e.plan(ctx, tx, u, confirms, now)
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
		admitted, err := g.check(skuTargets(sc.r.skus), sc.r.admission, now)
		if err != nil {
			return nil, err
		}
		allocs, err := pl.allocate(ctx, e, tx, sc.r)
		if err != nil {
			return nil, err
		}
		if admitted != nil {
			g.use(admitted, sc.r.admission.VisitorID)
		}
		c := sc.c
		if sc.checkout {
			sc.ord = stockade.Order{ID: newID("ord"), Status: stockade.Committed, CreatedAt: now, Lines: sc.r.lines, Allocations: allocs,
				Owner: c.actor.KeyID, Version: 1, Metadata: sc.r.meta}
			w.orders, w.movements = append(w.orders, sc.ord), append(w.movements, movements(allocs, stockade.MoveCheckout, sc.ord.ID, "", c.actor.Name, now)...)
			ob.order(stockade.EventOrderCommitted, sc.ord, now)
			return sc.ord, nil
		}
		sc.res = stockade.Reservation{ID: newID("res"), Status: stockade.Held, CreatedAt: now,
			ExpiresAt: now.Add(sc.r.ttl), Lines: sc.r.lines, Allocations: allocs, Owner: c.actor.KeyID, Metadata: sc.r.meta}
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
	if err := g.write(ctx, tx, now); err != nil {
		return err
	}
	w.events, w.records = ob.evs, rs.made
	return e.commit(ctx, tx, pl, w)
}

// notHeld answers a Confirm of r, a reservation that is no longer held:
// with its order if it was confirmed, else with why it cannot be.
func notHeld(ctx context.Context, tx stockade.Tx, r stockade.Reservation) (stockade.Order, error) {
	switch r.Status {
	case stockade.Confirmed:
		return tx.OrderGet(ctx, stockade.ByID{ID: r.OrderID})
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
		Metadata:      r.Metadata,
	}
	if ok, err := tx.ReservationSetStatus(ctx, r.ID, stockade.Held, stockade.Confirmed, o.ID); err != nil || !ok {
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
	rs, err := tx.ReservationGetMany(ctx, stockade.ByIDs{IDs: slices.Compact(ids), Lock: true})
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

// Release implements stockade.Service: a held reservation's stock goes
// back to available and it becomes released.
//
// Releasing a reservation that is already released or expired changes
// nothing and returns it; a held one whose expiry has passed is expired
// (not released) and returned. A confirmed one is EInvalidState: cancel its
// order instead. A held one whose payment is processing or authorized is
// EPaymentInFlight (see refuseInFlight).
func (e *Engine) Release(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Reservation, error) {
	return run(e, ctx, "release", idem, func(ctx context.Context, c *call) (stockade.Reservation, error) {
		if err := checkID("reservation id", id); err != nil {
			return stockade.Reservation{}, err
		}
		var r stockade.Reservation
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			r, err = once(ctx, c, tx, func() (stockade.Reservation, error) {
				now := e.now()
				r, err := c.reservation(ctx, tx, id, true)
				if err != nil {
					return r, err
				}
				if r.Status == stockade.Held {
					if err := refuseInFlight(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}); err != nil {
						return r, err
					}
				}
				switch {
				case r.Status == stockade.Confirmed:
					return r, refuse(stockade.EInvalidState, "reservation %q is confirmed (order %q), not held: cancel the order instead", id, r.OrderID)
				case r.Status != stockade.Held:
					// Released or expired: nothing to give back.
				case r.ExpiresAt.Before(now):
					if err := e.expire(ctx, tx, []stockade.Reservation{r}, now); err != nil {
						return r, err
					}
					r.Status = stockade.Expired
				default:
					var ob outbox
					if err := releaseHeld(ctx, tx, r, c.actor.Name, now, &ob); err != nil {
						return r, err
					}
					r.Status = stockade.Released
					if err := ob.flush(ctx, tx); err != nil {
						return r, err
					}
				}
				return r, nil
			})
			return err
		})
		if err != nil {
			return stockade.Reservation{}, err
		}
		return r, nil
	})
}

// releaseHeld releases r, a held reservation whose row tx holds, for the
// actor named by: its stock goes back, and its event goes to ob.
func releaseHeld(ctx context.Context, tx stockade.Tx, r stockade.Reservation, by string, now time.Time, ob *outbox) error {
	if err := shift(ctx, tx, r.Allocations, stockade.MoveRelease, ob, now); err != nil {
		return err
	}
	if ok, err := tx.ReservationSetStatus(ctx, r.ID, stockade.Held, stockade.Released, ""); err != nil || !ok {
		return statusErr(err, "reservation", r.ID)
	}
	if err := tx.MovementAppend(ctx, movements(r.Allocations, stockade.MoveRelease, r.ID, "", by, now)...); err != nil {
		return err
	}
	r.Status = stockade.Released
	ob.reservation(stockade.EventReservationReleased, r, now)
	return nil
}

// CancelOrder implements stockade.Service: what a committed order has
// not shipped goes back to available, and the order is cancelled; what
// it shipped stays shipped, as its Shipped and its shipments say.
// Cancelling a cancelled order changes nothing and returns it; a
// fulfilled one is EInvalidState. With expectedVersion, an order at
// another version is EVersionConflict, naming its version.
func (e *Engine) CancelOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return run(e, ctx, "cancel", idem, func(ctx context.Context, c *call) (stockade.Order, error) {
		return changeOrder(e, ctx, c, id, expectedVersion, func(tx stockade.Tx, o stockade.Order, now time.Time, ob *outbox) (stockade.Order, error) {
			if o.Status == stockade.Cancelled {
				return o, nil
			}
			if err := checkVersion(o, expectedVersion); err != nil {
				return o, err
			}
			if o.Status != stockade.Committed {
				return o, refuse(stockade.EInvalidState, "order %q is %s, not committed", o.ID, o.Status)
			}
			return cancel(ctx, tx, o, c.actor.Name, now, ob)
		})
	})
}

// cancel cancels o, a committed order whose row tx holds, for the actor
// named by: what it has not shipped goes back to available (ledger rows
// of MoveCancel), and it is cancelled, one version on. It returns the
// order after; its event goes to ob.
func cancel(ctx context.Context, tx stockade.Tx, o stockade.Order, by string, now time.Time, ob *outbox) (stockade.Order, error) {
	rest := o.Unshipped()
	if err := shift(ctx, tx, rest, stockade.MoveCancel, ob, now); err != nil {
		return o, err
	}
	if ok, err := tx.OrderSetStatus(ctx, o.ID, stockade.Committed, stockade.Cancelled); err != nil || !ok {
		return o, statusErr(err, "order", o.ID)
	}
	if err := tx.MovementAppend(ctx, movements(rest, stockade.MoveCancel, o.ID, "", by, now)...); err != nil {
		return o, err
	}
	o.Status, o.Version = stockade.Cancelled, o.Version+1
	ob.order(stockade.EventOrderCancelled, o, now)
	return o, nil
}

// Reservation implements stockade.Service. A held reservation whose
// expiry has passed is reported expired, as Confirm would treat it, even
// before the sweeper (or a request for its stock) has given its stock
// back; one whose payment is in flight is still held, as it is to every
// call.
func (e *Engine) Reservation(ctx context.Context, id string) (stockade.Reservation, error) {
	return run(e, ctx, "reservation", nil, func(ctx context.Context, c *call) (stockade.Reservation, error) {
		if err := checkID("reservation id", id); err != nil {
			return stockade.Reservation{}, err
		}
		var r stockade.Reservation
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			r, err = c.reservationView(ctx, tx, id, false)
			return err
		})
		if err != nil {
			return stockade.Reservation{}, err
		}
		return r, nil
	})
}

// reservationView reads the reservation id as c.reservation does, and
// reports a held one that has lapsed as expired, as GET shows it until
// the sweeper (or a request for its stock) expires it.
func (c *call) reservationView(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Reservation, error) {
	r, err := c.reservation(ctx, tx, id, lock)
	if err != nil || r.Status != stockade.Held {
		return r, err
	}
	gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: id}, r.ExpiresAt, c.e.now())
	if gone {
		r.Status = stockade.Expired
	}
	return r, err
}

// Order implements stockade.Service.
func (e *Engine) Order(ctx context.Context, id string) (stockade.Order, error) {
	return run(e, ctx, "order", nil, func(ctx context.Context, c *call) (stockade.Order, error) {
		if err := checkID("order id", id); err != nil {
			return stockade.Order{}, err
		}
		var o stockade.Order
		err := c.view(ctx, func(tx stockade.Tx) error {
			var err error
			o, err = c.order(ctx, tx, id, false)
			return err
		})
		return o, err
	})
}

// reservation reads the reservation id in tx, locking its row with lock,
// if the call's actor may see it: one of another storefront key is
// ENotFound, as a missing one is, so that its existence does not show.
func (c *call) reservation(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Reservation, error) {
	r, err := tx.ReservationGet(ctx, stockade.ByID{ID: id, Lock: lock})
	if err == nil && !c.actor.Sees(r.Owner) {
		return stockade.Reservation{}, refuse(stockade.ENotFound, "reservation %q not found", id)
	}
	return r, err
}

// order reads the order id as reservation reads a reservation.
func (c *call) order(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Order, error) {
	o, err := tx.OrderGet(ctx, stockade.ByID{ID: id, Lock: lock})
	if err == nil && !c.actor.Sees(o.Owner) {
		return stockade.Order{}, refuse(stockade.ENotFound, "order %q not found", id)
	}
	return o, err
}

// Reservations implements stockade.Service. A held reservation whose
// expiry has passed is reported expired, as Reservation reports it (but
// one whose payment is in flight, which keeps it held); the status
// filter is on the stored status, so it is listed with the held ones
// until the sweeper (or a request for its stock) expires it.
func (e *Engine) Reservations(ctx context.Context, q stockade.ListQuery) (stockade.ReservationPage, error) {
	return run(e, ctx, "reservations", nil, func(ctx context.Context, c *call) (stockade.ReservationPage, error) {
		if err := q.ValidateReservations(); err != nil {
			return stockade.ReservationPage{}, err
		}
		f, err := c.listFilter(q, reservationCursorTag)
		if err != nil {
			return stockade.ReservationPage{}, err
		}
		var rs []stockade.Reservation
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if rs, err = tx.ReservationList(ctx, f); err != nil {
				return err
			}
			now := e.now()
			for i := range rs {
				if rs[i].Status != stockade.Held {
					continue
				}
				gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: rs[i].ID}, rs[i].ExpiresAt, now)
				if err != nil {
					return err
				}
				if gone {
					rs[i].Status = stockade.Expired
				}
			}
			return nil
		})
		if err != nil {
			return stockade.ReservationPage{}, err
		}
		page := stockade.ReservationPage{Reservations: rs}
		page.Reservations, page.Next = cutPage(rs, f.Limit-1, reservationCursorTag, func(x stockade.Reservation) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}

// Orders implements stockade.Service.
func (e *Engine) Orders(ctx context.Context, q stockade.ListQuery) (stockade.OrderPage, error) {
	return run(e, ctx, "orders", nil, func(ctx context.Context, c *call) (stockade.OrderPage, error) {
		if err := q.ValidateOrders(); err != nil {
			return stockade.OrderPage{}, err
		}
		f, err := c.listFilter(q, orderCursorTag)
		if err != nil {
			return stockade.OrderPage{}, err
		}
		var os []stockade.Order
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			os, err = tx.OrderList(ctx, f)
			return err
		})
		if err != nil {
			return stockade.OrderPage{}, err
		}
		page := stockade.OrderPage{Orders: os}
		page.Orders, page.Next = cutPage(os, f.Limit-1, orderCursorTag, func(x stockade.Order) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}
