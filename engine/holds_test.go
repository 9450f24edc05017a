package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// bookingStrategies are the strategies whose holds the tests run.
var bookingStrategies = []string{engine.Atomic, engine.RowLock, engine.Lock, engine.Batch}

// hall is an event of two sections: stalls, rows A and B of seats 1 to
// 10 with an aisle after 5, category A in row A, seat B/10 blocked; and a
// standing area of 5 places.
func hall(id string) stockade.Show {
	return stockade.Show{ID: id, Name: "Hall " + id, Focal: stockade.SeatPoint{X: 5, Y: 0},
		Rows: []stockade.SeatRow{
			{Section: "stalls", Row: "A", First: 1, Last: 10, Category: "A", AislesAfter: []int{5}, Start: stockade.SeatPoint{X: 0, Y: 1}, Accessible: []int{1}},
			{Section: "stalls", Row: "B", First: 1, Last: 10, Category: "B", Blocked: []int{10}, Start: stockade.SeatPoint{X: 0, Y: 2}},
		},
		Areas: []stockade.Area{{Name: "standing", Capacity: 5}},
	}
}

// seatsOf returns the ids of the event's seats with status, in seat
// order.
func (en *env) seatsOf(event string, status stockade.SeatStatus) []string {
	en.t.Helper()
	var seats []stockade.Seat
	err := en.store.View(en.t.Context(), func(tx stockade.Tx) (err error) {
		seats, err = tx.SeatList(en.t.Context(), event, stockade.SeatFilter{Status: status})
		return err
	})
	if err != nil {
		en.t.Fatal(err)
	}
	var out []string
	for _, s := range seats {
		out = append(out, s.ID)
	}
	return out
}

// reconciled fails the test unless the engine's Reconcile is clean.
func (en *env) reconciled() {
	en.t.Helper()
	rep, err := en.eng.Reconcile(sys(en.t))
	if err != nil {
		en.t.Fatal(err)
	}
	if !rep.OK {
		en.t.Fatalf("reconcile: %+v", rep)
	}
}

// TestBookings: an event's seats and places go from free to held to
// booked and back, each move in the seat history, and every refusal
// names what was not there.
func TestBookings(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		ctx := sys(t)
		ev, err := en.eng.PutShow(ctx, hall("gig"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Version != 1 || len(ev.Areas) != 1 || ev.Areas[0].Capacity != 5 {
			t.Fatalf("PutShow = %+v", ev)
		}
		view, err := en.eng.Show(ctx, "gig")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(view.Counts); got != "[{stalls A free 10} {stalls B blocked 1} {stalls B free 9}]" {
			t.Errorf("counts %s", got)
		}

		// Named seats, best available and places, in one hold.
		h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/1"},
			Best: []stockade.BestSeats{{Quantity: 2, Category: "A"}}, Places: []stockade.Places{{Area: "standing", Quantity: 2}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Seat n of row A is at x = n-1, y = 1, and the stage at x = 5:
		// A/6 is nearest, and A/5 beside it is across the aisle, so the
		// pair is A/6 and A/7, which leaves no orphan.
		if got := strings.Join(h.Seats, " "); got != "stalls/A/6 stalls/A/7 stalls/B/1" || h.Split || h.Status != stockade.HoldHeld ||
			!h.ExpiresAt.Equal(h.CreatedAt.Add(15*time.Minute)) || len(h.Places) != 1 {
			t.Fatalf("hold %+v", h)
		}
		if got := en.seatsOf("gig", stockade.SeatHeld); len(got) != 3 {
			t.Errorf("held seats %v", got)
		}

		// Refusals change nothing and say why.
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/6", "stalls/B/10", "stalls/B/2"}}, nil)
		wantCode(t, err, stockade.ESeatsUnavailable)
		if msg := stockade.ErrorMessage(err); !strings.Contains(msg, "stalls/A/6 (held)") || !strings.Contains(msg, "stalls/B/10 (blocked)") || strings.Contains(msg, "B/2") {
			t.Errorf("refusal %q", msg)
		}
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Places: []stockade.Places{{Area: "standing", Quantity: 4}}}, nil)
		wantCode(t, err, stockade.ESoldOut)
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 9, Category: "A"}}}, nil)
		wantCode(t, err, stockade.ESoldOut)
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 6, Category: "A"}}}, nil)
		wantCode(t, err, stockade.ESoldOut) // 8 free in A, but 5 at most side by side
		if !strings.Contains(stockade.ErrorMessage(err), "side by side") {
			t.Errorf("refusal %q", stockade.ErrorMessage(err))
		}
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/Z/1"}}, nil)
		wantCode(t, err, stockade.ENotFound)
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "nope", Seats: []string{"stalls/A/1"}}, nil)
		wantCode(t, err, stockade.ENotFound)
		if got := en.seatsOf("gig", stockade.SeatHeld); len(got) != 3 {
			t.Errorf("after refusals, held seats %v", got)
		}

		// Split seats when allowed.
		split, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 6, Category: "A", AllowSplit: true}}}, nil)
		if err != nil || !split.Split || len(split.Seats) != 6 {
			t.Fatalf("split hold %+v, %v", split, err)
		}
		if _, err := en.eng.ReleaseHold(ctx, split.ID, nil); err != nil {
			t.Fatal(err)
		}

		// Confirm books the seats and places; confirming again returns
		// the booking; cancelling frees them.
		bk, err := en.eng.ConfirmHold(ctx, h.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := en.eng.ConfirmHold(ctx, h.ID, nil)
		if err != nil || again.ID != bk.ID {
			t.Fatalf("confirm again: %+v, %v; want booking %s", again, err, bk.ID)
		}
		if got := en.seatsOf("gig", stockade.SeatBooked); strings.Join(got, " ") != "stalls/A/6 stalls/A/7 stalls/B/1" {
			t.Errorf("booked seats %v", got)
		}
		_, err = en.eng.ReleaseHold(ctx, h.ID, nil)
		wantCode(t, err, stockade.EInvalidState)
		en.reconciled()
		if _, err := en.eng.CancelBooking(ctx, bk.ID, nil); err != nil {
			t.Fatal(err)
		}
		if got := en.seatsOf("gig", stockade.SeatBooked); len(got) != 0 {
			t.Errorf("after cancel, booked seats %v", got)
		}
		view, err = en.eng.Show(ctx, "gig")
		if err != nil || view.Areas[0].Held != 0 || ev.Areas[0].Booked != 0 {
			t.Errorf("after cancel, areas %+v, %v", view.Areas, err)
		}
		en.reconciled()

		// Events of every change, in order.
		want := "event.put hold.held hold.held hold.released hold.confirmed booking.booked booking.cancelled"
		var types []string
		evs, _ := en.outboxAtLeast(stockade.EventPosition{}, len(strings.Fields(want)))
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if got := strings.Join(types, " "); got != want {
			t.Errorf("events %s\nwant %s", got, want)
		}
	})
}

// TestHoldExpiry: a lapsed hold's seats come back at the sweep, or at
// once to a hold that needs them; confirming it is EHoldExpired; it can
// be extended only within its maximum lifetime.
func TestHoldExpiry(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		two := stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/1", "stalls/B/2"}, TTL: time.Minute}
		h, err := en.eng.HoldSeats(ctx, two, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err = en.eng.ExtendHold(ctx, h.ID, 90*time.Minute, nil)
		if err != nil || !h.ExpiresAt.Equal(h.CreatedAt.Add(90*time.Minute)) || h.Version != 2 {
			t.Fatalf("extend: %+v, %v", h, err)
		}
		en.clock.Advance(60 * time.Minute)
		_, err = en.eng.ExtendHold(ctx, h.ID, 61*time.Minute, nil) // past 2 h from its creation
		wantCode(t, err, stockade.EInvalid)
		en.clock.Advance(31 * time.Minute)
		// Lapsed: a hold that needs the seats expires it in its own
		// transaction.
		h2, err := en.eng.HoldSeats(ctx, two, nil)
		if err != nil {
			t.Fatalf("hold the lapsed hold's seats: %v", err)
		}
		_, err = en.eng.ConfirmHold(ctx, h.ID, nil)
		wantCode(t, err, stockade.EHoldExpired)
		if got, err := en.eng.Hold(ctx, h.ID); err != nil || got.Status != stockade.HoldExpired {
			t.Errorf("the lapsed hold: %+v, %v", got, err)
		}

		// The sweeper expires the next one.
		en.clock.Advance(2 * time.Minute)
		n, err := en.eng.Sweep(ctx)
		if err != nil || n != 1 {
			t.Fatalf("Sweep = %d, %v; want 1", n, err)
		}
		_, err = en.eng.ConfirmHold(ctx, h2.ID, nil)
		wantCode(t, err, stockade.EHoldExpired)
		if got := en.seatsOf("gig", stockade.SeatHeld); len(got) != 0 {
			t.Errorf("held seats after the sweep: %v", got)
		}
		en.reconciled()
	})
}

// TestPutShowChanges: a map may change only seats that are free or
// blocked; held ones keep it from changing, and a refused change
// changes nothing.
func TestPutShowChanges(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		ev := hall("gig")
		if _, err := en.eng.PutShow(ctx, ev, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/10"}}, nil); err != nil {
			t.Fatal(err)
		}
		shorter := hall("gig")
		shorter.Rows[0].Last = 9
		_, err := en.eng.PutShow(ctx, shorter, nil)
		wantCode(t, err, stockade.EInvalidState)
		if !strings.Contains(stockade.ErrorMessage(err), "stalls/A/10 (held)") {
			t.Errorf("refusal %q", stockade.ErrorMessage(err))
		}
		// Unblocking B/10, dropping B/9 (free) and the standing area
		// (nothing taken) is allowed.
		changed := hall("gig")
		changed.Rows[1].Blocked, changed.Rows[1].Last = nil, 8
		changed.Areas = nil
		changed.Rows = append(changed.Rows, stockade.SeatRow{Section: "circle", Row: "A", First: 1, Last: 2, Start: stockade.SeatPoint{Y: 9}})
		out, err := en.eng.PutShow(ctx, changed, nil)
		if err != nil || out.Version != 2 {
			t.Fatalf("PutShow: %+v, %v", out, err)
		}
		if got := en.seatsOf("gig", stockade.SeatBlocked); len(got) != 0 {
			t.Errorf("blocked %v", got)
		}
		if got := en.seatsOf("gig", ""); len(got) != 20 || !slices.Contains(got, "circle/A/2") || slices.Contains(got, "stalls/B/9") {
			t.Errorf("seats %v", got)
		}
		if len(out.Areas) != 0 {
			t.Errorf("areas %+v, want none", out.Areas)
		}
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Places: []stockade.Places{{Area: "standing", Quantity: 1}}}, nil)
		wantCode(t, err, stockade.ENotFound)
		en.reconciled()
	})
}

// TestOnSale: many buyers of best-available seats at once on every
// store and strategy: no seat is held twice, a buyer is refused only
// when no fitting seats remain, and the event reconciles.
func TestOnSale(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		ctx := sys(t)
		ev := stockade.Show{ID: "onsale", Name: "On sale", Focal: stockade.SeatPoint{X: 10, Y: 0}}
		for r := range 10 {
			ev.Rows = append(ev.Rows, stockade.SeatRow{Section: "main", Row: fmt.Sprintf("R%02d", r), First: 1, Last: 20,
				Start: stockade.SeatPoint{X: 0, Y: float64(r + 1)}})
		}
		if _, err := en.eng.PutShow(ctx, ev, nil); err != nil {
			t.Fatal(err)
		}
		const buyers = 120 // asking for 300 seats in all, of 200
		var (
			mu      sync.Mutex
			holds   []stockade.Hold
			refused = map[string]int{}
			short   = map[int]bool{} // quantities refused sold_out
			wg      sync.WaitGroup
		)
		for i := range buyers {
			wg.Go(func() {
				q := 1 + i%4
				h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "onsale", Best: []stockade.BestSeats{{Quantity: q}}}, nil)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					refused[stockade.ErrorCode(err)]++
					short[q] = true
					return
				}
				holds = append(holds, h)
			})
		}
		wg.Wait()
		if len(refused) > 1 || len(refused) == 1 && refused[stockade.ESoldOut] == 0 {
			t.Fatalf("refusals %v: only sold_out is a refusal", refused)
		}
		owner := map[string]string{}
		total := 0
		for _, h := range holds {
			for _, s := range h.Seats {
				if other, ok := owner[s]; ok {
					t.Fatalf("seat %s held by %s and %s", s, other, h.ID)
				}
				owner[s] = h.ID
			}
			total += len(h.Seats)
		}
		held := en.seatsOf("onsale", stockade.SeatHeld)
		if len(held) != total {
			t.Fatalf("%d seats held, the holds have %d", len(held), total)
		}
		// Seats only went, so a quantity refused then is refused now:
		// sold_out means that no fitting seats were left.
		for q := range short {
			_, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "onsale", Best: []stockade.BestSeats{{Quantity: q}}}, nil)
			if stockade.ErrorCode(err) != stockade.ESoldOut {
				t.Errorf("%d seats were refused sold_out, yet a hold of %d now: %v", q, q, err)
			}
		}
		t.Logf("%d holds of %d seats, refused %v", len(holds), total, refused)
		en.reconciled()
	})
}

// TestCollision: buyers of the same two named seats at once: exactly one
// gets them.
func TestCollision(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		const buyers = 50
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			codes = map[string]int{}
		)
		for range buyers {
			wg.Go(func() {
				_, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/2", "stalls/A/3"}}, nil)
				mu.Lock()
				codes[stockade.ErrorCode(err)]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if codes[""] != 1 || codes[stockade.ESeatsUnavailable] != buyers-1 {
			t.Fatalf("outcomes %v; want one hold and %d seats_unavailable", codes, buyers-1)
		}
		en.reconciled()
	})
}

// TestHoldBatch queues holds of one event behind a held batch, so that
// one transaction decides them all: in arrival order, each all or
// nothing, a refusal leaving the others be, and a call whose
// idempotency key an earlier call of the batch used answered with that
// call's hold.
func TestHoldBatch(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, nil)
	ctx := sys(t)
	if _, err := b.eng.PutShow(ctx, hall("gig"), nil); err != nil {
		t.Fatal(err)
	}
	type result struct {
		h   stockade.Hold
		err error
	}
	start := func(req stockade.HoldRequest, idem *stockade.Idempotency) chan result {
		ch := make(chan result, 1)
		go func() {
			h, err := b.eng.HoldSeats(ctx, req, idem)
			ch <- result{h, err}
		}()
		return ch
	}
	queue := func(req stockade.HoldRequest, idem *stockade.Idempotency) chan result {
		t.Helper()
		n := engine.QueuedHolds(b.eng)
		ch := start(req, idem)
		b.wait(fmt.Sprintf("hold %d is queued", n+1), func() bool { return engine.QueuedHolds(b.eng) == n+1 })
		return ch
	}
	// The first batch holds B/1 and waits in its transaction.
	var first chan result
	b.first(func() { first = start(stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/1"}}, nil) })

	key := func() *stockade.Idempotency { return &stockade.Idempotency{Key: "k-1", Fingerprint: "f"} }
	calls := []struct {
		ch   chan result
		want string
	}{
		{queue(stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/2", "stalls/B/3"}}, nil), ""},
		{queue(stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/B/3"}}, nil), stockade.ESeatsUnavailable}, // the call before took it
		{queue(stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 2, Category: "A"}}, Places: []stockade.Places{{Area: "standing", Quantity: 6}}}, nil), stockade.ESoldOut},
		{queue(stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 2, Category: "A"}}, Places: []stockade.Places{{Area: "standing", Quantity: 5}}}, key()), ""},
		{queue(stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 2, Category: "A"}}, Places: []stockade.Places{{Area: "standing", Quantity: 5}}}, key()), ""}, // the same key: the same hold
		{queue(stockade.HoldRequest{ShowID: "gig", Places: []stockade.Places{{Area: "standing", Quantity: 1}}}, nil), stockade.ESoldOut},
	}
	b.release()
	if r := <-first; r.err != nil {
		t.Fatal(r.err)
	}
	var got []result
	for i, c := range calls {
		r := <-c.ch
		if code := stockade.ErrorCode(r.err); code != c.want {
			t.Errorf("call %d: %v, want code %q", i+1, r.err, c.want)
		}
		got = append(got, r)
	}
	if n := b.updates(); n != 2 {
		t.Errorf("%d write transactions, want 2: the held one and one for the queued calls", n)
	}
	// The refused call's A seats went to the next call: A/6 and A/7.
	if h := got[3].h; strings.Join(h.Seats, " ") != "stalls/A/6 stalls/A/7" || len(h.Places) != 1 {
		t.Errorf("keyed hold %+v", h)
	}
	if got[4].h.ID != got[3].h.ID {
		t.Errorf("the second call with key k-1 got hold %s, want %s", got[4].h.ID, got[3].h.ID)
	}
	view, err := b.eng.Show(ctx, "gig")
	if err != nil || view.Areas[0].Held != 5 {
		t.Errorf("standing: %+v, %v; want 5 held", view.Areas, err)
	}
	b.reconciled()
}

// TestHoldBatchKeptSeats: a hold batch keeps the event's free seats for
// the next, and still sees what changed in between: seats that a writer
// outside the batcher took (a conflict, then a fresh read) and seats
// that a release freed (the seat epoch moved).
func TestHoldBatchKeptSeats(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, nil)
	other := newEnvOn(t, b.h, engine.Atomic, nil) // takes seats without bumping the epoch
	ctx := sys(t)
	if _, err := b.eng.PutShow(ctx, hall("gig"), nil); err != nil {
		t.Fatal(err)
	}
	bestA := func(n int) stockade.HoldRequest {
		return stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: n, Category: "A"}}}
	}
	first, err := b.eng.HoldSeats(ctx, bestA(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	var rest []string
	for _, id := range b.seatsOf("gig", stockade.SeatFree) {
		if strings.HasPrefix(id, "stalls/A/") {
			rest = append(rest, id)
		}
	}
	if _, err := other.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: rest}, nil); err != nil {
		t.Fatal(err)
	}
	if h, err := b.eng.HoldSeats(ctx, bestA(1), nil); stockade.ErrorCode(err) != stockade.ESoldOut {
		t.Fatalf("best A seat after another engine took the rest: %+v, %v; want sold_out", h, err)
	}
	if _, err := b.eng.ReleaseHold(ctx, first.ID, nil); err != nil {
		t.Fatal(err)
	}
	again, err := b.eng.HoldSeats(ctx, bestA(2), nil)
	if err != nil {
		t.Fatalf("best 2 A seats after a release freed 2: %v", err)
	}
	if !slices.Equal(again.Seats, first.Seats) {
		t.Errorf("after the release the batch held %v, want the released %v", again.Seats, first.Seats)
	}
	b.reconciled()
}

// TestHoldBatchCatchesUp: a batch brings the seats it kept up to date
// from the seat epoch's recorded changes, without reading the show's
// seats again: seats another engine's batch took are not offered, and
// seats that a release or an expiry freed are, the best first.
func TestHoldBatchCatchesUp(t *testing.T) {
	t.Parallel()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			s := be.open(t)
			a := newEnvOn(t, s, engine.Batch, nil)
			b := newEnvOn(t, s, engine.Batch, nil) // another instance
			b.clock = a.clock
			ctx := sys(t)
			if _, err := a.eng.PutShow(ctx, hall("gig"), nil); err != nil {
				t.Fatal(err)
			}
			bestA := func(en *env, n int, ttl time.Duration) stockade.Hold {
				t.Helper()
				h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", TTL: ttl,
					Best: []stockade.BestSeats{{Quantity: n, Category: "A"}}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			first := bestA(a, 2, time.Minute) // the 2 best; a reads the seats once
			second := bestA(b, 2, time.Minute)
			if reads := engine.SeatReads(a.eng); reads != 1 {
				t.Fatalf("a read the seats %d times, want once", reads)
			}
			if _, err := a.eng.ReleaseHold(ctx, first.ID, nil); err != nil {
				t.Fatal(err)
			}
			// The best 4 left are the 2 a released and 2 beside b's.
			again := bestA(a, 2, time.Minute)
			if !slices.Equal(again.Seats, first.Seats) {
				t.Errorf("after the release a held %v, want the released %v", again.Seats, first.Seats)
			}
			third := bestA(a, 2, time.Second)
			if slices.ContainsFunc(third.Seats, func(id string) bool { return slices.Contains(second.Seats, id) }) {
				t.Errorf("a held %v, some of them b's %v", third.Seats, second.Seats)
			}
			a.clock.Advance(2 * time.Second) // third lapses: the next batch expires it
			if fourth := bestA(a, 2, time.Minute); !slices.Equal(fourth.Seats, third.Seats) {
				t.Errorf("after the expiry a held %v, want the lapsed %v", fourth.Seats, third.Seats)
			}
			if reads := engine.SeatReads(a.eng); reads != 1 {
				t.Errorf("a read the seats %d times, want once: it kept them up to date", reads)
			}
			a.reconciled()
		})
	}
}

// showLocks counts the reads of a show's row that lock it.
type showLocks struct {
	stockade.Tx
	n *atomic.Int64
}

func (s showLocks) ShowGetHead(ctx context.Context, by stockade.ByID) (stockade.Show, error) {
	if by.Lock {
		s.n.Add(1)
	}
	return s.Tx.ShowGetHead(ctx, by)
}

// TestHoldBatchRefusesOnKept: under Batch, holds that the seats kept of a
// sold-out show refuse are refused without locking the show, and the
// kept seats are not trusted once they may be stale: seats another
// instance freed and a hold that lapsed are offered, a key's stored hold
// is replayed and a room in front of the show refuses first, as a batch
// that locks the show would.
func TestHoldBatchRefusesOnKept(t *testing.T) {
	t.Parallel()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			s := be.open(t)
			var locks atomic.Int64
			a := newEnvOn(t, &hooked{Store: s, wrap: func(tx stockade.Tx) stockade.Tx { return showLocks{tx, &locks} }}, engine.Batch, nil)
			b := newEnvOn(t, s, engine.Batch, nil) // another instance
			ctx := sys(t)
			if _, err := a.eng.PutShow(ctx, hall("gig"), nil); err != nil {
				t.Fatal(err)
			}
			hold := func(en *env, req stockade.HoldRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
				t.Helper()
				req.ShowID = "gig"
				return en.eng.HoldSeats(ctx, req, idem)
			}
			bestA := func(n int, ttl time.Duration) stockade.HoldRequest {
				return stockade.HoldRequest{TTL: ttl, Best: []stockade.BestSeats{{Quantity: n, Category: "A"}}}
			}
			must := func(h stockade.Hold, err error) stockade.Hold {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			key := &stockade.Idempotency{Key: "k-1", Fingerprint: "f"}
			keyed := must(hold(a, bestA(2, time.Minute), key))
			lapsing := must(hold(a, bestA(1, time.Second), nil))
			var rest []string
			for _, id := range a.seatsOf("gig", stockade.SeatFree) {
				if strings.HasPrefix(id, "stalls/A/") {
					rest = append(rest, id)
				}
			}
			others := must(hold(b, stockade.HoldRequest{Seats: rest, TTL: time.Minute}, nil))
			if _, err := hold(a, bestA(1, 0), nil); stockade.ErrorCode(err) != stockade.ESoldOut {
				t.Fatalf("best A seat once another instance took the rest: %v, want sold_out", err)
			}

			before := locks.Load()
			if _, err := hold(a, bestA(1, 0), nil); stockade.ErrorCode(err) != stockade.ESoldOut {
				t.Errorf("best A seat again: %v, want sold_out", err)
			}
			if _, err := hold(a, stockade.HoldRequest{Seats: others.Seats[:1]}, nil); stockade.ErrorCode(err) != stockade.ESeatsUnavailable {
				t.Errorf("a seat the other instance holds: %v, want seats_unavailable", err)
			}
			if h, err := hold(a, bestA(2, time.Minute), key); err != nil || h.ID != keyed.ID {
				t.Errorf("the key's hold again: %+v, %v; want its hold %s replayed", h, err, keyed.ID)
			}
			if _, err := hold(a, bestA(1, 0), &stockade.Idempotency{Key: "k-2", Fingerprint: "f"}); stockade.ErrorCode(err) != stockade.ESoldOut {
				t.Errorf("best A seat with a new key: %v, want sold_out", err)
			}
			if n := locks.Load() - before; n != 0 {
				t.Errorf("the refusals and the replay locked the show %d times, want none", n)
			}

			if _, err := b.eng.ReleaseHold(ctx, others.ID, nil); err != nil {
				t.Fatal(err)
			}
			freed := stockade.HoldRequest{Best: []stockade.BestSeats{{Quantity: len(others.Seats), Category: "A", AllowSplit: true}}}
			if h, err := hold(a, freed, nil); err != nil || !slices.Equal(h.Seats, others.Seats) {
				t.Errorf("after the other instance released %v: %+v, %v; want them held", others.Seats, h, err)
			}
			before = locks.Load()
			if _, err := hold(a, bestA(1, 0), nil); stockade.ErrorCode(err) != stockade.ESoldOut {
				t.Errorf("best A seat once sold out again: %v, want sold_out", err)
			}
			if n := locks.Load() - before; n != 0 {
				t.Errorf("the refusal locked the show %d times, want none", n)
			}

			a.clock.Advance(2 * time.Second) // lapsing lapses: the next batch expires it
			if h, err := hold(a, bestA(1, time.Minute), nil); err != nil || !slices.Equal(h.Seats, lapsing.Seats) {
				t.Errorf("after a hold lapsed: %+v, %v; want its seats %v", h, err, lapsing.Seats)
			}

			a.room(stockade.NewRoomRequest{ID: "gig-room", ShowID: "gig", ActiveLimit: 5, AdmitPerMinute: 60})
			before = locks.Load()
			if _, err := hold(a, bestA(1, 0), nil); stockade.ErrorCode(err) != stockade.EAdmissionRequired {
				t.Errorf("best A seat once a room is in front of the show: %v, want %s", err, stockade.EAdmissionRequired)
			}
			if n := locks.Load() - before; n != 0 {
				t.Errorf("the room's refusal locked the show %d times, want none", n)
			}
			a.reconciled()
		})
	}
}

// TestConfirmBatch: under Batch, the confirms that queue while a batch
// runs are decided together in one transaction, each as it would be
// alone: a held hold is booked, twice confirmed it gives one booking, a
// key used again gives the same booking, a lapsed hold is expired and
// refused, and unknown, released or another storefront's holds are
// refused, all without spoiling the others.
func TestConfirmBatch(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, nil)
	_, shop1, shop2 := b.actors()
	ctx := sys(t)
	if _, err := b.eng.PutShow(ctx, hall("gig"), nil); err != nil {
		t.Fatal(err)
	}
	hold := func(ctx context.Context, ttl time.Duration, seats ...string) stockade.Hold {
		t.Helper()
		h, err := b.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: seats, TTL: ttl}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	mine := hold(shop1, time.Hour, "stalls/A/1", "stalls/A/2")
	twice := hold(shop1, time.Hour, "stalls/A/3")
	keyed := hold(shop1, time.Hour, "stalls/A/4")
	lapsing := hold(shop1, time.Minute, "stalls/A/6")
	theirs := hold(shop2, time.Hour, "stalls/A/7")
	released := hold(shop1, time.Hour, "stalls/A/8")
	if _, err := b.eng.ReleaseHold(shop1, released.ID, nil); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(2 * time.Minute)

	type result struct {
		bk  stockade.Booking
		err error
	}
	start := func(id string, idem *stockade.Idempotency) chan result {
		ch := make(chan result, 1)
		go func() {
			bk, err := b.eng.ConfirmHold(shop1, id, idem)
			ch <- result{bk, err}
		}()
		return ch
	}
	queue := func(id string, idem *stockade.Idempotency) chan result {
		t.Helper()
		n := engine.QueuedHolds(b.eng)
		ch := start(id, idem)
		b.wait(fmt.Sprintf("confirm %d is queued", n+1), func() bool { return engine.QueuedHolds(b.eng) == n+1 })
		return ch
	}
	// The first batch confirms theirs as its owner would, and waits in its
	// transaction while the others queue.
	first := make(chan result, 1)
	b.first(func() {
		go func() {
			bk, err := b.eng.ConfirmHold(shop2, theirs.ID, nil)
			first <- result{bk, err}
		}()
	})

	key := func(fp string) *stockade.Idempotency { return &stockade.Idempotency{Key: "k-1", Fingerprint: fp} }
	calls := []struct {
		ch   chan result
		want string
	}{
		{queue(mine.ID, nil), ""},
		{queue(twice.ID, nil), ""},
		{queue(twice.ID, nil), ""}, // the same booking
		{queue(keyed.ID, key("f")), ""},
		{queue(keyed.ID, key("f")), ""},                           // the same key: the same booking
		{queue(mine.ID, key("g")), stockade.EIdempotencyMismatch}, // the key, for another request
		{queue(lapsing.ID, nil), stockade.EHoldExpired},           // expired, and its seat freed
		{queue("hld_nosuchhold", nil), stockade.ENotFound},        //
		{queue(theirs.ID, nil), stockade.ENotFound},               // shop2's, confirmed by the first batch
		{queue(released.ID, nil), stockade.EInvalidState},         //
	}
	b.release()
	if r := <-first; r.err != nil || r.bk.HoldID != theirs.ID {
		t.Fatalf("the first confirm: %+v, %v", r.bk, r.err)
	}
	got := make([]result, len(calls))
	for i, c := range calls {
		got[i] = <-c.ch
		if code := stockade.ErrorCode(got[i].err); code != c.want {
			t.Errorf("call %d: %v, want code %q", i+1, got[i].err, c.want)
		}
	}
	if n := b.updates(); n != 2 {
		t.Errorf("%d write transactions, want 2: the held one and one for the queued confirms", n)
	}
	for i, h := range []stockade.Hold{mine, twice, twice, keyed, keyed} {
		if bk := got[i].bk; bk.ID == "" || bk.HoldID != h.ID || !slices.Equal(bk.Seats, h.Seats) {
			t.Errorf("call %d: booking %+v, want one of hold %s with seats %v", i+1, bk, h.ID, h.Seats)
		}
	}
	if got[1].bk.ID != got[2].bk.ID || got[3].bk.ID != got[4].bk.ID {
		t.Errorf("bookings %s and %s of one hold, %s and %s of one key; want one each",
			got[1].bk.ID, got[2].bk.ID, got[3].bk.ID, got[4].bk.ID)
	}
	if got[0].bk.ID == got[1].bk.ID {
		t.Errorf("two holds got one booking, %s", got[0].bk.ID)
	}
	for _, want := range []struct {
		h      stockade.Hold
		status stockade.HoldStatus
	}{{mine, stockade.HoldConfirmed}, {twice, stockade.HoldConfirmed}, {keyed, stockade.HoldConfirmed},
		{lapsing, stockade.HoldExpired}, {theirs, stockade.HoldConfirmed}, {released, stockade.HoldReleased}} {
		h, err := b.eng.Hold(ctx, want.h.ID)
		if err != nil || h.Status != want.status {
			t.Errorf("hold %s: %+v, %v; want %s", want.h.ID, h, err, want.status)
		}
	}
	booked := strings.Join(b.seatsOf("gig", stockade.SeatBooked), " ")
	if want := "stalls/A/1 stalls/A/2 stalls/A/3 stalls/A/4 stalls/A/7"; booked != want {
		t.Errorf("booked seats %s, want %s", booked, want)
	}
	if held := b.seatsOf("gig", stockade.SeatHeld); len(held) != 0 {
		t.Errorf("seats still held: %v", held)
	}
	b.reconciled()
}

// TestReconcileEvents: a seat or an area changed behind the history's
// back is reported, and nothing else.
func TestReconcileEvents(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/1"}}, nil); err != nil {
			t.Fatal(err)
		}
		en.reconciled()
		err := en.store.Update(ctx, func(tx stockade.Tx) error {
			seats, err := tx.SeatList(ctx, "gig", stockade.SeatFilter{IDs: []string{"stalls/A/2"}, Lock: true})
			if err != nil {
				return err
			}
			seats[0].Status, seats[0].BookingID = stockade.SeatBooked, "bkg_forged"
			if err := tx.SeatPut(ctx, "gig", seats); err != nil {
				return err
			}
			_, _, err = tx.AreaMovePlaces(ctx, "gig", "standing", 1, 0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := en.eng.Reconcile(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range rep.ShowMismatches {
			got = append(got, m.String())
		}
		want := []string{
			"show gig, seat stalls/A/2: booked, but its history ends free",
			"show gig, area standing: 1 held and 0 booked, but its history sums to 0 and 0",
		}
		if rep.OK || rep.Shows != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("reconcile: ok %v, %d events, mismatches:\n%s\nwant:\n%s", rep.OK, rep.Shows, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestHoldAndBookingLists: the holds and bookings, across shows and of one
// show, newest first, read page by page with every one once; filtered by
// status; a storefront key's own only; a lapsed hold listed as expired.
func TestHoldAndBookingLists(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		admin, shop1, shop2 := en.actors()
		for _, id := range []string{"gig", "opera"} {
			if _, err := en.eng.PutShow(admin, hall(id), nil); err != nil {
				t.Fatal(err)
			}
		}
		// Seven holds: shop 1 holds seats 1–4 of gig and 1–2 of opera,
		// shop 2 seat 5 of gig; the clock moves between them, so the
		// newest is the last. Shop 1 confirms gig's first and opera's.
		var holds []stockade.Hold
		hold := func(ctx context.Context, show string, seat int, ttl time.Duration) stockade.Hold {
			t.Helper()
			en.clock.Advance(time.Second)
			h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: show, Seats: []string{fmt.Sprintf("stalls/A/%d", seat)}, TTL: ttl}, nil)
			if err != nil {
				t.Fatal(err)
			}
			holds = append(holds, h)
			return h
		}
		for seat := 1; seat <= 4; seat++ {
			hold(shop1, "gig", seat, time.Hour)
		}
		hold(shop1, "opera", 1, time.Hour)
		hold(shop1, "opera", 2, 10*time.Second) // lapses below
		hold(shop2, "gig", 5, time.Hour)
		for _, h := range []stockade.Hold{holds[0], holds[4]} {
			if _, err := en.eng.ConfirmHold(shop1, h.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		en.clock.Advance(time.Minute)

		ids := func(ctx context.Context, q stockade.ListQuery, limit int) (got []string, statuses map[string]stockade.HoldStatus) {
			t.Helper()
			statuses = map[string]stockade.HoldStatus{}
			q.Limit = limit
			for {
				p, err := en.eng.Holds(ctx, q)
				if err != nil {
					t.Fatalf("Holds(%+v): %v", q, err)
				}
				for _, h := range p.Holds {
					got = append(got, h.ID)
					statuses[h.ID] = h.Status
				}
				if p.Next == "" {
					return got, statuses
				}
				q.Cursor = p.Next
			}
		}
		newest := func(hs ...stockade.Hold) []string {
			out := make([]string, len(hs))
			for i, h := range hs {
				out[len(hs)-1-i] = h.ID
			}
			return out
		}
		all, statuses := ids(admin, stockade.ListQuery{}, 2)
		if want := newest(holds...); !slices.Equal(all, want) {
			t.Errorf("every hold, 2 a page: %v, want %v", all, want)
		}
		if statuses[holds[5].ID] != stockade.HoldExpired || statuses[holds[0].ID] != stockade.HoldConfirmed || statuses[holds[1].ID] != stockade.HoldHeld {
			t.Errorf("statuses %v: want the lapsed hold expired, the confirmed confirmed", statuses)
		}
		if got, _ := ids(admin, stockade.ListQuery{ShowID: "gig"}, 3); !slices.Equal(got, newest(holds[0], holds[1], holds[2], holds[3], holds[6])) {
			t.Errorf("gig's holds: %v", got)
		}
		if got, _ := ids(admin, stockade.ListQuery{ShowID: "gig", Status: string(stockade.HoldConfirmed)}, 0); !slices.Equal(got, newest(holds[0])) {
			t.Errorf("gig's confirmed holds: %v", got)
		}
		if got, _ := ids(shop2, stockade.ListQuery{}, 0); !slices.Equal(got, newest(holds[6])) {
			t.Errorf("shop 2's holds: %v, want its own only", got)
		}
		if got, _ := ids(admin, stockade.ListQuery{ShowID: "nothing"}, 0); len(got) != 0 {
			t.Errorf("an unknown show's holds: %v", got)
		}

		bookings := func(ctx context.Context, q stockade.ListQuery) []string {
			t.Helper()
			p, err := en.eng.Bookings(ctx, q)
			if err != nil {
				t.Fatalf("Bookings(%+v): %v", q, err)
			}
			var out []string
			for _, b := range p.Bookings {
				out = append(out, b.HoldID)
			}
			return out
		}
		if got := bookings(admin, stockade.ListQuery{}); !slices.Equal(got, newest(holds[0], holds[4])) {
			t.Errorf("every booking, by its hold: %v", got)
		}
		if got := bookings(shop1, stockade.ListQuery{ShowID: "opera", Status: string(stockade.BookingBooked)}); !slices.Equal(got, newest(holds[4])) {
			t.Errorf("opera's booked bookings: %v", got)
		}
		if got := bookings(shop2, stockade.ListQuery{}); len(got) != 0 {
			t.Errorf("shop 2's bookings: %v, want none", got)
		}
		for _, q := range []stockade.ListQuery{{Status: "booked"}, {ShowID: strings.Repeat("x", 200)}, {Limit: stockade.MaxListLimit + 1}, {Cursor: "nonsense"}} {
			if _, err := en.eng.Holds(admin, q); stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("Holds(%+v): %v, want %s", q, err, stockade.EInvalid)
			}
		}
		if _, err := en.eng.Reservations(admin, stockade.ListQuery{ShowID: "gig"}); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("Reservations of a show: %v, want %s", err, stockade.EInvalid)
		}
	})
}

// TestShowList: the shows' heads, newest first, page by page, every show
// once; the same for every role; refusals of what shows do not have.
func TestShowList(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		admin, shop1, _ := en.actors()
		var want []string
		for _, id := range []string{"b", "a", "d", "c", "e"} {
			en.clock.Advance(time.Second)
			if _, err := en.eng.PutShow(admin, hall(id), nil); err != nil {
				t.Fatal(err)
			}
			want = append([]string{id}, want...)
		}
		for _, ctx := range []context.Context{admin, shop1} {
			var got []string
			q := stockade.ListQuery{Limit: 2}
			for {
				p, err := en.eng.Shows(ctx, q)
				if err != nil {
					t.Fatalf("Shows(%+v): %v", q, err)
				}
				for _, s := range p.Shows {
					if s.Rows != nil || s.Areas != nil || s.Name != "Hall "+s.ID || s.Version != 1 {
						t.Errorf("show %s in the list: %+v, want its head only", s.ID, s)
					}
					got = append(got, s.ID)
				}
				if p.Next == "" {
					break
				}
				q.Cursor = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("shows %v, want %v, newest first", got, want)
			}
		}
		for _, q := range []stockade.ListQuery{{Status: "held"}, {ShowID: "a"}, {Limit: -1}} {
			if _, err := en.eng.Shows(admin, q); stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("Shows(%+v): %v, want %s", q, err, stockade.EInvalid)
			}
		}
	})
}
