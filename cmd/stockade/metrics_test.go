package main

import (
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
)

// TestEngineObserver feeds engine events to the observer and reads the
// metrics back: retries count only transactions run again, never first
// attempts, so sweeps that run two transactions each count none.
func TestEngineObserver(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	obs := engineObserver(reg)
	for range 5 { // idle sweeps: the expiry and the purge, once each
		obs(engine.CallReport{Op: "sweep", Attempts: 2, Duration: time.Millisecond})
	}
	obs(engine.CallReport{Op: "sweep", Attempts: 3, Retries: 1, Expired: 4, Purged: 2})
	obs(engine.CallReport{Op: "sweep", Code: "internal", Attempts: 1})
	obs(engine.CallReport{Op: "reserve", Attempts: 3, Retries: 2})
	obs(engine.CallReport{Op: "reserve", Code: "insufficient_stock", Attempts: 1})
	obs(engine.CallReport{Op: "batch", Attempts: 2, Retries: 1, Calls: 3})
	obs(engine.CallReport{Op: "checkout", Attempts: 2}) // decided by that batch

	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP stockade_engine_retries_total Transactions started again after a conflict, by op; first attempts are not counted.
# TYPE stockade_engine_retries_total counter
stockade_engine_retries_total{op="batch"} 1
stockade_engine_retries_total{op="reserve"} 2
stockade_engine_retries_total{op="sweep"} 1
# HELP stockade_engine_calls_total Service calls and sweeps (op "sweep"), by op and outcome: "ok" or the error's code.
# TYPE stockade_engine_calls_total counter
stockade_engine_calls_total{op="checkout",outcome="ok"} 1
stockade_engine_calls_total{op="reserve",outcome="insufficient_stock"} 1
stockade_engine_calls_total{op="reserve",outcome="ok"} 1
stockade_engine_calls_total{op="sweep",outcome="internal"} 1
stockade_engine_calls_total{op="sweep",outcome="ok"} 6
# HELP stockade_engine_batches_total Batch transactions of the batch strategy, by outcome: "ok" or the error's code.
# TYPE stockade_engine_batches_total counter
stockade_engine_batches_total{outcome="ok"} 1
# HELP stockade_reservations_expired_total Lapsed reservations the sweeper expired.
# TYPE stockade_reservations_expired_total counter
stockade_reservations_expired_total 4
# HELP stockade_idempotency_records_purged_total Idempotency records the sweeper purged once they outlived their retention.
# TYPE stockade_idempotency_records_purged_total counter
stockade_idempotency_records_purged_total 2
`), "stockade_engine_retries_total", "stockade_engine_calls_total", "stockade_engine_batches_total",
		"stockade_reservations_expired_total", "stockade_idempotency_records_purged_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "stockade_engine_call_duration_seconds"); n != 3 {
		t.Errorf("%d duration series, want one per op but batch: sweep, reserve, checkout", n)
	}
}

// TestRoomMetrics: the waiting rooms show as the last round of admissions
// that succeeded left them; a room that no longer gates leaves the
// metrics, and a failed round changes nothing.
func TestRoomMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	obs := engineObserver(reg)
	names := []string{"stockade_room_queued_visitors", "stockade_room_active_visitors", "stockade_room_admitted_visitors_total", "stockade_room_paused"}
	if n, err := testutil.GatherAndCount(reg, names...); err != nil || n != 0 {
		t.Fatalf("%d room series before any round (%v), want none", n, err)
	}
	obs(engine.CallReport{Op: "admit rooms", Attempts: 3, Rooms: []engine.RoomReport{
		{ID: "gala", Status: stockade.RoomQueueing, Queued: 900, Active: 100, Admitted: 140, Paused: stockade.RoomPausedActive},
		{ID: "drop", Status: stockade.RoomScheduled, Queued: 12},
	}})
	obs(engine.CallReport{Op: "admit rooms", Code: stockade.EUnavailable, Attempts: 1})
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP stockade_room_active_visitors Admissions in force in a waiting room, by room: visitors admitted whose admission has not run out.
# TYPE stockade_room_active_visitors gauge
stockade_room_active_visitors{room="drop"} 0
stockade_room_active_visitors{room="gala"} 100
# HELP stockade_room_admitted_visitors_total Visitors a waiting room has admitted, by room.
# TYPE stockade_room_admitted_visitors_total counter
stockade_room_admitted_visitors_total{room="drop"} 0
stockade_room_admitted_visitors_total{room="gala"} 140
# HELP stockade_room_paused 1 while a waiting room holds visitors back for another reason than its rate, by room and reason: "active_limit" or "stock".
# TYPE stockade_room_paused gauge
stockade_room_paused{reason="active_limit",room="drop"} 0
stockade_room_paused{reason="active_limit",room="gala"} 1
stockade_room_paused{reason="stock",room="drop"} 0
stockade_room_paused{reason="stock",room="gala"} 0
# HELP stockade_room_queued_visitors Visitors waiting in a waiting room, by room.
# TYPE stockade_room_queued_visitors gauge
stockade_room_queued_visitors{room="drop"} 12
stockade_room_queued_visitors{room="gala"} 900
`), names...); err != nil {
		t.Error(err)
	}
	// gala sold out: the next round's rooms are drop's alone.
	obs(engine.CallReport{Op: "admit rooms", Attempts: 2, Rooms: []engine.RoomReport{{ID: "drop", Status: stockade.RoomQueueing, Queued: 2, Active: 10, Admitted: 10, Paused: stockade.RoomPausedStock}}})
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP stockade_room_queued_visitors Visitors waiting in a waiting room, by room.
# TYPE stockade_room_queued_visitors gauge
stockade_room_queued_visitors{room="drop"} 2
# HELP stockade_room_paused 1 while a waiting room holds visitors back for another reason than its rate, by room and reason: "active_limit" or "stock".
# TYPE stockade_room_paused gauge
stockade_room_paused{reason="active_limit",room="drop"} 0
stockade_room_paused{reason="stock",room="drop"} 1
`), "stockade_room_queued_visitors", "stockade_room_paused"); err != nil {
		t.Error(err)
	}
}

// TestLockMetrics: every lease of the lock strategy's locker reports to
// the stockade_lock_ metrics, its key classed by the engine's prefixes,
// and an observer the caller set still hears of it.
func TestLockMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	locker := observeLocker(memlock.New(nil), reg)
	ctx := t.Context()

	var theirs []string
	skus, err := lock.AcquireAll(ctx, locker, []string{"stockade:sku:a", "stockade:sku:b"},
		lock.WithObserver(lock.ObserverFunc(func(e lock.Event) { theirs = append(theirs, e.Kind.String()+" "+e.Key) })))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locker.TryAcquire(ctx, "stockade:sku:a"); !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("TryAcquire of a held SKU: %v", err)
	}
	for _, key := range []string{"stockade:event:e1", "elsewhere"} {
		lease, err := locker.Acquire(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := skus.Release(ctx); err != nil {
		t.Fatal(err)
	}

	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP stockade_lock_acquisitions_total Leases granted, by class and whether the key was held or queued for when asked ("true" or "false").
# TYPE stockade_lock_acquisitions_total counter
stockade_lock_acquisitions_total{class="other",contended="false"} 1
stockade_lock_acquisitions_total{class="stockade:event:",contended="false"} 1
stockade_lock_acquisitions_total{class="stockade:sku:",contended="false"} 2
# HELP stockade_lock_failures_total Acquisitions that gave up, by class and reason: timeout, canceled, held, unavailable, invalid or other.
# TYPE stockade_lock_failures_total counter
stockade_lock_failures_total{class="stockade:sku:",reason="held"} 1
# HELP stockade_lock_active_leases Leases granted and not yet released or lost, by class.
# TYPE stockade_lock_active_leases gauge
stockade_lock_active_leases{class="other"} 0
stockade_lock_active_leases{class="stockade:event:"} 0
stockade_lock_active_leases{class="stockade:sku:"} 0
`), "stockade_lock_acquisitions_total", "stockade_lock_failures_total", "stockade_lock_active_leases", "stockade_lock_lost_total"); err != nil {
		t.Error(err)
	}
	for name, want := range map[string]int{
		"stockade_lock_wait_seconds": 4, // acquired for each class, and the SKU's refusal
		"stockade_lock_hold_seconds": 3, // released, for each class
	} {
		if n, err := testutil.GatherAndCount(reg, name); err != nil || n != want {
			t.Errorf("%s: %d series (%v), want %d", name, n, err, want)
		}
	}
	slices.Sort(theirs)
	want := []string{"acquired stockade:sku:a", "acquired stockade:sku:b", "released stockade:sku:a", "released stockade:sku:b"}
	if !slices.Equal(theirs, want) {
		t.Errorf("the caller's observer heard %q, want %q", theirs, want)
	}
}

// TestServeIdleSweepsRetryNothing: a service that nobody calls sweeps
// every tick, and /metrics shows the sweeps, the Go runtime, and no retry.
func TestServeIdleSweepsRetryNothing(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "idle.db"), "-sweep-interval", "10ms")
	sweeps := regexp.MustCompile(`(?m)^stockade_engine_calls_total\{op="sweep",outcome="ok"\} (\d+)$`)
	deadline := time.Now().Add(20 * time.Second)
	var body string
	for {
		_, body = get(t, "http://"+s.addr+"/metrics")
		if m := sweeps.FindStringSubmatch(body); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= 5 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 5 sweeps in /metrics:\n%s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(body, "\nstockade_engine_retries_total{") {
		t.Errorf("idle sweeps counted retries:\n%s", body)
	}
	for _, want := range []string{
		"\nstockade_reservations_expired_total 0\n",
		"\nstockade_idempotency_records_purged_total 0\n",
		"\ngo_goroutines ",
		"\nprocess_cpu_seconds_total ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %q", strings.TrimSpace(want))
		}
	}
}
