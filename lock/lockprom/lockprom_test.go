package lockprom_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/lockprom"
	"github.com/stockade/stockade/lock/memlock"
)

// newObserver returns an Observer registered in a fresh registry, and the
// registry.
func newObserver(t *testing.T, opts *lockprom.Options) (*lockprom.Observer, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	obs, err := lockprom.New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return obs, reg
}

// TestObserve feeds one event of each kind and reads back every metric.
func TestObserve(t *testing.T) {
	t.Parallel()
	obs, reg := newObserver(t, &lockprom.Options{
		Prefix:      "shop_lock",
		Class:       lockprom.PrefixClass("sku:", "order:"),
		WaitBuckets: []float64{.01, 1},
		HoldBuckets: []float64{1, 10},
	})
	held := fmt.Errorf("%w: %q is held", lock.ErrNotAcquired, "sku:1")
	for _, e := range []lock.Event{
		{Kind: lock.Acquired, Key: "sku:1", Token: 1, Wait: 2 * time.Millisecond},
		{Kind: lock.Acquired, Key: "sku:2", Token: 2, Wait: 500 * time.Millisecond, Contended: true},
		{Kind: lock.Acquired, Key: "order:7", Token: 3, Wait: 250 * time.Millisecond, Contended: true},
		{Kind: lock.NotAcquired, Key: "sku:1", Contended: true, Err: held},
		{Kind: lock.NotAcquired, Key: "batch", Wait: 4 * time.Second, Err: errors.Join(held, context.DeadlineExceeded)},
		{Kind: lock.Released, Key: "sku:1", Token: 1, Held: 500 * time.Millisecond},
		{Kind: lock.RenewFailed, Key: "sku:2", Token: 2, Err: errors.New("connection refused")},
		{Kind: lock.Lost, Key: "sku:2", Token: 2, Held: 2 * time.Second, Err: lock.ErrLost},
	} {
		obs.Observe(e)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP shop_lock_acquisitions_total Leases granted, by class and whether the key was held or queued for when asked ("true" or "false").
# TYPE shop_lock_acquisitions_total counter
shop_lock_acquisitions_total{class="order:",contended="true"} 1
shop_lock_acquisitions_total{class="sku:",contended="false"} 1
shop_lock_acquisitions_total{class="sku:",contended="true"} 1
# HELP shop_lock_failures_total Acquisitions that gave up, by class and reason: timeout, canceled, held, unavailable, invalid or other.
# TYPE shop_lock_failures_total counter
shop_lock_failures_total{class="other",reason="timeout"} 1
shop_lock_failures_total{class="sku:",reason="held"} 1
# HELP shop_lock_wait_seconds Time spent acquiring a lease, by class and outcome (acquired or not_acquired).
# TYPE shop_lock_wait_seconds histogram
shop_lock_wait_seconds_bucket{class="order:",outcome="acquired",le="0.01"} 0
shop_lock_wait_seconds_bucket{class="order:",outcome="acquired",le="1"} 1
shop_lock_wait_seconds_bucket{class="order:",outcome="acquired",le="+Inf"} 1
shop_lock_wait_seconds_sum{class="order:",outcome="acquired"} 0.25
shop_lock_wait_seconds_count{class="order:",outcome="acquired"} 1
shop_lock_wait_seconds_bucket{class="other",outcome="not_acquired",le="0.01"} 0
shop_lock_wait_seconds_bucket{class="other",outcome="not_acquired",le="1"} 0
shop_lock_wait_seconds_bucket{class="other",outcome="not_acquired",le="+Inf"} 1
shop_lock_wait_seconds_sum{class="other",outcome="not_acquired"} 4
shop_lock_wait_seconds_count{class="other",outcome="not_acquired"} 1
shop_lock_wait_seconds_bucket{class="sku:",outcome="acquired",le="0.01"} 1
shop_lock_wait_seconds_bucket{class="sku:",outcome="acquired",le="1"} 2
shop_lock_wait_seconds_bucket{class="sku:",outcome="acquired",le="+Inf"} 2
shop_lock_wait_seconds_sum{class="sku:",outcome="acquired"} 0.502
shop_lock_wait_seconds_count{class="sku:",outcome="acquired"} 2
shop_lock_wait_seconds_bucket{class="sku:",outcome="not_acquired",le="0.01"} 1
shop_lock_wait_seconds_bucket{class="sku:",outcome="not_acquired",le="1"} 1
shop_lock_wait_seconds_bucket{class="sku:",outcome="not_acquired",le="+Inf"} 1
shop_lock_wait_seconds_sum{class="sku:",outcome="not_acquired"} 0
shop_lock_wait_seconds_count{class="sku:",outcome="not_acquired"} 1
# HELP shop_lock_hold_seconds Time a lease was held, by class and how it ended (released or lost).
# TYPE shop_lock_hold_seconds histogram
shop_lock_hold_seconds_bucket{class="sku:",end="lost",le="1"} 0
shop_lock_hold_seconds_bucket{class="sku:",end="lost",le="10"} 1
shop_lock_hold_seconds_bucket{class="sku:",end="lost",le="+Inf"} 1
shop_lock_hold_seconds_sum{class="sku:",end="lost"} 2
shop_lock_hold_seconds_count{class="sku:",end="lost"} 1
shop_lock_hold_seconds_bucket{class="sku:",end="released",le="1"} 1
shop_lock_hold_seconds_bucket{class="sku:",end="released",le="10"} 1
shop_lock_hold_seconds_bucket{class="sku:",end="released",le="+Inf"} 1
shop_lock_hold_seconds_sum{class="sku:",end="released"} 0.5
shop_lock_hold_seconds_count{class="sku:",end="released"} 1
# HELP shop_lock_active_leases Leases granted and not yet released or lost, by class.
# TYPE shop_lock_active_leases gauge
shop_lock_active_leases{class="order:"} 1
shop_lock_active_leases{class="sku:"} 0
# HELP shop_lock_lost_total Leases that ended without a release (expired, or found gone by a renewal), by class.
# TYPE shop_lock_lost_total counter
shop_lock_lost_total{class="sku:"} 1
# HELP shop_lock_renew_failures_total Automatic renewals that failed and were to be retried, by class.
# TYPE shop_lock_renew_failures_total counter
shop_lock_renew_failures_total{class="sku:"} 1
`), "shop_lock_acquisitions_total", "shop_lock_failures_total", "shop_lock_wait_seconds", "shop_lock_hold_seconds",
		"shop_lock_active_leases", "shop_lock_lost_total", "shop_lock_renew_failures_total"); err != nil {
		t.Error(err)
	}
}

const failuresHeader = `# HELP lock_failures_total Acquisitions that gave up, by class and reason: timeout, canceled, held, unavailable, invalid or other.
# TYPE lock_failures_total counter
`

// TestFailureReasons: the reason of a failed acquisition is told from its
// error, as the backends build it.
func TestFailureReasons(t *testing.T) {
	t.Parallel()
	const key = "sku:1"
	notAcquired := fmt.Errorf("%w: %q", lock.ErrNotAcquired, key)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"wait bound or deadline", errors.Join(notAcquired, context.DeadlineExceeded), "timeout"},
		{"canceled", errors.Join(notAcquired, context.Canceled), "canceled"},
		{"try refused", fmt.Errorf("%w: %q is held", lock.ErrNotAcquired, key), "held"},
		{"backend down", fmt.Errorf("%w: acquire %q: %w", lock.ErrUnavailable, key, errors.New("connection refused")), "unavailable"},
		{"backend timed out", fmt.Errorf("%w: acquire %q: %w", lock.ErrUnavailable, key, context.DeadlineExceeded), "unavailable"},
		{"invalid", fmt.Errorf("%w: semaphore %q has a limit of 3, asked with 4", lock.ErrInvalid, key), "invalid"},
		{"unknown", errors.New("boom"), "other"},
		{"no error", nil, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, reg := newObserver(t, nil)
			obs.Observe(lock.Event{Kind: lock.NotAcquired, Key: key, Err: tc.err})
			want := failuresHeader + fmt.Sprintf("lock_failures_total{class=\"all\",reason=%q} 1\n", tc.want)
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "lock_failures_total"); err != nil {
				t.Error(err)
			}
		})
	}
}

const activeHeader = `# HELP lock_active_leases Leases granted and not yet released or lost, by class.
# TYPE lock_active_leases gauge
`

// TestActiveLeasesNeverNegative: however a lease's events arrive, the
// active gauge counts the leases acquired and not ended, and never goes
// below zero.
func TestActiveLeasesNeverNegative(t *testing.T) {
	t.Parallel()
	acquired := func(token uint64) lock.Event { return lock.Event{Kind: lock.Acquired, Key: "k", Token: token} }
	released := func(token uint64) lock.Event { return lock.Event{Kind: lock.Released, Key: "k", Token: token} }
	lost := func(token uint64) lock.Event { return lock.Event{Kind: lock.Lost, Key: "k", Token: token} }
	for _, tc := range []struct {
		name   string
		events []lock.Event
		active []int // after each event
	}{
		{"released twice", []lock.Event{acquired(1), released(1), released(1)}, []int{1, 0, 0}},
		{"lost, then released", []lock.Event{acquired(1), lost(1), released(1)}, []int{1, 0, 0}},
		{"lost before acquired", []lock.Event{lost(1), acquired(1)}, []int{0, 0}},
		{"ended, never acquired", []lock.Event{released(1)}, []int{0}},
		{"two leases, one ended twice", []lock.Event{acquired(1), acquired(2), lost(1), lost(1), released(2)}, []int{1, 2, 1, 1, 0}},
		{"permits without tokens", []lock.Event{acquired(0), acquired(0), acquired(0), released(0)}, []int{1, 2, 3, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, reg := newObserver(t, nil)
			for i, e := range tc.events {
				obs.Observe(e)
				want := activeHeader + fmt.Sprintf("lock_active_leases{class=\"all\"} %d\n", tc.active[i])
				if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "lock_active_leases"); err != nil {
					t.Fatalf("after %s of token %d: %v", e.Kind, e.Token, err)
				}
			}
		})
	}
}

func TestPrefixClass(t *testing.T) {
	t.Parallel()
	class := lockprom.PrefixClass("stockade:sku:", "stockade:", "stockade:event:")
	for key, want := range map[string]string{
		"stockade:sku:42":  "stockade:sku:",
		"stockade:event:1": "stockade:", // the first prefix that matches
		"stockade:":        "stockade:",
		"sku:42":           "other",
		"":                 "other",
	} {
		if got := class(key); got != want {
			t.Errorf("class(%q) = %q, want %q", key, got, want)
		}
	}
	if got := lockprom.PrefixClass()("k"); got != "other" {
		t.Errorf("class of no prefixes = %q, want other", got)
	}
}

// TestNewConflict: New refuses a registry that has metrics of the same
// names, and then registers none of its own.
func TestNewConflict(t *testing.T) {
	t.Parallel()
	t.Run("a second Observer", func(t *testing.T) {
		_, reg := newObserver(t, nil)
		_, err := lockprom.New(reg, nil)
		if !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
			t.Errorf("second New: %v, want an AlreadyRegisteredError", err)
		}
		if _, err := lockprom.New(reg, &lockprom.Options{Prefix: "other_lock"}); err != nil {
			t.Errorf("New with another prefix: %v", err)
		}
	})
	t.Run("one metric taken", func(t *testing.T) {
		reg := prometheus.NewRegistry()
		reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "lock_lost_total", Help: "Someone else's."}))
		if _, err := lockprom.New(reg, nil); err == nil {
			t.Fatal("New registered over lock_lost_total")
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		if len(mfs) != 1 {
			t.Errorf("%d metrics registered, want only the one there before", len(mfs))
		}
	})
	t.Run("nil registerer", func(t *testing.T) {
		if _, err := lockprom.New(nil, nil); err == nil {
			t.Error("New(nil) returned no error")
		}
	})
}

// TestMemlock records a real locker's leases: an uncontended and a
// contended acquisition, a refusal, a wait that times out, a cancelled
// one, two releases and a lease that expires. The test runs in a synctest
// bubble, so the waits and hold times are exact.
func TestMemlock(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		obs, reg := newObserver(t, &lockprom.Options{
			Class:       lockprom.PrefixClass("sku:"),
			WaitBuckets: []float64{.5},
			HoldBuckets: []float64{1, 10},
		})
		locker := memlock.New(nil)
		ctx := t.Context()
		observed := lock.WithObserver(obs)

		first, err := locker.Acquire(ctx, "sku:1", observed)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := locker.TryAcquire(ctx, "sku:1", observed); !errors.Is(err, lock.ErrNotAcquired) {
			t.Fatalf("TryAcquire of a held key: %v", err)
		}
		if _, err := locker.Acquire(ctx, "sku:1", observed, lock.WithWait(250*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire of a held key, bounded: %v", err)
		}
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := locker.Acquire(canceled, "sku:1", observed); !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire with a cancelled context: %v", err)
		}

		second := make(chan lock.Lease)
		go func() {
			lease, err := locker.Acquire(ctx, "sku:1", observed)
			if err != nil {
				t.Error(err)
			}
			second <- lease
		}()
		synctest.Wait() // the second caller waits in the queue
		time.Sleep(time.Second)
		if err := first.Release(ctx); err != nil {
			t.Fatal(err)
		}
		next := <-second
		if next == nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
		if err := next.Release(ctx); err != nil {
			t.Fatal(err)
		}

		expiring, err := locker.Acquire(ctx, "job:1", observed, lock.WithTTL(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		<-expiring.Done()
		if err := expiring.Release(ctx); !errors.Is(err, lock.ErrLost) {
			t.Errorf("Release of an expired lease: %v, want ErrLost", err)
		}

		if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP lock_acquisitions_total Leases granted, by class and whether the key was held or queued for when asked ("true" or "false").
# TYPE lock_acquisitions_total counter
lock_acquisitions_total{class="other",contended="false"} 1
lock_acquisitions_total{class="sku:",contended="false"} 1
lock_acquisitions_total{class="sku:",contended="true"} 1
# HELP lock_failures_total Acquisitions that gave up, by class and reason: timeout, canceled, held, unavailable, invalid or other.
# TYPE lock_failures_total counter
lock_failures_total{class="sku:",reason="canceled"} 1
lock_failures_total{class="sku:",reason="held"} 1
lock_failures_total{class="sku:",reason="timeout"} 1
# HELP lock_wait_seconds Time spent acquiring a lease, by class and outcome (acquired or not_acquired).
# TYPE lock_wait_seconds histogram
lock_wait_seconds_bucket{class="other",outcome="acquired",le="0.5"} 1
lock_wait_seconds_bucket{class="other",outcome="acquired",le="+Inf"} 1
lock_wait_seconds_sum{class="other",outcome="acquired"} 0
lock_wait_seconds_count{class="other",outcome="acquired"} 1
lock_wait_seconds_bucket{class="sku:",outcome="acquired",le="0.5"} 1
lock_wait_seconds_bucket{class="sku:",outcome="acquired",le="+Inf"} 2
lock_wait_seconds_sum{class="sku:",outcome="acquired"} 1
lock_wait_seconds_count{class="sku:",outcome="acquired"} 2
lock_wait_seconds_bucket{class="sku:",outcome="not_acquired",le="0.5"} 3
lock_wait_seconds_bucket{class="sku:",outcome="not_acquired",le="+Inf"} 3
lock_wait_seconds_sum{class="sku:",outcome="not_acquired"} 0.25
lock_wait_seconds_count{class="sku:",outcome="not_acquired"} 3
# HELP lock_hold_seconds Time a lease was held, by class and how it ended (released or lost).
# TYPE lock_hold_seconds histogram
lock_hold_seconds_bucket{class="other",end="lost",le="1"} 0
lock_hold_seconds_bucket{class="other",end="lost",le="10"} 1
lock_hold_seconds_bucket{class="other",end="lost",le="+Inf"} 1
lock_hold_seconds_sum{class="other",end="lost"} 5
lock_hold_seconds_count{class="other",end="lost"} 1
lock_hold_seconds_bucket{class="sku:",end="released",le="1"} 1
lock_hold_seconds_bucket{class="sku:",end="released",le="10"} 2
lock_hold_seconds_bucket{class="sku:",end="released",le="+Inf"} 2
lock_hold_seconds_sum{class="sku:",end="released"} 1.75
lock_hold_seconds_count{class="sku:",end="released"} 2
# HELP lock_active_leases Leases granted and not yet released or lost, by class.
# TYPE lock_active_leases gauge
lock_active_leases{class="other"} 0
lock_active_leases{class="sku:"} 0
# HELP lock_lost_total Leases that ended without a release (expired, or found gone by a renewal), by class.
# TYPE lock_lost_total counter
lock_lost_total{class="other"} 1
`), "lock_acquisitions_total", "lock_failures_total", "lock_wait_seconds", "lock_hold_seconds",
			"lock_active_leases", "lock_lost_total", "lock_renew_failures_total"); err != nil {
			t.Error(err)
		}
	})
}
