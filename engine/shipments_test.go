package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

func alloc(sku, loc string, q int64) stockade.Allocation {
	return stockade.Allocation{SKU: sku, Location: loc, Quantity: q}
}

func shipment(ls ...stockade.Line) stockade.NewShipment { return stockade.NewShipment{Lines: ls} }

// orderEvents returns the first n events of order id, oldest first,
// waiting for them: on PostgreSQL an event is readable only once the
// transactions older than its own have ended.
func (en *env) orderEvents(id string, n int) []stockade.DomainEvent {
	en.t.Helper()
	var evs []stockade.DomainEvent
	for cursor := ""; len(evs) < n; {
		page, err := en.eng.Events(sys(en.t), stockade.DomainEventQuery{Cursor: cursor, Aggregate: stockade.AggregateOrder, AggregateID: id,
			Limit: stockade.MaxEventLimit, Wait: 10 * time.Second})
		if err != nil {
			en.t.Fatal(err)
		}
		if len(page.Events) == 0 {
			en.t.Fatalf("order %s: %d events, want %d", id, len(evs), n)
		}
		evs, cursor = append(evs, page.Events...), page.Next
	}
	return evs
}

// TestShipOrder: an order ships in parts, each from the allocations its
// lines name or, without a location, in location order; a refusal
// changes nothing; the last part fulfils it, and so does FulfillOrder
// with what is left; the ledger, the events and the list of shipments
// say so, under every store and strategy.
func TestShipOrder(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.location("w2", 0, 1)
		en.stock("tee", "w1", 5)
		en.stock("tee", "w2", 5)
		en.stock("cap", "w1", 3)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 4, "w1"), line("tee", 3, "w2"), line("cap", 2, "w1")), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := func(sku, loc string, c [3]int64) {
			t.Helper()
			if got := en.counters(sku, loc); got != c {
				t.Fatalf("%s@%s: on hand, reserved, committed = %v, want %v", sku, loc, got, c)
			}
		}

		// Without a location: w1's allocation first, then w2's.
		en.clock.Advance(time.Second)
		s1, err := en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 5, "")), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := []stockade.Allocation{alloc("tee", "w1", 4), alloc("tee", "w2", 1)}; !reflect.DeepEqual(s1.Lines, w) || s1.OrderID != o.ID ||
			s1.OrderVersion != 2 || !strings.HasPrefix(s1.ID, "shp_") || !s1.CreatedAt.Equal(en.clock.Now()) {
			t.Fatalf("shipment %+v: want lines %v of order %s at version 2", s1, w, o.ID)
		}
		want("tee", "w1", [3]int64{1, 0, 0})
		want("tee", "w2", [3]int64{4, 0, 2})
		got, err := en.eng.Order(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != stockade.Committed || got.Version != 2 || !reflect.DeepEqual(got.Shipped, s1.Lines) {
			t.Fatalf("order after a shipment: %+v", got)
		}
		if left := got.Unshipped(); !reflect.DeepEqual(left, []stockade.Allocation{alloc("cap", "w1", 2), alloc("tee", "w2", 2)}) {
			t.Errorf("unshipped %v", left)
		}

		// Refusals change nothing.
		before := en.state()
		for _, tc := range []struct {
			name     string
			req      stockade.NewShipment
			expected *int64
			code     string
			says     string
		}{
			{"more than is left", shipment(line("tee", 3, "")), nil, stockade.EInvalidState, "2 of tee left"},
			{"more than is left at a location", shipment(line("tee", 1, "w1")), nil, stockade.EInvalidState, "0 of tee at w1 left"},
			{"more than is left, over two lines", shipment(line("tee", 1, "w2"), line("tee", 2, "")), nil, stockade.EInvalidState, "besides"},
			{"a SKU the order has not", shipment(line("hat", 1, "")), nil, stockade.EInvalid, "no hat"},
			{"a location the order has not", shipment(line("cap", 1, "w2")), nil, stockade.EInvalid, "no cap at w2"},
			{"no lines", shipment(), nil, stockade.EInvalid, "lines"},
			{"a zero quantity", shipment(line("cap", 0, "")), nil, stockade.EInvalid, "quantity"},
			{"an old version", shipment(line("cap", 1, "")), ptr(int64(1)), stockade.EVersionConflict, "version 2"},
			{"a version below 1", shipment(line("cap", 1, "")), ptr(int64(0)), stockade.EInvalid, "expected_version"},
		} {
			_, err := en.eng.ShipOrder(ctx, o.ID, tc.req, tc.expected, nil)
			if stockade.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s: %v, want %s saying %q", tc.name, err, tc.code, tc.says)
			}
		}
		_, err = en.eng.ShipOrder(ctx, "ord_nope", shipment(line("cap", 1, "")), nil, nil)
		wantCode(t, err, stockade.ENotFound)
		if after := en.state(); !reflect.DeepEqual(after, before) {
			t.Fatalf("refused shipments changed the state:\nbefore %+v\nafter  %+v", before, after)
		}

		// At the version it reached, with metadata; lines of one level add
		// up.
		en.clock.Advance(time.Second)
		s2, err := en.eng.ShipOrder(ctx, o.ID, stockade.NewShipment{Lines: []stockade.Line{line("cap", 1, "w1"), line("cap", 1, "")},
			Metadata: stockade.Metadata{"tracking": "1Z999"}}, ptr(s1.OrderVersion), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s2.Lines, []stockade.Allocation{alloc("cap", "w1", 2)}) || s2.OrderVersion != 3 || s2.Metadata["tracking"] != "1Z999" {
			t.Fatalf("second shipment %+v", s2)
		}
		want("cap", "w1", [3]int64{1, 0, 0})

		// FulfillOrder ships the rest as one shipment.
		en.clock.Advance(time.Second)
		if o, err = en.eng.FulfillOrder(ctx, o.ID, ptr(int64(3)), nil); err != nil || o.Status != stockade.Fulfilled || o.Version != 4 {
			t.Fatalf("fulfill = %+v, %v", o, err)
		}
		if !reflect.DeepEqual(o.Shipped, o.Allocations) || o.Unshipped() != nil {
			t.Errorf("fulfilled order: shipped %v, allocations %v", o.Shipped, o.Allocations)
		}
		want("tee", "w2", [3]int64{2, 0, 0})
		_, err = en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, nil)
		wantCode(t, err, stockade.EInvalidState)
		_, err = en.eng.CancelOrder(ctx, o.ID, nil, nil)
		wantCode(t, err, stockade.EInvalidState)

		// The shipments, newest first, a page at a time.
		page, err := en.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Shipments) != 2 || page.Shipments[1].ID != s2.ID || page.Next == "" {
			t.Fatalf("first page %+v", page)
		}
		last := page.Shipments[0]
		if !reflect.DeepEqual(last.Lines, []stockade.Allocation{alloc("tee", "w2", 2)}) || last.OrderVersion != 4 {
			t.Errorf("the fulfilment's shipment %+v", last)
		}
		if !reflect.DeepEqual(page.Shipments[1], s2) {
			t.Errorf("listed %+v, shipped %+v", page.Shipments[1], s2)
		}
		page, err = en.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{Cursor: page.Next, Limit: 2})
		if err != nil || len(page.Shipments) != 1 || page.Shipments[0].ID != s1.ID || page.Next != "" {
			t.Fatalf("second page %+v, %v", page, err)
		}
		_, err = en.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{Cursor: "nope"})
		wantCode(t, err, stockade.EInvalid)
		_, err = en.eng.Shipments(ctx, "ord_nope", stockade.ShipmentQuery{})
		wantCode(t, err, stockade.ENotFound)

		// The ledger: one fulfill row per level of each shipment, naming it.
		if got := en.kinds(o.ID); got != "checkout,checkout,checkout,fulfill,fulfill,fulfill,fulfill" {
			t.Errorf("ledger of the order: %s", got)
		}
		ms, err := en.eng.Movements(ctx, stockade.MovementQuery{Ref: o.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms.Movements[3:] {
			if !strings.HasPrefix(m.Reason, "shipment shp_") {
				t.Errorf("movement %+v: want the shipment as its reason", m)
			}
		}

		// The events: one order.shipped per shipment, carrying it and the
		// order's metadata; order.fulfilled with the last.
		var types []string
		for _, ev := range en.orderEvents(o.ID, 5) {
			types = append(types, fmt.Sprintf("%s/%d", ev.Type, ev.Version))
			if ev.Type != stockade.EventOrderShipped {
				continue
			}
			var p struct {
				stockade.Order
				Shipment stockade.Shipment `json:"shipment"`
			}
			if err := json.Unmarshal(ev.Payload, &p); err != nil || p.ID != o.ID || p.Shipment.OrderID != o.ID || p.Shipment.OrderVersion != ev.Version || len(p.Shipment.Lines) == 0 {
				t.Errorf("payload of %s: %s (%v)", ev.Type, ev.Payload, err)
			}
		}
		if w := "order.committed/1 order.shipped/2 order.shipped/3 order.shipped/4 order.fulfilled/4"; strings.Join(types, " ") != w {
			t.Errorf("events %v, want %s", types, w)
		}
		en.balanced()
	})
}

// TestCancelShipped: cancelling a partly shipped order gives back only
// what it has not shipped; it keeps its shipments and what it shipped.
func TestCancelShipped(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{9, 0, 3} {
			t.Fatalf("after a shipment: %v", got)
		}
		if o, err = en.eng.CancelOrder(ctx, o.ID, ptr(int64(2)), nil); err != nil {
			t.Fatal(err)
		}
		if o.Status != stockade.Cancelled || o.Version != 3 || !reflect.DeepEqual(o.Shipped, s.Lines) {
			t.Errorf("cancelled order %+v", o)
		}
		if got := en.counters("tee", "w1"); got != [3]int64{9, 0, 0} {
			t.Errorf("after the cancel: %v, want the 3 unshipped units available again", got)
		}
		if got := en.kinds(o.ID); got != "checkout,fulfill,cancel" {
			t.Errorf("ledger of the order: %s", got)
		}
		page, err := en.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{})
		if err != nil || len(page.Shipments) != 1 || page.Shipments[0].ID != s.ID {
			t.Errorf("shipments of the cancelled order: %+v, %v", page, err)
		}
		_, err = en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, nil)
		wantCode(t, err, stockade.EInvalidState)
		_, err = en.eng.FulfillOrder(ctx, o.ID, nil, nil)
		wantCode(t, err, stockade.EInvalidState)
		en.balanced()
	})
}

// TestShipIdempotent: a shipment with an idempotency key ships once; its
// retry gets the same shipment, another body under the key is refused.
func TestShipIdempotent(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		idem := &stockade.Idempotency{Key: "ship-1", Fingerprint: "a"}
		s, err := en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, idem)
		if err != nil || idem.Replayed {
			t.Fatalf("ship = %+v, %v (replayed %v)", s, err, idem.Replayed)
		}
		again, err := en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, idem)
		if err != nil || !idem.Replayed || !reflect.DeepEqual(again, s) {
			t.Fatalf("again = %+v, %v (replayed %v), want %+v", again, err, idem.Replayed, s)
		}
		_, err = en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 2, "")), nil, &stockade.Idempotency{Key: "ship-1", Fingerprint: "b"})
		wantCode(t, err, stockade.EIdempotencyMismatch)
		if got := en.counters("tee", "w1"); got != [3]int64{9, 0, 3} {
			t.Errorf("counters %v: want one shipment of 1", got)
		}
	})
}

// TestShipOwner: a storefront neither ships nor lists the shipments of
// another's order.
func TestShipOwner(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		admin, shop1, shop2 := en.actors()
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		o, err := en.eng.Checkout(shop1, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = en.eng.ShipOrder(shop2, o.ID, shipment(line("tee", 1, "")), nil, nil)
		wantCode(t, err, stockade.ENotFound)
		_, err = en.eng.Shipments(shop2, o.ID, stockade.ShipmentQuery{})
		wantCode(t, err, stockade.ENotFound)
		if _, err := en.eng.ShipOrder(admin, o.ID, shipment(line("tee", 1, "")), nil, nil); err != nil {
			t.Fatal(err)
		}
		if page, err := en.eng.Shipments(shop1, o.ID, stockade.ShipmentQuery{}); err != nil || len(page.Shipments) != 1 {
			t.Errorf("the owner's list: %+v, %v", page, err)
		}
	})
}

// TestShipConcurrently: many callers ship parts of one order at once, one
// of them fulfils it; never more than was ordered leaves, every unit
// ordered leaves once, and the ledger balances, under every store and
// strategy.
func TestShipConcurrently(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.location("w2", 0, 1)
		en.stock("tee", "w1", 40)
		en.stock("tee", "w2", 40)
		en.stock("cap", "w2", 40)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 30, "w1"), line("tee", 20, "w2"), line("cap", 25, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		const workers = 12
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			shipped = map[stockade.Key]int64{}
		)
		for i := range workers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(i), 7))
				for n := 0; ; n++ {
					if i == 0 && n == 4 {
						// One caller fulfils, racing with the others: its
						// shipment is the rest, whatever they took.
						f, err := en.eng.FulfillOrder(ctx, o.ID, nil, nil)
						if err != nil || f.Status != stockade.Fulfilled {
							t.Errorf("fulfill = %+v, %v", f, err)
						}
						return
					}
					var ls []stockade.Line
					switch r.IntN(3) {
					case 0:
						ls = []stockade.Line{line("tee", int64(1+r.IntN(3)), "")}
					case 1:
						ls = []stockade.Line{line("tee", 1, []string{"w1", "w2"}[r.IntN(2)]), line("cap", 1, "")}
					default:
						ls = []stockade.Line{line("cap", int64(1+r.IntN(2)), "w2")}
					}
					s, err := en.eng.ShipOrder(ctx, o.ID, shipment(ls...), nil, nil)
					switch stockade.ErrorCode(err) {
					case "":
						mu.Lock()
						for _, l := range s.Lines {
							shipped[l.Key()] += l.Quantity
						}
						mu.Unlock()
					case stockade.EInvalidState:
						// Too little left of what it asked, or nothing.
						got, err := en.eng.Order(ctx, o.ID)
						if err != nil {
							t.Error(err)
							return
						}
						if got.Status != stockade.Committed && i != 0 {
							return
						}
					default:
						t.Errorf("ship %v: %v", ls, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		got, err := en.eng.Order(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != stockade.Fulfilled || !reflect.DeepEqual(got.Shipped, got.Allocations) {
			t.Fatalf("order %+v, want it fulfilled", got)
		}
		// What the shipments say left, and the levels, agree.
		listed, versions := map[stockade.Key]int64{}, []int64{}
		for cursor := ""; ; {
			page, err := en.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{Cursor: cursor, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page.Shipments {
				versions = append(versions, s.OrderVersion)
				for _, l := range s.Lines {
					listed[l.Key()] += l.Quantity
				}
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		slices.Sort(versions)
		for i, v := range versions {
			if v != int64(i+2) || len(versions) != int(got.Version-1) {
				t.Fatalf("shipments at versions %v, the order at %d: want one version per shipment", versions, got.Version)
			}
		}
		ordered := map[stockade.Key]int64{}
		for _, a := range got.Allocations {
			ordered[a.Key()] += a.Quantity
		}
		if !reflect.DeepEqual(listed, ordered) {
			t.Errorf("shipments sum to %v, the order allocated %v", listed, ordered)
		}
		for k, q := range shipped {
			if q > ordered[k] {
				t.Errorf("%s: callers were told %d shipped, %d were ordered", k, q, ordered[k])
			}
		}
		for _, c := range []struct {
			sku, loc string
			want     [3]int64
		}{{"tee", "w1", [3]int64{10, 0, 0}}, {"tee", "w2", [3]int64{20, 0, 0}}, {"cap", "w2", [3]int64{15, 0, 0}}} {
			if got := en.counters(c.sku, c.loc); got != c.want {
				t.Errorf("%s@%s: on hand, reserved, committed = %v, want %v", c.sku, c.loc, got, c.want)
			}
		}
		en.balanced()
	})
}

// TestPaymentOfShippedOrder: a failed payment of an order that has
// shipped a part cannot cancel it, as it cannot cancel a fulfilled one:
// the payment stays unresolved, for a person, and nothing moves.
func TestPaymentOfShippedOrder(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("tee", "w1", 10)
		o, err := en.eng.Checkout(ctx, lines(line("tee", 4, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := en.pay(stockade.PayOrder, o.ID)
		en.mustOutcome(p.ID, stockade.PaymentAuthorized)
		if _, err := en.eng.ShipOrder(ctx, o.ID, shipment(line("tee", 1, "")), nil, nil); err != nil {
			t.Fatal(err)
		}
		before := en.state()
		if p = en.mustOutcome(p.ID, stockade.PaymentFailed); p.Status != stockade.PaymentFailed || p.Resolution != stockade.Unresolved {
			t.Errorf("the failed payment of a partly shipped order: %+v, want it failed and unresolved", p)
		}
		if got, err := en.eng.Order(ctx, o.ID); err != nil || got.Status != stockade.Committed || got.Version != 2 {
			t.Errorf("the partly shipped order: %+v, %v; want it committed as it was", got, err)
		}
		if after := en.state(); !reflect.DeepEqual(after, before) {
			t.Errorf("the failed payment moved stock:\nbefore %+v\nafter  %+v", before, after)
		}
		en.balanced()
	})
}
