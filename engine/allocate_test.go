package engine

import (
	"math"
	"reflect"
	"testing"

	"github.com/stockade/stockade"
)

func TestAllocate(t *testing.T) {
	t.Parallel()
	k := func(sku, loc string) stockade.Key { return stockade.Key{SKU: sku, Location: loc} }
	a := func(sku, loc string, q int64) stockade.Allocation {
		return stockade.Allocation{SKU: sku, Location: loc, Quantity: q}
	}
	// Three warehouses: Amsterdam, Berlin, Madrid.
	coords := map[string]stockade.Point{
		"ams": {Lat: 52.37, Lon: 4.90},
		"ber": {Lat: 52.52, Lon: 13.40},
		"mad": {Lat: 40.42, Lon: -3.70},
	}
	paris := &stockade.Point{Lat: 48.85, Lon: 2.35}   // ams 430 km, ber 880 km, mad 1050 km
	warsaw := &stockade.Point{Lat: 52.23, Lon: 21.01} // ber, ams, mad
	all := []string{"ams", "ber", "mad"}

	tests := []struct {
		name   string
		needs  []need
		avail  map[stockade.Key]int64
		locs   map[string][]string
		shipTo *stockade.Point
		want   []stockade.Allocation
		short  *shortfall
	}{{
		name:  "location given",
		needs: []need{{"tee", "ber", 2}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 9, k("tee", "ber"): 2},
		want:  []stockade.Allocation{a("tee", "ber", 2)},
	}, {
		name:  "location given, too little there",
		needs: []need{{"tee", "ber", 3}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 9, k("tee", "ber"): 2},
		short: &shortfall{need{"tee", "ber", 3}, 2},
	}, {
		name:  "location given, no level there",
		needs: []need{{"tee", "mad", 1}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 9},
		short: &shortfall{need{"tee", "mad", 1}, 0},
	}, {
		name:   "ship-to: nearest first",
		needs:  []need{{"tee", "", 3}},
		avail:  map[stockade.Key]int64{k("tee", "ams"): 5, k("tee", "ber"): 50, k("tee", "mad"): 5},
		locs:   map[string][]string{"tee": all},
		shipTo: paris,
		want:   []stockade.Allocation{a("tee", "ams", 3)},
	}, {
		// A drop-shipper (no place) and a virtual warehouse: after every
		// placed location, the one with the most available first.
		name:   "ship-to: locations without a place last, most available first",
		needs:  []need{{"tee", "", 12}},
		avail:  map[stockade.Key]int64{k("tee", "ams"): 5, k("tee", "drop"): 3, k("tee", "virtual"): 6, k("tee", "mad"): 2},
		locs:   map[string][]string{"tee": {"ams", "drop", "mad", "virtual"}},
		shipTo: paris,
		want:   []stockade.Allocation{a("tee", "ams", 5), a("tee", "mad", 2), a("tee", "virtual", 5)},
	}, {
		name:   "ship-to: split across the nearest",
		needs:  []need{{"tee", "", 8}},
		avail:  map[stockade.Key]int64{k("tee", "ams"): 5, k("tee", "ber"): 2, k("tee", "mad"): 5},
		locs:   map[string][]string{"tee": all},
		shipTo: paris,
		want:   []stockade.Allocation{a("tee", "ams", 5), a("tee", "ber", 2), a("tee", "mad", 1)},
	}, {
		name:   "ship-to from the east",
		needs:  []need{{"tee", "", 6}},
		avail:  map[stockade.Key]int64{k("tee", "ams"): 5, k("tee", "ber"): 2, k("tee", "mad"): 5},
		locs:   map[string][]string{"tee": all},
		shipTo: warsaw,
		want:   []stockade.Allocation{a("tee", "ams", 4), a("tee", "ber", 2)},
	}, {
		name:   "ship-to skips empty locations",
		needs:  []need{{"tee", "", 2}},
		avail:  map[stockade.Key]int64{k("tee", "ams"): 0, k("tee", "ber"): 0, k("tee", "mad"): 7},
		locs:   map[string][]string{"tee": all},
		shipTo: paris,
		want:   []stockade.Allocation{a("tee", "mad", 2)},
	}, {
		name:  "most available first",
		needs: []need{{"tee", "", 4}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 3, k("tee", "ber"): 6, k("tee", "mad"): 5},
		locs:  map[string][]string{"tee": all},
		want:  []stockade.Allocation{a("tee", "ber", 4)},
	}, {
		name:  "most available first, split, ties by location id",
		needs: []need{{"tee", "", 9}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 4, k("tee", "ber"): 1, k("tee", "mad"): 4},
		locs:  map[string][]string{"tee": all},
		want:  []stockade.Allocation{a("tee", "ams", 4), a("tee", "ber", 1), a("tee", "mad", 4)},
	}, {
		name:  "located need first, then anywhere from what is left",
		needs: []need{{"tee", "", 3}, {"tee", "ber", 5}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 2, k("tee", "ber"): 6},
		locs:  map[string][]string{"tee": {"ams", "ber"}},
		want:  []stockade.Allocation{a("tee", "ams", 2), a("tee", "ber", 6)},
	}, {
		// checkRequest merges two lines of 3 into one need of 6.
		name:  "merged lines over what one location has",
		needs: []need{{"tee", "", 6}},
		avail: map[stockade.Key]int64{k("tee", "ams"): 5},
		locs:  map[string][]string{"tee": {"ams"}},
		short: &shortfall{need{"tee", "", 6}, 5},
	}, {
		name:  "insufficient across all locations",
		needs: []need{{"cap", "", 1}, {"tee", "", 12}},
		avail: map[stockade.Key]int64{k("cap", "ams"): 1, k("tee", "ams"): 5, k("tee", "ber"): 2, k("tee", "mad"): 4},
		locs:  map[string][]string{"cap": {"ams"}, "tee": all},
		short: &shortfall{need{"tee", "", 12}, 11},
	}, {
		name:  "several SKUs, allocations in key order",
		needs: []need{{"cap", "mad", 1}, {"tee", "", 2}},
		avail: map[stockade.Key]int64{k("cap", "mad"): 1, k("tee", "ams"): 1, k("tee", "ber"): 1},
		locs:  map[string][]string{"tee": {"ams", "ber"}},
		want:  []stockade.Allocation{a("cap", "mad", 1), a("tee", "ams", 1), a("tee", "ber", 1)},
	}, {
		name:  "unknown SKU",
		needs: []need{{"ghost", "", 1}},
		avail: map[stockade.Key]int64{},
		short: &shortfall{need{"ghost", "", 1}, 0},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, short := allocate(tc.needs, stockView{avail: tc.avail, locations: tc.locs, coords: coords}, tc.shipTo)
			if !reflect.DeepEqual(short, tc.short) {
				t.Fatalf("shortfall %+v, want %+v", short, tc.short)
			}
			if tc.short == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("allocations %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b stockade.Point
		km   float64
	}{
		{stockade.Point{Lat: 48.8566, Lon: 2.3522}, stockade.Point{Lat: 51.5074, Lon: -0.1278}, 343.5}, // Paris–London
		{stockade.Point{Lat: 0, Lon: 179.5}, stockade.Point{Lat: 0, Lon: -179.5}, 111.2},               // across the date line
		{stockade.Point{Lat: 90, Lon: 0}, stockade.Point{Lat: -90, Lon: 0}, math.Pi * earthRadius},     // pole to pole
		{stockade.Point{Lat: 10, Lon: 10}, stockade.Point{Lat: 10, Lon: 10}, 0},
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); math.Abs(got-tc.km) > 0.5 {
			t.Errorf("distance(%v, %v) = %.1f km, want %.1f", tc.a, tc.b, got, tc.km)
		}
	}
}
