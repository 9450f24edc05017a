package engine_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// forBackends runs fn as a subtest for every backend and each of
// strategies.
func forBackends(t *testing.T, strategies []string, fn func(t *testing.T, en *env)) {
	t.Helper()
	for _, b := range backends {
		for _, s := range strategies {
			t.Run(b.name+"/"+s, func(t *testing.T) {
				t.Parallel()
				fn(t, newEnv(t, b, s, nil))
			})
		}
	}
}

// kinds returns the kinds of the ledger rows of ref, oldest first.
func (en *env) kinds(ref string) string {
	en.t.Helper()
	page, err := en.eng.Movements(sys(en.t), stockade.MovementQuery{Ref: ref})
	if err != nil {
		en.t.Fatal(err)
	}
	var ks []string
	for _, m := range page.Movements {
		ks = append(ks, string(m.Kind))
	}
	return strings.Join(ks, ",")
}

// counters returns on hand, reserved and committed of sku@loc.
func (en *env) counters(sku, loc string) [3]int64 {
	en.t.Helper()
	l := en.level(sku, loc)
	return [3]int64{l.OnHand, l.Reserved, l.Committed}
}

// TestLifecycle runs under atomic, where each call is a transaction, and
// under batch, where Reserve, Checkout and Confirm are decided in batches.
func TestLifecycle(t *testing.T) {
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

		// reserve → confirm → fulfill
		r, err := en.eng.Reserve(ctx, lines(line("tee", 3, "w1")), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != stockade.Held || !r.ExpiresAt.Equal(en.clock.Now().Add(15*time.Minute)) {
			t.Errorf("reservation %+v: want held for the default 15m", r)
		}
		want([3]int64{10, 3, 0})
		o, err := en.eng.Confirm(ctx, r.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status != stockade.Committed || o.ReservationID != r.ID || len(o.Allocations) != 1 {
			t.Errorf("order %+v", o)
		}
		want([3]int64{10, 0, 3})
		again, err := en.eng.Confirm(ctx, r.ID, nil)
		if err != nil || again.ID != o.ID {
			t.Errorf("confirm again = %+v, %v: want the same order", again, err)
		}
		got, err := en.eng.Reservation(ctx, r.ID)
		if err != nil || got.Status != stockade.Confirmed || got.OrderID != o.ID {
			t.Errorf("reservation after confirm = %+v, %v", got, err)
		}
		_, err = en.eng.Release(ctx, r.ID, nil)
		wantCode(t, err, stockade.EInvalidState)
		if o, err = en.eng.FulfillOrder(ctx, o.ID, nil, nil); err != nil || o.Status != stockade.Fulfilled {
			t.Fatalf("fulfill = %+v, %v", o, err)
		}
		want([3]int64{7, 0, 0})
		if again, err := en.eng.FulfillOrder(ctx, o.ID, nil, nil); err != nil || again.Status != stockade.Fulfilled {
			t.Errorf("fulfill again = %+v, %v", again, err)
		}
		_, err = en.eng.CancelOrder(ctx, o.ID, nil, nil)
		wantCode(t, err, stockade.EInvalidState)
		if got := en.kinds(r.ID); got != "reserve" {
			t.Errorf("ledger of the reservation: %s", got)
		}
		if got := en.kinds(o.ID); got != "confirm,fulfill" {
			t.Errorf("ledger of the order: %s", got)
		}

		// reserve → release
		r, err = en.eng.Reserve(ctx, lines(line("tee", 2, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		want([3]int64{7, 2, 0})
		if r, err = en.eng.Release(ctx, r.ID, nil); err != nil || r.Status != stockade.Released {
			t.Fatalf("release = %+v, %v", r, err)
		}
		want([3]int64{7, 0, 0})
		if again, err := en.eng.Release(ctx, r.ID, nil); err != nil || again.Status != stockade.Released {
			t.Errorf("release again = %+v, %v", again, err)
		}
		_, err = en.eng.Confirm(ctx, r.ID, nil)
		wantCode(t, err, stockade.EInvalidState)
		if got := en.kinds(r.ID); got != "reserve,release" {
			t.Errorf("ledger of the released reservation: %s", got)
		}

		// checkout → cancel
		o, err = en.eng.Checkout(ctx, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		want([3]int64{7, 0, 4})
		if o, err = en.eng.CancelOrder(ctx, o.ID, nil, nil); err != nil || o.Status != stockade.Cancelled {
			t.Fatalf("cancel = %+v, %v", o, err)
		}
		want([3]int64{7, 0, 0})
		_, err = en.eng.FulfillOrder(ctx, o.ID, nil, nil)
		wantCode(t, err, stockade.EInvalidState)
		if got := en.kinds(o.ID); got != "checkout,cancel" {
			t.Errorf("ledger of the checkout: %s", got)
		}
		if got, err := en.eng.Order(ctx, o.ID); err != nil || got.Status != stockade.Cancelled {
			t.Errorf("order = %+v, %v", got, err)
		}

		s, err := en.eng.Stock(ctx, "tee")
		if err != nil {
			t.Fatal(err)
		}
		if s.Totals != (stockade.Totals{OnHand: 7, Available: 7}) || len(s.Levels) != 1 {
			t.Errorf("stock = %+v", s)
		}
		en.balanced()
	})
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 5)
		reserve := func(q int64, ttl time.Duration) stockade.Reservation {
			t.Helper()
			r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{line("tee", q, "")}, TTL: ttl}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}

		// An expired hold cannot be confirmed; trying gives its stock back.
		r1 := reserve(3, time.Minute)
		en.clock.Advance(time.Minute) // exactly at expiry: still held
		if got, err := en.eng.Reservation(ctx, r1.ID); err != nil || got.Status != stockade.Held {
			t.Fatalf("reservation at its expiry = %+v, %v: want held", got, err)
		}
		en.clock.Advance(time.Second)
		if got, err := en.eng.Reservation(ctx, r1.ID); err != nil || got.Status != stockade.Expired {
			t.Errorf("reservation after its expiry = %+v, %v: want reported expired", got, err)
		}
		_, err := en.eng.Confirm(ctx, r1.ID, nil)
		wantCode(t, err, stockade.EReservationExpired)
		if l := en.level("tee", "w1"); l.Reserved != 0 {
			t.Errorf("reserved after confirming a lapsed hold = %d, want 0", l.Reserved)
		}
		_, err = en.eng.Confirm(ctx, r1.ID, nil)
		wantCode(t, err, stockade.EReservationExpired)

		// A lapsed hold never blocks a sale: the sale expires it.
		r2 := reserve(5, time.Minute)
		_, err = en.eng.Checkout(ctx, lines(line("tee", 1, "")), nil)
		wantCode(t, err, stockade.EInsufficientStock)
		en.clock.Advance(2 * time.Minute)
		r, err := en.eng.Reserve(ctx, lines(line("tee", 5, "w1")), nil)
		if err != nil {
			t.Fatalf("reserving stock held by a lapsed hold: %v", err)
		}
		if got := en.kinds(r2.ID); got != "reserve,expire" {
			t.Errorf("ledger of the lapsed hold: %s", got)
		}
		if _, err := en.eng.Release(ctx, r.ID, nil); err != nil {
			t.Fatal(err)
		}

		// The sweeper expires what nobody asked for.
		r3 := reserve(2, 30*time.Second)
		r4 := reserve(2, 90*time.Second)
		en.clock.Advance(time.Minute)
		for _, want := range []int{1, 0} {
			if n, err := en.eng.Sweep(ctx); err != nil || n != want {
				t.Fatalf("sweep = %d, %v; want %d", n, err, want)
			}
		}
		if got := en.counters("tee", "w1"); got != [3]int64{5, 2, 0} {
			t.Errorf("counters after one expiry = %v", got)
		}
		if got, err := en.eng.Release(ctx, r3.ID, nil); err != nil || got.Status != stockade.Expired {
			t.Errorf("release of an expired hold = %+v, %v: want it unchanged", got, err)
		}
		en.clock.Advance(time.Minute)
		// Releasing a lapsed hold expires it.
		if got, err := en.eng.Release(ctx, r4.ID, nil); err != nil || got.Status != stockade.Expired {
			t.Errorf("release of a lapsed hold = %+v, %v: want it expired", got, err)
		}
		if n, err := en.eng.Sweep(ctx); err != nil || n != 0 {
			t.Errorf("sweep = %d, %v; want 0", n, err)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{5, 0, 0} {
			t.Errorf("counters after every hold expired = %v", got)
		}
		en.balanced()
	})
}

// TestSweepers expires 60 lapsed holds with three sweepers, in small
// batches, racing with requests that expire them too: each is expired
// exactly once.
func TestSweepers(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			en := newEnv(t, b, engine.Atomic, func(o *engine.Options) { o.SweepBatch = 7 })
			ctx, cancel := context.WithTimeout(sys(t), bound)
			defer cancel()
			en.location("w1", 0, 0)
			en.location("w2", 0, 0)
			en.stock("tee", "w1", 100)
			en.stock("tee", "w2", 100)
			var ids []string
			for i := range 60 {
				r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{line("tee", 1, "w1"), line("tee", 1, "w2")},
					TTL: time.Duration(1+i) * time.Second}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ID)
			}
			en.clock.Advance(time.Hour)
			var wg sync.WaitGroup
			var mu sync.Mutex
			swept := 0
			for range 3 {
				wg.Go(func() {
					n, err := en.eng.Sweep(ctx)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					swept += n
					mu.Unlock()
				})
			}
			for range 4 {
				wg.Go(func() {
					if _, err := en.eng.Checkout(ctx, lines(line("tee", 20, "w1")), nil); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			t.Logf("sweepers expired %d, requests the rest", swept)
			for _, id := range ids {
				if got := en.kinds(id); got != "reserve,reserve,expire,expire" {
					t.Errorf("ledger of %s: %s", id, got)
				}
			}
			if w1, w2 := en.counters("tee", "w1"), en.counters("tee", "w2"); w1 != [3]int64{100, 0, 80} || w2 != [3]int64{100, 0, 0} {
				t.Errorf("counters = %v and %v, want 80 committed at w1 and nothing held", w1, w2)
			}
			en.balanced()
		})
	}
}

func TestSetStock(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		k := stockade.Key{SKU: "tee", Location: "w1"}
		en.location("w1", 0, 0)
		l, err := en.eng.SetStock(ctx, k, 5, ptr[int64](0), nil) // create only if missing
		if err != nil || l.OnHand != 5 {
			t.Fatalf("set = %+v, %v", l, err)
		}
		_, err = en.eng.SetStock(ctx, k, 6, ptr[int64](0), nil)
		wantCode(t, err, stockade.EVersionConflict)
		_, err = en.eng.SetStock(ctx, k, 6, ptr(l.Version+1), nil)
		wantCode(t, err, stockade.EVersionConflict)
		if l, err = en.eng.SetStock(ctx, k, 8, ptr(l.Version), nil); err != nil || l.OnHand != 8 {
			t.Fatalf("compare-and-set = %+v, %v", l, err)
		}
		if _, err := en.eng.Reserve(ctx, lines(line("tee", 3, "w1")), nil); err != nil {
			t.Fatal(err)
		}
		_, err = en.eng.SetStock(ctx, k, 2, nil, nil)
		wantCode(t, err, stockade.EInsufficientStock)
		if l, err = en.eng.SetStock(ctx, k, 3, nil, nil); err != nil || l.Available() != 0 {
			t.Fatalf("set to what is reserved = %+v, %v", l, err)
		}
		if l, err = en.eng.AdjustStock(ctx, k, 4, "delivery", nil); err != nil || l.OnHand != 7 {
			t.Fatalf("adjust = %+v, %v", l, err)
		}
		_, err = en.eng.AdjustStock(ctx, k, -5, "shrinkage", nil)
		wantCode(t, err, stockade.EInsufficientStock)
		_, err = en.eng.AdjustStock(ctx, k, -8, "shrinkage", nil)
		wantCode(t, err, stockade.EInsufficientStock)
		if l, err = en.eng.AdjustStock(ctx, stockade.Key{SKU: "cap", Location: "w1"}, 2, "first delivery", nil); err != nil || l.OnHand != 2 {
			t.Fatalf("adjust creating a level = %+v, %v", l, err)
		}
		page, err := en.eng.Movements(ctx, stockade.MovementQuery{SKU: "tee", Location: "w1"})
		if err != nil {
			t.Fatal(err)
		}
		var deltas []int64
		for _, m := range page.Movements {
			if m.Kind == stockade.MoveSet || m.Kind == stockade.MoveAdjust {
				deltas = append(deltas, m.OnHand)
			}
		}
		if got := deltas; len(got) != 4 || got[0] != 5 || got[1] != 3 || got[2] != -5 || got[3] != 4 {
			t.Errorf("on-hand deltas in the ledger = %v, want [5 3 -5 4]", got)
		}
		en.balanced()
	})
}

// TestValidation refuses every bad input with the right code, and the
// refusal changes nothing.
func TestValidation(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.location("w2", 0, 0)
		en.stock("tee", "w1", 5)
		en.stock("cap", "w2", 5)
		var many []stockade.Line
		for range stockade.MaxLines + 1 {
			many = append(many, line("tee", 1, ""))
		}
		long := strings.Repeat("x", stockade.MaxIDLength+1)
		good := line("tee", 1, "")
		reqs := []struct {
			name string
			req  stockade.ReserveRequest
			code string
		}{
			{"no lines", stockade.ReserveRequest{}, stockade.EInvalid},
			{"too many lines", stockade.ReserveRequest{Lines: many}, stockade.EInvalid},
			{"zero quantity", lines(good, line("tee", 0, "")), stockade.EInvalid},
			{"negative quantity", lines(line("tee", -1, "")), stockade.EInvalid},
			{"huge quantity", lines(line("tee", stockade.MaxQuantity+1, "")), stockade.EInvalid},
			{"empty sku", lines(good, line("", 1, "")), stockade.EInvalid},
			{"overlong sku", lines(line(long, 1, "")), stockade.EInvalid},
			{"control character", lines(line("te\ne", 1, "")), stockade.EInvalid},
			{"not UTF-8", lines(line("te\xffe", 1, "")), stockade.EInvalid},
			{"overlong location", lines(line("tee", 1, long)), stockade.EInvalid},
			{"negative ttl", stockade.ReserveRequest{Lines: []stockade.Line{good}, TTL: -time.Second}, stockade.EInvalid},
			{"ttl over the maximum", stockade.ReserveRequest{Lines: []stockade.Line{good}, TTL: 25 * time.Hour}, stockade.EInvalid},
			{"latitude out of range", stockade.ReserveRequest{Lines: []stockade.Line{good}, ShipTo: &stockade.Point{Lat: 91}}, stockade.EInvalid},
			{"longitude out of range", stockade.ReserveRequest{Lines: []stockade.Line{good}, ShipTo: &stockade.Point{Lon: -181}}, stockade.EInvalid},
			{"latitude NaN", stockade.ReserveRequest{Lines: []stockade.Line{good}, ShipTo: &stockade.Point{Lat: math.NaN()}}, stockade.EInvalid},
			{"unknown location", lines(good, line("tee", 1, "nowhere")), stockade.ENotFound},
			{"unknown sku", lines(good, line("ghost", 1, "")), stockade.ENotFound},
			{"unknown sku at a location", lines(line("ghost", 1, "w1")), stockade.ENotFound},
			{"unknown sku at a location, with others", lines(line("cap", 1, "w2"), line("ghost", 1, "w1")), stockade.ENotFound},
			{"sku unknown at a location it has no level at", lines(line("cap", 1, "w2"), line("tee", 1, "w2")), stockade.EInsufficientStock},
			{"no level at that location", lines(good, line("tee", 1, "w2")), stockade.EInsufficientStock},
			{"too many", lines(line("cap", 1, ""), line("tee", 6, "")), stockade.EInsufficientStock},
			{"merged lines too many", lines(line("tee", 3, ""), line("tee", 3, "")), stockade.EInsufficientStock},
			{"too many at the location", lines(line("tee", 6, "w1")), stockade.EInsufficientStock},
		}
		before := en.state()
		for _, tc := range reqs {
			t.Run(tc.name, func(t *testing.T) {
				_, err := en.eng.Reserve(ctx, tc.req, nil)
				wantCode(t, err, tc.code)
				if stockade.ErrorMessage(err) == "" {
					t.Errorf("refusal without a reason")
				}
				if tc.req.TTL == 0 { // Checkout ignores the TTL
					_, err = en.eng.Checkout(ctx, tc.req, nil)
					wantCode(t, err, tc.code)
				}
			})
		}
		k := stockade.Key{SKU: "tee", Location: "w1"}
		calls := []struct {
			name string
			call func() error
			code string
		}{
			{"set negative", func() error { _, err := en.eng.SetStock(ctx, k, -1, nil, nil); return err }, stockade.EInvalid},
			{"set huge", func() error { _, err := en.eng.SetStock(ctx, k, stockade.MaxQuantity+1, nil, nil); return err }, stockade.EInvalid},
			{"set at unknown location", func() error {
				_, err := en.eng.SetStock(ctx, stockade.Key{SKU: "tee", Location: "nowhere"}, 1, nil, nil)
				return err
			}, stockade.ENotFound},
			{"set with empty sku", func() error { _, err := en.eng.SetStock(ctx, stockade.Key{Location: "w1"}, 1, nil, nil); return err }, stockade.EInvalid},
			{"adjust by zero", func() error { _, err := en.eng.AdjustStock(ctx, k, 0, "count", nil); return err }, stockade.EInvalid},
			{"adjust without reason", func() error { _, err := en.eng.AdjustStock(ctx, k, 1, "", nil); return err }, stockade.EInvalid},
			{"adjust below zero", func() error { _, err := en.eng.AdjustStock(ctx, k, -6, "count", nil); return err }, stockade.EInsufficientStock},
			{"adjust a missing level down", func() error {
				_, err := en.eng.AdjustStock(ctx, stockade.Key{SKU: "tee", Location: "w2"}, -1, "count", nil)
				return err
			}, stockade.EInsufficientStock},
			{"adjust at unknown location", func() error {
				_, err := en.eng.AdjustStock(ctx, stockade.Key{SKU: "tee", Location: "nowhere"}, 1, "count", nil)
				return err
			}, stockade.ENotFound},
			{"location without id", func() error { _, err := en.eng.PutLocation(ctx, stockade.Location{Name: "x"}, nil); return err }, stockade.EInvalid},
			{"location off the map", func() error {
				_, err := en.eng.PutLocation(ctx, stockade.Location{ID: "w9", Point: &stockade.Point{Lat: 100}}, nil)
				return err
			}, stockade.EInvalid},
			{"confirm unknown", func() error { _, err := en.eng.Confirm(ctx, "res_nope", nil); return err }, stockade.ENotFound},
			{"confirm empty id", func() error { _, err := en.eng.Confirm(ctx, "", nil); return err }, stockade.EInvalid},
			{"release unknown", func() error { _, err := en.eng.Release(ctx, "res_nope", nil); return err }, stockade.ENotFound},
			{"cancel unknown", func() error { _, err := en.eng.CancelOrder(ctx, "ord_nope", nil, nil); return err }, stockade.ENotFound},
			{"fulfill unknown", func() error { _, err := en.eng.FulfillOrder(ctx, "ord_nope", nil, nil); return err }, stockade.ENotFound},
			{"reservation unknown", func() error { _, err := en.eng.Reservation(ctx, "res_nope"); return err }, stockade.ENotFound},
			{"order unknown", func() error { _, err := en.eng.Order(ctx, "ord_nope"); return err }, stockade.ENotFound},
			{"stock of unknown sku", func() error { _, err := en.eng.Stock(ctx, "ghost"); return err }, stockade.ENotFound},
			{"movements limit", func() error { _, err := en.eng.Movements(ctx, stockade.MovementQuery{Limit: -1}); return err }, stockade.EInvalid},
		}
		for _, tc := range calls {
			t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.call(), tc.code) })
		}
		after := en.state()
		if len(after.levels) != len(before.levels) || after.movements != before.movements {
			t.Errorf("refusals changed the store: %+v, then %+v", before, after)
		}
		for i := range before.levels {
			if i < len(after.levels) && after.levels[i] != before.levels[i] {
				t.Errorf("level %s changed: %+v, then %+v", before.levels[i].Key(), before.levels[i], after.levels[i])
			}
		}
	})
}

// TestOrderExpectedVersion: a cancel or a fulfilment at another version
// than the order's is EVersionConflict naming it, and changes nothing;
// at its version it goes through, one version on.
func TestOrderExpectedVersion(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 5)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 2, "")), nil)
		if err != nil || o.Version != 1 {
			t.Fatalf("checkout: %+v, %v", o, err)
		}
		_, err = en.eng.CancelOrder(ctx, o.ID, ptr(int64(2)), nil)
		wantCode(t, err, stockade.EVersionConflict)
		if !strings.Contains(err.Error(), "version 1") {
			t.Errorf("refusal %q does not name the version", err)
		}
		_, err = en.eng.FulfillOrder(ctx, o.ID, ptr(int64(0)), nil)
		wantCode(t, err, stockade.EInvalid)
		if got := en.counters("tee", "w1"); got != [3]int64{5, 0, 2} {
			t.Fatalf("counters %v after the refusals", got)
		}
		if o, err = en.eng.FulfillOrder(ctx, o.ID, ptr(int64(1)), nil); err != nil || o.Version != 2 || o.Status != stockade.Fulfilled {
			t.Fatalf("fulfil at version 1: %+v, %v", o, err)
		}
		if got, err := en.eng.Order(ctx, o.ID); err != nil || got.Version != 2 {
			t.Errorf("the order read again: %+v, %v", got, err)
		}
		en.balanced()
	})
}
