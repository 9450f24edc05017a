package stockade_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

func TestNewShipmentValidate(t *testing.T) {
	t.Parallel()
	ok := stockade.Line{SKU: "tee", Quantity: 1}
	many := make([]stockade.Line, stockade.MaxLines+1)
	for i := range many {
		many[i] = ok
	}
	for _, tc := range []struct {
		name string
		s    stockade.NewShipment
		says string
	}{
		{"valid", stockade.NewShipment{Lines: []stockade.Line{ok, {SKU: "cap", Quantity: 2, Location: "w1"}}}, ""},
		{"no lines", stockade.NewShipment{}, "lines: must not be empty"},
		{"too many lines", stockade.NewShipment{Lines: many}, "lines: at most 100"},
		{"no sku", stockade.NewShipment{Lines: []stockade.Line{{Quantity: 1}}}, "lines[0].sku"},
		{"zero quantity", stockade.NewShipment{Lines: []stockade.Line{{SKU: "tee"}}}, "lines[0].quantity"},
		{"huge quantity", stockade.NewShipment{Lines: []stockade.Line{{SKU: "tee", Quantity: stockade.MaxQuantity + 1}}}, "lines[0].quantity"},
		{"bad location", stockade.NewShipment{Lines: []stockade.Line{{SKU: "tee", Quantity: 1, Location: "w\n1"}}}, "lines[0].location"},
		{"bad metadata", stockade.NewShipment{Lines: []stockade.Line{ok}, Metadata: stockade.Metadata{"": "x"}}, "metadata"},
	} {
		err := tc.s.Validate()
		if tc.says == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if stockade.ErrorCode(err) != stockade.EInvalid || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want invalid saying %q", tc.name, err, tc.says)
		}
	}
}

func TestOrderUnshipped(t *testing.T) {
	t.Parallel()
	a := func(sku, loc string, q int64) stockade.Allocation {
		return stockade.Allocation{SKU: sku, Location: loc, Quantity: q}
	}
	o := stockade.Order{Status: stockade.Committed,
		Allocations: []stockade.Allocation{a("tee", "w2", 4), a("tee", "w1", 3), a("cap", "w1", 1)},
		Shipped:     []stockade.Allocation{a("tee", "w1", 3), a("tee", "w2", 1)}}
	if got, want := o.Unshipped(), []stockade.Allocation{a("cap", "w1", 1), a("tee", "w2", 3)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Unshipped() = %v, want %v", got, want)
	}
	for _, st := range []stockade.OrderStatus{stockade.Cancelled, stockade.Fulfilled} {
		o.Status = st
		if got := o.Unshipped(); got != nil {
			t.Errorf("Unshipped() of a %s order = %v, want nil", st, got)
		}
	}
	sum := stockade.SumAllocations([]stockade.Allocation{a("tee", "w2", 1)}, []stockade.Allocation{a("cap", "w1", 2), a("tee", "w2", 2)})
	if want := []stockade.Allocation{a("cap", "w1", 2), a("tee", "w2", 3)}; !reflect.DeepEqual(sum, want) {
		t.Errorf("SumAllocations = %v, want %v", sum, want)
	}
}
