package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// Idempotent calls
//
// A call with a *stockade.Idempotency runs its whole effect in one write
// transaction that first reads the key's record, which holds the key until
// the transaction ends (stockade.Tx.IdempotencyGetMany). What it finds decides
// the call (see admit): no live record, and the call runs and stores its
// result with its effect; a record of the same call, and the call is
// answered with the stored result and does nothing else; a record of
// another call, EIdempotencyMismatch. A second call with the key while
// the first runs waits for the key, then finds the first's record, or
// none if the first was refused or failed. Nothing is claimed ahead of
// the effect, so a crash or a lost connection leaves no key stuck: a
// retry runs afresh or finds the committed result.
//
// One helper, records, does this for every write: a transaction that
// decides a batch of calls reads all their keys at once, answers each
// call from its record or lets it run, and writes the records of the
// calls that ran, with their effect. once wraps it for a write that
// decides one call.

// records are the idempotency records of the calls that one write
// transaction decides: read at its start, holding their keys, and added
// to as it decides them, so that a later call of the same batch with a
// key that an earlier one used is answered as it would be after a commit.
type records struct {
	e     *Engine
	now   time.Time
	byKey map[string]stockade.IdempotencyRecord
	made  []stockade.IdempotencyRecord // to write, in the order made
}

// readRecords reads the records of the idempotency keys of calls, holding
// the keys until tx ends (in key order, so that transactions that share
// keys wait for each other in one order).
func (e *Engine) readRecords(ctx context.Context, tx stockade.Tx, calls []*call, now time.Time) (*records, error) {
	rs := &records{e: e, now: now, byKey: map[string]stockade.IdempotencyRecord{}}
	var keys []string
	for _, c := range calls {
		if c.idem != nil {
			keys = append(keys, c.key)
		}
	}
	if len(keys) == 0 {
		return rs, nil
	}
	slices.Sort(keys)
	recs, err := tx.IdempotencyGetMany(ctx, slices.Compact(keys))
	for _, rec := range recs {
		rs.byKey[rec.Key] = rec
	}
	return rs, err
}

// replay decides c against its key's record (see admit): it reports
// whether c is answered from the record, decoded into dst, or refuses c
// if the key was used for another call. A call without a key runs.
func replay[T any](rs *records, c *call, dst *T) (bool, error) {
	if c.idem == nil {
		return false, nil
	}
	rec, ok := rs.byKey[c.key]
	replay, err := rs.e.admit(c.op, c.idem, rec, ok, rs.now)
	if err != nil || !replay {
		return false, err
	}
	return true, recall(rec, dst)
}

// keep records v as the result of c, which ran: for write to store, and
// for a later call of the batch with c's key to be answered with. A call
// without a key keeps nothing.
func (rs *records) keep(c *call, v any) error {
	if c.idem == nil {
		return nil
	}
	rec, err := rs.e.record(c.op, c.key, c.idem, v)
	if err != nil {
		return err
	}
	rs.made, rs.byKey[c.key] = append(rs.made, rec), rec
	return nil
}

// write stores the records kept.
func (rs *records) write(ctx context.Context, tx stockade.Tx) error {
	return tx.IdempotencyPut(ctx, rs.made...)
}

// once runs fn in tx as the effect of c, a write that decides one call,
// at most once per idempotency key (see records): for a call without a
// key it is fn. For a call with one, fn runs only when admit lets it, and
// its result is stored in tx; otherwise the stored result is decoded into
// the returned value and c.replayed is set.
func once[T any](ctx context.Context, c *call, tx stockade.Tx, fn func() (T, error)) (T, error) {
	var v T
	c.replayed = false
	if c.idem == nil {
		return fn()
	}
	rs, err := c.e.readRecords(ctx, tx, []*call{c}, c.e.now())
	if err != nil {
		return v, err
	}
	if c.replayed, err = replay(rs, c, &v); err != nil || c.replayed {
		return v, err
	}
	if v, err = fn(); err != nil {
		return v, err
	}
	if err := rs.keep(c, v); err != nil {
		return v, err
	}
	return v, rs.write(ctx, tx)
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

// recall decodes the result stored in rec into dst.
func recall[T any](rec stockade.IdempotencyRecord, dst *T) error {
	if err := json.Unmarshal(rec.Result, dst); err != nil {
		return fmt.Errorf("engine: decode the stored result of %s for idempotency key %q: %w", rec.Op, rec.Key, err)
	}
	return nil
}
