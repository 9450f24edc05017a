package engine

import (
	"context"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// Lapse
//
// A held reservation or hold lapses once it has expired, unless its
// payment is in flight: a payment that is processing or authorized
// (stockade.PaymentStatus.InFlight) keeps its target held until it
// settles, found stuck or not. Such a payment is stuck once it is still
// in flight Options.PaymentGrace after its target expired; the sweeper
// marks it so, once, and keeps the target for a person or a late outcome.
//
// That rule is lapse's two methods, and only there. The stores return
// candidates (held reservations and holds past their expiry, each with
// its payment's status; payments of such targets, with the target's
// expiry) and the functions below decide which of them lapse.
// Because the store no longer leaves the kept ones out, a limit counts
// candidates, not lapses: pageLapsed reads page after page, each after
// the last candidate of the one before, so any number of kept candidates
// in front of a lapsed one never hides it.
//
// A request reads the candidates in its path without locks, and locks
// only those that lapse, deciding again once it has them: a reservation
// or hold that its payment keeps past its expiry is never locked by the
// requests for its stock or its show's seats. A sweeper locks the
// candidates it reads (skipping those others have locked), so each sweep
// reads the kept candidates again before the lapsed ones behind them.

// lapse is what the rule of lapse reads of a held reservation or hold.
type lapse struct {
	// expiresAt is when the target expires.
	expiresAt time.Time
	// payment is the status of its payment, "" if it has none.
	payment stockade.PaymentStatus
	// foundStuck: its payment was found stuck already.
	foundStuck bool
}

// lapses reports whether the target has lapsed at now: it expired
// strictly before now and its payment, if any, is not in flight.
func (l lapse) lapses(now time.Time) bool {
	return l.expiresAt.Before(now) && !l.payment.InFlight()
}

// stuck reports whether the target's payment is stuck at now and is not
// known to be: still in flight though the target expired strictly more
// than grace before now.
func (l lapse) stuck(now time.Time, grace time.Duration) bool {
	return l.payment.InFlight() && !l.foundStuck && l.expiresAt.Before(now.Add(-grace))
}

// candidate is a lapse candidate of target type T, as pageLapsed reads
// it: the target, what the rule reads of it, and its place in the order
// of candidates.
type candidate[T any] struct {
	target T
	lapse  lapse
	at     stockade.LapseCursor
}

// pageLapsed returns the targets of the candidates that decide keeps, at
// most limit of them (all of them for limit ≤ 0), in candidate order. It
// reads the candidates with page, limit at a time, each page after the
// last candidate of the one before, until it has limit targets or a page
// comes back short.
func pageLapsed[T any](limit int, page func(after stockade.LapseCursor) ([]candidate[T], error), decide func(lapse) bool) ([]T, error) {
	var out []T
	var after stockade.LapseCursor
	for {
		cs, err := page(after)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !decide(c.lapse) {
				continue
			}
			if out = append(out, c.target); len(out) == limit {
				return out, nil
			}
		}
		if limit <= 0 || len(cs) < limit {
			return out, nil
		}
		after = cs[len(cs)-1].at
	}
}

// lapsedReservations returns the held reservations that have lapsed at
// now, at most limit of them (all for limit ≤ 0), locked until the
// transaction ends. Without keys (a sweeper) they come oldest expiry
// first, locked as Tx.ReservationLapseCandidates locks them, and so are
// the candidates read and kept. With keys (a request that needs the stock
// on them) the candidates are read without locks and only those that
// lapse are locked, in id order, and decided again once they are (see
// relock): a reservation kept by its payment is never locked.
func lapsedReservations(ctx context.Context, tx stockade.Tx, now time.Time, keys []stockade.Key, limit int) ([]stockade.Reservation, error) {
	rs, err := pageLapsed(limit, func(after stockade.LapseCursor) ([]candidate[stockade.Reservation], error) {
		cs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, Keys: keys, After: after, Limit: limit})
		out := make([]candidate[stockade.Reservation], len(cs))
		for i, c := range cs {
			r := c.Reservation
			out[i] = candidate[stockade.Reservation]{r, lapse{expiresAt: r.ExpiresAt, payment: c.Payment}, stockade.LapseCursor{ExpiresAt: r.ExpiresAt, ID: r.ID}}
		}
		return out, err
	}, func(l lapse) bool { return l.lapses(now) })
	if err != nil || len(keys) == 0 || len(rs) == 0 {
		return rs, err
	}
	return relock(ctx, tx, rs, now, stockade.PayReservation, func(r stockade.Reservation) (string, bool, time.Time) {
		return r.ID, r.Status == stockade.Held, r.ExpiresAt
	}, func(ids []string) ([]stockade.Reservation, error) {
		return tx.ReservationGetMany(ctx, stockade.ByIDs{IDs: ids, Lock: true})
	})
}

// relock locks ts, reservations or holds (targets of kind) read without
// locks that had lapsed at now, with lock, which reads them again with
// their rows locked, in id order; and returns those that still have once
// they are locked: still held (a sweeper may have expired one meanwhile),
// and lapsed by their payment as it is now. A payment moves only under its
// target's row lock, so what it is once the row is locked holds until the
// transaction ends. of tells a target's id, whether it is held, and when
// it expires.
func relock[T any](ctx context.Context, tx stockade.Tx, ts []T, now time.Time, kind stockade.PaymentTargetKind,
	of func(T) (id string, held bool, expiresAt time.Time), lock func(ids []string) ([]T, error)) ([]T, error) {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i], _, _ = of(t)
	}
	slices.Sort(ids)
	locked, err := lock(slices.Compact(ids))
	if err != nil {
		return nil, err
	}
	var out []T
	for _, t := range locked {
		id, held, expiresAt := of(t)
		if !held {
			continue
		}
		gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: kind, ID: id}, expiresAt, now)
		if err != nil {
			return nil, err
		}
		if gone {
			out = append(out, t)
		}
	}
	return out, nil
}

// someLapseCandidate returns one held reservation that expired before
// now, lapsed or kept, if there is any: a probe that spares the search by
// keys when there is none.
func someLapseCandidate(ctx context.Context, tx stockade.Tx, now time.Time) ([]stockade.ReservationLapseCandidate, error) {
	return tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, Limit: 1})
}

// lapsedHolds returns the held holds that have lapsed at now, at most
// limit of them (all for limit ≤ 0), locked until the transaction ends.
// Without a show (a sweeper) they come oldest expiry first, locked as
// BookingTx.HoldLapseCandidates locks them, and so are the candidates
// read and kept; with showID, the show's, read without locks, and only
// those that lapse are locked and decided again, as lapsedReservations
// does with keys.
func lapsedHolds(ctx context.Context, tx stockade.Tx, now time.Time, showID string, limit int) ([]stockade.Hold, error) {
	hs, err := pageLapsed(limit, func(after stockade.LapseCursor) ([]candidate[stockade.Hold], error) {
		cs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, ShowID: showID, After: after, Limit: limit})
		out := make([]candidate[stockade.Hold], len(cs))
		for i, c := range cs {
			h := c.Hold
			out[i] = candidate[stockade.Hold]{h, lapse{expiresAt: h.ExpiresAt, payment: c.Payment}, stockade.LapseCursor{ExpiresAt: h.ExpiresAt, ID: h.ID}}
		}
		return out, err
	}, func(l lapse) bool { return l.lapses(now) })
	if err != nil || showID == "" || len(hs) == 0 {
		return hs, err
	}
	return relock(ctx, tx, hs, now, stockade.PayHold, func(h stockade.Hold) (string, bool, time.Time) {
		return h.ID, h.Status == stockade.HoldHeld, h.ExpiresAt
	}, func(ids []string) ([]stockade.Hold, error) {
		return tx.HoldGetMany(ctx, stockade.ByIDs{IDs: ids, Lock: true})
	})
}

// stuckPayments returns the payments that are stuck at now with grace,
// by their targets' expiry, at most limit of them (all for limit ≤ 0).
// Nothing is locked: lock the target, then the payment, and check again.
func stuckPayments(ctx context.Context, tx stockade.Tx, now time.Time, grace time.Duration, limit int) ([]stockade.Payment, error) {
	return pageLapsed(limit, func(after stockade.LapseCursor) ([]candidate[stockade.Payment], error) {
		cs, err := tx.PaymentLapseCandidates(ctx, stockade.PaymentLapseQuery{TargetExpiredBefore: now.Add(-grace), After: after, Limit: limit})
		out := make([]candidate[stockade.Payment], len(cs))
		for i, c := range cs {
			p := c.Payment
			l := lapse{expiresAt: c.TargetExpiresAt, payment: p.Status, foundStuck: !p.StuckAt.IsZero()}
			out[i] = candidate[stockade.Payment]{p, l, stockade.LapseCursor{ExpiresAt: c.TargetExpiresAt, ID: p.ID}}
		}
		return out, err
	}, func(l lapse) bool { return l.stuck(now, grace) })
}

// lapsed reports whether t, a held reservation or hold that expires at
// expiresAt, has lapsed at now (see lapse). It reads t's payment only
// once t has expired.
func lapsed(ctx context.Context, tx stockade.Tx, t stockade.PaymentTarget, expiresAt, now time.Time) (bool, error) {
	if !expiresAt.Before(now) {
		return false, nil
	}
	l := lapse{expiresAt: expiresAt}
	p, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: t})
	if ok {
		l.payment = p.Status
	}
	return l.lapses(now), err
}
