package httpapi

import (
	"testing"
)

// TestOrderVersions: an order's version is its ETag; a cancel or a
// fulfilment at another version (If-Match or expected_version) is 409
// version_conflict and changes nothing, one at its version goes through
// and answers the next ETag; malformed or disagreeing preconditions are
// 400; an Idempotency-Key sent again with another precondition is 422.
func TestOrderVersions(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	checkout := func() string {
		t.Helper()
		return a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`).id(t)
	}
	id := checkout()
	if got := a.must(200, "GET", "/v1/orders/"+id, nil).header.Get("ETag"); got != `"1"` {
		t.Fatalf("ETag of a new order %q, want \"1\"", got)
	}
	before := a.snapshot()
	for _, tc := range []struct {
		name   string
		body   any
		header []string
		status int
		code   string
	}{
		{"If-Match at another version", nil, []string{`If-Match: "2"`}, 409, "version_conflict"},
		{"expected_version at another version", `{"expected_version":2}`, nil, 409, "version_conflict"},
		{"If-Match unquoted", nil, []string{`If-Match: 1`}, 400, "invalid"},
		{"If-Match any", nil, []string{`If-Match: *`}, 400, "invalid"},
		{"If-Match weak", nil, []string{`If-Match: W/"1"`}, 400, "invalid"},
		{"If-Match two tags", nil, []string{`If-Match: "1", "2"`}, 400, "invalid"},
		{"If-Match and the body disagree", `{"expected_version":1}`, []string{`If-Match: "3"`}, 400, "invalid"},
		{"expected_version zero", `{"expected_version":0}`, nil, 400, "invalid"},
		{"unknown field", `{"version":1}`, nil, 400, "invalid"},
	} {
		r := a.must(tc.status, "POST", "/v1/orders/"+id+"/cancel", tc.body, tc.header...)
		if p := r.problem(t); p.Code != tc.code {
			t.Errorf("%s: %s, want %s", tc.name, r, tc.code)
		}
	}
	if a.snapshot() != before {
		t.Fatal("a refused change of the order changed the stock or the ledger")
	}

	r := a.must(200, "POST", "/v1/orders/"+id+"/cancel", nil, `If-Match: "1"`, "Idempotency-Key: cancel-1")
	if got := r.header.Get("ETag"); got != `"2"` {
		t.Errorf("ETag after the cancel %q, want \"2\"", got)
	}
	a.must(200, "POST", "/v1/orders/"+id+"/cancel", nil, `If-Match: "1"`, "Idempotency-Key: cancel-1") // the same request again
	if p := a.must(422, "POST", "/v1/orders/"+id+"/cancel", nil, `If-Match: "2"`, "Idempotency-Key: cancel-1").problem(t); p.Code != "idempotency_mismatch" {
		t.Errorf("the key again with another If-Match: %+v", p)
	}
	// Cancelled already: the cancel is made, whatever the version says.
	a.must(200, "POST", "/v1/orders/"+id+"/cancel", `{"expected_version":1}`)
	if p := a.must(409, "POST", "/v1/orders/"+id+"/fulfill", `{"expected_version":2}`).problem(t); p.Code != "invalid_state" {
		t.Errorf("fulfil a cancelled order at its version: %+v", p)
	}

	id = checkout()
	v := int64(1)
	o, err := a.client.FulfillOrder(t.Context(), id, &v, nil)
	if err != nil || o.Version != 2 {
		t.Fatalf("the client's fulfilment at version 1: %+v, %v", o, err)
	}
}
