package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/stockade/stockade"
)

// Sweep expires every held reservation and hold of seats that has
// lapsed, in transactions of Options.SweepBatch, but those whose payment
// is in flight; purges idempotency records older than
// Options.IdempotencyTTL; prunes events older than
// Options.EventRetention, SweepBatch at a time; and looks after payments:
// it marks stuck those still in flight Options.PaymentGrace after their
// target lapsed, resolves those that settled after it lapsed and were
// left unresolved, and purges the inbox (see the package's payments). It
// returns how many reservations and holds it expired, and reports the
// run to Options.Observer as a CallReport of Op "sweep" with how many
// reservations it expired, records it purged, events it pruned and
// payments it found stuck.
//
// A batch counts the reservations, holds or payments the rule of lapse
// (see lapse) picks, not the candidates the store returns: a transaction
// reads past those it keeps, however many come first, to the lapsed ones
// behind them. On a store with SkipLocked (PostgreSQL) sweepers on many
// instances take disjoint batches and never wait for each other nor for a
// request that is expiring the same reservations itself.
func (e *Engine) Sweep(ctx context.Context) (expired int, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "sweep", start: time.Now(), actor: stockade.System}
	expired, purged, pruned, err := e.sweep(ctx, c)
	stuck := 0
	if err == nil {
		stuck, _, err = e.sweepPayments(ctx, c)
	}
	err = c.classify(ctx, err)
	if obs := e.opts.Observer; obs != nil {
		obs(CallReport{Op: c.op, Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries,
			Duration: time.Since(c.start), Expired: expired, Purged: purged, Pruned: pruned, Stuck: stuck})
	}
	return expired, err
}

// sweep is the work of Sweep: it returns how many reservations it
// expired, how many idempotency records it purged and how many events it
// pruned.
func (e *Engine) sweep(ctx context.Context, c *call) (expired, purged, pruned int, err error) {
	for {
		n := 0
		err := c.update(ctx, func(tx stockade.Tx) error {
			now := e.now()
			rs, err := lapsedReservations(ctx, tx, now, nil, e.opts.SweepBatch)
			if err != nil {
				return err
			}
			n = len(rs)
			return e.expire(ctx, tx, rs, now)
		})
		if err != nil {
			return expired, 0, 0, err
		}
		expired += n
		if n < e.opts.SweepBatch {
			break
		}
	}
	n, err := e.sweepHolds(ctx, c)
	expired += n
	if err != nil {
		return expired, 0, 0, err
	}
	err = c.update(ctx, func(tx stockade.Tx) error {
		n, err := tx.IdempotencyPurge(ctx, e.now().Add(-e.opts.IdempotencyTTL))
		purged = n
		if err != nil {
			return err
		}
		_, err = tx.OutcomePurge(ctx, e.now().Add(-e.opts.OutcomeRetention))
		return err
	})
	if err != nil {
		return expired, purged, 0, err
	}
	// Small batches, each committed: a large backlog never holds one
	// long transaction, and a sweep cut short keeps what it pruned.
	// Finished webhook deliveries go after as long as events do.
	before := e.now().Add(-e.opts.EventRetention)
	pruned, err = e.prune(ctx, c, func(tx stockade.Tx) (int, error) { return tx.EventPrune(ctx, before, e.opts.SweepBatch) })
	if err == nil {
		_, err = e.prune(ctx, c, func(tx stockade.Tx) (int, error) {
			return tx.WebhookDeliveryPrune(ctx, before, e.opts.SweepBatch)
		})
	}
	return expired, purged, pruned, err
}

// prune runs batch, each run its own transaction, until a run deletes
// fewer than Options.SweepBatch rows, and returns how many they deleted.
func (e *Engine) prune(ctx context.Context, c *call, batch func(tx stockade.Tx) (int, error)) (int, error) {
	total := 0
	for {
		n := 0
		err := c.write(ctx, func(tx stockade.Tx) (err error) {
			n, err = batch(tx)
			return err
		})
		total += n
		if err != nil || n < e.opts.SweepBatch {
			return total, err
		}
	}
}

// RunSweeper calls Sweep at once and then every interval (a second if
// interval is not positive) until ctx ends. Errors are logged, and the
// next tick tries again. Each run reaches Options.Observer as a CallReport of
// Op "sweep", which is where its metrics come from.
func (e *Engine) RunSweeper(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := e.Sweep(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			e.log.Error("engine: sweep", "expired", n, "err", err)
		case n > 0:
			e.log.Debug("engine: sweep", "expired", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// expire gives back the stock of rs, held reservations that lapsed and
// whose rows the transaction holds, and marks them expired, with their
// ledger rows. Levels are written in key order.
func (e *Engine) expire(ctx context.Context, tx stockade.Tx, rs []stockade.Reservation, now time.Time) error {
	if len(rs) == 0 {
		return nil
	}
	var allocs []stockade.Allocation
	for _, r := range rs {
		allocs = append(allocs, r.Allocations...)
	}
	var ob outbox
	if err := shift(ctx, tx, allocs, stockade.MoveExpire, &ob, now); err != nil {
		return err
	}
	ms, err := e.markExpired(ctx, tx, rs, &ob, now)
	if err != nil {
		return err
	}
	if err := ob.flush(ctx, tx); err != nil {
		return err
	}
	return tx.MovementAppend(ctx, ms...)
}

// markExpired marks rs expired, adds their events to ob, and returns
// their ledger rows, for the caller to append once it has given their
// stock back.
func (e *Engine) markExpired(ctx context.Context, tx stockade.Tx, rs []stockade.Reservation, ob *outbox, now time.Time) ([]stockade.Movement, error) {
	var ms []stockade.Movement
	for _, r := range rs {
		ok, err := tx.ReservationSetStatus(ctx, r.ID, stockade.Held, stockade.Expired, "")
		if err != nil || !ok {
			return nil, statusErr(err, "reservation", r.ID)
		}
		r.Status = stockade.Expired
		ob.reservation(stockade.EventReservationExpired, r, now)
		reason := fmt.Sprintf("expired at %s", r.ExpiresAt.Format(time.RFC3339Nano))
		ms = append(ms, movements(r.Allocations, stockade.MoveExpire, r.ID, reason, "", now)...)
	}
	return ms, nil
}

// sweepHolds expires lapsed holds, Options.SweepBatch per transaction,
// and returns how many.
func (e *Engine) sweepHolds(ctx context.Context, c *call) (expired int, err error) {
	for {
		n := 0
		err := c.update(ctx, func(tx stockade.Tx) error {
			now := e.now()
			hs, err := lapsedHolds(ctx, tx, now, "", e.opts.SweepBatch)
			if err != nil {
				return err
			}
			n = len(hs)
			return e.expireHolds(ctx, tx, hs, now)
		})
		if err != nil {
			return expired, err
		}
		expired += n
		if n < e.opts.SweepBatch {
			return expired, nil
		}
	}
}
