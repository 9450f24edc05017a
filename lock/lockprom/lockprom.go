package lockprom

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockade/stockade/lock"
)

// DefaultWaitBuckets are the upper bounds, in seconds, of the wait-time
// histogram when Options.WaitBuckets is nil: from 100 µs to 30 s.
var DefaultWaitBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// DefaultHoldBuckets are the upper bounds, in seconds, of the hold-time
// histogram when Options.HoldBuckets is nil: from 1 ms to 5 minutes, as an
// auto-renewed lease may be held for long.
var DefaultHoldBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Options configures an Observer. A nil *Options means all defaults.
type Options struct {
	// Prefix starts the name of every metric, as in Prefix_wait_seconds.
	// Default: "lock".
	Prefix string

	// Class maps a lock key to the class its metrics are counted under, the
	// value of their "class" label. It must return few distinct values: a
	// Prometheus server keeps a series for every one. Never return the key
	// itself. PrefixClass builds one from key prefixes. It is called for
	// every event, so it must be quick and safe for concurrent use.
	// Default: every key is of class "all".
	Class func(key string) string

	// WaitBuckets are the upper bounds, in seconds, of the wait-time
	// histogram.
	// Default: DefaultWaitBuckets.
	WaitBuckets []float64

	// HoldBuckets are the upper bounds, in seconds, of the hold-time
	// histogram.
	// Default: DefaultHoldBuckets.
	HoldBuckets []float64
}

// withDefaults returns a copy of o with the defaults applied.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Prefix == "" {
		c.Prefix = "lock"
	}
	if c.Class == nil {
		c.Class = func(string) string { return "all" }
	}
	if c.WaitBuckets == nil {
		c.WaitBuckets = DefaultWaitBuckets
	}
	if c.HoldBuckets == nil {
		c.HoldBuckets = DefaultHoldBuckets
	}
	return c
}

// PrefixClass returns a Class function that classes a key by the first of
// prefixes it starts with, and every other key as "other".
func PrefixClass(prefixes ...string) func(key string) string {
	return func(key string) string {
		for _, p := range prefixes {
			if strings.HasPrefix(key, p) {
				return p
			}
		}
		return "other"
	}
}

// Observer records lock.Events in Prometheus metrics. Create it with New
// and pass it to every acquisition with lock.WithObserver; it is safe for
// concurrent use.
type Observer struct {
	class         func(key string) string
	acquisitions  *prometheus.CounterVec   // class, contended
	failures      *prometheus.CounterVec   // class, reason
	wait          *prometheus.HistogramVec // class, outcome
	hold          *prometheus.HistogramVec // class, end
	active        *prometheus.GaugeVec     // class
	lost          *prometheus.CounterVec   // class
	renewFailures *prometheus.CounterVec   // class

	mu     sync.Mutex
	leases map[leaseID]int // acquisitions less ends; zeros are deleted
}

var _ lock.Observer = (*Observer)(nil)

// leaseID tells leases apart. Leases without a fencing token (semaphore
// permits, shared leases) all have token 0 and are counted together per
// key.
type leaseID struct {
	key   string
	token uint64
}

// New registers the metrics in reg and returns the Observer that records
// them. It returns an error, and registers nothing, if reg refuses any of
// them: most often because metrics of the same names are registered
// already (use another Options.Prefix, or wrap reg with
// prometheus.WrapRegistererWith to tell two Observers apart by a label).
func New(reg prometheus.Registerer, opts *Options) (*Observer, error) {
	if reg == nil {
		return nil, errors.New("lockprom: nil Registerer")
	}
	o := opts.withDefaults()
	name := func(s string) string { return o.Prefix + "_" + s }
	obs := &Observer{
		class: o.Class,
		acquisitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: name("acquisitions_total"),
			Help: `Leases granted, by class and whether the key was held or queued for when asked ("true" or "false").`,
		}, []string{"class", "contended"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: name("failures_total"),
			Help: "Acquisitions that gave up, by class and reason: timeout, canceled, held, unavailable, invalid or other.",
		}, []string{"class", "reason"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    name("wait_seconds"),
			Help:    "Time spent acquiring a lease, by class and outcome (acquired or not_acquired).",
			Buckets: o.WaitBuckets,
		}, []string{"class", "outcome"}),
		hold: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    name("hold_seconds"),
			Help:    "Time a lease was held, by class and how it ended (released or lost).",
			Buckets: o.HoldBuckets,
		}, []string{"class", "end"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: name("active_leases"),
			Help: "Leases granted and not yet released or lost, by class.",
		}, []string{"class"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: name("lost_total"),
			Help: "Leases that ended without a release (expired, or found gone by a renewal), by class.",
		}, []string{"class"}),
		renewFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: name("renew_failures_total"),
			Help: "Automatic renewals that failed and were to be retried, by class.",
		}, []string{"class"}),
		leases: make(map[leaseID]int),
	}
	if err := reg.Register(obs.collectors()); err != nil {
		return nil, fmt.Errorf("lockprom: register metrics: %w", err)
	}
	return obs, nil
}

// Observe implements lock.Observer.
func (o *Observer) Observe(e lock.Event) {
	class := o.class(e.Key)
	switch e.Kind {
	case lock.Acquired:
		o.acquisitions.WithLabelValues(class, strconv.FormatBool(e.Contended)).Inc()
		o.wait.WithLabelValues(class, e.Kind.String()).Observe(e.Wait.Seconds())
		o.count(class, e, +1)
	case lock.NotAcquired:
		o.failures.WithLabelValues(class, reason(e.Err)).Inc()
		o.wait.WithLabelValues(class, e.Kind.String()).Observe(e.Wait.Seconds())
	case lock.Released:
		o.hold.WithLabelValues(class, e.Kind.String()).Observe(e.Held.Seconds())
		o.count(class, e, -1)
	case lock.Lost:
		o.lost.WithLabelValues(class).Inc()
		o.hold.WithLabelValues(class, e.Kind.String()).Observe(e.Held.Seconds())
		o.count(class, e, -1)
	case lock.RenewFailed:
		o.renewFailures.WithLabelValues(class).Inc()
	}
}

// count adds delta to the count of e's lease, +1 for an acquisition and -1
// for an end, and moves the active gauge by the change in max(count, 0).
//
// The backends report each lease's end once and after its acquisition,
// except that a lease that expires as it is granted can report Lost before
// Acquired: its count goes to -1 and back to 0, and the gauge never moves.
// An end reported twice is absorbed the same way, but its -1 is then kept
// for good (and, as the tokenless leases of one key share a count, hides
// one of them from the gauge).
func (o *Observer) count(class string, e lock.Event, delta int) {
	id := leaseID{e.Key, e.Token}
	gauge := o.active.WithLabelValues(class) // shown from the class's first lease on, at 0 too
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.leases[id]
	after := before + delta
	if after == 0 {
		delete(o.leases, id)
	} else {
		o.leases[id] = after
	}
	gauge.Add(float64(max(after, 0) - max(before, 0)))
}

// reason classes the error of a NotAcquired event. A backend's own
// failure comes first, as its cause may be a timeout of the backend's
// making: only a wait cut short by the caller's context or the WithWait
// bound is a timeout.
func reason(err error) string {
	switch {
	case errors.Is(err, lock.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, lock.ErrInvalid):
		return "invalid"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, lock.ErrNotAcquired):
		return "held"
	}
	return "other"
}

// collectors returns o's metrics as one Collector, so that they are
// registered all or none.
func (o *Observer) collectors() prometheus.Collector {
	return collectors{o.acquisitions, o.failures, o.wait, o.hold, o.active, o.lost, o.renewFailures}
}

type collectors []prometheus.Collector

func (cs collectors) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range cs {
		c.Describe(ch)
	}
}

func (cs collectors) Collect(ch chan<- prometheus.Metric) {
	for _, c := range cs {
		c.Collect(ch)
	}
}
