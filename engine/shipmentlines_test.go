package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// TestShipmentLines: which allocations the lines of a shipment take, and
// what they refuse; a pure function of the order and the lines.
func TestShipmentLines(t *testing.T) {
	t.Parallel()
	order := stockade.Order{ID: "o", Status: stockade.Committed,
		Allocations: []stockade.Allocation{alloc("cap", "w2", 2), alloc("tee", "w1", 3), alloc("tee", "w2", 4), alloc("tee", "w3", 1)},
		Shipped:     []stockade.Allocation{alloc("tee", "w1", 1)}}
	for _, tc := range []struct {
		name  string
		lines []stockade.Line
		want  []stockade.Allocation
		code  string
		says  string
	}{
		{"anywhere, in location order", []stockade.Line{line("tee", 3, "")}, []stockade.Allocation{alloc("tee", "w1", 2), alloc("tee", "w2", 1)}, "", ""},
		{"everything left", []stockade.Line{line("tee", 7, ""), line("cap", 2, "")},
			[]stockade.Allocation{alloc("cap", "w2", 2), alloc("tee", "w1", 2), alloc("tee", "w2", 4), alloc("tee", "w3", 1)}, "", ""},
		{"a location named first", []stockade.Line{line("tee", 2, ""), line("tee", 2, "w1")}, []stockade.Allocation{alloc("tee", "w1", 2), alloc("tee", "w2", 2)}, "", ""},
		{"lines of one level add up", []stockade.Line{line("tee", 1, "w2"), line("tee", 2, "w2")}, []stockade.Allocation{alloc("tee", "w2", 3)}, "", ""},
		{"more than is left", []stockade.Line{line("tee", 8, "")}, nil, stockade.EInvalidState, "7 of tee left to ship, not 8"},
		{"more than is left at a location", []stockade.Line{line("tee", 3, "w1")}, nil, stockade.EInvalidState, "2 of tee at w1 left to ship, not 3"},
		{"more than the located lines left", []stockade.Line{line("tee", 4, "w2"), line("tee", 4, "")}, nil, stockade.EInvalidState, "3 of tee left to ship besides"},
		{"a SKU the order has not", []stockade.Line{line("hat", 1, "")}, nil, stockade.EInvalid, "has no hat"},
		{"a location the order has not", []stockade.Line{line("cap", 1, "w1")}, nil, stockade.EInvalid, "has no cap at w1"},
	} {
		got, err := engine.ShipmentLines(order, tc.lines)
		if tc.code == "" {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
			}
			continue
		}
		if stockade.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.says) || got != nil {
			t.Errorf("%s: %v, %v; want %s saying %q", tc.name, got, err, tc.code, tc.says)
		}
	}
}
