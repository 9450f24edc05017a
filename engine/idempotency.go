package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stockade/stockade"
)

// Idempotent calls
//
// A call with a *stockade.Idempotency runs its whole effect in one write
// transaction that first reads the key's record, which holds the key until
// the transaction ends (stockade.Tx.Idempotency). What it finds decides
// the call (see admit): no live record, and the call runs and stores its
// result with its effect; a record of the same call, and the transaction
// ends having written nothing and the stored result is returned; a
// record of another call, EIdempotencyMismatch. A second call with the
// key while the first runs waits for the key, then finds the first's
// record, or none if the first was refused or failed. Nothing is claimed
// ahead of the effect, so a crash or a lost connection leaves no key
// stuck: a retry runs afresh or finds the committed result.
//
// Under the Batch strategy the batch transaction does the same for every
// call it decides (see decide).

// once runs fn in tx as the effect of c, at most once per idempotency
// key: for a call without a key it is fn. For a call with one, fn runs
// only when admit lets it, and its result is stored in tx; otherwise the
// stored result is decoded into the returned value and c.replayed is set.
func once[T any](ctx context.Context, c *call, tx stockade.Tx, fn func() (T, error)) (T, error) {
	var v T
	c.replayed = false
	if c.idem == nil {
		return fn()
	}
	rec, ok, err := tx.Idempotency(ctx, c.key)
	if err != nil {
		return v, err
	}
	switch replay, err := c.e.admit(c.op, c.idem, rec, ok, c.e.now()); {
	case err != nil:
		return v, err
	case replay:
		if err := recall(rec, &v); err != nil {
			return v, err
		}
		c.replayed = true
		return v, nil
	}
	if v, err = fn(); err != nil {
		return v, err
	}
	r, err := c.e.record(c.op, c.key, c.idem, v)
	if err != nil {
		return v, err
	}
	return v, tx.PutIdempotency(ctx, r)
}

// admit decides what a call of op with idem meets in rec, its key's
// record if ok, at now: it may run (false, nil) when there is no record
// or only one older than Options.IdempotencyTTL, which it will replace; it
// is answered from rec (true, nil) when rec is of the same call; and it
// is refused with EIdempotencyMismatch when rec is of another.
func (e *Engine) admit(op string, idem *stockade.Idempotency, rec stockade.IdempotencyRecord, ok bool, now time.Time) (bool, error) {
	switch {
	case !ok || now.Sub(rec.CreatedAt) >= e.opts.IdempotencyTTL:
		return false, nil
	case rec.Op != op:
		return false, refuse(stockade.EIdempotencyMismatch, "idempotency key %q was used for another operation (%s)", idem.Key, rec.Op)
	case rec.Fingerprint != idem.Fingerprint:
		return false, refuse(stockade.EIdempotencyMismatch, "idempotency key %q was used for another request", idem.Key)
	}
	return true, nil
}

// record returns the record, under the stored key key, that stores v,
// the result of a call of op with idem.
func (e *Engine) record(op, key string, idem *stockade.Idempotency, v any) (stockade.IdempotencyRecord, error) {
	result, err := json.Marshal(v)
	if err != nil {
		return stockade.IdempotencyRecord{}, fmt.Errorf("engine: encode the result of %s for idempotency key %q: %w", op, idem.Key, err)
	}
	return stockade.IdempotencyRecord{Key: key, Op: op, Fingerprint: idem.Fingerprint, Result: result, CreatedAt: e.now()}, nil
}

// recordKey is the key under which the record of a call with the
// idempotency key key, made by the actor of the API key keyID, is
// stored: key itself for a call without an API key, else keyID, a unit
// separator (which a key, being printable ASCII, cannot hold) and key.
// Two API keys' calls with the same idempotency key are two operations.
func recordKey(keyID, key string) string {
	if keyID == "" {
		return key
	}
	return keyID + "\x1f" + key
}

// replayed decides a batched call c that has an idempotency key against
// records, the records of the batch's keys (those the batch has made so
// far included), at now, as once does alone: it reports whether the call
// is answered from its key's record, decoded into dst, or the refusal if
// the key was used for another call.
func replayed[T any](e *Engine, c *call, records map[string]stockade.IdempotencyRecord, now time.Time, dst *T) (bool, error) {
	rec, ok := records[c.key]
	replay, err := e.admit(c.op, c.idem, rec, ok, now)
	if err != nil || !replay {
		return false, err
	}
	return true, recall(rec, dst)
}

// recall decodes the result stored in rec into dst.
func recall[T any](rec stockade.IdempotencyRecord, dst *T) error {
	if err := json.Unmarshal(rec.Result, dst); err != nil {
		return fmt.Errorf("engine: decode the stored result of %s for idempotency key %q: %w", rec.Op, rec.Key, err)
	}
	return nil
}
