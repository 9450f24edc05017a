package stockade_test

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/stockade/stockade"
)

// TestMetadataMerge: a value sets its key, the empty value removes it,
// other keys stay; more than MaxMetadataKeys after the merge is refused;
// neither input is changed.
func TestMetadataMerge(t *testing.T) {
	t.Parallel()
	full := stockade.Metadata{}
	for i := range stockade.MaxMetadataKeys {
		full[fmt.Sprintf("k%02d", i)] = "v"
	}
	tests := []struct {
		name        string
		m, patch    stockade.Metadata
		want        stockade.Metadata
		wantInvalid string
	}{
		{"into none", nil, stockade.Metadata{"a": "1"}, stockade.Metadata{"a": "1"}, ""},
		{"set, replace, remove", stockade.Metadata{"a": "1", "b": "2", "c": "3"}, stockade.Metadata{"a": "9", "b": "", "d": "4"},
			stockade.Metadata{"a": "9", "c": "3", "d": "4"}, ""},
		{"remove the last", stockade.Metadata{"a": "1"}, stockade.Metadata{"a": ""}, nil, ""},
		{"remove a missing key", stockade.Metadata{"a": "1"}, stockade.Metadata{"z": ""}, stockade.Metadata{"a": "1"}, ""},
		{"full, one replaced", full, stockade.Metadata{"k00": "w"}, func() stockade.Metadata {
			m := maps.Clone(full)
			m["k00"] = "w"
			return m
		}(), ""},
		{"full, one removed and one added", full, stockade.Metadata{"k00": "", "new": "x"}, func() stockade.Metadata {
			m := maps.Clone(full)
			delete(m, "k00")
			m["new"] = "x"
			return m
		}(), ""},
		{"full, one added", full, stockade.Metadata{"new": "x"}, nil, "would leave 51 keys, at most 50"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, patch := maps.Clone(tc.m), maps.Clone(tc.patch)
			got, err := tc.m.Merge(tc.patch)
			wantInvalid(t, err, tc.wantInvalid)
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge = %v, want %v", got, tc.want)
			}
			if !maps.Equal(tc.m, m) || !maps.Equal(tc.patch, patch) {
				t.Errorf("Merge changed its inputs: %v and %v, were %v and %v", tc.m, tc.patch, m, patch)
			}
		})
	}
}

// TestUpdateRequestValidate: an update names at least one key, and its
// keys and values are within Metadata's limits.
func TestUpdateRequestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		metadata stockade.Metadata
		want     string
	}{
		{stockade.Metadata{"cart": "c_1", "old": ""}, ""},
		{nil, "name at least one key"},
		{stockade.Metadata{}, "name at least one key"},
		{stockade.Metadata{"a b": "x"}, "want printable ASCII"},
		{stockade.Metadata{"cart": "\x00"}, "control characters"},
	} {
		wantInvalid(t, stockade.UpdateRequest{Metadata: tc.metadata}.Validate(), tc.want)
	}
}

// A shop ties a reservation to its cart at creation, and later adds the
// customer and drops the cart, in one update.
func ExampleMetadata_Merge() {
	m := stockade.Metadata{"cart": "c_42"}
	m, err := m.Merge(stockade.Metadata{"customer": "cus_7", "cart": ""})
	fmt.Println(m, err)
	// Output: map[customer:cus_7] <nil>
}
