package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stockade/stockade/engine"
)

// TestEngineObserver feeds engine events to the observer and reads the
// metrics back: retries count only transactions run again, never first
// attempts, so sweeps that run two transactions each count none.
func TestEngineObserver(t *testing.T) {
	reg := prometheus.NewRegistry()
	obs := engineObserver(reg)
	for range 5 { // idle sweeps: the expiry and the purge, once each
		obs(engine.Event{Op: "sweep", Attempts: 2, Duration: time.Millisecond})
	}
	obs(engine.Event{Op: "sweep", Attempts: 3, Retries: 1, Expired: 4, Purged: 2})
	obs(engine.Event{Op: "sweep", Code: "internal", Attempts: 1})
	obs(engine.Event{Op: "reserve", Attempts: 3, Retries: 2})
	obs(engine.Event{Op: "reserve", Code: "insufficient_stock", Attempts: 1})
	obs(engine.Event{Op: "batch", Attempts: 2, Retries: 1, Calls: 3})
	obs(engine.Event{Op: "checkout", Attempts: 2}) // decided by that batch

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

// TestServeIdleSweepsRetryNothing: a service that nobody calls sweeps
// every tick, and /metrics shows the sweeps, the Go runtime, and no retry.
func TestServeIdleSweepsRetryNothing(t *testing.T) {
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
