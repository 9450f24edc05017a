package storetest

import (
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// testOrderUpdate checks OrderUpdate: it writes status, shipped and
// version at the version before only, and what an order has shipped
// leaves AllocationSums.
func testOrderUpdate(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	alloc := func(k stockade.Key, q int64) stockade.Allocation {
		return stockade.Allocation{SKU: k.SKU, Location: k.Location, Quantity: q}
	}
	o := stockade.Order{ID: "o-1", Status: stockade.Committed, CreatedAt: base, Version: 1,
		Lines:       []stockade.Line{{SKU: "A", Quantity: 7}, {SKU: "B", Quantity: 1}},
		Allocations: []stockade.Allocation{alloc(keyA1, 5), alloc(keyA2, 2), alloc(keyB1, 1)}}
	update(t, s, func(tx stockade.Tx) error { return tx.OrderInsert(ctx, o) })
	get := func() stockade.Order {
		t.Helper()
		var got stockade.Order
		view(t, s, func(tx stockade.Tx) (err error) {
			got, err = tx.OrderGet(ctx, stockade.ByID{ID: o.ID})
			return err
		})
		return got
	}
	sums := func(want map[stockade.Key]stockade.Delta) {
		t.Helper()
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.AllocationSums(ctx)
			if err == nil && !maps.Equal(got, want) {
				t.Errorf("AllocationSums() = %v, want %v", got, want)
			}
			return err
		})
	}
	if got := get(); got.Shipped != nil {
		t.Errorf("a new order has shipped %v, want nil", got.Shipped)
	}

	// A write at a version that is not the next one changes nothing.
	shipped := o
	shipped.Shipped, shipped.Version = []stockade.Allocation{alloc(keyA1, 2), alloc(keyB1, 1)}, 3
	update(t, s, func(tx stockade.Tx) error {
		ok, err := tx.OrderUpdate(ctx, shipped)
		if err == nil && ok {
			t.Errorf("OrderUpdate at version 3 of an order at 1 = true, want false")
		}
		return err
	})
	if got := get(); got.Version != 1 || got.Shipped != nil {
		t.Errorf("order after a refused update = %+v, want it unchanged", got)
	}

	shipped.Version = 2
	update(t, s, func(tx stockade.Tx) error {
		ok, err := tx.OrderUpdate(ctx, shipped)
		if err == nil && !ok {
			t.Errorf("OrderUpdate at version 2 of an order at 1 = false, want true")
		}
		return err
	})
	got := get()
	checkOrder(t, got, shipped)
	if !reflect.DeepEqual(got.Shipped, shipped.Shipped) {
		t.Errorf("shipped = %v, want %v", got.Shipped, shipped.Shipped)
	}
	sums(map[stockade.Key]stockade.Delta{keyA1: {Committed: 3}, keyA2: {Committed: 2}})

	// Fulfilled: nothing committed is left.
	done := shipped
	done.Status, done.Shipped, done.Version = stockade.Fulfilled, o.Allocations, 3
	update(t, s, func(tx stockade.Tx) error {
		ok, err := tx.OrderUpdate(ctx, done)
		if err == nil && !ok {
			t.Errorf("OrderUpdate to fulfilled = false, want true")
		}
		return err
	})
	got = get()
	checkOrder(t, got, done)
	if !reflect.DeepEqual(got.Shipped, done.Shipped) {
		t.Errorf("shipped = %v, want %v", got.Shipped, done.Shipped)
	}
	sums(map[stockade.Key]stockade.Delta{})
	var listed []stockade.Order
	view(t, s, func(tx stockade.Tx) (err error) {
		listed, err = tx.OrderList(ctx, stockade.ListFilter{Limit: 10})
		return err
	})
	if len(listed) != 1 || !reflect.DeepEqual(listed[0].Shipped, done.Shipped) {
		t.Errorf("OrderList() = %+v, want the order with its shipped allocations", listed)
	}

	err := s.Update(ctx, func(tx stockade.Tx) error {
		_, err := tx.OrderUpdate(ctx, stockade.Order{ID: o.ID, Status: "lost", Version: 4})
		return err
	})
	wantCode(t, "OrderUpdate with an unknown status", err, stockade.EInvalid)
}

// testShipments checks ShipmentInsert and ShipmentList: shipments as
// stored, newest first, paged by (created_at, id).
func testShipments(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		return tx.OrderInsert(ctx,
			stockade.Order{ID: "o-1", Status: stockade.Committed, CreatedAt: base, Version: 1},
			stockade.Order{ID: "o-2", Status: stockade.Committed, CreatedAt: base, Version: 1})
	})
	shipment := func(id, order string, at time.Time, version int64, meta stockade.Metadata, lines ...stockade.Allocation) stockade.Shipment {
		return stockade.Shipment{ID: id, OrderID: order, CreatedAt: at, Lines: lines, OrderVersion: version, Metadata: meta}
	}
	a1 := stockade.Allocation{SKU: "A", Location: "w1", Quantity: 2}
	b2 := stockade.Allocation{SKU: "B", Location: "w2", Quantity: 1}
	s1 := shipment("shp-1", "o-1", base, 2, stockade.Metadata{"tracking": "1Z999"}, a1)
	s2 := shipment("shp-2", "o-1", base.Add(time.Minute), 3, nil, a1, b2)
	s3 := shipment("shp-3", "o-1", base.Add(time.Minute), 4, nil, b2) // the same time as s2: by id
	s4 := shipment("shp-4", "o-2", base.Add(time.Hour), 2, nil, a1)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ShipmentInsert(ctx); err != nil {
			return fmt.Errorf("ShipmentInsert(none): %w", err)
		}
		return tx.ShipmentInsert(ctx, s1, s2, s3, s4)
	})
	list := func(f stockade.ShipmentFilter) []string {
		t.Helper()
		var ids []string
		view(t, s, func(tx stockade.Tx) error {
			ss, err := tx.ShipmentList(ctx, f)
			for _, sh := range ss {
				ids = append(ids, sh.ID)
				want := map[string]stockade.Shipment{s1.ID: s1, s2.ID: s2, s3.ID: s3, s4.ID: s4}[sh.ID]
				checkTime(t, "shipment "+sh.ID+" CreatedAt", sh.CreatedAt, want.CreatedAt)
				if sh.OrderID != want.OrderID || sh.OrderVersion != want.OrderVersion || !reflect.DeepEqual(sh.Lines, want.Lines) ||
					!maps.Equal(sh.Metadata, want.Metadata) {
					t.Errorf("shipment = %+v, want %+v", sh, want)
				}
			}
			return err
		})
		return ids
	}
	for _, tc := range []struct {
		name string
		f    stockade.ShipmentFilter
		want []string
	}{
		{"all", stockade.ShipmentFilter{OrderID: "o-1", Limit: 10}, []string{"shp-3", "shp-2", "shp-1"}},
		{"limit", stockade.ShipmentFilter{OrderID: "o-1", Limit: 1}, []string{"shp-3"}},
		{"after the first", stockade.ShipmentFilter{OrderID: "o-1", BeforeAt: s3.CreatedAt, BeforeID: s3.ID, Limit: 10}, []string{"shp-2", "shp-1"}},
		{"after the second", stockade.ShipmentFilter{OrderID: "o-1", BeforeAt: s2.CreatedAt, BeforeID: s2.ID, Limit: 10}, []string{"shp-1"}},
		{"after the last", stockade.ShipmentFilter{OrderID: "o-1", BeforeAt: s1.CreatedAt, BeforeID: s1.ID, Limit: 10}, nil},
		{"another order", stockade.ShipmentFilter{OrderID: "o-2", Limit: 10}, []string{"shp-4"}},
		{"an order without", stockade.ShipmentFilter{OrderID: "o-3", Limit: 10}, nil},
	} {
		if got := list(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ShipmentList(%+v) = %v, want %v", tc.name, tc.f, got, tc.want)
		}
	}
	for name, sh := range map[string]stockade.Shipment{
		"an id in use":     shipment("shp-1", "o-2", base, 2, nil, a1),
		"an unknown order": shipment("shp-5", "o-9", base, 2, nil, a1),
	} {
		if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.ShipmentInsert(ctx, sh) }); err == nil {
			t.Errorf("ShipmentInsert with %s succeeded", name)
		}
	}
	if got := list(stockade.ShipmentFilter{OrderID: "o-2", Limit: 10}); !reflect.DeepEqual(got, []string{"shp-4"}) {
		t.Errorf("after refused inserts: ShipmentList(o-2) = %v, want [shp-4]", got)
	}
}
