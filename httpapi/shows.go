package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/stockade/stockade"
)

// Shows, holds and bookings: PUT and GET /v1/shows, the seats and their
// history, holds (extended, confirmed into a booking, released) and
// bookings, the documents they read and answer, and the Client's calls
// of them (stockade.Show and the rest). The documents have the fields, and the names, of the domain
// types' JSON, so that the payload of a hold.* event reads like GET
// /v1/holds/{id}.

// The request bodies and queries.

// showBody is the body of PUT /v1/shows/{id}: the show without its id,
// which is in the path.
type showBody struct {
	Name  *string           `json:"name"`
	Focal json.RawMessage   `json:"focal"`
	Rows  []json.RawMessage `json:"rows"`
	Areas []json.RawMessage `json:"areas"`
}

type xyBody struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}

type rowBody struct {
	Section     *string         `json:"section"`
	Row         *string         `json:"row"`
	First       *int            `json:"first"`
	Last        *int            `json:"last"`
	Category    *string         `json:"category"`
	Accessible  []*int          `json:"accessible"`
	Blocked     []*int          `json:"blocked"`
	AislesAfter []*int          `json:"aisles_after"`
	Start       json.RawMessage `json:"start"`
	Step        *float64        `json:"step"`
}

type areaBody struct {
	Name     *string `json:"name"`
	Category *string `json:"category"`
	Capacity *int64  `json:"capacity"`
}

// show decodes the nested parts of b into the show the service
// validates (stockade.Show.Validate). focal and a row's start are the
// origin when left out.
func (b showBody) event(id string) (stockade.Show, error) {
	if err := checkID("id", id); err != nil {
		return stockade.Show{}, err
	}
	if b.Name == nil {
		return stockade.Show{}, required("name")
	}
	ev := stockade.Show{ID: id, Name: *b.Name}
	var err error
	if ev.Focal, err = pointOf(b.Focal, "focal"); err != nil {
		return ev, err
	}
	if ev.Rows, err = objects("rows", b.Rows, rowBody.row); err != nil {
		return ev, err
	}
	ev.Areas, err = objects("areas", b.Areas, areaBody.area)
	return ev, err
}

func (b rowBody) row(path string) (stockade.SeatRow, error) {
	var r stockade.SeatRow
	switch {
	case b.Section == nil:
		return r, required(path + ".section")
	case b.Row == nil:
		return r, required(path + ".row")
	case b.First == nil:
		return r, required(path + ".first")
	case b.Last == nil:
		return r, required(path + ".last")
	}
	r = stockade.SeatRow{Section: *b.Section, Row: *b.Row, First: *b.First, Last: *b.Last}
	var err error
	if r.Category, err = optionalID(path+".category", b.Category); err != nil {
		return r, err
	}
	if b.Step != nil {
		r.Step = *b.Step
	}
	if r.Accessible, err = numbers(path+".accessible", b.Accessible); err != nil {
		return r, err
	}
	if r.Blocked, err = numbers(path+".blocked", b.Blocked); err != nil {
		return r, err
	}
	if r.AislesAfter, err = numbers(path+".aisles_after", b.AislesAfter); err != nil {
		return r, err
	}
	r.Start, err = pointOf(b.Start, path+".start")
	return r, err
}

func (b areaBody) area(path string) (stockade.Area, error) {
	switch {
	case b.Name == nil:
		return stockade.Area{}, required(path + ".name")
	case b.Capacity == nil:
		return stockade.Area{}, required(path + ".capacity")
	}
	category, err := optionalID(path+".category", b.Category)
	return stockade.Area{Name: *b.Name, Category: category, Capacity: *b.Capacity}, err
}

// optionalID returns an optional identifier, "" when left out. One that
// is given must name something: in the domain, "" means none.
func optionalID(path string, id *string) (string, error) {
	if id == nil {
		return "", nil
	}
	return *id, checkID(path, *id)
}

// pointOf decodes a position named path; left out or null, the origin.
func pointOf(raw json.RawMessage, path string) (stockade.SeatPoint, error) {
	if len(raw) == 0 || isNull(raw) {
		return stockade.SeatPoint{}, nil
	}
	var p xyBody
	if err := decode(raw, &p, path); err != nil {
		return stockade.SeatPoint{}, err
	}
	switch {
	case p.X == nil:
		return stockade.SeatPoint{}, required(path + ".x")
	case p.Y == nil:
		return stockade.SeatPoint{}, required(path + ".y")
	}
	return stockade.SeatPoint{X: *p.X, Y: *p.Y}, nil
}

// numbers returns a list of seat numbers named path, refusing a null in
// it; nil if it is empty.
func numbers(path string, ns []*int) ([]int, error) {
	if len(ns) == 0 {
		return nil, nil
	}
	out := make([]int, len(ns))
	for i, n := range ns {
		if n == nil {
			return nil, invalidf("%s[%d]: want an integer, got null", path, i)
		}
		out[i] = *n
	}
	return out, nil
}

// objects decodes raws, the items of the list field, each an object that
// decodes into a B with its path ("rows[2]") and that conv turns into a
// T. It returns nil for an empty list.
func objects[B, T any](field string, raws []json.RawMessage, conv func(B, string) (T, error)) ([]T, error) {
	if len(raws) == 0 {
		return nil, nil
	}
	out := make([]T, 0, len(raws))
	for i, raw := range raws {
		path := field + "[" + strconv.Itoa(i) + "]"
		if isNull(raw) {
			return nil, invalidf("%s: want an object, got null", path)
		}
		var b B
		if err := decode(raw, &b, path); err != nil {
			return nil, err
		}
		v, err := conv(b, path)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// holdBody is the body of POST /v1/shows/{id}/holds.
type holdBody struct {
	Seats      []string          `json:"seats"`
	Best       []json.RawMessage `json:"best_available"`
	Places     []json.RawMessage `json:"general_admission"`
	TTLSeconds *int64            `json:"ttl_seconds"`
	Metadata   map[string]string `json:"metadata"`
	Admission  json.RawMessage   `json:"admission"`
}

type bestBody struct {
	Quantity   *int    `json:"quantity"`
	Category   *string `json:"category"`
	Section    *string `json:"section"`
	Accessible *bool   `json:"accessible"`
	AllowSplit *bool   `json:"allow_split"`
}

type placesBody struct {
	Area     *string `json:"area"`
	Quantity *int64  `json:"quantity"`
}

// longestHold names the ceiling of a hold's ttl_seconds, which is the
// service's (stockade.HoldRequest.Validate).
const longestHold = "the service's longest hold"

// request decodes the nested parts of b into the request for the show
// showID that the service validates (stockade.HoldRequest.Validate).
func (b holdBody) request(showID string) (stockade.HoldRequest, error) {
	req := stockade.HoldRequest{ShowID: showID}
	if len(b.Seats) > 0 {
		req.Seats = b.Seats
	}
	var err error
	if req.Best, err = objects("best_available", b.Best, bestBody.best); err != nil {
		return req, err
	}
	if req.Places, err = objects("general_admission", b.Places, placesBody.places); err != nil {
		return req, err
	}
	if b.TTLSeconds != nil {
		if req.TTL, err = ttlOf(*b.TTLSeconds, longestHold); err != nil {
			return req, err
		}
	}
	if len(b.Metadata) > 0 {
		req.Metadata = b.Metadata
	}
	req.Admission, err = admissionOf(b.Admission)
	return req, err
}

func (b bestBody) best(path string) (stockade.BestSeats, error) {
	if b.Quantity == nil {
		return stockade.BestSeats{}, required(path + ".quantity")
	}
	best := stockade.BestSeats{Quantity: *b.Quantity}
	var err error
	if best.Category, err = optionalID(path+".category", b.Category); err != nil {
		return best, err
	}
	if best.Section, err = optionalID(path+".section", b.Section); err != nil {
		return best, err
	}
	if b.Accessible != nil {
		best.Accessible = *b.Accessible
	}
	if b.AllowSplit != nil {
		best.AllowSplit = *b.AllowSplit
	}
	return best, nil
}

func (b placesBody) places(path string) (stockade.Places, error) {
	switch {
	case b.Area == nil:
		return stockade.Places{}, required(path + ".area")
	case b.Quantity == nil:
		return stockade.Places{}, required(path + ".quantity")
	}
	return stockade.Places{Area: *b.Area, Quantity: *b.Quantity}, nil
}

// extendBody is the body of POST /v1/holds/{id}/extend.
type extendBody struct {
	TTLSeconds *int64 `json:"ttl_seconds"`
}

func (b extendBody) ttl() (time.Duration, error) {
	if b.TTLSeconds == nil {
		return 0, required("ttl_seconds")
	}
	return ttlOf(*b.TTLSeconds, longestHold)
}

// seatQuery reads the query of GET /v1/shows/{id}/seats. The status is
// checked by the service (stockade.SeatQuery.Validate).
func seatQuery(r *http.Request) (stockade.SeatQuery, error) {
	var q stockade.SeatQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSeatLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			if v == "" {
				return invalidf("status: must not be empty; leave it out for seats of every status")
			}
			q.Status = stockade.SeatStatus(v)
			return nil
		case "section":
			q.Section = v
			return checkID("section", v)
		}
		return invalidf("query: unknown parameter %q (want status, section, cursor, limit)", name)
	})
	return q, err
}

// seatHistoryQuery reads the query of GET /v1/shows/{id}/history. A seat
// and an area together are refused by the service
// (stockade.SeatHistoryQuery.Validate).
func seatHistoryQuery(r *http.Request) (stockade.SeatHistoryQuery, error) {
	var q stockade.SeatHistoryQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSeatHistoryLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "seat":
			q.Seat = v
		case "area":
			q.Area = v
		default:
			return invalidf("query: unknown parameter %q (want seat, area, cursor, limit)", name)
		}
		return checkID(name, v)
	})
	return q, err
}

// The JSON documents.

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
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
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
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

func toRow(r stockade.SeatRow) seatRowJSON {
	return seatRowJSON{Section: r.Section, Row: r.Row, First: r.First, Last: r.Last, Category: r.Category,
		Accessible: r.Accessible, Blocked: r.Blocked, AislesAfter: r.AislesAfter, Start: xyJSON(r.Start), Step: r.Step}
}

func toArea(a stockade.Area) areaJSON { return areaJSON(a) }

func toShow(e stockade.Show) showJSON {
	return showJSON{ID: e.ID, Name: e.Name, Focal: xyJSON(e.Focal), Rows: each(e.Rows, toRow), Areas: each(e.Areas, toArea),
		CreatedAt: wireTime(e.CreatedAt), Version: e.Version}
}

func toShowView(v stockade.ShowView) showViewJSON {
	return showViewJSON{showJSON: toShow(v.Show), Counts: each(v.Counts, func(c stockade.SeatCount) seatCountJSON {
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
	return seatChangeJSON{ID: c.ID, At: wireTime(c.At), EventID: c.ShowID, Seat: c.Seat, Area: c.Area, Quantity: c.Quantity,
		From: string(c.From), To: string(c.To), HoldID: c.HoldID, BookingID: c.BookingID, Actor: c.Actor}
}

func toSeatHistory(p stockade.SeatHistoryPage) seatHistoryJSON {
	return seatHistoryJSON{Changes: each(p.Changes, toSeatChange), NextCursor: p.Next}
}

func toPlaces(p stockade.Places) placesJSON { return placesJSON(p) }

func toHold(h stockade.Hold) holdJSON {
	return holdJSON{ID: h.ID, EventID: h.ShowID, Status: string(h.Status), Seats: h.Seats, Places: each(h.Places, toPlaces),
		Split: h.Split, CreatedAt: wireTime(h.CreatedAt), ExpiresAt: wireTime(h.ExpiresAt), BookingID: h.BookingID,
		Owner: h.Owner, Version: h.Version, Metadata: h.Metadata}
}

func toBooking(b stockade.Booking) bookingJSON {
	return bookingJSON{ID: b.ID, EventID: b.ShowID, HoldID: b.HoldID, Status: string(b.Status), Seats: b.Seats,
		Places: each(b.Places, toPlaces), CreatedAt: wireTime(b.CreatedAt), Owner: b.Owner, Metadata: b.Metadata}
}

// The conversions back, for Client. Lists the answer left out come back
// nil, as the domain has them.

func (r seatRowJSON) domain() stockade.SeatRow {
	return stockade.SeatRow{Section: r.Section, Row: r.Row, First: r.First, Last: r.Last, Category: r.Category,
		Accessible: r.Accessible, Blocked: r.Blocked, AislesAfter: r.AislesAfter, Start: stockade.SeatPoint(r.Start), Step: r.Step}
}

func (a areaJSON) domain() stockade.Area { return stockade.Area(a) }

func (s showJSON) domain() stockade.Show {
	return stockade.Show{ID: s.ID, Name: s.Name, Focal: stockade.SeatPoint(s.Focal), Rows: orNone(s.Rows, seatRowJSON.domain),
		Areas: orNone(s.Areas, areaJSON.domain), CreatedAt: s.CreatedAt, Version: s.Version}
}

func (v showViewJSON) domain() stockade.ShowView {
	return stockade.ShowView{Show: v.showJSON.domain(), Counts: each(v.Counts, func(c seatCountJSON) stockade.SeatCount {
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
	return stockade.SeatChange{ID: c.ID, At: c.At, ShowID: c.EventID, Seat: c.Seat, Area: c.Area, Quantity: c.Quantity,
		From: stockade.SeatStatus(c.From), To: stockade.SeatStatus(c.To), HoldID: c.HoldID, BookingID: c.BookingID, Actor: c.Actor}
}

func (j seatHistoryJSON) domain() stockade.SeatHistoryPage {
	return stockade.SeatHistoryPage{Changes: each(j.Changes, seatChangeJSON.domain), Next: j.NextCursor}
}

func (p placesJSON) domain() stockade.Places { return stockade.Places(p) }

func (h holdJSON) domain() stockade.Hold {
	return stockade.Hold{ID: h.ID, ShowID: h.EventID, Status: stockade.HoldStatus(h.Status), Seats: h.Seats,
		Places: orNone(h.Places, placesJSON.domain), Split: h.Split, CreatedAt: h.CreatedAt, ExpiresAt: h.ExpiresAt,
		BookingID: h.BookingID, Owner: h.Owner, Version: h.Version, Metadata: h.Metadata}
}

func (b bookingJSON) domain() stockade.Booking {
	return stockade.Booking{ID: b.ID, ShowID: b.EventID, HoldID: b.HoldID, Status: stockade.BookingStatus(b.Status),
		Seats: b.Seats, Places: orNone(b.Places, placesJSON.domain), CreatedAt: b.CreatedAt, Owner: b.Owner, Metadata: b.Metadata}
}

// The handlers.

func viewShow(e stockade.Show) any                   { return toShow(e) }
func viewShowView(v stockade.ShowView) any           { return toShowView(v) }
func viewSeats(p stockade.SeatPage) any              { return toSeats(p) }
func viewSeatHistory(p stockade.SeatHistoryPage) any { return toSeatHistory(p) }
func viewHold(h stockade.Hold) any                   { return toHold(h) }
func viewBooking(b stockade.Booking) any             { return toBooking(b) }
func viewHolds(p stockade.HoldPage) any              { return toHolds(p) }
func viewBookings(p stockade.BookingPage) any        { return toBookings(p) }

// showsJSON is a page of shows' heads (no rows nor areas), newest first.
type showsJSON struct {
	Shows      []showJSON `json:"shows"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

func viewShows(p stockade.ShowPage) any {
	return showsJSON{Shows: each(p.Shows, toShow), NextCursor: p.Next}
}

func (j showsJSON) domain() stockade.ShowPage {
	return stockade.ShowPage{Shows: each(j.Shows, showJSON.domain), Next: j.NextCursor}
}

func (s *Server) listShows(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err == nil && q.Status != "" {
		err = invalidf("query: unknown parameter \"status\" (want created_after, created_before, cursor, limit): shows have no status")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewShows, func(ctx context.Context, _ *stockade.Idempotency) (stockade.ShowPage, error) {
		return s.svc.Shows(ctx, q)
	})
}

// holdsJSON is a page of holds, newest first.
type holdsJSON struct {
	Holds      []holdJSON `json:"holds"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

// bookingsJSON is a page of bookings, newest first.
type bookingsJSON struct {
	Bookings   []bookingJSON `json:"bookings"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

func toHolds(p stockade.HoldPage) holdsJSON {
	return holdsJSON{Holds: each(p.Holds, toHold), NextCursor: p.Next}
}

func toBookings(p stockade.BookingPage) bookingsJSON {
	return bookingsJSON{Bookings: each(p.Bookings, toBooking), NextCursor: p.Next}
}

func (j holdsJSON) domain() stockade.HoldPage {
	return stockade.HoldPage{Holds: each(j.Holds, holdJSON.domain), Next: j.NextCursor}
}

func (j bookingsJSON) domain() stockade.BookingPage {
	return stockade.BookingPage{Bookings: each(j.Bookings, bookingJSON.domain), Next: j.NextCursor}
}

// showListQuery is listQuery of a show's holds or bookings, the show in
// the path; across shows, none.
func showListQuery(r *http.Request, ofShow bool) (stockade.ListQuery, error) {
	q, err := listQuery(r)
	if err == nil && ofShow {
		q.ShowID = r.PathValue("id")
		err = checkID("id", q.ShowID)
	}
	return q, err
}

func (s *Server) listHolds(w http.ResponseWriter, r *http.Request)     { s.holds(w, r, false) }
func (s *Server) listShowHolds(w http.ResponseWriter, r *http.Request) { s.holds(w, r, true) }

func (s *Server) holds(w http.ResponseWriter, r *http.Request, ofShow bool) {
	q, err := showListQuery(r, ofShow)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewHolds, func(ctx context.Context, _ *stockade.Idempotency) (stockade.HoldPage, error) {
		return s.svc.Holds(ctx, q)
	})
}

func (s *Server) listBookings(w http.ResponseWriter, r *http.Request)     { s.bookings(w, r, false) }
func (s *Server) listShowBookings(w http.ResponseWriter, r *http.Request) { s.bookings(w, r, true) }

func (s *Server) bookings(w http.ResponseWriter, r *http.Request, ofShow bool) {
	q, err := showListQuery(r, ofShow)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewBookings, func(ctx context.Context, _ *stockade.Idempotency) (stockade.BookingPage, error) {
		return s.svc.Bookings(ctx, q)
	})
}

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
	call(s, w, r, body, http.StatusOK, viewShow, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Show, error) {
		return s.svc.PutShow(ctx, ev, idem)
	})
}

func (s *Server) getShow(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewShowView, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.ShowView, error) {
		return s.svc.Show(ctx, id)
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

func (s *Server) updateHold(w http.ResponseWriter, r *http.Request) {
	updateByID(s, w, r, viewHold, s.svc.UpdateHold)
}

func (s *Server) updateBooking(w http.ResponseWriter, r *http.Request) {
	updateByID(s, w, r, viewBooking, s.svc.UpdateBooking)
}

func (s *Server) getBooking(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewBooking, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Booking, error) {
		return s.svc.Booking(ctx, id)
	})
}

func (s *Server) cancelBooking(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewBooking, s.svc.CancelBooking)
}

// The Client's calls.

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

func showBodyOf(e stockade.Show) showBodyJSON {
	return showBodyJSON{Name: e.Name, Focal: xyJSON(e.Focal), Rows: each(e.Rows, toRow),
		Areas: each(e.Areas, func(a stockade.Area) areaBodyJSON {
			return areaBodyJSON{Name: a.Name, Category: a.Category, Capacity: a.Capacity}
		})}
}

// holdBodyJSON is the body of POST /v1/shows/{id}/holds as the client
// sends it.
type holdBodyJSON struct {
	Seats      []string          `json:"seats,omitempty"`
	Best       []bestSeatsJSON   `json:"best_available,omitempty"`
	Places     []placesJSON      `json:"general_admission,omitempty"`
	TTLSeconds int64             `json:"ttl_seconds,omitempty"`
	Metadata   stockade.Metadata `json:"metadata,omitempty"`
	Admission  *admissionJSON    `json:"admission,omitempty"`
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
		Places: each(req.Places, toPlaces), TTLSeconds: seconds(req.TTL), Metadata: req.Metadata, Admission: admissionBodyOf(req.Admission)}
}

// PutShow implements stockade.BookingService: PUT /v1/shows/{id}.
func (c *Client) PutShow(ctx context.Context, e stockade.Show, idem *stockade.Idempotency) (stockade.Show, error) {
	var out showJSON
	if err := c.do(ctx, http.MethodPut, "/v1/shows/"+seg(e.ID), showBodyOf(e), &out, idem); err != nil {
		return stockade.Show{}, err
	}
	return out.domain(), nil
}

// Show implements stockade.BookingService: GET /v1/shows/{id}.
func (c *Client) Show(ctx context.Context, id string) (stockade.ShowView, error) {
	var out showViewJSON
	if err := c.do(ctx, http.MethodGet, "/v1/shows/"+seg(id), nil, &out, nil); err != nil {
		return stockade.ShowView{}, err
	}
	return out.domain(), nil
}

// Seats implements stockade.BookingService: one page, whose Next is the
// server's cursor, to pass back as is in q.Cursor.
func (c *Client) Seats(ctx context.Context, showID string, q stockade.SeatQuery) (stockade.SeatPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	if q.Section != "" {
		v.Set("section", q.Section)
	}
	var out seatsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/shows/"+seg(showID)+"/seats", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SeatPage{}, err
	}
	return out.domain(), nil
}

// SeatHistory implements stockade.BookingService: one page, oldest row
// first, whose Next is the server's cursor, to pass back as is in
// q.Cursor.
func (c *Client) SeatHistory(ctx context.Context, showID string, q stockade.SeatHistoryQuery) (stockade.SeatHistoryPage, error) {
	v := url.Values{}
	if q.Seat != "" {
		v.Set("seat", q.Seat)
	}
	if q.Area != "" {
		v.Set("area", q.Area)
	}
	var out seatHistoryJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/shows/"+seg(showID)+"/history", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SeatHistoryPage{}, err
	}
	return out.domain(), nil
}

// HoldSeats implements stockade.BookingService. The TTL goes over the
// wire in whole seconds, rounded up.
func (c *Client) HoldSeats(ctx context.Context, req stockade.HoldRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodPost, "/v1/shows/"+seg(req.ShowID)+"/holds", holdBodyOf(req), idem)
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

// UpdateHold implements stockade.BookingService.
func (c *Client) UpdateHold(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return c.hold(ctx, http.MethodPatch, "/v1/holds/"+seg(id), updateBodyOf(req), idem)
}

// UpdateBooking implements stockade.BookingService.
func (c *Client) UpdateBooking(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Booking, error) {
	var out bookingJSON
	if err := c.do(ctx, http.MethodPatch, "/v1/bookings/"+seg(id), updateBodyOf(req), &out, idem); err != nil {
		return stockade.Booking{}, err
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

// Shows implements stockade.BookingService.
func (c *Client) Shows(ctx context.Context, q stockade.ListQuery) (stockade.ShowPage, error) {
	var out showsJSON
	err := c.do(ctx, http.MethodGet, listPath("/v1/shows", q), nil, &out, nil)
	return out.domain(), err
}

// Holds implements stockade.BookingService: GET /v1/holds, or a show's
// (/v1/shows/{id}/holds) when q names one.
func (c *Client) Holds(ctx context.Context, q stockade.ListQuery) (stockade.HoldPage, error) {
	var out holdsJSON
	err := c.do(ctx, http.MethodGet, listPath(showListPath(q.ShowID, "holds"), q), nil, &out, nil)
	return out.domain(), err
}

// Bookings implements stockade.BookingService, as Holds.
func (c *Client) Bookings(ctx context.Context, q stockade.ListQuery) (stockade.BookingPage, error) {
	var out bookingsJSON
	err := c.do(ctx, http.MethodGet, listPath(showListPath(q.ShowID, "bookings"), q), nil, &out, nil)
	return out.domain(), err
}

// showListPath is the path of the list of what (holds or bookings): a
// show's, or across shows without one.
func showListPath(show, what string) string {
	if show == "" {
		return "/v1/" + what
	}
	return "/v1/shows/" + seg(show) + "/" + what
}

func (c *Client) booking(ctx context.Context, method, path string, idem *stockade.Idempotency) (stockade.Booking, error) {
	var out bookingJSON
	if err := c.do(ctx, method, path, nil, &out, idem); err != nil {
		return stockade.Booking{}, err
	}
	return out.domain(), nil
}
