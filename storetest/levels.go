package storetest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// Ids and SKUs in mixed case and with punctuation: byte order (Go's string
// order, Key.Compare) and a natural-language collation disagree on them, and
// the stores must sort by bytes, because that order is the lock order.
var (
	locW1 = stockade.Location{ID: "w1", Name: "Warehouse 1", Point: &stockade.Point{Lat: 52.520008, Lon: 13.404954}}
	locW2 = stockade.Location{ID: "W2", Name: "Warehouse 2", Point: &stockade.Point{Lat: -33.868820, Lon: 151.209296}}
	locW0 = stockade.Location{ID: "w-0", Name: "Warehouse 0"}
)

func testLocations(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	var got []stockade.Location
	view(t, s, func(tx stockade.Tx) error {
		var err error
		got, err = tx.LocationList(ctx)
		return err
	})
	if len(got) != 0 {
		t.Fatalf("Locations() on an empty store = %v, want none", got)
	}

	update(t, s, func(tx stockade.Tx) error {
		for _, l := range []stockade.Location{locW1, locW2, locW0} {
			if err := tx.LocationPut(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	renamed := locW1
	renamed.Name, renamed.Point = "Warehouse One", &stockade.Point{Lat: 48.137154, Lon: 11.576124}
	update(t, s, func(tx stockade.Tx) error { return tx.LocationPut(ctx, renamed) })

	tests := []struct {
		name string
		ids  []string
		want []stockade.Location
	}{
		{"all, by id in byte order", nil, []stockade.Location{locW2, locW0, renamed}},
		{"by ids, sorted", []string{"w1", "W2"}, []stockade.Location{locW2, renamed}},
		{"missing left out", []string{"nowhere", "w-0", "W1"}, []stockade.Location{locW0}},
		{"only missing", []string{"nowhere"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx stockade.Tx) error {
				got, err := tx.LocationList(ctx, tc.ids...)
				if err != nil {
					return err
				}
				if !equalSlices(got, tc.want) {
					t.Errorf("Locations(%q) = %v, want %v", tc.ids, got, tc.want)
				}
				return nil
			})
		})
	}
}

func testSetOnHand(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error { return tx.LocationPut(ctx, locW1) })
	k := stockade.Key{SKU: "sku-1", Location: "w1"}
	ptr := func(v int64) *int64 { return &v }

	// set calls LevelSetOnHand in its own Update and returns what it returned.
	set := func(k stockade.Key, onHand int64, expected *int64) (stockade.Level, bool, error) {
		t.Helper()
		var l stockade.Level
		var ok bool
		err := s.Update(ctx, func(tx stockade.Tx) error {
			var err error
			l, ok, err = tx.LevelSetOnHand(ctx, k, onHand, expected)
			return err
		})
		return l, ok, err
	}
	// mustSet is set for a write that must happen.
	mustSet := func(k stockade.Key, onHand int64, expected *int64) stockade.Level {
		t.Helper()
		l, ok, err := set(k, onHand, expected)
		if err != nil || !ok {
			t.Fatalf("LevelSetOnHand(%s, %d) = %v, %v; want ok", k, onHand, ok, err)
		}
		if l.Key() != k || l.OnHand != onHand {
			t.Fatalf("LevelSetOnHand(%s, %d) returned %+v", k, onHand, l)
		}
		if got, _ := getLevel(t, s, k); got != l {
			t.Fatalf("after LevelSetOnHand(%s, %d): stored level %+v, returned %+v", k, onHand, got, l)
		}
		return l
	}
	// refused checks that a LevelSetOnHand did not happen and changed nothing.
	refused := func(what string, k stockade.Key, before stockade.Level, existed bool) {
		t.Helper()
		got, exists := getLevel(t, s, k)
		if exists != existed || got != before {
			t.Errorf("%s changed the level: %+v (exists %v), want %+v (exists %v)", what, got, exists, before, existed)
		}
	}

	_, _, err := set(stockade.Key{SKU: "sku-1", Location: "nowhere"}, 5, nil)
	wantCode(t, "LevelSetOnHand at an unknown location", err, stockade.ENotFound)
	refused("LevelSetOnHand at an unknown location", stockade.Key{SKU: "sku-1", Location: "nowhere"}, stockade.Level{}, false)

	l1 := mustSet(k, 10, nil)
	if l1.Reserved != 0 || l1.Committed != 0 || l1.Version <= 0 || l1.Fence != 0 {
		t.Errorf("new level = %+v, want 0 reserved, 0 committed, fence 0 and a version above 0", l1)
	}
	l2 := mustSet(k, 12, nil)
	if l2.Version <= l1.Version {
		t.Errorf("version after a second write = %d, want above %d", l2.Version, l1.Version)
	}

	if _, ok, err := set(k, 99, ptr(l1.Version)); err != nil || ok {
		t.Errorf("LevelSetOnHand with a stale version = %v, %v; want false, nil", ok, err)
	}
	refused("LevelSetOnHand with a stale version", k, l2, true)
	if _, ok, err := set(k, 99, ptr(0)); err != nil || ok {
		t.Errorf("LevelSetOnHand expecting version 0 of an existing level = %v, %v; want false, nil", ok, err)
	}
	refused("LevelSetOnHand expecting version 0 of an existing level", k, l2, true)
	l3 := mustSet(k, 15, ptr(l2.Version))
	if l3.Version <= l2.Version {
		t.Errorf("version after a compare-and-set = %d, want above %d", l3.Version, l2.Version)
	}

	k2 := stockade.Key{SKU: "sku-2", Location: "w1"}
	if l := mustSet(k2, 4, ptr(0)); l.Version <= 0 {
		t.Errorf("level created expecting version 0 has version %d, want above 0", l.Version)
	}
	k3 := stockade.Key{SKU: "sku-3", Location: "w1"}
	if _, ok, err := set(k3, 4, ptr(7)); err != nil || ok {
		t.Errorf("LevelSetOnHand expecting version 7 of a missing level = %v, %v; want false, nil", ok, err)
	}
	refused("LevelSetOnHand expecting version 7 of a missing level", k3, stockade.Level{}, false)

	// The store refuses an on-hand quantity below what is reserved and
	// committed, even though the engine checks first.
	var held stockade.Level
	update(t, s, func(tx stockade.Tx) error {
		var ok bool
		var err error
		held, ok, err = tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 5, Committed: 3}, stockade.Guard{})
		if err == nil && !ok {
			err = fmt.Errorf("LevelUpdate(%s, reserve 5, commit 3) refused", k)
		}
		return err
	})
	_, _, err = set(k, 7, nil)
	wantCode(t, "LevelSetOnHand below reserved + committed", err, stockade.EInsufficientStock)
	refused("LevelSetOnHand below reserved + committed", k, held, true)
	_, _, err = set(k, 7, ptr(held.Version))
	wantCode(t, "LevelSetOnHand below reserved + committed with the right version", err, stockade.EInsufficientStock)
	refused("LevelSetOnHand below reserved + committed with the right version", k, held, true)

	l4 := mustSet(k, 8, nil)
	if l4.Reserved != 5 || l4.Committed != 3 || l4.Available() != 0 {
		t.Errorf("LevelSetOnHand(8) over 5 reserved and 3 committed = %+v, want them kept and 0 available", l4)
	}

	_, _, err = set(k2, -1, nil)
	wantCode(t, "LevelSetOnHand(-1)", err, stockade.EInvalid)
	got, _ := getLevel(t, s, k2)
	if got.OnHand != 4 {
		t.Errorf("LevelSetOnHand(-1) changed on hand to %d", got.OnHand)
	}
}

func testUpdateLevel(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	// Every case starts from its own level: 10 on hand, 3 reserved, 2
	// committed, 5 available.
	tests := []struct {
		name string
		d    stockade.Delta
		ok   bool
		want counters
	}{
		{"reserve what is available", stockade.Delta{Reserved: 5}, true, counters{10, 8, 2}},
		{"reserve more than available", stockade.Delta{Reserved: 6}, false, counters{}},
		{"confirm", stockade.Delta{Reserved: -3, Committed: 3}, true, counters{10, 0, 5}},
		{"release more than reserved", stockade.Delta{Reserved: -4}, false, counters{}},
		{"checkout what is available", stockade.Delta{Committed: 5}, true, counters{10, 3, 7}},
		{"checkout more than available", stockade.Delta{Committed: 6}, false, counters{}},
		{"cancel more than committed", stockade.Delta{Committed: -3}, false, counters{}},
		{"fulfill", stockade.Delta{OnHand: -2, Committed: -2}, true, counters{8, 3, 0}},
		{"adjust down to nothing available", stockade.Delta{OnHand: -5}, true, counters{5, 3, 2}},
		{"adjust below available", stockade.Delta{OnHand: -6}, false, counters{}},
		{"everything below zero", stockade.Delta{OnHand: -11, Reserved: -4, Committed: -3}, false, counters{}},
		{"restock", stockade.Delta{OnHand: 5}, true, counters{15, 3, 2}},
		{"zero delta", stockade.Delta{}, true, counters{10, 3, 2}},
	}
	var levels []level
	for i := range tests {
		levels = append(levels, level{Key: stockade.Key{SKU: fmt.Sprintf("ul-%02d", i), Location: "w1"}, OnHand: 10, Reserved: 3, Committed: 2})
	}
	seed(t, s, levels...)

	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := levels[i].Key
			before, _ := getLevel(t, s, k)
			var got stockade.Level
			var ok bool
			update(t, s, func(tx stockade.Tx) error {
				var err error
				got, ok, err = tx.LevelUpdate(ctx, k, tc.d, stockade.Guard{})
				return err
			})
			after, _ := getLevel(t, s, k)
			if ok != tc.ok {
				t.Fatalf("LevelUpdate(%+v) on %+v: ok = %v, want %v", tc.d, countersOf(before), ok, tc.ok)
			}
			if !ok {
				if after != before {
					t.Errorf("refused LevelUpdate changed the level from %+v to %+v", before, after)
				}
				return
			}
			if got.Key() != k || countersOf(got) != tc.want || got.Version <= before.Version || got.Fence != before.Fence {
				t.Errorf("LevelUpdate(%+v) returned %+v, want counters %+v, a version above %d and fence %d",
					tc.d, got, tc.want, before.Version, before.Fence)
			}
			if after != got {
				t.Errorf("stored level %+v differs from the returned %+v", after, got)
			}
		})
	}

	t.Run("missing level", func(t *testing.T) {
		k := stockade.Key{SKU: "no-such-sku", Location: "w1"}
		update(t, s, func(tx stockade.Tx) error {
			_, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{OnHand: 1}, stockade.Guard{})
			if ok {
				t.Errorf("LevelUpdate on a missing level succeeded")
			}
			return err
		})
		if l, ok := getLevel(t, s, k); ok {
			t.Errorf("LevelUpdate on a missing level created %+v", l)
		}
	})
}

// keysOf returns the keys of ls.
func keysOf(ls []stockade.Level) []stockade.Key {
	var ks []stockade.Key
	for _, l := range ls {
		ks = append(ks, l.Key())
	}
	return ks
}

func testUpdateLevels(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	keyB2 := stockade.Key{SKU: "B", Location: "W2"}
	seed(t, s, level{Key: keyA1, OnHand: 10, Reserved: 2}, level{Key: keyA2, OnHand: 5}, level{Key: keyB1, OnHand: 3})
	before := map[stockade.Key]stockade.Level{}
	for _, k := range []stockade.Key{keyA1, keyA2, keyB1} {
		before[k], _ = getLevel(t, s, k)
	}
	update(t, s, func(tx stockade.Tx) error {
		got, err := tx.LevelUpdateMany(ctx, []stockade.LevelChange{
			{Key: keyB1, Delta: stockade.Delta{Committed: 4}}, // only 3 on hand: left out
			{Key: keyA2, Delta: stockade.Delta{Reserved: 5}},
			{Key: keyB2, Delta: stockade.Delta{OnHand: 1}}, // no such level: left out
			{Key: keyA1, Delta: stockade.Delta{Reserved: -2, Committed: 2}},
		})
		if err != nil {
			return err
		}
		want := []counters{{5, 5, 0}, {10, 0, 2}} // A@W2 sorts before A@w1
		if len(got) != len(want) || got[0].Key() != keyA2 || got[1].Key() != keyA1 {
			t.Fatalf("LevelUpdateMany changed %v, want %v and %v in key order", keysOf(got), keyA2, keyA1)
		}
		for i, l := range got {
			if countersOf(l) != want[i] || l.Version != before[l.Key()].Version+1 {
				t.Errorf("LevelUpdateMany: %+v, want counters %v and the version bumped from %d", l, want[i], before[l.Key()].Version)
			}
		}
		none, err := tx.LevelUpdateMany(ctx, nil)
		if err != nil || len(none) != 0 {
			t.Errorf("LevelUpdateMany(none) = %v, %v", none, err)
		}
		return nil
	})
	if l, _ := getLevel(t, s, keyB1); l != before[keyB1] {
		t.Errorf("level %s after a change left out: %+v, want %+v", keyB1, l, before[keyB1])
	}
	if _, ok := getLevel(t, s, keyB2); ok {
		t.Errorf("LevelUpdateMany created level %s", keyB2)
	}
}

func testUpdateLevelGuard(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	k := stockade.Key{SKU: "guarded", Location: "w1"}
	seed(t, s, level{Key: k, OnHand: 100})
	ptr := func(v int64) *int64 { return &v }

	// Steps run in order on the one level; each reserves 1.
	steps := []struct {
		name      string
		guard     func(cur stockade.Level) stockade.Guard
		ok        bool
		wantFence uint64
	}{
		{"no guard", func(stockade.Level) stockade.Guard { return stockade.Guard{} }, true, 0},
		{"current version", func(cur stockade.Level) stockade.Guard { return stockade.Guard{Version: ptr(cur.Version)} }, true, 0},
		{"stale version", func(cur stockade.Level) stockade.Guard { return stockade.Guard{Version: ptr(cur.Version - 1)} }, false, 0},
		{"future version", func(cur stockade.Level) stockade.Guard { return stockade.Guard{Version: ptr(cur.Version + 1)} }, false, 0},
		{"first fence", func(stockade.Level) stockade.Guard { return stockade.Guard{Fence: 5} }, true, 5},
		{"smaller fence", func(stockade.Level) stockade.Guard { return stockade.Guard{Fence: 4} }, false, 5},
		{"same fence", func(stockade.Level) stockade.Guard { return stockade.Guard{Fence: 5} }, true, 5},
		{"no fence keeps the stored one", func(stockade.Level) stockade.Guard { return stockade.Guard{} }, true, 5},
		{"larger fence", func(stockade.Level) stockade.Guard { return stockade.Guard{Fence: 1 << 40} }, true, 1 << 40},
		{"good fence, stale version", func(cur stockade.Level) stockade.Guard {
			return stockade.Guard{Version: ptr(cur.Version - 1), Fence: 1<<40 + 1}
		}, false, 1 << 40},
		{"stale fence, current version", func(cur stockade.Level) stockade.Guard {
			return stockade.Guard{Version: ptr(cur.Version), Fence: 7}
		}, false, 1 << 40},
		{"good fence and version", func(cur stockade.Level) stockade.Guard {
			return stockade.Guard{Version: ptr(cur.Version), Fence: 1<<40 + 2}
		}, true, 1<<40 + 2},
	}
	for _, st := range steps {
		before, _ := getLevel(t, s, k)
		g := st.guard(before)
		var got stockade.Level
		var ok bool
		update(t, s, func(tx stockade.Tx) error {
			var err error
			got, ok, err = tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 1}, g)
			return err
		})
		after, _ := getLevel(t, s, k)
		if ok != st.ok {
			t.Errorf("%s: LevelUpdate with version %v, fence %d on version %d, fence %d: ok = %v, want %v",
				st.name, deref(g.Version), g.Fence, before.Version, before.Fence, ok, st.ok)
			continue
		}
		if after.Fence != st.wantFence {
			t.Errorf("%s: stored fence = %d, want %d", st.name, after.Fence, st.wantFence)
		}
		if !ok {
			if after != before {
				t.Errorf("%s: refused LevelUpdate changed the level from %+v to %+v", st.name, before, after)
			}
			continue
		}
		if got != after || got.Reserved != before.Reserved+1 || got.Version <= before.Version {
			t.Errorf("%s: LevelUpdate returned %+v, stored %+v, before %+v", st.name, got, after, before)
		}
	}
}

// testFenceRange checks the one limit of fencing tokens: they are stored
// as signed 64-bit integers, which every lock backend's tokens are.
func testFenceRange(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	k := stockade.Key{SKU: "fenced", Location: "w1"}
	seed(t, s, level{Key: k, OnHand: 10})
	before, _ := getLevel(t, s, k)
	for _, fence := range []uint64{math.MaxInt64 + 1, math.MaxUint64} {
		err := s.Update(ctx, func(tx stockade.Tx) error {
			_, _, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 1}, stockade.Guard{Fence: fence})
			return err
		})
		wantCode(t, fmt.Sprintf("LevelUpdate with fence %d", fence), err, stockade.EInvalid)
	}
	var got stockade.Level
	update(t, s, func(tx stockade.Tx) error {
		var ok bool
		var err error
		got, ok, err = tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 1}, stockade.Guard{Fence: math.MaxInt64})
		if err == nil && !ok {
			err = fmt.Errorf("LevelUpdate with fence MaxInt64 refused")
		}
		return err
	})
	if got.Fence != math.MaxInt64 || got.Reserved != before.Reserved+1 {
		t.Errorf("LevelUpdate with fence MaxInt64 = %+v, want that fence stored", got)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func testLevelOrder(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	// Byte order: "A-1" < "A1" < "B" < "a"; "W2" < "w-0" < "w1".
	keys := []stockade.Key{
		{SKU: "a", Location: "w1"},
		{SKU: "B", Location: "w1"},
		{SKU: "A1", Location: "w1"},
		{SKU: "a", Location: "W2"},
		{SKU: "A-1", Location: "w1"},
		{SKU: "a", Location: "w-0"},
	}
	var levels []level
	for i, k := range keys {
		levels = append(levels, level{Key: k, OnHand: int64(10 + i)})
	}
	seed(t, s, levels...)
	sorted := slices.SortedFunc(slices.Values(keys), stockade.Key.Compare)
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	view(t, s, func(tx stockade.Tx) error {
		all, err := tx.LevelList(ctx, stockade.LevelQuery{All: true})
		if err != nil {
			return err
		}
		if got := keysOf(all); !reflect.DeepEqual(got, sorted) {
			t.Errorf("LevelList keys = %v, want %v (byte order)", got, sorted)
		}
		for i, l := range all {
			want := levels[slices.Index(keys, l.Key())].OnHand
			if l.OnHand != want || l.Version <= 0 {
				t.Errorf("LevelList()[%d] = %+v, want on hand %d and a version", i, l, want)
			}
		}
		return nil
	})

	missing := stockade.Key{SKU: "a", Location: "nowhere"}
	tests := []struct {
		name string
		keys []stockade.Key
		want []stockade.Key
	}{
		{"none", nil, nil},
		{"one", []stockade.Key{keys[1]}, []stockade.Key{keys[1]}},
		{"all, reversed", reversed, sorted},
		{"missing left out", []stockade.Key{keys[0], missing, keys[4]}, []stockade.Key{keys[4], keys[0]}},
		{"only missing", []stockade.Key{missing}, nil},
	}
	for _, tc := range tests {
		for _, lock := range []bool{false, true} {
			t.Run(fmt.Sprintf("Levels/%s/lock=%v", tc.name, lock), func(t *testing.T) {
				txFor(lock)(t, s, func(tx stockade.Tx) error {
					got, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: tc.keys, Lock: lock})
					if err != nil {
						return err
					}
					if ks := keysOf(got); !equalSlices(ks, tc.want) {
						t.Errorf("Levels(%v) keys = %v, want %v", tc.keys, ks, tc.want)
					}
					return nil
				})
			})
		}
	}

	skuA := []stockade.Key{{SKU: "a", Location: "W2"}, {SKU: "a", Location: "w-0"}, {SKU: "a", Location: "w1"}}
	skuB := []stockade.Key{{SKU: "B", Location: "w1"}}
	skuTests := []struct {
		skus []string
		want []stockade.Key
	}{
		{[]string{"a"}, skuA},
		{[]string{"B"}, skuB},
		{[]string{"A"}, nil},
		{[]string{"nothing"}, nil},
		{nil, nil},
		{[]string{"a", "nothing", "B"}, append(slices.Clone(skuB), skuA...)},
		{[]string{"B", "a"}, append(slices.Clone(skuB), skuA...)},
	}
	for _, tc := range skuTests {
		for _, lock := range []bool{false, true} {
			t.Run(fmt.Sprintf("LevelList/%s/lock=%v", strings.Join(tc.skus, ","), lock), func(t *testing.T) {
				txFor(lock)(t, s, func(tx stockade.Tx) error {
					got, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: tc.skus, Lock: lock})
					if err != nil {
						return err
					}
					if ks := keysOf(got); !equalSlices(ks, tc.want) {
						t.Errorf("LevelList(%q) keys = %v, want %v", tc.skus, ks, tc.want)
					}
					return nil
				})
			})
		}
	}
}

// testSKUTotals: the totals of the SKUs with a level, summed over their
// locations, in byte order, from a SKU on, within a range, a page at a
// time.
func testSKUTotals(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s,
		level{Key: stockade.Key{SKU: "ab", Location: "w1"}, OnHand: 5, Reserved: 1, Committed: 2},
		level{Key: stockade.Key{SKU: "ab", Location: "w2"}, OnHand: 7, Reserved: 2},
		level{Key: stockade.Key{SKU: "B", Location: "w1"}, OnHand: 1},
		level{Key: stockade.Key{SKU: "abd", Location: "w1"}, OnHand: 3},
		level{Key: stockade.Key{SKU: "abc", Location: "w2"}, OnHand: 4, Committed: 4},
		level{Key: stockade.Key{SKU: "ac", Location: "w1"}, OnHand: 2},
		level{Key: stockade.Key{SKU: "é", Location: "w1"}, OnHand: 9},
	)
	totals := map[string]stockade.Totals{
		"B":   {OnHand: 1},
		"ab":  {OnHand: 12, Reserved: 3, Committed: 2},
		"abc": {OnHand: 4, Committed: 4},
		"abd": {OnHand: 3},
		"ac":  {OnHand: 2},
		"é":   {OnHand: 9},
	}
	tests := []struct {
		name            string
		after, from, to string
		limit           int
		want            []string
	}{
		{"all, in byte order", "", "", "", 100, []string{"B", "ab", "abc", "abd", "ac", "é"}},
		{"a page", "", "", "", 2, []string{"B", "ab"}},
		{"after a SKU", "ab", "", "", 2, []string{"abc", "abd"}},
		{"a prefix's range", "", "ab", "ac", 100, []string{"ab", "abc", "abd"}},
		{"a prefix's range, after a SKU in it", "abc", "ab", "ac", 100, []string{"abd"}},
		{"a range with nothing in it", "", "x", "y", 100, nil},
	}
	for _, tc := range tests {
		var got []stockade.SKUTotals
		view(t, s, func(tx stockade.Tx) error {
			var err error
			got, err = tx.SKUTotalList(ctx, tc.after, tc.from, tc.to, tc.limit)
			return err
		})
		var skus []string
		for _, g := range got {
			skus = append(skus, g.SKU)
			if g.Totals != totals[g.SKU] {
				t.Errorf("%s: %s totals %+v, want %+v", tc.name, g.SKU, g.Totals, totals[g.SKU])
			}
		}
		if !slices.Equal(skus, tc.want) {
			t.Errorf("%s: SKUTotals(%q, %q, %q, %d) = %q, want %q", tc.name, tc.after, tc.from, tc.to, tc.limit, skus, tc.want)
		}
	}
}
