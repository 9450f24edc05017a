package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// galaRoom is the body of POST /v1/rooms of the room "gala-sale" in
// front of the show gala: two admissions in force at once, one a
// second, each for five minutes.
const galaRoom = `{"id":"gala-sale","show_id":"gala","active_limit":2,"admit_per_minute":60,"admission_ttl_seconds":300,"metadata":{"campaign":"spring"}}`

// admit runs one round of the engine's admissions after d of the clock,
// and returns how many visitors it admitted.
func (a *api) admit(d time.Duration) int64 {
	a.t.Helper()
	a.clock.Advance(d)
	n, err := a.eng.AdmitRooms(sys(a.t))
	if err != nil {
		a.t.Fatalf("AdmitRooms: %v", err)
	}
	return n
}

// ticket reads a visitor's ticket over HTTP.
func (a *api) ticket(room, visitor string) roomTicketJSON {
	a.t.Helper()
	return decodeAs[roomTicketJSON](a.t, a.must(200, "GET", "/v1/rooms/"+room+"/visitors/"+visitor, nil))
}

// roomState is what a refused request must leave as it was: the rooms
// and the tickets of the visitors named, besides the show gala's seats
// and every domain event (seatState).
func (a *api) roomState(visitors map[string][]string) string {
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
	add(a.eng.Rooms(ctx, stockade.RoomQuery{Limit: stockade.MaxRoomLimit}))
	for room, vs := range visitors {
		for _, v := range vs {
			add(a.eng.RoomTicket(ctx, room, v))
		}
	}
	return b.String() + a.seatState()
}

// admission is the "admission" of a body: a visitor and its token.
func admission(visitor, token string) string {
	b, _ := json.Marshal(map[string]string{"visitor_id": visitor, "token": token})
	return string(b)
}

// TestRoomFlow runs a waiting room in front of a show over HTTP: created
// with its secret, read without it, visitors joined (again, to the same
// place), holds refused without an admission and with a forged one,
// admissions made, and a hold with an admitted visitor's token.
func TestRoomFlow(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()

	created := a.must(201, "POST", "/v1/rooms", galaRoom)
	room := decodeAs[roomJSON](t, created)
	if !strings.HasPrefix(room.Secret, "rsec_") || len(room.Secret) != len("rsec_")+64 {
		t.Errorf("the created room's secret %q, want rsec_ and 64 hex digits", room.Secret)
	}
	want := roomJSON{RoomDocument: stockade.RoomDocument{ID: "gala-sale", ShowID: "gala", OpensAt: start, ActiveLimit: 2, AdmitPerMinute: 60,
		AdmissionTTLSeconds: 300, Order: "arrival", PerVisitor: 1, StockFactor: 1, Status: "scheduled",
		Metadata: stockade.Metadata{"campaign": "spring"}, CreatedAt: start, UpdatedAt: start, Version: 1, Stock: room.Stock},
		Secret: room.Secret}
	if !reflect.DeepEqual(room, want) {
		t.Errorf("POST /v1/rooms = %+v\nwant %+v", room, want)
	}
	if room.Stock.Free < 40 || room.Stock.Held != 0 {
		t.Errorf("the room's stock %+v: the gala's seats and places are free", room.Stock)
	}
	got := a.must(200, "GET", "/v1/rooms/gala-sale", nil)
	if bytes.Contains(got.body, []byte(room.Secret)) || bytes.Contains(got.body, []byte(`"secret"`)) {
		t.Errorf("GET /v1/rooms/gala-sale shows the secret: %s", got)
	}
	want.Secret = ""
	if v := decodeAs[roomJSON](t, got); !reflect.DeepEqual(v, want) {
		t.Errorf("GET /v1/rooms/gala-sale = %+v\nwant %+v", v, want)
	}
	if list := a.must(200, "GET", "/v1/rooms", nil); bytes.Contains(list.body, []byte(room.Secret)) ||
		len(decodeAs[roomsJSON](t, list).Rooms) != 1 {
		t.Errorf("GET /v1/rooms: %s", list)
	}

	// Three visitors join; a second join answers the same place, and
	// an Idempotency-Key is checked but nothing is replayed.
	for i, v := range []string{"v-1", "v-2", "v-3"} {
		tk := decodeAs[roomTicketJSON](t, a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"`+v+`"}`))
		if tk.Position != int64(i+1) || tk.Status != "waiting" || tk.Ahead != int64(i) || tk.Token != "" || !tk.JoinedAt.Equal(start.Add(time.Duration(i)*time.Millisecond)) {
			t.Errorf("join of %s: %+v, want place %d, waiting", v, tk, i+1)
		}
		a.clock.Advance(time.Millisecond)
	}
	first := a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-2"}`, "Idempotency-Key: join-1")
	again := a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-2"}`, "Idempotency-Key: join-1")
	if !bytes.Equal(first.body, again.body) || again.header.Get(headerReplayed) != "" {
		t.Errorf("joining again: %s then %s (replayed %q)", first, again, again.header.Get(headerReplayed))
	}
	if tk := decodeAs[roomTicketJSON](t, again); tk.Position != 2 || !tk.JoinedAt.Equal(start.Add(time.Millisecond)) {
		t.Errorf("v-2 joining again: %+v, want its place, 2, of its first join", tk)
	}
	if tk := a.ticket("gala-sale", "v-2"); tk.Status != "waiting" || tk.Ahead != 1 || tk.EstimatedWaitSeconds != 2 {
		t.Errorf("v-2's ticket before the room opens: %+v, want waiting, 1 ahead, 2 s at one a second", tk)
	}
	if r := decodeAs[roomJSON](t, a.must(200, "GET", "/v1/rooms/gala-sale", nil)); r.Joined != 3 || r.Queued != 3 || r.Version != 4 {
		t.Errorf("the room after three visitors joined: %+v", r)
	}
	if p := a.must(404, "GET", "/v1/rooms/gala-sale/visitors/v-9", nil).problem(t); !strings.Contains(p.Detail, `"v-9" has not joined`) {
		t.Errorf("a visitor that has not joined: %+v", p)
	}

	// The show is behind the room: a hold needs an admission.
	state := a.roomState(map[string][]string{"gala-sale": {"v-1", "v-2", "v-3"}})
	p := a.must(403, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"]}`).problem(t)
	if p.Code != stockade.EAdmissionRequired || !strings.Contains(p.Detail, `waiting room "gala-sale"`) {
		t.Errorf("a hold without an admission: %+v", p)
	}
	forged := "adm1.eyJyb29tIjoiZ2FsYS1zYWxlIiwidmlzaXRvciI6InYtMSIsInBvc2l0aW9uIjoxLCJleHAiOjE4OTMwMDAwMDB9.c2lnbmF0dXJl"
	p = a.must(403, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"],"admission":`+admission("v-1", forged)+`}`).problem(t)
	if p.Code != stockade.EAdmissionInvalid || !strings.Contains(p.Detail, "signature") {
		t.Errorf("a hold with a forged admission: %+v", p)
	}
	if after := a.roomState(map[string][]string{"gala-sale": {"v-1", "v-2", "v-3"}}); after != state {
		t.Errorf("refused holds changed the state:\nbefore %s\nafter  %s", state, after)
	}

	// The room opens and admits two, its active limit; the next round
	// admits no one, and says why.
	if n := a.admit(10 * time.Second); n != 2 {
		t.Fatalf("the first round admitted %d, want 2", n)
	}
	if n := a.admit(0); n != 0 {
		t.Fatalf("the second round admitted %d past the active limit", n)
	}
	v1 := a.ticket("gala-sale", "v-1")
	if v1.Status != "admitted" || !strings.HasPrefix(v1.Token, "adm1.") || !v1.ExpiresAt.Equal(a.clock.Now().Add(5*time.Minute).Truncate(time.Second)) ||
		v1.EstimatedWaitSeconds != 0 {
		t.Errorf("v-1's ticket after the round: %+v", v1)
	}
	if v3 := a.ticket("gala-sale", "v-3"); v3.Status != "waiting" || v3.Token != "" || v3.Ahead != 0 {
		t.Errorf("v-3's ticket after the round: %+v", v3)
	}
	r := decodeAs[roomJSON](t, a.must(200, "GET", "/v1/rooms/gala-sale", nil))
	if r.Status != "queueing" || r.Admitted != 2 || r.Active != 2 || r.Queued != 1 || r.Paused != stockade.RoomPausedActive || r.LongestWaitSeconds != 1 {
		t.Errorf("the room after the round: %+v", r)
	}

	// Another visitor's token does not admit, nor another room's.
	p = a.must(403, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"],"admission":`+admission("v-2", v1.Token)+`}`).problem(t)
	if p.Code != stockade.EAdmissionInvalid || !strings.Contains(p.Detail, `admits visitor "v-1", not "v-2"`) {
		t.Errorf("a hold with another visitor's token: %+v", p)
	}
	hold := decodeAs[holdJSON](t, a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"],"admission":`+admission("v-1", v1.Token)+`}`))
	if hold.Status != "held" || !reflect.DeepEqual(hold.Seats, []string{"stalls/A/1"}) {
		t.Errorf("the admitted visitor's hold: %+v", hold)
	}
	if r := decodeAs[roomJSON](t, a.must(200, "GET", "/v1/rooms/gala-sale", nil)); r.Stock.Held != 1 {
		t.Errorf("the room's stock after the hold: %+v", r.Stock)
	}

	// Once the admission has run out, its token admits no more.
	a.clock.Advance(5 * time.Minute)
	if tk := a.ticket("gala-sale", "v-1"); tk.Status != "expired" || tk.Token != "" {
		t.Errorf("v-1's ticket after its admission ran out: %+v", tk)
	}
	p = a.must(403, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/2"],"admission":`+admission("v-1", v1.Token)+`}`).problem(t)
	if p.Code != stockade.EAdmissionInvalid || !strings.Contains(p.Detail, "expired") {
		t.Errorf("a hold with an expired token: %+v", p)
	}
}

// TestRoomInFrontOfSKUs: a room in front of a SKU gates reservations and
// checkouts of it, and lets those of other SKUs through.
func TestRoomInFrontOfSKUs(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	a.must(200, "PUT", "/v1/stock/gizmo/east", `{"on_hand":3}`)
	a.must(201, "POST", "/v1/rooms", `{"id":"drop","skus":["widget"],"active_limit":10,"admit_per_minute":600}`)
	before := a.snapshot()
	for _, path := range []string{"/v1/reservations", "/v1/orders"} {
		p := a.must(403, "POST", path, `{"lines":[{"sku":"gizmo","quantity":1},{"sku":"widget","quantity":1}]}`).problem(t)
		if p.Code != stockade.EAdmissionRequired || !strings.Contains(p.Detail, `waiting room "drop"`) {
			t.Errorf("POST %s without an admission: %+v", path, p)
		}
	}
	if after := a.snapshot(); after != before {
		t.Errorf("refused reservations changed the stock:\nbefore %s\nafter  %s", before, after)
	}
	a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"gizmo","quantity":1}]}`)

	a.must(200, "POST", "/v1/rooms/drop/visitors", `{"visitor_id":"cart-1"}`)
	if n := a.admit(time.Second); n != 1 {
		t.Fatalf("the round admitted %d, want 1", n)
	}
	tk := a.ticket("drop", "cart-1")
	with := `"admission":` + admission("cart-1", tk.Token)
	res := decodeAs[reservationJSON](t, a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":2}],`+with+`}`))
	if res.Status != "held" {
		t.Errorf("the admitted visitor's reservation: %+v", res)
	}
	ord := decodeAs[orderJSON](t, a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}],`+with+`}`))
	if ord.Status != "committed" {
		t.Errorf("the admitted visitor's checkout: %+v", ord)
	}
	r := decodeAs[roomJSON](t, a.must(200, "GET", "/v1/rooms/drop", nil))
	if !reflect.DeepEqual(r.SKUs, []string{"widget"}) || r.ShowID != "" || r.Stock != (stockade.RoomStock{Free: 12, Held: 2}) {
		t.Errorf("the room after a reservation and a checkout: %+v", r)
	}

	// A closed room gates nothing.
	a.must(200, "PATCH", "/v1/rooms/drop", `{"status":"closed"}`)
	a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`)
	if tk := a.ticket("drop", "cart-1"); tk.Status != "admitted" {
		t.Errorf("the admitted visitor's ticket in the closed room: %+v", tk)
	}
}

// TestRoomUpdate changes a room with PATCH, and refuses what its state
// does not allow: 409 invalid_state saying why, the room as it was.
func TestRoomUpdate(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	a.must(201, "POST", "/v1/rooms", `{"id":"later","show_id":"gala","opens_at":"2030-01-02T04:04:05Z","active_limit":5,"admit_per_minute":60}`)
	a.must(200, "POST", "/v1/rooms/later/visitors", `{"visitor_id":"v-1"}`)
	visitors := map[string][]string{"later": {"v-1"}}

	refusals := []struct {
		name, body   string
		status       int
		code, detail string
	}{
		{"order without reorder", `{"order":"random_at_opening"}`, 409, stockade.EInvalidState, "set reorder to do it"},
		{"reopened while scheduled", `{"status":"queueing"}`, 409, stockade.EInvalidState, "only a closed or sold-out room can be opened again"},
		{"at another version", `{"active_limit":6,"expected_version":1}`, 409, stockade.EVersionConflict, `room "later" is at version 2, not 1`},
		{"sold out by hand", `{"status":"sold_out"}`, 400, stockade.EInvalid, `status: may be set to "closed" or "queueing", got "sold_out"`},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			before := a.roomState(visitors)
			r := a.do("PATCH", "/v1/rooms/later", tc.body)
			if r.status != tc.status {
				t.Fatalf("got %s, want %d", r, tc.status)
			}
			if p := r.problem(t); p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %q %q, want %s containing %q", p.Code, p.Detail, tc.code, tc.detail)
			}
			if after := a.roomState(visitors); after != before {
				t.Errorf("the refusal changed the state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}

	r := decodeAs[roomJSON](t, a.must(200, "PATCH", "/v1/rooms/later",
		`{"order":"random_at_opening","reorder":true,"active_limit":7,"admission_ttl_seconds":120,"per_visitor":2,"stock_factor":1.5,"expected_version":2,"metadata":{"tier":"vip"}}`))
	if r.Order != "random_at_opening" || r.ActiveLimit != 7 || r.AdmissionTTLSeconds != 120 || r.PerVisitor != 2 || r.StockFactor != 1.5 ||
		r.Version != 3 || !reflect.DeepEqual(r.Metadata, stockade.Metadata{"tier": "vip"}) {
		t.Errorf("the room changed: %+v", r)
	}
	// Under random_at_opening, the opening of a room with visitors moves
	// only with reorder.
	if p := a.must(409, "PATCH", "/v1/rooms/later", `{"opens_at":"2030-01-02T05:04:05Z"}`).problem(t); !strings.Contains(p.Detail, "waiting for the draw at opening") {
		t.Errorf("moving the opening without reorder: %+v", p)
	}
	r = decodeAs[roomJSON](t, a.must(200, "PATCH", "/v1/rooms/later", `{"opens_at":"2030-01-02T05:04:05Z","reorder":true}`))
	if !r.OpensAt.Equal(start.Add(2 * time.Hour)) {
		t.Errorf("the opening moved to %v", r.OpensAt)
	}
	if tk := a.ticket("later", "v-1"); tk.Status != "waiting" || tk.EstimatedWaitSeconds < 2*60*60 {
		t.Errorf("a visitor before the opening: %+v, want the wait until the opening", tk)
	}

	// Closed, the room takes no new visitor and tells those it has;
	// opened again before its time, it is scheduled again.
	if r = decodeAs[roomJSON](t, a.must(200, "PATCH", "/v1/rooms/later", `{"status":"closed"}`)); r.Status != "closed" {
		t.Errorf("closed: %+v", r)
	}
	if p := a.must(409, "POST", "/v1/rooms/later/visitors", `{"visitor_id":"v-2"}`).problem(t); p.Code != stockade.EInvalidState || !strings.Contains(p.Detail, "closed") {
		t.Errorf("joining a closed room: %+v", p)
	}
	if tk := a.ticket("later", "v-1"); tk.Status != "closed" {
		t.Errorf("a visitor of a closed room: %+v", tk)
	}
	if r = decodeAs[roomJSON](t, a.must(200, "PATCH", "/v1/rooms/later", `{"status":"queueing"}`)); r.Status != "scheduled" {
		t.Errorf("opened again before its opening: %+v, want scheduled", r)
	}
	a.must(404, "PATCH", "/v1/rooms/nowhere", `{"active_limit":1}`)
}

// TestRoomBadInputChangesNothing sends bad requests to the rooms' routes
// and bad admissions to holds and reservations: each gets a 4xx problem
// with the right code, naming what is wrong, and changes nothing.
func TestRoomBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	a.must(200, "PUT", "/v1/shows/opera", `{"name":"Opera","areas":[{"name":"stalls","capacity":10}]}`)
	a.seed()
	a.must(201, "POST", "/v1/rooms", galaRoom)
	a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-1"}`)
	visitors := map[string][]string{"gala-sale": {"v-1"}}
	room := func(fields string) string {
		return `{"id":"opera-sale","show_id":"opera","active_limit":1,"admit_per_minute":1` + fields + `}`
	}
	hold := func(adm string) string { return `{"seats":["stalls/A/1"],"admission":` + adm + `}` }
	tests := []struct {
		name         string
		method, path string
		body         any
		status       int
		code, detail string
	}{
		// Creating a room: the wire format.
		{"no body", "POST", "/v1/rooms", "", 400, "invalid", "body: empty"},
		{"no id", "POST", "/v1/rooms", `{"show_id":"opera","active_limit":1,"admit_per_minute":1}`, 400, "invalid", "id: required"},
		{"no active limit", "POST", "/v1/rooms", `{"id":"x","show_id":"opera","admit_per_minute":1}`, 400, "invalid", "active_limit: required"},
		{"no rate", "POST", "/v1/rooms", `{"id":"x","show_id":"opera","active_limit":1}`, 400, "invalid", "admit_per_minute: required"},
		{"unknown field", "POST", "/v1/rooms", room(`,"secret":"mine"`), 400, "invalid", `body: unknown field "secret"`},
		{"opens_at not a time", "POST", "/v1/rooms", room(`,"opens_at":"tomorrow"`), 400, "invalid", `opens_at: want an RFC 3339 time such as 2030-01-02T03:04:05Z, got "tomorrow"`},
		{"opens_at a number", "POST", "/v1/rooms", room(`,"opens_at":1893000000`), 400, "invalid", "opens_at: want a string, got number"},
		{"zero admission ttl", "POST", "/v1/rooms", room(`,"admission_ttl_seconds":0`), 400, "invalid", "admission_ttl_seconds: must be between 1 and 86400, got 0 (leave it out for 600)"},
		{"admission ttl past a day", "POST", "/v1/rooms", room(`,"admission_ttl_seconds":86401`), 400, "invalid", "admission_ttl_seconds: must be between 1 and 86400, got 86401"},
		{"empty order", "POST", "/v1/rooms", room(`,"order":""`), 400, "invalid", `order: must be "arrival" or "random_at_opening", got ""`},
		{"zero per visitor", "POST", "/v1/rooms", room(`,"per_visitor":0`), 400, "invalid", "per_visitor: must be between 1 and 100, got 0"},
		{"zero stock factor", "POST", "/v1/rooms", room(`,"stock_factor":0`), 400, "invalid", "stock_factor: must be above 0 and at most 100, got 0"},
		{"empty show id", "POST", "/v1/rooms", `{"id":"x","show_id":"","active_limit":1,"admit_per_minute":1}`, 400, "invalid", "show_id: required, must not be empty"},
		{"skus not strings", "POST", "/v1/rooms", `{"id":"x","skus":[1],"active_limit":1,"admit_per_minute":1}`, 400, "invalid", "skus: want a string, got number"},
		// Creating a room: the domain's limits and the state.
		{"neither show nor skus", "POST", "/v1/rooms", `{"id":"x","active_limit":1,"admit_per_minute":1}`, 400, "invalid", "show_id: a room stands in front of a show or of skus, got neither"},
		{"both show and skus", "POST", "/v1/rooms", room(`,"skus":["widget"]`), 400, "invalid", "skus: a room stands in front of a show or of skus, not both"},
		{"sku twice", "POST", "/v1/rooms", `{"id":"x","skus":["widget","widget"],"active_limit":1,"admit_per_minute":1}`, 400, "invalid", `skus[1]: sku "widget" is named twice`},
		{"opens too late", "POST", "/v1/rooms", room(`,"opens_at":"2031-06-01T00:00:00Z"`), 400, "invalid", "opens_at: at most"},
		{"no admissions at once", "POST", "/v1/rooms", `{"id":"x","show_id":"opera","active_limit":0,"admit_per_minute":1}`, 400, "invalid", "active_limit: must be between 1 and 1000000, got 0"},
		{"rate too high", "POST", "/v1/rooms", `{"id":"x","show_id":"opera","active_limit":1,"admit_per_minute":1000001}`, 400, "invalid", "admit_per_minute: must be between 1 and 1000000, got 1000001"},
		{"unknown order", "POST", "/v1/rooms", room(`,"order":"lottery"`), 400, "invalid", `order: must be "arrival" or "random_at_opening", got "lottery"`},
		{"too many per visitor", "POST", "/v1/rooms", room(`,"per_visitor":101`), 400, "invalid", "per_visitor: must be between 1 and 100, got 101"},
		{"negative stock factor", "POST", "/v1/rooms", room(`,"stock_factor":-1`), 400, "invalid", "stock_factor: must be above 0 and at most 100, got -1"},
		{"bad metadata", "POST", "/v1/rooms", room(`,"metadata":{"a b":"c"}`), 400, "invalid", "metadata"},
		{"unknown show", "POST", "/v1/rooms", `{"id":"x","show_id":"ballet","active_limit":1,"admit_per_minute":1}`, 404, "not_found", `"ballet" not found`},
		{"show behind a room", "POST", "/v1/rooms", `{"id":"x","show_id":"gala","active_limit":1,"admit_per_minute":1}`, 409, "invalid_state", `room "gala-sale" already stands in front of show "gala"`},
		{"id in use", "POST", "/v1/rooms", `{"id":"gala-sale","show_id":"opera","active_limit":1,"admit_per_minute":1}`, 409, "invalid_state", `room "gala-sale" exists already`},
		{"query on a creation", "POST", "/v1/rooms?id=x", room(""), 400, "invalid", "takes no query parameters"},

		// Changing a room.
		{"patch unknown field", "PATCH", "/v1/rooms/gala-sale", `{"joined":0}`, 400, "invalid", `body: unknown field "joined"`},
		{"patch zero ttl", "PATCH", "/v1/rooms/gala-sale", `{"admission_ttl_seconds":0}`, 400, "invalid", "admission_ttl_seconds: must be between 1"},
		{"patch zero per visitor", "PATCH", "/v1/rooms/gala-sale", `{"per_visitor":0}`, 400, "invalid", "per_visitor: must be between 1 and 100, got 0"},
		{"patch zero stock factor", "PATCH", "/v1/rooms/gala-sale", `{"stock_factor":0}`, 400, "invalid", "stock_factor: must be above 0"},
		{"patch empty order", "PATCH", "/v1/rooms/gala-sale", `{"order":""}`, 400, "invalid", `order: must be "arrival" or "random_at_opening", got ""`},
		{"patch no active limit", "PATCH", "/v1/rooms/gala-sale", `{"active_limit":0}`, 400, "invalid", "active_limit: must be between 1 and 1000000, got 0"},
		{"patch unknown status", "PATCH", "/v1/rooms/gala-sale", `{"status":"open"}`, 400, "invalid", `status: may be set to "closed" or "queueing", got "open"`},
		{"patch reorder a string", "PATCH", "/v1/rooms/gala-sale", `{"reorder":"yes"}`, 400, "invalid", "reorder: want a boolean, got string"},
		{"patch bad opening", "PATCH", "/v1/rooms/gala-sale", `{"opens_at":"2030-13-01T00:00:00Z"}`, 400, "invalid", "opens_at: want an RFC 3339 time"},
		{"patch no body", "PATCH", "/v1/rooms/gala-sale", "", 400, "invalid", "body: empty"},
		{"patch unknown room", "PATCH", "/v1/rooms/ballet-sale", `{"active_limit":1}`, 404, "not_found", `ballet-sale`},

		// Visitors.
		{"join without visitor", "POST", "/v1/rooms/gala-sale/visitors", `{}`, 400, "invalid", "visitor_id: required"},
		{"join with empty visitor", "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":""}`, 400, "invalid", "visitor_id: required, must not be empty"},
		{"join with a visitor number", "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":7}`, 400, "invalid", "visitor_id: want a string, got number"},
		{"join with another field", "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-2","position":1}`, 400, "invalid", `body: unknown field "position"`},
		{"join no room", "POST", "/v1/rooms/ballet-sale/visitors", `{"visitor_id":"v-2"}`, 404, "not_found", `ballet-sale`},
		{"ticket of no visitor", "GET", "/v1/rooms/gala-sale/visitors/v-2", nil, 404, "not_found", `visitor "v-2" has not joined room "gala-sale"`},
		{"ticket with a query", "GET", "/v1/rooms/gala-sale/visitors/v-1?token=1", nil, 400, "invalid", "takes no query parameters"},
		{"rooms limit 0", "GET", "/v1/rooms?limit=0", nil, 400, "invalid", "limit: want an integer between 1 and 1000"},
		{"rooms malformed cursor", "GET", "/v1/rooms?cursor=a.b", nil, 400, "invalid", "cursor: malformed"},
		{"rooms unknown parameter", "GET", "/v1/rooms?status=queueing", nil, 400, "invalid", `unknown parameter "status" (want cursor, limit)`},
		{"no room", "GET", "/v1/rooms/ballet-sale", nil, 404, "not_found", `ballet-sale`},

		// Admissions of holds and reservations.
		{"admission without token", "POST", "/v1/shows/gala/holds", hold(`{"visitor_id":"v-1"}`), 400, "invalid", "admission.token: required"},
		{"admission without visitor", "POST", "/v1/shows/gala/holds", hold(`{"token":"adm1.x.y"}`), 400, "invalid", "admission.visitor_id: required"},
		{"admission a string", "POST", "/v1/shows/gala/holds", hold(`"adm1.x.y"`), 400, "invalid", "admission: want an object, got string"},
		{"admission with a room", "POST", "/v1/shows/gala/holds", hold(`{"visitor_id":"v-1","token":"adm1.x.y","room":"gala-sale"}`), 400, "invalid", `admission: unknown field "room"`},
		{"admission key in another case", "POST", "/v1/shows/gala/holds", hold(`{"visitor_id":"v-1","Token":"adm1.x.y"}`), 400, "invalid", `admission: unknown field "Token" (keys are case-sensitive: want "token")`},
		{"admission empty token", "POST", "/v1/shows/gala/holds", hold(admission("v-1", "")), 400, "invalid", "admission.token: must be 1 to 1024 bytes, got 0"},
		{"admission long token", "POST", "/v1/shows/gala/holds", hold(admission("v-1", strings.Repeat("a", 1025))), 400, "invalid", "admission.token: must be 1 to 1024 bytes, got 1025"},
		{"admission empty visitor", "POST", "/v1/shows/gala/holds", hold(admission("", "adm1.x.y")), 400, "invalid", "admission.visitor_id: required, must not be empty"},
		{"admission null", "POST", "/v1/shows/gala/holds", hold(`null`), 403, "admission_required", `waiting room "gala-sale"`},
		{"admission not a token", "POST", "/v1/shows/gala/holds", hold(admission("v-1", "adm1.x.y")), 403, "admission_invalid", "admission token: its payload"},
		{"reservation admission without token", "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}],"admission":{"visitor_id":"v-1"}}`, 400, "invalid", "admission.token: required"},
		{"checkout admission with a typo", "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}],"admission":{"visitor":"v-1","token":"t"}}`, 400, "invalid", `admission: unknown field "visitor"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := a.roomState(visitors) + a.snapshot()
			r := a.do(tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("got %s, want status %d", r, tc.status)
			}
			if p := r.problem(t); p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %q %q, want code %q and detail containing %q", p.Code, p.Detail, tc.code, tc.detail)
			}
			if after := a.roomState(visitors) + a.snapshot(); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestRoomShapes compares the answers of the rooms' routes with their
// golden files. The answers that carry a room's secret or an admission
// token, both random, are checked by TestRoomFlow instead.
func TestRoomShapes(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
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
	a.must(201, "POST", "/v1/rooms", galaRoom)
	a.must(201, "POST", "/v1/rooms", `{"id":"drop","skus":["widget","gizmo"],"opens_at":"2030-01-02T04:04:05Z","active_limit":100,"admit_per_minute":600,"order":"random_at_opening","per_visitor":2,"stock_factor":1.5}`)
	step("room_join", 200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-1"}`)
	step("room_join_draw", 200, "POST", "/v1/rooms/drop/visitors", `{"visitor_id":"v-1"}`)
	a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"v-2"}`)
	step("room_ticket", 200, "GET", "/v1/rooms/gala-sale/visitors/v-2", nil)
	step("room", 200, "GET", "/v1/rooms/gala-sale", nil)
	step("room_update", 200, "PATCH", "/v1/rooms/drop", `{"active_limit":50,"metadata":{"tier":"members"}}`)
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(step("rooms_page", 200, "GET", "/v1/rooms?limit=1", nil).body, &page); err != nil || page.NextCursor == nil {
		t.Fatalf("first page of the rooms: next_cursor %v, %v", page.NextCursor, err)
	}
	step("rooms_next_page", 200, "GET", "/v1/rooms?limit=1&cursor="+url.QueryEscape(*page.NextCursor), nil)
	step("problem_admission_required", 403, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"]}`)
	step("problem_admission_invalid", 403, "POST", "/v1/shows/gala/holds",
		`{"seats":["stalls/A/1"],"admission":{"visitor_id":"v-1","token":"adm1.eyJyb29tIjoiZ2FsYS1zYWxlIiwidmlzaXRvciI6InYtMSIsInBvc2l0aW9uIjoxLCJleHAiOjE4OTMwMDAwMDB9.c2lnbmF0dXJl"}}`)
}

// TestRoomClient drives the rooms' calls through the Go client, and holds
// and reservations with an admission, and checks each answer against the
// engine's own.
func TestRoomClient(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	a.seed()
	c, ctx := a.client, sys(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// public is a room as the engine has it, without what it keeps to
	// itself, which the API does not show.
	public := func(v stockade.RoomView, err error) (any, error) {
		v.Secret, v.Ordered, v.Credit, v.CreditAt = "", 0, 0, time.Time{}
		return v, err
	}
	publicPage := func(p stockade.RoomPage, err error) (any, error) {
		for i := range p.Rooms {
			v, _ := public(p.Rooms[i], nil)
			p.Rooms[i] = v.(stockade.RoomView)
		}
		return p, err
	}

	req := stockade.NewRoomRequest{ID: "gala-sale", ShowID: "gala", ActiveLimit: 1, AdmitPerMinute: 60,
		AdmissionTTL: 90*time.Second + time.Millisecond, Order: stockade.RoomArrival, Metadata: stockade.Metadata{"campaign": "spring"}}
	idem := &stockade.Idempotency{Key: "room-1"}
	v, secret, err := c.CreateRoom(ctx, req, idem)
	must(err)
	if !strings.HasPrefix(secret, "rsec_") || v.AdmissionTTL != 91*time.Second || v.Status != stockade.RoomScheduled || v.Secret != "" || idem.Replayed {
		t.Errorf("CreateRoom = %+v, secret %q (TTL rounded up to 91s), replayed %v", v, secret, idem.Replayed)
	}
	same(t, "CreateRoom", func() (any, error) { return v, nil }, func() (any, error) { return public(a.eng.Room(ctx, "gala-sale")) })
	same(t, "Room", func() (any, error) { return c.Room(ctx, "gala-sale") }, func() (any, error) { return public(a.eng.Room(ctx, "gala-sale")) })
	_, _, err = c.CreateRoom(ctx, stockade.NewRoomRequest{ID: "drop", SKUs: []string{"widget"}, OpensAt: start.Add(time.Hour),
		ActiveLimit: 5, AdmitPerMinute: 600, Order: stockade.RoomRandomAtOpening, PerVisitor: 2, StockFactor: 2}, nil)
	must(err)
	q := stockade.RoomQuery{Limit: 1}
	same(t, "Rooms", func() (any, error) { return c.Rooms(ctx, q) }, func() (any, error) { return publicPage(a.eng.Rooms(ctx, q)) })
	page, err := c.Rooms(ctx, q)
	must(err)
	if len(page.Rooms) != 1 || page.Rooms[0].ID != "drop" || page.Next == "" {
		t.Fatalf("Rooms(%+v) = %+v, want drop and a next cursor", q, page)
	}
	q.Cursor = page.Next
	same(t, "Rooms after a cursor", func() (any, error) { return c.Rooms(ctx, q) }, func() (any, error) { return publicPage(a.eng.Rooms(ctx, q)) })

	limit, ttl, order, factor := int64(3), 2*time.Minute, stockade.RoomArrival, 1.25
	u := stockade.RoomUpdate{ActiveLimit: &limit, AdmissionTTL: &ttl, Order: &order, StockFactor: &factor, Reorder: true, Metadata: stockade.Metadata{"tier": "vip"}}
	v, err = c.UpdateRoom(ctx, "drop", u, nil)
	must(err)
	if v.ActiveLimit != 3 || v.AdmissionTTL != 2*time.Minute || v.Order != stockade.RoomArrival || v.StockFactor != 1.25 ||
		!reflect.DeepEqual(v.Metadata, stockade.Metadata{"tier": "vip"}) || v.Version != 2 {
		t.Errorf("UpdateRoom = %+v", v)
	}
	same(t, "UpdateRoom", func() (any, error) { return v, nil }, func() (any, error) { return public(a.eng.Room(ctx, "drop")) })
	stale := int64(1)
	if _, err := c.UpdateRoom(ctx, "drop", stockade.RoomUpdate{ActiveLimit: &limit, ExpectedVersion: &stale}, nil); stockade.ErrorCode(err) != stockade.EVersionConflict {
		t.Errorf("UpdateRoom at a stale version: %v, want %s", err, stockade.EVersionConflict)
	}

	tk, err := c.JoinRoom(ctx, stockade.JoinRequest{RoomID: "gala-sale", VisitorID: "v-1"})
	must(err)
	if tk.Position != 1 || tk.Status != stockade.TicketWaiting || tk.EstimatedWait != time.Second {
		t.Errorf("JoinRoom = %+v", tk)
	}
	if again, err := c.JoinRoom(ctx, stockade.JoinRequest{RoomID: "gala-sale", VisitorID: "v-1"}); err != nil || !reflect.DeepEqual(again, tk) {
		t.Errorf("JoinRoom again = %+v, %v; want %+v", again, err, tk)
	}
	same(t, "RoomTicket", func() (any, error) { return c.RoomTicket(ctx, "gala-sale", "v-1") },
		func() (any, error) { return a.eng.RoomTicket(ctx, "gala-sale", "v-1") })
	if _, err := c.RoomTicket(ctx, "gala-sale", "v-9"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("RoomTicket of no visitor: %v, want %s", err, stockade.ENotFound)
	}

	// Holds and reservations carry the admission through the client.
	hold := stockade.HoldRequest{ShowID: "gala", Seats: []string{"stalls/A/1"}}
	if _, err := c.HoldSeats(ctx, hold, nil); stockade.ErrorCode(err) != stockade.EAdmissionRequired {
		t.Errorf("HoldSeats without an admission: %v, want %s", err, stockade.EAdmissionRequired)
	}
	if n := a.admit(2 * time.Second); n != 1 {
		t.Fatalf("the round admitted %d, want 1", n)
	}
	tk, err = c.RoomTicket(ctx, "gala-sale", "v-1")
	must(err)
	if tk.Status != stockade.TicketAdmitted || tk.Token == "" || !tk.ExpiresAt.Equal(a.clock.Now().Add(91*time.Second)) {
		t.Errorf("RoomTicket once admitted = %+v", tk)
	}
	same(t, "RoomTicket admitted", func() (any, error) { return c.RoomTicket(ctx, "gala-sale", "v-1") },
		func() (any, error) { return a.eng.RoomTicket(ctx, "gala-sale", "v-1") })
	hold.Admission = &stockade.AdmissionProof{VisitorID: "v-1", Token: tk.Token}
	h, err := c.HoldSeats(ctx, hold, nil)
	must(err)
	if h.Status != stockade.HoldHeld {
		t.Errorf("HoldSeats with the admission = %+v", h)
	}

	a.must(200, "PATCH", "/v1/rooms/drop", `{"opens_at":"2030-01-02T03:04:07Z"}`)
	_, err = c.JoinRoom(ctx, stockade.JoinRequest{RoomID: "drop", VisitorID: "cart-1"})
	must(err)
	res := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}
	if _, err := c.Reserve(ctx, res, nil); stockade.ErrorCode(err) != stockade.EAdmissionRequired {
		t.Errorf("Reserve without an admission: %v, want %s", err, stockade.EAdmissionRequired)
	}
	if n := a.admit(time.Second); n != 1 {
		t.Fatalf("the round admitted %d, want 1", n)
	}
	tk, err = c.RoomTicket(ctx, "drop", "cart-1")
	must(err)
	res.Admission = &stockade.AdmissionProof{VisitorID: "cart-1", Token: tk.Token}
	if r, err := c.Reserve(ctx, res, nil); err != nil || r.Status != stockade.Held {
		t.Errorf("Reserve with the admission = %+v, %v", r, err)
	}
	if o, err := c.Checkout(ctx, res, nil); err != nil || o.Status != stockade.Committed {
		t.Errorf("Checkout with the admission = %+v, %v", o, err)
	}
	res.Admission.VisitorID = "cart-2"
	if _, err := c.Checkout(ctx, res, nil); stockade.ErrorCode(err) != stockade.EAdmissionInvalid || !strings.Contains(stockade.ErrorMessage(err), `"cart-2"`) {
		t.Errorf("Checkout with another visitor's token: %v, want %s", err, stockade.EAdmissionInvalid)
	}
}

// roomBodies are bodies of POST /v1/rooms, good and bad: the seeds of
// FuzzRoomBody.
var roomBodies = []string{
	galaRoom,
	`{"id":"drop","skus":["widget","gizmo"],"opens_at":"2030-01-02T04:04:05.123456789+01:00","active_limit":100,"admit_per_minute":600,` +
		`"admission_ttl_seconds":60,"order":"random_at_opening","per_visitor":2,"stock_factor":1.5}`,
	`{"id":"x","show_id":"gala","skus":[],"active_limit":0,"admit_per_minute":-1,"metadata":{}}`,
	`{"id":"x","show_id":"gala","active_limit":1,"admit_per_minute":1,"opens_at":"soon"}`,
	`{"id":"x","show_id":"gala","active_limit":1,"admit_per_minute":1,"per_visitor":0,"stock_factor":-0}`,
	`{"id":"x","show_id":"gala","active_limit":1,"admit_per_minute":1,"admission_ttl_seconds":9223372036854775807}`,
	`{"id":"x","show_id":"gala","active_limit":1,"admit_per_minute":1,"order":""}`,
	`{"id":"x","active_limit":1,"Admit_per_minute":1}`,
	`null`,
}

// roomUpdateBodies are bodies of PATCH /v1/rooms/{id}: the seeds of
// FuzzRoomUpdateBody.
var roomUpdateBodies = []string{
	`{}`,
	`{"opens_at":"2030-01-02T04:04:05Z","order":"random_at_opening","reorder":true,"expected_version":3}`,
	`{"active_limit":5,"admit_per_minute":60,"admission_ttl_seconds":120,"per_visitor":2,"stock_factor":0.5,"status":"closed","metadata":{"a":"b"}}`,
	`{"status":"sold_out"}`,
	`{"per_visitor":0}`,
	`{"metadata":{},"reorder":false}`,
	`{"metadata":null,"opens_at":null}`,
	`{"active_limit":0}`,
}

// sameRoomTime checks that a and b are the same instant, as a room's
// opening that went over the wire is, and sets b to a: the zone's name
// does not travel, only its offset.
func sameRoomTime(t *testing.T, a time.Time, b *time.Time) {
	t.Helper()
	if !a.Equal(*b) {
		t.Fatalf("opens_at %v came back as %v", a, *b)
	}
	*b = a
}

// FuzzRoomBody decodes arbitrary bodies of POST /v1/rooms: a refusal is
// EInvalid with a message, and what is accepted survives a trip through
// the client's encoding.
func FuzzRoomBody(f *testing.F) {
	for _, b := range roomBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		roundTrip(t, body, newRoomBody.request, func(req stockade.NewRoomRequest) any { return newRoomBodyOf(req) },
			func(t *testing.T, req stockade.NewRoomRequest, back *stockade.NewRoomRequest) {
				sameRoomTime(t, req.OpensAt, &back.OpensAt)
			})
	})
}

// FuzzRoomUpdateBody decodes arbitrary bodies of PATCH /v1/rooms/{id}, as
// FuzzRoomBody does those of POST /v1/rooms.
func FuzzRoomUpdateBody(f *testing.F) {
	for _, b := range roomUpdateBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		roundTrip(t, body, roomUpdateBody.update, func(u stockade.RoomUpdate) any { return roomUpdateBodyOf(u) },
			func(t *testing.T, u stockade.RoomUpdate, back *stockade.RoomUpdate) {
				if (u.OpensAt == nil) != (back.OpensAt == nil) {
					t.Fatalf("opens_at %v, then %v", u.OpensAt, back.OpensAt)
				}
				if u.OpensAt != nil {
					sameRoomTime(t, *u.OpensAt, back.OpensAt)
				}
			})
	})
}

// nextTicket reads a visitor's ticket stream up to its next ticket,
// skipping comments; ok is false once the stream has ended.
func nextTicket(t *testing.T, s *sse) (tk roomTicketJSON, ok bool) {
	t.Helper()
	typ, data := "", ""
	for s.lines.Scan() {
		line := s.lines.Text()
		switch {
		case line == "" && data != "":
			if typ != "ticket" {
				t.Fatalf("an event %q in a ticket stream", typ)
			}
			if err := json.Unmarshal([]byte(data), &tk); err != nil {
				t.Fatalf("a ticket's data %s: %v", data, err)
			}
			return tk, true
		case strings.HasPrefix(line, ":"), line == "":
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("a line that is not Server-Sent Events: %q", line)
		}
	}
	if err := s.lines.Err(); err != nil {
		t.Fatalf("the stream failed: %v", err)
	}
	return tk, false
}

// TestRoomTicketStream: a visitor's tickets stream as they change, and
// the stream ends with a ticket that no longer changes; a visitor that
// has not joined is 404 before any stream.
func TestRoomTicketStream(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	a.must(201, "POST", "/v1/rooms", galaRoom)
	for _, v := range []string{"v-1", "v-2", "v-3"} {
		a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"`+v+`"}`)
	}
	if status := a.streamStatus("/v1/rooms/gala-sale/visitors/v-9/stream"); status != 404 {
		t.Fatalf("the stream of a visitor that has not joined: %d, want 404", status)
	}
	s := a.stream("/v1/rooms/gala-sale/visitors/v-3/stream")
	defer s.close()
	if s.status != 200 {
		t.Fatalf("the stream's status: %d", s.status)
	}
	if tk, ok := nextTicket(t, s); !ok || tk.Status != "waiting" || tk.Position != 3 || tk.Ahead != 2 {
		t.Fatalf("the first ticket: %+v (ok %v), want waiting at 3 with 2 ahead", tk, ok)
	}
	if n := a.admit(10 * time.Second); n != 2 {
		t.Fatalf("admitted %d, want the active limit 2", n)
	}
	if tk, ok := nextTicket(t, s); !ok || tk.Status != "waiting" || tk.Ahead != 0 {
		t.Fatalf("the ticket after the round: %+v (ok %v), want waiting with no one ahead", tk, ok)
	}
	a.must(200, "PATCH", "/v1/rooms/gala-sale", `{"status":"closed"}`)
	if tk, ok := nextTicket(t, s); !ok || tk.Status != "closed" {
		t.Fatalf("the ticket once the room closed: %+v (ok %v)", tk, ok)
	}
	if tk, ok := nextTicket(t, s); ok {
		t.Fatalf("the stream went on after a closed ticket: %+v", tk)
	}
}

// TestRoomLeave: a visitor that leaves ends its admission, and the room
// lets the next one in; a waiting visitor has nothing to end.
func TestRoomLeave(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.gala()
	a.must(201, "POST", "/v1/rooms", galaRoom)
	for _, v := range []string{"v-1", "v-2", "v-3"} {
		a.must(200, "POST", "/v1/rooms/gala-sale/visitors", `{"visitor_id":"`+v+`"}`)
	}
	if n := a.admit(10 * time.Second); n != 2 {
		t.Fatalf("admitted %d, want the active limit 2", n)
	}
	if p := a.must(409, "POST", "/v1/rooms/gala-sale/visitors/v-3/leave", nil).problem(t); p.Code != stockade.EInvalidState || !strings.Contains(p.Detail, "waiting") {
		t.Errorf("a waiting visitor leaves: %+v", p)
	}
	left := decodeAs[roomTicketJSON](t, a.must(200, "POST", "/v1/rooms/gala-sale/visitors/v-1/leave", nil))
	if left.Status != "expired" || left.Token != "" {
		t.Errorf("v-1 after leaving: %+v", left)
	}
	if n := a.admit(0); n != 1 {
		t.Fatalf("admitted %d once v-1 left, want 1", n)
	}
	if v3 := a.ticket("gala-sale", "v-3"); v3.Status != "admitted" {
		t.Errorf("v-3 once v-1 left: %+v", v3)
	}
	again, err := a.client.LeaveRoom(t.Context(), "gala-sale", "v-1")
	if err != nil || again.Status != stockade.TicketExpired {
		t.Errorf("the client's LeaveRoom of v-1 again: %+v, %v", again, err)
	}
}
