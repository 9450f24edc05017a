package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// TestMetadata: a reservation's metadata is kept as given, in both stores
// and both kinds of transaction: read back, carried into its events and
// into the order it becomes; a checkout's goes on its order; the lists
// keep what matches every pair asked for; metadata over the limits is
// refused and changes nothing.
func TestMetadata(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		_, pos := en.outbox(stockade.EventPosition{})
		reserve := func(m stockade.Metadata) stockade.Reservation {
			t.Helper()
			en.clock.Advance(time.Second) // newest first: each is newer
			r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		cart := stockade.Metadata{"cart": "c_42", "customer": "cus_7"}
		r1 := reserve(cart)
		r2 := reserve(stockade.Metadata{"cart": "c_43", "customer": "cus_7"})
		r3 := reserve(nil)
		if got, err := en.eng.Reservation(ctx, r1.ID); err != nil || !reflect.DeepEqual(got.Metadata, cart) {
			t.Errorf("Reservation(r1).Metadata = %v, %v; want %v", got.Metadata, err, cart)
		}
		if got, err := en.eng.Reservation(ctx, r3.ID); err != nil || got.Metadata != nil {
			t.Errorf("Reservation(r3).Metadata = %v, %v; want none", got.Metadata, err)
		}
		// On PostgreSQL an event may be read a moment after its commit
		// (see outboxAtLeast): read until r1's is there.
		var held struct{ Metadata stockade.Metadata }
		for deadline, found := time.Now().Add(bound), false; !found && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var evs []stockade.DomainEvent
			evs, pos = en.outbox(pos)
			for _, ev := range evs {
				if ev.AggregateID == r1.ID && ev.Type == stockade.EventReservationHeld {
					if err := json.Unmarshal(ev.Payload, &held); err != nil {
						t.Fatal(err)
					}
					found = true
				}
			}
		}
		if !reflect.DeepEqual(held.Metadata, cart) {
			t.Errorf("reservation.held's metadata: %v, want %v", held.Metadata, cart)
		}
		o, err := en.eng.Confirm(ctx, r1.ID, nil)
		if err != nil || !reflect.DeepEqual(o.Metadata, cart) {
			t.Errorf("the confirmed order's metadata: %v, %v; want the reservation's", o.Metadata, err)
		}
		direct, err := en.eng.Checkout(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: stockade.Metadata{"cart": "c_44"}}, nil)
		if err != nil || direct.Metadata["cart"] != "c_44" {
			t.Errorf("a checkout's order: %v, %v", direct.Metadata, err)
		}
		if got, err := en.eng.Order(ctx, direct.ID); err != nil || got.Metadata["cart"] != "c_44" {
			t.Errorf("Order(checkout).Metadata = %v, %v", got.Metadata, err)
		}

		ids := func(q stockade.ListQuery) string {
			t.Helper()
			p, err := en.eng.Reservations(ctx, q)
			if err != nil {
				t.Fatalf("Reservations(%+v): %v", q, err)
			}
			var out []string
			for _, r := range p.Reservations {
				out = append(out, r.ID)
			}
			return strings.Join(out, " ")
		}
		for _, tc := range []struct {
			filter stockade.Metadata
			want   string
		}{
			{stockade.Metadata{"cart": "c_42"}, r1.ID},
			{stockade.Metadata{"customer": "cus_7"}, r2.ID + " " + r1.ID},
			{stockade.Metadata{"customer": "cus_7", "cart": "c_43"}, r2.ID},
			{stockade.Metadata{"cart": "c_99"}, ""},
		} {
			if got := ids(stockade.ListQuery{Metadata: tc.filter}); got != tc.want {
				t.Errorf("reservations with %v: %q, want %q", tc.filter, got, tc.want)
			}
		}
		if p, err := en.eng.Orders(ctx, stockade.ListQuery{Metadata: stockade.Metadata{"cart": "c_42"}}); err != nil || len(p.Orders) != 1 || p.Orders[0].ID != o.ID {
			t.Errorf("orders of cart c_42: %+v, %v", p, err)
		}

		before := en.state()
		many := stockade.Metadata{}
		for i := range stockade.MaxMetadataKeys + 1 {
			many[strings.Repeat("k", i%40+1)+string(rune('a'+i/40))] = "v"
		}
		for _, m := range []stockade.Metadata{
			many,
			{strings.Repeat("k", 41): "v"},
			{"": "v"},
			{"has space": "v"},
			{"brackets[]": "v"},
			{"k": strings.Repeat("v", 501)},
			{"k": "line\nbreak"},
		} {
			_, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: m}, nil)
			if stockade.ErrorCode(err) != stockade.EInvalid || !strings.HasPrefix(stockade.ErrorMessage(err), "metadata") {
				t.Errorf("metadata with %d keys: %v, want %s about metadata", len(m), err, stockade.EInvalid)
			}
			if _, err := en.eng.Reservations(ctx, stockade.ListQuery{Metadata: m}); stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("a list filtered by bad metadata: %v, want %s", err, stockade.EInvalid)
			}
		}
		if after := en.state(); !reflect.DeepEqual(after, before) {
			t.Error("refused metadata changed the store")
		}
	})
}

// TestHoldMetadata: a hold's metadata is kept as given, in both stores and
// both kinds of transaction, goes to the booking it becomes, and filters
// the lists of holds and bookings, across shows and of one.
func TestHoldMetadata(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		hold := func(seat string, m stockade.Metadata) stockade.Hold {
			t.Helper()
			h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{seat}, Metadata: m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		basket := stockade.Metadata{"basket": "b_7"}
		h1 := hold("stalls/A/1", basket)
		hold("stalls/A/2", stockade.Metadata{"basket": "b_8"})
		if got, err := en.eng.Hold(ctx, h1.ID); err != nil || !reflect.DeepEqual(got.Metadata, basket) {
			t.Errorf("Hold(h1).Metadata = %v, %v; want %v", got.Metadata, err, basket)
		}
		bk, err := en.eng.ConfirmHold(ctx, h1.ID, nil)
		if err != nil || !reflect.DeepEqual(bk.Metadata, basket) {
			t.Errorf("the booking's metadata: %v, %v; want the hold's", bk.Metadata, err)
		}
		for _, q := range []stockade.ListQuery{{Metadata: basket}, {ShowID: "gig", Metadata: basket}} {
			hs, err := en.eng.Holds(ctx, q)
			if err != nil || len(hs.Holds) != 1 || hs.Holds[0].ID != h1.ID {
				t.Errorf("Holds(%+v) = %+v, %v; want h1 alone", q, hs, err)
			}
			bs, err := en.eng.Bookings(ctx, q)
			if err != nil || len(bs.Bookings) != 1 || bs.Bookings[0].ID != bk.ID {
				t.Errorf("Bookings(%+v) = %+v, %v; want its booking alone", q, bs, err)
			}
		}
		_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/3"}, Metadata: stockade.Metadata{"has space": "x"}}, nil)
		if stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("a hold with a bad key: %v, want %s", err, stockade.EInvalid)
		}
	})
}

// TestPaymentMetadata: a payment's metadata is kept as given, in both
// stores, through its moves, and filters the list of payments.
func TestPaymentMetadata(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		pay := func(m stockade.Metadata) stockade.Payment {
			t.Helper()
			r, err := en.eng.Reserve(ctx, lines(line("tee", 1, "")), nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := en.eng.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
				Amount: 100, Currency: "EUR", Metadata: m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		invoice := stockade.Metadata{"invoice": "inv_1"}
		p1 := pay(invoice)
		pay(stockade.Metadata{"invoice": "inv_2"})
		if got := en.mustOutcome(p1.ID, stockade.PaymentSucceeded); !reflect.DeepEqual(got.Metadata, invoice) {
			t.Errorf("the paid payment's metadata: %v, want %v", got.Metadata, invoice)
		}
		page, err := en.eng.Payments(ctx, stockade.PaymentQuery{Metadata: invoice})
		if err != nil || len(page.Payments) != 1 || page.Payments[0].ID != p1.ID || !reflect.DeepEqual(page.Payments[0].Metadata, invoice) {
			t.Errorf("payments of invoice inv_1: %+v, %v", page, err)
		}
		if _, err := en.eng.Payments(ctx, stockade.PaymentQuery{Metadata: stockade.Metadata{"": "x"}}); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("a payments list filtered by an empty key: %v, want %s", err, stockade.EInvalid)
		}
	})
}

// TestUpdateMetadata: an update merges into the metadata of each kind of
// aggregate that carries it, in any status: it sets, replaces and removes
// keys, leaves the aggregate's status and version as they were, writes
// its *.updated event with the merged metadata at that version, and the
// lists' filter follows. Another storefront's aggregate is ENotFound, bad
// input EInvalid, and neither changes anything. Concurrent updates of
// different keys of one aggregate all land: none is lost to another.
func TestUpdateMetadata(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		_, shop1, shop2 := en.actors()
		ctx := shop1
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		if _, err := en.eng.PutShow(sys(t), hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		start := stockade.Metadata{"cart": "c_1", "customer": "cus_1"}
		r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}
		released, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.Release(ctx, released.ID, nil); err != nil {
			t.Fatal(err)
		}
		o, err := en.eng.Checkout(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 1, "")).Lines, Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/1"}, Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/2"}, Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bk, err := en.eng.ConfirmHold(ctx, h2.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := en.eng.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
			Amount: 100, Currency: "EUR", Metadata: start}, nil)
		if err != nil {
			t.Fatal(err)
		}

		// Each kind: what to update, its update, and its metadata,
		// status and version as a read shows them.
		type aggregate struct {
			kind, id, event string
			update          func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error)
			read            func() (stockade.Metadata, string, int64)
			list            func(m stockade.Metadata) []string
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		kinds := []aggregate{
			{"reservation", r.ID, stockade.EventReservationUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdateReservation(ctx, r.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Reservation(ctx, r.ID)
					must(err)
					return v.Metadata, string(v.Status), 0
				},
				func(m stockade.Metadata) (ids []string) {
					page, err := en.eng.Reservations(ctx, stockade.ListQuery{Metadata: m})
					must(err)
					for _, v := range page.Reservations {
						ids = append(ids, v.ID)
					}
					return ids
				}},
			{"released reservation", released.ID, stockade.EventReservationUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdateReservation(ctx, released.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Reservation(ctx, released.ID)
					must(err)
					return v.Metadata, string(v.Status), 0
				}, nil},
			{"order", o.ID, stockade.EventOrderUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdateOrder(ctx, o.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Order(ctx, o.ID)
					must(err)
					return v.Metadata, string(v.Status), v.Version
				},
				func(m stockade.Metadata) (ids []string) {
					page, err := en.eng.Orders(ctx, stockade.ListQuery{Metadata: m})
					must(err)
					for _, v := range page.Orders {
						ids = append(ids, v.ID)
					}
					return ids
				}},
			{"hold", h.ID, stockade.EventHoldUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdateHold(ctx, h.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Hold(ctx, h.ID)
					must(err)
					return v.Metadata, string(v.Status), v.Version
				},
				func(m stockade.Metadata) (ids []string) {
					page, err := en.eng.Holds(ctx, stockade.ListQuery{Metadata: m})
					must(err)
					for _, v := range page.Holds {
						ids = append(ids, v.ID)
					}
					return ids
				}},
			{"booking", bk.ID, stockade.EventBookingUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdateBooking(ctx, bk.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Booking(ctx, bk.ID)
					must(err)
					return v.Metadata, string(v.Status), 0
				},
				func(m stockade.Metadata) (ids []string) {
					page, err := en.eng.Bookings(ctx, stockade.ListQuery{Metadata: m})
					must(err)
					for _, v := range page.Bookings {
						ids = append(ids, v.ID)
					}
					return ids
				}},
			{"payment", p.ID, stockade.EventPaymentUpdated,
				func(ctx context.Context, req stockade.UpdateRequest) (stockade.Metadata, error) {
					v, err := en.eng.UpdatePayment(ctx, p.ID, req, nil)
					return v.Metadata, err
				},
				func() (stockade.Metadata, string, int64) {
					v, err := en.eng.Payment(ctx, p.ID)
					must(err)
					return v.Metadata, string(v.Status), v.Version
				},
				func(m stockade.Metadata) (ids []string) {
					page, err := en.eng.Payments(ctx, stockade.PaymentQuery{Metadata: m})
					must(err)
					for _, v := range page.Payments {
						ids = append(ids, v.ID)
					}
					return ids
				}},
		}

		patch := stockade.Metadata{"cart": "c_2", "customer": "", "note": "gift"}
		want := stockade.Metadata{"cart": "c_2", "note": "gift"}
		for _, a := range kinds {
			_, status, version := a.read()
			got, err := a.update(ctx, stockade.UpdateRequest{Metadata: patch})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("update %s: %v, %v; want %v", a.kind, got, err, want)
			}
			m, status2, version2 := a.read()
			if !reflect.DeepEqual(m, want) || status2 != status || version2 != version {
				t.Errorf("%s after the update: %v, %s, version %d; want %v, %s, version %d", a.kind, m, status2, version2, want, status, version)
			}
			if a.list != nil {
				if ids := a.list(stockade.Metadata{"note": "gift"}); !slices.Contains(ids, a.id) {
					t.Errorf("the %ss of note=gift: %v, want %s among them", a.kind, ids, a.id)
				}
				if ids := a.list(stockade.Metadata{"customer": "cus_1"}); slices.Contains(ids, a.id) {
					t.Errorf("the %ss of customer=cus_1: %v, want %s no more", a.kind, ids, a.id)
				}
			}

			// Refused, and nothing changes.
			for _, bad := range []struct {
				ctx  context.Context
				req  stockade.UpdateRequest
				code string
			}{
				{shop2, stockade.UpdateRequest{Metadata: stockade.Metadata{"x": "y"}}, stockade.ENotFound},
				{ctx, stockade.UpdateRequest{}, stockade.EInvalid},
				{ctx, stockade.UpdateRequest{Metadata: stockade.Metadata{"has space": "y"}}, stockade.EInvalid},
				{ctx, stockade.UpdateRequest{Metadata: stockade.Metadata{"x": strings.Repeat("v", stockade.MaxMetadataValueLength+1)}}, stockade.EInvalid},
				{ctx, stockade.UpdateRequest{Metadata: manyKeys(stockade.MaxMetadataKeys - 1)}, stockade.EInvalid}, // 2 + 49 > 50
			} {
				if _, err := a.update(bad.ctx, bad.req); stockade.ErrorCode(err) != bad.code {
					t.Errorf("update %s with %d keys: %v, want %s", a.kind, len(bad.req.Metadata), err, bad.code)
				}
			}
			if m, _, _ := a.read(); !reflect.DeepEqual(m, want) {
				t.Errorf("%s after refused updates: %v, want %v", a.kind, m, want)
			}
		}

		// One *.updated event each, at the aggregate's version, with the
		// merged metadata: the refused updates wrote none.
		var evs []stockade.DomainEvent
		for pos, deadline := (stockade.EventPosition{}), time.Now().Add(bound); len(evs) < len(kinds) && time.Now().Before(deadline); {
			var more []stockade.DomainEvent
			more, pos = en.outbox(pos)
			for _, ev := range more {
				if strings.HasSuffix(ev.Type, ".updated") {
					evs = append(evs, ev)
				}
			}
			time.Sleep(10 * time.Millisecond) // the outbox, polled (see outboxAtLeast)
		}
		if len(evs) != len(kinds) {
			t.Fatalf("%d *.updated events, want %d", len(evs), len(kinds))
		}
		for i, ev := range evs {
			a := kinds[i]
			var payload struct{ Metadata stockade.Metadata }
			if err := json.Unmarshal(ev.Payload, &payload); err != nil {
				t.Fatal(err)
			}
			_, _, version := a.read()
			if ev.Type != a.event || ev.AggregateID != a.id || (version != 0 && ev.Version != version) || !reflect.DeepEqual(payload.Metadata, want) {
				t.Errorf("event %d: %s of %s at version %d with %v; want %s of %s at version %d with %v",
					i, ev.Type, ev.AggregateID, ev.Version, payload.Metadata, a.event, a.id, version, want)
			}
		}

		// Concurrent updates of different keys of one order all land.
		const writers = 16
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				if _, err := en.eng.UpdateOrder(ctx, o.ID, stockade.UpdateRequest{Metadata: stockade.Metadata{fmt.Sprintf("k%02d", i): "v"}}, nil); err != nil {
					t.Errorf("writer %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		m, _, _ := kinds[2].read()
		if len(m) != len(want)+writers {
			t.Errorf("after %d concurrent updates of different keys the order has %d keys, want %d: %v", writers, len(m), len(want)+writers, m)
		}
	})
}

// manyKeys returns metadata of n keys that no other test uses.
func manyKeys(n int) stockade.Metadata {
	m := stockade.Metadata{}
	for i := range n {
		m[fmt.Sprintf("many%02d", i)] = "v"
	}
	return m
}
