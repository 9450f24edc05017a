package engine

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/stockade/stockade"
)

// Payments
//
// A client creates the payment of a held reservation or hold, or of a
// committed order; the payment system then reports its outcomes, at
// least once each and in any order, and each is applied once (the inbox,
// stockade.Tx.OutcomeInsert, written in the transaction of its effect).
// The first outcome that settles the payment confirms what it pays for,
// in the same transaction; the first that fails or cancels it gives that
// back (the saga's compensation). Every change takes the target's row
// first and then the payment's, in that order everywhere, so two
// outcomes of one payment, or an outcome and a client's call on its
// target, queue instead of deadlocking.
//
// While a payment is in flight its target does not expire (lapse.go:
// the one rule of lapse, which the stores only feed). The sweeper finds
// the ones still in flight Options.PaymentGrace after their target
// lapsed and marks them stuck, keeping the target, for a person or a late
// outcome to settle. A payment that settles after its target lapsed (it
// was still pending then, or the client let it go) takes the same stock
// or seats again if they are free, and is marked needs_refund if they
// are not: nothing is sold twice, and no payment is lost.

var _ stockade.PaymentService = (*Engine)(nil)

// target is what a payment pays for, as a transaction read it: one of
// a reservation, a hold or an order, by Kind.
type target struct {
	kind stockade.PaymentTargetKind
	res  stockade.Reservation
	hold stockade.Hold
	ord  stockade.Order
}

// lapses reports whether t is a held reservation or hold that has lapsed
// at now, its payment being in status.
func (t target) lapses(status stockade.PaymentStatus, now time.Time) bool {
	switch {
	case t.kind == stockade.PayReservation && t.res.Status == stockade.Held:
		return lapse{expiresAt: t.res.ExpiresAt, payment: status}.lapses(now)
	case t.kind == stockade.PayHold && t.hold.Status == stockade.HoldHeld:
		return lapse{expiresAt: t.hold.ExpiresAt, payment: status}.lapses(now)
	}
	return false
}

// readTarget reads t, locking its row with lock.
func readTarget(ctx context.Context, tx stockade.Tx, t stockade.PaymentTarget, lock bool) (target, error) {
	out := target{kind: t.Kind}
	var err error
	switch t.Kind {
	case stockade.PayReservation:
		out.res, err = tx.ReservationGet(ctx, stockade.ByID{ID: t.ID, Lock: lock})
	case stockade.PayHold:
		out.hold, err = tx.HoldGet(ctx, stockade.ByID{ID: t.ID, Lock: lock})
	case stockade.PayOrder:
		out.ord, err = tx.OrderGet(ctx, stockade.ByID{ID: t.ID, Lock: lock})
	default:
		err = t.Validate()
	}
	return out, err
}

func (t target) owner() string {
	switch t.kind {
	case stockade.PayReservation:
		return t.res.Owner
	case stockade.PayHold:
		return t.hold.Owner
	}
	return t.ord.Owner
}

// held reports whether t still holds its stock or seats (a reservation
// or hold that is held, lapsed or not), and when it lapses.
func (t target) held() (bool, time.Time) {
	switch t.kind {
	case stockade.PayReservation:
		return t.res.Status == stockade.Held, t.res.ExpiresAt
	case stockade.PayHold:
		return t.hold.Status == stockade.HoldHeld, t.hold.ExpiresAt
	}
	return false, time.Time{}
}

// payable says why t cannot be paid for at now, or nil if it can: a
// reservation or hold must be held and unlapsed, an order committed.
func (t target) payable(now time.Time) error {
	switch t.kind {
	case stockade.PayReservation:
		r := t.res
		switch {
		case r.Status == stockade.Confirmed:
			return refuse(stockade.EInvalidState, "reservation %q is confirmed (order %q): pay for the order instead", r.ID, r.OrderID)
		case r.Status == stockade.Released:
			return refuse(stockade.EInvalidState, "reservation %q is released, not held", r.ID)
		case r.Status != stockade.Held || r.ExpiresAt.Before(now):
			return expiredErr(r.ID, r.ExpiresAt)
		}
	case stockade.PayHold:
		h := t.hold
		switch {
		case h.Status == stockade.HoldHeld && h.ExpiresAt.Before(now), h.Status == stockade.HoldExpired:
			return holdExpired(h)
		case h.Status != stockade.HoldHeld:
			return refuse(stockade.EInvalidState, "hold %q is %s, not held", h.ID, h.Status)
		}
	case stockade.PayOrder:
		if t.ord.Status != stockade.Committed {
			return refuse(stockade.EInvalidState, "order %q is %s, not committed", t.ord.ID, t.ord.Status)
		}
	}
	return nil
}

// CreatePayment records the payment of a held reservation or hold, or a
// committed order, as pending. A target has one payment at most: a
// second is refused with EPaymentExists, naming the first. A target of
// another storefront is ENotFound; one that lapsed is refused with
// EReservationExpired or EHoldExpired, one in another status with
// EInvalidState. The payment belongs to its target's owner.
func (e *Engine) CreatePayment(ctx context.Context, req stockade.NewPaymentRequest, idem *stockade.Idempotency) (stockade.Payment, error) {
	return run(e, ctx, "create payment", idem, func(ctx context.Context, c *call) (stockade.Payment, error) {
		if err := req.Validate(); err != nil {
			return stockade.Payment{}, err
		}
		var p stockade.Payment
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			p, err = once(ctx, c, tx, func() (stockade.Payment, error) {
				now := e.now()
				t, err := readTarget(ctx, tx, req.Target, true)
				if err == nil && !c.actor.Sees(t.owner()) {
					err = refuse(stockade.ENotFound, "%s %q not found", req.Target.Kind, req.Target.ID)
				}
				if err != nil {
					return stockade.Payment{}, err
				}
				if err := t.payable(now); err != nil {
					return stockade.Payment{}, err
				}
				if first, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: req.Target}); err != nil || ok {
					if err == nil {
						err = refuse(stockade.EPaymentExists, "%s %q has a payment already: %s, %s", req.Target.Kind, req.Target.ID, first.ID, first.Status)
					}
					return stockade.Payment{}, err
				}
				p := stockade.Payment{ID: newID("pay"), Target: req.Target, Amount: req.Amount, Currency: req.Currency,
					Status: stockade.PaymentPending, CreatedAt: now, UpdatedAt: now, Version: 1, Owner: t.owner(), Metadata: req.Metadata}
				if err := tx.PaymentInsert(ctx, p); err != nil {
					return stockade.Payment{}, err
				}
				var ob outbox
				ob.payment(stockade.EventPaymentCreated, p, now)
				return p, ob.flush(ctx, tx)
			})
			return err
		})
		return p, err
	})
}

// Payment returns a payment. One of another storefront's targets is
// ENotFound.
func (e *Engine) Payment(ctx context.Context, id string) (stockade.Payment, error) {
	return run(e, ctx, "get payment", nil, func(ctx context.Context, c *call) (stockade.Payment, error) {
		if err := checkID("payment id", id); err != nil {
			return stockade.Payment{}, err
		}
		var p stockade.Payment
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			p, err = c.payment(ctx, tx, id, false)
			return err
		})
		return p, err
	})
}

// payment reads the payment id as reservation reads a reservation.
func (c *call) payment(ctx context.Context, tx stockade.Tx, id string, lock bool) (stockade.Payment, error) {
	p, err := tx.PaymentGet(ctx, stockade.ByID{ID: id, Lock: lock})
	if err == nil && !c.actor.Sees(p.Owner) {
		return stockade.Payment{}, refuse(stockade.ENotFound, "payment %q not found", id)
	}
	return p, err
}

// PaymentHistory returns the changes of a payment, oldest first.
func (e *Engine) PaymentHistory(ctx context.Context, id string) ([]stockade.PaymentChange, error) {
	return run(e, ctx, "payment history", nil, func(ctx context.Context, c *call) ([]stockade.PaymentChange, error) {
		if err := checkID("payment id", id); err != nil {
			return nil, err
		}
		var cs []stockade.PaymentChange
		err := c.view(ctx, func(tx stockade.Tx) error {
			if _, err := c.payment(ctx, tx, id, false); err != nil {
				return err
			}
			var err error
			cs, err = tx.PaymentChangeList(ctx, id)
			return err
		})
		return cs, err
	})
}

// ApplyOutcome applies what the payment system reports of a payment, as
// source ("webhook", "jetstream", or "" for the caller's key) tells it.
// An outcome whose event id was applied before changes nothing and
// returns the payment as it is now; so does one that is stale (the
// payment is in its status already, or past it: a "processing" after
// "succeeded"). One that contradicts the payment's status ("failed"
// after "succeeded") is refused with EInvalidState naming that status,
// and is not recorded. An unknown payment is ENotFound.
//
// The first outcome that settles the payment confirms its held
// reservation or hold (an order, a booking), lapsed or not, while it
// still holds its stock or seats; the first that fails or cancels it
// releases the reservation or hold, or cancels what it became or the
// order it pays for. Both happen in the transaction that records the
// outcome. A payment that settles after its target lapsed takes the same
// stock or seats again after that transaction (see Payment.Resolution).
func (e *Engine) ApplyOutcome(ctx context.Context, o stockade.PaymentOutcome, source string) (stockade.Payment, error) {
	return run(e, ctx, "apply payment outcome", nil, func(ctx context.Context, c *call) (stockade.Payment, error) {
		if err := o.Validate(); err != nil {
			return stockade.Payment{}, err
		}
		by := source
		if by == "" {
			by = c.actor.Name
		}
		oc := &outcomeCall{slot: slot{c: c}, o: o, by: by}
		if err := e.outcomes.apply(ctx, oc); err != nil {
			return stockade.Payment{}, err
		}
		if p := oc.p; p.Status.Settled() && p.Resolution == stockade.Unresolved {
			return e.reorder(ctx, p)
		}
		return oc.p, nil
	})
}

// CancelPayment cancels a payment that is pending or authorized (one
// that is processing can only fail or succeed, as the payment system
// decides), and gives back what it pays for as a failure does. Any other
// status is EInvalidState, naming it; a cancelled payment is returned
// as it is.
func (e *Engine) CancelPayment(ctx context.Context, id, reason string, idem *stockade.Idempotency) (stockade.Payment, error) {
	return run(e, ctx, "cancel payment", idem, func(ctx context.Context, c *call) (stockade.Payment, error) {
		if err := checkID("payment id", id); err != nil {
			return stockade.Payment{}, err
		}
		if err := stockade.ValidateText("reason", reason); err != nil {
			return stockade.Payment{}, err
		}
		var p stockade.Payment
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			p, err = once(ctx, c, tx, func() (stockade.Payment, error) {
				now := e.now()
				p, err := c.payment(ctx, tx, id, false)
				if err != nil {
					return p, err
				}
				t, err := readTarget(ctx, tx, p.Target, true)
				if err != nil {
					return p, err
				}
				if p, err = tx.PaymentGet(ctx, stockade.ByID{ID: id, Lock: true}); err != nil || p.Status == stockade.PaymentCancelled {
					return p, err
				}
				if err := p.Status.Move(stockade.PaymentCancelled); err != nil {
					return p, err
				}
				// A target that lapsed is expired first, as an outcome
				// finds it (see expireLapsed): not released.
				targets := map[stockade.PaymentTarget]target{p.Target: t}
				if err := e.expireLapsed(ctx, tx, targets, map[string]stockade.Payment{p.ID: p}, now); err != nil {
					return p, err
				}
				return p, e.movePayment(ctx, tx, &p, targets[p.Target], stockade.PaymentCancelled, c.actor.Name, reason, now)
			})
			return err
		})
		return p, err
	})
}

// movePayment moves p, whose row and whose target's row (t) tx holds,
// to status to, allowed from its status, for by and why; settles or
// gives back its target if the move is the first to decide it (see
// ApplyOutcome); and writes the payment, its history row and its events.
func (e *Engine) movePayment(ctx context.Context, tx stockade.Tx, p *stockade.Payment, t target, to stockade.PaymentStatus, by, why string, now time.Time) error {
	var ob outbox
	change, err := movePayment(ctx, tx, p, t, to, by, why, now, &ob)
	if err != nil {
		return err
	}
	if err := tx.PaymentChangeAppend(ctx, change); err != nil {
		return err
	}
	return ob.flush(ctx, tx)
}

// movePayment is the work of Engine.movePayment but for the history row,
// which it returns, and the events, which it adds to ob: a batch writes
// both for all its moves at once.
func movePayment(ctx context.Context, tx stockade.Tx, p *stockade.Payment, t target, to stockade.PaymentStatus, by, why string, now time.Time, ob *outbox) (stockade.PaymentChange, error) {
	change := stockade.PaymentChange{PaymentID: p.ID, From: p.Status, To: to, At: now, Actor: by, Reason: why}
	p.Status, p.UpdatedAt, p.Version = to, now, p.Version+1
	if p.Resolution == stockade.Unresolved {
		var err error
		switch {
		case to.Settled():
			err = settle(ctx, tx, p, t, by, now, ob)
		case to == stockade.PaymentFailed || to == stockade.PaymentCancelled:
			err = compensate(ctx, tx, p, t, by, now, ob)
		}
		if err != nil {
			return change, err
		}
		change.Resolution = p.Resolution
	}
	if ok, err := tx.PaymentUpdate(ctx, *p); err != nil || !ok {
		return change, statusErr(err, "payment", p.ID)
	}
	ob.payment(stockade.EventPaymentMoved, *p, now)
	if change.Resolution != stockade.Unresolved {
		ob.payment(stockade.EventPaymentResolved, *p, now)
	}
	return change, nil
}

// settle confirms what p, a payment that has just settled, pays for: a
// held reservation becomes an order, a held hold a booking (one that had
// lapsed was expired first: see expireLapsed). One its client confirmed
// already, or an order, resolves p at once; a reservation or hold that is
// no longer held leaves p unresolved, to be taken again (reorder), and a
// cancelled order marks it needs_refund.
func settle(ctx context.Context, tx stockade.Tx, p *stockade.Payment, t target, by string, now time.Time, ob *outbox) error {
	switch t.kind {
	case stockade.PayReservation:
		switch r := t.res; r.Status {
		case stockade.Held:
			if err := shift(ctx, tx, r.Allocations, stockade.MoveConfirm, ob, now); err != nil {
				return err
			}
			o, ms, err := confirmHeld(ctx, tx, r, by, ob, now)
			if err != nil {
				return err
			}
			if err := tx.OrderInsert(ctx, o); err != nil {
				return err
			}
			if err := tx.MovementAppend(ctx, ms...); err != nil {
				return err
			}
			p.Resolution, p.Order = stockade.ResolvedConfirmed, o.ID
		case stockade.Confirmed:
			p.Resolution, p.Order = stockade.ResolvedConfirmed, r.OrderID
		}
	case stockade.PayHold:
		switch h := t.hold; h.Status {
		case stockade.HoldHeld:
			bk := newBooking(h, now)
			if err := confirmHolds(ctx, tx, []stockade.Hold{h}, []stockade.Booking{bk}, []string{by}, now, ob); err != nil {
				return err
			}
			p.Resolution, p.Booking = stockade.ResolvedConfirmed, bk.ID
		case stockade.HoldConfirmed:
			p.Resolution, p.Booking = stockade.ResolvedConfirmed, h.BookingID
		}
	case stockade.PayOrder:
		if t.ord.Status == stockade.Cancelled {
			p.Resolution = stockade.ResolvedNeedsRefund
		} else {
			p.Resolution, p.Order = stockade.ResolvedConfirmed, t.ord.ID
		}
	}
	return nil
}

// compensate gives back what p, a payment that has just failed or been
// cancelled, pays for: a held reservation or hold is released; one that
// was confirmed meanwhile has its order or booking cancelled; an order is
// cancelled. One that lapsed or was released already needs nothing. A
// fulfilled order, or one that has shipped a part, cannot be undone: p
// stays unresolved, for a person.
func compensate(ctx context.Context, tx stockade.Tx, p *stockade.Payment, t target, by string, now time.Time, ob *outbox) error {
	var err error
	switch t.kind {
	case stockade.PayReservation:
		switch r := t.res; r.Status {
		case stockade.Held:
			err = releaseHeld(ctx, tx, r, by, now, ob)
		case stockade.Confirmed:
			var o stockade.Order
			if o, err = tx.OrderGet(ctx, stockade.ByID{ID: r.OrderID, Lock: true}); err == nil {
				err = cancelCommitted(ctx, tx, o, by, now, ob)
			}
		}
	case stockade.PayHold:
		switch h := t.hold; h.Status {
		case stockade.HoldHeld:
			err = settleHolds(ctx, tx, []stockade.Hold{h}, stockade.HoldReleased, nil, []string{by}, now, ob)
		case stockade.HoldConfirmed:
			var bk stockade.Booking
			if bk, err = tx.BookingGet(ctx, stockade.ByID{ID: h.BookingID, Lock: true}); err == nil && bk.Status == stockade.BookingBooked {
				err = cancelBooked(ctx, tx, bk, by, now, ob)
			}
		}
	case stockade.PayOrder:
		err = cancelCommitted(ctx, tx, t.ord, by, now, ob)
	}
	if errors.Is(err, errFulfilled) {
		return nil
	}
	if err == nil {
		p.Resolution = stockade.ResolvedReleased
	}
	return err
}

// errFulfilled: an order that compensation would cancel has left the
// warehouse, all of it or a part.
var errFulfilled = errors.New("engine: the order is fulfilled or partly shipped")

// cancelCommitted cancels o, whose row tx holds, if it is committed and
// has shipped nothing; a cancelled one needs nothing, and a fulfilled one,
// or a committed one that has shipped a part, is errFulfilled: what left
// cannot come back by itself, so a person settles the payment.
func cancelCommitted(ctx context.Context, tx stockade.Tx, o stockade.Order, by string, now time.Time, ob *outbox) error {
	switch {
	case o.Status == stockade.Cancelled:
		return nil
	case o.Status == stockade.Fulfilled, len(o.Shipped) > 0:
		return errFulfilled
	}
	_, err := cancel(ctx, tx, o, by, now, ob)
	return err
}

// reorder takes again what p, a payment that settled after its target
// had lapsed or been released, pays for: the reservation's lines as an
// order, or the hold's seats and places as a booking, in calls of the
// payment's owner under idempotency keys of the payment's, so that a
// second try (the sweeper's, after a crash) takes nothing twice. It then
// resolves p: reordered, or needs_refund if the stock or seats are gone.
// An error leaves p unresolved, for the sweeper to try again.
func (e *Engine) reorder(ctx context.Context, p stockade.Payment) (stockade.Payment, error) {
	actx := stockade.WithActor(ctx, stockade.Actor{KeyID: p.Owner, Name: "payment " + p.ID, Role: stockade.RoleAdmin})
	var (
		t   target
		err error
	)
	if err := e.store.View(ctx, func(tx stockade.Tx) (err error) {
		t, err = readTarget(ctx, tx, p.Target, false)
		return err
	}); err != nil {
		return p, err
	}
	resolved := p
	resolved.Resolution = stockade.ResolvedReordered
	switch t.kind {
	case stockade.PayReservation:
		var o stockade.Order
		o, err = e.Checkout(actx, stockade.ReserveRequest{Lines: t.res.Lines, Metadata: t.res.Metadata}, &stockade.Idempotency{Key: "payment " + p.ID})
		resolved.Order = o.ID
	case stockade.PayHold:
		var h stockade.Hold
		h, err = e.HoldSeats(actx, stockade.HoldRequest{ShowID: t.hold.ShowID, Seats: t.hold.Seats, Places: t.hold.Places, Metadata: t.hold.Metadata},
			&stockade.Idempotency{Key: "payment " + p.ID})
		if err == nil {
			var bk stockade.Booking
			bk, err = e.ConfirmHold(actx, h.ID, &stockade.Idempotency{Key: "payment " + p.ID + " confirm"})
			resolved.Booking = bk.ID
		}
	}
	switch stockade.ErrorCode(err) {
	case "":
	case stockade.EInsufficientStock, stockade.ESeatsUnavailable, stockade.ESoldOut, stockade.ENotFound:
		resolved.Resolution, resolved.Order, resolved.Booking = stockade.ResolvedNeedsRefund, "", ""
	default:
		return p, err
	}
	c := &call{e: e, op: "resolve payment"}
	err = c.update(ctx, func(tx stockade.Tx) error {
		now := e.now()
		if _, err := readTarget(ctx, tx, p.Target, true); err != nil {
			return err
		}
		cur, err := tx.PaymentGet(ctx, stockade.ByID{ID: p.ID, Lock: true})
		if err != nil || cur.Resolution != stockade.Unresolved {
			p = cur // another sweep resolved it first
			return err
		}
		p = cur
		p.Resolution, p.Order, p.Booking = resolved.Resolution, resolved.Order, resolved.Booking
		p.UpdatedAt, p.Version = now, p.Version+1
		if ok, err := tx.PaymentUpdate(ctx, p); err != nil || !ok {
			return statusErr(err, "payment", p.ID)
		}
		why := "settled after its " + string(p.Target.Kind) + " lapsed; taken again"
		if p.Resolution == stockade.ResolvedNeedsRefund {
			why = "settled after its " + string(p.Target.Kind) + " lapsed, and what it paid for is gone"
		}
		if err := tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: p.ID, From: p.Status, To: p.Status,
			Resolution: p.Resolution, At: now, Reason: why}); err != nil {
			return err
		}
		var ob outbox
		ob.payment(stockade.EventPaymentResolved, p, now)
		return ob.flush(ctx, tx)
	})
	return p, err
}

// sweepPayments marks stuck the payments still in flight
// Options.PaymentGrace after their targets lapsed, takes again what the
// payments that settled after their targets lapsed pay for (where a
// crash or a failure left them unresolved). It returns how many it
// marked stuck and how many it resolved.
func (e *Engine) sweepPayments(ctx context.Context, c *call) (stuck, resolved int, err error) {
	for {
		n := 0
		err := c.update(ctx, func(tx stockade.Tx) error {
			n = 0
			now := e.now()
			ps, err := stuckPayments(ctx, tx, now, e.opts.PaymentGrace, e.opts.SweepBatch)
			if err != nil {
				return err
			}
			var ob outbox
			for _, p := range ps {
				t, err := readTarget(ctx, tx, p.Target, true)
				if err != nil {
					return err
				}
				if p, err = tx.PaymentGet(ctx, stockade.ByID{ID: p.ID, Lock: true}); err != nil {
					return err
				}
				held, expires := t.held()
				if !held || !(lapse{expiresAt: expires, payment: p.Status, foundStuck: !p.StuckAt.IsZero()}).stuck(now, e.opts.PaymentGrace) {
					continue // it moved since it was listed
				}
				p.StuckAt, p.UpdatedAt, p.Version = now, now, p.Version+1
				if ok, err := tx.PaymentUpdate(ctx, p); err != nil || !ok {
					return statusErr(err, "payment", p.ID)
				}
				if err := tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: p.ID, From: p.Status, To: p.Status, At: now,
					Reason: "still " + string(p.Status) + " " + e.opts.PaymentGrace.String() + " after its " + string(p.Target.Kind) + " lapsed; kept for a person"}); err != nil {
					return err
				}
				ob.payment(stockade.EventPaymentStuck, p, now)
				n++
			}
			return ob.flush(ctx, tx)
		})
		if err != nil {
			return stuck, resolved, err
		}
		stuck += n
		if n < e.opts.SweepBatch {
			break
		}
	}
	var settled []stockade.Payment
	unresolved := stockade.Unresolved
	err = c.view(ctx, func(tx stockade.Tx) error {
		settled = nil
		for _, status := range []stockade.PaymentStatus{stockade.PaymentSucceeded, stockade.PaymentCaptured} {
			ps, err := tx.PaymentList(ctx, stockade.PaymentFilter{Status: status, Resolution: &unresolved, Limit: e.opts.SweepBatch})
			if err != nil {
				return err
			}
			settled = append(settled, ps...)
		}
		return nil
	})
	for _, p := range settled { // none if the view failed
		if _, err := e.reorder(ctx, p); err != nil {
			return stuck, resolved, err
		}
		resolved++
	}
	return stuck, resolved, err
}

// paymentCursorTag tags the cursors of payment lists (see listCursor).
const paymentCursorTag = 'p'

// Payments returns a page of payments, newest first; a storefront sees
// only those of its own reservations, holds and orders.
func (e *Engine) Payments(ctx context.Context, q stockade.PaymentQuery) (stockade.PaymentPage, error) {
	return run(e, ctx, "payments", nil, func(ctx context.Context, c *call) (stockade.PaymentPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.PaymentPage{}, err
		}
		at, id, err := parseListCursor(q.Cursor, paymentCursorTag)
		if err != nil {
			return stockade.PaymentPage{}, err
		}
		f := stockade.PaymentFilter{Status: q.Status, Stuck: q.Stuck, Metadata: q.Metadata, BeforeAt: at, BeforeID: id,
			Limit: cmp.Or(q.Limit, stockade.DefaultListLimit) + 1}
		switch q.Resolution {
		case "":
		case stockade.ResolutionUnresolved:
			f.Resolution = ptr(stockade.Unresolved)
		default:
			f.Resolution = ptr(stockade.PaymentResolution(q.Resolution))
		}
		if c.actor.Role == stockade.RoleStorefront {
			f.Owner = c.actor.KeyID
		}
		var ps []stockade.Payment
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			ps, err = tx.PaymentList(ctx, f)
			return err
		})
		if err != nil {
			return stockade.PaymentPage{}, err
		}
		page := stockade.PaymentPage{Payments: ps}
		page.Payments, page.Next = cutPage(ps, f.Limit-1, paymentCursorTag, func(x stockade.Payment) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}

// refuseInFlight refuses, with EPaymentInFlight, to give back t, a held
// reservation or hold whose row the transaction holds, while its payment
// is processing or authorized: the payment system may still settle it,
// and the buyer would be charged for stock or seats sold to someone else
// meanwhile. An authorized payment can be cancelled first; a processing
// one only ends with its outcome. A pending payment has reached no
// payment system: the target goes back as ever.
func refuseInFlight(ctx context.Context, tx stockade.Tx, t stockade.PaymentTarget) error {
	p, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: t})
	switch {
	case err != nil || !ok:
		return err
	case p.Status == stockade.PaymentAuthorized:
		return refuse(stockade.EPaymentInFlight, "%s %q has payment %q, which is authorized: cancel the payment first (POST /v1/payments/%s/cancel), which releases it", t.Kind, t.ID, p.ID, p.ID)
	case p.Status == stockade.PaymentProcessing:
		return refuse(stockade.EPaymentInFlight, "%s %q has payment %q, which is processing: the payment system may still settle it, so wait for its outcome", t.Kind, t.ID, p.ID)
	}
	return nil
}
