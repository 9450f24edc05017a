package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/stockade/stockade"
)

// claim is a call's hold on an idempotency key: the in-flight record it
// wrote, told apart from a later claimer's by a random nonce kept in the
// record's body while it is in flight.
type claim struct {
	idem  *stockade.Idempotent
	nonce []byte
}

// idempotent runs fn as an idempotent call under idem:
//
//  1. claim the key in a transaction of its own: a done record of the
//     same request is returned as a *stockade.Replay, one of another
//     request is EIdempotencyMismatch, a fresh in-flight one is
//     EIdempotencyInFlight, and one older than Options.InFlightTimeout is
//     taken over (its request presumably died);
//  2. run fn, whose successful transaction calls call.done to store the
//     rendered result in the same commit as the effect, after checking
//     that the claim is still this call's;
//  3. if fn is refused (EInvalid, ENotFound, EInsufficientStock,
//     EVersionConflict, EReservationExpired), store the rendered refusal
//     in a transaction of its own, so a retry replays it; if it fails
//     otherwise, delete the claim, so the client may retry.
//
// Calls that the Batch strategy decides need no claim: see batched.
func idempotent[T any](ctx context.Context, c *call, idem *stockade.Idempotent, fn func(ctx context.Context, c *call) (T, error)) (T, error) {
	var zero T
	if err := c.claimKey(ctx, idem); err != nil {
		return zero, c.classify(ctx, err)
	}
	v, err := fn(ctx, c)
	if err = c.classify(ctx, err); err == nil {
		return v, nil
	}
	// The outcome must be recorded even when ctx has ended.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if refused(err) {
		status, body := idem.Render(nil, err)
		if rerr := c.settle(wctx, &status, body); rerr != nil {
			c.e.log.Error("engine: record refused idempotent request", "op", c.op, "key", idem.Key, "err", rerr)
		}
	} else if rerr := c.settle(wctx, nil, nil); rerr != nil {
		c.e.log.Error("engine: drop claim of failed idempotent request", "op", c.op, "key", idem.Key, "err", rerr)
	}
	return zero, err
}

// refused reports whether err is a refusal that a retry of the same
// request would meet again, and so is recorded for replay.
func refused(err error) bool {
	switch stockade.ErrorCode(err) {
	case stockade.EInvalid, stockade.ENotFound, stockade.EInsufficientStock,
		stockade.EVersionConflict, stockade.EReservationExpired:
		return true
	}
	return false
}

// batched reports whether op is decided by a batch under the Batch
// strategy. Such a call's idempotency key is checked and its outcome
// recorded in the batch's transaction, which is the whole call, so it
// needs no in-flight claim of its own: the transaction holds the key (see
// stockade.Tx.Idempotencies) until it commits the result.
func (e *Engine) batched(op string) bool {
	return e.batch != nil && (op == "reserve" || op == "checkout" || op == "confirm")
}

// checkIdempotent refuses an idempotency key or an Idempotent that cannot
// be used.
func checkIdempotent(idem *stockade.Idempotent) error {
	if err := checkID("idempotency key", idem.Key); err != nil {
		return err
	}
	if idem.Render == nil {
		return errors.New("engine: stockade.Idempotent without Render")
	}
	return nil
}

// admit decides what a call of op with idem meets in rec, its key's
// record if ok, at now: nil if the call may run (there is no live record,
// or a stale in-flight claim, which it takes over); otherwise a
// *stockade.Replay of the finished request, EIdempotencyMismatch for
// another request, or EIdempotencyInFlight.
func (e *Engine) admit(op string, idem *stockade.Idempotent, rec stockade.Idempotency, ok bool, now time.Time) error {
	if !ok || now.Sub(rec.CreatedAt) >= e.opts.IdempotencyTTL {
		return nil
	}
	switch {
	case rec.RequestHash != idem.RequestHash:
		return refuse(stockade.EIdempotencyMismatch, "idempotency key %q was used for another request", idem.Key)
	case rec.State == stockade.Done:
		return &stockade.Replay{Status: rec.Status, Body: rec.Body}
	case now.Sub(rec.CreatedAt) < e.opts.InFlightTimeout:
		return refuse(stockade.EIdempotencyInFlight, "a request with idempotency key %q is in progress", idem.Key)
	}
	e.log.Warn("engine: taking over a stale idempotency claim", "op", op, "key", idem.Key, "claimed_at", rec.CreatedAt)
	return nil
}

// claimKey claims idem's key for c, or returns why not.
func (c *call) claimKey(ctx context.Context, idem *stockade.Idempotent) error {
	if err := checkIdempotent(idem); err != nil {
		return err
	}
	e := c.e
	cl := &claim{idem: idem, nonce: []byte(rand.Text())}
	err := c.update(ctx, func(tx stockade.Tx) error {
		now := e.now()
		rec, ok, err := tx.Idempotency(ctx, idem.Key)
		if err != nil {
			return err
		}
		if err := e.admit(c.op, idem, rec, ok, now); err != nil {
			return err
		}
		return tx.PutIdempotency(ctx, stockade.Idempotency{Key: idem.Key, RequestHash: idem.RequestHash,
			State: stockade.InFlight, Body: cl.nonce, CreatedAt: now})
	})
	if err != nil {
		return err
	}
	c.claim = cl
	return nil
}

// errClaimLost is returned when another request took the key over.
var errClaimLost = stockade.Errorf(stockade.EIdempotencyInFlight,
	"another request with this idempotency key took it over; retry to get its response")

// owned reports whether the record in tx is still c's in-flight claim.
func (c *call) owned(ctx context.Context, tx stockade.Tx) (bool, error) {
	rec, ok, err := tx.Idempotency(ctx, c.claim.idem.Key)
	if err != nil {
		return false, err
	}
	return ok && rec.State == stockade.InFlight && bytes.Equal(rec.Body, c.claim.nonce), nil
}

// done records v, the result of c, as the response to replay, in tx: the
// transaction that commits the result's effect. It does nothing for a
// call that is not idempotent. Render must not fail nor block.
func (c *call) done(ctx context.Context, tx stockade.Tx, v any) error {
	if c.claim == nil {
		return nil
	}
	ok, err := c.owned(ctx, tx)
	switch {
	case err != nil:
		return err
	case !ok:
		return errClaimLost
	}
	status, body := c.claim.idem.Render(v, nil)
	return tx.PutIdempotency(ctx, done(c.claim.idem, status, body, c.e.now()))
}

// done returns the record of a finished call with idem, to replay.
func done(idem *stockade.Idempotent, status int, body []byte, now time.Time) stockade.Idempotency {
	return stockade.Idempotency{Key: idem.Key, RequestHash: idem.RequestHash, State: stockade.Done,
		Status: status, Body: body, CreatedAt: now}
}

// settle ends c's claim, if it is still c's: with status, it records the
// response to replay; without, it deletes the claim.
func (c *call) settle(ctx context.Context, status *int, body []byte) error {
	if c.claim == nil {
		return nil
	}
	err := c.retry(ctx, func(ctx context.Context) error {
		return c.e.store.Update(ctx, func(tx stockade.Tx) error {
			ok, err := c.owned(ctx, tx)
			if err != nil || !ok {
				return err
			}
			if status == nil {
				return tx.DeleteIdempotency(ctx, c.claim.idem.Key)
			}
			return tx.PutIdempotency(ctx, done(c.claim.idem, *status, body, c.e.now()))
		})
	})
	if err != nil {
		return fmt.Errorf("engine: settle idempotency key %q: %w", c.claim.idem.Key, err)
	}
	return nil
}
