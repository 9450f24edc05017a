package main

import (
	"context"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/lockprom"
	"github.com/stockade/stockade/webhook"
)

// The metrics of the engine, its sweeper and its locks, registered in the
// server's registry next to the HTTP ones. Each comes from the events its
// producer reports: engine.CallReport for the engine and the sweeper, and
// lock.Event for the leases.

// engineObserver registers the engine's metrics in reg and returns the
// Observer that records them: each call's count by outcome, its duration
// and its retries; each batch of the batch strategy; and each sweep, with
// what it expired and purged. A sweep counts as a call of op "sweep", so
// its runs and errors are stockade_engine_calls_total{op="sweep"} by
// outcome.
func engineObserver(reg prometheus.Registerer) func(engine.CallReport) {
	f := promauto.With(reg)
	calls := f.NewCounterVec(prometheus.CounterOpts{
		Name: "stockade_engine_calls_total",
		Help: `Service calls and sweeps (op "sweep"), by op and outcome: "ok" or the error's code.`,
	}, []string{"op", "outcome"})
	seconds := f.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "stockade_engine_call_duration_seconds",
		Help:    "Time a service call or a sweep took, lock waits and retries included, by op.",
		Buckets: httpapi.LatencyBuckets,
	}, []string{"op"})
	retries := f.NewCounterVec(prometheus.CounterOpts{
		Name: "stockade_engine_retries_total",
		Help: "Transactions started again after a conflict, by op; first attempts are not counted.",
	}, []string{"op"})
	batches := f.NewCounterVec(prometheus.CounterOpts{
		Name: "stockade_engine_batches_total",
		Help: `Batch transactions of the batch strategy, by outcome: "ok" or the error's code.`,
	}, []string{"outcome"})
	batchCalls := f.NewHistogram(prometheus.HistogramOpts{
		Name:    "stockade_engine_batch_calls",
		Help:    "Reservations, checkouts and confirms that one batch transaction decided.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096},
	})
	expired := f.NewCounter(prometheus.CounterOpts{
		Name: "stockade_reservations_expired_total",
		Help: "Lapsed reservations the sweeper expired.",
	})
	purged := f.NewCounter(prometheus.CounterOpts{
		Name: "stockade_idempotency_records_purged_total",
		Help: "Idempotency records the sweeper purged once they outlived their retention.",
	})
	pruned := f.NewCounter(prometheus.CounterOpts{
		Name: "stockade_events_pruned_total",
		Help: "Events the sweeper pruned from the outbox once they outlived their retention.",
	})
	rooms := newRoomMetrics()
	reg.MustRegister(rooms)
	return func(e engine.CallReport) {
		outcome := e.Code
		if outcome == "" {
			outcome = "ok"
		}
		if e.Retries > 0 {
			retries.WithLabelValues(e.Op).Add(float64(e.Retries))
		}
		switch e.Op {
		case "batch":
			batches.WithLabelValues(outcome).Inc()
			batchCalls.Observe(float64(e.Calls))
			return
		case "sweep":
			expired.Add(float64(e.Expired))
			purged.Add(float64(e.Purged))
			pruned.Add(float64(e.Pruned))
		case "admit rooms":
			if e.Code == "" {
				rooms.last.Store(&e.Rooms)
			}
		}
		calls.WithLabelValues(e.Op, outcome).Inc()
		seconds.WithLabelValues(e.Op).Observe(e.Duration.Seconds())
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

// observeLocker registers the lock metrics in reg, lockprom's under the
// names stockade_lock_…, and returns l with every lease reporting to them.
// The keys are classed by the engine's lock key prefixes, a SKU's and an
// event's. reg is the server's own registry: metrics of the same names
// there are a bug, and it panics as promauto does for the metrics beside
// them.
func observeLocker(l lock.Locker, reg prometheus.Registerer) lock.Locker {
	obs, err := lockprom.New(reg, &lockprom.Options{
		Prefix: "stockade_lock",
		Class:  lockprom.PrefixClass("stockade:sku:", "stockade:event:"),
	})
	if err != nil {
		panic(err)
	}
	return observedLocker{Locker: l, obs: obs}
}

// commandCounter is a command consumer of either broker.
type commandCounter interface {
	Counts() (applied, duplicates, deadLetters, retries int64)
}

// relayMetrics registers the metrics of the outbox's relay and of the
// command consumer, to either broker.
func relayMetrics(reg prometheus.Registerer, r *events.Relay, c commandCounter) {
	f := promauto.With(reg)
	for i, outcome := range []string{"applied", "duplicate", "dead_letter", "retried"} {
		f.NewCounterFunc(prometheus.CounterOpts{
			Name:        "stockade_commands_total",
			Help:        "Commands from the broker: applied, found applied already (duplicate), sent to the dead letters, or asked for again.",
			ConstLabels: prometheus.Labels{"outcome": outcome},
		}, func() float64 {
			a, d, dl, rt := c.Counts()
			return float64([]int64{a, d, dl, rt}[i])
		})
	}
	f.NewCounterFunc(prometheus.CounterOpts{
		Name: "stockade_events_published_total",
		Help: "Events the relay published and the broker acknowledged.",
	}, func() float64 { return float64(r.Published()) })
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "stockade_events_relay_lag_seconds",
		Help: "Age of the oldest event the relay's last turn found still to publish; 0 when it is caught up.",
	}, func() float64 { return r.Lag().Seconds() })
}

// webhookObserver counts the outbound webhook attempts, and times them.
func webhookObserver(reg prometheus.Registerer) func(webhook.Report) {
	f := promauto.With(reg)
	attempts := f.NewCounterVec(prometheus.CounterOpts{
		Name: "stockade_webhook_attempts_total",
		Help: `Outbound webhook attempts, by result: "delivered", "retry" (to be tried again), "refused" (failed at once) or "gone" (410: the endpoint disabled).`,
	}, []string{"result"})
	seconds := f.NewHistogram(prometheus.HistogramOpts{
		Name:    "stockade_webhook_attempt_duration_seconds",
		Help:    "Time an outbound webhook attempt took, its recording included.",
		Buckets: httpapi.LatencyBuckets,
	})
	names := map[stockade.WebhookResult]string{stockade.WebhookDelivered: "delivered", stockade.WebhookRetry: "retry",
		stockade.WebhookRefused: "refused", stockade.WebhookGone: "gone"}
	for _, name := range names {
		attempts.WithLabelValues(name) // every series from the start
	}
	return func(r webhook.Report) {
		attempts.WithLabelValues(names[r.Result]).Inc()
		seconds.Observe(r.Duration.Seconds())
	}
}

// roomMetrics is a collector of the waiting rooms that gate, as the last
// round of admissions that succeeded left them: a room that sells out or
// closes leaves the metrics with the next round.
type roomMetrics struct {
	last                             atomic.Pointer[[]engine.RoomReport]
	queued, active, admitted, paused *prometheus.Desc
}

func newRoomMetrics() *roomMetrics {
	return &roomMetrics{
		queued: prometheus.NewDesc("stockade_room_queued_visitors",
			"Visitors waiting in a waiting room, by room.", []string{"room"}, nil),
		active: prometheus.NewDesc("stockade_room_active_visitors",
			"Admissions in force in a waiting room, by room: visitors admitted whose admission has not run out.", []string{"room"}, nil),
		admitted: prometheus.NewDesc("stockade_room_admitted_visitors_total",
			"Visitors a waiting room has admitted, by room.", []string{"room"}, nil),
		paused: prometheus.NewDesc("stockade_room_paused",
			`1 while a waiting room holds visitors back for another reason than its rate, by room and reason: "active_limit" or "stock".`,
			[]string{"room", "reason"}, nil),
	}
}

func (m *roomMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.queued
	ch <- m.active
	ch <- m.admitted
	ch <- m.paused
}

func (m *roomMetrics) Collect(ch chan<- prometheus.Metric) {
	rooms := m.last.Load()
	if rooms == nil {
		return
	}
	for _, r := range *rooms {
		ch <- prometheus.MustNewConstMetric(m.queued, prometheus.GaugeValue, float64(r.Queued), r.ID)
		ch <- prometheus.MustNewConstMetric(m.active, prometheus.GaugeValue, float64(r.Active), r.ID)
		ch <- prometheus.MustNewConstMetric(m.admitted, prometheus.CounterValue, float64(r.Admitted), r.ID)
		for _, reason := range []string{stockade.RoomPausedActive, stockade.RoomPausedStock} {
			v := 0.0
			if r.Paused == reason {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(m.paused, prometheus.GaugeValue, v, r.ID, reason)
		}
	}
}
