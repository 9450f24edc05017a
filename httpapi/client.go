package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// Client is a stockade.StockService, a stockade.BookingService and a
// stockade.PaymentService over the HTTP API of a stockade server, and
// manages API keys (CreateKey, Keys, RevokeKey); it is not a whole
// stockade.Service, since a key is authenticated by the server only.
// A refusal comes back as the *stockade.Error the server sent (its code
// and detail); transport failures and unexpected answers are other errors.
//
// A mutating call with a *stockade.Idempotency sends its Key as the
// Idempotency-Key header (the server computes the fingerprint from the
// request, so the Fingerprint field is not sent); a replayed answer
// decodes like the first and sets Replayed.
//
// It is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
	key  string // sent as Authorization: Bearer, if set
}

var (
	_ stockade.StockService   = (*Client)(nil)
	_ stockade.BookingService = (*Client)(nil)
	_ stockade.PaymentService = (*Client)(nil)
)

// WithKey returns a client that sends secret, an API key, with every
// request.
func (c *Client) WithKey(secret string) *Client {
	cc := *c
	cc.key = secret
	return &cc
}

// NewClient returns a client of the server at baseURL (such as
// "http://localhost:8080"), sending its requests through hc
// (http.DefaultClient when nil).
func NewClient(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc}
}

// maxResponseBytes bounds what the client reads of an answer.
const maxResponseBytes = 64 << 20

// do sends a request with in (if not nil) as its JSON body, under idem's
// key if idem is not nil, and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any, idem *stockade.Idempotency) error {
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
		}
		body = b
	}
	return c.send(ctx, method, path, body, nil, out, idem)
}

// send sends a request with body (if not nil) as its JSON body and the
// header lines of header, under idem's key if idem is not nil, and
// decodes a 2xx answer into out.
func (c *Client) send(ctx context.Context, method, path string, body []byte, header http.Header, out any, idem *stockade.Idempotency) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
	}
	for name, vs := range header {
		req.Header[name] = vs
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if idem != nil {
		idem.Replayed = false
		req.Header.Set(headerIdempotencyKey, idem.Key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return responseError(method, path, resp, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("httpapi: %s %s: decode answer: %w", method, path, err)
		}
	}
	if idem != nil {
		idem.Replayed = resp.Header.Get(headerReplayed) == "true"
	}
	return nil
}

// responseError turns an error answer into an error: the problem
// document's code and detail as a *stockade.Error, or a description of an
// answer that is not one.
func responseError(method, path string, resp *http.Response, data []byte) error {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == contentProblem {
		var p problem
		if err := json.Unmarshal(data, &p); err == nil && p.Code != "" {
			return &stockade.Error{Code: p.Code, Message: p.Detail}
		}
	}
	const maxShown = 200
	shown := string(data)
	if len(shown) > maxShown {
		shown = shown[:maxShown] + "…"
	}
	return fmt.Errorf("httpapi: %s %s: %s: %q", method, path, resp.Status, shown)
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }

// locationBodyOf is the body of PUT /v1/locations/{id}: the location
// without its id, which is in the path.
func locationBodyOf(loc stockade.Location) map[string]any {
	return map[string]any{"name": loc.Name, "lat": loc.Lat, "lon": loc.Lon}
}

// PutLocation implements stockade.StockService.
func (c *Client) PutLocation(ctx context.Context, loc stockade.Location, idem *stockade.Idempotency) (stockade.Location, error) {
	var out locationJSON
	if err := c.do(ctx, http.MethodPut, "/v1/locations/"+seg(loc.ID), locationBodyOf(loc), &out, idem); err != nil {
		return stockade.Location{}, err
	}
	return out.domain(), nil
}

// Location implements stockade.StockService.
func (c *Client) Location(ctx context.Context, id string) (stockade.Location, error) {
	var out locationJSON
	if err := c.do(ctx, http.MethodGet, "/v1/locations/"+seg(id), nil, &out, nil); err != nil {
		return stockade.Location{}, err
	}
	return out.domain(), nil
}

// Locations implements stockade.StockService.
func (c *Client) Locations(ctx context.Context, q stockade.LocationQuery) (stockade.LocationPage, error) {
	var out locationsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/locations", url.Values{}, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.LocationPage{}, err
	}
	return out.domain(), nil
}

// SKUs implements stockade.StockService.
func (c *Client) SKUs(ctx context.Context, q stockade.SKUQuery) (stockade.SKUPage, error) {
	v := url.Values{}
	if q.Prefix != "" {
		v.Set("prefix", q.Prefix)
	}
	var out skusJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/stock", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SKUPage{}, err
	}
	return out.domain(), nil
}

// pagePath is path with the query v and a list's cursor and limit, those
// that are set.
func pagePath(path string, v url.Values, cursor string, limit int) string {
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	return path
}

// SetStock implements stockade.StockService.
func (c *Client) SetStock(ctx context.Context, k stockade.Key, onHand int64, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Level, error) {
	var out levelJSON
	in := setStockBody{OnHand: &onHand, ExpectedVersion: expectedVersion}
	if err := c.do(ctx, http.MethodPut, "/v1/stock/"+seg(k.SKU)+"/"+seg(k.Location), in, &out, idem); err != nil {
		return stockade.Level{}, err
	}
	return out.domain(), nil
}

// AdjustStock implements stockade.StockService.
func (c *Client) AdjustStock(ctx context.Context, k stockade.Key, delta int64, reason string, idem *stockade.Idempotency) (stockade.Level, error) {
	var out levelJSON
	in := adjustBody{Delta: &delta, Reason: &reason}
	if err := c.do(ctx, http.MethodPost, "/v1/stock/"+seg(k.SKU)+"/"+seg(k.Location)+"/adjust", in, &out, idem); err != nil {
		return stockade.Level{}, err
	}
	return out.domain(), nil
}

// Ready asks the service whether it and its dependencies (the store, and
// the lock strategy's locker) answer: GET /readyz. It returns nil when they
// do, and an error with code stockade.EUnavailable when one does not.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/readyz", nil, nil, nil)
}

// Stock implements stockade.StockService.
func (c *Client) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	var out stockJSON
	if err := c.do(ctx, http.MethodGet, "/v1/stock/"+seg(sku), nil, &out, nil); err != nil {
		return stockade.Stock{}, err
	}
	return out.domain(), nil
}

// reserveJSON is the body of a reservation or checkout as the client
// sends it.
type reserveJSON struct {
	Lines      []lineJSON      `json:"lines"`
	TTLSeconds int64           `json:"ttl_seconds,omitempty"`
	ShipTo     *stockade.Point `json:"ship_to,omitempty"`
}

func reserveBodyOf(req stockade.ReserveRequest) reserveJSON {
	return reserveJSON{Lines: toLines(req.Lines), TTLSeconds: seconds(req.TTL), ShipTo: req.ShipTo}
}

// seconds is a TTL as the API counts it, in whole seconds, rounded up to
// the next one.
func seconds(ttl time.Duration) int64 { return int64((ttl + time.Second - 1) / time.Second) }

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

// Checkout implements stockade.StockService.
func (c *Client) Checkout(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return c.order(ctx, http.MethodPost, "/v1/orders", reserveBodyOf(req), idem)
}

// Order implements stockade.StockService.
func (c *Client) Order(ctx context.Context, id string) (stockade.Order, error) {
	return c.order(ctx, http.MethodGet, "/v1/orders/"+seg(id), nil, nil)
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

// Movements implements stockade.StockService: one page, whose Next is the
// server's cursor, to pass back as is in q.Cursor. AllMovements follows
// the cursors.
func (c *Client) Movements(ctx context.Context, q stockade.MovementQuery) (stockade.MovementPage, error) {
	v := url.Values{}
	for name, s := range map[string]string{"sku": q.SKU, "location": q.Location, "ref": q.Ref} {
		if s != "" {
			v.Set(name, s)
		}
	}
	var out movementsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/movements", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.MovementPage{}, err
	}
	return out.domain(), nil
}

// AllMovements returns the ledger rows that match q, from q.Cursor on,
// oldest first: it asks for a page of q.Limit rows whenever the loop has
// used the last one, following each page's cursor, and ends after the
// page that has none. An error ends it too, yielded with a zero Movement.
// stockade.MovementPage says what following the cursor guarantees while
// rows are being appended.
func (c *Client) AllMovements(ctx context.Context, q stockade.MovementQuery) iter.Seq2[stockade.Movement, error] {
	return func(yield func(stockade.Movement, error) bool) {
		for {
			page, err := c.Movements(ctx, q)
			if err != nil {
				yield(stockade.Movement{}, err)
				return
			}
			for _, m := range page.Movements {
				if !yield(m, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			q.Cursor = page.Next
		}
	}
}

// Reservations implements stockade.StockService.
func (c *Client) Reservations(ctx context.Context, q stockade.ListQuery) (stockade.ReservationPage, error) {
	var out reservationsJSON
	err := c.do(ctx, http.MethodGet, listPath("/v1/reservations", q), nil, &out, nil)
	return out.domain(), err
}

// Orders implements stockade.StockService.
func (c *Client) Orders(ctx context.Context, q stockade.ListQuery) (stockade.OrderPage, error) {
	var out ordersJSON
	err := c.do(ctx, http.MethodGet, listPath("/v1/orders", q), nil, &out, nil)
	return out.domain(), err
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
	return pagePath(path, v, q.Cursor, q.Limit)
}

// CreateKey creates an API key (an admin key's call) and returns it
// with its secret, which no later call shows.
func (c *Client) CreateKey(ctx context.Context, req stockade.NewKeyRequest) (stockade.APIKey, string, error) {
	in := map[string]any{"name": req.Name, "role": req.Role}
	if req.RateLimit != 0 {
		in["rate_limit"] = req.RateLimit
	}
	var out keyJSON
	err := c.do(ctx, http.MethodPost, "/v1/keys", in, &out, nil)
	return out.domain(), out.Secret, err
}

// Keys returns a page of the API keys.
func (c *Client) Keys(ctx context.Context, q stockade.KeyQuery) (stockade.KeyPage, error) {
	var out keysJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/keys", url.Values{}, q.Cursor, q.Limit), nil, &out, nil)
	return out.domain(), err
}

// RevokeKey revokes an API key.
func (c *Client) RevokeKey(ctx context.Context, id string) (stockade.APIKey, error) {
	var out keyJSON
	err := c.do(ctx, http.MethodDelete, "/v1/keys/"+seg(id), nil, &out, nil)
	return out.domain(), err
}

// Events implements stockade.StockService. With q.Wait, the call waits for
// the server's answer that long and more: give hc no shorter a timeout.
func (c *Client) Events(ctx context.Context, q stockade.DomainEventQuery) (stockade.DomainEventPage, error) {
	v := url.Values{}
	if q.Cursor != "" {
		v.Set("after", q.Cursor)
	}
	if len(q.Types) > 0 {
		v.Set("type", strings.Join(q.Types, ","))
	}
	if q.Aggregate != "" {
		v.Set("aggregate", q.Aggregate)
	}
	if q.AggregateID != "" {
		v.Set("aggregate_id", q.AggregateID)
	}
	if q.Wait > 0 {
		v.Set("wait", q.Wait.String())
	}
	var out eventsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/events", v, "", q.Limit), nil, &out, nil); err != nil {
		return stockade.DomainEventPage{}, err
	}
	return out.domain()
}

// showBodyJSON is the body of PUT /v1/shows/{id} as the client sends it:
// the show without its id, which is in the path, and areas without their
// counts.
type showBodyJSON struct {
	Name  string         `json:"name"`
	Focal xyJSON         `json:"focal"`
	Rows  []seatRowJSON  `json:"rows,omitempty"`
	Areas []areaBodyJSON `json:"areas,omitempty"`
}

type areaBodyJSON struct {
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	Capacity int64  `json:"capacity"`
}

func showBodyOf(e stockade.Event) showBodyJSON {
	return showBodyJSON{Name: e.Name, Focal: xyJSON(e.Focal), Rows: each(e.Rows, toRow),
		Areas: each(e.Areas, func(a stockade.Area) areaBodyJSON {
			return areaBodyJSON{Name: a.Name, Category: a.Category, Capacity: a.Capacity}
		})}
}

// holdBodyJSON is the body of POST /v1/shows/{id}/holds as the client
// sends it.
type holdBodyJSON struct {
	Seats      []string        `json:"seats,omitempty"`
	Best       []bestSeatsJSON `json:"best_available,omitempty"`
	Places     []placesJSON    `json:"general_admission,omitempty"`
	TTLSeconds int64           `json:"ttl_seconds,omitempty"`
}

type bestSeatsJSON struct {
	Quantity   int    `json:"quantity"`
	Category   string `json:"category,omitempty"`
	Section    string `json:"section,omitempty"`
	Accessible bool   `json:"accessible,omitempty"`
	AllowSplit bool   `json:"allow_split,omitempty"`
}

func holdBodyOf(req stockade.HoldRequest) holdBodyJSON {
	return holdBodyJSON{Seats: req.Seats, Best: each(req.Best, func(b stockade.BestSeats) bestSeatsJSON { return bestSeatsJSON(b) }),
		Places: each(req.Places, toPlaces), TTLSeconds: seconds(req.TTL)}
}

// PutEvent implements stockade.BookingService: PUT /v1/shows/{id}.
func (c *Client) PutEvent(ctx context.Context, e stockade.Event, idem *stockade.Idempotency) (stockade.Event, error) {
	var out showJSON
	if err := c.do(ctx, http.MethodPut, "/v1/shows/"+seg(e.ID), showBodyOf(e), &out, idem); err != nil {
		return stockade.Event{}, err
	}
	return out.domain(), nil
}

// Event implements stockade.BookingService: GET /v1/shows/{id}.
func (c *Client) Event(ctx context.Context, id string) (stockade.EventView, error) {
	var out showViewJSON
	if err := c.do(ctx, http.MethodGet, "/v1/shows/"+seg(id), nil, &out, nil); err != nil {
		return stockade.EventView{}, err
	}
	return out.domain(), nil
}

// Seats implements stockade.BookingService: one page, whose Next is the
// server's cursor, to pass back as is in q.Cursor.
func (c *Client) Seats(ctx context.Context, eventID string, q stockade.SeatQuery) (stockade.SeatPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	if q.Section != "" {
		v.Set("section", q.Section)
	}
	var out seatsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/shows/"+seg(eventID)+"/seats", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SeatPage{}, err
	}
	return out.domain(), nil
}

// SeatHistory implements stockade.BookingService: one page, oldest row
// first, whose Next is the server's cursor, to pass back as is in
// q.Cursor.
func (c *Client) SeatHistory(ctx context.Context, eventID string, q stockade.SeatHistoryQuery) (stockade.SeatHistoryPage, error) {
	v := url.Values{}
	if q.Seat != "" {
		v.Set("seat", q.Seat)
	}
	if q.Area != "" {
		v.Set("area", q.Area)
	}
	var out seatHistoryJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/shows/"+seg(eventID)+"/history", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SeatHistoryPage{}, err
	}
	return out.domain(), nil
}

// HoldSeats implements stockade.BookingService. The TTL goes over the
// wire in whole seconds, rounded up.
func (c *Client) HoldSeats(ctx context.Context, req stockade.HoldRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodPost, "/v1/shows/"+seg(req.EventID)+"/holds", holdBodyOf(req), idem)
}

// Hold implements stockade.BookingService.
func (c *Client) Hold(ctx context.Context, id string) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodGet, "/v1/holds/"+seg(id), nil, nil)
}

// ExtendHold implements stockade.BookingService. The TTL goes over the
// wire in whole seconds, rounded up.
func (c *Client) ExtendHold(ctx context.Context, id string, ttl time.Duration, idem *stockade.Idempotency) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodPost, "/v1/holds/"+seg(id)+"/extend", map[string]int64{"ttl_seconds": seconds(ttl)}, idem)
}

// ReleaseHold implements stockade.BookingService.
func (c *Client) ReleaseHold(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodDelete, "/v1/holds/"+seg(id), nil, idem)
}

func (c *Client) hold(ctx context.Context, method, path string, in any, idem *stockade.Idempotency) (stockade.Hold, error) {
	var out holdJSON
	if err := c.do(ctx, method, path, in, &out, idem); err != nil {
		return stockade.Hold{}, err
	}
	return out.domain(), nil
}

// ConfirmHold implements stockade.BookingService.
func (c *Client) ConfirmHold(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Booking, error) {
	return c.booking(ctx, http.MethodPost, "/v1/holds/"+seg(id)+"/confirm", idem)
}

// Booking implements stockade.BookingService.
func (c *Client) Booking(ctx context.Context, id string) (stockade.Booking, error) {
	return c.booking(ctx, http.MethodGet, "/v1/bookings/"+seg(id), nil)
}

// CancelBooking implements stockade.BookingService.
func (c *Client) CancelBooking(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Booking, error) {
	return c.booking(ctx, http.MethodPost, "/v1/bookings/"+seg(id)+"/cancel", idem)
}

func (c *Client) booking(ctx context.Context, method, path string, idem *stockade.Idempotency) (stockade.Booking, error) {
	var out bookingJSON
	if err := c.do(ctx, method, path, nil, &out, idem); err != nil {
		return stockade.Booking{}, err
	}
	return out.domain(), nil
}

// newPaymentJSON is the body of POST /v1/payments as the client sends
// it.
type newPaymentJSON struct {
	Target   paymentTargetJSON `json:"target"`
	Amount   int64             `json:"amount"`
	Currency string            `json:"currency"`
}

// outcomeJSON is an outcome as the client sends it: to
// /v1/payments/{id}/outcomes without PaymentID, which is in the path, and
// to the webhook with it.
type outcomeJSON struct {
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id,omitempty"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// CreatePayment implements stockade.PaymentService.
func (c *Client) CreatePayment(ctx context.Context, req stockade.NewPaymentRequest, idem *stockade.Idempotency) (stockade.Payment, error) {
	in := newPaymentJSON{Target: paymentTargetJSON{Kind: string(req.Target.Kind), ID: req.Target.ID}, Amount: req.Amount, Currency: req.Currency}
	return c.payment(ctx, http.MethodPost, "/v1/payments", in, idem)
}

// Payment implements stockade.PaymentService.
func (c *Client) Payment(ctx context.Context, id string) (stockade.Payment, error) {
	return c.payment(ctx, http.MethodGet, "/v1/payments/"+seg(id), nil, nil)
}

// Payments implements stockade.PaymentService: one page, whose Next is
// the server's cursor, to pass back as is in q.Cursor.
func (c *Client) Payments(ctx context.Context, q stockade.PaymentQuery) (stockade.PaymentPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	if q.Stuck {
		v.Set("stuck", "true")
	}
	if q.Resolution != "" {
		v.Set("resolution", q.Resolution)
	}
	var out paymentsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/payments", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.PaymentPage{}, err
	}
	return out.domain(), nil
}

// PaymentHistory implements stockade.PaymentService.
func (c *Client) PaymentHistory(ctx context.Context, id string) ([]stockade.PaymentChange, error) {
	var out paymentHistoryJSON
	if err := c.do(ctx, http.MethodGet, "/v1/payments/"+seg(id)+"/history", nil, &out, nil); err != nil {
		return nil, err
	}
	return out.domain(), nil
}

// ApplyOutcome implements stockade.PaymentService: POST
// /v1/payments/{id}/outcomes, an operator's call that needs an admin key.
// source is not sent: the server records the outcome under the name of
// the client's key. A payment system reports outcomes with Webhook
// instead.
func (c *Client) ApplyOutcome(ctx context.Context, o stockade.PaymentOutcome, source string) (stockade.Payment, error) {
	if err := stockade.ValidateID("payment_id", o.PaymentID); err != nil {
		return stockade.Payment{}, err // it goes in the path, which cannot be empty
	}
	in := outcomeJSON{EventID: o.EventID, Status: string(o.Status), Reason: o.Reason}
	return c.payment(ctx, http.MethodPost, "/v1/payments/"+seg(o.PaymentID)+"/outcomes", in, nil)
}

// CancelPayment implements stockade.PaymentService. An empty reason
// sends no body.
func (c *Client) CancelPayment(ctx context.Context, id, reason string, idem *stockade.Idempotency) (stockade.Payment, error) {
	var in any
	if reason != "" {
		in = map[string]string{"reason": reason}
	}
	return c.payment(ctx, http.MethodPost, "/v1/payments/"+seg(id)+"/cancel", in, idem)
}

// Webhook reports o to the server as a payment system does: it posts o
// to POST /v1/payments/webhook, signed with secret at the current time
// (SignWebhook), without the client's API key. The answer is the
// payment after o, or as it was if o's event id was applied before.
func (c *Client) Webhook(ctx context.Context, secret []byte, o stockade.PaymentOutcome) (stockade.Payment, error) {
	body, err := json.Marshal(outcomeJSON{EventID: o.EventID, PaymentID: o.PaymentID, Status: string(o.Status), Reason: o.Reason})
	if err != nil {
		return stockade.Payment{}, fmt.Errorf("httpapi: POST %s: %w", webhookPath, err)
	}
	unkeyed := *c
	unkeyed.key = ""
	var out paymentJSON
	header := http.Header{headerSignature: {SignWebhook(secret, body, time.Now())}}
	if err := unkeyed.send(ctx, http.MethodPost, webhookPath, body, header, &out, nil); err != nil {
		return stockade.Payment{}, err
	}
	return out.domain(), nil
}

func (c *Client) payment(ctx context.Context, method, path string, in any, idem *stockade.Idempotency) (stockade.Payment, error) {
	var out paymentJSON
	if err := c.do(ctx, method, path, in, &out, idem); err != nil {
		return stockade.Payment{}, err
	}
	return out.domain(), nil
}
