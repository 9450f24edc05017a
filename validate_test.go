package stockade_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// wantInvalid fails unless err is nil when want is "", or else an EInvalid
// *stockade.Error whose message contains want.
func wantInvalid(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("refused: %v", err)
	case want == "":
	case stockade.ErrorCode(err) != stockade.EInvalid:
		t.Errorf("got %v, want code invalid", err)
	case !strings.Contains(stockade.ErrorMessage(err), want):
		t.Errorf("message %q, want it to contain %q", stockade.ErrorMessage(err), want)
	}
}

func TestValidateID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, id, want string
	}{
		{"plain", "widget-1", ""},
		{"unicode", "théière/2", ""},
		{"longest", strings.Repeat("x", stockade.MaxIDLength), ""},
		{"empty", "", "sku: required, must not be empty"},
		{"one too long", strings.Repeat("x", stockade.MaxIDLength+1), "sku: longer than 128 bytes, got 129"},
		{"long in bytes, not runes", strings.Repeat("é", 65), "sku: longer than 128 bytes, got 130"},
		{"newline", "wid\nget", "sku: must not contain control characters"},
		{"DEL", "wid\x7fget", "sku: must not contain control characters"},
		{"C1 control", "wid\u0085get", "sku: must not contain control characters"},
		{"not UTF-8", "wid\xffget", "sku: not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, stockade.ValidateID("sku", tc.id), tc.want) })
	}
}

func TestValidateText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s, want string
	}{
		{"empty", "", ""},
		{"longest", strings.Repeat("x", stockade.MaxTextLength), ""},
		{"too long", strings.Repeat("x", stockade.MaxTextLength+1), "name: longer than 1024 bytes, got 1025"},
		{"tab", "a\tb", "name: must not contain control characters"},
		{"not UTF-8", "\xc3", "name: not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, stockade.ValidateText("name", tc.s), tc.want) })
	}
}

func TestValidateIdempotencyKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, want string
	}{
		{"uuid", "0b8d3c1e-7f4a-4c55-9a51-1d7b2f0e9c3a", ""},
		{"spaces and punctuation", "cart 42: retry #1", ""},
		{"longest", strings.Repeat("k", stockade.MaxIDLength), ""},
		{"empty", "", "Idempotency-Key: want 1 to 128 characters, got 0"},
		{"too long", strings.Repeat("k", 300), "Idempotency-Key: want 1 to 128 characters, got 300"},
		{"not ASCII", "clé", "Idempotency-Key: want printable ASCII, got byte 0xc3 at 2"},
		{"control", "a\x01", "Idempotency-Key: want printable ASCII, got byte 0x1 at 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantInvalid(t, stockade.ValidateIdempotencyKey("Idempotency-Key", tc.key), tc.want)
		})
	}
}

func TestValidateKeyAndLocation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", stockade.MaxIDLength+1)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"key", stockade.Key{SKU: "tee", Location: "w1"}.Validate(), ""},
		{"key without sku", stockade.Key{Location: "w1"}.Validate(), "sku: required"},
		{"key without location", stockade.Key{SKU: "tee"}.Validate(), "location: required"},
		{"key with long location", stockade.Key{SKU: "tee", Location: long}.Validate(), "location: longer than 128 bytes"},
		{"location", stockade.Location{ID: "w1", Name: "West", Point: &stockade.Point{Lat: -90, Lon: 180}}.Validate(), ""},
		{"location without a place", stockade.Location{ID: "w1", Name: "Drop-shipper"}.Validate(), ""},
		{"location without name", stockade.Location{ID: "w1"}.Validate(), ""},
		{"location without id", stockade.Location{Name: "x"}.Validate(), "id: required"},
		{"location name with control", stockade.Location{ID: "w1", Name: "a\nb"}.Validate(), "name: must not contain control characters"},
		{"location lat", stockade.Location{ID: "w1", Point: &stockade.Point{Lat: 90.5}}.Validate(), "lat: must be between -90 and 90, got 90.5"},
		{"location lon", stockade.Location{ID: "w1", Point: &stockade.Point{Lon: -181}}.Validate(), "lon: must be between -180 and 180, got -181"},
		{"location NaN", stockade.Location{ID: "w1", Point: &stockade.Point{Lon: math.NaN()}}.Validate(), "lon: must be between -180 and 180, got NaN"},
		{"location infinite", stockade.Location{ID: "w1", Point: &stockade.Point{Lat: math.Inf(1)}}.Validate(), "lat: must be between -90 and 90, got +Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, tc.err, tc.want) })
	}
}

func TestValidateReserveRequest(t *testing.T) {
	t.Parallel()
	good := stockade.Line{SKU: "tee", Quantity: 1}
	lines := func(ls ...stockade.Line) stockade.ReserveRequest { return stockade.ReserveRequest{Lines: ls} }
	with := func(f func(r *stockade.ReserveRequest)) stockade.ReserveRequest {
		r := lines(good)
		f(&r)
		return r
	}
	many := make([]stockade.Line, stockade.MaxLines+1)
	for i := range many {
		many[i] = good
	}
	tests := []struct {
		name   string
		req    stockade.ReserveRequest
		maxTTL time.Duration
		want   string
	}{
		{"one line", lines(good), 0, ""},
		{"most lines", lines(many[:stockade.MaxLines]...), 0, ""},
		{"largest quantity", lines(stockade.Line{SKU: "tee", Quantity: stockade.MaxQuantity, Location: "w1"}), 0, ""},
		{"no lines", stockade.ReserveRequest{}, 0, "lines: must not be empty"},
		{"too many lines", lines(many...), 0, "lines: at most 100, got 101"},
		{"empty sku", lines(good, stockade.Line{Quantity: 1}), 0, "lines[1].sku: required, must not be empty"},
		{"zero quantity", lines(good, stockade.Line{SKU: "tee"}), 0, "lines[1].quantity: must be between 1 and 1000000000, got 0"},
		{"negative quantity", lines(stockade.Line{SKU: "tee", Quantity: -3}), 0, "lines[0].quantity: must be between 1 and 1000000000, got -3"},
		{"huge quantity", lines(stockade.Line{SKU: "tee", Quantity: stockade.MaxQuantity + 1}), 0, "lines[0].quantity: must be between 1 and 1000000000, got 1000000001"},
		{"bad location", lines(stockade.Line{SKU: "tee", Quantity: 1, Location: "a\x00"}), 0, "lines[0].location: must not contain control characters"},
		{"default ttl", with(func(r *stockade.ReserveRequest) { r.TTL = 0 }), 0, ""},
		{"longest ttl", with(func(r *stockade.ReserveRequest) { r.TTL = stockade.MaxTTL }), 0, ""},
		{"ttl too long", with(func(r *stockade.ReserveRequest) { r.TTL = stockade.MaxTTL + time.Second }), 0,
			"ttl: must be at most 24h0m0s (86400 seconds), got 24h0m1s"},
		{"negative ttl", with(func(r *stockade.ReserveRequest) { r.TTL = -time.Second }), 0, "ttl: must not be negative, got -1s"},
		{"ttl within a configured ceiling", with(func(r *stockade.ReserveRequest) { r.TTL = 48 * time.Hour }), 72 * time.Hour, ""},
		{"ttl over a configured ceiling", with(func(r *stockade.ReserveRequest) { r.TTL = 2 * time.Hour }), time.Hour,
			"ttl: must be at most 1h0m0s (3600 seconds), got 2h0m0s"},
		{"ship_to", with(func(r *stockade.ReserveRequest) { r.ShipTo = &stockade.Point{Lat: 40, Lon: -75} }), 0, ""},
		{"ship_to off the map", with(func(r *stockade.ReserveRequest) { r.ShipTo = &stockade.Point{Lat: 91} }), 0,
			"ship_to.lat: must be between -90 and 90, got 91"},
		{"ship_to NaN", with(func(r *stockade.ReserveRequest) { r.ShipTo = &stockade.Point{Lon: math.NaN()} }), 0,
			"ship_to.lon: must be between -180 and 180, got NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, tc.req.Validate(tc.maxTTL), tc.want) })
	}
}

func TestValidateStockChanges(t *testing.T) {
	t.Parallel()
	k := stockade.Key{SKU: "tee", Location: "w1"}
	v := func(n int64) *int64 { return &n }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"set", stockade.ValidateSetStock(k, 0, nil), ""},
		{"set largest", stockade.ValidateSetStock(k, stockade.MaxQuantity, v(0)), ""},
		{"set bad key", stockade.ValidateSetStock(stockade.Key{SKU: "tee"}, 1, nil), "location: required"},
		{"set negative", stockade.ValidateSetStock(k, -1, nil), "on_hand: must be between 0 and 1000000000, got -1"},
		{"set huge", stockade.ValidateSetStock(k, stockade.MaxQuantity+1, nil), "on_hand: must be between 0 and 1000000000, got 1000000001"},
		{"set negative version", stockade.ValidateSetStock(k, 1, v(-1)), "expected_version: must not be negative, got -1"},
		{"adjust", stockade.ValidateAdjustStock(k, -stockade.MaxQuantity, "shrinkage"), ""},
		{"adjust bad key", stockade.ValidateAdjustStock(stockade.Key{Location: "w1"}, 1, "x"), "sku: required"},
		{"adjust zero", stockade.ValidateAdjustStock(k, 0, "x"), "delta: must not be zero"},
		{"adjust huge", stockade.ValidateAdjustStock(k, stockade.MaxQuantity+1, "x"), "delta: must be between -1000000000 and 1000000000, got 1000000001"},
		{"adjust no reason", stockade.ValidateAdjustStock(k, 1, ""), "reason: required, must not be empty"},
		{"adjust long reason", stockade.ValidateAdjustStock(k, 1, strings.Repeat("r", stockade.MaxTextLength+1)), "reason: longer than 1024 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, tc.err, tc.want) })
	}
}
