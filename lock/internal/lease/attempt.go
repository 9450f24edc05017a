package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockade/stockade/lock"
)

// Attempt is what every backend's Acquire and TryAcquire share: options
// resolved and the key checked, the WithWait bound put on the context, and
// the outcome reported to the observer with the error the contract asks
// for.
type Attempt struct {
	Key    string
	Config lock.Config
	Start  time.Time
	// Contended is set by the backend once it found the key held.
	Contended bool

	cancel context.CancelFunc
}

// Begin starts an attempt on key. With wait, the returned context is
// bounded by the WithWait option. End the attempt with End.
func Begin(ctx context.Context, key string, wait bool, opts []lock.Option) (*Attempt, context.Context, error) {
	cfg, err := lock.NewConfig(opts...)
	if err != nil {
		return nil, ctx, err
	}
	if err := lock.CheckKey(key); err != nil {
		return nil, ctx, err
	}
	a := &Attempt{Key: key, Config: cfg, Start: time.Now(), cancel: func() {}}
	if wait && cfg.Wait > 0 {
		ctx, a.cancel = context.WithTimeout(ctx, cfg.Wait)
	}
	return a, ctx, nil
}

// End releases the attempt's context.
func (a *Attempt) End() { a.cancel() }

// Granted reports the acquisition of the lease with token.
func (a *Attempt) Granted(token uint64) {
	lock.Notify(a.Config.Observer, lock.Event{Kind: lock.Acquired, Key: a.Key, Token: token, Wait: time.Since(a.Start), Contended: a.Contended})
}

// Refuse reports a failed attempt and returns its error:
//   - lock.ErrNotAcquired joined with the context's error, when ctx ended
//     the wait (or its deadline has passed);
//   - cause itself when it already is a lock error (ErrNotAcquired,
//     ErrInvalid, ErrUnavailable);
//   - lock.ErrUnavailable wrapping any other cause: the backend failed;
//   - lock.ErrNotAcquired, "held", without a cause.
func (a *Attempt) Refuse(ctx context.Context, cause error) error {
	var err error
	switch ctxErr := ended(ctx); {
	case ctxErr != nil:
		err = errors.Join(fmt.Errorf("%w: %q", lock.ErrNotAcquired, a.Key), ctxErr)
	case errors.Is(cause, lock.ErrNotAcquired), errors.Is(cause, lock.ErrInvalid), errors.Is(cause, lock.ErrUnavailable):
		err = cause
	case cause != nil:
		err = fmt.Errorf("%w: acquire %q: %w", lock.ErrUnavailable, a.Key, cause)
	default:
		err = fmt.Errorf("%w: %q is held", lock.ErrNotAcquired, a.Key)
	}
	lock.Notify(a.Config.Observer, lock.Event{Kind: lock.NotAcquired, Key: a.Key, Wait: time.Since(a.Start), Contended: a.Contended, Err: err})
	return err
}

// ended returns ctx's error, or context.DeadlineExceeded once ctx's
// deadline has passed. The timer that ends a context can run late: a call
// cut short by the deadline meanwhile, in a context derived from the same
// deadline, must not pass for a failing backend.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
