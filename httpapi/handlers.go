package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/stockade/stockade"
)

// The handlers: each reads and checks its input, refusing bad input with
// 4xx before anything changes, then calls the service through call.

// input checks the path values named by ids, refuses a query string, and
// decodes the body into dst; with dst nil, the body must be empty or {}.
// It returns the body, for the request hash, or answers the refusal
// itself and returns false.
func (s *Server) input(w http.ResponseWriter, r *http.Request, dst any, ids ...string) ([]byte, bool) {
	return s.readInput(w, r, dst, dst != nil, ids)
}

// optionalInput is input for a route whose body may be left out: an
// empty body leaves dst as it is.
func (s *Server) optionalInput(w http.ResponseWriter, r *http.Request, dst any, ids ...string) ([]byte, bool) {
	return s.readInput(w, r, dst, false, ids)
}

// readInput serves input and optionalInput: a body is required if
// required is set.
func (s *Server) readInput(w http.ResponseWriter, r *http.Request, dst any, required bool, ids []string) ([]byte, bool) {
	for _, name := range ids {
		if err := checkID(name, r.PathValue(name)); err != nil {
			s.writeError(w, r, err)
			return nil, false
		}
	}
	if err := noQuery(r); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeBadRequest(w, r, err)
		return nil, false
	}
	if len(body) == 0 && !required {
		return body, true
	}
	if dst == nil {
		dst = &struct{}{}
	}
	if err := decode(body, dst, ""); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return body, true
}

func viewLocation(l stockade.Location) any       { return toLocation(l) }
func viewLevel(l stockade.Level) any             { return toLevel(l) }
func viewStock(st stockade.Stock) any            { return toStock(st) }
func viewReservation(r stockade.Reservation) any { return toReservation(r) }
func viewOrder(o stockade.Order) any             { return toOrder(o) }
func viewMovements(p stockade.MovementPage) any  { return toMovements(p) }
func viewLocations(p stockade.LocationPage) any  { return toLocations(p) }
func viewSKUs(p stockade.SKUPage) any            { return toSKUs(p) }

func (s *Server) getLocation(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewLocation, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Location, error) {
		return s.svc.Location(ctx, id)
	})
}

func (s *Server) listLocations(w http.ResponseWriter, r *http.Request) {
	q, err := locationQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewLocations, func(ctx context.Context, _ *stockade.Idempotency) (stockade.LocationPage, error) {
		return s.svc.Locations(ctx, q)
	})
}

func (s *Server) listSKUs(w http.ResponseWriter, r *http.Request) {
	q, err := skuQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewSKUs, func(ctx context.Context, _ *stockade.Idempotency) (stockade.SKUPage, error) {
		return s.svc.SKUs(ctx, q)
	})
}

func (s *Server) putLocation(w http.ResponseWriter, r *http.Request) {
	var in locationBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	loc, err := in.location(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewLocation, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Location, error) {
		return s.svc.PutLocation(ctx, loc, idem)
	})
}

func (s *Server) setStock(w http.ResponseWriter, r *http.Request) {
	var in setStockBody
	body, ok := s.input(w, r, &in, "sku", "location")
	if !ok {
		return
	}
	if err := in.check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	k := stockade.Key{SKU: r.PathValue("sku"), Location: r.PathValue("location")}
	call(s, w, r, body, http.StatusOK, viewLevel, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Level, error) {
		return s.svc.SetStock(ctx, k, *in.OnHand, in.ExpectedVersion, idem)
	})
}

func (s *Server) adjustStock(w http.ResponseWriter, r *http.Request) {
	var in adjustBody
	body, ok := s.input(w, r, &in, "sku", "location")
	if !ok {
		return
	}
	if err := in.check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	k := stockade.Key{SKU: r.PathValue("sku"), Location: r.PathValue("location")}
	call(s, w, r, body, http.StatusOK, viewLevel, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Level, error) {
		return s.svc.AdjustStock(ctx, k, *in.Delta, *in.Reason, idem)
	})
}

func (s *Server) getStock(w http.ResponseWriter, r *http.Request) {
	body, ok := s.input(w, r, nil, "sku")
	if !ok {
		return
	}
	call(s, w, r, body, http.StatusOK, viewStock, func(ctx context.Context, _ *stockade.Idempotency) (stockade.Stock, error) {
		return s.svc.Stock(ctx, r.PathValue("sku"))
	})
}

// reserveInput reads the body shared by reservations and checkouts.
func (s *Server) reserveInput(w http.ResponseWriter, r *http.Request) ([]byte, stockade.ReserveRequest, bool) {
	var in reserveBody
	body, ok := s.input(w, r, &in)
	if !ok {
		return nil, stockade.ReserveRequest{}, false
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return nil, req, false
	}
	return body, req, true
}

func (s *Server) reserve(w http.ResponseWriter, r *http.Request) {
	body, req, ok := s.reserveInput(w, r)
	if !ok {
		s.m.reservations.Inc("reserve", stockade.EInvalid)
		return
	}
	outcome := call(s, w, r, body, http.StatusCreated, viewReservation, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Reservation, error) {
		return s.svc.Reserve(ctx, req, idem)
	})
	s.m.reservations.Inc("reserve", outcome)
}

func (s *Server) checkout(w http.ResponseWriter, r *http.Request) {
	body, req, ok := s.reserveInput(w, r)
	if !ok {
		s.m.reservations.Inc("checkout", stockade.EInvalid)
		return
	}
	outcome := call(s, w, r, body, http.StatusCreated, viewOrder, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Order, error) {
		return s.svc.Checkout(ctx, req, idem)
	})
	s.m.reservations.Inc("checkout", outcome)
}

func (s *Server) getReservation(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewReservation, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Reservation, error) {
		return s.svc.Reservation(ctx, id)
	})
}

func (s *Server) confirm(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewOrder, s.svc.Confirm)
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewReservation, s.svc.Release)
}

// getOrder answers with the order and, as its ETag, its version in
// quotes, for an If-Match on a change of it.
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewOrder, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Order, error) {
		o, err := s.svc.Order(ctx, id)
		if err == nil {
			w.Header().Set("ETag", orderETag(o))
		}
		return o, err
	})
}

// orderETag is the entity tag of an order: its version in quotes.
func orderETag(o stockade.Order) string { return `"` + strconv.FormatInt(o.Version, 10) + `"` }

func (s *Server) cancelOrder(w http.ResponseWriter, r *http.Request) {
	s.changeOrder(w, r, s.svc.CancelOrder)
}

func (s *Server) fulfillOrder(w http.ResponseWriter, r *http.Request) {
	s.changeOrder(w, r, s.svc.FulfillOrder)
}

// changeOrder serves a cancel or a fulfilment (fn) of the order in the
// path: at the version that the optional body's expected_version or the
// If-Match header gives, if one does. The answer carries the order's
// new ETag.
func (s *Server) changeOrder(w http.ResponseWriter, r *http.Request,
	fn func(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error)) {
	var in orderChangeBody
	body, ok := s.optionalInput(w, r, &in, "id")
	if !ok {
		return
	}
	expected, err := in.expectedVersion(r.Header)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, viewOrder, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Order, error) {
		o, err := fn(ctx, id, expected, idem)
		if err == nil {
			w.Header().Set("ETag", orderETag(o))
		}
		return o, err
	})
}

// byID serves a route whose only input is the path value id.
func byID[T any](s *Server, w http.ResponseWriter, r *http.Request, view func(T) any,
	fn func(context.Context, string, *stockade.Idempotency) (T, error)) {
	body, ok := s.input(w, r, nil, "id")
	if !ok {
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, view, func(ctx context.Context, idem *stockade.Idempotency) (T, error) {
		return fn(ctx, id, idem)
	})
}

func (s *Server) movements(w http.ResponseWriter, r *http.Request) {
	q, err := movementQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewMovements, func(ctx context.Context, _ *stockade.Idempotency) (stockade.MovementPage, error) {
		return s.svc.Movements(ctx, q)
	})
}

func viewReservations(p stockade.ReservationPage) any { return toReservations(p) }
func viewOrders(p stockade.OrderPage) any             { return toOrders(p) }
func viewKey(k stockade.APIKey) any                   { return toKey(k) }
func viewKeys(p stockade.KeyPage) any                 { return toKeys(p) }

func (s *Server) listReservations(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewReservations, func(ctx context.Context, _ *stockade.Idempotency) (stockade.ReservationPage, error) {
		return s.svc.Reservations(ctx, q)
	})
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewOrders, func(ctx context.Context, _ *stockade.Idempotency) (stockade.OrderPage, error) {
		return s.svc.Orders(ctx, q)
	})
}

// createKey creates an API key. It is not idempotent by Idempotency-Key,
// which would mean keeping the secret to replay it: the key's name is
// unique, so a retry of a creation that went through is refused (409),
// and the key can be revoked and made again under another name.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	var in keyBody
	if _, ok := s.input(w, r, &in); !ok {
		return
	}
	if r.Header.Get(headerIdempotencyKey) != "" {
		s.writeError(w, r, invalidf("Idempotency-Key: not taken by POST /v1/keys, whose secret is shown once; a repeated name is refused instead"))
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	k, secret, err := s.svc.CreateKey(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := toKey(k)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	q, err := keyQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewKeys, func(ctx context.Context, _ *stockade.Idempotency) (stockade.KeyPage, error) {
		return s.svc.Keys(ctx, q)
	})
}

// revokeKey revokes a key, and forgets it at once here; other instances
// trust it until their cache entry ends (Options.KeyCacheTTL).
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewKey, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.APIKey, error) {
		k, err := s.svc.RevokeKey(ctx, id)
		if err == nil && k.Revoked() {
			s.keys.forget(id)
		}
		return k, err
	})
}

// Shows (stockade.Event), holds and bookings.

func viewShow(e stockade.Event) any                  { return toShow(e) }
func viewShowView(v stockade.EventView) any          { return toShowView(v) }
func viewSeats(p stockade.SeatPage) any              { return toSeats(p) }
func viewSeatHistory(p stockade.SeatHistoryPage) any { return toSeatHistory(p) }
func viewHold(h stockade.Hold) any                   { return toHold(h) }
func viewBooking(b stockade.Booking) any             { return toBooking(b) }

func (s *Server) putShow(w http.ResponseWriter, r *http.Request) {
	var in showBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	ev, err := in.event(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewShow, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Event, error) {
		return s.svc.PutEvent(ctx, ev, idem)
	})
}

func (s *Server) getShow(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewShowView, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.EventView, error) {
		return s.svc.Event(ctx, id)
	})
}

func (s *Server) listSeats(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q, err := seatQuery(r)
	if err == nil {
		err = checkID("id", id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewSeats, func(ctx context.Context, _ *stockade.Idempotency) (stockade.SeatPage, error) {
		return s.svc.Seats(ctx, id, q)
	})
}

func (s *Server) listSeatHistory(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q, err := seatHistoryQuery(r)
	if err == nil {
		err = checkID("id", id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewSeatHistory, func(ctx context.Context, _ *stockade.Idempotency) (stockade.SeatHistoryPage, error) {
		return s.svc.SeatHistory(ctx, id, q)
	})
}

func (s *Server) holdSeats(w http.ResponseWriter, r *http.Request) {
	var in holdBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	req, err := in.request(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusCreated, viewHold, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Hold, error) {
		return s.svc.HoldSeats(ctx, req, idem)
	})
}

func (s *Server) getHold(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewHold, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Hold, error) {
		return s.svc.Hold(ctx, id)
	})
}

func (s *Server) extendHold(w http.ResponseWriter, r *http.Request) {
	var in extendBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	ttl, err := in.ttl()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, viewHold, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Hold, error) {
		return s.svc.ExtendHold(ctx, id, ttl, idem)
	})
}

func (s *Server) confirmHold(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewBooking, s.svc.ConfirmHold)
}

func (s *Server) releaseHold(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewHold, s.svc.ReleaseHold)
}

func (s *Server) getBooking(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewBooking, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Booking, error) {
		return s.svc.Booking(ctx, id)
	})
}

func (s *Server) cancelBooking(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewBooking, s.svc.CancelBooking)
}

// Payments.

func viewPayment(p stockade.Payment) any                 { return toPayment(p) }
func viewPayments(p stockade.PaymentPage) any            { return toPayments(p) }
func viewPaymentHistory(cs []stockade.PaymentChange) any { return toPaymentHistory(cs) }

func (s *Server) createPayment(w http.ResponseWriter, r *http.Request) {
	var in paymentBody
	body, ok := s.input(w, r, &in)
	if !ok {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusCreated, viewPayment, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.CreatePayment(ctx, req, idem)
	})
}

func (s *Server) listPayments(w http.ResponseWriter, r *http.Request) {
	q, err := paymentQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewPayments, func(ctx context.Context, _ *stockade.Idempotency) (stockade.PaymentPage, error) {
		return s.svc.Payments(ctx, q)
	})
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewPayment, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.Payment(ctx, id)
	})
}

func (s *Server) paymentHistory(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewPaymentHistory, func(ctx context.Context, id string, _ *stockade.Idempotency) ([]stockade.PaymentChange, error) {
		return s.svc.PaymentHistory(ctx, id)
	})
}

func (s *Server) cancelPayment(w http.ResponseWriter, r *http.Request) {
	var in cancelPaymentBody
	body, ok := s.optionalInput(w, r, &in, "id")
	if !ok {
		return
	}
	id, reason := r.PathValue("id"), in.reason()
	call(s, w, r, body, http.StatusOK, viewPayment, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.CancelPayment(ctx, id, reason, idem)
	})
}

// paymentOutcome applies an outcome that an operator reports of the
// payment in the path, recorded under the name of the caller's key. The
// outcome's event id makes it idempotent: an Idempotency-Key is checked,
// as on every mutating request, but nothing is stored under it.
func (s *Server) paymentOutcome(w http.ResponseWriter, r *http.Request) {
	var in outcomeBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	o, err := in.outcome(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewPayment, func(ctx context.Context, _ *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.ApplyOutcome(ctx, o, "")
	})
}
