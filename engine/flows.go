package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stockade/stockade"
)

// Release implements stockade.Service: a held reservation's stock goes
// back to available and it becomes released.
//
// Releasing a reservation that is already released or expired changes
// nothing and returns it; a held one whose expiry has passed is expired
// (not released) and returned. A confirmed one is EInvalidState: cancel its
// order instead.
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
	if ok, err := tx.SetReservationStatus(ctx, r.ID, stockade.Held, stockade.Released, ""); err != nil || !ok {
		return statusErr(err, "reservation", r.ID)
	}
	if err := tx.AppendMovements(ctx, movements(r.Allocations, stockade.MoveRelease, r.ID, "", by, now)...); err != nil {
		return err
	}
	r.Status = stockade.Released
	ob.reservation(stockade.EventReservationReleased, r, now)
	return nil
}

// CancelOrder implements stockade.Service: a committed order's stock goes
// back to available. Cancelling a cancelled order changes nothing and
// returns it; a fulfilled one is EInvalidState. With expectedVersion, an
// order at another version is EVersionConflict, naming its version.
func (e *Engine) CancelOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return e.finishOrder(ctx, "cancel", id, expectedVersion, idem, stockade.Cancelled, stockade.MoveCancel)
}

// FulfillOrder implements stockade.Service: a committed order's stock
// leaves (committed and on hand both go down). Fulfilling a fulfilled
// order changes nothing and returns it; a cancelled one is
// EInvalidState. With expectedVersion, an order at another version is
// EVersionConflict, naming its version.
func (e *Engine) FulfillOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return e.finishOrder(ctx, "fulfill", id, expectedVersion, idem, stockade.Fulfilled, stockade.MoveFulfill)
}

// orderEvents are the event types of the statuses an order moves to.
var orderEvents = map[stockade.OrderStatus]string{
	stockade.Cancelled: stockade.EventOrderCancelled,
	stockade.Fulfilled: stockade.EventOrderFulfilled,
}

// finishOrder moves a committed order, at expectedVersion if it is not
// nil, to status to, moving its levels' counters as ledger rows of kind
// do. An order in status to already is returned as it is, whatever its
// version: the change a client asked for is made.
func (e *Engine) finishOrder(ctx context.Context, op, id string, expectedVersion *int64, idem *stockade.Idempotency, to stockade.OrderStatus, kind stockade.MovementKind) (stockade.Order, error) {
	return run(e, ctx, op, idem, func(ctx context.Context, c *call) (stockade.Order, error) {
		if err := checkID("order id", id); err != nil {
			return stockade.Order{}, err
		}
		if expectedVersion != nil && *expectedVersion < 1 {
			return stockade.Order{}, refuse(stockade.EInvalid, "expected_version: must be 1 or more, got %d", *expectedVersion)
		}
		var o stockade.Order
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			o, err = once(ctx, c, tx, func() (stockade.Order, error) {
				now := e.now()
				o, err := c.order(ctx, tx, id, true)
				if err != nil {
					return o, err
				}
				switch {
				case o.Status == to:
					return o, nil
				case expectedVersion != nil && *expectedVersion != o.Version:
					return o, refuse(stockade.EVersionConflict, "order %q is at version %d (%s), not %d", id, o.Version, o.Status, *expectedVersion)
				case o.Status != stockade.Committed:
					return o, refuse(stockade.EInvalidState, "order %q is %s, not committed", id, o.Status)
				}
				var ob outbox
				if o, err = finish(ctx, tx, o, to, kind, c.actor.Name, now, &ob); err != nil {
					return o, err
				}
				return o, ob.flush(ctx, tx)
			})
			return err
		})
		if err != nil {
			return stockade.Order{}, err
		}
		return o, nil
	})
}

// finish moves o, a committed order whose row tx holds, to status to
// for the actor named by, moving its levels' counters as ledger rows of
// kind do, and returns it; its events go to ob.
func finish(ctx context.Context, tx stockade.Tx, o stockade.Order, to stockade.OrderStatus, kind stockade.MovementKind, by string, now time.Time, ob *outbox) (stockade.Order, error) {
	if err := shift(ctx, tx, o.Allocations, kind, ob, now); err != nil {
		return o, err
	}
	if ok, err := tx.SetOrderStatus(ctx, o.ID, stockade.Committed, to); err != nil || !ok {
		return o, statusErr(err, "order", o.ID)
	}
	if err := tx.AppendMovements(ctx, movements(o.Allocations, kind, o.ID, "", by, now)...); err != nil {
		return o, err
	}
	o.Status, o.Version = to, o.Version+1
	ob.order(orderEvents[to], o, now)
	return o, nil
}

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
		l, ok, err := tx.UpdateLevel(ctx, k, d, stockade.Guard{})
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

// statusErr is the error of a status change that did not apply although
// the caller holds the row: err if there was one, else a conflict.
func statusErr(err error, what, id string) error {
	if err != nil {
		return err
	}
	return conflictf("%s %q changed status concurrently", what, id)
}

// SetStock implements stockade.Service. The ledger row (MoveSet) carries
// the change of on hand. Without expectedVersion the write is still made
// at the version just read, and retried if the level changed in between,
// so that the ledger row is exact. A quantity below reserved + committed
// is refused with EInsufficientStock; an unknown location with ENotFound.
func (e *Engine) SetStock(ctx context.Context, k stockade.Key, onHand int64, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Level, error) {
	return run(e, ctx, "set stock", idem, func(ctx context.Context, c *call) (stockade.Level, error) {
		if err := stockade.ValidateSetStock(k, onHand, expectedVersion); err != nil {
			return stockade.Level{}, err
		}
		var l stockade.Level
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			l, err = once(ctx, c, tx, func() (stockade.Level, error) {
				now := e.now()
				var old stockade.Level // version 0 when missing
				ls, err := tx.Levels(ctx, []stockade.Key{k}, true)
				if err != nil {
					return old, err
				}
				if len(ls) == 1 {
					old = ls[0]
				}
				if expectedVersion != nil && *expectedVersion != old.Version {
					return old, refuse(stockade.EVersionConflict, "%s is at version %d, not %d", k, old.Version, *expectedVersion)
				}
				at := old.Version
				l, ok, err := tx.SetOnHand(ctx, k, onHand, &at)
				switch {
				case err != nil:
					return l, err
				case !ok && expectedVersion != nil:
					return l, refuse(stockade.EVersionConflict, "%s is at version %d, not %d", k, l.Version, *expectedVersion)
				case !ok:
					return l, conflictf("%s changed while being set", k)
				}
				m := stockade.Movement{At: now, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveSet,
					Delta: stockade.Delta{OnHand: l.OnHand - old.OnHand}, Reason: fmt.Sprintf("set to %d", onHand), Actor: c.actor.Name}
				var ob outbox
				ob.level(stockade.EventStockSet, l, m.Delta, now)
				if err := ob.flush(ctx, tx); err != nil {
					return l, err
				}
				return l, tx.AppendMovements(ctx, m)
			})
			return err
		})
		if err != nil {
			return stockade.Level{}, err
		}
		return l, nil
	})
}

// AdjustStock implements stockade.Service: on hand += delta, with a
// MoveAdjust ledger row carrying reason. A positive delta on a missing
// level creates it (at an existing location). A result below zero or
// below reserved + committed is refused with EInsufficientStock.
func (e *Engine) AdjustStock(ctx context.Context, k stockade.Key, delta int64, reason string, idem *stockade.Idempotency) (stockade.Level, error) {
	return run(e, ctx, "adjust stock", idem, func(ctx context.Context, c *call) (stockade.Level, error) {
		if err := stockade.ValidateAdjustStock(k, delta, reason); err != nil {
			return stockade.Level{}, err
		}
		var l stockade.Level
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			l, err = once(ctx, c, tx, func() (stockade.Level, error) {
				now := e.now()
				l, ok, err := tx.UpdateLevel(ctx, k, stockade.Delta{OnHand: delta}, stockade.Guard{})
				if err != nil {
					return l, err
				}
				if !ok {
					if l, err = adjustRefused(ctx, tx, k, delta); err != nil {
						return l, err
					}
				}
				m := stockade.Movement{At: now, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveAdjust,
					Delta: stockade.Delta{OnHand: delta}, Reason: reason, Actor: c.actor.Name}
				var ob outbox
				ob.level(stockade.EventStockAdjusted, l, m.Delta, now)
				if err := ob.flush(ctx, tx); err != nil {
					return l, err
				}
				return l, tx.AppendMovements(ctx, m)
			})
			return err
		})
		if err != nil {
			return stockade.Level{}, err
		}
		return l, nil
	})
}

// adjustRefused handles an adjustment that UpdateLevel refused: it creates
// a missing level for a positive delta, and otherwise says why.
func adjustRefused(ctx context.Context, tx stockade.Tx, k stockade.Key, delta int64) (stockade.Level, error) {
	ls, err := tx.Levels(ctx, []stockade.Key{k}, true)
	if err != nil {
		return stockade.Level{}, err
	}
	if len(ls) == 0 {
		if delta < 0 {
			return stockade.Level{}, refuse(stockade.EInsufficientStock, "%s has no stock to remove %d from", k, -delta)
		}
		var missing int64
		l, ok, err := tx.SetOnHand(ctx, k, delta, &missing)
		switch {
		case err != nil:
			return stockade.Level{}, err
		case !ok:
			return stockade.Level{}, conflictf("%s was created concurrently", k)
		}
		return l, nil
	}
	l := ls[0]
	switch {
	case l.OnHand+delta < 0:
		return stockade.Level{}, refuse(stockade.EInsufficientStock, "%s: on hand %d adjusted by %d would be negative", k, l.OnHand, delta)
	case l.OnHand+delta < l.Reserved+l.Committed:
		return stockade.Level{}, refuse(stockade.EInsufficientStock, "%s: on hand %d adjusted by %d would be below reserved %d plus committed %d",
			k, l.OnHand, delta, l.Reserved, l.Committed)
	}
	return stockade.Level{}, conflictf("%s changed while being adjusted", k)
}

// PutLocation implements stockade.Service.
func (e *Engine) PutLocation(ctx context.Context, loc stockade.Location, idem *stockade.Idempotency) (stockade.Location, error) {
	return run(e, ctx, "put location", idem, func(ctx context.Context, c *call) (stockade.Location, error) {
		if err := checkLocation(loc); err != nil {
			return stockade.Location{}, err
		}
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			loc, err = once(ctx, c, tx, func() (stockade.Location, error) {
				return loc, tx.PutLocation(ctx, loc)
			})
			return err
		})
		if err != nil {
			return stockade.Location{}, err
		}
		return loc, nil
	})
}

// Location implements stockade.Service.
func (e *Engine) Location(ctx context.Context, id string) (stockade.Location, error) {
	return run(e, ctx, "location", nil, func(ctx context.Context, c *call) (stockade.Location, error) {
		if err := checkID("id", id); err != nil {
			return stockade.Location{}, err
		}
		var locs []stockade.Location
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			locs, err = tx.Locations(ctx, id)
			return err
		})
		switch {
		case err != nil:
			return stockade.Location{}, err
		case len(locs) == 0:
			return stockade.Location{}, refuse(stockade.ENotFound, "location %q not found", id)
		}
		return locs[0], nil
	})
}

// Locations implements stockade.Service. A shop has locations by the
// dozen, not by the million: the page is cut from the whole list, read
// in one query.
func (e *Engine) Locations(ctx context.Context, q stockade.LocationQuery) (stockade.LocationPage, error) {
	return run(e, ctx, "locations", nil, func(ctx context.Context, c *call) (stockade.LocationPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.LocationPage{}, err
		}
		after, err := parseLocationCursor(q.Cursor)
		if err != nil {
			return stockade.LocationPage{}, err
		}
		var locs []stockade.Location
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			locs, err = tx.Locations(ctx)
			return err
		})
		if err != nil {
			return stockade.LocationPage{}, err
		}
		// Sorted by id: the page starts after the cursor's id.
		start, _ := slices.BinarySearchFunc(locs, after, func(l stockade.Location, id string) int {
			return strings.Compare(l.ID, id)
		})
		if start < len(locs) && after != "" && locs[start].ID == after {
			start++
		}
		limit := cmp.Or(q.Limit, stockade.DefaultLocationLimit)
		page := stockade.LocationPage{Locations: locs[start:min(start+limit, len(locs))]}
		if start+limit < len(locs) {
			page.Next = locationCursor(page.Locations[len(page.Locations)-1].ID)
		}
		return page, nil
	})
}

// SKUs implements stockade.Service.
func (e *Engine) SKUs(ctx context.Context, q stockade.SKUQuery) (stockade.SKUPage, error) {
	return run(e, ctx, "skus", nil, func(ctx context.Context, c *call) (stockade.SKUPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.SKUPage{}, err
		}
		after, err := parseSKUCursor(q.Cursor)
		if err != nil {
			return stockade.SKUPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultSKULimit)
		var skus []stockade.SKUTotals
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			skus, err = tx.SKUTotals(ctx, after, q.Prefix, prefixEnd(q.Prefix), limit+1)
			return err
		})
		if err != nil {
			return stockade.SKUPage{}, err
		}
		for i := range skus {
			t := &skus[i].Totals
			t.Available = t.OnHand - t.Reserved - t.Committed
		}
		page := stockade.SKUPage{SKUs: skus}
		if len(skus) > limit {
			page.SKUs = skus[:limit]
			page.Next = skuCursor(skus[limit-1].SKU)
		}
		return page, nil
	})
}

// prefixEnd returns the least string above every string that starts with
// prefix, in byte order, or "" if there is none (no prefix): prefix with
// its last rune that can be raised raised by one. Byte order of UTF-8 is
// code point order, so the result stays valid UTF-8.
func prefixEnd(prefix string) string {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		switch r := rs[i]; {
		case r == utf8.MaxRune:
			continue
		case r == 0xD7FF: // the next code point is past the surrogates
			rs[i] = 0xE000
		default:
			rs[i] = r + 1
		}
		return string(rs[:i+1])
	}
	return ""
}

// Stock implements stockade.Service.
func (e *Engine) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	return run(e, ctx, "stock", nil, func(ctx context.Context, c *call) (stockade.Stock, error) {
		if err := checkID("sku", sku); err != nil {
			return stockade.Stock{}, err
		}
		s := stockade.Stock{SKU: sku}
		err := c.view(ctx, func(tx stockade.Tx) error {
			var err error
			s.Levels, err = tx.SKULevels(ctx, []string{sku}, false)
			return err
		})
		if err != nil {
			return stockade.Stock{}, err
		}
		if len(s.Levels) == 0 {
			return stockade.Stock{}, refuse(stockade.ENotFound, "sku %q not found", sku)
		}
		for _, l := range s.Levels {
			s.Totals.OnHand += l.OnHand
			s.Totals.Reserved += l.Reserved
			s.Totals.Committed += l.Committed
			s.Totals.Available += l.Available()
		}
		return s, nil
	})
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
		err := c.view(ctx, func(tx stockade.Tx) error {
			var err error
			if r, err = c.reservation(ctx, tx, id, false); err != nil {
				return err
			}
			if r.Status != stockade.Held {
				return nil
			}
			gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: id}, r.ExpiresAt, e.now())
			if gone {
				r.Status = stockade.Expired
			}
			return err
		})
		if err != nil {
			return stockade.Reservation{}, err
		}
		return r, nil
	})
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

// Movements implements stockade.Service. It reads one row more than the
// page holds: if that row exists, the page has a Next cursor, the id of
// its last row (cursor.go).
func (e *Engine) Movements(ctx context.Context, q stockade.MovementQuery) (stockade.MovementPage, error) {
	return run(e, ctx, "movements", nil, func(ctx context.Context, c *call) (stockade.MovementPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.MovementPage{}, err
		}
		after, err := parseMovementCursor(q.Cursor)
		if err != nil {
			return stockade.MovementPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultMovementLimit)
		f := stockade.MovementFilter{SKU: q.SKU, Location: q.Location, Ref: q.Ref, AfterID: after, Limit: limit + 1}
		var ms []stockade.Movement
		err = c.view(ctx, func(tx stockade.Tx) error {
			var err error
			ms, err = tx.Movements(ctx, f)
			return err
		})
		if err != nil {
			return stockade.MovementPage{}, err
		}
		page := stockade.MovementPage{Movements: ms}
		if len(ms) > limit {
			page.Movements = ms[:limit]
			page.Next = movementCursor(ms[limit-1].ID)
		}
		return page, nil
	})
}

// reservation reads the reservation id in tx, locking its row with lock,
// if the call's actor may see it: one of another storefront key is
// ENotFound, as a missing one is, so that its existence does not show.
func (c *call) reservation(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Reservation, error) {
	r, err := tx.Reservation(ctx, id, lock)
	if err == nil && !c.actor.Sees(r.Owner) {
		return stockade.Reservation{}, refuse(stockade.ENotFound, "reservation %q not found", id)
	}
	return r, err
}

// order reads the order id as reservation reads a reservation.
func (c *call) order(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Order, error) {
	o, err := tx.Order(ctx, id, lock)
	if err == nil && !c.actor.Sees(o.Owner) {
		return stockade.Order{}, refuse(stockade.ENotFound, "order %q not found", id)
	}
	return o, err
}
