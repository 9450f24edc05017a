package httpapi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestClientMirrorsEngine drives every method through the client and
// checks each answer against the engine's own for the same record.
func TestClientMirrorsEngine(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	c, ctx := a.client, sys(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	loc, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East", Point: &stockade.Point{Lat: 40.71, Lon: -74.01}}, nil)
	must(err)
	if !reflect.DeepEqual(loc, stockade.Location{ID: "east", Name: "East", Point: &stockade.Point{Lat: 40.71, Lon: -74.01}}) {
		t.Errorf("PutLocation = %+v", loc)
	}
	_, err = c.PutLocation(ctx, stockade.Location{ID: "west", Name: "West", Point: &stockade.Point{Lat: 37.77, Lon: -122.42}}, nil)
	must(err)
	zero := int64(0)
	l, err := c.SetStock(ctx, stockade.Key{SKU: "gizmo/2", Location: "east"}, 10, &zero, nil)
	must(err)
	if l.SKU != "gizmo/2" || l.OnHand != 10 || l.Version != 1 {
		t.Errorf("SetStock = %+v", l)
	}
	_, err = c.SetStock(ctx, stockade.Key{SKU: "gizmo/2", Location: "east"}, 10, &zero, nil)
	if code := stockade.ErrorCode(err); code != stockade.EVersionConflict {
		t.Errorf("SetStock at a stale version: %v, want %s", err, stockade.EVersionConflict)
	}
	_, err = c.SetStock(ctx, stockade.Key{SKU: "gizmo/2", Location: "west"}, 4, nil, nil)
	must(err)
	l, err = c.AdjustStock(ctx, stockade.Key{SKU: "gizmo/2", Location: "west"}, 2, "found in the back", nil)
	must(err)
	if l.OnHand != 6 || l.Available() != 6 {
		t.Errorf("AdjustStock = %+v", l)
	}

	req := stockade.ReserveRequest{
		Lines:  []stockade.Line{{SKU: "gizmo/2", Quantity: 12}},
		TTL:    90*time.Second + time.Millisecond, // rounded up to 91s
		ShipTo: &stockade.Point{Lat: 38, Lon: -121},
	}
	r, err := c.Reserve(ctx, req, nil)
	must(err)
	if want := start.Add(91 * time.Second); !r.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt %v, want %v", r.ExpiresAt, want)
	}
	if want := []stockade.Allocation{{SKU: "gizmo/2", Location: "east", Quantity: 6}, {SKU: "gizmo/2", Location: "west", Quantity: 6}}; !reflect.DeepEqual(r.Allocations, want) {
		t.Errorf("allocations %+v, want %+v (west first, it is nearer)", r.Allocations, want)
	}
	same(t, "Reservation", func() (any, error) { return c.Reservation(ctx, r.ID) }, func() (any, error) { return a.eng.Reservation(ctx, r.ID) })
	same(t, "Stock", func() (any, error) { return c.Stock(ctx, "gizmo/2") }, func() (any, error) { return a.eng.Stock(ctx, "gizmo/2") })

	o, err := c.Confirm(ctx, r.ID, nil)
	must(err)
	if o.ReservationID != r.ID || o.Status != stockade.Committed {
		t.Errorf("Confirm = %+v", o)
	}
	same(t, "Order", func() (any, error) { return c.Order(ctx, o.ID) }, func() (any, error) { return a.eng.Order(ctx, o.ID) })
	if o, err = c.FulfillOrder(ctx, o.ID, nil, nil); err != nil || o.Status != stockade.Fulfilled {
		t.Errorf("FulfillOrder = %+v, %v", o, err)
	}

	_, err = c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "gizmo/2", Quantity: 5}}}, nil)
	var se *stockade.Error
	if !errors.As(err, &se) || se.Code != stockade.EInsufficientStock || se.Message == "" {
		t.Errorf("Checkout beyond stock: %#v, want *stockade.Error %s", err, stockade.EInsufficientStock)
	}
	_, err = c.AdjustStock(ctx, stockade.Key{SKU: "gizmo/2", Location: "west"}, 1, "returned", nil)
	must(err)
	o, err = c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "gizmo/2", Quantity: 1, Location: "west"}}}, nil)
	must(err)
	if o, err = c.CancelOrder(ctx, o.ID, nil, nil); err != nil || o.Status != stockade.Cancelled {
		t.Errorf("CancelOrder = %+v, %v", o, err)
	}
	r, err = c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "gizmo/2", Quantity: 1}}}, nil)
	must(err)
	if r, err = c.Release(ctx, r.ID, nil); err != nil || r.Status != stockade.Released {
		t.Errorf("Release = %+v, %v", r, err)
	}

	if _, err := c.Order(ctx, "ord_none"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("Order(unknown) = %v, want %s", err, stockade.ENotFound)
	}
	if _, err := c.Reserve(ctx, stockade.ReserveRequest{}, nil); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("Reserve(no lines) = %v, want %s", err, stockade.EInvalid)
	}

	same(t, "Location", func() (any, error) { return c.Location(ctx, "west") }, func() (any, error) { return a.eng.Location(ctx, "west") })
	if _, err := c.Location(ctx, "nowhere"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("Location(unknown) = %v, want %s", err, stockade.ENotFound)
	}
	lq := stockade.LocationQuery{Limit: 1}
	same(t, "Locations", func() (any, error) { return c.Locations(ctx, lq) }, func() (any, error) { return a.eng.Locations(ctx, lq) })
	lpage, err := c.Locations(ctx, lq)
	must(err)
	if len(lpage.Locations) != 1 || lpage.Next == "" {
		t.Fatalf("Locations(%+v) = %+v, want one location and a next cursor", lq, lpage)
	}
	lq.Cursor = lpage.Next
	same(t, "Locations after a cursor", func() (any, error) { return c.Locations(ctx, lq) }, func() (any, error) { return a.eng.Locations(ctx, lq) })

	_, err = c.SetStock(ctx, stockade.Key{SKU: "gizmo/3", Location: "west"}, 1, nil, nil)
	must(err)
	sq := stockade.SKUQuery{Limit: 1}
	same(t, "SKUs", func() (any, error) { return c.SKUs(ctx, sq) }, func() (any, error) { return a.eng.SKUs(ctx, sq) })
	spage, err := c.SKUs(ctx, sq)
	must(err)
	if len(spage.SKUs) != 1 || spage.Next == "" {
		t.Fatalf("SKUs(%+v) = %+v, want one SKU and a next cursor", sq, spage)
	}
	sq.Cursor, sq.Prefix = spage.Next, "gizmo"
	same(t, "SKUs after a cursor, by prefix", func() (any, error) { return c.SKUs(ctx, sq) }, func() (any, error) { return a.eng.SKUs(ctx, sq) })

	q := stockade.MovementQuery{SKU: "gizmo/2", Location: "west", Limit: 3}
	same(t, "Movements", func() (any, error) { return c.Movements(ctx, q) }, func() (any, error) { return a.eng.Movements(ctx, q) })
	page, err := c.Movements(ctx, q)
	must(err)
	if len(page.Movements) != 3 || page.Next == "" {
		t.Errorf("Movements(%+v) = %+v, want 3 rows and a next cursor", q, page)
	}
	q.Cursor = page.Next
	same(t, "Movements after a cursor", func() (any, error) { return c.Movements(ctx, q) }, func() (any, error) { return a.eng.Movements(ctx, q) })
	if _, err := c.Movements(ctx, stockade.MovementQuery{Cursor: "x"}); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("Movements(malformed cursor) = %v, want %s", err, stockade.EInvalid)
	}

	// AllMovements, a page of 2 at a time, reads what one page of them
	// all holds; breaking out of the loop stops it.
	whole, err := a.eng.Movements(ctx, stockade.MovementQuery{})
	must(err)
	if len(whole.Movements) < 5 || whole.Next != "" {
		t.Fatalf("the whole ledger: %+v", whole)
	}
	var all []stockade.Movement
	for m, err := range c.AllMovements(ctx, stockade.MovementQuery{Limit: 2}) {
		must(err)
		all = append(all, m)
	}
	if !reflect.DeepEqual(all, whole.Movements) {
		t.Errorf("AllMovements:\n%+v\nwant\n%+v", all, whole.Movements)
	}
	n := 0
	for _, err := range c.AllMovements(ctx, stockade.MovementQuery{Limit: 2}) {
		must(err)
		if n++; n == 3 {
			break
		}
	}
	for m, err := range c.AllMovements(ctx, stockade.MovementQuery{Cursor: "x"}) {
		if stockade.ErrorCode(err) != stockade.EInvalid || m.ID != 0 {
			t.Errorf("AllMovements(malformed cursor) yielded %+v, %v, want an %s error", m, err, stockade.EInvalid)
		}
	}
}

// same fails the test unless the client and the engine answer alike.
func same(t *testing.T, what string, client, direct func() (any, error)) {
	t.Helper()
	got, err := client()
	if err != nil {
		t.Fatalf("client %s: %v", what, err)
	}
	want, err := direct()
	if err != nil {
		t.Fatalf("engine %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s through the client:\n%+v\ndirect:\n%+v", what, got, want)
	}
}

// TestClientIdempotency: a key goes out as the header, and the replay
// decodes like the first answer and is marked replayed.
func TestClientIdempotency(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	ctx := sys(t)
	req := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}}
	first := &stockade.Idempotency{Key: "cart-7"}
	r1, err := a.client.Reserve(ctx, req, first)
	if err != nil {
		t.Fatal(err)
	}
	again := &stockade.Idempotency{Key: "cart-7"}
	r2, err := a.client.Reserve(ctx, req, again)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("replay %+v, first %+v", r2, r1)
	}
	if first.Replayed || !again.Replayed {
		t.Errorf("replayed: first %v, second %v; want false, true", first.Replayed, again.Replayed)
	}
	st, err := a.client.Stock(ctx, "widget")
	if err != nil {
		t.Fatal(err)
	}
	if st.Totals.Reserved != 2 {
		t.Errorf("reserved %d, want 2: the key must make the second call a replay", st.Totals.Reserved)
	}
	req.Lines[0].Quantity = 3
	if _, err := a.client.Reserve(ctx, req, &stockade.Idempotency{Key: "cart-7"}); stockade.ErrorCode(err) != stockade.EIdempotencyMismatch {
		t.Errorf("same key, other request: %v, want %s", err, stockade.EIdempotencyMismatch)
	}
}

// TestClientNonProblemError: an answer that is not a problem document is
// an error that says what came back.
func TestClientNonProblemError(t *testing.T) {
	t.Parallel()
	c := NewClient("http://127.0.0.1:1", nil)
	if _, err := c.Stock(sys(t), "x"); err == nil || stockade.ErrorCode(err) != stockade.EInternal {
		t.Errorf("unreachable server: %v", err)
	}
}

// TestLocationWithoutPlace: a location put without lat and lon has none
// in its answers, and the client reads it back without a point.
func TestLocationWithoutPlace(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	body := string(a.must(200, "PUT", "/v1/locations/drop", `{"name":"Drop-shipper"}`).body)
	if strings.Contains(body, "lat") || strings.Contains(body, "lon") {
		t.Errorf("PUT answered %s, want no lat or lon", body)
	}
	if got := string(a.must(200, "GET", "/v1/locations/drop", nil).body); got != body {
		t.Errorf("GET answered %s, want %s", got, body)
	}
	c := NewClient(a.srv.URL, a.srv.Client())
	if loc, err := c.Location(sys(t), "drop"); err != nil || loc.Point != nil || loc.Name != "Drop-shipper" {
		t.Errorf("Client.Location = %+v, %v; want it without a point", loc, err)
	}
}

// TestHoldAndBookingListsClient: the client's lists of shows, and of holds
// and bookings across shows and of one, page by page, read what the engine
// reads.
func TestHoldAndBookingListsClient(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	for _, seat := range []string{"stalls/A/1", "stalls/A/2", "stalls/A/3"} {
		a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["`+seat+`"]}`)
	}
	hold := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/4"]}`).id(t)
	a.must(200, "POST", "/v1/holds/"+hold+"/confirm", nil)
	c := NewClient(a.srv.URL, a.srv.Client())
	ctx := sys(t)
	same(t, "Shows", func() (any, error) { return c.Shows(ctx, stockade.ListQuery{}) }, func() (any, error) { return a.eng.Shows(ctx, stockade.ListQuery{}) })
	if p, err := c.Shows(ctx, stockade.ListQuery{}); err != nil || len(p.Shows) != 1 || p.Shows[0].ID != "gala" || p.Shows[0].Rows != nil {
		t.Errorf("Shows = %+v, %v; want gala's head", p, err)
	}
	for _, q := range []stockade.ListQuery{{}, {ShowID: "gala", Limit: 2}, {ShowID: "gala", Status: "confirmed"}} {
		same(t, fmt.Sprintf("Holds(%+v)", q), func() (any, error) { return c.Holds(ctx, q) }, func() (any, error) { return a.eng.Holds(ctx, q) })
		q.Status = ""
		same(t, fmt.Sprintf("Bookings(%+v)", q), func() (any, error) { return c.Bookings(ctx, q) }, func() (any, error) { return a.eng.Bookings(ctx, q) })
	}
	p, err := c.Holds(ctx, stockade.ListQuery{ShowID: "gala", Limit: 3})
	if err != nil || len(p.Holds) != 3 || p.Next == "" || p.Holds[0].ID != hold {
		t.Fatalf("gala's first page of 3: %+v, %v; want the newest first and a cursor", p, err)
	}
	if rest, err := c.Holds(ctx, stockade.ListQuery{ShowID: "gala", Limit: 3, Cursor: p.Next}); err != nil || len(rest.Holds) != 1 || rest.Next != "" {
		t.Errorf("gala's second page: %+v, %v; want the last hold", rest, err)
	}
}

// TestLocationStockClient: GET /v1/locations/{id}/stock through the client
// reads what the engine reads, and an unknown location is 404.
func TestLocationStockClient(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	a.must(200, "PUT", "/v1/stock/gadget/east", `{"on_hand":3}`)
	c := NewClient(a.srv.URL, a.srv.Client())
	ctx := sys(t)
	for _, q := range []stockade.SKUQuery{{}, {Limit: 1}, {Prefix: "gad"}} {
		same(t, fmt.Sprintf("LocationStock(east, %+v)", q), func() (any, error) { return c.LocationStock(ctx, "east", q) },
			func() (any, error) { return a.eng.LocationStock(ctx, "east", q) })
	}
	a.must(404, "GET", "/v1/locations/nowhere/stock", nil)
}

// TestMetadataOverHTTP: metadata goes in with a reservation, a hold or a
// payment, comes back in its views and in its order's or booking's,
// filters the lists as metadata[KEY]=VALUE, the client sends and reads it,
// and bad metadata is a 400 that changes nothing.
func TestMetadataOverHTTP(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	res := decodeAs[reservationJSON](t, a.must(201, "POST", "/v1/reservations",
		`{"lines":[{"sku":"widget","quantity":1}],"metadata":{"cart":"c_42","customer":"cus_7"}}`))
	if res.Metadata["cart"] != "c_42" || res.Metadata["customer"] != "cus_7" {
		t.Fatalf("the reservation's metadata: %v", res.Metadata)
	}
	a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}],"metadata":{"cart":"c_43"}}`)
	page := decodeAs[reservationsJSON](t, a.must(200, "GET", "/v1/reservations?metadata[cart]=c_42", nil))
	if len(page.Reservations) != 1 || page.Reservations[0].ID != res.ID {
		t.Errorf("reservations of cart c_42: %+v", page)
	}
	o := decodeAs[orderJSON](t, a.must(200, "POST", "/v1/reservations/"+res.ID+"/confirm", nil))
	if o.Metadata["cart"] != "c_42" {
		t.Errorf("the order's metadata: %v", o.Metadata)
	}
	c := NewClient(a.srv.URL, a.srv.Client())
	ctx := sys(t)
	q := stockade.ListQuery{Metadata: stockade.Metadata{"customer": "cus_7"}}
	same(t, "Orders by metadata", func() (any, error) { return c.Orders(ctx, q) }, func() (any, error) { return a.eng.Orders(ctx, q) })
	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}, Metadata: stockade.Metadata{"cart": "c_50"}}, nil)
	if err != nil || r.Metadata["cart"] != "c_50" {
		t.Errorf("Client.Reserve with metadata: %+v, %v", r, err)
	}
	before := a.snapshot()
	for _, body := range []string{
		`{"lines":[{"sku":"widget","quantity":1}],"metadata":{"cart":42}}`,
		`{"lines":[{"sku":"widget","quantity":1}],"metadata":{"a b":"c"}}`,
		`{"lines":[{"sku":"widget","quantity":1}],"metadata":"cart"}`,
	} {
		a.must(400, "POST", "/v1/reservations", body)
	}
	a.must(400, "GET", "/v1/reservations?metadata[a%20b]=c", nil)
	if after := a.snapshot(); after != before {
		t.Error("refused metadata changed the store")
	}

	// Holds and bookings, the same way.
	a.gala()
	h := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"],"metadata":{"basket":"b_7"}}`))
	if h.Metadata["basket"] != "b_7" {
		t.Fatalf("the hold's metadata: %v", h.Metadata)
	}
	a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2"]}`)
	bk := decodeAs[bookingJSON](t, a.must(200, "POST", "/v1/holds/"+h.ID+"/confirm", nil))
	if bk.Metadata["basket"] != "b_7" {
		t.Errorf("the booking's metadata: %v", bk.Metadata)
	}
	if page := decodeAs[holdsJSON](t, a.must(200, "GET", "/v1/shows/gala/holds?metadata[basket]=b_7", nil)); len(page.Holds) != 1 || page.Holds[0].ID != h.ID {
		t.Errorf("gala's holds of basket b_7: %+v", page)
	}
	hq := stockade.ListQuery{Metadata: stockade.Metadata{"basket": "b_7"}}
	same(t, "Bookings by metadata", func() (any, error) { return c.Bookings(ctx, hq) }, func() (any, error) { return a.eng.Bookings(ctx, hq) })
	held, err := c.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gala", Seats: []string{"stalls/A/3"}, Metadata: stockade.Metadata{"basket": "b_9"}}, nil)
	if err != nil || held.Metadata["basket"] != "b_9" {
		t.Errorf("Client.HoldSeats with metadata: %+v, %v", held, err)
	}

	// Payments, the same way.
	p := decodeAs[paymentJSON](t, a.must(201, "POST", "/v1/payments",
		`{"target":{"kind":"hold","id":"`+held.ID+`"},"amount":100,"currency":"EUR","metadata":{"invoice":"inv_1"}}`))
	if p.Metadata["invoice"] != "inv_1" {
		t.Errorf("the payment's metadata: %v", p.Metadata)
	}
	if page := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments?metadata[invoice]=inv_1", nil)); len(page.Payments) != 1 || page.Payments[0].ID != p.ID {
		t.Errorf("payments of invoice inv_1: %+v", page)
	}
	pq := stockade.PaymentQuery{Metadata: stockade.Metadata{"invoice": "inv_1"}}
	same(t, "Payments by metadata", func() (any, error) { return c.Payments(ctx, pq) }, func() (any, error) { return a.eng.Payments(ctx, pq) })

	// Updates: a PATCH merges, the client's calls send the same, and a
	// refused one changes nothing.
	up := decodeAs[orderJSON](t, a.must(200, "PATCH", "/v1/orders/"+o.ID, `{"metadata":{"cart":"","gift":"yes"}}`))
	if !reflect.DeepEqual(up.Metadata, stockade.Metadata{"customer": "cus_7", "gift": "yes"}) || up.Version != o.Version {
		t.Errorf("the updated order: metadata %v, version %d; want customer and gift, version %d", up.Metadata, up.Version, o.Version)
	}
	tag := stockade.UpdateRequest{Metadata: stockade.Metadata{"tag": "vip"}}
	for name, update := range map[string]func() (stockade.Metadata, error){
		"UpdateReservation": func() (stockade.Metadata, error) {
			v, err := c.UpdateReservation(ctx, r.ID, tag, nil)
			return v.Metadata, err
		},
		"UpdateOrder": func() (stockade.Metadata, error) {
			v, err := c.UpdateOrder(ctx, o.ID, tag, nil)
			return v.Metadata, err
		},
		"UpdateHold": func() (stockade.Metadata, error) {
			v, err := c.UpdateHold(ctx, held.ID, tag, nil)
			return v.Metadata, err
		},
		"UpdateBooking": func() (stockade.Metadata, error) {
			v, err := c.UpdateBooking(ctx, bk.ID, tag, nil)
			return v.Metadata, err
		},
		"UpdatePayment": func() (stockade.Metadata, error) {
			v, err := c.UpdatePayment(ctx, p.ID, tag, nil)
			return v.Metadata, err
		},
	} {
		if m, err := update(); err != nil || m["tag"] != "vip" {
			t.Errorf("Client.%s: %v, %v; want tag=vip", name, m, err)
		}
	}
	before = a.snapshot()
	if _, err := c.UpdatePayment(ctx, p.ID, stockade.UpdateRequest{}, nil); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("Client.UpdatePayment without keys: %v, want %s", err, stockade.EInvalid)
	}
	a.must(400, "PATCH", "/v1/holds/"+held.ID, `{"metadata":{"basket":null}}`)
	if after := a.snapshot(); after != before {
		t.Error("a refused update changed the store")
	}
}
