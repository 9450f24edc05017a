// Package httpapi serves stockade's HTTP API: JSON in and out, errors as
// RFC 9457 problem+json documents carrying a stable code. It adapts one
// dependency, HTTP, to a stockade.Service; it holds no state of its own
// beyond its metrics.
//
//	eng, err := engine.New(store, nil)           // a stockade.Service
//	api := httpapi.NewServer(eng, log, nil, store) // /readyz pings the store
//	srv := &http.Server{Addr: ":8080", Handler: api}
//	err = srv.ListenAndServe()
//
//	c := httpapi.NewClient("http://localhost:8080", nil) // a stockade.Service too
//	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}})
//	if stockade.ErrorCode(err) == stockade.EInsufficientStock { … }
//
// routes.go lists every route on one page, with the shape of its body
// and answer; types.go spells out the JSON documents; errors.go holds the
// one table that maps stockade error codes to HTTP statuses.
//
// # Input
//
// A request is checked before it reaches the service, and refused with a
// 4xx problem whose detail names the field ("lines[2].quantity: must be
// between 1 and …") and which changes nothing: malformed JSON, trailing
// data, unknown fields, wrong types, missing required fields (a field
// given as null counts as missing), quantities that are not positive or
// absurdly large, identifiers that are empty, too long or hold control
// characters, unknown query parameters. A body larger than
// Options.MaxBodyBytes is 413 and one whose Content-Type is not JSON is
// 415, both with code "invalid"; a missing Content-Type is taken as JSON.
// The service checks the domain's rules again, and its limits (an
// identifier's length, a reservation's longest TTL) are tighter than the
// ones here, so its refusals, also 4xx, explain those.
//
// # Idempotency
//
// Every mutating request takes an Idempotency-Key header (1 to 255
// printable ASCII characters). The service then stores the response with
// the key, in the transaction of the effect, and answers a repeated
// request, one with the same method, path and body byte for byte, with
// that response: the same status and the same bytes, marked
// Idempotent-Replayed: true. Refusals are stored and replayed too. The
// same key with another request is 422 idempotency_mismatch; a repeat
// while the first is still running is 409 idempotency_in_flight.
// idempotency.go describes how the response is rendered.
//
// # Time
//
// Each request runs under a deadline of Options.RequestTimeout: lock
// waits and retries inside the service end with it, and the answer is
// then 503 with code "unavailable". A client may retry that, with the
// same Idempotency-Key to be safe.
//
// # Operations
//
// GET /healthz answers while the process does, GET /readyz while every
// Pinger given to NewServer answers too, and GET /metrics serves the
// Metrics registry in the Prometheus text format: requests by method,
// route and status, latency histograms by route, requests in flight, and
// reservations and checkouts by outcome. The binary adds its own metrics
// (engine calls, lock waits and holds, the sweeper) to the same registry.
//
// Each request is logged in one line (method, route, path, status,
// duration) at Options.RequestLogLevel. An internal error is logged once,
// with its cause, and answered as a bare 500 "internal error".
package httpapi
