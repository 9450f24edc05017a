package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// galaMap is the body of PUT /v1/shows/gala: stalls of two rows of ten,
// an aisle after seat 5 of row A, row B with accessible seats 1 and 10
// and seat 5 blocked, a balcony of four, and a standing area of 20.
const galaMap = `{"name":"Gala","focal":{"x":5.5,"y":-3},"rows":[` +
	`{"section":"stalls","row":"A","first":1,"last":10,"category":"A","aisles_after":[5],"start":{"x":1,"y":0}},` +
	`{"section":"stalls","row":"B","first":1,"last":10,"category":"B","accessible":[1,10],"blocked":[5],"start":{"x":1,"y":1}},` +
	`{"section":"balcony","row":"A","first":1,"last":4,"category":"C","start":{"x":2,"y":10},"step":2}],` +
	`"areas":[{"name":"standing","category":"GA","capacity":20}]}`

// gala makes the show gala on a's server.
func (a *api) gala() {
	a.t.Helper()
	a.must(200, "PUT", "/v1/shows/gala", galaMap)
}

// decodeAs decodes a JSON answer into a T.
func decodeAs[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %T from %s: %v", v, r, err)
	}
	return v
}

// seatState is what a refused request must leave as it was: the show
// gala with its counts, every seat, and every domain event (which
// every hold and booking writes).
func (a *api) seatState() string {
	a.t.Helper()
	ctx := sys(a.t)
	var b strings.Builder
	add := func(v any, err error) {
		if err != nil {
			a.t.Fatal(err)
		}
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	add(a.eng.Show(ctx, "gala"))
	add(a.eng.Seats(ctx, "gala", stockade.SeatQuery{Limit: stockade.MaxSeatLimit}))
	add(a.eng.Events(ctx, stockade.DomainEventQuery{Limit: stockade.MaxEventLimit}))
	return b.String()
}

// allSeats follows the cursors of GET path (a seats query without a
// cursor), limit seats a page, and returns every seat and the number of
// pages.
func (a *api) allSeats(path string, limit int) ([]seatJSON, int) {
	a.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var seats []seatJSON
	cursor, pages := "", 0
	for {
		q := fmt.Sprintf("%slimit=%d", sep, limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		page := decodeAs[seatsJSON](a.t, a.must(200, "GET", path+q, nil))
		pages++
		if len(page.Seats) > limit || (page.NextCursor != "" && len(page.Seats) != limit) {
			a.t.Fatalf("page %d of %s: %d seats and next_cursor %q, limit %d", pages, path, len(page.Seats), page.NextCursor, limit)
		}
		seats = append(seats, page.Seats...)
		if page.NextCursor == "" {
			return seats, pages
		}
		cursor = page.NextCursor
	}
}

// allHistory follows the cursors of GET path (a history query without a
// cursor), limit rows a page, as allSeats does, and returns every row and
// the number of pages.
func (a *api) allHistory(path string, limit int) ([]seatChangeJSON, int) {
	a.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var rows []seatChangeJSON
	cursor, pages := "", 0
	for {
		q := fmt.Sprintf("%slimit=%d", sep, limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		page := decodeAs[seatHistoryJSON](a.t, a.must(200, "GET", path+q, nil))
		pages++
		if len(page.Changes) > limit || (page.NextCursor != "" && len(page.Changes) != limit) {
			a.t.Fatalf("page %d of %s: %d rows and next_cursor %q, limit %d", pages, path, len(page.Changes), page.NextCursor, limit)
		}
		rows = append(rows, page.Changes...)
		if page.NextCursor == "" {
			return rows, pages
		}
		cursor = page.NextCursor
	}
}

// moves returns the rows as "FROM>TO HOLD BOOKING QUANTITY" lines, with
// ids renamed as the golden files name them.
func moves(rows []seatChangeJSON, seen map[string]string) string {
	var b strings.Builder
	for _, c := range rows {
		fmt.Fprintf(&b, "%s>%s %s %s %d\n", c.From, c.To, c.HoldID, c.BookingID, c.Quantity)
	}
	return rename(b.String(), seen)
}

// seatNumber is the number of a seat id SECTION/ROW/N.
func seatNumber(t *testing.T, id string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(id[strings.LastIndex(id, "/")+1:], "%d", &n); err != nil {
		t.Fatalf("seat id %q: %v", id, err)
	}
	return n
}

// TestBookingFlow sells seats of a show through HTTP on SQLite: the map,
// its counts and seats, holds of named, best-available and standing
// places, the refusals, extending, confirming, releasing and cancelling,
// and the domain events that tell of them.
func TestBookingFlow(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)

	// The show, as it was given, with a version and its areas' counts.
	show := decodeAs[showJSON](t, a.must(200, "PUT", "/v1/shows/gala", galaMap))
	if show.ID != "gala" || show.Version != 1 || !show.CreatedAt.Equal(start) || len(show.Rows) != 3 ||
		!reflect.DeepEqual(show.Rows[1].Accessible, []int{1, 10}) || show.Rows[2].Step != 2 ||
		!reflect.DeepEqual(show.Areas, []areaJSON{{Name: "standing", Category: "GA", Capacity: 20}}) {
		t.Errorf("PUT /v1/shows/gala = %+v", show)
	}
	view := decodeAs[showViewJSON](t, a.must(200, "GET", "/v1/shows/gala", nil))
	want := []seatCountJSON{
		{Section: "balcony", Category: "C", Status: "free", Count: 4},
		{Section: "stalls", Category: "A", Status: "free", Count: 10},
		{Section: "stalls", Category: "B", Status: "blocked", Count: 1},
		{Section: "stalls", Category: "B", Status: "free", Count: 9},
	}
	if !reflect.DeepEqual(view.Counts, want) || !reflect.DeepEqual(view.showJSON, show) {
		t.Errorf("GET /v1/shows/gala = %+v\nwant counts %+v and the show as PUT answered", view, want)
	}

	// The seats a page at a time, in seat order: each once, the last page
	// without a cursor.
	seats, pages := a.allSeats("/v1/shows/gala/seats", 5)
	if len(seats) != 24 || pages != 5 {
		t.Fatalf("%d seats in %d pages of 5, want 24 in 5", len(seats), pages)
	}
	if !slices.IsSortedFunc(seats, func(x, y seatJSON) int { return x.domain().Compare(y.domain()) }) {
		t.Errorf("seats out of seat order: %+v", seats)
	}
	if s := seats[0]; s.ID != "balcony/A/1" || s.Position != (xyJSON{2, 10}) || seats[1].Position != (xyJSON{4, 10}) {
		t.Errorf("the first seats: %+v", seats[:2])
	}
	if a6 := seats[4+5]; a6.ID != "stalls/A/6" || a6.Order != 6 { // the aisle skips an order
		t.Errorf("the seat after the aisle: %+v", a6)
	}
	blocked := decodeAs[seatsJSON](t, a.must(200, "GET", "/v1/shows/gala/seats?status=blocked", nil))
	if len(blocked.Seats) != 1 || blocked.Seats[0].ID != "stalls/B/5" || blocked.NextCursor != "" {
		t.Errorf("blocked seats: %+v", blocked)
	}
	if balcony, _ := a.allSeats("/v1/shows/gala/seats?section=balcony&status=free", 3); len(balcony) != 4 {
		t.Errorf("free balcony seats: %+v", balcony)
	}

	// Holds: named seats, the best three of category A, standing places.
	named := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2","stalls/A/1"]}`))
	if named.Status != "held" || !slices.Equal(named.Seats, []string{"stalls/A/1", "stalls/A/2"}) || named.EventID != "gala" ||
		!named.ExpiresAt.Equal(start.Add(15*time.Minute)) || named.Version != 1 || named.Split {
		t.Errorf("named hold = %+v (seats in seat order, 15 minutes by default)", named)
	}
	best := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":3,"category":"A"}],"ttl_seconds":600}`))
	if len(best.Seats) != 3 || best.Split || !best.ExpiresAt.Equal(start.Add(10*time.Minute)) {
		t.Fatalf("best hold = %+v", best)
	}
	first := seatNumber(t, best.Seats[0])
	for i, id := range best.Seats {
		if n := seatNumber(t, id); !strings.HasPrefix(id, "stalls/A/") || n != first+i || (first <= 5) != (n <= 5) {
			t.Errorf("best seats %v: not side by side in row A", best.Seats)
		}
	}
	places := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"general_admission":[{"area":"standing","quantity":4}],"ttl_seconds":60}`))
	if len(places.Seats) != 0 || !reflect.DeepEqual(places.Places, []placesJSON{{Area: "standing", Quantity: 4}}) {
		t.Errorf("standing hold = %+v", places)
	}
	split := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":2,"accessible":true,"allow_split":true}]}`))
	if !split.Split || !slices.Equal(split.Seats, []string{"stalls/B/1", "stalls/B/10"}) {
		t.Errorf("accessible seats apart = %+v", split)
	}
	a.must(200, "DELETE", "/v1/holds/"+split.ID, nil)

	// The counts follow, and agree with the seats.
	view = decodeAs[showViewJSON](t, a.must(200, "GET", "/v1/shows/gala", nil))
	seats, _ = a.allSeats("/v1/shows/gala/seats", 1000)
	counted := map[seatCountJSON]int64{}
	for _, s := range seats {
		counted[seatCountJSON{Section: s.Section, Category: s.Category, Status: s.Status}]++
		if (s.Status == "held") != (s.HoldID != "") {
			t.Errorf("seat %+v", s)
		}
	}
	for _, c := range view.Counts {
		n := c.Count
		c.Count = 0
		if counted[c] != n {
			t.Errorf("count %+v: %d, the seats say %d", c, n, counted[c])
		}
		delete(counted, c)
	}
	if len(counted) > 0 || view.Areas[0].Held != 4 {
		t.Errorf("counts %+v miss %v; areas %+v", view.Counts, counted, view.Areas)
	}

	// Refusals: the code, a detail that says why, and nothing changed.
	before := a.seatState()
	for _, tc := range []struct {
		name, path, body string
		status           int
		code, detail     string
	}{
		{"named seat held", "/v1/shows/gala/holds", `{"seats":["stalls/A/9","stalls/A/1"]}`, 409, stockade.ESeatsUnavailable, "stalls/A/1 (held)"},
		{"named seat blocked", "/v1/shows/gala/holds", `{"seats":["stalls/B/5"]}`, 409, stockade.ESeatsUnavailable, "stalls/B/5 (blocked)"},
		{"too few of a category", "/v1/shows/gala/holds", `{"best_available":[{"quantity":5,"category":"C"}]}`, 409, stockade.ESoldOut, "5 free seats of category C asked, 4 left"},
		{"not side by side", "/v1/shows/gala/holds", `{"best_available":[{"quantity":2,"accessible":true}]}`, 409, stockade.ESoldOut, "allow_split"},
		{"standing sold out", "/v1/shows/gala/holds", `{"general_admission":[{"area":"standing","quantity":17}]}`, 409, stockade.ESoldOut, "17 places asked, 16 left"},
		{"all or nothing", "/v1/shows/gala/holds", `{"seats":["stalls/A/9"],"general_admission":[{"area":"standing","quantity":17}]}`, 409, stockade.ESoldOut, "standing"},
		{"unknown seat", "/v1/shows/gala/holds", `{"seats":["stalls/Z/1"]}`, 404, stockade.ENotFound, `no seat "stalls/Z/1"`},
		{"unknown area", "/v1/shows/gala/holds", `{"general_admission":[{"area":"vip","quantity":1}]}`, 404, stockade.ENotFound, `no area "vip"`},
		{"unknown show", "/v1/shows/opera/holds", `{"seats":["stalls/A/9"]}`, 404, stockade.ENotFound, `"opera" not found`},
		{"map drops held seats", "/v1/shows/gala", strings.Replace(galaMap, `"first":1,"last":10,"category":"A"`, `"first":3,"last":10,"category":"A"`, 1), 409, stockade.EInvalidState, "stalls/A/1 (held), stalls/A/2 (held)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if !strings.HasSuffix(tc.path, "/holds") {
				method = "PUT"
			}
			p := a.must(tc.status, method, tc.path, tc.body).problem(t)
			if p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %q %q, want %q containing %q", p.Code, p.Detail, tc.code, tc.detail)
			}
		})
	}
	if after := a.seatState(); after != before {
		t.Errorf("refusals changed the show:\n--- before\n%s--- after\n%s", before, after)
	}

	// Extend, within the longest hold (2 hours from its creation).
	a.clock.Advance(5 * time.Minute)
	ext := decodeAs[holdJSON](t, a.must(200, "POST", "/v1/holds/"+named.ID+"/extend", `{"ttl_seconds":1800}`))
	if !ext.ExpiresAt.Equal(start.Add(35*time.Minute)) || ext.Version != 2 || ext.Status != "held" {
		t.Errorf("extended = %+v, want expires_at %v and version 2", ext, start.Add(35*time.Minute))
	}
	if p := a.must(400, "POST", "/v1/holds/"+named.ID+"/extend", `{"ttl_seconds":7200}`).problem(t); !strings.Contains(p.Detail, "may last until") {
		t.Errorf("extension past the longest hold: %+v", p)
	}

	// The standing hold lapsed (60 s): confirming it is 410, and gives
	// its places back.
	if p := a.must(410, "POST", "/v1/holds/"+places.ID+"/confirm", nil).problem(t); p.Code != stockade.EHoldExpired || !strings.Contains(p.Detail, places.ID) {
		t.Errorf("confirming a lapsed hold: %+v", p)
	}
	if h := decodeAs[holdJSON](t, a.must(200, "GET", "/v1/holds/"+places.ID, nil)); h.Status != "expired" {
		t.Errorf("the lapsed hold = %+v", h)
	}
	if p := a.must(410, "POST", "/v1/holds/"+places.ID+"/extend", `{"ttl_seconds":60}`).problem(t); p.Code != stockade.EHoldExpired {
		t.Errorf("extending an expired hold: %+v", p)
	}

	// Confirm: the seats are booked, the hold names its booking; again,
	// the same booking.
	bk := decodeAs[bookingJSON](t, a.must(200, "POST", "/v1/holds/"+named.ID+"/confirm", nil))
	if bk.Status != "booked" || bk.HoldID != named.ID || !slices.Equal(bk.Seats, named.Seats) || bk.EventID != "gala" {
		t.Errorf("booking = %+v", bk)
	}
	if again := decodeAs[bookingJSON](t, a.must(200, "POST", "/v1/holds/"+named.ID+"/confirm", nil)); again.ID != bk.ID {
		t.Errorf("confirming again made booking %s, then %s", bk.ID, again.ID)
	}
	if h := decodeAs[holdJSON](t, a.must(200, "GET", "/v1/holds/"+named.ID, nil)); h.Status != "confirmed" || h.BookingID != bk.ID {
		t.Errorf("the confirmed hold = %+v", h)
	}
	if got := decodeAs[bookingJSON](t, a.must(200, "GET", "/v1/bookings/"+bk.ID, nil)); !reflect.DeepEqual(got, bk) {
		t.Errorf("GET booking = %+v, confirm answered %+v", got, bk)
	}
	for _, rq := range []struct{ method, path, body, code, detail string }{
		{"DELETE", "/v1/holds/" + named.ID, "", stockade.EInvalidState, "cancel the booking instead"},
		{"POST", "/v1/holds/" + named.ID + "/extend", `{"ttl_seconds":60}`, stockade.EInvalidState, "is confirmed, not held"},
	} {
		if p := a.must(409, rq.method, rq.path, orNil(rq.body)).problem(t); p.Code != rq.code || !strings.Contains(p.Detail, rq.detail) {
			t.Errorf("%s %s: %+v", rq.method, rq.path, p)
		}
	}

	// Release: the seats are free again; again, unchanged; confirming it
	// then is 409.
	rel := decodeAs[holdJSON](t, a.must(200, "DELETE", "/v1/holds/"+best.ID, nil))
	if rel.Status != "released" || rel.Version != 2 {
		t.Errorf("released = %+v", rel)
	}
	if again := a.must(200, "DELETE", "/v1/holds/"+best.ID, nil); !bytes.Equal(again.body, a.must(200, "GET", "/v1/holds/"+best.ID, nil).body) {
		t.Errorf("releasing again: %s", again)
	}
	if p := a.must(409, "POST", "/v1/holds/"+best.ID+"/confirm", nil).problem(t); p.Code != stockade.EInvalidState || !strings.Contains(p.Detail, "is released, not held") {
		t.Errorf("confirming a released hold: %+v", p)
	}

	// Cancel the booking: every seat is back; again, unchanged.
	if c := decodeAs[bookingJSON](t, a.must(200, "POST", "/v1/bookings/"+bk.ID+"/cancel", nil)); c.Status != "cancelled" || c.ID != bk.ID {
		t.Errorf("cancelled = %+v", c)
	}
	a.must(200, "POST", "/v1/bookings/"+bk.ID+"/cancel", nil)
	view = decodeAs[showViewJSON](t, a.must(200, "GET", "/v1/shows/gala", nil))
	if want[1].Count = 10; !reflect.DeepEqual(view.Counts, want) || view.Areas[0].Held != 0 || view.Areas[0].Booked != 0 {
		t.Errorf("after everything went back: %+v", view)
	}

	// The history tells it too, oldest first, a page at a time: a named
	// seat, held, booked and given back; the standing places, held and
	// expired; and the whole show, each row once, in id order.
	seen := map[string]string{named.ID: "named", bk.ID: "booking", places.ID: "standing"}
	a1, pages := a.allHistory("/v1/shows/gala/history?seat=stalls/A/1", 2)
	if got, want := moves(a1, seen), "free>held named  1\nheld>booked named booking 1\nbooked>free named booking 1\n"; got != want || pages != 2 {
		t.Errorf("history of stalls/A/1 in %d pages:\n%s\nwant in 2:\n%s", pages, got, want)
	}
	for _, c := range a1 {
		if c.Seat != "stalls/A/1" || c.Area != "" || c.EventID != "gala" {
			t.Errorf("a row of stalls/A/1: %+v", c)
		}
	}
	standing, _ := a.allHistory("/v1/shows/gala/history?area=standing", 10)
	if got, want := moves(standing, seen), "free>held standing  4\nheld>free standing  4\n"; got != want {
		t.Errorf("history of standing:\n%s\nwant:\n%s", got, want)
	}
	all, pages := a.allHistory("/v1/shows/gala/history", 3)
	whole := decodeAs[seatHistoryJSON](t, a.must(200, "GET", "/v1/shows/gala/history", nil))
	if !reflect.DeepEqual(all, whole.Changes) || whole.NextCursor != "" || pages != (len(all)+2)/3 {
		t.Errorf("the history in %d pages of 3 (%d rows) and at once (%d rows) differ", pages, len(all), len(whole.Changes))
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID <= all[i-1].ID {
			t.Errorf("the history out of id order: row %d has id %d after %d", i, all[i].ID, all[i-1].ID)
		}
	}

	// The feed tells it all, each payload in the shape of the API's
	// answer (checkOpenAPI validates them against the document).
	page := decodeAs[eventsJSON](t, a.must(200, "GET", "/v1/events?aggregate=hold&aggregate_id="+named.ID, nil))
	var types []string
	for _, ev := range page.Events {
		types = append(types, ev.Type)
	}
	if want := []string{"hold.held", "hold.extended", "hold.confirmed"}; !slices.Equal(types, want) {
		t.Errorf("events of hold %s: %v, want %v", named.ID, types, want)
	}
	last := page.Events[len(page.Events)-1].Payload
	if got := a.must(200, "GET", "/v1/holds/"+named.ID, nil).body; !bytes.Equal(bytes.TrimSpace(got), last) {
		t.Errorf("hold.confirmed payload %s, GET /v1/holds answers %s", last, got)
	}
	page = decodeAs[eventsJSON](t, a.must(200, "GET", "/v1/events?type=event.put,booking.booked,booking.cancelled,hold.expired,hold.released", nil))
	types = types[:0]
	for _, ev := range page.Events {
		types = append(types, ev.Type)
	}
	if want := []string{"event.put", "hold.released", "hold.expired", "booking.booked", "hold.released", "booking.cancelled"}; !slices.Equal(types, want) {
		t.Errorf("events: %v, want %v", types, want)
	}
}

// TestBookingShapes compares the answers of the booking routes with
// their golden files: the JSON shapes of shows, seats, holds and
// bookings, and their problems.
func TestBookingShapes(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	seen := map[string]string{}
	step := func(name string, want int, method, path string, body any) response {
		t.Helper()
		r := a.must(want, method, path, body)
		req := method + " " + path
		if s, ok := body.(string); ok {
			req += " " + s
		}
		golden(t, name, req, r, seen)
		return r
	}

	step("show_put", 200, "PUT", "/v1/shows/gala", galaMap)
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(step("show_seats_page", 200, "GET", "/v1/shows/gala/seats?section=stalls&limit=3", nil).body, &page); err != nil || page.NextCursor == nil {
		t.Fatalf("first page of the seats: next_cursor %v, %v", page.NextCursor, err)
	}
	step("show_seats_next_page", 200, "GET", "/v1/shows/gala/seats?section=stalls&limit=3&cursor="+url.QueryEscape(*page.NextCursor), nil)
	named := step("hold_named", 201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1","stalls/A/2"],"ttl_seconds":600}`).id(t)
	step("hold_best", 201, "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":2,"section":"balcony"}]}`)
	standing := step("hold_standing", 201, "POST", "/v1/shows/gala/holds", `{"general_admission":[{"area":"standing","quantity":4}],"ttl_seconds":60}`).id(t)
	step("show", 200, "GET", "/v1/shows/gala", nil)
	step("problem_seats_unavailable", 409, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2","stalls/B/5"]}`)
	step("problem_sold_out", 409, "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":3,"section":"balcony"}]}`)
	a.clock.Advance(2 * time.Minute)
	step("hold_extend", 200, "POST", "/v1/holds/"+named+"/extend", `{"ttl_seconds":1800}`)
	step("problem_hold_expired", 410, "POST", "/v1/holds/"+standing+"/confirm", nil)
	step("hold", 200, "GET", "/v1/holds/"+standing, nil)
	bk := step("hold_confirm", 200, "POST", "/v1/holds/"+named+"/confirm", nil).id(t)
	step("booking", 200, "GET", "/v1/bookings/"+bk, nil)
	step("booking_cancel", 200, "POST", "/v1/bookings/"+bk+"/cancel", nil)
	held := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/B/1"]}`).id(t)
	step("hold_release", 200, "DELETE", "/v1/holds/"+held, nil)
	page.NextCursor = nil
	if err := json.Unmarshal(step("show_history_page", 200, "GET", "/v1/shows/gala/history?seat=stalls/A/1&limit=2", nil).body, &page); err != nil || page.NextCursor == nil {
		t.Fatalf("first page of the history: next_cursor %v, %v", page.NextCursor, err)
	}
	step("show_history_next_page", 200, "GET", "/v1/shows/gala/history?seat=stalls/A/1&limit=2&cursor="+url.QueryEscape(*page.NextCursor), nil)
	step("show_history_area", 200, "GET", "/v1/shows/gala/history?area=standing", nil)
}

// TestBookingBadInputChangesNothing sends bad requests to the booking
// routes: each gets a 4xx problem with the right code, naming what is
// wrong, and changes nothing.
func TestBookingBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	held := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"]}`).id(t)
	row := func(fields string) string {
		return `{"name":"Gala","rows":[{"section":"stalls","row":"A","first":1,"last":10` + fields + `}]}`
	}
	tests := []struct {
		name         string
		method, path string
		body         any
		status       int
		code, detail string
	}{
		// The show's map: its wire format.
		{"no body", "PUT", "/v1/shows/gala", "", 400, "invalid", "body: empty"},
		{"no name", "PUT", "/v1/shows/gala", `{"rows":[]}`, 400, "invalid", "name: required"},
		{"id in the body", "PUT", "/v1/shows/gala", `{"id":"gala","name":"Gala","areas":[{"name":"x","capacity":1}]}`, 400, "invalid", `body: unknown field "id"`},
		{"rows not an array", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":{}}`, 400, "invalid", "rows: want an array, got object"},
		{"null row", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[null]}`, 400, "invalid", "rows[0]: want an object, got null"},
		{"row without last", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"s","row":"A","first":1}]}`, 400, "invalid", "rows[0].last: required"},
		{"row first a string", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"s","row":"A","first":"1","last":2}]}`, 400, "invalid", "rows[0].first: want an integer, got string"},
		{"null seat number", "PUT", "/v1/shows/gala", row(`,"accessible":[1,null]`), 400, "invalid", "rows[0].accessible[1]: want an integer, got null"},
		{"fractional seat number", "PUT", "/v1/shows/gala", row(`,"blocked":[1.5]`), 400, "invalid", "rows[0].blocked: want an integer, got number 1.5"},
		{"start without y", "PUT", "/v1/shows/gala", row(`,"start":{"x":1}`), 400, "invalid", "rows[0].start.y: required"},
		{"start with z", "PUT", "/v1/shows/gala", row(`,"start":{"x":1,"y":2,"z":3}`), 400, "invalid", `rows[0].start: unknown field "z"`},
		{"focal an array", "PUT", "/v1/shows/gala", `{"name":"Gala","focal":[1,2],"areas":[{"name":"x","capacity":1}]}`, 400, "invalid", "focal: want an object, got array"},
		{"key in another case", "PUT", "/v1/shows/gala", row(`,"Category":"A"`), 400, "invalid", `rows[0]: unknown field "Category" (keys are case-sensitive: want "category")`},
		{"key given twice", "PUT", "/v1/shows/gala", `{"name":"Gala","areas":[{"name":"x","capacity":1,"capacity":2}]}`, 400, "invalid", `areas[0]: duplicate key "capacity"`},
		{"area without capacity", "PUT", "/v1/shows/gala", `{"name":"Gala","areas":[{"name":"x"}]}`, 400, "invalid", "areas[0].capacity: required"},
		{"empty category", "PUT", "/v1/shows/gala", row(`,"category":""`), 400, "invalid", "rows[0].category: required, must not be empty"},
		// The show's map: the domain's limits.
		{"nothing to sell", "PUT", "/v1/shows/gala", `{"name":"Gala"}`, 400, "invalid", "rows: an event needs seats or general-admission areas"},
		{"empty name", "PUT", "/v1/shows/gala", `{"name":"","areas":[{"name":"x","capacity":1}]}`, 400, "invalid", "name: required, must not be empty"},
		{"last before first", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"s","row":"A","first":5,"last":2}]}`, 400, "invalid", "rows[0]: first and last must number seats"},
		{"accessible seat outside the row", "PUT", "/v1/shows/gala", row(`,"accessible":[11]`), 400, "invalid", "rows[0].accessible[0]: seat 11 is not in the row"},
		{"row twice", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"s","row":"A","first":1,"last":2},{"section":"s","row":"A","first":3,"last":4}]}`, 400, "invalid", `rows[1]: row "A" of section "s" is given twice`},
		{"slash in a section", "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"s/t","row":"A","first":1,"last":2}]}`, 400, "invalid", "rows[0].section: must not contain '/'"},
		{"zero capacity", "PUT", "/v1/shows/gala", `{"name":"Gala","areas":[{"name":"x","capacity":0}]}`, 400, "invalid", "areas[0].capacity: must be between 1 and 1000000000, got 0"},
		{"slash in the id", "PUT", "/v1/shows/a%2Fb", `{"name":"Gala","areas":[{"name":"x","capacity":1}]}`, 400, "invalid", "id: must not contain '/'"},
		{"far focal", "PUT", "/v1/shows/gala", `{"name":"Gala","focal":{"x":2e6,"y":0},"areas":[{"name":"x","capacity":1}]}`, 400, "invalid", "focal.x: must be between -1e+06 and 1e+06"},

		// Holds.
		{"empty hold", "POST", "/v1/shows/gala/holds", `{}`, 400, "invalid", "seats: a hold needs seats, best_available or general_admission, got none"},
		{"unknown hold field", "POST", "/v1/shows/gala/holds", `{"seat":["stalls/A/2"]}`, 400, "invalid", `body: unknown field "seat"`},
		{"seats not strings", "POST", "/v1/shows/gala/holds", `{"seats":[1]}`, 400, "invalid", "seats: want a string, got number"},
		{"seat named twice", "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2","stalls/A/2"]}`, 400, "invalid", `seats[1]: seat "stalls/A/2" is named twice`},
		{"empty seat id", "POST", "/v1/shows/gala/holds", `{"seats":[""]}`, 400, "invalid", "seats[0]: required, must not be empty"},
		{"best without quantity", "POST", "/v1/shows/gala/holds", `{"best_available":[{"category":"A"}]}`, 400, "invalid", "best_available[0].quantity: required"},
		{"best of none", "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":0}]}`, 400, "invalid", "best_available[0].quantity: must be between 1 and 100, got 0"},
		{"best with a typo", "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":2,"allowsplit":true}]}`, 400, "invalid", `best_available[0]: unknown field "allowsplit"`},
		{"best accessible a string", "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":2,"accessible":"yes"}]}`, 400, "invalid", "best_available[0].accessible: want a boolean, got string"},
		{"places without area", "POST", "/v1/shows/gala/holds", `{"general_admission":[{"quantity":2}]}`, 400, "invalid", "general_admission[0].area: required"},
		{"area twice", "POST", "/v1/shows/gala/holds", `{"general_admission":[{"area":"standing","quantity":1},{"area":"standing","quantity":1}]}`, 400, "invalid", `general_admission[1].area: area "standing" is asked for twice`},
		{"too much at once", "POST", "/v1/shows/gala/holds", `{"best_available":[{"quantity":60},{"quantity":41}]}`, 400, "invalid", "seats: a hold takes at most 100 seats and places, got 101"},
		{"zero ttl", "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2"],"ttl_seconds":0}`, 400, "invalid", "ttl_seconds: must be at least 1, got 0"},
		{"ttl past the longest hold", "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2"],"ttl_seconds":7201}`, 400, "invalid", "ttl_seconds: must be between 1 and 7200, got 7201"},
		{"huge ttl", "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2"],"ttl_seconds":9999999999999}`, 400, "invalid", "ttl_seconds: must be at most the service's longest hold, got 9999999999999"},
		{"query on a hold", "POST", "/v1/shows/gala/holds?best=1", `{"seats":["stalls/A/2"]}`, 400, "invalid", "takes no query parameters"},
		{"extend without ttl", "POST", "/v1/holds/" + held + "/extend", `{}`, 400, "invalid", "ttl_seconds: required"},
		{"extend by nothing", "POST", "/v1/holds/" + held + "/extend", `{"ttl_seconds":-1}`, 400, "invalid", "ttl_seconds: must be at least 1, got -1"},
		{"confirm with a body", "POST", "/v1/holds/" + held + "/confirm", `{"now":true}`, 400, "invalid", `unknown field "now"`},
		{"unknown hold", "POST", "/v1/holds/hld_none/confirm", nil, 404, "not_found", `hold "hld_none" not found`},
		{"unknown booking", "POST", "/v1/bookings/bkg_none/cancel", nil, 404, "not_found", `booking "bkg_none" not found`},
		{"unknown show", "GET", "/v1/shows/opera", nil, 404, "not_found", `"opera" not found`},

		// The seats' query.
		{"seats limit 0", "GET", "/v1/shows/gala/seats?limit=0", nil, 400, "invalid", "limit: want an integer between 1 and 10000"},
		{"seats unknown status", "GET", "/v1/shows/gala/seats?status=sold", nil, 400, "invalid", `status: must be free, held, booked or blocked, got "sold"`},
		{"seats empty status", "GET", "/v1/shows/gala/seats?status=", nil, 400, "invalid", "status: must not be empty"},
		{"seats empty section", "GET", "/v1/shows/gala/seats?section=", nil, 400, "invalid", "section: required, must not be empty"},
		{"seats malformed cursor", "GET", "/v1/shows/gala/seats?cursor=abc", nil, 400, "invalid", "cursor: malformed"},
		{"seats unknown parameter", "GET", "/v1/shows/gala/seats?row=A", nil, 400, "invalid", `unknown parameter "row"`},
		{"seats of no show", "GET", "/v1/shows/opera/seats", nil, 404, "not_found", `"opera" not found`},

		// The history's query.
		{"history limit 0", "GET", "/v1/shows/gala/history?limit=0", nil, 400, "invalid", "limit: want an integer between 1 and 10000"},
		{"history limit too large", "GET", "/v1/shows/gala/history?limit=10001", nil, 400, "invalid", "limit: want an integer between 1 and 10000"},
		{"history seat and area", "GET", "/v1/shows/gala/history?seat=stalls/A/1&area=standing", nil, 400, "invalid", "area: must not be given with seat"},
		{"history empty seat", "GET", "/v1/shows/gala/history?seat=", nil, 400, "invalid", "seat: required, must not be empty"},
		{"history empty area", "GET", "/v1/shows/gala/history?area=", nil, 400, "invalid", "area: required, must not be empty"},
		{"history malformed cursor", "GET", "/v1/shows/gala/history?cursor=abc", nil, 400, "invalid", "cursor: malformed"},
		{"history empty cursor", "GET", "/v1/shows/gala/history?cursor=", nil, 400, "invalid", "cursor: must not be empty"},
		{"history unknown parameter", "GET", "/v1/shows/gala/history?status=free", nil, 400, "invalid", `unknown parameter "status"`},
		{"history of no show", "GET", "/v1/shows/opera/history", nil, 404, "not_found", `"opera" not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := a.seatState()
			r := a.do(tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("got %s, want status %d", r, tc.status)
			}
			if p := r.problem(t); p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %q %q, want code %q and detail containing %q", p.Code, p.Detail, tc.code, tc.detail)
			}
			if after := a.seatState(); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestBookingIdempotency: every mutating booking route replays its first
// success under an Idempotency-Key, byte for byte, and acts once; a
// refusal is not stored; the key belongs to its request.
func TestBookingIdempotency(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	replay := func(want int, method, path string, body any, key string) response {
		t.Helper()
		first := a.must(want, method, path, body, "Idempotency-Key: "+key)
		state := a.seatState()
		a.clock.Advance(time.Second) // a second call would answer other times
		again := a.must(want, method, path, body, "Idempotency-Key: "+key)
		if !bytes.Equal(first.body, again.body) || first.header.Get(headerReplayed) != "" || again.header.Get(headerReplayed) != "true" {
			t.Errorf("%s %s under %q: first %s, again %s (replayed %q)", method, path, key, first, again, again.header.Get(headerReplayed))
		}
		if a.seatState() != state {
			t.Errorf("%s %s: the replay changed the show", method, path)
		}
		return first
	}
	replay(200, "PUT", "/v1/shows/gala", galaMap, "map-1")
	hold := replay(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1","stalls/A/2"],"general_admission":[{"area":"standing","quantity":2}]}`, "cart-1").id(t)
	replay(200, "POST", "/v1/holds/"+hold+"/extend", `{"ttl_seconds":1200}`, "ext-1")
	bk := replay(200, "POST", "/v1/holds/"+hold+"/confirm", nil, "pay-1").id(t)
	replay(200, "POST", "/v1/bookings/"+bk+"/cancel", nil, "refund-1")
	other := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/3"]}`).id(t)
	replay(200, "DELETE", "/v1/holds/"+other, nil, "drop-1")

	// Another request under a key is refused.
	if p := a.must(422, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/9"]}`, "Idempotency-Key: cart-1").problem(t); p.Code != stockade.EIdempotencyMismatch {
		t.Errorf("another body under the key: %+v", p)
	}
	// A refusal is not stored: once the seat is free, the key holds it.
	blocker := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/5"]}`).id(t)
	a.must(409, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/5"]}`, "Idempotency-Key: cart-2")
	a.must(200, "DELETE", "/v1/holds/"+blocker, nil)
	if r := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/5"]}`, "Idempotency-Key: cart-2"); r.header.Get(headerReplayed) != "" {
		t.Errorf("the hold after the refusal is marked replayed: %s", r)
	}
}

// TestBookingClient drives every BookingService method through the
// client and checks each answer against the engine's own.
func TestBookingClient(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	c, ctx := a.client, sys(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	gala := stockade.Show{ID: "gala", Name: "Gala", Focal: stockade.SeatPoint{X: 5.5, Y: -3},
		Rows: []stockade.SeatRow{
			{Section: "stalls", Row: "A", First: 1, Last: 10, Category: "A", AislesAfter: []int{5}, Start: stockade.SeatPoint{X: 1}},
			{Section: "stalls", Row: "B", First: 1, Last: 10, Category: "B", Accessible: []int{1, 10}, Blocked: []int{5}, Start: stockade.SeatPoint{X: 1, Y: 1}, Step: 1.5},
		},
		Areas: []stockade.Area{{Name: "standing", Capacity: 20}}}
	ev, err := c.PutShow(ctx, gala, nil)
	must(err)
	gala.CreatedAt, gala.Version = start, 1
	if !reflect.DeepEqual(ev, gala) {
		t.Errorf("PutShow = %+v\nwant %+v", ev, gala)
	}
	same(t, "Event", func() (any, error) { return c.Show(ctx, "gala") }, func() (any, error) { return a.eng.Show(ctx, "gala") })
	q := stockade.SeatQuery{Section: "stalls", Limit: 7}
	same(t, "Seats", func() (any, error) { return c.Seats(ctx, "gala", q) }, func() (any, error) { return a.eng.Seats(ctx, "gala", q) })
	page, err := c.Seats(ctx, "gala", q)
	must(err)
	if len(page.Seats) != 7 || page.Next == "" {
		t.Fatalf("Seats(%+v) = %+v, want 7 seats and a next cursor", q, page)
	}
	q.Cursor = page.Next
	same(t, "Seats after a cursor", func() (any, error) { return c.Seats(ctx, "gala", q) }, func() (any, error) { return a.eng.Seats(ctx, "gala", q) })

	idem := &stockade.Idempotency{Key: "cart-7"}
	req := stockade.HoldRequest{ShowID: "gala", Seats: []string{"stalls/A/1"},
		Best:   []stockade.BestSeats{{Quantity: 2, Category: "B", Accessible: true, AllowSplit: true}},
		Places: []stockade.Places{{Area: "standing", Quantity: 3}}, TTL: 90*time.Second + time.Millisecond}
	h, err := c.HoldSeats(ctx, req, idem)
	must(err)
	if !h.ExpiresAt.Equal(start.Add(91*time.Second)) || !h.Split || len(h.Seats) != 3 || idem.Replayed {
		t.Errorf("HoldSeats = %+v (TTL rounded up to 91s), replayed %v", h, idem.Replayed)
	}
	again := &stockade.Idempotency{Key: "cart-7"}
	if h2, err := c.HoldSeats(ctx, req, again); err != nil || !reflect.DeepEqual(h2, h) || !again.Replayed {
		t.Errorf("HoldSeats again = %+v, %v, replayed %v; want %+v", h2, err, again.Replayed, h)
	}
	same(t, "Hold", func() (any, error) { return c.Hold(ctx, h.ID) }, func() (any, error) { return a.eng.Hold(ctx, h.ID) })
	if got, err := c.Hold(ctx, h.ID); err != nil || !reflect.DeepEqual(got, h) {
		t.Errorf("Hold = %+v, %v; HoldSeats answered %+v", got, err, h)
	}
	a.clock.Advance(time.Minute)
	h, err = c.ExtendHold(ctx, h.ID, 10*time.Minute, nil)
	must(err)
	if !h.ExpiresAt.Equal(start.Add(11*time.Minute)) || h.Version != 2 {
		t.Errorf("ExtendHold = %+v", h)
	}

	for _, tc := range []struct {
		name string
		req  stockade.HoldRequest
		code string
	}{
		{"held seat", stockade.HoldRequest{ShowID: "gala", Seats: []string{"stalls/A/1"}}, stockade.ESeatsUnavailable},
		{"sold out", stockade.HoldRequest{ShowID: "gala", Places: []stockade.Places{{Area: "standing", Quantity: 18}}}, stockade.ESoldOut},
		{"no show", stockade.HoldRequest{ShowID: "opera", Seats: []string{"stalls/A/1"}}, stockade.ENotFound},
		{"nothing", stockade.HoldRequest{ShowID: "gala"}, stockade.EInvalid},
	} {
		if _, err := c.HoldSeats(ctx, tc.req, nil); stockade.ErrorCode(err) != tc.code || stockade.ErrorMessage(err) == "" {
			t.Errorf("HoldSeats(%s) = %v, want a *stockade.Error %s", tc.name, err, tc.code)
		}
	}

	bk, err := c.ConfirmHold(ctx, h.ID, nil)
	must(err)
	if bk.HoldID != h.ID || bk.Status != stockade.BookingBooked || !slices.Equal(bk.Seats, h.Seats) || !reflect.DeepEqual(bk.Places, h.Places) {
		t.Errorf("ConfirmHold = %+v, hold %+v", bk, h)
	}
	same(t, "Booking", func() (any, error) { return c.Booking(ctx, bk.ID) }, func() (any, error) { return a.eng.Booking(ctx, bk.ID) })
	same(t, "Hold confirmed", func() (any, error) { return c.Hold(ctx, h.ID) }, func() (any, error) { return a.eng.Hold(ctx, h.ID) })
	if bk, err = c.CancelBooking(ctx, bk.ID, nil); err != nil || bk.Status != stockade.BookingCancelled {
		t.Errorf("CancelBooking = %+v, %v", bk, err)
	}
	same(t, "Event after", func() (any, error) { return c.Show(ctx, "gala") }, func() (any, error) { return a.eng.Show(ctx, "gala") })

	r, err := c.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gala", Best: []stockade.BestSeats{{Quantity: 4, Section: "stalls"}}}, nil)
	must(err)
	if r, err = c.ReleaseHold(ctx, r.ID, nil); err != nil || r.Status != stockade.HoldReleased {
		t.Errorf("ReleaseHold = %+v, %v", r, err)
	}
	short, err := c.HoldSeats(ctx, stockade.HoldRequest{ShowID: "gala", Seats: []string{"stalls/B/2"}, TTL: time.Minute}, nil)
	must(err)
	a.clock.Advance(2 * time.Minute)
	if _, err := c.ConfirmHold(ctx, short.ID, nil); stockade.ErrorCode(err) != stockade.EHoldExpired {
		t.Errorf("ConfirmHold(lapsed) = %v, want %s", err, stockade.EHoldExpired)
	}
	if _, err := c.Booking(ctx, "bkg_none"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("Booking(unknown) = %v, want %s", err, stockade.ENotFound)
	}
	if _, err := c.Seats(ctx, "gala", stockade.SeatQuery{Cursor: "x"}); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("Seats(malformed cursor) = %v, want %s", err, stockade.EInvalid)
	}

	// The history of what the client did, a page at a time.
	hq := stockade.SeatHistoryQuery{Seat: "stalls/A/1", Limit: 2}
	same(t, "SeatHistory", func() (any, error) { return c.SeatHistory(ctx, "gala", hq) }, func() (any, error) { return a.eng.SeatHistory(ctx, "gala", hq) })
	hp, err := c.SeatHistory(ctx, "gala", hq)
	must(err)
	if len(hp.Changes) != 2 || hp.Next == "" || hp.Changes[0].To != stockade.SeatHeld || hp.Changes[0].HoldID != h.ID {
		t.Fatalf("SeatHistory(%+v) = %+v, want 2 rows from the hold %s and a next cursor", hq, hp, h.ID)
	}
	hq.Cursor = hp.Next
	same(t, "SeatHistory after a cursor", func() (any, error) { return c.SeatHistory(ctx, "gala", hq) }, func() (any, error) { return a.eng.SeatHistory(ctx, "gala", hq) })
	aq := stockade.SeatHistoryQuery{Area: "standing"}
	same(t, "SeatHistory of an area", func() (any, error) { return c.SeatHistory(ctx, "gala", aq) }, func() (any, error) { return a.eng.SeatHistory(ctx, "gala", aq) })
	for _, tc := range []struct {
		name  string
		event string
		q     stockade.SeatHistoryQuery
		code  string
	}{
		{"malformed cursor", "gala", stockade.SeatHistoryQuery{Cursor: "x"}, stockade.EInvalid},
		{"a seat cursor", "gala", stockade.SeatHistoryQuery{Cursor: page.Next}, stockade.EInvalid},
		{"seat and area", "gala", stockade.SeatHistoryQuery{Seat: "stalls/A/1", Area: "standing"}, stockade.EInvalid},
		{"no show", "opera", stockade.SeatHistoryQuery{}, stockade.ENotFound},
	} {
		if _, err := c.SeatHistory(ctx, tc.event, tc.q); stockade.ErrorCode(err) != tc.code {
			t.Errorf("SeatHistory(%s) = %v, want %s", tc.name, err, tc.code)
		}
	}
}

// showBodies are seeds for FuzzShowBody.
var showBodies = []string{
	galaMap,
	`{"name":"Gala","areas":[{"name":"standing","capacity":20}]}`,
	`{"name":"Gala","focal":null,"rows":[{"section":"s","row":"A","first":0,"last":3,"step":0.5,"start":null}]}`,
	`{"name":"Gala","rows":[{"section":"s","row":"A","first":1,"last":3,"accessible":[1,null]}]}`,
	`{"name":"Gala","rows":[{"section":"s","row":"A","first":1,"last":3,"Row":"B"}]}`,
	`{"name":"Gala","areas":[{"name":"x","capacity":1,"category":""}]}`,
	`{"name":"Gala","rows":[null,7]}`,
	`{"name":1}`,
	`{"name":"Gala","focal":{"x":1e400,"y":0}}`,
	`[]`,
	``,
}

// FuzzShowBody decodes arbitrary bodies of PUT /v1/shows/{id}: refusals
// are EInvalid with a message, and what is accepted survives a trip
// through the client's encoding.
func FuzzShowBody(f *testing.F) {
	for _, b := range showBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		roundTrip(t, body, func(b showBody) (stockade.Show, error) { return b.event("gala") },
			func(ev stockade.Show) any { return showBodyOf(ev) }, nil)
	})
}

// holdBodies are seeds for FuzzHoldBody.
var holdBodies = []string{
	`{"seats":["stalls/A/1","stalls/A/2"]}`,
	`{"best_available":[{"quantity":3,"category":"A","section":"stalls","accessible":true,"allow_split":true}],"ttl_seconds":600}`,
	`{"general_admission":[{"area":"standing","quantity":4}]}`,
	`{"seats":[null],"best_available":[null]}`,
	`{"best_available":[{"quantity":"3"}]}`,
	`{"general_admission":[{"area":"x","quantity":1,"area":"y"}]}`,
	`{"ttl_seconds":0,"seats":["a"]}`,
	`{"Seats":["a"]}`,
	`{"seats":["stalls/A/1"],"admission":{"visitor_id":"v-1","token":"adm1.e30.c2ln"}}`,
	`{"seats":["stalls/A/1"],"admission":{"visitor_id":"v-1"}}`,
	`{"seats":["stalls/A/1"],"admission":null}`,
	`null`,
}

// FuzzHoldBody decodes arbitrary bodies of POST /v1/shows/{id}/holds, as
// FuzzShowBody does those of the show.
func FuzzHoldBody(f *testing.F) {
	for _, b := range holdBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		roundTrip(t, body, func(b holdBody) (stockade.HoldRequest, error) { return b.request("gala") },
			func(req stockade.HoldRequest) any { return holdBodyOf(req) }, nil)
	})
}
