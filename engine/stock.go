package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/stockade/stockade"
)

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
				ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true})
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
				l, ok, err := tx.LevelSetOnHand(ctx, k, onHand, &at)
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
				return l, tx.MovementAppend(ctx, m)
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
				l, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{OnHand: delta}, stockade.Guard{})
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
				return l, tx.MovementAppend(ctx, m)
			})
			return err
		})
		if err != nil {
			return stockade.Level{}, err
		}
		return l, nil
	})
}

// adjustRefused handles an adjustment that LevelUpdate refused: it creates
// a missing level for a positive delta, and otherwise says why.
func adjustRefused(ctx context.Context, tx stockade.Tx, k stockade.Key, delta int64) (stockade.Level, error) {
	ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true})
	if err != nil {
		return stockade.Level{}, err
	}
	if len(ls) == 0 {
		if delta < 0 {
			return stockade.Level{}, refuse(stockade.EInsufficientStock, "%s has no stock to remove %d from", k, -delta)
		}
		var missing int64
		l, ok, err := tx.LevelSetOnHand(ctx, k, delta, &missing)
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
				return loc, tx.LocationPut(ctx, loc)
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
			locs, err = tx.LocationList(ctx, id)
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
			locs, err = tx.LocationList(ctx)
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
			skus, err = tx.SKUTotalList(ctx, after, q.Prefix, prefixEnd(q.Prefix), limit+1)
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

// LocationStock implements stockade.Service: the levels at location, in
// SKU order, a page at a time, with the SKU cursors of SKUs.
func (e *Engine) LocationStock(ctx context.Context, location string, q stockade.SKUQuery) (stockade.LevelPage, error) {
	return run(e, ctx, "location stock", nil, func(ctx context.Context, c *call) (stockade.LevelPage, error) {
		if err := checkID("location", location); err != nil {
			return stockade.LevelPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.LevelPage{}, err
		}
		after, err := parseSKUCursor(q.Cursor)
		if err != nil {
			return stockade.LevelPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultSKULimit)
		var ls []stockade.Level
		err = c.view(ctx, func(tx stockade.Tx) error {
			locs, err := tx.LocationList(ctx, location)
			switch {
			case err != nil:
				return err
			case len(locs) == 0:
				return refuse(stockade.ENotFound, "location %q not found", location)
			}
			ls, err = tx.LevelListAt(ctx, location, after, q.Prefix, prefixEnd(q.Prefix), limit+1)
			return err
		})
		if err != nil {
			return stockade.LevelPage{}, err
		}
		page := stockade.LevelPage{Levels: ls}
		if len(ls) > limit {
			page.Levels = ls[:limit]
			page.Next = skuCursor(ls[limit-1].SKU)
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
			s.Levels, err = tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{sku}})
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
			ms, err = tx.MovementList(ctx, f)
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
