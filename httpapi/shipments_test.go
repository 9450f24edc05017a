package httpapi

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// TestShipmentsOverHTTP: a shipment of part of an order is 201 with the
// shipment; bad input, too many units, a SKU the order has not and a
// stale precondition are refused with a clear 4xx and change nothing; an
// Idempotency-Key replays it; the list and the Client read it back.
func TestShipmentsOverHTTP(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	id := a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":3,"location":"east"}]}`).id(t)
	path := "/v1/orders/" + id + "/shipments"
	before := a.snapshot()
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   any
		header []string
		status int
		code   string
		detail string
	}{
		{"more than is left", "POST", path, `{"lines":[{"sku":"widget","quantity":4}]}`, nil, 409, "invalid_state", "3 of widget left to ship, not 4"},
		{"a SKU the order has not", "POST", path, `{"lines":[{"sku":"gadget","quantity":1}]}`, nil, 400, "invalid", "has no gadget"},
		{"a location the order has not", "POST", path, `{"lines":[{"sku":"widget","quantity":1,"location":"west"}]}`, nil, 400, "invalid", "has no widget at west"},
		{"no body", "POST", path, nil, nil, 400, "invalid", "body: empty"},
		{"no lines", "POST", path, `{"metadata":{"a":"b"}}`, nil, 400, "invalid", "lines: required"},
		{"empty lines", "POST", path, `{"lines":[]}`, nil, 400, "invalid", "lines: must not be empty"},
		{"quantity a string", "POST", path, `{"lines":[{"sku":"widget","quantity":"1"}]}`, nil, 400, "invalid", "lines[0].quantity"},
		{"unknown field", "POST", path, `{"lines":[{"sku":"widget","quantity":1}],"carrier":"ups"}`, nil, 400, "invalid", `unknown field "carrier"`},
		{"bad metadata", "POST", path, `{"lines":[{"sku":"widget","quantity":1}],"metadata":{"":"x"}}`, nil, 400, "invalid", "metadata"},
		{"If-Match at another version", "POST", path, `{"lines":[{"sku":"widget","quantity":1}]}`, []string{`If-Match: "2"`}, 409, "version_conflict", "at version 1"},
		{"expected_version at another", "POST", path, `{"lines":[{"sku":"widget","quantity":1}],"expected_version":2}`, nil, 409, "version_conflict", "at version 1"},
		{"If-Match malformed", "POST", path, `{"lines":[{"sku":"widget","quantity":1}]}`, []string{`If-Match: 1`}, 400, "invalid", "If-Match"},
		{"a query", "POST", path + "?dry=1", `{"lines":[{"sku":"widget","quantity":1}]}`, nil, 400, "invalid", "takes no query parameters"},
		{"an unknown order", "POST", "/v1/orders/ord_none/shipments", `{"lines":[{"sku":"widget","quantity":1}]}`, nil, 404, "not_found", "ord_none"},
		{"list an unknown order", "GET", "/v1/orders/ord_none/shipments", nil, nil, 404, "not_found", "ord_none"},
		{"list with an unknown parameter", "GET", path + "?status=x", nil, nil, 400, "invalid", `unknown parameter "status"`},
		{"list with a bad cursor", "GET", path + "?cursor=abc", nil, nil, 400, "invalid", "cursor"},
		{"list with a bad limit", "GET", path + "?limit=0", nil, nil, 400, "invalid", "limit"},
	} {
		r := a.must(tc.status, tc.method, tc.path, tc.body, tc.header...)
		if p := r.problem(t); p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: %+v, want %s saying %q", tc.name, p, tc.code, tc.detail)
		}
	}
	if a.snapshot() != before {
		t.Fatal("a refused shipment changed the stock or the ledger")
	}
	if r := a.must(200, "GET", path, nil); !strings.Contains(string(r.body), `"shipments":[]`) {
		t.Errorf("shipments of an order that shipped nothing: %s", r.body)
	}

	body := `{"lines":[{"sku":"widget","quantity":1}],"metadata":{"tracking":"1Z999"}}`
	first := a.must(201, "POST", path, body, `If-Match: "1"`, "Idempotency-Key: ship-1")
	again := a.must(201, "POST", path, body, `If-Match: "1"`, "Idempotency-Key: ship-1")
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, first.body) {
		t.Errorf("the shipment again: %s, want the first answer replayed", again)
	}
	if p := a.must(422, "POST", path, `{"lines":[{"sku":"widget","quantity":2}]}`, "Idempotency-Key: ship-1").problem(t); p.Code != "idempotency_mismatch" {
		t.Errorf("the key again with another body: %+v", p)
	}
	if got := a.must(200, "GET", "/v1/orders/"+id, nil).header.Get("ETag"); got != `"2"` {
		t.Errorf("ETag after one shipment %q, want \"2\"", got)
	}

	// The Client: a shipment at the version the last one reached, then
	// the list, newest first, and the order's shipped units.
	ctx := t.Context()
	s, err := a.client.ShipOrder(ctx, id, stockade.NewShipment{Lines: []stockade.Line{{SKU: "widget", Quantity: 1, Location: "east"}}}, &[]int64{2}[0], nil)
	if err != nil || s.OrderVersion != 3 || !reflect.DeepEqual(s.Lines, []stockade.Allocation{{SKU: "widget", Location: "east", Quantity: 1}}) {
		t.Fatalf("the client's shipment: %+v, %v", s, err)
	}
	page, err := a.client.Shipments(ctx, id, stockade.ShipmentQuery{Limit: 1})
	if err != nil || len(page.Shipments) != 1 || page.Next == "" {
		t.Fatalf("the client's first page: %+v, %v", page, err)
	}
	rest, err := a.client.Shipments(ctx, id, stockade.ShipmentQuery{Cursor: page.Next})
	if err != nil || len(rest.Shipments) != 1 || rest.Next != "" {
		t.Fatalf("the client's second page: %+v, %v", rest, err)
	}
	ids := map[string]bool{page.Shipments[0].ID: true, rest.Shipments[0].ID: true}
	if !ids[s.ID] || len(ids) != 2 {
		t.Errorf("listed %v, want the two shipments", ids)
	}
	o, err := a.client.Order(ctx, id)
	if err != nil || o.Status != stockade.Committed || !reflect.DeepEqual(o.Shipped, []stockade.Allocation{{SKU: "widget", Location: "east", Quantity: 2}}) {
		t.Errorf("the order after two shipments: %+v, %v", o, err)
	}
	if o, err = a.client.FulfillOrder(ctx, id, nil, nil); err != nil || o.Status != stockade.Fulfilled || o.Version != 4 {
		t.Errorf("fulfil the rest: %+v, %v", o, err)
	}
	if p := a.must(409, "POST", path, `{"lines":[{"sku":"widget","quantity":1}]}`).problem(t); p.Code != "invalid_state" || !strings.Contains(p.Detail, "fulfilled") {
		t.Errorf("ship a fulfilled order: %+v", p)
	}
}
