// Package httpapi serves stockade's HTTP API: JSON in and out, errors as
// RFC 9457 problem+json documents carrying a stable code. It adapts one
// dependency, HTTP, to a stockade.Service, the whole service: its stock,
// the seats of shows, the payments of what it sells and the API keys;
// and shows what a lock.Inspector sees of the locks. It holds no state of
// its own beyond its metrics.
//
//	eng, err := engine.New(store, nil) // a stockade.Service
//	api := httpapi.NewServer(eng, log, &httpapi.Options{WebhookSecrets: [][]byte{webhookSecret}},
//		store) // /readyz pings the store
//	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: api}
//	err = srv.ListenAndServe()
//
//	_, secret, err := eng.CreateKey(ctx, stockade.NewKeyRequest{Name: "shop", Role: stockade.RoleStorefront})
//	c := httpapi.NewClient("http://localhost:8080", nil).WithKey(secret) // a StockService, BookingService and PaymentService too
//	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}}, nil)
//	if stockade.ErrorCode(err) == stockade.EInsufficientStock { … }
//
// routes.go lists every route on one page, with the roles that may call
// it and the shape of its body and answer; the file of each aggregate
// (see Files) spells out its JSON documents; errors.go holds the one
// table that maps stockade error codes to HTTP statuses; openapi.json
// describes it all in OpenAPI 3.1, served at GET /openapi.json, and the
// tests hold the code to it. Standard generators take the document as it
// is: scripts/test lints it with Spectral (the ruleset of openapi-tools/)
// and generates Go types and a client from it with oapi-codegen, and
// TypeScript types with openapi-typescript, and compiles both.
//
// # Files
//
// The file of an aggregate holds all of it: its routes' request bodies
// and queries, the JSON documents they answer, the handlers, and the
// Client's calls of them.
//
//	stock.go     locations, stock levels and the ledger: /v1/locations, /v1/stock, /v1/movements
//	orders.go    reservations and orders: /v1/reservations, /v1/orders
//	shows.go     shows, their seats and seat history, holds and bookings: /v1/shows, /v1/holds, /v1/bookings
//	payments.go  payments, their outcomes and the webhook's route: /v1/payments
//	keys.go      API keys: /v1/keys
//	webhooks.go  outbound webhook endpoints and their deliveries: /v1/webhook-endpoints
//	rooms.go     waiting rooms, their visitors and tickets, and the admission holds carry: /v1/rooms
//	events.go    the feed of domain events and its stream: /v1/events
//	locks.go     the lock inspector's view: /v1/locks
//
// The rest is shared by all of them:
//
//	routes.go       every route on one page, with the roles that may call it
//	server.go       Options, NewServer and ServeHTTP: request ids, deadlines, the log line, /healthz, /readyz
//	auth.go         API keys on requests: roles, the key cache, rate limits
//	webhook.go      the payment webhook's signature: SignWebhook and VerifyWebhook
//	decode.go       reading a request: strict JSON, query parameters, ids in the path
//	views.go        what the JSON documents share: times, lists
//	idempotency.go  Idempotency-Key, and call, through which every handler reaches the service
//	errors.go       the code-to-status table, problem documents, writing JSON
//	metrics.go      the Prometheus metrics and /metrics
//	overdue.go      the warning about a request past its deadline
//	openapi.go      openapi.json, served at /openapi.json
//	client.go       the Client's transport: requests, answers, errors
//
// # Access
//
// Every /v1 route needs an API key, "Authorization: Bearer <secret>",
// checked by the service (stockade.KeyService), whose role (admin,
// storefront or reader; see stockade.Role) the route's entry in the route
// table allows. A missing, malformed, unknown or revoked key is 401
// "unauthenticated", with a WWW-Authenticate challenge; a role that may
// not call the route is 403 "forbidden"; a key over its token bucket
// (Options.RateLimit and RateBurst, or the key's own rate) is 429
// "rate_limited" with Retry-After. These refusals come before the body is
// read, and change nothing. The call then reaches the service as the
// key's stockade.Actor: a storefront key finds only the reservations,
// orders, holds, bookings and payments it created (another's answers 404,
// word for word as a missing one), its Idempotency-Keys are its own, and
// ledger rows name the key. A server with Options.Open lets requests
// without a key in as the service itself, with every role and no rate
// limit; a request with a key is checked all the same. GET /healthz,
// /readyz, /metrics and /openapi.json are public; POST
// /v1/payments/webhook needs no key either, but a signature (see The
// payment webhook, below).
//
// # Input
//
// A request is checked in two steps, and a refusal changes nothing. Here,
// its wire format: malformed JSON, trailing data, unknown keys, a key
// given twice, a key spelled in another case ("Lines" for "lines"), a
// value of the wrong type, a required field missing (null counts as
// missing), an unknown query parameter. A body larger than
// Options.MaxBodyBytes is 413 and one whose Content-Type is not JSON is
// 415, both with code "invalid"; a missing Content-Type is taken as JSON.
// Then the service checks the values against the domain's limits, the
// only ones there are (stockade.MaxIDLength, MaxTextLength, MaxLines,
// MaxQuantity, MaxTTL, and for shows MaxSeatRows, MaxSeats, MaxAreas,
// MaxSeatNumber, MaxSeatCoordinate, MaxHoldSeats):
//
//	SKU, location, reservation and order id   1 to 128 bytes of UTF-8, no control characters
//	Idempotency-Key                            1 to 128 characters of printable ASCII
//	name (location), reason (adjustment)       at most 1024 bytes, no control characters; a reason at least 1
//	lines                                      1 to 100
//	lines[].quantity                           1 to 1000000000
//	on_hand                                    0 to 1000000000
//	delta                                      -1000000000 to 1000000000, not 0
//	ttl_seconds                                1 to 86400 (24 hours); left out, the service's default
//	lat, lon                                   -90 to 90, -180 to 180
//
// and for shows and holds:
//
//	show id, section, row                      an id as above, without '/'
//	name (show)                                1 to 1024 bytes, no control characters
//	rows, areas                                0 to 10000 and 0 to 100, not both 0; at most 100000 seats
//	first, last, seat numbers in a row         0 to 1000000, first ≤ last; listed seats within the row
//	x, y (focal, start); step                  -1000000 to 1000000; 0 to 1000000
//	areas[].capacity                           1 to 1000000000
//	seats, best_available, general_admission   at least one; 100 seats and places in all
//	best_available[].quantity, …quantity       1 to 100
//	ttl_seconds (hold, extension)              1 to the longest hold, 7200 (2 hours) by default
//
// and for payments:
//
//	target.kind                                reservation, hold or order
//	amount                                     1 to 10^15, in the currency's minor units (cents)
//	currency                                   three capital letters (ISO 4217), such as EUR
//	event_id, payment_id                       an id as above
//	status (an outcome)                        any payment status but pending
//	reason (a cancel, an outcome)              at most 1024 bytes, no control characters
//
// Where an optional id is given (a category, the section of
// best_available) it must not be empty: the domain reads "" as none.
//
// Either way the answer is 400 "invalid" with a detail that names the
// field and states the limit: "lines[2].quantity: must be between 1 and
// 1000000000, got 0".
//
// A well-formed request that the resource's current status does not allow
// (confirming a released reservation or hold, cancelling a fulfilled
// order) is 409 "invalid_state", its detail naming the status; confirming
// an expired reservation is 410 "reservation_expired", an expired hold
// 410 "hold_expired".
//
// # Shows
//
// A show (stockade.Show) is a concert or match with seats to sell; GET
// /v1/events is the feed of domain events, the only thing "event" names. PUT
// /v1/shows/{id} gives a show's whole map, rows of numbered seats
// (section, row, first to last, the seats' category, accessible and
// blocked seats, aisles, positions) and general-admission areas, and
// answers it as stored; the id is the path's (one in the body is refused,
// as for locations). Seats the new map drops or changes must be free or
// blocked, and an area that goes must have no places taken, or the map is
// 409 "invalid_state" naming them. GET /v1/shows/{id} adds how many seats
// are in each status by section and category, GET /v1/shows/{id}/seats
// lists the seats, and GET /v1/shows/{id}/history their history (below).
//
// POST /v1/shows/{id}/holds holds, all or nothing, named seats (each
// must be free: 409 "seats_unavailable" names those that are not),
// best-available seats (side by side in one row, nearest the focal
// point, leaving no single seat stranded; then side by side even so; then
// apart, if allow_split) and general-admission places, for ttl_seconds or
// the service's default (15 minutes): 201 with the hold. What no free
// seats or places can meet is 409 "sold_out", its detail saying which.
// POST /v1/holds/{id}/extend moves a held hold's expiry to ttl_seconds
// from now, within the longest hold from its creation (past it, 400).
// POST /v1/holds/{id}/confirm books the hold and answers the booking,
// 200 as a reservation's confirmation does, and the same booking again
// if the hold is already confirmed; DELETE /v1/holds/{id} releases it,
// and POST /v1/bookings/{id}/cancel gives a booking's seats back, each
// answering the resource as it was if there is nothing left to do. A
// hold lapses at its expiry: GET /v1/holds/{id} reads it expired from
// then on, and its seats come back at the next change that touches it,
// the next hold on its show, or the sweeper.
//
// # Payments
//
// stockade moves no money: a payment records what a payment system
// reports of the payment of one reservation, hold or order, so that what
// it pays for is confirmed when it succeeds and given back when it fails.
// POST /v1/payments records the pending payment of a held reservation or
// hold, or a committed order: {"target": {"kind": "reservation", "id":
// "res_…"}, "amount": 1250, "currency": "EUR"}, 201. A target has one
// payment at most: a second is 409 "payment_exists", naming the first. The
// client then sends its buyer to the payment system, which reports the
// payment's outcomes to the webhook (below), at least once each and in any
// order, each under an event id of its own.
//
// Each outcome is applied once, by its event id. The statuses and the
// moves between them are stockade.PaymentTransitions, modelled on Stripe's
// PaymentIntent. The first outcome that settles the payment (succeeded,
// captured) confirms its reservation into an order or its hold into a
// booking, in the same transaction (order_id, booking_id; resolution
// "confirmed"); the first that fails or cancels it releases them, or
// cancels the order (resolution "released"). An outcome delivered again,
// or one the payment is already past (processing after succeeded), changes
// nothing and answers 200 with the payment as it is; one the table leads
// to in several moves (a refunded that overtook its succeeded) moves the
// payment there; one that contradicts what came before (failed after succeeded)
// is 409 "invalid_state", its detail naming the payment's status, and is
// not recorded.
//
// While a payment is processing or authorized, its reservation or hold
// does not expire: past the engine's grace period the payment is marked
// stuck (stuck_at; GET /v1/payments?stuck=true lists those not resolved
// since) and its target kept, for a person or a late outcome to settle. A
// payment that settles after its target lapsed takes the same stock or
// seats again (resolution "reordered"), or, if they are gone, is marked
// "needs_refund": nothing is sold twice.
//
// POST /v1/payments/{id}/cancel, with an optional {"reason": …}, cancels
// a pending or authorized payment and gives back what it pays for; any
// other status is 409 "invalid_state". POST /v1/payments/{id}/outcomes,
// {"event_id", "status", "reason"?}, lets an admin key report an outcome
// by hand, recorded in the history under the key's name. GET
// /v1/payments/{id}/history lists every change of a payment, oldest first;
// GET /v1/payments lists payments newest first, filtered by ?status=,
// ?stuck=true and ?resolution= (one of the resolutions, or "unresolved"),
// paged as the reservations are. The events payment.created,
// payment.moved, payment.resolved and payment.stuck carry the payment as
// GET /v1/payments/{id} shows it.
//
// # The payment webhook
//
// A payment system posts each outcome, {"event_id", "payment_id",
// "status", "reason"?}, to POST /v1/payments/webhook, with no API key but
// a header that signs the body with a secret the server shares with it
// (Options.WebhookSecrets):
//
//	Stockade-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">
//
// The request passes if a v1 entry matches the body, byte for byte, with
// one of the server's secrets (compared in constant time), and t is within
// Options.WebhookTolerance (5 minutes) of the server's clock, either way.
// Otherwise it is 401 "unauthenticated", its detail saying why: the header
// is missing or malformed, no signature matches, or it is stale. Signing
// the time keeps a captured request from being replayed later; within the
// tolerance a replay changes nothing, since each event id is applied once.
// Several v1 entries, and several secrets on the server, let a secret be
// rotated: give the server the new secret beside the old, move the payment
// system to it, then drop the old one. Entries other than t and v1 are
// ignored. A server with no secret answers the webhook 404 "not_found".
// The body is read up to Options.MaxBodyBytes, and the outcome is recorded
// as the webhook's.
//
// A payment system written in Go signs with SignWebhook, or posts with
// Client.Webhook:
//
//	body, err := json.Marshal(stockade.PaymentOutcome{EventID: "evt_81", PaymentID: id, Status: stockade.PaymentSucceeded})
//	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments/webhook", bytes.NewReader(body))
//	req.Header.Set("Stockade-Signature", httpapi.SignWebhook(secret, body, time.Now()))
//
// and one written in anything else computes the same HMAC:
//
//	t=$(date +%s)
//	v1=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$secret" | sed 's/^.* //')
//	curl -H "Stockade-Signature: t=$t,v1=$v1" -H 'Content-Type: application/json' --data-binary "$body" "$base/v1/payments/webhook"
//
// # Metadata
//
// A reservation, a checkout, a hold and a payment take "metadata", the
// shop's own flat object of strings (stockade.Metadata has its limits);
// an order or a booking confirmed from one takes its metadata. Lists
// filter on it with ?metadata[KEY]=VALUE, once per key. PATCH
// /v1/reservations/{id}, /v1/orders/{id}, /v1/holds/{id},
// /v1/bookings/{id} and /v1/payments/{id}, {"metadata": {…}}, merge into
// it in any status: a value sets a key, "" removes it (null is 400), keys
// left out stay; the status and version stay as they are, and the
// aggregate's *.updated event carries the result.
//
// # Idempotency
//
// Every mutating request takes an Idempotency-Key header (1 to 128
// printable ASCII characters). The service stores the result of the first
// request with the key that succeeds, in the transaction of its effect,
// and answers a repeated request, one with the same method, path and body
// byte for byte, with it: the same status and the same bytes, marked
// Idempotent-Replayed: true, for 24 hours. A repeat that arrives while
// the first is still running waits for it and gets its answer. A refusal
// (4xx) is not stored: it changed nothing, and the same key may be sent
// again once the cause is gone (an order refused for lack of stock goes
// through after a restock). A request that failed with 503 either
// committed, and its retry gets the stored answer, or did not, and its
// retry runs afresh. The same key with another request is 422
// idempotency_mismatch. Revoking a key, and reporting a payment's outcome
// (by hand or by the webhook), are idempotent by themselves, an outcome by
// its event id: their Idempotency-Key is checked, and nothing is stored
// under it.
//
// # Lists
//
// GET /v1/movements, the ledger, answers a page of rows, oldest first: at
// most ?limit= of them (1 to 10000, 1000 if left out), and "next_cursor",
// an opaque string (unpadded base64url), when more rows matched. Send it
// back as ?cursor= for the next page; the last page has no next_cursor.
// A cursor that the service did not give out is 400 "invalid". Following the cursors reads
// each row once, in order; stockade.MovementPage says when a row that
// commits late, while others are being written, can fall behind a cursor
// already given out.
//
// GET /v1/shows/{id}/seats lists a show's seats in seat order (section,
// row, place in the row), filtered by ?status= (free, held, booked,
// blocked) and ?section=, in pages of ?limit= (1 to 10000, 1000 if left
// out), with next_cursor as above.
//
// GET /v1/shows/{id}/history reads a show's append-only seat history,
// oldest row first: each change of a seat's status, and each move of an
// area's places, with the hold, booking and key that made it (none of
// those to a storefront key, which sees the seats' statuses only).
// ?seat= keeps one seat's rows, ?area= one area's, not both (400). Pages
// are as the seats' (1 to 10000 rows, 1000 if left out), and its cursors
// as the ledger's: stockade.SeatHistoryPage says when a row that commits
// late can fall behind one.
//
// GET /v1/locations lists the locations in id order, in pages of ?limit=
// (1 to 1000, 100 if left out), with next_cursor as above; GET
// /v1/locations/{id} reads one. GET /v1/stock lists the SKUs that have a
// level, with their totals, in byte order, paged the same way (1 to 1000,
// 100 if left out); ?prefix= keeps those that start with it. GET
// /v1/reservations and GET /v1/orders list newest first, filtered by
// ?status= and by creation time (?created_after=, inclusive, and
// ?created_before=, exclusive, both RFC 3339), 100 unless ?limit= says, at
// most 1000. GET /v1/keys lists the API keys in id order, as the
// locations. A cursor goes with the filters of the page that gave it.
//
// GET /v1/locks shows the lock strategy's locks as Options.Locks, a
// lock.Inspector, reads them, to admin and reader keys: each key held or
// waited for, by key and then kind (lock, rwlock, semaphore), with its
// holders (fencing token, permits, when each lease ends) and how many
// wait, in the fields of lock.KeyState that "stockade locks ls -json"
// prints. ?prefix= keeps the keys that start with it; pages are of
// ?limit= keys (1 to 1000, 100 if left out), with next_cursor as above.
// Each page is read afresh: a key released between two pages is not
// listed again, and a key held throughout the walk is listed once. A
// server without Options.Locks answers 409 "invalid_state", and one whose
// lock servers cannot be read 503 "unavailable".
//
// # Time
//
// Each request runs under a deadline of Options.RequestTimeout: lock
// waits and retries inside the service end with it, and the answer is
// then 503 with code "unavailable". A client may retry that, with the
// same Idempotency-Key to be safe. A request still running a second past
// its deadline waits on something that ignores it: the server logs a
// warning, "request past its deadline", with the stacks of the goroutines
// serving that request (each carries the pprof label request_id), so that
// the log says where.
//
// # Operations
//
// GET /healthz answers while the process does, GET /readyz while every
// Pinger given to NewServer answers too, and GET /metrics serves
// Options.Registry, a Prometheus registry of the server's own (NewRegistry),
// in the text format:
//
//   - stockade_http_requests_total{method,route,status}: requests
//     answered. route is the pattern of routes.go, such as
//     /v1/stock/{sku}, or "unmatched"; method is a standard method or
//     "other", so that clients cannot make up series.
//   - stockade_http_request_duration_seconds{method,route}: a histogram
//     of the time to answer, 1 ms to 10 s (LatencyBuckets).
//   - stockade_http_requests_in_flight: requests being answered.
//   - stockade_reservations_total{op,outcome}: reservations (op
//     "reserve") and direct checkouts (op "checkout") by outcome: ok,
//     replayed, or the refusal's code.
//   - go_* and process_*: the Go runtime and the process (goroutines,
//     memory, garbage collection, CPU, open files).
//
// The binary registers the engine's metrics in the same registry:
// stockade_engine_calls_total{op,outcome} (sweeps are op "sweep"),
// stockade_engine_call_duration_seconds{op},
// stockade_engine_retries_total{op} (transactions run again after a
// conflict, never first attempts), stockade_engine_batches_total{outcome}
// and stockade_engine_batch_calls, stockade_reservations_expired_total and
// stockade_idempotency_records_purged_total (the sweeper), and under the
// lock strategy the leases' metrics as the module lock/lockprom records
// them, with the prefix stockade_lock and keys classed by the engine's
// prefixes (stockade:sku:, stockade:event:): acquisitions_total,
// failures_total{reason}, wait_seconds, hold_seconds, active_leases,
// lost_total and renew_failures_total.
//
// Every request has an id: its X-Request-Id header if that is 1 to 128
// printable ASCII characters, else a new random one, sent back in
// X-Request-Id. Each request is logged in one line (method, route, path,
// status, duration, request_id, and client, the connection's remote
// address; X-Forwarded-For is not trusted) at Options.RequestLogLevel. An
// internal error is logged once, with its cause, the request id and the
// client, and answered as a bare 500 "internal error".
package httpapi
