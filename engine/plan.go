package engine

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

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
	ls, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: skus})
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
		locs, err := tx.LocationList(ctx, slices.Compact(ids)...)
		if err != nil {
			return nil, err
		}
		v.coords = make(map[string]stockade.Point, len(locs))
		for _, l := range locs {
			if l.Point != nil {
				v.coords[l.ID] = *l.Point
			}
		}
	}
	return v, nil
}

// lapsed returns the held reservations with an allocation on v's keys
// that lapsed before now, locked (see lapsedReservations). It skips the search
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
		some, err := someLapseCandidate(ctx, tx, now)
		if err != nil || len(some) == 0 {
			return nil, err
		}
	}
	return lapsedReservations(ctx, tx, now, v.keys, 0)
}

// refresh reads the levels at keys (again), locking them with lock.
func (v *levelsView) refresh(ctx context.Context, tx stockade.Tx, keys []stockade.Key, lock bool) error {
	if len(keys) == 0 {
		return nil
	}
	ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: keys, Lock: lock})
	if err != nil {
		return err
	}
	for _, l := range ls {
		v.levels[l.Key()] = l
	}
	return nil
}

// plan is what a transaction that allocates stock reads and decides
// before it writes: the levels its requests may draw on, the lapsed holds
// on them, which it expires on the way so that they never block a sale,
// the levels it may write, and the stock left to allocate. decideStock
// makes one for its calls, one or many, and writes through commit.
type plan struct {
	*levelsView
	now time.Time
	// lapsed are the held reservations to expire: those on the levels
	// that lapsed before now, and lapsed ones the caller is confirming.
	lapsed []stockade.Reservation
	// targets are the reservations that the batch confirms, by id, as
	// read (locked) in the transaction; one that lapsed has status Expired
	// and is among lapsed.
	targets map[string]stockade.Reservation
	// touched is every level the transaction may write, in key order.
	touched []stockade.Key
	// locked: the levels in touched are row-locked, taken in key order,
	// so their writes cannot conflict and go in one statement.
	locked bool
	// stock is what allocations draw on: each level's available units
	// plus those its lapsed holds give back, less what is allocated.
	stock stockView
}

// plan reads, in tx, what the requests in r may draw on, finds and locks
// the lapsed holds on it, and reads and locks the reservations named by
// confirm (they are read after the lapsed holds, in id order). It then
// takes the locks that the strategy takes before
// deciding (row locks, or advisory locks, on every level touched, in key
// order; none for atomic, optimistic and lock, which check at write time)
// and computes the stock to allocate from what it read under them.
func (e *Engine) plan(ctx context.Context, tx stockade.Tx, r *request, confirm []string, now time.Time) (*plan, error) {
	v, err := e.read(ctx, tx, r)
	if err != nil {
		return nil, err
	}
	p := &plan{levelsView: v, now: now}
	if p.lapsed, err = e.lapsed(ctx, tx, v, now); err != nil {
		return nil, err
	}
	if p.targets, err = confirmTargets(ctx, tx, confirm); err != nil {
		return nil, err
	}
	var writes []stockade.Key
	for _, id := range slices.Sorted(maps.Keys(p.targets)) {
		t := p.targets[id]
		for _, a := range t.Allocations {
			writes = append(writes, a.Key())
		}
		if t.Status != stockade.Held {
			continue
		}
		if gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: id}, t.ExpiresAt, now); err != nil || !gone {
			if err != nil {
				return nil, err
			}
			continue // unexpired, or its payment is in flight
		}
		if !slices.ContainsFunc(p.lapsed, func(l stockade.Reservation) bool { return l.ID == id }) {
			p.lapsed = append(p.lapsed, t)
		}
		t.Status = stockade.Expired // and expired with the other lapsed holds
		p.targets[id] = t
	}
	freed := map[stockade.Key]int64{} // reserved units that lapsed holds give back
	for _, res := range p.lapsed {
		for _, a := range res.Allocations {
			freed[a.Key()] += a.Quantity
			writes = append(writes, a.Key())
		}
	}
	p.touched = append(slices.Clone(v.keys), writes...)
	slices.SortFunc(p.touched, stockade.Key.Compare)
	p.touched = slices.Compact(p.touched)

	switch {
	case e.strat.lockLevels:
		// One statement locks every level the transaction writes, in key
		// order, before anything is decided.
		if err := v.refresh(ctx, tx, p.touched, true); err != nil {
			return nil, err
		}
		p.locked = true
	case e.strat.advisory:
		if err := tx.AdvisoryLock(ctx, p.touched); err != nil {
			return nil, err
		}
		// The advisory locks keep other allocations off these levels; the
		// writes still take the rows' locks one by one in key order, as
		// the transactions that do not take advisory locks do.
		if err := v.refresh(ctx, tx, v.keys, false); err != nil {
			return nil, err
		}
	}
	p.stock = stockView{avail: make(map[stockade.Key]int64, len(v.keys)), locations: v.locs, coords: v.coords}
	for _, k := range v.keys {
		if l, ok := v.levels[k]; ok {
			p.stock.avail[k] = l.Available() + freed[k]
		}
	}
	return p, nil
}

// allocate allocates r from the stock p has left and takes the units
// from it, or says why r cannot be met (see refusal).
func (p *plan) allocate(ctx context.Context, e *Engine, tx stockade.Tx, r *request) ([]stockade.Allocation, error) {
	allocs, short := allocate(r.needs, p.stock, r.shipTo)
	if short != nil {
		return nil, e.refusal(ctx, tx, r, p.levelsView, short)
	}
	for _, a := range allocs {
		p.stock.avail[a.Key()] -= a.Quantity
	}
	return allocs, nil
}

// writes is what a transaction that made a plan writes, besides expiring
// the plan's lapsed holds.
type writes struct {
	reservations []stockade.Reservation
	orders       []stockade.Order
	// movements are the ledger rows of the allocations, confirms and
	// other moves decided; each level moves by the sum of its rows.
	movements []stockade.Movement
	records   []stockade.IdempotencyRecord
	// events describe the reservations and orders decided; commit adds
	// those of the lapsed holds it expires and of the levels that go out
	// of stock or come back.
	events []stockade.DomainEvent
	// fences are the Lock strategy's fencing tokens, by SKU.
	fences map[string]uint64
}

// commit writes what was decided under p: it expires p's lapsed holds,
// inserts the reservations and orders, the ledger rows, the idempotency
// records and the events, and writes each level last, moved by the sum of
// the ledger rows on it, so that the hot rows are locked (from their
// UPDATE to the commit) for as short a time as the transaction allows.
//
// Levels that p row-locked are written in one statement. Otherwise each level
// is written in key order with one conditional UPDATE that checks that no
// counter goes below zero and, for a level that gives stock, the
// strategy's guard: the version read (optimistic) or the fencing token
// (lock). A write refused because its level changed since it was read, or
// because a newer fence is on it, is a conflict: the whole transaction is
// retried and allocates from a fresh read.
func (e *Engine) commit(ctx context.Context, tx stockade.Tx, p *plan, w writes) error {
	ob := &outbox{evs: w.events}
	expired, err := e.markExpired(ctx, tx, p.lapsed, ob, p.now)
	if err != nil {
		return err
	}
	ms := append(expired, w.movements...)
	if err := tx.ReservationInsert(ctx, w.reservations...); err != nil {
		return err
	}
	if err := tx.OrderInsert(ctx, w.orders...); err != nil {
		return err
	}
	if err := tx.MovementAppend(ctx, ms...); err != nil {
		return err
	}
	if err := tx.IdempotencyPut(ctx, w.records...); err != nil {
		return err
	}
	// The events known so far go before the levels' writes, which lock
	// the hot rows until the commit: after them come only the events of
	// levels that go out of stock or come back, which few transactions
	// have.
	if err := ob.flush(ctx, tx); err != nil {
		return err
	}
	gives := map[stockade.Key]bool{} // levels that give stock: guarded
	for _, m := range ms {
		k := stockade.Key{SKU: m.SKU, Location: m.Location}
		gives[k] = gives[k] || m.Kind == stockade.MoveReserve || m.Kind == stockade.MoveCheckout
	}
	changes := levelChanges(ms)
	if p.locked {
		ls, err := tx.LevelUpdateMany(ctx, changes)
		if err != nil {
			return err
		}
		if len(ls) != len(changes) {
			// The rows are locked and were read under the lock: only a
			// store that does not lock could get here.
			return conflictf("%d of %d levels changed under the transaction's lock", len(changes)-len(ls), len(changes))
		}
		for i, l := range ls { // in key order, as changes
			ob.level("", l, changes[i].Delta, p.now)
		}
		return ob.flush(ctx, tx)
	}
	for _, ch := range changes {
		k := ch.Key
		var guard stockade.Guard
		if gives[k] {
			switch {
			case e.strat.versioned:
				ver := p.levels[k].Version
				guard.Version = &ver
			case e.strat.leases:
				guard.Fence = w.fences[k.SKU]
			}
		}
		l, ok, err := tx.LevelUpdate(ctx, k, ch.Delta, guard)
		if err != nil {
			return err
		}
		if ok {
			ob.level("", l, ch.Delta, p.now)
			continue
		}
		if e.strat.leases {
			ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
			if err != nil {
				return err
			}
			if len(ls) == 1 && ls[0].Fence > w.fences[k.SKU] {
				return conflictf("level %s: fencing token %d is older than the level's %d (the lease was lost)",
					k, w.fences[k.SKU], ls[0].Fence)
			}
		}
		// The level changed since it was read: allocate again from a
		// fresh read, in a new transaction.
		return conflictf("level %s changed since it was read", k)
	}
	return ob.flush(ctx, tx)
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
		locs, err := tx.LocationList(ctx, ids...)
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
			ls, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{sku}})
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
