package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

var (
	keyA1 = stockade.Key{SKU: "A", Location: "w1"}
	keyA2 = stockade.Key{SKU: "A", Location: "W2"}
	keyB1 = stockade.Key{SKU: "B", Location: "w1"}
)

// ledger is the movements the ledger tests append, in two transactions:
// the first three, then the rest. Some carry an actor, some none.
func ledger() []stockade.Movement {
	mv := func(i int, k stockade.Key, kind stockade.MovementKind, d stockade.Delta, ref, reason, actor string) stockade.Movement {
		return stockade.Movement{At: base.Add(time.Duration(i) * time.Second), SKU: k.SKU, Location: k.Location,
			Kind: kind, Delta: d, Ref: ref, Reason: reason, Actor: actor}
	}
	return []stockade.Movement{
		mv(0, keyA1, stockade.MoveSet, stockade.Delta{OnHand: 10}, "", "initial count", "Back-Office"),
		mv(1, keyA2, stockade.MoveSet, stockade.Delta{OnHand: 5}, "", "initial count", ""),
		mv(2, keyB1, stockade.MoveAdjust, stockade.Delta{OnHand: 7}, "", "delivery 42", "back-office"),
		mv(3, keyA1, stockade.MoveReserve, stockade.Delta{Reserved: 2}, "r-1", "", "shop"),
		mv(4, keyB1, stockade.MoveReserve, stockade.Delta{Reserved: 1}, "r-1", "", "shop"),
		mv(5, keyA1, stockade.MoveConfirm, stockade.Delta{Reserved: -2, Committed: 2}, "r-1", "", "shop"),
		mv(6, keyA1, stockade.MoveFulfill, stockade.Delta{OnHand: -2, Committed: -2}, "o-1", "shipped", ""),
	}
}

// appendLedger seeds the levels of ledger() and appends its movements in
// two transactions. It returns the movements as the store read them back.
func appendLedger(t *testing.T, s stockade.Store) []stockade.Movement {
	t.Helper()
	ctx := t.Context()
	seed(t, s, level{Key: keyA1}, level{Key: keyA2}, level{Key: keyB1})
	var before []stockade.Movement
	view(t, s, func(tx stockade.Tx) error {
		var err error
		before, err = tx.MovementList(ctx, stockade.MovementFilter{})
		return err
	})
	ms := ledger()
	ms[0].ID = 1 << 40 // the store assigns IDs: this one is ignored
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.MovementAppend(ctx); err != nil {
			return fmt.Errorf("MovementAppend(): %w", err)
		}
		return tx.MovementAppend(ctx, ms[:3]...)
	})
	update(t, s, func(tx stockade.Tx) error { return tx.MovementAppend(ctx, ms[3:]...) })

	var all []stockade.Movement
	view(t, s, func(tx stockade.Tx) error {
		var err error
		all, err = tx.MovementList(ctx, stockade.MovementFilter{AfterID: maxID(before)})
		return err
	})
	if len(all) != len(ms) {
		t.Fatalf("Movements() returned %d new rows, want %d: %+v", len(all), len(ms), all)
	}
	for i, m := range all {
		want := ms[i]
		if i > 0 && m.ID <= all[i-1].ID {
			t.Errorf("movement %d has ID %d, after ID %d: want increasing IDs in append order", i, m.ID, all[i-1].ID)
		}
		if m.ID == 1<<40 {
			t.Errorf("movement %d kept the ID the caller gave; the store assigns IDs", i)
		}
		checkTime(t, fmt.Sprintf("movement %d At", i), m.At, want.At)
		m.ID, m.At, want.ID, want.At = 0, time.Time{}, 0, time.Time{}
		if m != want {
			t.Errorf("movement %d = %+v, want %+v", i, m, want)
		}
	}
	return all
}

func maxID(ms []stockade.Movement) int64 {
	var id int64
	for _, m := range ms {
		id = max(id, m.ID)
	}
	return id
}

func testMovements(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	all := appendLedger(t, s)
	after := all[0].ID - 1 // hides the seed's rows
	pick := func(is ...int) []stockade.Movement {
		var ms []stockade.Movement
		for _, i := range is {
			ms = append(ms, all[i])
		}
		return ms
	}
	tests := []struct {
		name string
		f    stockade.MovementFilter
		want []stockade.Movement
	}{
		{"all", stockade.MovementFilter{AfterID: after}, all},
		{"sku", stockade.MovementFilter{SKU: "A", AfterID: after}, pick(0, 1, 3, 5, 6)},
		{"location", stockade.MovementFilter{Location: "w1", AfterID: after}, pick(0, 2, 3, 4, 5, 6)},
		{"sku and location", stockade.MovementFilter{SKU: "A", Location: "W2", AfterID: after}, pick(1)},
		{"ref", stockade.MovementFilter{Ref: "r-1"}, pick(3, 4, 5)},
		{"ref and sku", stockade.MovementFilter{Ref: "r-1", SKU: "B"}, pick(4)},
		{"after id", stockade.MovementFilter{AfterID: all[3].ID}, pick(4, 5, 6)},
		{"after the last", stockade.MovementFilter{AfterID: all[6].ID}, nil},
		{"limit", stockade.MovementFilter{AfterID: after, Limit: 2}, pick(0, 1)},
		{"after id and limit", stockade.MovementFilter{AfterID: all[1].ID, Limit: 3}, pick(2, 3, 4)},
		{"sku, after id and limit", stockade.MovementFilter{SKU: "A", AfterID: all[1].ID, Limit: 2}, pick(3, 5)},
		{"no match", stockade.MovementFilter{SKU: "a"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx stockade.Tx) error {
				got, err := tx.MovementList(ctx, tc.f)
				if err != nil {
					return err
				}
				if !equalSlices(got, tc.want) {
					t.Errorf("Movements(%+v) =\n%+v\nwant\n%+v", tc.f, got, tc.want)
				}
				return nil
			})
		})
	}
}

func testMovementsDefaultLimit(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	k := stockade.Key{SKU: "many", Location: "w1"}
	seed(t, s, level{Key: k})
	ms := make([]stockade.Movement, 1005)
	for i := range ms {
		ms[i] = stockade.Movement{At: base, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveAdjust,
			Delta: stockade.Delta{OnHand: 1}}
	}
	update(t, s, func(tx stockade.Tx) error { return tx.MovementAppend(ctx, ms...) })
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.MovementList(ctx, stockade.MovementFilter{SKU: k.SKU})
		if err != nil {
			return err
		}
		if len(got) != 1000 {
			t.Fatalf("Movements with Limit 0 returned %d rows, want the default 1000", len(got))
		}
		all, err := tx.MovementList(ctx, stockade.MovementFilter{SKU: k.SKU, Limit: 2000})
		if err != nil {
			return err
		}
		if len(all) != 1006 || all[0] != got[0] || all[999] != got[999] {
			t.Errorf("Movements with Limit 2000 returned %d rows (want 1006), or the default page is not the oldest 1000", len(all))
		}
		return nil
	})
}

// testManyMovements appends more rows in one call than one SQL statement
// can bind: they are all stored, with ids increasing in the order given.
func testManyMovements(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	k := stockade.Key{SKU: "many", Location: "w1"}
	seed(t, s, level{Key: k})
	ms := make([]stockade.Movement, 8000)
	for i := range ms {
		ms[i] = stockade.Movement{At: base, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveAdjust,
			Delta: stockade.Delta{OnHand: 1}, Reason: fmt.Sprintf("m-%d", i)}
	}
	update(t, s, func(tx stockade.Tx) error { return tx.MovementAppend(ctx, ms...) })
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.MovementList(ctx, stockade.MovementFilter{SKU: k.SKU, Limit: 10000})
		if err != nil {
			return err
		}
		got = slices.DeleteFunc(got, func(m stockade.Movement) bool { return !strings.HasPrefix(m.Reason, "m-") })
		if len(got) != len(ms) {
			t.Fatalf("%d rows read back, want %d", len(got), len(ms))
		}
		for i, m := range got {
			if m.Reason != ms[i].Reason || (i > 0 && m.ID <= got[i-1].ID) {
				t.Fatalf("row %d: %q id %d after id %d, want %q with a larger id", i, m.Reason, m.ID, got[max(i-1, 0)].ID, ms[i].Reason)
			}
		}
		return nil
	})
}

func testLedgerSums(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	view(t, s, func(tx stockade.Tx) error {
		sums, err := tx.MovementSums(ctx)
		if err != nil {
			return err
		}
		if len(sums) != 0 {
			t.Errorf("MovementSums on an empty store = %v, want none", sums)
		}
		return nil
	})
	appendLedger(t, s)
	// appendLedger's seed adds a set row of 0 for each level.
	want := map[stockade.Key]stockade.Delta{
		keyA1: {OnHand: 8, Reserved: 0, Committed: 0},
		keyA2: {OnHand: 5},
		keyB1: {OnHand: 7, Reserved: 1},
	}
	view(t, s, func(tx stockade.Tx) error {
		sums, err := tx.MovementSums(ctx)
		if err != nil {
			return err
		}
		if !maps.Equal(sums, want) {
			t.Errorf("MovementSums = %v, want %v", sums, want)
		}
		return nil
	})
}

// walkMovements reads the rows that match f page by page, limit rows at a
// time, each page after the last id of the one before, until a page comes
// back short. Each page is its own transaction, as each request of a
// client paging through the ledger is.
func walkMovements(t *testing.T, s stockade.Store, f stockade.MovementFilter, limit int) []stockade.Movement {
	t.Helper()
	var all []stockade.Movement
	f.Limit = limit
	for {
		var page []stockade.Movement
		view(t, s, func(tx stockade.Tx) error {
			var err error
			page, err = tx.MovementList(t.Context(), f)
			return err
		})
		if len(page) > limit {
			t.Fatalf("Movements(%+v) returned %d rows, more than the limit", f, len(page))
		}
		all = append(all, page...)
		if len(page) < limit {
			return all
		}
		f.AfterID = page[len(page)-1].ID
	}
}

// sameIDs reports whether got and want hold the same rows, by id, in the
// same order.
func sameIDs(got, want []stockade.Movement) bool {
	return slices.EqualFunc(got, want, func(a, b stockade.Movement) bool { return a.ID == b.ID })
}

// testMovementPages walks the whole ledger page by page with small
// limits, as a client following the service's cursor does: it reads every
// row exactly once, in id order, with and without a filter.
func testMovementPages(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	keys := []stockade.Key{keyA1, keyA2, keyB1}
	seed(t, s, level{Key: keyA1}, level{Key: keyA2}, level{Key: keyB1})
	for i := range 7 {
		var ms []stockade.Movement
		for j := range i%3 + 1 {
			k := keys[(i+j)%len(keys)]
			ms = append(ms, stockade.Movement{At: base, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveAdjust,
				Delta: stockade.Delta{OnHand: int64(i + 1)}, Ref: fmt.Sprintf("r-%d", i%2)})
		}
		update(t, s, func(tx stockade.Tx) error { return tx.MovementAppend(ctx, ms...) })
	}
	var all []stockade.Movement
	view(t, s, func(tx stockade.Tx) error {
		var err error
		all, err = tx.MovementList(ctx, stockade.MovementFilter{Limit: 100})
		return err
	})
	if len(all) != 3+13 {
		t.Fatalf("the ledger has %d rows, want 16", len(all))
	}
	filters := []struct {
		name  string
		f     stockade.MovementFilter
		match func(m stockade.Movement) bool
	}{
		{"all", stockade.MovementFilter{}, func(stockade.Movement) bool { return true }},
		{"sku", stockade.MovementFilter{SKU: "A"}, func(m stockade.Movement) bool { return m.SKU == "A" }},
		{"location", stockade.MovementFilter{Location: "w1"}, func(m stockade.Movement) bool { return m.Location == "w1" }},
		{"sku and location", stockade.MovementFilter{SKU: "A", Location: "W2"}, func(m stockade.Movement) bool { return m.SKU == "A" && m.Location == "W2" }},
		{"ref", stockade.MovementFilter{Ref: "r-1"}, func(m stockade.Movement) bool { return m.Ref == "r-1" }},
	}
	for _, fl := range filters {
		want := slices.DeleteFunc(slices.Clone(all), func(m stockade.Movement) bool { return !fl.match(m) })
		limits := []int{1, 2, 3, 5, len(want), len(want) + 1}
		slices.Sort(limits)
		for _, limit := range slices.Compact(limits) {
			t.Run(fmt.Sprintf("%s/limit %d", fl.name, limit), func(t *testing.T) {
				got := walkMovements(t, s, fl.f, limit)
				if !equalSlices(got, want) {
					t.Errorf("pages of %d rows:\n%+v\nwant each row once, in order:\n%+v", limit, got, want)
				}
			})
		}
	}
}

// testMovementPagesWhileAppending walks the ledger while writers append
// to it. Each walk reads rows in increasing id order and never one twice,
// and once the writers are done a walk reads every row. (Whether a walk
// made during the writes misses a row that commits late depends on the
// store: see stockade.MovementPage.)
func testMovementPagesWhileAppending(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1}, level{Key: keyB1})
	const writers, txs = 4, 25
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			k := []stockade.Key{keyA1, keyB1}[w%2]
			for i := range txs {
				ms := make([]stockade.Movement, i%3+1)
				for j := range ms {
					ms[j] = stockade.Movement{At: base, SKU: k.SKU, Location: k.Location, Kind: stockade.MoveAdjust,
						Delta: stockade.Delta{OnHand: 1}, Reason: fmt.Sprintf("w%d-%d-%d", w, i, j)}
				}
				_, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error { return tx.MovementAppend(ctx, ms...) })
				})
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	increasing := func(what string, ms []stockade.Movement) {
		t.Helper()
		for i := 1; i < len(ms); i++ {
			if ms[i].ID <= ms[i-1].ID {
				t.Fatalf("%s: row %d has id %d after id %d, want increasing ids, each once", what, i, ms[i].ID, ms[i-1].ID)
			}
		}
	}
	walks := 0
	for finished := false; !finished; walks++ {
		select {
		case <-done:
			finished = true
		default:
		}
		increasing(fmt.Sprintf("walk %d", walks), walkMovements(t, s, stockade.MovementFilter{}, 3))
	}
	var want []stockade.Movement
	view(t, s, func(tx stockade.Tx) error {
		var err error
		want, err = tx.MovementList(ctx, stockade.MovementFilter{Limit: 10000})
		return err
	})
	if n := 2 + writers*(txs/3*6+[]int{0, 1, 3}[txs%3]); len(want) != n {
		t.Fatalf("the ledger has %d rows, want %d", len(want), n)
	}
	got := walkMovements(t, s, stockade.MovementFilter{}, 3)
	increasing("the walk after the writes", got)
	if !sameIDs(got, want) {
		t.Errorf("the walk after the writes read %d rows, want all %d, in order", len(got), len(want))
	}
	t.Logf("%d walks during the writes", walks)
}
