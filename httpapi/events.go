package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// The event feed: GET /v1/events answers a page of events after a cursor,
// waiting up to ?wait= for one if there is none yet (a long poll); GET
// /v1/events/stream sends them as Server-Sent Events as they commit, each
// with its cursor as its id, so that a client that reconnects with
// Last-Event-ID resumes where it was, missing nothing and seeing nothing
// twice. Without a cursor, both start at the oldest event kept; with
// ?after=latest, at the head of the feed, after every event committed so
// far (stockade.LatestEventCursor): the list answers no event then, and
// the head's cursor as next_cursor, unless one commits while it waits;
// the stream sends only the events that commit from then on.

// eventJSON is an event as the API shows it.
type eventJSON struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Aggregate   string          `json:"aggregate"`
	AggregateID string          `json:"aggregate_id"`
	Version     int64           `json:"version"`
	At          time.Time       `json:"at"`
	Payload     json.RawMessage `json:"payload"`
	// Cursor is the event's place in the feed: ask for the events after
	// it with ?after=, or send it as Last-Event-ID.
	Cursor string `json:"cursor"`
}

// eventsJSON is the answer of GET /v1/events. NextCursor is always there:
// the cursor of the last event, or with none the query's own.
type eventsJSON struct {
	Events     []eventJSON `json:"events"`
	NextCursor string      `json:"next_cursor"`
}

func toEvent(ev stockade.DomainEvent) eventJSON {
	return eventJSON{ID: ev.ID, Type: ev.Type, Aggregate: ev.Aggregate, AggregateID: ev.AggregateID,
		Version: ev.Version, At: wireTime(ev.At), Payload: ev.Payload, Cursor: ev.Position.Cursor()}
}

func toEvents(p stockade.DomainEventPage) eventsJSON {
	out := eventsJSON{Events: make([]eventJSON, len(p.Events)), NextCursor: p.Next}
	for i, ev := range p.Events {
		out.Events[i] = toEvent(ev)
	}
	return out
}

func (j eventsJSON) domain() (stockade.DomainEventPage, error) {
	p := stockade.DomainEventPage{Events: make([]stockade.DomainEvent, len(j.Events)), Next: j.NextCursor}
	for i, ev := range j.Events {
		pos, err := stockade.ParseEventCursor(ev.Cursor)
		if err != nil {
			return p, err
		}
		p.Events[i] = stockade.DomainEvent{ID: ev.ID, Type: ev.Type, Aggregate: ev.Aggregate, AggregateID: ev.AggregateID,
			Version: ev.Version, At: ev.At, Payload: ev.Payload, Position: pos}
	}
	return p, nil
}

func viewEvents(p stockade.DomainEventPage) any { return toEvents(p) }

// eventQuery reads the query of the event routes: after (a cursor, or
// latest), type (a comma-separated list), aggregate, aggregate_id and
// limit, and with wait, the long poll's wait (a duration such as 10s).
func eventQuery(r *http.Request, wait bool) (stockade.DomainEventQuery, error) {
	var q stockade.DomainEventQuery
	want := "after, type, aggregate, aggregate_id, limit"
	if wait {
		want += ", wait"
	}
	err := eachParam(r, func(name, v string) error {
		switch name {
		case "after":
			if v == "" {
				return invalidf("after: must not be empty; leave it out to start from the oldest event kept, or give latest to start after the newest")
			}
			q.Cursor = v
			return checkCursor("after", v)
		case "type":
			q.Types = splitComma(v)
			return nil
		case "aggregate":
			q.Aggregate = v
			return nil
		case "aggregate_id":
			q.AggregateID = v
			return nil
		case "wait":
			if !wait {
				break
			}
			d, err := time.ParseDuration(v)
			if err != nil {
				return invalidf("wait: want a duration such as 10s or 500ms, got %q", v)
			}
			q.Wait = d
			return nil
		}
		if name == "limit" {
			var cursor string // the feed's cursor is after
			_, err := pageParam(name, v, stockade.MaxEventLimit, &cursor, &q.Limit)
			return err
		}
		return invalidf("query: unknown parameter %q (want %s)", name, want)
	})
	if err == nil {
		err = q.Validate()
	}
	return q, err
}

// splitComma splits a comma-separated list, dropping empty items.
func splitComma(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	q, err := eventQuery(r, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewEvents, func(ctx context.Context, _ *stockade.Idempotency) (stockade.DomainEventPage, error) {
		return s.longPoll(ctx, q)
	})
}

// longPoll is the service's Events, whose wait (q.Wait) also ends when
// the server shuts down (CloseStreams): it then answers what there is
// now, as if the wait had passed, rather than hold the shutdown until
// the wait or the shutdown's timeout is over. The client polls again,
// from the cursor it got, on an instance that serves.
func (s *Server) longPoll(ctx context.Context, q stockade.DomainEventQuery) (stockade.DomainEventPage, error) {
	if q.Wait <= 0 {
		return s.svc.Events(ctx, q)
	}
	waiting, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(s.streams, stop)()
	page, err := s.svc.Events(waiting, q)
	if err == nil || ctx.Err() != nil || s.streams.Err() == nil {
		return page, err
	}
	q.Wait = 0
	return s.svc.Events(ctx, q)
}

// streamPoll is how long the stream waits for events in one call of the
// service; between two, it sends a comment, which keeps proxies from
// closing an idle connection and tells the stream when its client left.
const streamPoll = 15 * time.Second

// streamEvents serves GET /v1/events/stream: the events after
// Last-Event-ID (or ?after=), as Server-Sent Events, until the client
// goes or the server shuts down (CloseStreams). Last-Event-ID is an id
// the stream sent, a cursor: latest is only an after. With after=latest
// the head is taken before the status is sent, so that an event that
// commits once the client has its answer is after it. It runs without the
// request timeout (see ServeHTTP) and clears the connection's write
// deadline.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	q, err := eventQuery(r, false)
	if id := r.Header.Get("Last-Event-ID"); err == nil && id != "" {
		if q.Cursor != "" {
			err = invalidf("after: give Last-Event-ID or after, not both")
		}
		q.Cursor = id
		if err == nil {
			err = checkCursor("Last-Event-ID", id)
		}
		if err == nil {
			_, err = stockade.ParseEventCursor(q.Cursor)
		}
	} else if err == nil && q.Cursor != stockade.LatestEventCursor {
		_, err = stockade.ParseEventCursor(q.Cursor)
	}
	if err == nil && q.Cursor == stockade.LatestEventCursor {
		// Without a wait, the answer is the head's cursor and no event.
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		var head stockade.DomainEventPage
		head, err = s.svc.Events(ctx, q)
		cancel()
		q.Cursor = head.Next
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	rc, ok := s.beginStream(ctx, stop, w, r)
	if !ok {
		return
	}
	fmt.Fprint(w, ": stockade events\n\n")
	rc.Flush()
	q.Wait = streamPoll
	for {
		pctx, cancel := context.WithTimeout(ctx, streamPoll+5*time.Second)
		page, err := s.svc.Events(pctx, q)
		cancel()
		switch {
		case ctx.Err() != nil:
			return // the client went, or the server shuts down
		case err != nil:
			// The status is sent: say why in the stream, and end it; the
			// client reconnects with the last id it saw.
			s.logFailure(r, err)
			_, body := problemOf(err)
			fmt.Fprintf(w, "event: error\ndata: %s\n\n", body)
			rc.Flush()
			return
		}
		for _, ev := range page.Events {
			data, err := json.Marshal(toEvent(ev))
			if err != nil {
				s.logFailure(r, err)
				return
			}
			fmt.Fprintf(w, "id: %s\nevent: %s\ndata: %s\n\n", ev.Position.Cursor(), ev.Type, data)
		}
		if len(page.Events) == 0 {
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		if err := rc.Flush(); err != nil {
			return
		}
		q.Cursor = page.Next
	}
}

// beginStream answers 200 with the headers of a stream of Server-Sent
// Events, without the server's write deadline, and has stop called when
// the server closes its streams (CloseStreams); the caller's ctx is the
// stream's, ended by stop or the request's end. It returns the controller
// that flushes the stream, or false if it answered with an error instead.
func (s *Server) beginStream(ctx context.Context, stop context.CancelFunc, w http.ResponseWriter, r *http.Request) (*http.ResponseController, bool) {
	rc := http.NewResponseController(w)
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.writeError(w, r, fmt.Errorf("stream: clear the write deadline: %w", err))
		return nil, false
	}
	go func() {
		select {
		case <-s.streams.Done():
			stop()
		case <-ctx.Done():
		}
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	return rc, true
}

// CloseStreams ends the event streams being served, and those that start
// later at once, and ends the wait of the long polls (GET /v1/events with
// ?wait=), which answer what there is: call it when the server shuts down (http.Server's
// RegisterOnShutdown), or Shutdown waits for every stream's client to
// leave.
func (s *Server) CloseStreams() { s.closeStreams() }

// The Client's calls.

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
