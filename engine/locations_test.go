package engine_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// TestLocations reads one location and walks the list page by page: each
// page but the last has a cursor, and the pages together hold every
// location once, in id order; a location added behind the cursor mid-walk
// is not read, one added ahead of it is. Unknown ids, bad cursors and
// limits are refused.
func TestLocations(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{"atomic"}, func(t *testing.T, en *env) {
		ctx := sys(t)
		for _, id := range []string{"w5", "w1", "w7", "w3", "w2", "w6", "w4"} {
			en.location(id, 1, 2)
		}
		got, err := en.eng.Location(ctx, "w3")
		if err != nil || !reflect.DeepEqual(got, stockade.Location{ID: "w3", Name: "Warehouse w3", Point: &stockade.Point{Lat: 1, Lon: 2}}) {
			t.Fatalf("Location(w3) = %+v, %v", got, err)
		}
		if _, err := en.eng.Location(ctx, "w9"); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Fatalf("Location(w9): %v, want %s", err, stockade.ENotFound)
		}

		var ids []string
		var sizes []int
		q := stockade.LocationQuery{Limit: 3}
		for page := 0; ; page++ {
			p, err := en.eng.Locations(ctx, q)
			if err != nil {
				t.Fatalf("Locations(%+v): %v", q, err)
			}
			sizes = append(sizes, len(p.Locations))
			for _, l := range p.Locations {
				ids = append(ids, l.ID)
			}
			if page == 0 {
				en.location("w0", 0, 0) // behind the cursor: not in this walk
				en.location("w8", 0, 0) // ahead of it: in the last page
			}
			if p.Next == "" {
				break
			}
			q.Cursor = p.Next
		}
		want := []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8"}
		if !slices.Equal(ids, want) || fmt.Sprint(sizes) != "[3 3 2]" {
			t.Fatalf("walk read %v in pages of %v, want %v in pages of [3 3 2]", ids, sizes, want)
		}
		all, err := en.eng.Locations(ctx, stockade.LocationQuery{})
		if err != nil || len(all.Locations) != 9 || all.Next != "" {
			t.Fatalf("Locations() = %d locations, next %q, %v; want 9 and no cursor", len(all.Locations), all.Next, err)
		}

		en.stock("tee", "w1", 1)
		en.stock("tee", "w1", 2)
		movements, err := en.eng.Movements(ctx, stockade.MovementQuery{Limit: 1})
		if err != nil || movements.Next == "" {
			t.Fatalf("Movements: %+v, %v; want a next cursor", movements, err)
		}
		for _, q := range []stockade.LocationQuery{
			{Cursor: "not a cursor"},
			{Cursor: movements.Next}, // another list's cursor
			{Limit: -1},
			{Limit: stockade.MaxLocationLimit + 1},
		} {
			if _, err := en.eng.Locations(ctx, q); stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("Locations(%+v): %v, want %s", q, err, stockade.EInvalid)
			}
		}
	})
}

// TestLocationsWithoutPlace: a location may have no place (a drop-shipper);
// it reads back without one, in both stores, and an order with a ship-to
// point takes from it only after every placed location.
func TestLocationsWithoutPlace(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutLocation(ctx, stockade.Location{ID: "drop", Name: "Drop-shipper"}, nil); err != nil {
			t.Fatal(err)
		}
		en.location("paris", 48.85, 2.35)
		en.stock("tee", "drop", 100)
		en.stock("tee", "paris", 2)
		got, err := en.eng.Location(ctx, "drop")
		if err != nil || got.Point != nil || got.Name != "Drop-shipper" {
			t.Fatalf("Location(drop) = %+v, %v; want it without a place", got, err)
		}
		r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: lines(line("tee", 3, "")).Lines,
			ShipTo: &stockade.Point{Lat: 50.85, Lon: 4.35}}, nil) // Brussels
		if err != nil {
			t.Fatal(err)
		}
		want := []stockade.Allocation{{SKU: "tee", Location: "drop", Quantity: 1}, {SKU: "tee", Location: "paris", Quantity: 2}}
		if !reflect.DeepEqual(r.Allocations, want) {
			t.Errorf("allocations %+v, want the placed location's 2 first, then the drop-shipper's 1", r.Allocations)
		}
		// Placed again, and without a place once more.
		en.location("drop", 1, 2)
		if _, err := en.eng.PutLocation(ctx, stockade.Location{ID: "drop", Name: "Drop-shipper"}, nil); err != nil {
			t.Fatal(err)
		}
		if got, err := en.eng.Location(ctx, "drop"); err != nil || got.Point != nil {
			t.Errorf("Location(drop) after losing its place = %+v, %v", got, err)
		}
	})
}

// TestLocationStock: a location's levels in SKU order, page by page,
// filtered by prefix; another location's are not among them; an unknown
// location is ENotFound.
func TestLocationStock(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("east", 40.71, -74.01)
		en.location("west", 37.77, -122.42)
		en.location("empty", 0, 0)
		want := []string{"cap", "hat-blue", "hat-red", "sock", "tee"}
		for i, sku := range want {
			en.stock(sku, "east", int64(i+1))
			en.stock(sku+"-w", "west", 1)
		}
		var got []string
		q := stockade.SKUQuery{Limit: 2}
		for {
			p, err := en.eng.LocationStock(ctx, "east", q)
			if err != nil {
				t.Fatalf("LocationStock(east, %+v): %v", q, err)
			}
			for _, l := range p.Levels {
				if l.Location != "east" {
					t.Errorf("a level of %s in east's stock", l.Location)
				}
				got = append(got, l.SKU)
			}
			if p.Next == "" {
				break
			}
			q.Cursor = p.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("east's stock: %v, want %v", got, want)
		}
		p, err := en.eng.LocationStock(ctx, "east", stockade.SKUQuery{Prefix: "hat-"})
		if err != nil || len(p.Levels) != 2 || p.Levels[1].SKU != "hat-red" || p.Levels[1].OnHand != 3 || p.Next != "" {
			t.Errorf("east's hats: %+v, %v", p, err)
		}
		if p, err := en.eng.LocationStock(ctx, "empty", stockade.SKUQuery{}); err != nil || len(p.Levels) != 0 {
			t.Errorf("a location without stock: %+v, %v; want an empty page", p, err)
		}
		if _, err := en.eng.LocationStock(ctx, "nowhere", stockade.SKUQuery{}); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("an unknown location: %v, want %s", err, stockade.ENotFound)
		}
		if _, err := en.eng.LocationStock(ctx, "east", stockade.SKUQuery{Cursor: "nonsense"}); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("a bad cursor: %v, want %s", err, stockade.EInvalid)
		}
	})
}
