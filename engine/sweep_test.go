package engine_test

import (
	"testing"

	"github.com/stockade/stockade/engine"
)

// TestSweepEvents: each sweep reports one event of op "sweep". An idle
// one runs two transactions, the expiry and the purge, and retries
// neither; a transaction that meets a conflict counts one retry.
func TestSweepEvents(t *testing.T) {
	h := &hooked{Store: openSQLite(t)}
	en := newEnvOn(t, h, engine.Atomic, nil)

	for range 3 {
		if n, err := en.eng.Sweep(t.Context()); err != nil || n != 0 {
			t.Fatalf("idle sweep = %d, %v", n, err)
		}
		ev := en.lastEvent("sweep")
		if ev.Code != "" || ev.Attempts != 2 || ev.Retries != 0 || ev.Expired != 0 || ev.Purged != 0 {
			t.Errorf("idle sweep: event %+v, want 2 attempts, no retries, nothing expired or purged", ev)
		}
	}

	// The first attempt of each transaction meets a conflict.
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
	if ev := en.lastEvent("sweep"); ev.Code != "" || ev.Attempts != 4 || ev.Retries != 2 {
		t.Errorf("sweep with a conflict in each transaction: event %+v, want 4 attempts, 2 retries", ev)
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
