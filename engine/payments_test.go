package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
)

// pay creates the payment of target, of 1,250 cents.
func (en *env) pay(kind stockade.PaymentTargetKind, id string) stockade.Payment {
	en.t.Helper()
	p, err := en.eng.CreatePayment(sys(en.t), stockade.NewPaymentRequest{
		Target: stockade.PaymentTarget{Kind: kind, ID: id}, Amount: 1250, Currency: "EUR"}, nil)
	if err != nil {
		en.t.Fatal(err)
	}
	return p
}

var outcomes atomic.Int64

// outcome applies a fresh outcome (an event id of its own) of status to
// the payment id, as the webhook would.
func (en *env) outcome(id string, status stockade.PaymentStatus) (stockade.Payment, error) {
	return en.eng.ApplyOutcome(sys(en.t), stockade.PaymentOutcome{
		EventID: fmt.Sprintf("out_%d", outcomes.Add(1)), PaymentID: id, Status: status}, "webhook")
}

// mustOutcome is outcome that must apply.
func (en *env) mustOutcome(id string, status stockade.PaymentStatus) stockade.Payment {
	en.t.Helper()
	p, err := en.outcome(id, status)
	if err != nil {
		en.t.Fatalf("outcome %s of %s: %v", status, id, err)
	}
	return p
}

// TestPaymentSaga: a payment's outcomes confirm what it pays for when it
// settles and give it back when it fails or is cancelled, for a
// reservation, a hold and an order; a delivery again, or a stale
// outcome, changes nothing, and a contradicting one is refused.
func TestPaymentSaga(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		want := func(c [3]int64) {
			t.Helper()
			if got := en.counters("tee", "w1"); got != c {
				t.Fatalf("on hand, reserved, committed = %v, want %v", got, c)
			}
		}

		// Success: processing, then succeeded, confirms the reservation.
		r, err := en.eng.Reserve(ctx, lines(line("tee", 2, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := en.pay(stockade.PayReservation, r.ID)
		if p.Status != stockade.PaymentPending || p.Version != 1 || p.Resolution != stockade.Unresolved {
			t.Fatalf("new payment: %+v", p)
		}
		en.mustOutcome(p.ID, stockade.PaymentProcessing)
		if p = en.mustOutcome(p.ID, stockade.PaymentProcessing); p.Version != 2 {
			t.Errorf("processing again: version %d, want 2 (unchanged)", p.Version)
		}
		want([3]int64{10, 2, 0})
		done := stockade.PaymentOutcome{EventID: "psp-1", PaymentID: p.ID, Status: stockade.PaymentSucceeded}
		p, err = en.eng.ApplyOutcome(ctx, done, "webhook")
		if err != nil || p.Status != stockade.PaymentSucceeded || p.Resolution != stockade.ResolvedConfirmed || p.Order == "" || p.Version != 3 {
			t.Fatalf("succeeded: %+v, %v", p, err)
		}
		want([3]int64{10, 0, 2})
		if got, err := en.eng.Reservation(ctx, r.ID); err != nil || got.Status != stockade.Confirmed || got.OrderID != p.Order {
			t.Errorf("the paid reservation: %+v, %v", got, err)
		}
		if again, err := en.eng.ApplyOutcome(ctx, done, "webhook"); err != nil || again.Version != p.Version {
			t.Errorf("the same outcome again: %+v, %v; want it unchanged", again, err)
		}
		if ev := en.lastEvent("apply payment outcome"); !ev.Replayed {
			t.Errorf("the same outcome again: %+v, want it found in the inbox", ev)
		}
		if late := en.mustOutcome(p.ID, stockade.PaymentProcessing); late.Version != p.Version {
			t.Errorf("a late processing: version %d, want %d", late.Version, p.Version)
		}
		_, err = en.outcome(p.ID, stockade.PaymentFailed)
		wantCode(t, err, stockade.EInvalidState)
		if ignored, ok := errors.AsType[*stockade.IgnoredOutcome](err); !ok || !strings.Contains(err.Error(), "succeeded") || ignored.Payment.Version != p.Version {
			t.Errorf("refusal %v: want an IgnoredOutcome naming the status, with the payment unchanged", err)
		}
		want([3]int64{10, 0, 2})
		hist, err := en.eng.PaymentHistory(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var moves []string
		for _, c := range hist {
			moves = append(moves, fmt.Sprintf("%s>%s:%s:%s", c.From, c.To, c.Resolution, c.Actor))
		}
		// The contradicting failure is in the history, as ignored.
		if got, w := strings.Join(moves, " "), "pending>processing::webhook processing>succeeded:confirmed:webhook succeeded>succeeded::webhook"; got != w {
			t.Errorf("history %q, want %q", got, w)
		}
		if last := hist[len(hist)-1]; !strings.HasPrefix(last.Reason, "ignored outcome failed") {
			t.Errorf("the ignored failure's reason: %q", last.Reason)
		}

		// Failure releases; a second payment of the same target is
		// refused.
		r, err = en.eng.Reserve(ctx, lines(line("tee", 3, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		p = en.pay(stockade.PayReservation, r.ID)
		_, err = en.eng.CreatePayment(ctx, stockade.NewPaymentRequest{Target: p.Target, Amount: 1, Currency: "EUR"}, nil)
		wantCode(t, err, stockade.EPaymentExists)
		want([3]int64{10, 3, 2})
		if p = en.mustOutcome(p.ID, stockade.PaymentFailed); p.Resolution != stockade.ResolvedReleased {
			t.Errorf("failed: %+v", p)
		}
		want([3]int64{10, 0, 2})
		if got, _ := en.eng.Reservation(ctx, r.ID); got.Status != stockade.Released {
			t.Errorf("the reservation of a failed payment is %s", got.Status)
		}

		// Cancel: pending can be cancelled, processing cannot.
		r, _ = en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
		p = en.pay(stockade.PayReservation, r.ID)
		if p, err = en.eng.CancelPayment(ctx, p.ID, "buyer left", nil); err != nil || p.Status != stockade.PaymentCancelled || p.Resolution != stockade.ResolvedReleased {
			t.Fatalf("cancel: %+v, %v", p, err)
		}
		r, _ = en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
		p = en.pay(stockade.PayReservation, r.ID)
		en.mustOutcome(p.ID, stockade.PaymentProcessing)
		_, err = en.eng.CancelPayment(ctx, p.ID, "", nil)
		wantCode(t, err, stockade.EInvalidState)
		want([3]int64{10, 1, 2})

		// An order: a failed payment cancels it.
		o, err := en.eng.Checkout(ctx, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		p = en.pay(stockade.PayOrder, o.ID)
		en.mustOutcome(p.ID, stockade.PaymentAuthorized)
		want([3]int64{10, 1, 6})
		if p = en.mustOutcome(p.ID, stockade.PaymentFailed); p.Resolution != stockade.ResolvedReleased {
			t.Errorf("the failed payment of an order: %+v", p)
		}
		want([3]int64{10, 1, 2})
		if got, _ := en.eng.Order(ctx, o.ID); got.Status != stockade.Cancelled {
			t.Errorf("the order of a failed payment is %s", got.Status)
		}
		en.balanced()
	})
}

// TestPaymentHolds: a settled payment books its hold's seats and places,
// a failed one frees them.
func TestPaymentHolds(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/1", "stalls/A/2"},
			Places: []stockade.Places{{Area: "standing", Quantity: 2}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := en.pay(stockade.PayHold, h.ID)
		p = en.mustOutcome(p.ID, stockade.PaymentCaptured) // pending → authorized → captured, in one report
		if p.Status != stockade.PaymentCaptured || p.Resolution != stockade.ResolvedConfirmed || p.Booking == "" {
			t.Fatalf("captured: %+v", p)
		}
		if bk, err := en.eng.Booking(ctx, p.Booking); err != nil || bk.HoldID != h.ID || bk.Status != stockade.BookingBooked {
			t.Errorf("the paid hold's booking: %+v, %v", bk, err)
		}
		if got := en.seatsOf("gig", stockade.SeatBooked); strings.Join(got, ",") != "stalls/A/1,stalls/A/2" {
			t.Errorf("booked seats %v", got)
		}

		// A hold whose payment is in flight does not lapse: the sweeper
		// keeps it, and its client may confirm it.
		h, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/5"}, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		en.mustOutcome(en.pay(stockade.PayHold, h.ID).ID, stockade.PaymentProcessing)
		en.clock.Advance(5 * time.Minute)
		if n, err := en.eng.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("Sweep = %d, %v; want nothing expired", n, err)
		}
		if got, err := en.eng.Hold(ctx, h.ID); err != nil || got.Status != stockade.HoldHeld {
			t.Errorf("a lapsed hold whose payment is in flight reads %s, %v; want held", got.Status, err)
		}
		if bk, err := en.eng.ConfirmHold(ctx, h.ID, nil); err != nil || bk.HoldID != h.ID {
			t.Fatalf("confirm a lapsed hold whose payment is in flight: %+v, %v", bk, err)
		}

		h, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/1"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p = en.pay(stockade.PayHold, h.ID)
		if p = en.mustOutcome(p.ID, stockade.PaymentFailed); p.Resolution != stockade.ResolvedReleased {
			t.Errorf("failed: %+v", p)
		}
		if got := en.seatsOf("gig", stockade.SeatHeld); len(got) != 0 {
			t.Errorf("held seats after the failed payment: %v", got)
		}
		en.reconciled()
	})
}

// TestPaymentOnePerTarget: of 200 concurrent creations of a payment for
// one reservation, exactly one succeeds; the others are refused naming
// it.
func TestPaymentOnePerTarget(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 1)
		r, err := en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created []string
			refused int
		)
		for range 200 {
			wg.Go(func() {
				p, err := en.eng.CreatePayment(ctx, stockade.NewPaymentRequest{
					Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 500, Currency: "USD"}, nil)
				mu.Lock()
				defer mu.Unlock()
				switch stockade.ErrorCode(err) {
				case "":
					created = append(created, p.ID)
				case stockade.EPaymentExists:
					refused++
				default:
					t.Errorf("create: %v", err)
				}
			})
		}
		wg.Wait()
		if len(created) != 1 || refused != 199 {
			t.Fatalf("%d payments created (%v), %d refused; want 1 and 199", len(created), created, refused)
		}
		page, err := en.eng.Payments(ctx, stockade.PaymentQuery{})
		if err != nil || len(page.Payments) != 1 || page.Payments[0].ID != created[0] {
			t.Fatalf("payments: %+v, %v", page, err)
		}
	})
}

// TestPaymentOutcomesShuffled: 1,000 checkouts, each paid for, whose
// outcomes (processing, then succeeded or, for every fourth, failed) are
// each delivered three times, all shuffled and applied by concurrent
// workers: every success is confirmed once, every failure released once,
// and the ledger balances.
func TestPaymentOutcomesShuffled(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		release := testkit.Heavy(t)
		ctx := sys(t)
		const n = 1000
		en.location("w1", 0, 0)
		for i := range 10 {
			en.stock(fmt.Sprintf("sku-%d", i), "w1", 1000)
		}
		var (
			payments = make([]stockade.Payment, n)
			fails    = map[string]bool{}
			wg       sync.WaitGroup
		)
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					r, err := en.eng.Reserve(ctx, lines(line(fmt.Sprintf("sku-%d", i%10), 1+int64(i%3), "")), nil)
					if err != nil {
						t.Error(err)
						return
					}
					payments[i], err = en.eng.CreatePayment(ctx, stockade.NewPaymentRequest{
						Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 100, Currency: "EUR"}, nil)
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		var deliveries []stockade.PaymentOutcome
		for i, p := range payments {
			end := stockade.PaymentSucceeded
			if i%4 == 0 {
				end, fails[p.ID] = stockade.PaymentFailed, true
			}
			for j, s := range []stockade.PaymentStatus{stockade.PaymentProcessing, end} {
				o := stockade.PaymentOutcome{EventID: fmt.Sprintf("%s-%d", p.ID, j), PaymentID: p.ID, Status: s}
				deliveries = append(deliveries, o, o, o)
			}
		}
		rand.Shuffle(len(deliveries), func(i, j int) { deliveries[i], deliveries[j] = deliveries[j], deliveries[i] })
		next := atomic.Int64{}
		for range 16 {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(len(deliveries)); i = next.Add(1) - 1 {
					if _, err := en.eng.ApplyOutcome(ctx, deliveries[i], "jetstream"); err != nil {
						t.Errorf("outcome %+v: %v", deliveries[i], err)
					}
				}
			})
		}
		wg.Wait()
		release() // the checks below read, one call at a time

		orders := map[string]bool{}
		for _, p := range payments {
			got, err := en.eng.Payment(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			r, err := en.eng.Reservation(ctx, p.Target.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case fails[p.ID]:
				if got.Status != stockade.PaymentFailed || got.Resolution != stockade.ResolvedReleased || r.Status != stockade.Released {
					t.Errorf("failed payment %s: %s/%s, reservation %s", p.ID, got.Status, got.Resolution, r.Status)
				}
			case got.Status != stockade.PaymentSucceeded || got.Resolution != stockade.ResolvedConfirmed || r.Status != stockade.Confirmed || r.OrderID != got.Order:
				t.Errorf("paid payment %s: %+v, reservation %+v", p.ID, got, r)
			case orders[got.Order]:
				t.Errorf("order %s confirmed twice", got.Order)
			default:
				orders[got.Order] = true
			}
			hist, err := en.eng.PaymentHistory(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			// Processing is applied only if it came before the end.
			if len(hist) < 1 || len(hist) > 2 || hist[len(hist)-1].Resolution == stockade.Unresolved {
				t.Errorf("payment %s: history %+v", p.ID, hist)
			}
		}
		page, err := en.eng.Orders(ctx, stockade.ListQuery{Limit: stockade.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		if want := n - len(fails); len(orders) != want {
			t.Errorf("%d orders, want %d", len(orders), want)
		}
		for page.Next != "" {
			if page, err = en.eng.Orders(ctx, stockade.ListQuery{Cursor: page.Next, Limit: stockade.MaxListLimit}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 10 {
			if c := en.counters(fmt.Sprintf("sku-%d", i), "w1"); c[1] != 0 {
				t.Errorf("sku-%d: %d still reserved", i, c[1])
			}
		}
		en.balanced()
	})
}

// TestPaymentStuck: a reservation whose payment is processing does not
// expire when it lapses: the sweeper keeps it through the grace period,
// then marks the payment stuck and still keeps it; a late success then
// confirms it, and a late failure releases it.
func TestPaymentStuck(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 5)
		reserve := func(q int64, status stockade.PaymentStatus) (stockade.Reservation, stockade.Payment) {
			t.Helper()
			r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{line("tee", q, "")}, TTL: time.Minute}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := en.pay(stockade.PayReservation, r.ID)
			return r, en.mustOutcome(p.ID, status)
		}
		_, p1 := reserve(2, stockade.PaymentProcessing)
		_, p2 := reserve(2, stockade.PaymentProcessing)
		r3, _ := reserve(1, stockade.PaymentAuthorized)

		en.clock.Advance(5 * time.Minute) // lapsed, within the grace period (10 minutes)
		if n, err := en.eng.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("Sweep = %d, %v; want nothing expired", n, err)
		}
		_, err := en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
		wantCode(t, err, stockade.EInsufficientStock) // their stock is still theirs
		if got := en.counters("tee", "w1"); got != [3]int64{5, 5, 0} {
			t.Fatalf("counters %v within the grace period", got)
		}
		// All three read as held, alone or listed: their payments keep them.
		if got, err := en.eng.Reservation(ctx, r3.ID); err != nil || got.Status != stockade.Held {
			t.Errorf("a lapsed reservation whose payment is in flight reads %s, %v; want held", got.Status, err)
		}
		page, err := en.eng.Reservations(ctx, stockade.ListQuery{})
		if err != nil || len(page.Reservations) != 3 {
			t.Fatalf("list: %+v, %v", page, err)
		}
		for _, r := range page.Reservations {
			if r.Status != stockade.Held {
				t.Errorf("listed: reservation %s reads %s; want held, its payment in flight", r.ID, r.Status)
			}
		}
		// A client may still confirm one: it has not lapsed.
		if o, err := en.eng.Confirm(ctx, r3.ID, nil); err != nil || o.ReservationID != r3.ID {
			t.Fatalf("confirm a lapsed reservation whose payment is in flight: %+v, %v", o, err)
		}

		en.clock.Advance(10 * time.Minute) // past the grace period
		if n, err := en.eng.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("Sweep = %d, %v; want nothing expired", n, err)
		}
		if ev := en.lastEvent("sweep"); ev.Stuck != 2 {
			t.Errorf("sweep event: %d stuck, want 2", ev.Stuck)
		}
		stuck, err := en.eng.Payments(ctx, stockade.PaymentQuery{Stuck: true})
		if err != nil || len(stuck.Payments) != 2 {
			t.Fatalf("stuck payments: %+v, %v", stuck, err)
		}
		for _, p := range stuck.Payments {
			if !p.Stuck() || p.Status != stockade.PaymentProcessing {
				t.Errorf("stuck payment %+v", p)
			}
		}
		en.eng.Sweep(ctx)
		if ev := en.lastEvent("sweep"); ev.Stuck != 0 {
			t.Errorf("a second sweep found %d stuck again", ev.Stuck)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{5, 4, 1} {
			t.Fatalf("counters %v after the grace period", got)
		}

		if p := en.mustOutcome(p1.ID, stockade.PaymentSucceeded); p.Resolution != stockade.ResolvedConfirmed || p.Stuck() {
			t.Errorf("late success of a stuck payment: %+v", p)
		}
		if p := en.mustOutcome(p2.ID, stockade.PaymentFailed); p.Resolution != stockade.ResolvedReleased || p.Stuck() {
			t.Errorf("late failure of a stuck payment: %+v", p)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{5, 0, 3} {
			t.Fatalf("counters %v after the late outcomes", got)
		}
		if page, _ := en.eng.Payments(ctx, stockade.PaymentQuery{Stuck: true}); len(page.Payments) != 0 {
			t.Errorf("stuck payments after their outcomes: %+v", page.Payments)
		}
		en.balanced()
	})
}

// TestPaymentLateSuccess: a payment that settles after its reservation
// or hold expired takes the same stock or seats again if they are free,
// and is marked needs_refund if they are not; nothing is oversold.
func TestPaymentLateSuccess(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 3)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		short := func(req stockade.ReserveRequest) stockade.Payment {
			req.TTL = time.Minute
			r, err := en.eng.Reserve(ctx, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			return en.pay(stockade.PayReservation, r.ID)
		}
		free := short(lines(line("tee", 1, "")))
		gone := short(lines(line("tee", 2, "")))
		seat := stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/3"}, TTL: time.Minute}
		h, err := en.eng.HoldSeats(ctx, seat, nil)
		if err != nil {
			t.Fatal(err)
		}
		heldAgain := en.pay(stockade.PayHold, h.ID)
		h, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/4"}, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		taken := en.pay(stockade.PayHold, h.ID)

		// Pending payments do not keep their targets: they expire.
		en.clock.Advance(2 * time.Minute)
		if n, err := en.eng.Sweep(ctx); err != nil || n != 4 {
			t.Fatalf("Sweep = %d, %v; want 4 expired", n, err)
		}
		// Others take two of the three tees and seat A/4.
		if _, err := en.eng.Checkout(ctx, lines(line("tee", 2, "")), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/4"}}, nil); err != nil {
			t.Fatal(err)
		}

		p := en.mustOutcome(free.ID, stockade.PaymentSucceeded)
		if p.Resolution != stockade.ResolvedReordered || p.Order == "" {
			t.Errorf("late success with stock left: %+v", p)
		} else if o, err := en.eng.Order(ctx, p.Order); err != nil || o.Lines[0].Quantity != 1 {
			t.Errorf("its order: %+v, %v", o, err)
		}
		if p = en.mustOutcome(gone.ID, stockade.PaymentSucceeded); p.Resolution != stockade.ResolvedNeedsRefund || p.Order != "" {
			t.Errorf("late success without stock: %+v", p)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{3, 0, 3} {
			t.Errorf("counters %v, want all 3 committed, none twice", got)
		}
		if p = en.mustOutcome(heldAgain.ID, stockade.PaymentSucceeded); p.Resolution != stockade.ResolvedReordered || p.Booking == "" {
			t.Errorf("late success with the seat free: %+v", p)
		}
		if p = en.mustOutcome(taken.ID, stockade.PaymentSucceeded); p.Resolution != stockade.ResolvedNeedsRefund {
			t.Errorf("late success with the seat taken: %+v", p)
		}
		if got := en.seatsOf("gig", stockade.SeatBooked); strings.Join(got, ",") != "stalls/A/3" {
			t.Errorf("booked seats %v", got)
		}
		page, err := en.eng.Payments(ctx, stockade.PaymentQuery{Resolution: string(stockade.ResolvedNeedsRefund)})
		if err != nil || len(page.Payments) != 2 {
			t.Errorf("payments that need a refund: %+v, %v", page, err)
		}
		en.reconciled()
	})
}

// TestPaymentSuccessAfterExpiry: a payment that settles after its
// pending-paid reservation or hold expired, but before any sweep, finds
// them as a read already showed them, expired: it takes them again
// (reordered) rather than confirming what the client was told had
// expired. An outcome of any other status expires them the same way, and
// so does cancelling the payment.
func TestPaymentSuccessAfterExpiry(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 5)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		paid := en.pay(stockade.PayReservation, r.ID)
		h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/1"}, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		held := en.pay(stockade.PayHold, h.ID)
		r2, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		other := en.pay(stockade.PayReservation, r2.ID)

		en.clock.Advance(2 * time.Minute) // no sweep
		if got, err := en.eng.Reservation(ctx, r.ID); err != nil || got.Status != stockade.Expired {
			t.Fatalf("the reservation after its expiry: %+v, %v; want it read as expired", got, err)
		}
		p := en.mustOutcome(paid.ID, stockade.PaymentSucceeded)
		if p.Resolution != stockade.ResolvedReordered || p.Order == "" {
			t.Errorf("success after the reservation expired: %+v, want reordered", p)
		}
		if got, err := en.eng.Reservation(ctx, r.ID); err != nil || got.Status != stockade.Expired || got.OrderID != "" {
			t.Errorf("the reservation after the late success: %+v, %v; want expired, as it was read", got, err)
		}
		if p = en.mustOutcome(held.ID, stockade.PaymentSucceeded); p.Resolution != stockade.ResolvedReordered || p.Booking == "" {
			t.Errorf("success after the hold expired: %+v, want reordered", p)
		}
		if got, err := en.eng.Hold(ctx, h.ID); err != nil || got.Status != stockade.HoldExpired {
			t.Errorf("the hold after the late success: %+v, %v; want expired", got, err)
		}
		// A payment that only starts processing after its reservation
		// expired does not bring the reservation back.
		en.mustOutcome(other.ID, stockade.PaymentProcessing)
		if got, err := en.eng.Reservation(ctx, r2.ID); err != nil || got.Status != stockade.Expired {
			t.Errorf("the reservation whose payment started after its expiry: %+v, %v; want expired", got, err)
		}
		// A pending payment cancelled after its reservation expired finds
		// it expired too, not released.
		r3, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		third := en.pay(stockade.PayReservation, r3.ID)
		en.clock.Advance(2 * time.Minute)
		if p, err := en.eng.CancelPayment(ctx, third.ID, "", nil); err != nil || p.Status != stockade.PaymentCancelled {
			t.Fatalf("cancel after expiry: %+v, %v", p, err)
		}
		if got, err := en.eng.Reservation(ctx, r3.ID); err != nil || got.Status != stockade.Expired {
			t.Errorf("the reservation whose payment was cancelled after its expiry: %+v, %v; want expired", got, err)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{5, 0, 1} {
			t.Errorf("counters %v, want one committed (the reorder), none reserved", got)
		}
		en.reconciled()
	})
}

// TestPaymentTransitionsRefused walks a payment to every status by the
// transition table, and there applies an outcome of every status: one
// the table leads to applies, one at or before the payment's stage is
// stale, and every other is refused with EInvalidState naming the
// current status, changing nothing. Cancel is allowed exactly where the
// table allows it.
func TestPaymentTransitionsRefused(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Atomic, nil)
	ctx := sys(t)
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 1_000_000)
	// paths[s] is a walk of the table from pending to s.
	paths := map[stockade.PaymentStatus][]stockade.PaymentStatus{stockade.PaymentPending: nil}
	for queue := []stockade.PaymentStatus{stockade.PaymentPending}; len(queue) > 0; queue = queue[1:] {
		for _, next := range stockade.PaymentTransitions[queue[0]] {
			if _, ok := paths[next]; !ok {
				paths[next] = append(append([]stockade.PaymentStatus{}, paths[queue[0]]...), next)
				queue = append(queue, next)
			}
		}
	}
	if len(paths) != len(stockade.PaymentStatuses) {
		t.Fatalf("the table reaches %d statuses of %d", len(paths), len(stockade.PaymentStatuses))
	}
	at := func(s stockade.PaymentStatus) stockade.Payment {
		t.Helper()
		r, err := en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := en.pay(stockade.PayReservation, r.ID)
		for _, step := range paths[s] {
			p = en.mustOutcome(p.ID, step)
		}
		if p.Status != s {
			t.Fatalf("walked to %s, got %s", s, p.Status)
		}
		return p
	}
	refused := 0
	for _, from := range stockade.PaymentStatuses {
		for _, to := range stockade.PaymentStatuses[1:] { // a payment system never reports pending
			p := at(from)
			effect, wantErr := from.Outcome(to)
			got, err := en.outcome(p.ID, to)
			switch {
			case wantErr != nil:
				refused++
				wantCode(t, err, stockade.EInvalidState)
				if !strings.Contains(err.Error(), string(from)) {
					t.Errorf("%s → %s: refusal %q does not name %s", from, to, err, from)
				}
				if now, _ := en.eng.Payment(ctx, p.ID); now.Version != p.Version {
					t.Errorf("%s → %s: refused, but the payment changed: %+v", from, to, now)
				}
			case err != nil:
				t.Errorf("%s → %s: %v", from, to, err)
			case effect == stockade.OutcomeStale && got.Version != p.Version:
				t.Errorf("%s → %s: stale, but the payment changed to %+v", from, to, got)
			case effect == stockade.OutcomeApply && got.Status != to:
				t.Errorf("%s → %s: the payment is %s", from, to, got.Status)
			}
		}
		p := at(from)
		_, err := en.eng.CancelPayment(ctx, p.ID, "", nil)
		switch {
		case from == stockade.PaymentCancelled || from.CanMove(stockade.PaymentCancelled):
			if err != nil {
				t.Errorf("cancel %s: %v", from, err)
			}
		default:
			wantCode(t, err, stockade.EInvalidState)
		}
	}
	if refused == 0 {
		t.Fatal("no outcome was refused: the table allows everything?")
	}
	en.balanced()
}

// TestPaymentOutcomeRace: each of 50 payments gets a "succeeded" and a
// "failed" at once, with outcomes of payments that do not exist among
// them, from 100 goroutines (under batch, decided in shared batches).
// Exactly one of each pair applies and decides the reservation; the
// other is refused, and is not recorded as applied: sent again, it is
// refused again, while the one that applied answers as applied.
func TestPaymentOutcomeRace(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		const n = 50
		en.location("w1", 0, 0)
		en.stock("tee", "w1", n)
		pays := make([]stockade.Payment, n)
		for i := range pays {
			r, err := en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
			if err != nil {
				t.Fatal(err)
			}
			pays[i] = en.pay(stockade.PayReservation, r.ID)
		}
		outcome := func(i int, status stockade.PaymentStatus) stockade.PaymentOutcome {
			return stockade.PaymentOutcome{EventID: fmt.Sprintf("%s-%d", status, i), PaymentID: pays[i].ID, Status: status}
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			applied = map[string]bool{} // event ids
		)
		start := make(chan struct{})
		for i := range n {
			for _, status := range []stockade.PaymentStatus{stockade.PaymentSucceeded, stockade.PaymentFailed} {
				wg.Go(func() {
					<-start
					_, err := en.eng.ApplyOutcome(ctx, outcome(i, status), "jetstream")
					switch stockade.ErrorCode(err) {
					case "":
						mu.Lock()
						applied[outcome(i, status).EventID] = true
						mu.Unlock()
					case stockade.EInvalidState:
					default:
						t.Errorf("outcome %s of payment %d: %v", status, i, err)
					}
				})
			}
			wg.Go(func() {
				<-start
				_, err := en.eng.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: fmt.Sprintf("ghost-%d", i), PaymentID: fmt.Sprintf("pay_ghost_%d", i),
					Status: stockade.PaymentSucceeded}, "jetstream")
				if stockade.ErrorCode(err) != stockade.ENotFound {
					t.Errorf("outcome of a missing payment: %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		for i, p := range pays {
			won, lost := stockade.PaymentSucceeded, stockade.PaymentFailed
			if applied[outcome(i, lost).EventID] {
				won, lost = lost, won
			}
			if !applied[outcome(i, won).EventID] || applied[outcome(i, lost).EventID] {
				t.Fatalf("payment %d: applied %v and %v", i, applied[outcome(i, won).EventID], applied[outcome(i, lost).EventID])
			}
			// The refused outcome was recorded as ignored: again, it is
			// a replay.
			if again, err := en.eng.ApplyOutcome(ctx, outcome(i, lost), "jetstream"); err != nil || again.Status != won {
				t.Errorf("payment %d: the refused %s again: %+v, %v; want a replay of a %s payment", i, lost, again, err, won)
			}
			got, err := en.eng.ApplyOutcome(ctx, outcome(i, won), "jetstream")
			if err != nil || got.Status != won {
				t.Errorf("payment %d: the applied %s again: %+v, %v", i, won, got, err)
			}
			r, err := en.eng.Reservation(ctx, p.Target.ID)
			want := stockade.Confirmed
			if won == stockade.PaymentFailed {
				want = stockade.Released
			}
			if err != nil || r.Status != want {
				t.Errorf("payment %d %s: reservation %s, %v", i, won, r.Status, err)
			}
		}
		en.balanced()
	})
}
