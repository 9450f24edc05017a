package engine_test

import (
	"testing"

	"github.com/stockade/stockade/engine"
)

// TestSweepEvents: each sweep reports one event of op "sweep". An idle
// one runs six transactions, the expiry of reservations and of holds,
// the purge, the pruning of events, the search for stuck payments and
// the read of the settled ones left unresolved, and retries none; a
// transaction that meets a conflict counts one retry.
func TestSweepEvents(t *testing.T) {
	t.Parallel()
	h := &hooked{Store: openSQLite(t)}
	en := newEnvOn(t, h, engine.Atomic, nil)

	for range 3 {
		if n, err := en.eng.Sweep(t.Context()); err != nil || n != 0 {
			t.Fatalf("idle sweep = %d, %v", n, err)
		}
		ev := en.lastEvent("sweep")
		if ev.Code != "" || ev.Attempts != 6 || ev.Retries != 0 || ev.Expired != 0 || ev.Purged != 0 || ev.Pruned != 0 || ev.Stuck != 0 {
			t.Errorf("idle sweep: event %+v, want 6 attempts, no retries, nothing expired, purged, pruned or stuck", ev)
		}
	}

	// The first attempt of each expiry meets a conflict.
	first := h.n.Load() + 1
	h.before = func(n int64) error {
		if n == first || n == first+2 {
			return errConflict
		}
		return nil
	}
	if _, err := en.eng.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ev := en.lastEvent("sweep"); ev.Code != "" || ev.Attempts != 8 || ev.Retries != 2 {
		t.Errorf("sweep with a conflict in two transactions: event %+v, want 8 attempts, 2 retries", ev)
	}

	// A failure is reported with its code.
	h.before = func(int64) error { return errBoom }
	if _, err := en.eng.Sweep(t.Context()); err == nil {
		t.Fatal("sweep on a failing store succeeded")
	}
	if ev := en.lastEvent("sweep"); ev.Code == "" || ev.Retries != 0 {
		t.Errorf("failed sweep: event %+v, want an error code and no retries", ev)
	}
}
