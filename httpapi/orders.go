package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// Reservations and orders: POST /v1/reservations (hold, then confirm
// into an order or release) and POST /v1/orders (a direct checkout),
// cancels and fulfilments, the lists, the documents they read and
// answer, and the Client's calls of them.

// The request bodies and queries.

// reserveBody is the body of POST /v1/reservations and POST /v1/orders.
type reserveBody struct {
	Lines      []json.RawMessage `json:"lines"`
	TTLSeconds *int64            `json:"ttl_seconds"`
	ShipTo     json.RawMessage   `json:"ship_to"`
	Metadata   map[string]string `json:"metadata"`
	Admission  json.RawMessage   `json:"admission"`
}

type lineBody struct {
	SKU      *string `json:"sku"`
	Quantity *int64  `json:"quantity"`
	Location *string `json:"location"`
}

type pointBody struct {
	Lat *float64 `json:"lat"`
	Lon *float64 `json:"lon"`
}

// request decodes the nested parts of b into the request the service
// validates (ReserveRequest.Validate).
func (b reserveBody) request() (stockade.ReserveRequest, error) {
	var req stockade.ReserveRequest
	var err error
	if req.Lines, err = decodeLines(b.Lines); err != nil {
		return req, err
	}
	if b.TTLSeconds != nil {
		ttl, err := ttlOf(*b.TTLSeconds, strconv.FormatInt(int64(stockade.MaxTTL/time.Second), 10))
		if err != nil {
			return req, err
		}
		req.TTL = ttl
	}
	if len(b.ShipTo) > 0 && !isNull(b.ShipTo) {
		var p pointBody
		if err := decode(b.ShipTo, &p, "ship_to"); err != nil {
			return req, err
		}
		switch {
		case p.Lat == nil:
			return req, required("ship_to.lat")
		case p.Lon == nil:
			return req, required("ship_to.lon")
		}
		req.ShipTo = &stockade.Point{Lat: *p.Lat, Lon: *p.Lon}
	}
	if len(b.Metadata) > 0 {
		req.Metadata = b.Metadata
	}
	req.Admission, err = admissionOf(b.Admission)
	return req, err
}

// decodeLines decodes the lines of a reservation, a checkout or a
// shipment: each an object with a sku, a quantity and maybe a location.
func decodeLines(raws []json.RawMessage) ([]stockade.Line, error) {
	if raws == nil {
		return nil, required("lines")
	}
	lines := make([]stockade.Line, 0, len(raws))
	for i, raw := range raws {
		path := "lines[" + strconv.Itoa(i) + "]"
		var lb lineBody
		if isNull(raw) {
			return nil, invalidf("%s: want an object, got null", path)
		}
		if err := decode(raw, &lb, path); err != nil {
			return nil, err
		}
		switch {
		case lb.SKU == nil:
			return nil, required(path + ".sku")
		case lb.Quantity == nil:
			return nil, required(path + ".quantity")
		}
		line := stockade.Line{SKU: *lb.SKU, Quantity: *lb.Quantity}
		if lb.Location != nil {
			// A location given must name one: the empty one, in the
			// domain, means "any location".
			if err := checkID(path+".location", *lb.Location); err != nil {
				return nil, err
			}
			line.Location = *lb.Location
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// orderChangeBody is the optional body of a cancel or a fulfilment: the
// version the client last read the order at.
type orderChangeBody struct {
	ExpectedVersion *int64 `json:"expected_version,omitempty"`
}

// expectedVersion returns the version a change of an order expects: the
// body's expected_version, or the If-Match header's entity tag, a
// version in quotes ("2") as GET /v1/orders/{id} gives it in its ETag.
// Both may be given if they agree. nil if neither is.
func (b orderChangeBody) expectedVersion(h http.Header) (*int64, error) {
	ims := h.Values("If-Match")
	if len(ims) == 0 {
		return b.ExpectedVersion, nil
	}
	tag := strings.TrimSpace(ims[0])
	unquoted, ok := strings.CutPrefix(tag, `"`)
	if ok {
		unquoted, ok = strings.CutSuffix(unquoted, `"`)
	}
	v, err := strconv.ParseInt(unquoted, 10, 64)
	switch {
	case len(ims) > 1 || strings.Contains(tag, ","):
		return nil, stockade.Errorf(stockade.EInvalid, "If-Match: give one entity tag, the order's version in quotes, such as \"1\"")
	case !ok || err != nil || v < 1:
		return nil, stockade.Errorf(stockade.EInvalid, fmt.Sprintf("If-Match: want the order's version in quotes, such as \"1\" (its ETag), got %s", tag))
	case b.ExpectedVersion != nil && *b.ExpectedVersion != v:
		return nil, stockade.Errorf(stockade.EInvalid, fmt.Sprintf("If-Match %s and expected_version %d disagree", tag, *b.ExpectedVersion))
	}
	return &v, nil
}

// listQuery reads the query of GET /v1/reservations and GET /v1/orders.
// The status is checked by the service, which knows each list's.
func listQuery(r *http.Request) (stockade.ListQuery, error) {
	var q stockade.ListQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxListLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			q.Status = v
			return nil
		case "created_after":
			return timeParam(name, v, &q.CreatedAfter)
		case "created_before":
			return timeParam(name, v, &q.CreatedBefore)
		}
		if metadataParam(name, v, &q.Metadata) {
			return nil
		}
		return invalidf("query: unknown parameter %q (want status, created_after, created_before, metadata[KEY], cursor, limit)", name)
	})
	return q, err
}

// metadataParam reads a list's metadata filter, the query parameter
// metadata[KEY]=VALUE, into m, and reports whether name was one.
func metadataParam(name, v string, m *stockade.Metadata) bool {
	key, ok := strings.CutPrefix(name, "metadata[")
	if !ok || !strings.HasSuffix(key, "]") {
		return false
	}
	if *m == nil {
		*m = stockade.Metadata{}
	}
	(*m)[strings.TrimSuffix(key, "]")] = v
	return true
}

// setMetadataParams writes m into v as metadataParam reads it.
func setMetadataParams(v url.Values, m stockade.Metadata) {
	for k, val := range m {
		v.Set("metadata["+k+"]", val)
	}
}

// The JSON documents.

// lineJSON is a line of a reservation or an order.
type lineJSON struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location,omitempty"`
}

// allocationJSON is the part of a line taken from one location.
type allocationJSON struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
}

// reservationJSON is a hold on stock.
type reservationJSON struct {
	ID          string           `json:"id"`
	Status      string           `json:"status"`
	CreatedAt   time.Time        `json:"created_at"`
	ExpiresAt   time.Time        `json:"expires_at"`
	Lines       []lineJSON       `json:"lines"`
	Allocations []allocationJSON `json:"allocations"`
	// OrderID is set once the reservation is confirmed.
	OrderID string `json:"order_id,omitempty"`
	// Owner is the id of the API key that made it, if one did.
	Owner string `json:"owner,omitempty"`
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

// reservationsJSON is the answer of GET /v1/reservations: a page of
// reservations, newest first, and the opaque cursor of the next page.
type reservationsJSON struct {
	Reservations []reservationJSON `json:"reservations"`
	NextCursor   string            `json:"next_cursor,omitempty"`
}

// orderJSON is committed stock.
type orderJSON struct {
	ID          string           `json:"id"`
	Status      string           `json:"status"`
	Lines       []lineJSON       `json:"lines"`
	Allocations []allocationJSON `json:"allocations"`
	// ReservationID is the reservation the order was confirmed from, if
	// any.
	ReservationID string    `json:"reservation_id,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	// Owner is the id of the API key that made it, if one did.
	Owner string `json:"owner,omitempty"`
	// Shipped is what has left so far, per level; absent until the
	// first shipment.
	Shipped []allocationJSON `json:"shipped,omitempty"`
	// Version is 1 when the order is committed, one more at each
	// shipment and each change of its status.
	Version int64 `json:"version"`
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

// ordersJSON is the answer of GET /v1/orders: a page of orders, newest
// first, and the opaque cursor of the next page.
type ordersJSON struct {
	Orders     []orderJSON `json:"orders"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

func toLines(ls []stockade.Line) []lineJSON {
	out := make([]lineJSON, 0, len(ls))
	for _, l := range ls {
		out = append(out, lineJSON(l))
	}
	return out
}

func toAllocations(as []stockade.Allocation) []allocationJSON {
	out := make([]allocationJSON, 0, len(as))
	for _, a := range as {
		out = append(out, allocationJSON(a))
	}
	return out
}

func toReservation(r stockade.Reservation) reservationJSON {
	return reservationJSON{ID: r.ID, Status: string(r.Status), CreatedAt: wireTime(r.CreatedAt), ExpiresAt: wireTime(r.ExpiresAt),
		Lines: toLines(r.Lines), Allocations: toAllocations(r.Allocations), OrderID: r.OrderID, Owner: r.Owner, Metadata: r.Metadata}
}

func toReservations(p stockade.ReservationPage) reservationsJSON {
	return reservationsJSON{Reservations: each(p.Reservations, toReservation), NextCursor: p.Next}
}

func toOrder(o stockade.Order) orderJSON {
	return orderJSON{ID: o.ID, Status: string(o.Status), Lines: toLines(o.Lines),
		Allocations: toAllocations(o.Allocations), ReservationID: o.ReservationID, CreatedAt: wireTime(o.CreatedAt), Owner: o.Owner,
		Shipped: shippedJSON(o.Shipped), Version: o.Version, Metadata: o.Metadata}
}

func toOrders(p stockade.OrderPage) ordersJSON {
	return ordersJSON{Orders: each(p.Orders, toOrder), NextCursor: p.Next}
}

// The conversions back, for Client.

func domainLines(ls []lineJSON) []stockade.Line {
	var out []stockade.Line
	for _, l := range ls {
		out = append(out, stockade.Line(l))
	}
	return out
}

func domainAllocations(as []allocationJSON) []stockade.Allocation {
	var out []stockade.Allocation
	for _, a := range as {
		out = append(out, stockade.Allocation(a))
	}
	return out
}

func (r reservationJSON) domain() stockade.Reservation {
	return stockade.Reservation{ID: r.ID, Status: stockade.ReservationStatus(r.Status), CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		Lines: domainLines(r.Lines), Allocations: domainAllocations(r.Allocations), OrderID: r.OrderID, Owner: r.Owner, Metadata: r.Metadata}
}

func (j reservationsJSON) domain() stockade.ReservationPage {
	return stockade.ReservationPage{Reservations: each(j.Reservations, reservationJSON.domain), Next: j.NextCursor}
}

func (o orderJSON) domain() stockade.Order {
	return stockade.Order{ID: o.ID, Status: stockade.OrderStatus(o.Status), CreatedAt: o.CreatedAt,
		Lines: domainLines(o.Lines), Allocations: domainAllocations(o.Allocations), ReservationID: o.ReservationID, Owner: o.Owner,
		Shipped: domainAllocations(o.Shipped), Version: o.Version, Metadata: o.Metadata}
}

func (j ordersJSON) domain() stockade.OrderPage {
	return stockade.OrderPage{Orders: each(j.Orders, orderJSON.domain), Next: j.NextCursor}
}

// The handlers.

func viewReservation(r stockade.Reservation) any      { return toReservation(r) }
func viewReservations(p stockade.ReservationPage) any { return toReservations(p) }
func viewOrder(o stockade.Order) any                  { return toOrder(o) }
func viewOrders(p stockade.OrderPage) any             { return toOrders(p) }

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

func (s *Server) confirm(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewOrder, s.svc.Confirm)
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewReservation, s.svc.Release)
}

func (s *Server) updateReservation(w http.ResponseWriter, r *http.Request) {
	updateByID(s, w, r, viewReservation, s.svc.UpdateReservation)
}

// updateOrder answers as getOrder does, with the order's ETag, which an
// update of metadata leaves as it was.
func (s *Server) updateOrder(w http.ResponseWriter, r *http.Request) {
	updateByID(s, w, r, viewOrder, func(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Order, error) {
		o, err := s.svc.UpdateOrder(ctx, id, req, idem)
		if err == nil {
			w.Header().Set("ETag", orderETag(o))
		}
		return o, err
	})
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

// The Client's calls.

// reserveJSON is the body of a reservation or checkout as the client
// sends it.
type reserveJSON struct {
	Lines      []lineJSON        `json:"lines"`
	TTLSeconds int64             `json:"ttl_seconds,omitempty"`
	ShipTo     *stockade.Point   `json:"ship_to,omitempty"`
	Metadata   stockade.Metadata `json:"metadata,omitempty"`
	Admission  *admissionJSON    `json:"admission,omitempty"`
}

func reserveBodyOf(req stockade.ReserveRequest) reserveJSON {
	return reserveJSON{Lines: toLines(req.Lines), TTLSeconds: seconds(req.TTL), ShipTo: req.ShipTo, Metadata: req.Metadata,
		Admission: admissionBodyOf(req.Admission)}
}

// Reserve implements stockade.StockService. The TTL goes over the wire in
// whole seconds, rounded up.
func (c *Client) Reserve(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Reservation, error) {
	var out reservationJSON
	if err := c.do(ctx, http.MethodPost, "/v1/reservations", reserveBodyOf(req), &out, idem); err != nil {
		return stockade.Reservation{}, err
	}
	return out.domain(), nil
}

// Reservation implements stockade.StockService.
func (c *Client) Reservation(ctx context.Context, id string) (stockade.Reservation, error) {
	var out reservationJSON
	if err := c.do(ctx, http.MethodGet, "/v1/reservations/"+seg(id), nil, &out, nil); err != nil {
		return stockade.Reservation{}, err
	}
	return out.domain(), nil
}

// Reservations implements stockade.StockService.
func (c *Client) Reservations(ctx context.Context, q stockade.ListQuery) (stockade.ReservationPage, error) {
	var out reservationsJSON
	err := c.do(ctx, http.MethodGet, listPath("/v1/reservations", q), nil, &out, nil)
	return out.domain(), err
}

// Confirm implements stockade.StockService.
func (c *Client) Confirm(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPost, "/v1/reservations/"+seg(id)+"/confirm", nil, idem)
}

// Release implements stockade.StockService.
func (c *Client) Release(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Reservation, error) {
	var out reservationJSON
	if err := c.do(ctx, http.MethodDelete, "/v1/reservations/"+seg(id), nil, &out, idem); err != nil {
		return stockade.Reservation{}, err
	}
	return out.domain(), nil
}

// UpdateReservation implements stockade.StockService.
func (c *Client) UpdateReservation(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Reservation, error) {
	var out reservationJSON
	if err := c.do(ctx, http.MethodPatch, "/v1/reservations/"+seg(id), updateBodyOf(req), &out, idem); err != nil {
		return stockade.Reservation{}, err
	}
	return out.domain(), nil
}

// UpdateOrder implements stockade.StockService.
func (c *Client) UpdateOrder(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPatch, "/v1/orders/"+seg(id), updateBodyOf(req), idem)
}

// Checkout implements stockade.StockService.
func (c *Client) Checkout(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPost, "/v1/orders", reserveBodyOf(req), idem)
}

// Order implements stockade.StockService.
func (c *Client) Order(ctx context.Context, id string) (stockade.Order, error) {
	return c.order(ctx, http.MethodGet, "/v1/orders/"+seg(id), nil, nil)
}

// Orders implements stockade.StockService.
func (c *Client) Orders(ctx context.Context, q stockade.ListQuery) (stockade.OrderPage, error) {
	var out ordersJSON
	err := c.do(ctx, http.MethodGet, listPath("/v1/orders", q), nil, &out, nil)
	return out.domain(), err
}

// CancelOrder implements stockade.StockService; expectedVersion goes as the
// body's expected_version.
func (c *Client) CancelOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPost, "/v1/orders/"+seg(id)+"/cancel", orderChange(expectedVersion), idem)
}

// FulfillOrder implements stockade.StockService; expectedVersion goes as the
// body's expected_version.
func (c *Client) FulfillOrder(ctx context.Context, id string, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPost, "/v1/orders/"+seg(id)+"/fulfill", orderChange(expectedVersion), idem)
}

// orderChange is the body of a change of an order: none without an
// expected version.
func orderChange(expectedVersion *int64) any {
	if expectedVersion == nil {
		return nil
	}
	return orderChangeBody{ExpectedVersion: expectedVersion}
}

func (c *Client) order(ctx context.Context, method, path string, in any, idem *stockade.Idempotency) (stockade.Order, error) {
	var out orderJSON
	if err := c.do(ctx, method, path, in, &out, idem); err != nil {
		return stockade.Order{}, err
	}
	return out.domain(), nil
}

// listPath is the path of a page of reservations or orders.
func listPath(path string, q stockade.ListQuery) string {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if !q.CreatedAfter.IsZero() {
		v.Set("created_after", q.CreatedAfter.Format(time.RFC3339Nano))
	}
	if !q.CreatedBefore.IsZero() {
		v.Set("created_before", q.CreatedBefore.Format(time.RFC3339Nano))
	}
	setMetadataParams(v, q.Metadata)
	return pagePath(path, v, q.Cursor, q.Limit)
}
