package httpapi

import (
	"time"

	"github.com/stockade/stockade"
)

// The JSON documents of the API. The server encodes them and Client
// decodes them; they are spelled out here, rather than taken from the
// domain types, so that the wire format changes only on purpose.

// locationJSON is a location as the API shows it.
type locationJSON struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
}

// levelJSON is a SKU's stock at one location, with what is available.
type levelJSON struct {
	SKU       string `json:"sku,omitempty"` // left out inside a stock
	Location  string `json:"location"`
	OnHand    int64  `json:"on_hand"`
	Reserved  int64  `json:"reserved"`
	Committed int64  `json:"committed"`
	Available int64  `json:"available"`
	Version   int64  `json:"version"`
}

// totalsJSON are a SKU's counters summed over its locations.
type totalsJSON struct {
	OnHand    int64 `json:"on_hand"`
	Reserved  int64 `json:"reserved"`
	Committed int64 `json:"committed"`
	Available int64 `json:"available"`
}

// stockJSON is the answer of GET /v1/stock/{sku}.
type stockJSON struct {
	SKU    string      `json:"sku"`
	Levels []levelJSON `json:"levels"`
	Totals totalsJSON  `json:"totals"`
}

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
	// Version is 1 when the order is committed, one more at each change
	// of its status.
	Version int64 `json:"version"`
}

// movementJSON is a row of the ledger: the change to one level's counters.
type movementJSON struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	SKU       string    `json:"sku"`
	Location  string    `json:"location"`
	Kind      string    `json:"kind"`
	OnHand    int64     `json:"on_hand"`
	Reserved  int64     `json:"reserved"`
	Committed int64     `json:"committed"`
	Ref       string    `json:"ref,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	// Actor is the name of the API key whose call made the change.
	Actor string `json:"actor,omitempty"`
}

// locationsJSON is the answer of GET /v1/locations: a page of
// locations in id order, and the opaque cursor of the next page, given as
// ?cursor=; none on the last page.
type locationsJSON struct {
	Locations  []locationJSON `json:"locations"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

func toLocations(p stockade.LocationPage) locationsJSON {
	return locationsJSON{Locations: each(p.Locations, toLocation), NextCursor: p.Next}
}

func (j locationsJSON) domain() stockade.LocationPage {
	return stockade.LocationPage{Locations: each(j.Locations, locationJSON.domain), Next: j.NextCursor}
}

// skusJSON is the answer of GET /v1/stock: a page of SKUs with their
// totals, in SKU order, and the opaque cursor of the next page.
type skusJSON struct {
	SKUs       []skuJSON `json:"skus"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

type skuJSON struct {
	SKU    string     `json:"sku"`
	Totals totalsJSON `json:"totals"`
}

func toSKUs(p stockade.SKUPage) skusJSON {
	return skusJSON{SKUs: each(p.SKUs, func(s stockade.SKUTotals) skuJSON {
		return skuJSON{SKU: s.SKU, Totals: totalsJSON(s.Totals)}
	}), NextCursor: p.Next}
}

func (j skusJSON) domain() stockade.SKUPage {
	return stockade.SKUPage{SKUs: each(j.SKUs, func(s skuJSON) stockade.SKUTotals {
		return stockade.SKUTotals{SKU: s.SKU, Totals: stockade.Totals(s.Totals)}
	}), Next: j.NextCursor}
}

// movementsJSON is the answer of GET /v1/movements: a page of rows, oldest
// first, and the opaque cursor that gets the next page, given as
// ?cursor=; none when no more rows matched.
type movementsJSON struct {
	Movements  []movementJSON `json:"movements"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// wireTime is how times go out: UTC, to the microsecond, the precision
// both stores keep, so that a reservation reads the same in the response
// that created it and in every later GET.
func wireTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// each returns f of every item of in, in order: a page's items in the
// other form. It is never nil, so that an empty list is [] in JSON.
func each[S, D any](in []S, f func(S) D) []D {
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func toLocation(l stockade.Location) locationJSON {
	return locationJSON{ID: l.ID, Name: l.Name, Lat: l.Lat, Lon: l.Lon}
}

func toLevel(l stockade.Level) levelJSON {
	return levelJSON{SKU: l.SKU, Location: l.Location, OnHand: l.OnHand, Reserved: l.Reserved,
		Committed: l.Committed, Available: l.Available(), Version: l.Version}
}

func toStock(s stockade.Stock) stockJSON {
	out := stockJSON{SKU: s.SKU, Levels: make([]levelJSON, 0, len(s.Levels)), Totals: totalsJSON(s.Totals)}
	for _, l := range s.Levels {
		lv := toLevel(l)
		lv.SKU = ""
		out.Levels = append(out.Levels, lv)
	}
	return out
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
		Lines: toLines(r.Lines), Allocations: toAllocations(r.Allocations), OrderID: r.OrderID, Owner: r.Owner}
}

func toOrder(o stockade.Order) orderJSON {
	return orderJSON{ID: o.ID, Status: string(o.Status), Lines: toLines(o.Lines),
		Allocations: toAllocations(o.Allocations), ReservationID: o.ReservationID, CreatedAt: wireTime(o.CreatedAt), Owner: o.Owner,
		Version: o.Version}
}

func toMovements(p stockade.MovementPage) movementsJSON {
	out := movementsJSON{Movements: make([]movementJSON, 0, len(p.Movements)), NextCursor: p.Next}
	for _, m := range p.Movements {
		out.Movements = append(out.Movements, movementJSON{ID: m.ID, At: wireTime(m.At), SKU: m.SKU, Location: m.Location,
			Kind: string(m.Kind), OnHand: m.OnHand, Reserved: m.Reserved, Committed: m.Committed, Ref: m.Ref, Reason: m.Reason, Actor: m.Actor})
	}
	return out
}

// The conversions back, for Client.

func (l locationJSON) domain() stockade.Location {
	return stockade.Location{ID: l.ID, Name: l.Name, Lat: l.Lat, Lon: l.Lon}
}

func (l levelJSON) domain() stockade.Level {
	return stockade.Level{SKU: l.SKU, Location: l.Location, OnHand: l.OnHand, Reserved: l.Reserved,
		Committed: l.Committed, Version: l.Version}
}

func (s stockJSON) domain() stockade.Stock {
	out := stockade.Stock{SKU: s.SKU, Totals: stockade.Totals(s.Totals)}
	for _, l := range s.Levels {
		dl := l.domain()
		dl.SKU = s.SKU
		out.Levels = append(out.Levels, dl)
	}
	return out
}

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
		Lines: domainLines(r.Lines), Allocations: domainAllocations(r.Allocations), OrderID: r.OrderID, Owner: r.Owner}
}

func (o orderJSON) domain() stockade.Order {
	return stockade.Order{ID: o.ID, Status: stockade.OrderStatus(o.Status), CreatedAt: o.CreatedAt,
		Lines: domainLines(o.Lines), Allocations: domainAllocations(o.Allocations), ReservationID: o.ReservationID, Owner: o.Owner,
		Version: o.Version}
}

func (ms movementsJSON) domain() stockade.MovementPage {
	out := stockade.MovementPage{Next: ms.NextCursor}
	for _, m := range ms.Movements {
		out.Movements = append(out.Movements, stockade.Movement{ID: m.ID, At: m.At, SKU: m.SKU, Location: m.Location,
			Kind: stockade.MovementKind(m.Kind), Delta: stockade.Delta{OnHand: m.OnHand, Reserved: m.Reserved, Committed: m.Committed},
			Ref: m.Ref, Reason: m.Reason, Actor: m.Actor})
	}
	return out
}

// reservationsJSON is the answer of GET /v1/reservations: a page of
// reservations, newest first, and the opaque cursor of the next page.
type reservationsJSON struct {
	Reservations []reservationJSON `json:"reservations"`
	NextCursor   string            `json:"next_cursor,omitempty"`
}

func toReservations(p stockade.ReservationPage) reservationsJSON {
	return reservationsJSON{Reservations: each(p.Reservations, toReservation), NextCursor: p.Next}
}

func (j reservationsJSON) domain() stockade.ReservationPage {
	return stockade.ReservationPage{Reservations: each(j.Reservations, reservationJSON.domain), Next: j.NextCursor}
}

// ordersJSON is the answer of GET /v1/orders: a page of orders, newest
// first, and the opaque cursor of the next page.
type ordersJSON struct {
	Orders     []orderJSON `json:"orders"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

func toOrders(p stockade.OrderPage) ordersJSON {
	return ordersJSON{Orders: each(p.Orders, toOrder), NextCursor: p.Next}
}

func (j ordersJSON) domain() stockade.OrderPage {
	return stockade.OrderPage{Orders: each(j.Orders, orderJSON.domain), Next: j.NextCursor}
}

// keyJSON is an API key as the API shows it: never its hash. Secret is
// set only in the answer to its creation.
type keyJSON struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	RateLimit float64    `json:"rate_limit,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Secret    string     `json:"secret,omitempty"`
}

func toKey(k stockade.APIKey) keyJSON {
	out := keyJSON{ID: k.ID, Name: k.Name, Role: string(k.Role), RateLimit: k.RateLimit, CreatedAt: wireTime(k.CreatedAt)}
	if k.Revoked() {
		at := wireTime(k.RevokedAt)
		out.RevokedAt = &at
	}
	return out
}

func (k keyJSON) domain() stockade.APIKey {
	out := stockade.APIKey{ID: k.ID, Name: k.Name, Role: stockade.Role(k.Role), RateLimit: k.RateLimit, CreatedAt: k.CreatedAt}
	if k.RevokedAt != nil {
		out.RevokedAt = *k.RevokedAt
	}
	return out
}

// keysJSON is the answer of GET /v1/keys: a page of keys in id order.
type keysJSON struct {
	Keys       []keyJSON `json:"keys"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

func toKeys(p stockade.KeyPage) keysJSON {
	return keysJSON{Keys: each(p.Keys, toKey), NextCursor: p.Next}
}

func (j keysJSON) domain() stockade.KeyPage {
	return stockade.KeyPage{Keys: each(j.Keys, keyJSON.domain), Next: j.NextCursor}
}

// Shows, holds and bookings. A show is what the Go API calls an event
// (stockade.Event): the routes say "shows" because /v1/events is the feed
// of domain events. The documents have the fields, and the names, of the
// domain types' JSON, so that the payload of a hold.* event reads like
// GET /v1/holds/{id}.

// xyJSON is a position on a show's floor plan.
type xyJSON struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// seatRowJSON is a row of a show's map, as it was given.
type seatRowJSON struct {
	Section     string  `json:"section"`
	Row         string  `json:"row"`
	First       int     `json:"first"`
	Last        int     `json:"last"`
	Category    string  `json:"category,omitempty"`
	Accessible  []int   `json:"accessible,omitempty"`
	Blocked     []int   `json:"blocked,omitempty"`
	AislesAfter []int   `json:"aisles_after,omitempty"`
	Start       xyJSON  `json:"start"`
	Step        float64 `json:"step,omitempty"`
}

// areaJSON is a general-admission area with its counts.
type areaJSON struct {
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	Capacity int64  `json:"capacity"`
	Held     int64  `json:"held"`
	Booked   int64  `json:"booked"`
}

// showJSON is a show: its map as it was given, and its areas with their
// counts. The answer of PUT /v1/shows/{id}.
type showJSON struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Focal     xyJSON        `json:"focal"`
	Rows      []seatRowJSON `json:"rows,omitempty"`
	Areas     []areaJSON    `json:"areas,omitempty"`
	CreatedAt time.Time     `json:"created_at"`
	Version   int64         `json:"version"`
}

// seatCountJSON is how many seats of a section and category are in a
// status.
type seatCountJSON struct {
	Section  string `json:"section"`
	Category string `json:"category,omitempty"`
	Status   string `json:"status"`
	Count    int64  `json:"count"`
}

// showViewJSON is the answer of GET /v1/shows/{id}: the show and its
// seat counts.
type showViewJSON struct {
	showJSON
	Counts []seatCountJSON `json:"counts"`
}

// seatJSON is one seat of a show.
type seatJSON struct {
	ID         string `json:"id"`
	Section    string `json:"section"`
	Row        string `json:"row"`
	Label      string `json:"label"`
	Order      int    `json:"order"`
	Category   string `json:"category,omitempty"`
	Accessible bool   `json:"accessible,omitempty"`
	Position   xyJSON `json:"position"`
	Status     string `json:"status"`
	HoldID     string `json:"hold_id,omitempty"`
	BookingID  string `json:"booking_id,omitempty"`
}

// seatsJSON is the answer of GET /v1/shows/{id}/seats: a page of seats in
// seat order (section, row, place in the row), and the opaque cursor of
// the next page.
type seatsJSON struct {
	Seats      []seatJSON `json:"seats"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

// seatChangeJSON is one row of a show's seat history: a seat moving
// from one status to another, or quantity places of an area.
type seatChangeJSON struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	EventID   string    `json:"event_id"`
	Seat      string    `json:"seat,omitempty"`
	Area      string    `json:"area,omitempty"`
	Quantity  int64     `json:"quantity"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	HoldID    string    `json:"hold_id,omitempty"`
	BookingID string    `json:"booking_id,omitempty"`
	// Actor is the name of the API key whose call made the change.
	Actor string `json:"actor,omitempty"`
}

// seatHistoryJSON is the answer of GET /v1/shows/{id}/history: a page of
// the show's seat history, oldest row first, and the opaque cursor of
// the next page.
type seatHistoryJSON struct {
	Changes    []seatChangeJSON `json:"changes"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// placesJSON is general-admission places of one area.
type placesJSON struct {
	Area     string `json:"area"`
	Quantity int64  `json:"quantity"`
}

// holdJSON is a hold on seats and places of a show.
type holdJSON struct {
	ID        string       `json:"id"`
	EventID   string       `json:"event_id"`
	Status    string       `json:"status"`
	Seats     []string     `json:"seats,omitempty"`
	Places    []placesJSON `json:"general_admission,omitempty"`
	Split     bool         `json:"split,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	ExpiresAt time.Time    `json:"expires_at"`
	BookingID string       `json:"booking_id,omitempty"`
	Owner     string       `json:"owner,omitempty"`
	Version   int64        `json:"version"`
}

// bookingJSON is a confirmed hold.
type bookingJSON struct {
	ID        string       `json:"id"`
	EventID   string       `json:"event_id"`
	HoldID    string       `json:"hold_id"`
	Status    string       `json:"status"`
	Seats     []string     `json:"seats,omitempty"`
	Places    []placesJSON `json:"general_admission,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	Owner     string       `json:"owner,omitempty"`
}

func toRow(r stockade.SeatRow) seatRowJSON {
	return seatRowJSON{Section: r.Section, Row: r.Row, First: r.First, Last: r.Last, Category: r.Category,
		Accessible: r.Accessible, Blocked: r.Blocked, AislesAfter: r.AislesAfter, Start: xyJSON(r.Start), Step: r.Step}
}

func toArea(a stockade.Area) areaJSON { return areaJSON(a) }

func toShow(e stockade.Event) showJSON {
	return showJSON{ID: e.ID, Name: e.Name, Focal: xyJSON(e.Focal), Rows: each(e.Rows, toRow), Areas: each(e.Areas, toArea),
		CreatedAt: wireTime(e.CreatedAt), Version: e.Version}
}

func toShowView(v stockade.EventView) showViewJSON {
	return showViewJSON{showJSON: toShow(v.Event), Counts: each(v.Counts, func(c stockade.SeatCount) seatCountJSON {
		return seatCountJSON{Section: c.Section, Category: c.Category, Status: string(c.Status), Count: c.Count}
	})}
}

func toSeat(s stockade.Seat) seatJSON {
	return seatJSON{ID: s.ID, Section: s.Section, Row: s.Row, Label: s.Label, Order: s.Order, Category: s.Category,
		Accessible: s.Accessible, Position: xyJSON(s.Position), Status: string(s.Status), HoldID: s.HoldID, BookingID: s.BookingID}
}

func toSeats(p stockade.SeatPage) seatsJSON {
	return seatsJSON{Seats: each(p.Seats, toSeat), NextCursor: p.Next}
}

func toSeatChange(c stockade.SeatChange) seatChangeJSON {
	return seatChangeJSON{ID: c.ID, At: wireTime(c.At), EventID: c.EventID, Seat: c.Seat, Area: c.Area, Quantity: c.Quantity,
		From: string(c.From), To: string(c.To), HoldID: c.HoldID, BookingID: c.BookingID, Actor: c.Actor}
}

func toSeatHistory(p stockade.SeatHistoryPage) seatHistoryJSON {
	return seatHistoryJSON{Changes: each(p.Changes, toSeatChange), NextCursor: p.Next}
}

func toPlaces(p stockade.Places) placesJSON { return placesJSON(p) }

func toHold(h stockade.Hold) holdJSON {
	return holdJSON{ID: h.ID, EventID: h.EventID, Status: string(h.Status), Seats: h.Seats, Places: each(h.Places, toPlaces),
		Split: h.Split, CreatedAt: wireTime(h.CreatedAt), ExpiresAt: wireTime(h.ExpiresAt), BookingID: h.BookingID,
		Owner: h.Owner, Version: h.Version}
}

func toBooking(b stockade.Booking) bookingJSON {
	return bookingJSON{ID: b.ID, EventID: b.EventID, HoldID: b.HoldID, Status: string(b.Status), Seats: b.Seats,
		Places: each(b.Places, toPlaces), CreatedAt: wireTime(b.CreatedAt), Owner: b.Owner}
}

// The conversions back, for Client. Lists the answer left out come back
// nil, as the domain has them.

// orNone returns the items of in in the other form, or nil if there are
// none.
func orNone[S, D any](in []S, f func(S) D) []D {
	if len(in) == 0 {
		return nil
	}
	return each(in, f)
}

func (r seatRowJSON) domain() stockade.SeatRow {
	return stockade.SeatRow{Section: r.Section, Row: r.Row, First: r.First, Last: r.Last, Category: r.Category,
		Accessible: r.Accessible, Blocked: r.Blocked, AislesAfter: r.AislesAfter, Start: stockade.SeatPoint(r.Start), Step: r.Step}
}

func (a areaJSON) domain() stockade.Area { return stockade.Area(a) }

func (s showJSON) domain() stockade.Event {
	return stockade.Event{ID: s.ID, Name: s.Name, Focal: stockade.SeatPoint(s.Focal), Rows: orNone(s.Rows, seatRowJSON.domain),
		Areas: orNone(s.Areas, areaJSON.domain), CreatedAt: s.CreatedAt, Version: s.Version}
}

func (v showViewJSON) domain() stockade.EventView {
	return stockade.EventView{Event: v.showJSON.domain(), Counts: each(v.Counts, func(c seatCountJSON) stockade.SeatCount {
		return stockade.SeatCount{Section: c.Section, Category: c.Category, Status: stockade.SeatStatus(c.Status), Count: c.Count}
	})}
}

func (s seatJSON) domain() stockade.Seat {
	return stockade.Seat{ID: s.ID, Section: s.Section, Row: s.Row, Label: s.Label, Order: s.Order, Category: s.Category,
		Accessible: s.Accessible, Position: stockade.SeatPoint(s.Position), Status: stockade.SeatStatus(s.Status),
		HoldID: s.HoldID, BookingID: s.BookingID}
}

func (j seatsJSON) domain() stockade.SeatPage {
	return stockade.SeatPage{Seats: each(j.Seats, seatJSON.domain), Next: j.NextCursor}
}

func (c seatChangeJSON) domain() stockade.SeatChange {
	return stockade.SeatChange{ID: c.ID, At: c.At, EventID: c.EventID, Seat: c.Seat, Area: c.Area, Quantity: c.Quantity,
		From: stockade.SeatStatus(c.From), To: stockade.SeatStatus(c.To), HoldID: c.HoldID, BookingID: c.BookingID, Actor: c.Actor}
}

func (j seatHistoryJSON) domain() stockade.SeatHistoryPage {
	return stockade.SeatHistoryPage{Changes: each(j.Changes, seatChangeJSON.domain), Next: j.NextCursor}
}

func (p placesJSON) domain() stockade.Places { return stockade.Places(p) }

func (h holdJSON) domain() stockade.Hold {
	return stockade.Hold{ID: h.ID, EventID: h.EventID, Status: stockade.HoldStatus(h.Status), Seats: h.Seats,
		Places: orNone(h.Places, placesJSON.domain), Split: h.Split, CreatedAt: h.CreatedAt, ExpiresAt: h.ExpiresAt,
		BookingID: h.BookingID, Owner: h.Owner, Version: h.Version}
}

func (b bookingJSON) domain() stockade.Booking {
	return stockade.Booking{ID: b.ID, EventID: b.EventID, HoldID: b.HoldID, Status: stockade.BookingStatus(b.Status),
		Seats: b.Seats, Places: orNone(b.Places, placesJSON.domain), CreatedAt: b.CreatedAt, Owner: b.Owner}
}

// Payments. The documents have the fields, and the names, of the domain
// types' JSON, so that the payload of a payment.* event reads like GET
// /v1/payments/{id}.

// paymentTargetJSON names what a payment pays for.
type paymentTargetJSON struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// paymentJSON is a payment, as the payment system reported it, and what
// it did to its target.
type paymentJSON struct {
	ID         string            `json:"id"`
	Target     paymentTargetJSON `json:"target"`
	Amount     int64             `json:"amount"`
	Currency   string            `json:"currency"`
	Status     string            `json:"status"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
	Resolution string            `json:"resolution,omitempty"`
	OrderID    string            `json:"order_id,omitempty"`
	BookingID  string            `json:"booking_id,omitempty"`
	// StuckAt is when the payment was found in flight after its target's
	// grace period; left out if it never was.
	StuckAt *time.Time `json:"stuck_at,omitempty"`
	Version int64      `json:"version"`
	Owner   string     `json:"owner,omitempty"`
}

// paymentsJSON is the answer of GET /v1/payments: a page of payments,
// newest first, and the opaque cursor of the next page.
type paymentsJSON struct {
	Payments   []paymentJSON `json:"payments"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// paymentChangeJSON is one change of a payment: a move of its status,
// or, with from equal to to, of its resolution or its being found stuck.
type paymentChangeJSON struct {
	PaymentID  string    `json:"payment_id"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Resolution string    `json:"resolution,omitempty"`
	At         time.Time `json:"at"`
	// Actor is the name of the API key that made the change, or where
	// the outcome came from ("webhook").
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// paymentHistoryJSON is the answer of GET /v1/payments/{id}/history:
// every change of the payment, oldest first.
type paymentHistoryJSON struct {
	Changes []paymentChangeJSON `json:"changes"`
}

func toPayment(p stockade.Payment) paymentJSON {
	out := paymentJSON{ID: p.ID, Target: paymentTargetJSON{Kind: string(p.Target.Kind), ID: p.Target.ID}, Amount: p.Amount,
		Currency: p.Currency, Status: string(p.Status), CreatedAt: wireTime(p.CreatedAt), UpdatedAt: wireTime(p.UpdatedAt),
		Resolution: string(p.Resolution), OrderID: p.Order, BookingID: p.Booking, Version: p.Version, Owner: p.Owner}
	if !p.StuckAt.IsZero() {
		at := wireTime(p.StuckAt)
		out.StuckAt = &at
	}
	return out
}

func toPayments(p stockade.PaymentPage) paymentsJSON {
	return paymentsJSON{Payments: each(p.Payments, toPayment), NextCursor: p.Next}
}

func toPaymentChange(c stockade.PaymentChange) paymentChangeJSON {
	return paymentChangeJSON{PaymentID: c.PaymentID, From: string(c.From), To: string(c.To), Resolution: string(c.Resolution),
		At: wireTime(c.At), Actor: c.Actor, Reason: c.Reason}
}

func toPaymentHistory(cs []stockade.PaymentChange) paymentHistoryJSON {
	return paymentHistoryJSON{Changes: each(cs, toPaymentChange)}
}

func (p paymentJSON) domain() stockade.Payment {
	out := stockade.Payment{ID: p.ID, Target: stockade.PaymentTarget{Kind: stockade.PaymentTargetKind(p.Target.Kind), ID: p.Target.ID},
		Amount: p.Amount, Currency: p.Currency, Status: stockade.PaymentStatus(p.Status), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		Resolution: stockade.PaymentResolution(p.Resolution), Order: p.OrderID, Booking: p.BookingID, Version: p.Version, Owner: p.Owner}
	if p.StuckAt != nil {
		out.StuckAt = *p.StuckAt
	}
	return out
}

func (j paymentsJSON) domain() stockade.PaymentPage {
	return stockade.PaymentPage{Payments: orNone(j.Payments, paymentJSON.domain), Next: j.NextCursor}
}

func (c paymentChangeJSON) domain() stockade.PaymentChange {
	return stockade.PaymentChange{PaymentID: c.PaymentID, From: stockade.PaymentStatus(c.From), To: stockade.PaymentStatus(c.To),
		Resolution: stockade.PaymentResolution(c.Resolution), At: c.At, Actor: c.Actor, Reason: c.Reason}
}

func (j paymentHistoryJSON) domain() []stockade.PaymentChange {
	return orNone(j.Changes, paymentChangeJSON.domain)
}
