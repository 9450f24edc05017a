package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// streamStatus opens the event stream at path with the header lines and
// returns the status, without waiting for the stream to end.
func (a *api) streamStatus(path string, header ...string) int {
	a.t.Helper()
	s := a.stream(path, header...)
	defer s.close()
	return s.status
}

// sse is an open event stream.
type sse struct {
	status int
	lines  *bufio.Scanner
	close  func()
}

// stream opens the event stream at path, with the header lines.
func (a *api) stream(path string, header ...string) *sse {
	a.t.Helper()
	ctx, cancel := context.WithCancel(a.t.Context())
	req, err := http.NewRequestWithContext(ctx, "GET", a.srv.URL+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	for _, h := range header {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Add(name, strings.TrimSpace(value))
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	return &sse{status: resp.StatusCode, lines: bufio.NewScanner(resp.Body), close: func() { cancel(); resp.Body.Close() }}
}

// streamed is one event as a stream sent it.
type streamed struct {
	id, typ string
	ev      eventJSON
}

// next reads the stream up to its next event, skipping comments.
func (s *sse) next(t *testing.T) streamed {
	t.Helper()
	var e streamed
	for s.lines.Scan() {
		line := s.lines.Text()
		switch {
		case line == "" && e.id != "":
			return e
		case strings.HasPrefix(line, ":"), line == "":
		case strings.HasPrefix(line, "id: "):
			e.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			e.typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e.ev); err != nil {
				t.Fatalf("data of event %s: %v", e.id, err)
			}
		default:
			t.Fatalf("a line that is not Server-Sent Events: %q", line)
		}
	}
	t.Fatalf("the stream ended: %v", s.lines.Err())
	return e
}

// feed reads GET /v1/events with the query and returns the page.
func (a *api) feed(query string) eventsJSON {
	a.t.Helper()
	var page eventsJSON
	if err := json.Unmarshal(a.must(200, "GET", "/v1/events?"+query, nil).body, &page); err != nil {
		a.t.Fatal(err)
	}
	return page
}

// TestEventFeed: the events of the API's changes, a page at a time, with
// filters; a long poll that answers when an event commits.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	res := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":2,"location":"west"}]}`).id(t)
	a.must(200, "DELETE", "/v1/reservations/"+res, nil)

	all := a.feed("")
	var types []string
	for _, ev := range all.Events {
		types = append(types, ev.Type+" "+ev.AggregateID)
	}
	want := "stock.set widget@east, stock.in widget@east, stock.set widget@west, stock.in widget@west, reservation.held " + res + ", reservation.released " + res
	if strings.Join(types, ", ") != want {
		t.Errorf("events:\n got %s\nwant %s", strings.Join(types, ", "), want)
	}
	if all.NextCursor != all.Events[len(all.Events)-1].Cursor {
		t.Errorf("next_cursor %q, want the last event's %q", all.NextCursor, all.Events[len(all.Events)-1].Cursor)
	}
	// Paged: two at a time, the same events.
	var paged []string
	for after := ""; ; {
		q := "limit=2"
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		page := a.feed(q)
		for _, ev := range page.Events {
			paged = append(paged, ev.ID)
		}
		if len(page.Events) == 0 {
			if page.NextCursor != after {
				t.Errorf("an empty page's next_cursor %q, want the query's %q", page.NextCursor, after)
			}
			break
		}
		after = page.NextCursor
	}
	if len(paged) != len(all.Events) {
		t.Errorf("paged %d events, want %d", len(paged), len(all.Events))
	}
	if page := a.feed("type=reservation.held,reservation.released&aggregate=reservation&aggregate_id=" + res); len(page.Events) != 2 {
		t.Errorf("filtered: %+v", page.Events)
	}
	if page := a.feed("aggregate=level&aggregate_id=" + url.QueryEscape("widget@west")); len(page.Events) != 2 {
		t.Errorf("one level's events: %+v", page.Events)
	}
	for _, bad := range []string{"type=stock.sold", "aggregate=shelf", "aggregate_id=x", "limit=0", "wait=forever", "wait=2m", "after=", "after=xyz", "cursor=" + all.NextCursor} {
		if r := a.do("GET", "/v1/events?"+bad, nil); r.status != 400 || r.problem(t).Code != stockade.EInvalid {
			t.Errorf("GET /v1/events?%s: %s, want 400", bad, r)
		}
	}

	// A long poll answers with the event that commits while it waits.
	got := make(chan eventsJSON, 1)
	go func() {
		var page eventsJSON
		r := a.do("GET", "/v1/events?wait=5s&after="+url.QueryEscape(all.NextCursor), nil)
		json.Unmarshal(r.body, &page)
		got <- page
	}()
	a.must(200, "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"found"}`)
	page := <-got
	if len(page.Events) == 0 {
		// It may have read before the adjustment committed and then
		// timed out; then the event is on the next page.
		page = a.feed("after=" + url.QueryEscape(all.NextCursor))
	}
	if len(page.Events) != 1 || page.Events[0].Type != stockade.EventStockAdjusted {
		t.Errorf("after the adjustment: %+v", page.Events)
	}
}

// TestEventStream: a stream sends every event once, in order; a client
// that goes and comes back with Last-Event-ID misses nothing and sees
// nothing twice; the stream ends when the server closes its streams.
func TestEventStream(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed() // four events
	s := a.stream("/v1/events/stream")
	if s.status != 200 {
		t.Fatalf("stream: status %d", s.status)
	}
	var seen []streamed
	for range 4 {
		seen = append(seen, s.next(t))
	}
	res := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":5,"location":"west"}]}`).id(t)
	held, out := s.next(t), s.next(t)
	if held.typ != stockade.EventReservationHeld || held.ev.AggregateID != res || out.typ != stockade.EventOutOfStock {
		t.Errorf("live events: %+v, %+v", held, out)
	}
	seen = append(seen, held, out)
	s.close()

	// Gone: changes meanwhile; back with the last id seen.
	a.must(200, "DELETE", "/v1/reservations/"+res, nil)
	a.must(200, "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"found"}`)
	back := a.stream("/v1/events/stream", "Last-Event-ID: "+out.id)
	defer back.close()
	var again []string
	for range 3 {
		e := back.next(t)
		again = append(again, e.typ)
		seen = append(seen, e)
	}
	if got, want := strings.Join(again, ", "), "stock.in, reservation.released, stock.adjusted"; got != want {
		t.Errorf("after Last-Event-ID: %s, want %s", got, want)
	}
	ids := map[string]bool{}
	for i, e := range seen {
		if ids[e.ev.ID] || e.id != e.ev.Cursor || e.typ != e.ev.Type {
			t.Errorf("event %d: %+v (a repeat, or id and type that disagree with its data)", i, e)
		}
		ids[e.ev.ID] = true
	}

	// The page and the stream agree.
	page := a.feed("")
	if len(page.Events) != len(seen) {
		t.Fatalf("the feed has %d events, the streams sent %d", len(page.Events), len(seen))
	}
	for i, ev := range page.Events {
		if ev.ID != seen[i].ev.ID {
			t.Errorf("event %d: feed %s, stream %s", i, ev.ID, seen[i].ev.ID)
		}
	}

	// Shutting down ends the stream.
	done := make(chan struct{})
	go func() {
		for back.lines.Scan() {
		}
		close(done)
	}()
	a.server.CloseStreams()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived CloseStreams")
	}
	if r := a.stream("/v1/events/stream", "Last-Event-ID: "+out.id); r.status != 200 {
		t.Errorf("a stream after CloseStreams: status %d", r.status)
	} else {
		r.close()
	}
	if r := a.do("GET", "/v1/events/stream", nil, "Last-Event-ID: nonsense"); r.status != 400 {
		t.Errorf("a bad Last-Event-ID: %s, want 400", r)
	}
}

// TestEventsAfterLatest: ?after=latest starts at the head of the feed, on
// both stores. The list answers no event and the head's cursor, from
// which a later change is listed; the stream sends only the changes that
// commit once it has answered, with ids that a reconnect resumes from;
// latest is an after, never a Last-Event-ID.
func TestEventsAfterLatest(t *testing.T) {
	t.Parallel()
	for _, pg := range []bool{false, true} {
		name := "sqlite"
		if pg {
			name = "postgres"
		}
		t.Run(name, func(t *testing.T) { testEventsAfterLatest(t, pg) })
	}
}

// settledFeed waits until the feed lists n events, and returns them. On
// PostgreSQL an event that has committed may be held back while an older
// transaction of the server runs; one held back when the head is taken
// comes after it, so the test waits for the events it means to be before.
func (a *api) settledFeed(n int) eventsJSON {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		page := a.feed("")
		if len(page.Events) >= n {
			return page
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the feed lists %d events, want %d", len(page.Events), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func testEventsAfterLatest(t *testing.T, pg bool) {
	a := newAPI(t, &apiOptions{postgres: pg})
	a.seed() // four events
	all := a.settledFeed(4)

	// The list: no event, and the head's cursor, after every event so far.
	head := a.feed("after=latest")
	if len(head.Events) != 0 || head.NextCursor == "" || head.NextCursor == stockade.LatestEventCursor {
		t.Fatalf("after=latest: %+v, want no event and a cursor", head)
	}
	if _, err := stockade.ParseEventCursor(head.NextCursor); err != nil {
		t.Errorf("after=latest: next_cursor %q: %v", head.NextCursor, err)
	}
	if page := a.feed("after=" + url.QueryEscape(head.NextCursor)); len(page.Events) != 0 || page.NextCursor != head.NextCursor {
		t.Errorf("after the head: %+v, want no event and the head's cursor", page)
	}
	a.must(200, "POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"found"}`)
	page := a.feed("wait=10s&after=" + url.QueryEscape(head.NextCursor))
	if len(page.Events) != 1 || page.Events[0].Type != stockade.EventStockAdjusted || page.NextCursor != page.Events[0].Cursor {
		t.Errorf("after the head, once stock is adjusted: %+v, want the one stock.adjusted", page)
	}
	all = a.settledFeed(len(all.Events) + 1)

	// The stream: only what commits once it has answered.
	s := a.stream("/v1/events/stream?after=latest")
	if s.status != 200 {
		t.Fatalf("stream after=latest: status %d", s.status)
	}
	res := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":5,"location":"west"}]}`).id(t)
	held, out := s.next(t), s.next(t)
	if held.typ != stockade.EventReservationHeld || held.ev.AggregateID != res || out.typ != stockade.EventOutOfStock {
		t.Errorf("stream after=latest: %s %s, then %s, want reservation.held %s, then stock.out", held.typ, held.ev.AggregateID, out.typ, res)
	}
	for _, e := range []streamed{held, out} {
		if e.id != e.ev.Cursor {
			t.Errorf("stream after=latest: event %s has id %q and cursor %q", e.ev.ID, e.id, e.ev.Cursor)
		}
	}
	s.close()
	// Back with the last id seen: what committed meanwhile, nothing twice.
	a.must(200, "DELETE", "/v1/reservations/"+res, nil)
	back := a.stream("/v1/events/stream", "Last-Event-ID: "+out.id)
	defer back.close()
	if in, released := back.next(t), back.next(t); in.typ != stockade.EventBackInStock || released.typ != stockade.EventReservationReleased {
		t.Errorf("after Last-Event-ID: %s, %s, want stock.in, reservation.released", in.typ, released.typ)
	}

	// Refused: latest as Last-Event-ID, latest or a cursor with
	// Last-Event-ID, and anything but latest or a cursor.
	for _, tc := range []struct{ path, lastEventID string }{
		{"/v1/events/stream", stockade.LatestEventCursor},
		{"/v1/events/stream?after=latest", all.NextCursor},
		{"/v1/events/stream?after=" + url.QueryEscape(all.NextCursor), all.NextCursor},
		{"/v1/events/stream?after=Latest", ""},
		{"/v1/events/stream?after=xyz", ""},
		{"/v1/events?after=Latest", ""},
		{"/v1/events?after=xyz", ""},
		{"/v1/events?after=latest,latest", ""},
	} {
		var header []string
		if tc.lastEventID != "" {
			header = append(header, "Last-Event-ID: "+tc.lastEventID)
		}
		if r := a.do("GET", tc.path, nil, header...); r.status != 400 || r.problem(t).Code != stockade.EInvalid {
			t.Errorf("GET %s with Last-Event-ID %q: %s, want 400", tc.path, tc.lastEventID, r)
		}
	}
}

// TestLongPollEndsOnShutdown: a long poll waiting for events when the
// server shuts down (CloseStreams) answers at once with what there is, no
// event and the cursor it was given, rather than hold the shutdown until
// its wait or its request's timeout is over; so does one that comes later.
func TestLongPollEndsOnShutdown(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	head := a.feed("after=latest")
	const wait = time.Minute
	query := "wait=" + wait.String() + "&after=" + url.QueryEscape(head.NextCursor)
	start := time.Now()
	polled := make(chan eventsJSON, 1)
	go func() {
		var page eventsJSON
		r := a.do("GET", "/v1/events?"+query, nil)
		if r.status != 200 {
			t.Errorf("a long poll through the shutdown: %s, want 200", r)
		} else if err := json.Unmarshal(r.body, &page); err != nil {
			t.Error(err)
		}
		polled <- page
	}()
	a.server.CloseStreams()
	for _, page := range []eventsJSON{<-polled, a.feed(query)} {
		if len(page.Events) != 0 || page.NextCursor != head.NextCursor {
			t.Errorf("a long poll at the shutdown: %+v, want no event and the cursor %s", page, head.NextCursor)
		}
	}
	// Without the shutdown, each would have waited its request's timeout
	// (less than its wait) and then answered the same.
	if took, timeout := time.Since(start), a.server.opts.RequestTimeout; took >= timeout {
		t.Errorf("the long polls took %v, a request's timeout (%v) or more", took, timeout)
	}
}
