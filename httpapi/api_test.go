package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestShapes walks every route once, in the order a shop would, and
// compares each answer with its golden file: the JSON shapes of the API.
func TestShapes(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	seen := map[string]string{}
	step := func(name string, want int, method, path string, body any) response {
		t.Helper()
		r := a.must(want, method, path, body)
		req := method + " " + path
		if s, ok := body.(string); ok {
			req += " " + s
		}
		golden(t, name, req, r, seen)
		return r
	}

	step("put_location", 200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`)
	step("put_location_west", 200, "PUT", "/v1/locations/west", `{"name":"West","lat":37.77,"lon":-122.42}`)
	step("location", 200, "GET", "/v1/locations/west", nil)
	var locs struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(step("locations_page", 200, "GET", "/v1/locations?limit=1", nil).body, &locs); err != nil || locs.NextCursor == nil {
		t.Fatalf("first page of the locations: next_cursor %v, %v", locs.NextCursor, err)
	}
	step("locations_next_page", 200, "GET", "/v1/locations?limit=1&cursor="+url.QueryEscape(*locs.NextCursor), nil)
	step("set_stock", 200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`)
	step("set_stock_cas", 200, "PUT", "/v1/stock/widget/west", `{"on_hand":6,"expected_version":0}`)
	step("adjust", 200, "POST", "/v1/stock/widget/west/adjust", `{"delta":-1,"reason":"damaged in transit"}`)
	step("stock", 200, "GET", "/v1/stock/widget", nil)
	step("skus", 200, "GET", "/v1/stock?prefix=wid&limit=10", nil)

	// 12 from near Philadelphia: all 10 of east, the nearest, then 2 of west.
	res := step("reserve", 201, "POST", "/v1/reservations",
		`{"lines":[{"sku":"widget","quantity":12}],"ttl_seconds":600,"ship_to":{"lat":40.0,"lon":-75.2}}`).id(t)
	step("reservation", 200, "GET", "/v1/reservations/"+res, nil)
	step("stock_reserved", 200, "GET", "/v1/stock/widget", nil)
	ord := step("confirm", 200, "POST", "/v1/reservations/"+res+"/confirm", nil).id(t)
	step("reservation_confirmed", 200, "GET", "/v1/reservations/"+res, nil)
	step("order", 200, "GET", "/v1/orders/"+ord, nil)
	// 3 of the 12 leave first, from east (the first location in id
	// order), at the version read; fulfil ships the rest.
	step("ship", 201, "POST", "/v1/orders/"+ord+"/shipments",
		`{"lines":[{"sku":"widget","quantity":3}],"metadata":{"tracking":"1Z999"},"expected_version":1}`)
	step("order_shipped", 200, "GET", "/v1/orders/"+ord, nil)
	step("fulfill", 200, "POST", "/v1/orders/"+ord+"/fulfill", nil)
	step("shipments", 200, "GET", "/v1/orders/"+ord+"/shipments", nil)

	direct := step("checkout", 201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1,"location":"west"}]}`).id(t)
	step("cancel", 200, "POST", "/v1/orders/"+direct+"/cancel", nil)

	held := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":2,"location":"west"}]}`).id(t)
	step("release", 200, "DELETE", "/v1/reservations/"+held, nil)

	step("stock_final", 200, "GET", "/v1/stock/widget", nil)
	step("movements", 200, "GET", "/v1/movements?sku=widget&location=west", nil)
	// The ledger a page at a time: the first page's next_cursor gets the
	// second; the last page, above, has none.
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(step("movements_page", 200, "GET", "/v1/movements?limit=2", nil).body, &page); err != nil || page.NextCursor == nil {
		t.Fatalf("first page of the ledger: next_cursor %v, %v", page.NextCursor, err)
	}
	step("movements_next_page", 200, "GET", "/v1/movements?limit=2&cursor="+url.QueryEscape(*page.NextCursor), nil)

	// Reservations and orders, newest first, by status and time.
	step("reservations", 200, "GET", "/v1/reservations?status=released&created_after=2030-01-02T00:00:00Z", nil)
	var orders struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(step("orders_page", 200, "GET", "/v1/orders?limit=1", nil).body, &orders); err != nil || orders.NextCursor == nil {
		t.Fatalf("first page of the orders: next_cursor %v, %v", orders.NextCursor, err)
	}
	step("orders_next_page", 200, "GET", "/v1/orders?limit=1&cursor="+url.QueryEscape(*orders.NextCursor), nil)

	// Keys: the secret is in the answer to the creation only.
	created := step("create_key", 201, "POST", "/v1/keys", `{"name":"audit","role":"reader","rate_limit":20}`)
	var key struct{ ID, Secret string }
	if err := json.Unmarshal(created.body, &key); err != nil {
		t.Fatal(err)
	}
	step("keys", 200, "GET", "/v1/keys", nil)
	forbidden := a.must(403, "PUT", "/v1/stock/widget/east", `{"on_hand":1}`, "Authorization: Bearer "+key.Secret)
	golden(t, "problem_forbidden", "PUT /v1/stock/widget/east {\"on_hand\":1} (a reader's key)", forbidden, seen)
	step("revoke_key", 200, "DELETE", "/v1/keys/"+key.ID, nil)
	revoked := a.must(401, "GET", "/v1/stock/widget", nil, "Authorization: Bearer "+key.Secret)
	golden(t, "problem_unauthenticated", "GET /v1/stock/widget (a revoked key)", revoked, seen)

	step("problem_insufficient_stock", 409, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":100}]}`)
	step("problem_invalid", 400, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":"2"}]}`)
	step("problem_not_found", 404, "GET", "/v1/orders/ord_none", nil)
	step("problem_version_conflict", 409, "PUT", "/v1/stock/widget/east", `{"on_hand":1,"expected_version":1}`)
	step("healthz", 200, "GET", "/healthz", nil)
	step("readyz", 200, "GET", "/readyz", nil)
}

// TestBadInputChangesNothing sends bad requests of every kind: each gets
// a 4xx problem document with the right code, naming what is wrong, and
// leaves the stock and the ledger as they were.
func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	held := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1,"location":"east"}]}`).id(t)
	ord := a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1,"location":"east"}]}`).id(t)
	a.must(200, "POST", "/v1/orders/"+ord+"/cancel", nil)
	released := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1,"location":"east"}]}`).id(t)
	a.must(200, "DELETE", "/v1/reservations/"+released, nil)
	confirmed := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1,"location":"west"}]}`).id(t)
	fulfilled := a.must(200, "POST", "/v1/reservations/"+confirmed+"/confirm", nil).id(t)
	a.must(200, "POST", "/v1/orders/"+fulfilled+"/fulfill", nil)

	line := `{"sku":"widget","quantity":1}`
	reserve := func(fields string) string { return `{"lines":[` + line + `]` + fields + `}` }
	withLine := func(l string) string { return `{"lines":[` + l + `]}` }
	long := strings.Repeat("x", 300)
	justOver := strings.Repeat("x", stockade.MaxIDLength+1)
	huge := bytes.Repeat([]byte(" "), 2<<20)
	copy(huge, reserve(""))

	tests := []struct {
		name         string
		method, path string
		body         any
		header       []string
		status       int
		code         string
		detail       string
	}{
		// Not JSON, or not one JSON object.
		{"empty body", "POST", "/v1/reservations", "", nil, 400, "invalid", "body: empty"},
		{"malformed", "POST", "/v1/reservations", `{"lines":[`, nil, 400, "invalid", "body: malformed JSON"},
		{"syntax", "POST", "/v1/reservations", `{lines:[]}`, nil, 400, "invalid", "body: malformed JSON at byte 2"},
		{"trailing data", "POST", "/v1/reservations", reserve("") + ` {}`, nil, 400, "invalid", "body: unexpected data after the JSON value"},
		{"array", "POST", "/v1/reservations", `[]`, nil, 400, "invalid", "body: want an object, got array"},
		{"null", "POST", "/v1/reservations", `null`, nil, 400, "invalid", "lines: required"},
		{"oversize", "POST", "/v1/reservations", huge, nil, 413, "invalid", "larger than 1048576 bytes"},
		{"wrong media type", "POST", "/v1/reservations", reserve(""), []string{"Content-Type: text/plain"}, 415, "invalid", `Content-Type "text/plain"`},
		{"query on POST", "POST", "/v1/reservations?dry=1", reserve(""), nil, 400, "invalid", "takes no query parameters"},

		// Reservations: fields, types, ranges.
		{"unknown field", "POST", "/v1/reservations", reserve(`,"ttl":5`), nil, 400, "invalid", `body: unknown field "ttl"`},
		{"unknown line field", "POST", "/v1/reservations", withLine(`{"sku":"widget","qty":1}`), nil, 400, "invalid", `lines[0]: unknown field "qty"`},
		{"no lines", "POST", "/v1/reservations", `{"ttl_seconds":60}`, nil, 400, "invalid", "lines: required"},
		{"empty lines", "POST", "/v1/reservations", `{"lines":[]}`, nil, 400, "invalid", "lines: must not be empty"},
		{"lines not array", "POST", "/v1/reservations", `{"lines":{}}`, nil, 400, "invalid", "lines: want an array, got object"},
		{"null line", "POST", "/v1/reservations", withLine(`null`), nil, 400, "invalid", "lines[0]: want an object, got null"},
		{"number line", "POST", "/v1/reservations", withLine(`7`), nil, 400, "invalid", "lines[0]: want an object, got number"},
		{"too many lines", "POST", "/v1/reservations", `{"lines":[` + strings.Repeat(line+",", 100) + line + `]}`, nil, 400, "invalid", "lines: at most 100, got 101"},
		{"no sku", "POST", "/v1/reservations", withLine(`{"quantity":1}`), nil, 400, "invalid", "lines[0].sku: required"},
		{"empty sku", "POST", "/v1/reservations", withLine(`{"sku":"","quantity":1}`), nil, 400, "invalid", "lines[0].sku: required, must not be empty"},
		{"sku number", "POST", "/v1/reservations", withLine(`{"sku":7,"quantity":1}`), nil, 400, "invalid", "lines[0].sku: want a string, got number"},
		{"sku control", "POST", "/v1/reservations", withLine(`{"sku":"wid\nget","quantity":1}`), nil, 400, "invalid", "lines[0].sku: must not contain control characters"},
		{"sku too long", "POST", "/v1/reservations", withLine(`{"sku":"` + long + `","quantity":1}`), nil, 400, "invalid", "lines[0].sku: longer than 128 bytes, got 300"},
		{"sku one byte too long", "POST", "/v1/reservations", withLine(`{"sku":"` + justOver + `","quantity":1}`), nil, 400, "invalid", "lines[0].sku: longer than 128 bytes, got 129"},
		{"no quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget"}`), nil, 400, "invalid", "lines[0].quantity: required"},
		{"zero quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":0}`), nil, 400, "invalid", "lines[0].quantity: must be between 1 and 1000000000, got 0"},
		{"negative quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":-3}`), nil, 400, "invalid", "lines[0].quantity: must be between 1 and 1000000000, got -3"},
		{"huge quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":5000000000000}`), nil, 400, "invalid", "lines[0].quantity: must be between 1 and 1000000000, got 5000000000000"},
		{"overflowing quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":1e30}`), nil, 400, "invalid", "lines[0].quantity: want an integer, got number 1e30"},
		{"fractional quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":1.5}`), nil, 400, "invalid", "want an integer, got number 1.5"},
		{"string quantity", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":"1"}`), nil, 400, "invalid", "want an integer, got string"},
		{"empty location", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":1,"location":""}`), nil, 400, "invalid", "lines[0].location: required, must not be empty"},
		{"zero ttl", "POST", "/v1/reservations", reserve(`,"ttl_seconds":0`), nil, 400, "invalid", "ttl_seconds: must be at least 1, got 0"},
		{"negative ttl", "POST", "/v1/reservations", reserve(`,"ttl_seconds":-5`), nil, 400, "invalid", "ttl_seconds: must be at least 1, got -5"},
		{"ttl over the maximum", "POST", "/v1/reservations", reserve(`,"ttl_seconds":86401`), nil, 400, "invalid", "ttl: must be at most 24h0m0s (86400 seconds), got 24h0m1s"},
		{"huge ttl", "POST", "/v1/reservations", reserve(`,"ttl_seconds":9999999999999`), nil, 400, "invalid", "ttl_seconds: must be at most 86400, got 9999999999999"},
		{"string ttl", "POST", "/v1/reservations", reserve(`,"ttl_seconds":"60"`), nil, 400, "invalid", "ttl_seconds: want an integer, got string"},
		{"ship_to array", "POST", "/v1/reservations", reserve(`,"ship_to":[1,2]`), nil, 400, "invalid", "ship_to: want an object, got array"},
		{"ship_to without lon", "POST", "/v1/reservations", reserve(`,"ship_to":{"lat":1}`), nil, 400, "invalid", "ship_to.lon: required"},
		{"ship_to unknown field", "POST", "/v1/reservations", reserve(`,"ship_to":{"lat":1,"lng":2}`), nil, 400, "invalid", `ship_to: unknown field "lng"`},
		{"ship_to off the map", "POST", "/v1/reservations", reserve(`,"ship_to":{"lat":91,"lon":0}`), nil, 400, "invalid", "ship_to.lat: must be between -90 and 90, got 91"},
		{"checkout, same checks", "POST", "/v1/orders", withLine(`{"sku":"widget","quantity":-1}`), nil, 400, "invalid", "lines[0].quantity: must be between 1 and 1000000000, got -1"},

		// Keys: each given once, spelled exactly.
		{"duplicate key", "POST", "/v1/reservations", `{"lines":[` + line + `],"lines":[` + line + `]}`, nil, 400, "invalid", `body: duplicate key "lines"`},
		{"duplicate key in a line", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":1,"sku":"gadget"}`), nil, 400, "invalid", `lines[0]: duplicate key "sku"`},
		{"duplicate key in ship_to", "POST", "/v1/reservations", reserve(`,"ship_to":{"lat":1,"lon":2,"lat":3}`), nil, 400, "invalid", `ship_to: duplicate key "lat"`},
		{"duplicate key in a location", "PUT", "/v1/locations/north", `{"name":"N","lat":1,"lon":2,"name":"M"}`, nil, 400, "invalid", `body: duplicate key "name"`},
		{"duplicate key in an adjustment", "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"x","delta":-1}`, nil, 400, "invalid", `body: duplicate key "delta"`},
		{"key in another case", "POST", "/v1/reservations", `{"Lines":[` + line + `]}`, nil, 400, "invalid", `body: unknown field "Lines" (keys are case-sensitive: want "lines")`},
		{"key in another case in a line", "POST", "/v1/reservations", withLine(`{"SKU":"widget","quantity":1}`), nil, 400, "invalid", `lines[0]: unknown field "SKU" (keys are case-sensitive: want "sku")`},
		{"key in another case in ship_to", "POST", "/v1/reservations", reserve(`,"ship_to":{"Lat":1,"lon":2}`), nil, 400, "invalid", `ship_to: unknown field "Lat"`},
		{"key in another case beside the right one", "PUT", "/v1/stock/widget/east", `{"on_hand":1,"ON_HAND":2}`, nil, 400, "invalid", `body: unknown field "ON_HAND"`},
		{"key folding to a field", "PUT", "/v1/stock/widget/east", `{"on_hand":1,"expected_ver\u017fion":0}`, nil, 400, "invalid", `unknown field "expected_verſion"`},
		{"key in another case in an empty body", "POST", "/v1/reservations/" + held + "/confirm", `{"Now":true}`, nil, 400, "invalid", `unknown field "Now"`},

		// Idempotency keys.
		{"key too long", "POST", "/v1/reservations", reserve(""), []string{"Idempotency-Key: " + long}, 400, "invalid", "Idempotency-Key: want 1 to 128 characters, got 300"},
		{"key not ASCII", "POST", "/v1/reservations", reserve(""), []string{"Idempotency-Key: clé"}, 400, "invalid", "Idempotency-Key: want printable ASCII"},
		{"key twice", "POST", "/v1/reservations", reserve(""), []string{"Idempotency-Key: a", "Idempotency-Key: b"}, 400, "invalid", "given 2 times"},

		// Locations and stock.
		{"location without name", "PUT", "/v1/locations/north", `{"lat":1,"lon":2}`, nil, 400, "invalid", "name: required"},
		{"location lat string", "PUT", "/v1/locations/north", `{"name":"N","lat":"1","lon":2}`, nil, 400, "invalid", "lat: want a number, got string"},
		{"location off the map", "PUT", "/v1/locations/north", `{"name":"N","lat":1,"lon":-181}`, nil, 400, "invalid", "lon: must be between -180 and 180"},
		{"location with lat only", "PUT", "/v1/locations/north", `{"name":"N","lat":1}`, nil, 400, "invalid", "lat and lon: give both, or neither"},
		{"location with id in body", "PUT", "/v1/locations/north", `{"id":"south","name":"N","lat":1,"lon":2}`, nil, 400, "invalid", `unknown field "id"`},
		{"stock without on_hand", "PUT", "/v1/stock/widget/east", `{}`, nil, 400, "invalid", "on_hand: required"},
		{"negative on_hand", "PUT", "/v1/stock/widget/east", `{"on_hand":-1}`, nil, 400, "invalid", "on_hand: must be between 0 and 1000000000, got -1"},
		{"huge on_hand", "PUT", "/v1/stock/widget/east", `{"on_hand":1000000001}`, nil, 400, "invalid", "on_hand: must be between 0 and 1000000000, got 1000000001"},
		{"fractional on_hand", "PUT", "/v1/stock/widget/east", `{"on_hand":2.5}`, nil, 400, "invalid", "on_hand: want an integer"},
		{"negative expected_version", "PUT", "/v1/stock/widget/east", `{"on_hand":1,"expected_version":-1}`, nil, 400, "invalid", "expected_version: must not be negative"},
		{"stale expected_version", "PUT", "/v1/stock/widget/east", `{"on_hand":1,"expected_version":1}`, nil, 409, "version_conflict", "version"},
		{"stock at unknown location", "PUT", "/v1/stock/widget/mars", `{"on_hand":1}`, nil, 404, "not_found", "mars"},
		{"zero delta", "POST", "/v1/stock/widget/east/adjust", `{"delta":0,"reason":"x"}`, nil, 400, "invalid", "delta: must not be zero"},
		{"no reason", "POST", "/v1/stock/widget/east/adjust", `{"delta":1}`, nil, 400, "invalid", "reason: required"},
		{"empty reason", "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":""}`, nil, 400, "invalid", "reason: required"},
		{"huge delta", "POST", "/v1/stock/widget/east/adjust", `{"delta":-2000000000000,"reason":"x"}`, nil, 400, "invalid", "delta: must be between -1000000000 and 1000000000, got -2000000000000"},
		{"reason too long", "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"` + strings.Repeat("r", 1025) + `"}`, nil, 400, "invalid", "reason: longer than 1024 bytes, got 1025"},
		{"path id too long", "GET", "/v1/stock/" + long, nil, nil, 400, "invalid", "sku: longer than 128 bytes, got 300"},

		// Refusals of the service change nothing either.
		{"insufficient stock", "POST", "/v1/reservations", withLine(`{"sku":"widget","quantity":15}`), nil, 409, "insufficient_stock", "widget"},
		{"insufficient at location", "POST", "/v1/orders", withLine(`{"sku":"widget","quantity":6,"location":"west"}`), nil, 409, "insufficient_stock", "widget"},
		{"unknown sku", "POST", "/v1/reservations", withLine(`{"sku":"gadget","quantity":1}`), nil, 404, "not_found", "gadget"},
		{"confirm unknown", "POST", "/v1/reservations/res_none/confirm", nil, nil, 404, "not_found", "res_none"},
		{"confirm with a body", "POST", "/v1/reservations/" + held + "/confirm", `{"now":true}`, nil, 400, "invalid", `unknown field "now"`},
		{"adjust below zero", "POST", "/v1/stock/widget/east/adjust", `{"delta":-1000,"reason":"theft"}`, nil, 409, "insufficient_stock", "would be negative"},

		// Requests the resource's status does not allow.
		{"fulfill cancelled", "POST", "/v1/orders/" + ord + "/fulfill", nil, nil, 409, "invalid_state", "is cancelled, not committed"},
		{"cancel fulfilled", "POST", "/v1/orders/" + fulfilled + "/cancel", nil, nil, 409, "invalid_state", "is fulfilled, not committed"},
		{"confirm released", "POST", "/v1/reservations/" + released + "/confirm", nil, nil, 409, "invalid_state", "is released, not held"},
		{"release confirmed", "DELETE", "/v1/reservations/" + confirmed, nil, nil, 409, "invalid_state", "is confirmed (order " + strconv.Quote(fulfilled) + "), not held"},
		{"release unknown", "DELETE", "/v1/reservations/res_none", nil, nil, 404, "not_found", ""},
		{"unknown order", "GET", "/v1/orders/ord_none", nil, nil, 404, "not_found", ""},
		{"unknown stock", "GET", "/v1/stock/gadget", nil, nil, 404, "not_found", "gadget"},

		// The ledger's query.
		{"movements limit 0", "GET", "/v1/movements?limit=0", nil, nil, 400, "invalid", "limit: want an integer between 1 and 10000"},
		{"movements limit word", "GET", "/v1/movements?limit=all", nil, nil, 400, "invalid", "limit"},
		{"movements malformed cursor", "GET", "/v1/movements?cursor=2", nil, nil, 400, "invalid", "cursor: malformed"},
		{"movements empty cursor", "GET", "/v1/movements?cursor=", nil, nil, 400, "invalid", "cursor: must not be empty"},
		{"movements after_id", "GET", "/v1/movements?after_id=2", nil, nil, 400, "invalid", `unknown parameter "after_id"`},
		{"movements unknown parameter", "GET", "/v1/movements?kind=set", nil, nil, 400, "invalid", `unknown parameter "kind"`},
		{"movements sku twice", "GET", "/v1/movements?sku=a&sku=b", nil, nil, 400, "invalid", "sku given 2 times"},

		// Updates of metadata.
		{"update without keys", "PATCH", "/v1/orders/" + ord, `{"metadata":{}}`, nil, 400, "invalid", "metadata: name at least one key"},
		{"update without a body", "PATCH", "/v1/orders/" + ord, ``, nil, 400, "invalid", "body"},
		{"update of the status", "PATCH", "/v1/orders/" + ord, `{"metadata":{"a":"b"},"status":"cancelled"}`, nil, 400, "invalid", `body: unknown field "status"`},
		{"update with a bad key", "PATCH", "/v1/orders/" + ord, `{"metadata":{"a b":"x"}}`, nil, 400, "invalid", "want printable ASCII"},
		{"update with a number", "PATCH", "/v1/orders/" + ord, `{"metadata":{"a":1}}`, nil, 400, "invalid", "metadata"},
		{"update of a missing order", "PATCH", "/v1/orders/ord_none", `{"metadata":{"a":"b"}}`, nil, 404, "not_found", "ord_none"},

		// Routes.
		{"unknown route", "GET", "/v1/widgets", nil, nil, 404, "not_found", "no route for GET /v1/widgets"},
		{"wrong method", "PUT", "/v1/orders/" + ord, `{}`, nil, 405, "invalid", "method PUT not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := a.snapshot()
			r := a.do(tc.method, tc.path, tc.body, tc.header...)
			if r.status != tc.status {
				t.Fatalf("got %s, want status %d", r, tc.status)
			}
			p := r.problem(t)
			if p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %q %q, want code %q and detail containing %q", p.Code, p.Detail, tc.code, tc.detail)
			}
			if after := a.snapshot(); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	if got := a.do("GET", "/v1/reservations/"+held, nil); !strings.Contains(string(got.body), `"status":"held"`) {
		t.Errorf("the held reservation changed: %s", got)
	}
}

// TestIdempotentReplay: a repeated request with the same key gets the
// first success byte for byte and acts once; a refusal is not stored.
func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	body := `{"lines":[{"sku":"widget","quantity":3,"location":"east"}],"ttl_seconds":60}`
	first := a.must(201, "POST", "/v1/reservations", body, "Idempotency-Key: order-1")
	ledger := a.snapshot()
	a.clock.Advance(time.Second) // a new reservation would get another expires_at
	again := a.must(201, "POST", "/v1/reservations", body, "Idempotency-Key: order-1")
	if !bytes.Equal(first.body, again.body) {
		t.Errorf("replay differs:\nfirst %s\nagain %s", first.body, again.body)
	}
	if again.header.Get(headerReplayed) != "true" || first.header.Get(headerReplayed) != "" {
		t.Errorf("Idempotent-Replayed: first %q, replay %q", first.header.Get(headerReplayed), again.header.Get(headerReplayed))
	}
	if ct := again.header.Get("Content-Type"); ct != first.header.Get("Content-Type") {
		t.Errorf("replay Content-Type %q, first %q", ct, first.header.Get("Content-Type"))
	}
	if a.snapshot() != ledger {
		t.Error("the replay changed the stock or the ledger")
	}

	// The key belongs to that request: another body or route is refused.
	p := a.must(422, "POST", "/v1/reservations", strings.Replace(body, `"quantity":3`, `"quantity":4`, 1), "Idempotency-Key: order-1").problem(t)
	if p.Code != stockade.EIdempotencyMismatch {
		t.Errorf("other body under the key: %+v", p)
	}
	if p := a.must(422, "POST", "/v1/orders", body, "Idempotency-Key: order-1").problem(t); p.Code != stockade.EIdempotencyMismatch {
		t.Errorf("other route under the key: %+v", p)
	}

	// A refusal is not stored: once stock has arrived the same key
	// succeeds, and from then on replays its success.
	big := `{"lines":[{"sku":"widget","quantity":50}]}`
	a.must(409, "POST", "/v1/orders", big, "Idempotency-Key: order-2")
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":100}`)
	ordered := a.must(201, "POST", "/v1/orders", big, "Idempotency-Key: order-2")
	if ordered.header.Get(headerReplayed) != "" {
		t.Errorf("the order after the restock is marked replayed")
	}
	replayed := a.must(201, "POST", "/v1/orders", big, "Idempotency-Key: order-2")
	if !bytes.Equal(ordered.body, replayed.body) || replayed.header.Get(headerReplayed) != "true" {
		t.Errorf("order replay differs:\nfirst %s\nagain %s", ordered.body, replayed.body)
	}

	// Every mutating route takes a key.
	res := first.id(t)
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/v1/reservations/" + res + "/confirm", "", 200},
		{"PUT", "/v1/stock/widget/west", `{"on_hand":7}`, 200},
		{"POST", "/v1/stock/widget/west/adjust", `{"delta":2,"reason":"found"}`, 200},
		{"PUT", "/v1/locations/north", `{"name":"North","lat":60,"lon":10}`, 200},
	} {
		key := "Idempotency-Key: k " + c.method + " " + c.path
		var body any
		if c.body != "" {
			body = c.body
		}
		r1 := a.must(c.status, c.method, c.path, body, key)
		r2 := a.must(c.status, c.method, c.path, body, key)
		if !bytes.Equal(r1.body, r2.body) || r2.header.Get(headerReplayed) != "true" {
			t.Errorf("%s %s: replay %s, first %s", c.method, c.path, r2, r1)
		}
	}
	level := a.must(200, "GET", "/v1/stock/widget", nil)
	if !strings.Contains(string(level.body), `"location":"west","on_hand":9`) {
		t.Errorf("west should be 7 set once and 2 added once: %s", level.body)
	}
}

// TestExpiredReservationIsGone: confirming after the TTL is 410.
func TestExpiredReservationIsGone(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	res := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":4}],"ttl_seconds":60}`).id(t)
	a.clock.Advance(61 * time.Second)
	if p := a.must(410, "POST", "/v1/reservations/"+res+"/confirm", nil).problem(t); p.Code != stockade.EReservationExpired {
		t.Errorf("confirm after expiry: %+v", p)
	}
	r := a.must(200, "GET", "/v1/reservations/"+res, nil)
	if !strings.Contains(string(r.body), `"status":"expired"`) {
		t.Errorf("reservation after expiry: %s", r)
	}
	stock := a.must(200, "GET", "/v1/stock/widget", nil)
	if !strings.Contains(string(stock.body), `"totals":{"on_hand":15,"reserved":0,"committed":0,"available":15}`) {
		t.Errorf("stock not back after expiry: %s", stock)
	}
}

// blocking is a service whose Stock waits for its context to end.
type blocking struct{ stockade.Service }

func (blocking) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	<-ctx.Done()
	return stockade.Stock{}, fmt.Errorf("stock %s: %w", sku, ctx.Err())
}

// failing is a service whose Order fails with a cause callers must not see.
type failing struct{ stockade.Service }

func (failing) Order(ctx context.Context, id string) (stockade.Order, error) {
	return stockade.Order{}, errors.New("query orders: password=hunter2 rejected")
}

func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{
		server: &Options{RequestTimeout: 50 * time.Millisecond},
		wrap:   func(s stockade.Service) stockade.Service { return blocking{s} },
	})
	p := a.must(503, "GET", "/v1/stock/widget", nil).problem(t)
	if p.Code != stockade.EUnavailable || p.Detail != "the request did not finish in time" {
		t.Errorf("timeout answered %+v", p)
	}
	if n := strings.Count(a.logs.String(), "request timed out"); n != 1 {
		t.Errorf("timeout logged %d times:\n%s", n, a.logs)
	}
}

func TestInternalErrorsAreHiddenAndLoggedOnce(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{wrap: func(s stockade.Service) stockade.Service { return failing{s} }})
	r := a.must(500, "GET", "/v1/orders/ord_x", nil)
	if p := r.problem(t); p.Code != stockade.EInternal || p.Detail != "internal error" {
		t.Errorf("problem %+v", p)
	}
	if strings.Contains(string(r.body), "hunter2") {
		t.Errorf("cause leaked to the client: %s", r.body)
	}
	if n := strings.Count(a.logs.String(), "hunter2"); n != 1 {
		t.Errorf("cause logged %d times, want once:\n%s", n, a.logs)
	}
}

func TestRequestsAreLogged(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.must(404, "GET", "/v1/stock/widget", nil)
	line := `msg=request method=GET route=/v1/stock/{sku} path=/v1/stock/widget status=404 duration=`
	if !strings.Contains(a.logs.String(), line) {
		t.Errorf("no line %q in\n%s", line, a.logs)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`)
	a.must(409, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":100}]}`)
	a.must(400, "POST", "/v1/orders", `{}`)
	a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, "Idempotency-Key: m-1")
	a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, "Idempotency-Key: m-1")
	a.must(404, "GET", "/nowhere", nil)
	r := a.must(200, "GET", "/metrics", nil)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4; charset=utf-8") {
		t.Errorf("Content-Type %q", ct)
	}
	for _, want := range []string{
		`stockade_http_requests_total{method="PUT",route="/v1/stock/{sku}/{location}",status="200"} 2`,
		`stockade_http_requests_total{method="POST",route="/v1/reservations",status="201"} 1`,
		`stockade_http_requests_total{method="POST",route="/v1/reservations",status="409"} 1`,
		`stockade_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`stockade_reservations_total{op="reserve",outcome="ok"} 1`,
		`stockade_reservations_total{op="reserve",outcome="insufficient_stock"} 1`,
		`stockade_reservations_total{op="checkout",outcome="invalid"} 1`,
		`stockade_reservations_total{op="checkout",outcome="ok"} 1`,
		`stockade_reservations_total{op="checkout",outcome="replayed"} 1`,
		`# TYPE stockade_http_request_duration_seconds histogram`,
		`stockade_http_request_duration_seconds_bucket{method="POST",route="/v1/reservations",le="+Inf"} 2`,
		`stockade_http_request_duration_seconds_count{method="POST",route="/v1/reservations"} 2`,
		`stockade_http_requests_in_flight 1`, // this request
	} {
		if !strings.Contains(string(r.body), want+"\n") {
			t.Errorf("no line %q in\n%s", want, r.body)
		}
	}
}

func TestUnknownRoutesAreProblems(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	r := a.must(405, "DELETE", "/v1/stock/widget", nil)
	if allow := r.header.Get("Allow"); allow != "GET, HEAD" {
		t.Errorf("Allow %q", allow)
	}
	if p := r.problem(t); p.Code != stockade.EInvalid {
		t.Errorf("405 problem %+v", p)
	}
	if p := a.must(404, "GET", "/v2/stock/widget", nil).problem(t); p.Code != stockade.ENotFound {
		t.Errorf("404 problem %+v", p)
	}
	if r := a.must(200, "HEAD", "/healthz", nil); len(r.body) != 0 {
		t.Errorf("HEAD answered a body: %q", r.body)
	}
}

// TestStatusTable: every code maps to its documented status, anything
// else is a 500 that says nothing of its cause.
func TestStatusTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		wantStatus int
		wantCode   string
		wantDetail string
	}{
		{stockade.Errorf(stockade.EInvalid, "lines: required"), 400, "invalid", "lines: required"},
		{stockade.Errorf(stockade.ENotFound, "no such order"), 404, "not_found", "no such order"},
		{stockade.Errorf(stockade.EInsufficientStock, "3 available"), 409, "insufficient_stock", "3 available"},
		{stockade.Errorf(stockade.EVersionConflict, "at version 4"), 409, "version_conflict", "at version 4"},
		{stockade.Errorf(stockade.EInvalidState, "order is fulfilled"), 409, "invalid_state", "order is fulfilled"},
		{stockade.Errorf(stockade.EReservationExpired, "expired"), 410, "reservation_expired", "expired"},
		{stockade.Errorf(stockade.EIdempotencyMismatch, "other request"), 422, "idempotency_mismatch", "other request"},
		{stockade.Errorf(stockade.EAdmissionRequired, "join room r"), 403, "admission_required", "join room r"},
		{stockade.Errorf(stockade.EAdmissionInvalid, "token expired"), 403, "admission_invalid", "token expired"},
		{stockade.Errorf(stockade.EUnavailable, "try again"), 503, "unavailable", "try again"},
		{fmt.Errorf("wrapped: %w", stockade.Errorf(stockade.ENotFound, "x")), 404, "not_found", "x"},
		{fmt.Errorf("reserve: %w", context.DeadlineExceeded), 503, "unavailable", "the request did not finish in time"},
		{errors.New("disk on fire"), 500, "internal", "internal error"},
		{stockade.Errorf(stockade.EInternal, "secret detail"), 500, "internal", "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.err.Error(), func(t *testing.T) {
			status, body := problemOf(tc.err)
			r := response{status: status, header: http.Header{"Content-Type": {contentProblem}}, body: body}
			p := r.problem(t)
			if status != tc.wantStatus || p.Code != tc.wantCode || p.Detail != tc.wantDetail {
				t.Errorf("got %d %+v, want %d %s %q", status, p, tc.wantStatus, tc.wantCode, tc.wantDetail)
			}
		})
	}
}

// TestConcurrentReservationsNeverOversell: 40 clients race for 15 units
// over HTTP; exactly 15 get one, every other is refused for stock (never
// "busy"), and the ledger balances.
func TestConcurrentReservationsNeverOversell(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	const clients = 40
	codes := make(chan string, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			idem := &stockade.Idempotency{Key: fmt.Sprintf("client-%d", i)}
			_, err := a.client.Reserve(sys(t), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, idem)
			codes <- stockade.ErrorCode(err)
		})
	}
	wg.Wait()
	close(codes)
	got := map[string]int{}
	for c := range codes {
		got[c]++
	}
	if got[""] != 15 || got[stockade.EInsufficientStock] != clients-15 {
		t.Errorf("outcomes %v, want 15 ok and %d insufficient_stock", got, clients-15)
	}
	rep, err := a.eng.Reconcile(sys(t))
	if err != nil || !rep.OK {
		t.Errorf("reconcile: %+v, %v", rep, err)
	}
}
