package engine_test

import (
	"fmt"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// TestSKUs lists the SKUs with their totals, a page at a time and under
// a prefix, and refuses bad prefixes, cursors and limits.
func TestSKUs(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{"atomic"}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.location("w2", 1, 1)
		for _, sku := range []string{"tee-s", "tee-m", "cap", "tee-l", "tees", "mug"} {
			en.stock(sku, "w1", 10)
		}
		en.stock("tee-m", "w2", 5)
		if _, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tee-m", Quantity: 3}}}, nil); err != nil {
			t.Fatal(err)
		}

		walk := func(q stockade.SKUQuery) (got []string, sizes []int) {
			t.Helper()
			for range 100 {
				p, err := en.eng.SKUs(ctx, q)
				if err != nil {
					t.Fatalf("SKUs(%+v): %v", q, err)
				}
				sizes = append(sizes, len(p.SKUs))
				for _, s := range p.SKUs {
					got = append(got, s.SKU)
					if s.SKU == "tee-m" && s.Totals != (stockade.Totals{OnHand: 15, Reserved: 3, Available: 12}) {
						t.Errorf("tee-m totals %+v, want on hand 15, reserved 3, available 12", s.Totals)
					}
				}
				if p.Next == "" {
					return got, sizes
				}
				q.Cursor = p.Next
			}
			t.Fatal("no last page after 100")
			return nil, nil
		}
		for _, tc := range []struct {
			q     stockade.SKUQuery
			want  string
			sizes string
		}{
			{stockade.SKUQuery{}, "[cap mug tee-l tee-m tee-s tees]", "[6]"},
			{stockade.SKUQuery{Limit: 4}, "[cap mug tee-l tee-m tee-s tees]", "[4 2]"},
			{stockade.SKUQuery{Prefix: "tee-", Limit: 2}, "[tee-l tee-m tee-s]", "[2 1]"},
			{stockade.SKUQuery{Prefix: "tee", Limit: 2}, "[tee-l tee-m tee-s tees]", "[2 2]"},
			{stockade.SKUQuery{Prefix: "zz"}, "[]", "[0]"},
		} {
			got, sizes := walk(tc.q)
			if fmt.Sprint(got) != tc.want || fmt.Sprint(sizes) != tc.sizes {
				t.Errorf("SKUs(%+v): %v in pages of %v, want %s in pages of %s", tc.q, got, sizes, tc.want, tc.sizes)
			}
		}

		locs, err := en.eng.Locations(ctx, stockade.LocationQuery{Limit: 1})
		if err != nil || locs.Next == "" {
			t.Fatalf("Locations: %+v, %v; want a next cursor", locs, err)
		}
		for _, q := range []stockade.SKUQuery{
			{Cursor: "not a cursor"},
			{Cursor: locs.Next}, // another list's cursor
			{Prefix: "a\x00"},
			{Limit: stockade.MaxSKULimit + 1},
		} {
			if _, err := en.eng.SKUs(ctx, q); stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("SKUs(%+v): %v, want %s", q, err, stockade.EInvalid)
			}
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	t.Parallel()
	for prefix, want := range map[string]string{
		"":                      "",
		"ab":                    "ac",
		"a\U0010FFFF":           "b",
		"\U0010FFFF":            "",
		"x\uD7FF":               "x\uE000",
		"é":                     "ê",
		"tee-":                  "tee.",
		"a\U0010FFFF\U0010FFFF": "b",
	} {
		if got := engine.PrefixEnd(prefix); got != want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", prefix, got, want)
		}
	}
}
