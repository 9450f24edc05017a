package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// outcomeCall is one ApplyOutcome call in its lane.
type outcomeCall struct {
	slot
	o  stockade.PaymentOutcome
	by string

	p stockade.Payment // the call's result, set by decideOutcomes
}

// outcomeTxn runs the transaction that decides batch (decideOutcomes),
// retried whole on conflicts.
//
// A payment system reports many payments at once (the consumer's workers
// apply its messages concurrently): under the Batch strategy, one
// transaction decides all that arrived while the last ran, paying one
// commit and reading, locking and recording for all of them in bulk.
func (e *Engine) outcomeTxn(ctx context.Context, c *call, batch []*outcomeCall) error {
	return c.update(ctx, func(tx stockade.Tx) error { return e.decideOutcomes(ctx, tx, batch) })
}

// decideOutcomes is the body of ApplyOutcome: one attempt of the
// transaction that decides a batch of outcomes, or one alone. It records the
// outcomes' ids in the inbox in one statement (in id order, so that
// batches that overlap wait for each other in one order), reads their
// payments, locks the payments' targets and then the payments, each kind
// in id order, and decides each new outcome in arrival order on the
// payment as the outcomes before it in the batch left it. An outcome it refuses is taken out of the
// inbox again; one recorded before is answered with its payment. The
// history rows and the events of the batch are written at once.
func (e *Engine) decideOutcomes(ctx context.Context, tx stockade.Tx, batch []*outcomeCall) error {
	now := e.now()
	first := map[string]int{} // by event id: the first call that carries it
	var recs []stockade.OutcomeRecord
	for i, oc := range batch {
		oc.reset() // a retried attempt starts afresh
		oc.p = stockade.Payment{}
		if _, ok := first[oc.o.EventID]; !ok {
			first[oc.o.EventID] = i
			recs = append(recs, stockade.OutcomeRecord{EventID: oc.o.EventID, PaymentID: oc.o.PaymentID})
		}
	}
	slices.SortFunc(recs, func(a, b stockade.OutcomeRecord) int { return strings.Compare(a.EventID, b.EventID) })
	freshIDs, err := tx.OutcomeInsert(ctx, recs, now)
	if err != nil {
		return err
	}
	fresh := map[string]bool{}
	for _, id := range freshIDs {
		fresh[id] = true
	}

	// The payments as they were, and the targets of those with new
	// outcomes, locked; then those payments, locked.
	read, err := tx.PaymentGetMany(ctx, stockade.ByIDs{IDs: paymentIDs(batch, nil)})
	if err != nil {
		return err
	}
	payments := map[string]stockade.Payment{}
	for _, p := range read {
		payments[p.ID] = p
	}
	targets, err := lockTargets(ctx, tx, batch, fresh, payments, now)
	if err != nil {
		return err
	}
	locked, err := tx.PaymentGetMany(ctx, stockade.ByIDs{IDs: paymentIDs(batch, fresh), Lock: true})
	if err != nil {
		return err
	}
	for _, p := range locked {
		payments[p.ID] = p
	}
	if err := e.expireLapsed(ctx, tx, targets, payments, now); err != nil {
		return err
	}

	var (
		ob      outbox
		changes []stockade.PaymentChange
		forget  []string
		orders  []stockade.Order    // of the reservations confirmed in bulk
		rows    []stockade.Movement // their ledger rows
	)
	for i, oc := range batch {
		if j := first[oc.o.EventID]; j != i {
			continue // answered below, as the call before it with its id
		}
		p, ok := payments[oc.o.PaymentID]
		switch {
		case !ok:
			oc.err = refuse(stockade.ENotFound, "payment %q not found", oc.o.PaymentID)
		case !fresh[oc.o.EventID]:
			oc.replayed = true
		default:
			effect, err := p.Status.Outcome(oc.o.Status)
			var refusal *stockade.Error
			switch {
			case err != nil && errors.As(err, &refusal) && refusal.Code == stockade.EInvalidState:
				// It contradicts what the payment system said before
				// ("failed" after "succeeded"). It changes nothing, but
				// the history says it came, and its event id is kept: a
				// delivery again is a replay, not a second refusal.
				changes = append(changes, stockade.PaymentChange{
					PaymentID: p.ID, From: p.Status, To: p.Status, At: now, Actor: oc.by,
					Reason: fmt.Sprintf("ignored outcome %s (event %s): %s", oc.o.Status, oc.o.EventID, refusal.Message),
				})
				oc.err = &stockade.IgnoredOutcome{Err: refusal}
				continue
			case err != nil:
				oc.err = err
			case effect == stockade.OutcomeApply:
				var change stockade.PaymentChange
				t := targets[p.Target]
				if t.kind == stockade.PayReservation && t.res.Status == stockade.Held && oc.o.Status.Settled() && p.Resolution == stockade.Unresolved {
					// The common case, a paid reservation: its order, its
					// ledger rows and its levels are written with the
					// batch's.
					var (
						o  stockade.Order
						ms []stockade.Movement
					)
					o, ms, change, err = confirmPaid(ctx, tx, &p, t.res, oc.o, oc.by, now, &ob)
					orders, rows = append(orders, o), append(rows, ms...)
				} else {
					change, err = movePayment(ctx, tx, &p, t, oc.o.Status, oc.by, oc.o.Reason, now, &ob)
				}
				if err != nil {
					return err
				}
				changes = append(changes, change)
				payments[p.ID] = p
			}
		}
		if oc.err != nil && fresh[oc.o.EventID] {
			forget = append(forget, oc.o.EventID)
		}
	}
	if len(forget) > 0 {
		if _, err := tx.OutcomeDelete(ctx, forget); err != nil {
			return err
		}
	}
	if len(orders) > 0 {
		if err := tx.OrderInsert(ctx, orders...); err != nil {
			return err
		}
		if err := tx.MovementAppend(ctx, rows...); err != nil {
			return err
		}
		levels := levelChanges(rows)
		ls, err := tx.LevelUpdateMany(ctx, levels)
		if err != nil {
			return err
		}
		if len(ls) != len(levels) {
			return fmt.Errorf("engine: %d of %d levels refused the confirms of paid reservations: their counters do not cover the reservations that hold them", len(levels)-len(ls), len(levels))
		}
		for i, l := range ls {
			ob.level("", l, levels[i].Delta, now)
		}
	}
	if len(changes) > 0 {
		if err := tx.PaymentChangeAppend(ctx, changes...); err != nil {
			return err
		}
	}
	if err := ob.flush(ctx, tx); err != nil {
		return err
	}
	// Every call answers with its payment as the batch leaves it.
	for i, oc := range batch {
		if j := first[oc.o.EventID]; j != i {
			oc.err, oc.replayed = batch[j].err, batch[j].err == nil
		}
		var ignored *stockade.IgnoredOutcome
		switch {
		case oc.err == nil:
			oc.p = payments[oc.o.PaymentID]
		case errors.As(oc.err, &ignored):
			oc.err = &stockade.IgnoredOutcome{Payment: payments[oc.o.PaymentID], Err: ignored.Err}
		}
	}
	return nil
}

// confirmPaid is movePayment of p, whose first settling outcome o is,
// for a batch, where p's target is r, a held reservation: it confirms r
// and returns its order and the order's ledger rows, for the batch to
// insert and to move the levels of, and p's history row.
func confirmPaid(ctx context.Context, tx stockade.Tx, p *stockade.Payment, r stockade.Reservation, o stockade.PaymentOutcome, by string, now time.Time, ob *outbox) (stockade.Order, []stockade.Movement, stockade.PaymentChange, error) {
	change := stockade.PaymentChange{PaymentID: p.ID, From: p.Status, To: o.Status, At: now, Actor: by, Reason: o.Reason}
	ord, ms, err := confirmHeld(ctx, tx, r, by, ob, now)
	if err != nil {
		return ord, ms, change, err
	}
	p.Status, p.UpdatedAt, p.Version = o.Status, now, p.Version+1
	p.Resolution, p.Order = stockade.ResolvedConfirmed, ord.ID
	change.Resolution = p.Resolution
	if ok, err := tx.PaymentUpdate(ctx, *p); err != nil || !ok {
		return ord, ms, change, statusErr(err, "payment", p.ID)
	}
	ob.payment(stockade.EventPaymentMoved, *p, now)
	ob.payment(stockade.EventPaymentResolved, *p, now)
	return ord, ms, change, nil
}

// paymentIDs returns the distinct payment ids of the calls of batch, in
// id order: all of them with fresh nil, else those of the calls whose
// outcome is fresh.
func paymentIDs(batch []*outcomeCall, fresh map[string]bool) []string {
	var ids []string
	for _, oc := range batch {
		if fresh == nil || fresh[oc.o.EventID] {
			ids = append(ids, oc.o.PaymentID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// lockTargets locks the targets of the payments of the fresh outcomes of
// batch, each kind in id order (reservations, holds, then orders), and
// then the stock levels of the reservations and orders whose outcomes
// may move stock (those that settle, fail or cancel, and any of a
// reservation that has lapsed at now, which expireLapsed expires), in key
// order; it returns the targets by target.
func lockTargets(ctx context.Context, tx stockade.Tx, batch []*outcomeCall, fresh map[string]bool, payments map[string]stockade.Payment, now time.Time) (map[stockade.PaymentTarget]target, error) {
	ids := map[stockade.PaymentTargetKind][]string{}
	for _, pid := range paymentIDs(batch, fresh) {
		if p, ok := payments[pid]; ok {
			ids[p.Target.Kind] = append(ids[p.Target.Kind], p.Target.ID)
		}
	}
	out := map[stockade.PaymentTarget]target{}
	for _, kind := range []stockade.PaymentTargetKind{stockade.PayReservation, stockade.PayHold, stockade.PayOrder} {
		list := ids[kind]
		slices.Sort(list)
		switch kind {
		case stockade.PayReservation:
			rs, err := tx.ReservationGetMany(ctx, stockade.ByIDs{IDs: list, Lock: true})
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				out[stockade.PaymentTarget{Kind: kind, ID: r.ID}] = target{kind: kind, res: r}
			}
		case stockade.PayHold:
			hs, err := tx.HoldGetMany(ctx, stockade.ByIDs{IDs: list, Lock: true})
			if err != nil {
				return nil, err
			}
			for _, h := range hs {
				out[stockade.PaymentTarget{Kind: kind, ID: h.ID}] = target{kind: kind, hold: h}
			}
		default:
			for _, id := range list {
				o, err := tx.OrderGet(ctx, stockade.ByID{ID: id, Lock: true})
				if err != nil {
					return nil, err
				}
				out[stockade.PaymentTarget{Kind: kind, ID: id}] = target{kind: kind, ord: o}
			}
		}
	}
	moves := map[string]bool{} // payments whose outcomes may move stock
	for _, oc := range batch {
		if s := oc.o.Status; fresh[oc.o.EventID] && (s.Settled() || s == stockade.PaymentFailed || s == stockade.PaymentCancelled) {
			moves[oc.o.PaymentID] = true
		}
	}
	var keys []stockade.Key
	for _, pid := range paymentIDs(batch, fresh) {
		p, ok := payments[pid]
		if !ok {
			continue
		}
		t, ok := out[p.Target]
		if !ok {
			return nil, fmt.Errorf("engine: %s of payment %s is missing", p.Target, p.ID)
		}
		if !moves[pid] && !t.lapses(p.Status, now) {
			continue
		}
		allocs := t.res.Allocations
		if t.kind == stockade.PayOrder {
			allocs = t.ord.Allocations
		}
		for _, a := range allocs {
			keys = append(keys, a.Key())
		}
	}
	// The levels the outcomes may move, locked in key order as every
	// batch locks them: moved one outcome at a time, in arrival order,
	// they would be locked in any order, and batches that lock them in
	// key order would wait for this one in a cycle.
	slices.SortFunc(keys, stockade.Key.Compare)
	if keys = slices.Compact(keys); len(keys) > 0 {
		if _, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: keys, Lock: true}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// expireLapsed expires the held reservations and holds among targets that
// have lapsed at now (see lapse), by the status of their payments before
// the batch's outcomes, as the sweeper would have: an outcome then finds
// its target as a read showed it, expired. One that settles the payment
// leaves it to be taken again (reorder), never confirming what a client
// was told had expired.
func (e *Engine) expireLapsed(ctx context.Context, tx stockade.Tx, targets map[stockade.PaymentTarget]target, payments map[string]stockade.Payment, now time.Time) error {
	var (
		rs []stockade.Reservation
		hs []stockade.Hold
	)
	for _, p := range payments {
		t, ok := targets[p.Target]
		if !ok || !t.lapses(p.Status, now) {
			continue
		}
		switch t.kind {
		case stockade.PayReservation:
			rs = append(rs, t.res)
			t.res.Status = stockade.Expired
		case stockade.PayHold:
			hs = append(hs, t.hold)
			t.hold.Status = stockade.HoldExpired
		}
		targets[p.Target] = t
	}
	slices.SortFunc(rs, func(a, b stockade.Reservation) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(hs, func(a, b stockade.Hold) int { return strings.Compare(a.ID, b.ID) })
	if err := e.expire(ctx, tx, rs, now); err != nil {
		return err
	}
	if len(hs) == 0 {
		return nil
	}
	return e.expireHolds(ctx, tx, hs, now)
}
