package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/lock"
)

// The metrics of the engine, its locks and its sweeper, next to the HTTP
// ones in the server's registry.

// engineObserver records every engine call: its count by outcome, its
// duration and its retries.
func engineObserver(m *httpapi.Metrics) func(engine.Event) {
	calls := m.NewCounter("stockade_engine_calls_total",
		`Service calls, by op and outcome: "ok" or the refusal's code.`, "op", "outcome")
	seconds := m.NewHistogram("stockade_engine_call_duration_seconds",
		"Time a service call took, lock waits and retries included, by op.", nil, "op")
	retries := m.NewCounter("stockade_engine_retries_total",
		"Transactions retried after a conflict, by op.", "op")
	batches := m.NewCounter("stockade_engine_batches_total",
		`Batch transactions of the batch strategy, by outcome: "ok" or the error's code.`, "outcome")
	batchCalls := m.NewHistogram("stockade_engine_batch_calls",
		"Reservations, checkouts and confirms that one batch transaction decided.",
		[]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096})
	return func(e engine.Event) {
		outcome := e.Code
		if outcome == "" {
			outcome = "ok"
		}
		if e.Op == "batch" {
			batches.Inc(outcome)
			batchCalls.Observe(float64(e.Calls))
			if e.Attempts > 1 {
				retries.Add(float64(e.Attempts-1), e.Op)
			}
			return
		}
		calls.Inc(e.Op, outcome)
		seconds.Observe(e.Duration.Seconds(), e.Op)
		if e.Attempts > 1 {
			retries.Add(float64(e.Attempts-1), e.Op)
		}
	}
}

// observedLocker is a Locker whose every lease also reports to obs.
type observedLocker struct {
	lock.Locker
	obs lock.Observer
}

func (l observedLocker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.Locker.Acquire(ctx, key, l.with(opts)...)
}

func (l observedLocker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.Locker.TryAcquire(ctx, key, l.with(opts)...)
}

// with adds l.obs to opts, alongside any observer they already set.
func (l observedLocker) with(opts []lock.Option) []lock.Option {
	obs := l.obs
	if cfg, err := lock.NewConfig(opts...); err == nil && cfg.Observer != nil {
		theirs := cfg.Observer
		obs = lock.ObserverFunc(func(e lock.Event) { theirs.Observe(e); l.obs.Observe(e) })
	}
	return append(opts[:len(opts):len(opts)], lock.WithObserver(obs))
}

// observeLocker records the waits, holds and losses of l's leases.
func observeLocker(l lock.Locker, m *httpapi.Metrics) lock.Locker {
	events := m.NewCounter("stockade_lock_events_total",
		"Lease events of the lock strategy: acquired, not_acquired, released, renew_failed, lost.", "kind")
	wait := m.NewHistogram("stockade_lock_wait_seconds",
		"Time spent waiting for a lease, by outcome (acquired or not_acquired).", nil, "outcome")
	held := m.NewHistogram("stockade_lock_hold_seconds",
		"Time a lease was held, by how it ended (released or lost).", nil, "end")
	obs := lock.ObserverFunc(func(e lock.Event) {
		events.Inc(e.Kind.String())
		switch e.Kind {
		case lock.Acquired, lock.NotAcquired:
			wait.Observe(e.Wait.Seconds(), e.Kind.String())
		case lock.Released, lock.Lost:
			held.Observe(e.Held.Seconds(), e.Kind.String())
		}
	})
	return observedLocker{Locker: l, obs: obs}
}

// runSweeper calls eng.Sweep at once and then every interval until ctx
// ends, as engine.RunSweeper does, and also counts the reservations it
// expires. (Each run's duration and outcome reach the metrics through the
// engine's observer, as op "sweep".)
func runSweeper(ctx context.Context, eng *engine.Engine, interval time.Duration, m *httpapi.Metrics, log *slog.Logger) {
	expired := m.NewCounter("stockade_reservations_expired_total",
		"Reservations the sweeper expired.")
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := eng.Sweep(ctx)
		expired.Add(float64(n))
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("sweep", "expired", n, "err", err)
		case n > 0:
			log.Debug("sweep", "expired", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
