package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// TestSweepEvents: each sweep reports one event of op "sweep". An idle
// one runs seven transactions, the expiry of reservations and of holds,
// the purge, the pruning of events and of finished webhook deliveries,
// the search for stuck payments and the read of the settled ones left
// unresolved, and retries none; a
// transaction that meets a conflict counts one retry.
func TestSweepEvents(t *testing.T) {
	t.Parallel()
	h := &hooked{Store: openSQLite(t)}
	en := newEnvOn(t, h, engine.Atomic, nil)

	for range 3 {
		if n, err := en.eng.Sweep(sys(t)); err != nil || n != 0 {
			t.Fatalf("idle sweep = %d, %v", n, err)
		}
		ev := en.lastEvent("sweep")
		if ev.Code != "" || ev.Attempts != 7 || ev.Retries != 0 || ev.Expired != 0 || ev.Purged != 0 || ev.Pruned != 0 || ev.Stuck != 0 {
			t.Errorf("idle sweep: event %+v, want 7 attempts, no retries, nothing expired, purged, pruned or stuck", ev)
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
	if _, err := en.eng.Sweep(sys(t)); err != nil {
		t.Fatal(err)
	}
	if ev := en.lastEvent("sweep"); ev.Code != "" || ev.Attempts != 9 || ev.Retries != 2 {
		t.Errorf("sweep with a conflict in two transactions: event %+v, want 9 attempts, 2 retries", ev)
	}

	// A failure is reported with its code.
	h.before = func(int64) error { return errBoom }
	if _, err := en.eng.Sweep(sys(t)); err == nil {
		t.Fatal("sweep on a failing store succeeded")
	}
	if ev := en.lastEvent("sweep"); ev.Code == "" || ev.Retries != 0 {
		t.Errorf("failed sweep: event %+v, want an error code and no retries", ev)
	}
}

// TestSweepPastKeptCandidates: the reservations, holds and payments that
// the rule of lapse keeps never use up a sweep's batch. With a batch of
// two, the sweeper still expires a reservation and a hold that lapsed
// behind three kept ones each (their payments in flight), a hold that
// needs the event's seats still expires a lapsed hold behind them, and
// a payment still in flight past the grace is found stuck behind six
// found stuck before it.
func TestSweepPastKeptCandidates(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			en := newEnv(t, b, engine.Atomic, func(o *engine.Options) { o.SweepBatch = 2 })
			ctx := sys(t)
			en.location("w1", 0, 0)
			en.stock("tee", "w1", 10)
			if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
				t.Fatal(err)
			}
			reserve := func() stockade.Reservation {
				t.Helper()
				r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{line("tee", 1, "")}, TTL: time.Minute}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			hold := func(seat string) stockade.Hold {
				t.Helper()
				h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{seat}, TTL: time.Minute}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			var kept []string
			for i := range 3 { // expire first, kept by their payments
				r, h := reserve(), hold(fmt.Sprintf("stalls/A/%d", i+1))
				en.mustOutcome(en.pay(stockade.PayReservation, r.ID).ID, stockade.PaymentProcessing)
				en.mustOutcome(en.pay(stockade.PayHold, h.ID).ID, stockade.PaymentAuthorized)
				kept = append(kept, r.ID, h.ID)
			}
			en.clock.Advance(time.Second)
			r, h := reserve(), hold("stalls/B/1")

			en.clock.Advance(5 * time.Minute) // every one lapsed, the kept ones within the grace period
			if n, err := en.eng.Sweep(ctx); err != nil || n != 2 {
				t.Fatalf("Sweep = %d, %v; want the reservation and the hold behind the kept ones expired", n, err)
			}
			if got, err := en.eng.Reservation(ctx, r.ID); err != nil || got.Status != stockade.Expired {
				t.Errorf("reservation behind the kept ones: %s, %v; want expired", got.Status, err)
			}
			if got, err := en.eng.Hold(ctx, h.ID); err != nil || got.Status != stockade.HoldExpired {
				t.Errorf("hold behind the kept ones: %s, %v; want expired", got.Status, err)
			}
			if got := en.counters("tee", "w1"); got != [3]int64{10, 3, 0} {
				t.Errorf("counters %v, want the kept reservations' 3 reserved", got)
			}

			// A hold that needs a seat of a hold lapsed behind the kept ones
			// expires it itself.
			h = hold("stalls/B/2")
			en.clock.Advance(2 * time.Minute)
			taker, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/2"}, TTL: time.Minute}, nil)
			if err != nil {
				t.Fatalf("hold of a seat whose hold lapsed behind the kept ones: %v", err)
			}
			if got, err := en.eng.Hold(ctx, h.ID); err != nil || got.Status != stockade.HoldExpired {
				t.Errorf("lapsed hold of the seat: %s, %v; want expired", got.Status, err)
			}

			en.clock.Advance(10 * time.Minute) // past the kept ones' grace period
			if n, err := en.eng.Sweep(ctx); err != nil || n != 1 {
				t.Fatalf("Sweep = %d, %v; want one expired, the hold %s", n, err, taker.ID)
			}
			if ev := en.lastEvent("sweep"); ev.Stuck != 6 {
				t.Errorf("sweep past the grace period: %d stuck, want 6", ev.Stuck)
			}
			// One more in flight, behind the six stuck ones: found stuck too.
			late := reserve()
			en.mustOutcome(en.pay(stockade.PayReservation, late.ID).ID, stockade.PaymentProcessing)
			en.clock.Advance(15 * time.Minute)
			if n, err := en.eng.Sweep(ctx); err != nil || n != 0 {
				t.Fatalf("Sweep = %d, %v; want nothing expired", n, err)
			}
			if ev := en.lastEvent("sweep"); ev.Stuck != 1 {
				t.Errorf("sweep behind six stuck payments: %d stuck, want 1", ev.Stuck)
			}
			for _, id := range kept[:2] {
				if got, err := en.eng.Reservation(ctx, id); err == nil && got.Status != stockade.Held {
					t.Errorf("kept reservation %s: %s, want held", id, got.Status)
				}
			}
			en.balanced()
		})
	}
}
