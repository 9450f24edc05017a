package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
// the first three, then the rest.
func ledger() []stockade.Movement {
	mv := func(i int, k stockade.Key, kind stockade.MovementKind, d stockade.Delta, ref, reason string) stockade.Movement {
		return stockade.Movement{At: base.Add(time.Duration(i) * time.Second), SKU: k.SKU, Location: k.Location,
			Kind: kind, Delta: d, Ref: ref, Reason: reason}
	}
	return []stockade.Movement{
		mv(0, keyA1, stockade.MoveSet, stockade.Delta{OnHand: 10}, "", "initial count"),
		mv(1, keyA2, stockade.MoveSet, stockade.Delta{OnHand: 5}, "", "initial count"),
		mv(2, keyB1, stockade.MoveAdjust, stockade.Delta{OnHand: 7}, "", "delivery 42"),
		mv(3, keyA1, stockade.MoveReserve, stockade.Delta{Reserved: 2}, "r-1", ""),
		mv(4, keyB1, stockade.MoveReserve, stockade.Delta{Reserved: 1}, "r-1", ""),
		mv(5, keyA1, stockade.MoveConfirm, stockade.Delta{Reserved: -2, Committed: 2}, "r-1", ""),
		mv(6, keyA1, stockade.MoveFulfill, stockade.Delta{OnHand: -2, Committed: -2}, "o-1", "shipped"),
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
		before, err = tx.Movements(ctx, stockade.MovementFilter{})
		return err
	})
	ms := ledger()
	ms[0].ID = 1 << 40 // the store assigns IDs: this one is ignored
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.AppendMovements(ctx); err != nil {
			return fmt.Errorf("AppendMovements(): %w", err)
		}
		return tx.AppendMovements(ctx, ms[:3]...)
	})
	update(t, s, func(tx stockade.Tx) error { return tx.AppendMovements(ctx, ms[3:]...) })

	var all []stockade.Movement
	view(t, s, func(tx stockade.Tx) error {
		var err error
		all, err = tx.Movements(ctx, stockade.MovementFilter{AfterID: maxID(before)})
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
				got, err := tx.Movements(ctx, tc.f)
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
	update(t, s, func(tx stockade.Tx) error { return tx.AppendMovements(ctx, ms...) })
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.Movements(ctx, stockade.MovementFilter{SKU: k.SKU})
		if err != nil {
			return err
		}
		if len(got) != 1000 {
			t.Fatalf("Movements with Limit 0 returned %d rows, want the default 1000", len(got))
		}
		all, err := tx.Movements(ctx, stockade.MovementFilter{SKU: k.SKU, Limit: 2000})
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
	update(t, s, func(tx stockade.Tx) error { return tx.AppendMovements(ctx, ms...) })
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.Movements(ctx, stockade.MovementFilter{SKU: k.SKU, Limit: 10000})
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
		sums, err := tx.LedgerSums(ctx)
		if err != nil {
			return err
		}
		if len(sums) != 0 {
			t.Errorf("LedgerSums on an empty store = %v, want none", sums)
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
		sums, err := tx.LedgerSums(ctx)
		if err != nil {
			return err
		}
		if !maps.Equal(sums, want) {
			t.Errorf("LedgerSums = %v, want %v", sums, want)
		}
		return nil
	})
}
