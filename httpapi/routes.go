package httpapi

import "net/http"

// route is one route of the API: its pattern, the roles of the keys that
// may call it (auth.go), and its handler.
type route struct {
	pattern string
	access  access
	handler func(*Server, http.ResponseWriter, *http.Request)
}

// routeTable is the whole API. Keep it on one page.
//
// Every answer is JSON; every error is an RFC 9457 problem document
// (application/problem+json) with a stable code (errors.go). Mutating
// requests accept an Idempotency-Key header (idempotency.go), scoped to
// the API key. A storefront key sees only the reservations, orders, holds,
// bookings and payments it created: those of other keys answer 404. The
// payment webhook needs no key: its signature authenticates it.
var routeTable = []route{
	// Locations and stock levels (stock.go).
	{"PUT /v1/locations/{id}", admins, (*Server).putLocation},                 // {name, lat?, lon?} → location, 200
	{"GET /v1/locations/{id}", anyRole, (*Server).getLocation},                // → location
	{"GET /v1/locations/{id}/stock", anyRole, (*Server).locationStock},        // ?prefix=&cursor=&limit= → {location, levels, next_cursor?}, in SKU order
	{"GET /v1/locations", anyRole, (*Server).listLocations},                   // ?cursor=&limit= → {locations, next_cursor?}
	{"PUT /v1/stock/{sku}/{location}", admins, (*Server).setStock},            // {on_hand, expected_version?} → level, 200
	{"POST /v1/stock/{sku}/{location}/adjust", admins, (*Server).adjustStock}, // {delta, reason} → level, 200
	{"GET /v1/stock/{sku}", anyRole, (*Server).getStock},                      // → {sku, levels, totals}
	{"GET /v1/stock", anyRole, (*Server).listSKUs},                            // ?prefix=&cursor=&limit= → {skus: [{sku, totals}], next_cursor?}

	// Reservations: hold, then confirm (→ order) or release; they expire
	// on their own (orders.go).
	{"POST /v1/reservations", shoppers, (*Server).reserve},                 // {lines, ttl_seconds?, ship_to?, admission?} → reservation, 201
	{"GET /v1/reservations", anyRole, (*Server).listReservations},          // ?status=&created_after=&created_before=&cursor=&limit= → {reservations, next_cursor?}
	{"GET /v1/reservations/{id}", anyRole, (*Server).getReservation},       // → reservation
	{"POST /v1/reservations/{id}/confirm", shoppers, (*Server).confirm},    // → order, 200
	{"DELETE /v1/reservations/{id}", shoppers, (*Server).release},          // → reservation, 200
	{"PATCH /v1/reservations/{id}", shoppers, (*Server).updateReservation}, // {metadata} → reservation, 200

	// Orders (orders.go): direct checkout, cancel (restock what has not
	// shipped), fulfill (ship the rest); shipments of parts of an order
	// (shipments.go).
	{"POST /v1/orders", shoppers, (*Server).checkout},                   // {lines, ship_to?, admission?} → order, 201
	{"GET /v1/orders", anyRole, (*Server).listOrders},                   // ?status=&created_after=&created_before=&cursor=&limit= → {orders, next_cursor?}
	{"GET /v1/orders/{id}", anyRole, (*Server).getOrder},                // → order
	{"POST /v1/orders/{id}/cancel", shoppers, (*Server).cancelOrder},    // → order, 200
	{"POST /v1/orders/{id}/fulfill", admins, (*Server).fulfillOrder},    // → order, 200
	{"POST /v1/orders/{id}/shipments", admins, (*Server).shipOrder},     // {lines, metadata?, expected_version?} → shipment, 201
	{"GET /v1/orders/{id}/shipments", anyRole, (*Server).listShipments}, // ?cursor=&limit= → {shipments, next_cursor?}, newest first
	{"PATCH /v1/orders/{id}", shoppers, (*Server).updateOrder},          // {metadata} → order, 200

	// Shows, the seats they sell, holds on them (confirmed → booking,
	// released, or expired on their own), bookings (shows.go).
	{"PUT /v1/shows/{id}", admins, (*Server).putShow},                    // {name, focal?, rows?, areas?} → show, 200
	{"GET /v1/shows", anyRole, (*Server).listShows},                      // ?created_after=&created_before=&cursor=&limit= → {shows, next_cursor?}, newest first, heads only
	{"GET /v1/shows/{id}", anyRole, (*Server).getShow},                   // → show with its seat counts
	{"GET /v1/shows/{id}/seats", anyRole, (*Server).listSeats},           // ?status=&section=&cursor=&limit= → {seats, next_cursor?}
	{"GET /v1/shows/{id}/history", anyRole, (*Server).listSeatHistory},   // ?seat=&area=&cursor=&limit= → {changes, next_cursor?}, oldest first
	{"GET /v1/shows/{id}/holds", anyRole, (*Server).listShowHolds},       // ?status=&created_after=&created_before=&cursor=&limit= → {holds, next_cursor?}
	{"GET /v1/shows/{id}/bookings", anyRole, (*Server).listShowBookings}, // the same → {bookings, next_cursor?}
	{"POST /v1/shows/{id}/holds", shoppers, (*Server).holdSeats},         // {seats?, best_available?, general_admission?, ttl_seconds?, admission?} → hold, 201
	{"GET /v1/holds", anyRole, (*Server).listHolds},                      // as a show's, across shows
	{"GET /v1/holds/{id}", anyRole, (*Server).getHold},                   // → hold
	{"POST /v1/holds/{id}/extend", shoppers, (*Server).extendHold},       // {ttl_seconds} → hold, 200
	{"POST /v1/holds/{id}/confirm", shoppers, (*Server).confirmHold},     // → booking, 200
	{"DELETE /v1/holds/{id}", shoppers, (*Server).releaseHold},           // → hold, 200
	{"PATCH /v1/holds/{id}", shoppers, (*Server).updateHold},             // {metadata} → hold, 200
	{"GET /v1/bookings", anyRole, (*Server).listBookings},                // as a show's, across shows
	{"GET /v1/bookings/{id}", anyRole, (*Server).getBooking},             // → booking
	{"POST /v1/bookings/{id}/cancel", shoppers, (*Server).cancelBooking}, // → booking, 200
	{"PATCH /v1/bookings/{id}", shoppers, (*Server).updateBooking},       // {metadata} → booking, 200

	// Waiting rooms in front of a show or SKUs: visitors join and are
	// admitted in the room's order, at its rate; while it queues, a hold,
	// reservation or checkout of what it is in front of carries the
	// admission ({visitor_id, token}) of the visitor's ticket. The secret
	// that signs the tokens is in the answer to the creation only
	// (rooms.go).
	{"POST /v1/rooms", admins, (*Server).createRoom},                                       // {id, show_id | skus, opens_at?, active_limit, admit_per_minute, admission_ttl_seconds?, order?, per_visitor?, stock_factor?, metadata?} → room with secret, 201
	{"GET /v1/rooms", anyRole, (*Server).listRooms},                                        // ?cursor=&limit= → {rooms, next_cursor?}, in id order
	{"GET /v1/rooms/{id}", anyRole, (*Server).getRoom},                                     // → room
	{"PATCH /v1/rooms/{id}", admins, (*Server).updateRoom},                                 // {opens_at?, active_limit?, …, status?, reorder?, expected_version?, metadata?} → room, 200
	{"POST /v1/rooms/{id}/visitors", shoppers, (*Server).joinRoom},                         // {visitor_id} → ticket, 200; one place per visitor
	{"GET /v1/rooms/{id}/visitors/{visitor}", shoppers, (*Server).roomTicket},              // → ticket
	{"GET /v1/rooms/{id}/visitors/{visitor}/stream", shoppers, (*Server).streamRoomTicket}, // → text/event-stream of tickets
	{"POST /v1/rooms/{id}/visitors/{visitor}/leave", shoppers, (*Server).leaveRoom},        // → ticket, 200: the admission ends

	// Payments of reservations, holds and orders, as payment systems
	// report them: outcomes arrive by the signed webhook (webhook.go), or
	// from an operator; the first that settles a payment confirms what it
	// pays for, the first that fails it gives that back (payments.go).
	{"POST /v1/payments", shoppers, (*Server).createPayment},              // {target: {kind, id}, amount, currency} → payment, 201
	{"GET /v1/payments", anyRole, (*Server).listPayments},                 // ?status=&stuck=&resolution=&cursor=&limit= → {payments, next_cursor?}
	{"GET /v1/payments/{id}", anyRole, (*Server).getPayment},              // → payment
	{"GET /v1/payments/{id}/history", anyRole, (*Server).paymentHistory},  // → {changes}, oldest first
	{"POST /v1/payments/{id}/cancel", shoppers, (*Server).cancelPayment},  // {reason?} → payment, 200
	{"PATCH /v1/payments/{id}", shoppers, (*Server).updatePayment},        // {metadata} → payment, 200
	{"POST /v1/payments/{id}/outcomes", admins, (*Server).paymentOutcome}, // {event_id, status, reason?} → payment, 200
	{"POST " + webhookPath, public, (*Server).paymentWebhook},             // Stockade-Signature, {event_id, payment_id, status, reason?} → payment, 200

	// The ledger (stock.go).
	{"GET /v1/movements", auditors, (*Server).movements}, // ?sku=&location=&ref=&cursor=&limit= → {movements, next_cursor?}

	// Events: every change, in commit order (events.go).
	{"GET /v1/events", auditors, (*Server).listEvents},      // ?after=&type=&aggregate=&aggregate_id=&limit=&wait= → {events, next_cursor}
	{"GET " + streamPath, auditors, (*Server).streamEvents}, // Last-Event-ID or ?after=, filters → text/event-stream

	// Locks: who holds each key of the lock strategy and who waits, as
	// Options.Locks reads them (locks.go).
	{"GET /v1/locks", auditors, (*Server).listLocks}, // ?prefix=&cursor=&limit= → {locks, next_cursor?}

	// API keys. The secret is in the answer to its creation only (keys.go).
	{"POST /v1/keys", admins, (*Server).createKey},        // {name, role, rate_limit?} → key with secret, 201
	{"GET /v1/keys", admins, (*Server).listKeys},          // ?cursor=&limit= → {keys, next_cursor?}
	{"DELETE /v1/keys/{id}", admins, (*Server).revokeKey}, // → key, 200

	// Outbound webhooks: endpoints that receive the events they ask for,
	// signed, at least once, in commit order per aggregate; each
	// delivery's attempts are recorded (webhooks.go; the deliveries are
	// package webhook's). The secret is in the answers to the creation
	// and the rotation only.
	{"POST /v1/webhook-endpoints", admins, (*Server).createWebhookEndpoint},                                 // {url, events, description?} → endpoint with secret, 201
	{"GET /v1/webhook-endpoints", admins, (*Server).listWebhookEndpoints},                                   // ?cursor=&limit= → {webhook_endpoints, next_cursor?}
	{"GET /v1/webhook-endpoints/{id}", admins, (*Server).getWebhookEndpoint},                                // → endpoint
	{"PATCH /v1/webhook-endpoints/{id}", admins, (*Server).updateWebhookEndpoint},                           // {url?, events?, description?, disabled?} → endpoint, 200
	{"DELETE /v1/webhook-endpoints/{id}", admins, (*Server).deleteWebhookEndpoint},                          // → endpoint, 200; its deliveries go with it
	{"POST /v1/webhook-endpoints/{id}/rotate-secret", admins, (*Server).rotateWebhookSecret},                // {overlap_seconds?} → endpoint with secret, 200
	{"GET /v1/webhook-endpoints/{id}/deliveries", admins, (*Server).listWebhookDeliveries},                  // ?status=&cursor=&limit= → {deliveries, next_cursor?}, newest first
	{"POST /v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver", admins, (*Server).redeliverWebhook}, // → delivery, 200

	// Operations: public.
	{"GET /healthz", public, (*Server).healthz},      // the process answers
	{"GET /readyz", public, (*Server).readyz},        // and so do its dependencies
	{"GET /metrics", public, (*Server).metrics},      // Prometheus text format
	{"GET /openapi.json", public, (*Server).openAPI}, // this API, described in OpenAPI 3.1
}
