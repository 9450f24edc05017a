package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// Reserve implements stockade.Service: it holds stock for every line or
// for none, allocated as the package documentation describes.
func (e *Engine) Reserve(ctx context.Context, req stockade.ReserveRequest) (stockade.Reservation, error) {
	return run(e, ctx, "reserve", true, func(ctx context.Context, c *call) (stockade.Reservation, error) {
		r, err := e.checkRequest(req, false)
		if err != nil {
			return stockade.Reservation{}, err
		}
		if e.batch != nil {
			o, err := e.batch.submit(ctx, &pending{c: c, r: r})
			return o.res, err
		}
		var res stockade.Reservation
		err = c.placeRetried(ctx, r, func(ctx context.Context, tx stockade.Tx, fences map[string]uint64) error {
			now := e.now()
			res = stockade.Reservation{
				ID:        newID("res"),
				Status:    stockade.Held,
				CreatedAt: now,
				ExpiresAt: now.Add(r.ttl),
				Lines:     r.lines,
			}
			allocs, write, err := e.place(ctx, tx, r, res.ID, false, fences, now)
			if err != nil {
				return err
			}
			res.Allocations = allocs
			if err := tx.InsertReservations(ctx, res); err != nil {
				return err
			}
			if err := c.done(ctx, tx, res); err != nil {
				return err
			}
			return write()
		})
		if err != nil {
			return stockade.Reservation{}, err
		}
		return res, nil
	})
}

// Checkout implements stockade.Service: reserve and confirm in one
// transaction, available → committed, without a reservation.
func (e *Engine) Checkout(ctx context.Context, req stockade.ReserveRequest) (stockade.Order, error) {
	return run(e, ctx, "checkout", true, func(ctx context.Context, c *call) (stockade.Order, error) {
		r, err := e.checkRequest(req, true)
		if err != nil {
			return stockade.Order{}, err
		}
		if e.batch != nil {
			out, err := e.batch.submit(ctx, &pending{c: c, r: r, checkout: true})
			return out.ord, err
		}
		var o stockade.Order
		err = c.placeRetried(ctx, r, func(ctx context.Context, tx stockade.Tx, fences map[string]uint64) error {
			now := e.now()
			o = stockade.Order{ID: newID("ord"), Status: stockade.Committed, CreatedAt: now, Lines: r.lines}
			allocs, write, err := e.place(ctx, tx, r, o.ID, true, fences, now)
			if err != nil {
				return err
			}
			o.Allocations = allocs
			if err := tx.InsertOrders(ctx, o); err != nil {
				return err
			}
			if err := c.done(ctx, tx, o); err != nil {
				return err
			}
			return write()
		})
		if err != nil {
			return stockade.Order{}, err
		}
		return o, nil
	})
}

// placeRetried runs fn in a write transaction, retried whole on conflicts.
// Under the Lock strategy each attempt first takes a lease on every SKU of
// r (all or none, in sorted order) and passes fn each SKU's fencing token;
// the leases are released once the transaction has ended.
func (c *call) placeRetried(ctx context.Context, r *request, fn func(ctx context.Context, tx stockade.Tx, fences map[string]uint64) error) error {
	e := c.e
	if e.mode != modeLock {
		return c.update(ctx, func(tx stockade.Tx) error { return fn(ctx, tx, nil) })
	}
	keys := make([]string, len(r.skus))
	for i, sku := range r.skus {
		keys[i] = lockKey(sku)
	}
	return c.retry(ctx, func(ctx context.Context) error {
		m, err := lock.AcquireAll(ctx, e.opts.Locker, keys, lock.WithTTL(e.opts.LockTTL))
		if err != nil {
			return fmt.Errorf("engine: lock %d SKUs: %w", len(keys), err)
		}
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := m.Release(rctx); err != nil {
				// The transaction has ended; its writes were fenced.
				e.log.Warn("engine: release SKU leases", "err", err)
			}
		}()
		fences := make(map[string]uint64, len(r.skus))
		for _, l := range m.Leases() {
			fences[l.Key()[len(lockPrefix):]] = l.Token()
		}
		return e.store.Update(ctx, func(tx stockade.Tx) error { return fn(ctx, tx, fences) })
	})
}

// lockPrefix starts the lock key of every SKU under the Lock strategy.
const lockPrefix = "stockade:sku:"

func lockKey(sku string) string { return lockPrefix + sku }

// levelsView is what a placement has read: the levels the request can
// draw on and where its SKUs are.
type levelsView struct {
	keys   []stockade.Key // every level the request may draw on, in key order
	levels map[stockade.Key]stockade.Level
	locs   map[string][]string // SKU → locations with a level, for SKUs needed anywhere
	coords map[string]stockade.Point
	whole  map[string]bool // SKUs whose every level was read
}

// read reads, without locks, the levels r may draw on: every level of the
// SKUs it needs anywhere (one statement) and the levels at its located
// keys. The located keys of a request with one SKU are read with
// all that SKU's levels too, which is one simple statement and tells
// whether the SKU exists; several SKUs named only with locations are read
// in one statement. With a ship-to point it also reads where the SKUs are.
func (e *Engine) read(ctx context.Context, tx stockade.Tx, r *request) (*levelsView, error) {
	v := &levelsView{levels: map[stockade.Key]stockade.Level{}, locs: map[string][]string{}, whole: map[string]bool{}}
	var located []stockade.Key // located keys of SKUs not needed anywhere
	for _, k := range r.located {
		if _, ok := slices.BinarySearch(r.anywhere, k.SKU); !ok {
			located = append(located, k)
		}
	}
	skus := r.anywhere
	if len(located) > 0 && len(r.skus) == 1 {
		skus, located = r.skus, nil
	}
	ls, err := tx.SKULevels(ctx, skus, false)
	if err != nil {
		return nil, err
	}
	for _, sku := range skus {
		v.whole[sku] = true
	}
	for _, l := range ls {
		v.levels[l.Key()] = l
		if _, anywhere := slices.BinarySearch(r.anywhere, l.SKU); anywhere {
			v.locs[l.SKU] = append(v.locs[l.SKU], l.Location)
			v.keys = append(v.keys, l.Key())
		}
	}
	if err := v.refresh(ctx, tx, located, false); err != nil {
		return nil, err
	}
	v.keys = append(v.keys, r.located...)
	slices.SortFunc(v.keys, stockade.Key.Compare)
	v.keys = slices.Compact(v.keys)
	if r.shipTo != nil && len(v.locs) > 0 {
		var ids []string
		for _, locs := range v.locs {
			ids = append(ids, locs...)
		}
		slices.Sort(ids)
		locs, err := tx.Locations(ctx, slices.Compact(ids)...)
		if err != nil {
			return nil, err
		}
		v.coords = make(map[string]stockade.Point, len(locs))
		for _, l := range locs {
			v.coords[l.ID] = stockade.Point{Lat: l.Lat, Lon: l.Lon}
		}
	}
	return v, nil
}

// lapsed returns the held reservations with an allocation on v's keys
// that lapsed before now, locked (waiting for those another transaction,
// such as a sweeper, has locked; see stockade.Tx). It skips the search
// when no level of v holds any reserved stock, and on a store that runs
// one write transaction at a time it first probes for any lapsed hold at
// all, which is one index lookup and usually finds none.
func (e *Engine) lapsed(ctx context.Context, tx stockade.Tx, v *levelsView, now time.Time) ([]stockade.Reservation, error) {
	held := false
	for _, k := range v.keys {
		held = held || v.levels[k].Reserved > 0
	}
	if !held {
		return nil, nil
	}
	if e.serialStore {
		// Nothing else writes meanwhile, so the probe locks nothing that
		// another request would have to skip.
		some, err := tx.LapsedReservations(ctx, now, nil, 1)
		if err != nil || len(some) == 0 {
			return nil, err
		}
	}
	return tx.LapsedReservations(ctx, now, v.keys, 0)
}

// refresh reads the levels at keys (again), locking them with lock.
func (v *levelsView) refresh(ctx context.Context, tx stockade.Tx, keys []stockade.Key, lock bool) error {
	if len(keys) == 0 {
		return nil
	}
	ls, err := tx.Levels(ctx, keys, lock)
	if err != nil {
		return err
	}
	for _, l := range ls {
		v.levels[l.Key()] = l
	}
	return nil
}

// place allocates r inside tx: available → reserved (or → committed, for
// a checkout), with the ledger rows under ref. It first finds the held
// reservations on those levels that lapsed before now and expires them in
// the same writes, so that they never block the request.
//
// It writes the ledger rows at once and returns write, which writes the
// levels: the caller inserts its reservation or order first and calls
// write last, so the hot rows are locked (from their UPDATE to the commit)
// for as short a time as the transaction allows.
//
// Every level write goes through UpdateLevel, one per level, in key order.
// How the allocation is made safe depends on the strategy: see the package
// documentation. A write refused because its level changed since it was
// read (or, under Lock, because a newer fence is on it) is a conflict: the
// whole transaction is retried and allocates from a fresh read. The
// request is refused only when an allocation made from what was read
// cannot be met.
func (e *Engine) place(ctx context.Context, tx stockade.Tx, r *request, ref string, checkout bool, fences map[string]uint64, now time.Time) (allocs []stockade.Allocation, write func() error, err error) {
	v, err := e.read(ctx, tx, r)
	if err != nil {
		return nil, nil, err
	}
	lapsed, err := e.lapsed(ctx, tx, v, now)
	if err != nil {
		return nil, nil, err
	}
	freed := map[stockade.Key]int64{} // reserved that lapsed holds give back
	for _, res := range lapsed {
		for _, a := range res.Allocations {
			freed[a.Key()] += a.Quantity
		}
	}
	touched := slices.Clone(v.keys) // every level written, in key order
	for k := range freed {
		if _, ok := slices.BinarySearchFunc(v.keys, k, stockade.Key.Compare); !ok {
			touched = append(touched, k)
		}
	}
	slices.SortFunc(touched, stockade.Key.Compare)

	switch e.mode {
	case modeRowLock:
		// One statement locks every level the transaction writes, in key
		// order, before the allocation is decided.
		if err := v.refresh(ctx, tx, touched, true); err != nil {
			return nil, nil, err
		}
	case modeAdvisory:
		if err := tx.AdvisoryLock(ctx, touched); err != nil {
			return nil, nil, err
		}
		if err := v.refresh(ctx, tx, v.keys, false); err != nil {
			return nil, nil, err
		}
	}

	avail := make(map[stockade.Key]int64, len(v.keys))
	for _, k := range v.keys {
		if l, ok := v.levels[k]; ok {
			avail[k] = l.Available() + freed[k]
		}
	}
	var short *shortfall
	allocs, short = allocate(r.needs, stockView{avail: avail, locations: v.locs, coords: v.coords}, r.shipTo)
	if short != nil {
		return nil, nil, e.refusal(ctx, tx, r, v, short)
	}
	target := make(map[stockade.Key]int64, len(allocs))
	for _, a := range allocs {
		target[a.Key()] = a.Quantity
	}

	ms, err := e.markExpired(ctx, tx, lapsed, now)
	if err != nil {
		return nil, nil, err
	}
	kind := stockade.MoveReserve
	if checkout {
		kind = stockade.MoveCheckout
	}
	ms = append(ms, movements(allocs, kind, ref, "", now)...)
	if err := tx.AppendMovements(ctx, ms...); err != nil {
		return nil, nil, err
	}

	write = func() error {
		for _, k := range touched {
			d, f := target[k], freed[k]
			if d == 0 && f == 0 {
				continue
			}
			delta := stockade.Delta{Reserved: -f}
			if checkout {
				delta.Committed = d
			} else {
				delta.Reserved += d
			}
			var guard stockade.Guard
			if d != 0 {
				switch e.mode {
				case modeOptimistic:
					ver := v.levels[k].Version
					guard.Version = &ver
				case modeLock:
					guard.Fence = fences[k.SKU]
				}
			}
			_, ok, err := tx.UpdateLevel(ctx, k, delta, guard)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			if e.mode == modeLock {
				ls, err := tx.Levels(ctx, []stockade.Key{k}, false)
				if err != nil {
					return err
				}
				if len(ls) == 1 && ls[0].Fence > fences[k.SKU] {
					return conflictf("level %s: fencing token %d is older than the level's %d (the lease was lost)",
						k, fences[k.SKU], ls[0].Fence)
				}
			}
			// The level changed since it was read: allocate again from a
			// fresh read, in a new transaction.
			return conflictf("level %s changed since it was read", k)
		}
		return nil
	}
	return allocs, write, nil
}

// refusal explains why r cannot be met, given the shortfall that
// allocation found: ENotFound for a location or SKU that does not exist
// (the first in key order), else EInsufficientStock.
func (e *Engine) refusal(ctx context.Context, tx stockade.Tx, r *request, v *levelsView, short *shortfall) error {
	// A level's location exists; look up only those of located keys
	// without a level.
	var ids []string
	for _, k := range r.located {
		if _, ok := v.levels[k]; !ok {
			ids = append(ids, k.Location)
		}
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		ids = slices.Compact(ids)
		locs, err := tx.Locations(ctx, ids...)
		if err != nil {
			return err
		}
		known := map[string]bool{}
		for _, l := range locs {
			known[l.ID] = true
		}
		for _, id := range ids {
			if !known[id] {
				return refuse(stockade.ENotFound, "location %q not found", id)
			}
		}
	}
	has := map[string]bool{}
	for k := range v.levels {
		has[k.SKU] = true
	}
	for _, sku := range r.skus {
		if has[sku] {
			continue
		}
		if !v.whole[sku] {
			ls, err := tx.SKULevels(ctx, []string{sku}, false)
			if err != nil {
				return err
			}
			if len(ls) > 0 {
				continue
			}
		}
		return refuse(stockade.ENotFound, "sku %q not found", sku)
	}
	return stockade.Errorf(stockade.EInsufficientStock, short.Error())
}

// perUnit is how one allocated unit moves a level's counters, by the kind
// of ledger row that records the move.
var perUnit = map[stockade.MovementKind]stockade.Delta{
	stockade.MoveReserve:  {Reserved: 1},
	stockade.MoveCheckout: {Committed: 1},
	stockade.MoveConfirm:  {Reserved: -1, Committed: 1},
	stockade.MoveRelease:  {Reserved: -1},
	stockade.MoveExpire:   {Reserved: -1},
	stockade.MoveCancel:   {Committed: -1},
	stockade.MoveFulfill:  {OnHand: -1, Committed: -1},
}

// moved returns how q allocated units move a level's counters in a move of
// kind (see perUnit).
func moved(kind stockade.MovementKind, q int64) stockade.Delta {
	u, ok := perUnit[kind]
	if !ok {
		panic("engine: no per-unit move for ledger rows of kind " + string(kind))
	}
	return stockade.Delta{OnHand: u.OnHand * q, Reserved: u.Reserved * q, Committed: u.Committed * q}
}

// movements returns one ledger row of kind per allocation.
func movements(allocs []stockade.Allocation, kind stockade.MovementKind, ref, reason string, at time.Time) []stockade.Movement {
	ms := make([]stockade.Movement, len(allocs))
	for i, a := range allocs {
		ms[i] = stockade.Movement{At: at, SKU: a.SKU, Location: a.Location, Kind: kind, Delta: moved(kind, a.Quantity), Ref: ref, Reason: reason}
	}
	return ms
}
