package engine_test

import (
	"slices"
	"testing"

	"github.com/stockade/stockade"
)

// TestMovementPages walks the ledger page by page: each page but the last
// has a cursor, and the pages together hold every matching row once, in
// order.
func TestMovementPages(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{"atomic"}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.location("w2", 1, 1)
		en.stock("tee", "w1", 10)
		en.stock("cap", "w2", 10)
		for i := range 6 {
			if i%2 == 0 {
				en.stock("tee", "w1", int64(11+i))
			} else {
				en.stock("cap", "w2", int64(11+i))
			}
		}
		all, err := en.eng.Movements(ctx, stockade.MovementQuery{})
		if err != nil || len(all.Movements) != 8 || all.Next != "" {
			t.Fatalf("Movements() = %+v, %v, want 8 rows and no next cursor", all, err)
		}

		walk := func(q stockade.MovementQuery) (rows []stockade.Movement, sizes []int) {
			t.Helper()
			for range 100 {
				page, err := en.eng.Movements(ctx, q)
				if err != nil {
					t.Fatalf("Movements(%+v): %v", q, err)
				}
				rows = append(rows, page.Movements...)
				sizes = append(sizes, len(page.Movements))
				if page.Next == "" {
					return rows, sizes
				}
				q.Cursor = page.Next
			}
			t.Fatalf("Movements(%+v): still a next cursor after 100 pages", q)
			return nil, nil
		}
		ofSKU := func(sku string) []stockade.Movement {
			var ms []stockade.Movement
			for _, m := range all.Movements {
				if m.SKU == sku {
					ms = append(ms, m)
				}
			}
			return ms
		}
		tests := []struct {
			name  string
			q     stockade.MovementQuery
			want  []stockade.Movement
			sizes []int
		}{
			{"limit 3", stockade.MovementQuery{Limit: 3}, all.Movements, []int{3, 3, 2}},
			{"limit 1", stockade.MovementQuery{Limit: 1}, all.Movements, []int{1, 1, 1, 1, 1, 1, 1, 1}},
			// A last page that is exactly full has no cursor: the service
			// read one row more to know that none follows.
			{"limit 4, two full pages", stockade.MovementQuery{Limit: 4}, all.Movements, []int{4, 4}},
			{"limit 8, one full page", stockade.MovementQuery{Limit: 8}, all.Movements, []int{8}},
			{"sku", stockade.MovementQuery{SKU: "cap", Limit: 2}, ofSKU("cap"), []int{2, 2}},
			{"sku and location", stockade.MovementQuery{SKU: "tee", Location: "w1", Limit: 3}, ofSKU("tee"), []int{3, 1}},
			{"nothing matches", stockade.MovementQuery{SKU: "hat", Limit: 3}, nil, []int{0}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				rows, sizes := walk(tc.q)
				if !slices.Equal(sizes, tc.sizes) {
					t.Errorf("page sizes %v, want %v", sizes, tc.sizes)
				}
				if !slices.EqualFunc(rows, tc.want, func(a, b stockade.Movement) bool { return a.ID == b.ID && a.Delta == b.Delta }) {
					t.Errorf("rows\n%+v\nwant\n%+v", rows, tc.want)
				}
			})
		}

		// A cursor works with any filter: it says where to start.
		first, err := en.eng.Movements(ctx, stockade.MovementQuery{Limit: 5})
		if err != nil || first.Next == "" {
			t.Fatalf("Movements(limit 5) = %+v, %v", first, err)
		}
		rest, _ := walk(stockade.MovementQuery{SKU: "tee", Cursor: first.Next})
		var want []stockade.Movement
		for _, m := range all.Movements[5:] {
			if m.SKU == "tee" {
				want = append(want, m)
			}
		}
		if !slices.EqualFunc(rest, want, func(a, b stockade.Movement) bool { return a.ID == b.ID }) {
			t.Errorf("tee after the first 5 rows = %+v, want %+v", rest, want)
		}

		// Rows appended after a page was read come in the next pages.
		last, err := en.eng.Movements(ctx, stockade.MovementQuery{Limit: 7})
		if err != nil || last.Next == "" {
			t.Fatalf("Movements(limit 7) = %+v, %v", last, err)
		}
		en.stock("tee", "w1", 3)
		rows, sizes := walk(stockade.MovementQuery{Limit: 7, Cursor: last.Next})
		if len(rows) != 2 || rows[0].ID != all.Movements[7].ID || rows[1].SKU != "tee" || rows[1].ID <= rows[0].ID || !slices.Equal(sizes, []int{2}) {
			t.Errorf("after a row was appended: %+v in pages of %v, want the last old row and the new one", rows, sizes)
		}
	})
}

func TestMovementQueryRefused(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], "atomic", nil)
	ctx := sys(t)
	for _, tc := range []struct {
		name string
		q    stockade.MovementQuery
	}{
		{"malformed cursor", stockade.MovementQuery{Cursor: "12"}},
		{"cursor of nothing", stockade.MovementQuery{Cursor: "AAAAAAAAAAAA"}},
		{"negative limit", stockade.MovementQuery{Limit: -1}},
		{"limit too large", stockade.MovementQuery{Limit: stockade.MaxMovementLimit + 1}},
		{"bad sku", stockade.MovementQuery{SKU: "a\nb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := en.eng.Movements(ctx, tc.q)
			wantCode(t, err, stockade.EInvalid)
			if len(page.Movements) != 0 || page.Next != "" {
				t.Errorf("refused query returned %+v", page)
			}
		})
	}
}
