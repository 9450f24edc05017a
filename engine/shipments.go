package engine

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// Shipments
//
// An order leaves in shipments: ShipOrder ships the units a request
// names, FulfillOrder what is left, both through ship, the one body of a
// shipment. Each shipment moves its levels' counters as MoveFulfill
// ledger rows (Ref the order, Reason the shipment), bumps the order's
// version, is stored, and is told by an order.shipped event; the one that
// ships the last units fulfils the order (order.fulfilled) in the same
// transaction. Every change of an order goes through changeOrder, which
// reads the order with its row locked: on PostgreSQL two shipments of one
// order queue on that lock, whatever the strategy, and on SQLite a write
// transaction holds the whole database. What a shipment takes is decided
// under the lock from the order as it is, so concurrent shipments never
// ship more than was ordered.

// ShipOrder implements stockade.Service: the units req names leave the
// order's levels (on hand and committed both go down), from the locations
// shipmentLines decides; the rest stays committed. The shipment that
// ships the last units fulfils the order. A cancelled or fulfilled order
// is EInvalidState; with expectedVersion, an order at another version is
// EVersionConflict, naming its version.
func (e *Engine) ShipOrder(ctx context.Context, id string, req stockade.NewShipment, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Shipment, error) {
	return run(e, ctx, "ship", idem, func(ctx context.Context, c *call) (stockade.Shipment, error) {
		if err := req.Validate(); err != nil {
			return stockade.Shipment{}, err
		}
		return changeOrder(e, ctx, c, id, expectedVersion, func(tx stockade.Tx, o stockade.Order, now time.Time, ob *outbox) (stockade.Shipment, error) {
			if err := checkVersion(o, expectedVersion); err != nil {
				return stockade.Shipment{}, err
			}
			if o.Status != stockade.Committed {
				return stockade.Shipment{}, refuse(stockade.EInvalidState, "order %q is %s, not committed: nothing is left to ship", o.ID, o.Status)
			}
			take, err := shipmentLines(o, req.Lines)
			if err != nil {
				return stockade.Shipment{}, err
			}
			_, s, err := ship(ctx, tx, o, take, req.Metadata, c.actor.Name, now, ob)
			return s, err
		})
	})
}

// FulfillOrder implements stockade.Service: what is left of a committed
// order leaves (committed and on hand both go down) as one shipment, and
// the order is fulfilled. Fulfilling a fulfilled order changes nothing
// and returns it; a cancelled one is EInvalidState. With expectedVersion,
// an order at another version is EVersionConflict, naming its version.
func (e *Engine) FulfillOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return run(e, ctx, "fulfill", idem, func(ctx context.Context, c *call) (stockade.Order, error) {
		return changeOrder(e, ctx, c, id, expectedVersion, func(tx stockade.Tx, o stockade.Order, now time.Time, ob *outbox) (stockade.Order, error) {
			if o.Status == stockade.Fulfilled {
				return o, nil
			}
			if err := checkVersion(o, expectedVersion); err != nil {
				return o, err
			}
			if o.Status != stockade.Committed {
				return o, refuse(stockade.EInvalidState, "order %q is %s, not committed", o.ID, o.Status)
			}
			o, _, err := ship(ctx, tx, o, o.Unshipped(), nil, c.actor.Name, now, ob)
			return o, err
		})
	})
}

// changeOrder is the body of every change of an order: in one write
// transaction of c, once per idempotency key (see once), it reads the
// order id with its row locked and lets decide change it, adding the
// events of the change to ob, which it appends with the change. decide
// refuses, or returns the call's result.
func changeOrder[T any](e *Engine, ctx context.Context, c *call, id string, expectedVersion *int64,
	decide func(tx stockade.Tx, o stockade.Order, now time.Time, ob *outbox) (T, error)) (T, error) {
	var v T
	if err := checkID("order id", id); err != nil {
		return v, err
	}
	if expectedVersion != nil && *expectedVersion < 1 {
		return v, refuse(stockade.EInvalid, "expected_version: must be 1 or more, got %d", *expectedVersion)
	}
	err := c.update(ctx, func(tx stockade.Tx) (err error) {
		v, err = once(ctx, c, tx, func() (T, error) {
			var zero T
			o, err := c.order(ctx, tx, id, true)
			if err != nil {
				return zero, err
			}
			var ob outbox
			v, err := decide(tx, o, e.now(), &ob)
			if err != nil {
				return zero, err
			}
			return v, ob.flush(ctx, tx)
		})
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// checkVersion refuses a change of o at expected, if not nil, when o is
// at another version.
func checkVersion(o stockade.Order, expected *int64) error {
	if expected != nil && *expected != o.Version {
		return refuse(stockade.EVersionConflict, "order %q is at version %d (%s), not %d", o.ID, o.Version, o.Status, *expected)
	}
	return nil
}

// ship ships take, units that o, a committed order whose row tx holds,
// has left to ship (see shipmentLines), as one shipment with meta, for the
// actor named by: its levels lose them from on hand and committed (ledger
// rows of MoveFulfill, Ref the order, Reason the shipment), the order adds
// them to what it shipped and goes one version on, fulfilled if nothing
// is left, and the shipment is stored. It returns the order after and
// the shipment; their events go to ob: order.shipped, and order.fulfilled
// with the last units.
func ship(ctx context.Context, tx stockade.Tx, o stockade.Order, take []stockade.Allocation, meta stockade.Metadata, by string, now time.Time, ob *outbox) (stockade.Order, stockade.Shipment, error) {
	s := stockade.Shipment{ID: newID("shp"), OrderID: o.ID, CreatedAt: now, Lines: take, OrderVersion: o.Version + 1, Metadata: meta}
	if err := shift(ctx, tx, take, stockade.MoveFulfill, ob, now); err != nil {
		return o, s, err
	}
	o.Shipped, o.Version = stockade.SumAllocations(o.Shipped, take), s.OrderVersion
	if len(o.Unshipped()) == 0 {
		o.Status = stockade.Fulfilled
	}
	if ok, err := tx.OrderUpdate(ctx, o); err != nil || !ok {
		return o, s, statusErr(err, "order", o.ID)
	}
	if err := tx.ShipmentInsert(ctx, s); err != nil {
		return o, s, err
	}
	if err := tx.MovementAppend(ctx, movements(take, stockade.MoveFulfill, o.ID, "shipment "+s.ID, by, now)...); err != nil {
		return o, s, err
	}
	ob.shipment(o, s, now)
	if o.Status == stockade.Fulfilled {
		ob.order(stockade.EventOrderFulfilled, o, now)
	}
	return o, s, nil
}

// shipmentLines decides which of o's unshipped units (Order.Unshipped) the
// lines of a shipment take. Lines of the same SKU and location add up. A
// line that names a location takes from the order's allocation of its SKU
// there. The lines of a SKU without a location add up too and take, after
// those, from what is left of the SKU's allocations in location order (the
// smaller location id first), splitting across as many as they must. It
// returns what they take, one allocation per level in key order, or
// refuses: EInvalid for a SKU the order has no allocation of (at the
// location named), EInvalidState for more units than the order has left
// to ship, naming the SKU and what is left. It is pure: the caller holds
// the order's row.
func shipmentLines(o stockade.Order, lines []stockade.Line) ([]stockade.Allocation, error) {
	left := map[stockade.Key]int64{}
	for _, a := range o.Unshipped() {
		left[a.Key()] = a.Quantity
	}
	has := map[stockade.Key]bool{}
	locations := map[string][]string{} // of a SKU, in location order
	for _, a := range o.Allocations {
		if !has[a.Key()] {
			has[a.Key()] = true
			locations[a.SKU] = append(locations[a.SKU], a.Location)
		}
	}
	located, anywhere := map[stockade.Key]int64{}, map[string]int64{}
	for _, l := range lines {
		if l.Location != "" {
			located[stockade.Key{SKU: l.SKU, Location: l.Location}] += l.Quantity
		} else {
			anywhere[l.SKU] += l.Quantity
		}
	}
	var take []stockade.Allocation
	for _, k := range slices.SortedFunc(maps.Keys(located), stockade.Key.Compare) {
		q := located[k]
		switch {
		case !has[k]:
			return nil, refuse(stockade.EInvalid, "lines: order %q has no %s at %s", o.ID, k.SKU, k.Location)
		case q > left[k]:
			return nil, refuse(stockade.EInvalidState, "order %q has %d of %s at %s left to ship, not %d", o.ID, left[k], k.SKU, k.Location, q)
		}
		left[k] -= q
		take = append(take, stockade.Allocation{SKU: k.SKU, Location: k.Location, Quantity: q})
	}
	for _, sku := range slices.Sorted(maps.Keys(anywhere)) {
		q, locs := anywhere[sku], locations[sku]
		if len(locs) == 0 {
			return nil, refuse(stockade.EInvalid, "lines: order %q has no %s", o.ID, sku)
		}
		slices.Sort(locs)
		var rest int64
		for _, loc := range locs {
			rest += left[stockade.Key{SKU: sku, Location: loc}]
		}
		if q > rest {
			return nil, refuse(stockade.EInvalidState, "order %q has %d of %s left to ship%s, not %d", o.ID, rest, sku, besides(located, sku), q)
		}
		for _, loc := range locs {
			k := stockade.Key{SKU: sku, Location: loc}
			n := min(q, left[k])
			if n == 0 {
				continue
			}
			left[k], q = left[k]-n, q-n
			take = append(take, stockade.Allocation{SKU: sku, Location: loc, Quantity: n})
			if q == 0 {
				break
			}
		}
	}
	return stockade.SumAllocations(take), nil
}

// besides says, in a refusal of the lines of sku without a location,
// that the lines of sku that name one took their units first, if there
// are any.
func besides(located map[stockade.Key]int64, sku string) string {
	for k := range located {
		if k.SKU == sku {
			return " besides the lines that name a location"
		}
	}
	return ""
}

// A shipment cursor is the last shipment of a page, as a reservation
// cursor is (see listCursor).
const shipmentCursorTag = 'x'

// Shipments implements stockade.Service: the shipments of an order the
// call's actor may see, newest first.
func (e *Engine) Shipments(ctx context.Context, orderID string, q stockade.ShipmentQuery) (stockade.ShipmentPage, error) {
	return run(e, ctx, "shipments", nil, func(ctx context.Context, c *call) (stockade.ShipmentPage, error) {
		if err := checkID("order id", orderID); err != nil {
			return stockade.ShipmentPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.ShipmentPage{}, err
		}
		at, id, err := parseListCursor(q.Cursor, shipmentCursorTag)
		if err != nil {
			return stockade.ShipmentPage{}, err
		}
		f := stockade.ShipmentFilter{OrderID: orderID, BeforeAt: at, BeforeID: id, Limit: cmp.Or(q.Limit, stockade.DefaultShipmentLimit) + 1}
		var ss []stockade.Shipment
		err = c.view(ctx, func(tx stockade.Tx) error {
			if _, err := c.order(ctx, tx, orderID, false); err != nil {
				return err
			}
			ss, err = tx.ShipmentList(ctx, f)
			return err
		})
		if err != nil {
			return stockade.ShipmentPage{}, err
		}
		var page stockade.ShipmentPage
		page.Shipments, page.Next = cutPage(ss, f.Limit-1, shipmentCursorTag, func(x stockade.Shipment) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}
