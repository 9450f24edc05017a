package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// showLockPrefix starts the lock key of every show under the Lock
// strategy.
const showLockPrefix = "stockade:event:"

// release gives up m's leases once the transaction they guarded has
// ended. It waits for the release no longer than ctx lives: a locker that
// stopped answering must not hold the caller past its deadline. The
// release goes on in the background, tried again while the locker does
// not answer, until it succeeds or the leases have expired by themselves
// (Options.LockTTL): a lease left to its TTL would hold up every buyer of
// its SKUs until then, even once the locker is back. The transaction's
// writes were fenced either way.
func (e *Engine) release(ctx context.Context, m *lock.MultiLease) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		give := time.Now().Add(e.opts.LockTTL)
		for backoff := 20 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
			rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), give)
			err := m.Release(rctx)
			cancel()
			if releaseSettled(err) {
				return
			}
			if time.Now().Add(backoff).After(give) {
				e.log.Warn("engine: release SKU leases; they end at their TTL", "err", err)
				return
			}
			time.Sleep(backoff)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// releaseSettled reports whether err, from releasing a MultiLease, leaves
// nothing to try again: every lease was released or is lost.
func releaseSettled(err error) bool {
	if err == nil {
		return true
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !releaseSettled(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, lock.ErrLost)
}

// skuLockPrefix starts the lock key of every SKU under the Lock strategy.
const skuLockPrefix = "stockade:sku:"

// leased runs fn in a write transaction, retried whole on conflicts, as
// update does, each attempt under lock.Locker leases on keys (all or
// none, taken in sorted order; see lock.AcquireAll), which fn gets the
// fencing tokens of, by key. The leases are released once the
// transaction has ended.
func (c *call) leased(ctx context.Context, keys []string, fn func(tx stockade.Tx, tokens map[string]uint64) error) error {
	e := c.e
	err := c.retry(ctx, func(ctx context.Context) error {
		m, err := lock.AcquireAll(ctx, e.opts.Locker, keys, lock.WithTTL(e.opts.LockTTL))
		if err != nil {
			return fmt.Errorf("engine: lock %s: %w", lockedWhat(keys), err)
		}
		defer e.release(ctx, m)
		tokens := make(map[string]uint64, len(keys))
		for _, l := range m.Leases() {
			tokens[l.Key()] = l.Token()
		}
		return e.store.Update(ctx, func(tx stockade.Tx) error { return fn(tx, tokens) })
	})
	if err == nil {
		e.written.notify()
	}
	return err
}

// lockedWhat names what the lock keys keys guard, for errors.
func lockedWhat(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return fmt.Sprintf("%d keys", len(keys))
}
