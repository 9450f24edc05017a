package httpapi

// routes registers the whole API. Keep it on one page.
//
// Every answer is JSON; every error is an RFC 9457 problem document
// (application/problem+json) with a stable code (errors.go). Mutating
// requests accept an Idempotency-Key header (idempotency.go).
func (s *Server) routes() {
	// Locations and stock levels.
	s.handle("PUT /v1/locations/{id}", s.putLocation)                 // {name, lat, lon} → location, 200
	s.handle("GET /v1/locations/{id}", s.getLocation)                 // → location
	s.handle("GET /v1/locations", s.listLocations)                    // ?cursor=&limit= → {locations, next_cursor?}
	s.handle("PUT /v1/stock/{sku}/{location}", s.setStock)            // {on_hand, expected_version?} → level, 200
	s.handle("POST /v1/stock/{sku}/{location}/adjust", s.adjustStock) // {delta, reason} → level, 200
	s.handle("GET /v1/stock/{sku}", s.getStock)                       // → {sku, levels, totals}
	s.handle("GET /v1/stock", s.listSKUs)                             // ?prefix=&cursor=&limit= → {skus: [{sku, totals}], next_cursor?}

	// Reservations: hold, then confirm (→ order) or release; they expire
	// on their own.
	s.handle("POST /v1/reservations", s.reserve)              // {lines, ttl_seconds?, ship_to?} → reservation, 201
	s.handle("GET /v1/reservations/{id}", s.getReservation)   // → reservation
	s.handle("POST /v1/reservations/{id}/confirm", s.confirm) // → order, 200
	s.handle("DELETE /v1/reservations/{id}", s.release)       // → reservation, 200

	// Orders: direct checkout, cancel (restock), fulfill (ship).
	s.handle("POST /v1/orders", s.checkout)                  // {lines, ship_to?} → order, 201
	s.handle("GET /v1/orders/{id}", s.getOrder)              // → order
	s.handle("POST /v1/orders/{id}/cancel", s.cancelOrder)   // → order, 200
	s.handle("POST /v1/orders/{id}/fulfill", s.fulfillOrder) // → order, 200

	// The ledger.
	s.handle("GET /v1/movements", s.movements) // ?sku=&location=&ref=&cursor=&limit= → {movements, next_cursor?}

	// Operations.
	s.handle("GET /healthz", s.healthz) // the process answers
	s.handle("GET /readyz", s.readyz)   // and so do its dependencies
	s.handle("GET /metrics", s.metrics) // Prometheus text format
}
