package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Waiting rooms: /v1/rooms, an admin's rooms in front of a show or SKUs,
// the visitors that storefronts join to them and the tickets they read,
// the admission that holds and reservations carry through a room, the
// documents they read and answer, and the Client's calls of them.

// The request bodies and queries.

// roomSettingsBody is what the bodies of POST and PATCH /v1/rooms share:
// a room's settings, each given or left out.
type roomSettingsBody struct {
	OpensAt             *string  `json:"opens_at"`
	ActiveLimit         *int64   `json:"active_limit"`
	AdmitPerMinute      *int64   `json:"admit_per_minute"`
	AdmissionTTLSeconds *int64   `json:"admission_ttl_seconds"`
	Order               *string  `json:"order"`
	PerVisitor          *int64   `json:"per_visitor"`
	StockFactor         *float64 `json:"stock_factor"`
}

// settings returns the settings b gives, as an update of them. Zero, which
// the domain reads as "the default", is spelled by leaving a field out:
// given, it is refused here, as the document refuses it.
func (b roomSettingsBody) settings() (stockade.RoomUpdate, error) {
	u := stockade.RoomUpdate{ActiveLimit: b.ActiveLimit, AdmitPerMinute: b.AdmitPerMinute}
	if b.OpensAt != nil {
		var at time.Time
		if err := timeParam("opens_at", *b.OpensAt, &at); err != nil {
			return u, err
		}
		u.OpensAt = &at
	}
	if b.AdmissionTTLSeconds != nil {
		ttl, err := admissionTTLOf(*b.AdmissionTTLSeconds)
		if err != nil {
			return u, err
		}
		u.AdmissionTTL = &ttl
	}
	if b.Order != nil {
		o, err := roomOrderOf(*b.Order)
		if err != nil {
			return u, err
		}
		u.Order = &o
	}
	if b.PerVisitor != nil {
		n, err := perVisitorOf(*b.PerVisitor)
		if err != nil {
			return u, err
		}
		u.PerVisitor = &n
	}
	if b.StockFactor != nil {
		f, err := stockFactorOf(*b.StockFactor)
		if err != nil {
			return u, err
		}
		u.StockFactor = &f
	}
	return u, nil
}

// newRoomBody is the body of POST /v1/rooms.
type newRoomBody struct {
	ID     *string  `json:"id"`
	ShowID *string  `json:"show_id"`
	SKUs   []string `json:"skus"`
	roomSettingsBody
	Metadata map[string]string `json:"metadata"`
}

// request is b as the service validates it (NewRoomRequest.Validate),
// with active_limit and admit_per_minute required.
func (b newRoomBody) request() (stockade.NewRoomRequest, error) {
	var req stockade.NewRoomRequest
	switch {
	case b.ID == nil:
		return req, required("id")
	case b.ActiveLimit == nil:
		return req, required("active_limit")
	case b.AdmitPerMinute == nil:
		return req, required("admit_per_minute")
	}
	var err error
	if req.ShowID, err = optionalID("show_id", b.ShowID); err != nil {
		return req, err
	}
	set, err := b.settings()
	if err != nil {
		return req, err
	}
	req.ID, req.ActiveLimit, req.AdmitPerMinute = *b.ID, *set.ActiveLimit, *set.AdmitPerMinute
	req.OpensAt, req.AdmissionTTL, req.Order = given(set.OpensAt), given(set.AdmissionTTL), given(set.Order)
	req.PerVisitor, req.StockFactor = given(set.PerVisitor), given(set.StockFactor)
	if len(b.SKUs) > 0 {
		req.SKUs = b.SKUs
	}
	if len(b.Metadata) > 0 {
		req.Metadata = b.Metadata
	}
	return req, nil
}

// given returns *p, or the zero value, which the domain reads as "the
// default", if p is nil.
func given[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// roomUpdateBody is the body of PATCH /v1/rooms/{id}: every field may be
// left out, and is then kept.
type roomUpdateBody struct {
	roomSettingsBody
	Status          *string           `json:"status"`
	Reorder         *bool             `json:"reorder"`
	ExpectedVersion *int64            `json:"expected_version"`
	Metadata        map[string]string `json:"metadata"`
}

// update is b as the service validates it (RoomUpdate.Validate).
func (b roomUpdateBody) update() (stockade.RoomUpdate, error) {
	u, err := b.settings()
	if err != nil {
		return u, err
	}
	u.ExpectedVersion = b.ExpectedVersion
	if b.Status != nil {
		st := stockade.RoomStatus(*b.Status)
		u.Status = &st
	}
	if b.Reorder != nil {
		u.Reorder = *b.Reorder
	}
	if b.Metadata != nil {
		u.Metadata = stockade.Metadata(b.Metadata)
	}
	return u, u.Validate()
}

// admissionTTLOf returns an admission_ttl_seconds as a duration: 1 to
// the service's longest admission.
func admissionTTLOf(secs int64) (time.Duration, error) {
	most := int64(stockade.MaxAdmissionTTL / time.Second)
	if secs < 1 || secs > most {
		return 0, invalidf("admission_ttl_seconds: must be between 1 and %d, got %d (leave it out for %d)", most, secs, int64(stockade.DefaultAdmissionTTL/time.Second))
	}
	return time.Duration(secs) * time.Second, nil
}

// roomOrderOf returns an order given in a body; "" is refused, since the
// domain would read it as the default.
func roomOrderOf(s string) (stockade.RoomOrder, error) {
	if s == "" {
		return "", invalidf("order: must be %q or %q, got \"\" (leave it out for %s)", stockade.RoomArrival, stockade.RoomRandomAtOpening, stockade.RoomArrival)
	}
	return stockade.RoomOrder(s), nil
}

// perVisitorOf returns a per_visitor given in a body; 0 is refused, the
// rest is the service's to check.
func perVisitorOf(n int64) (int64, error) {
	if n == 0 {
		return 0, invalidf("per_visitor: must be between 1 and %d, got 0 (leave it out for 1)", stockade.MaxHoldSeats)
	}
	return n, nil
}

// stockFactorOf returns a stock_factor given in a body; 0 is refused,
// the rest is the service's to check.
func stockFactorOf(f float64) (float64, error) {
	if f == 0 {
		return 0, invalidf("stock_factor: must be above 0 and at most %d, got 0 (leave it out for 1)", stockade.MaxRoomStockFactor)
	}
	return f, nil
}

// joinBody is the body of POST /v1/rooms/{id}/visitors.
type joinBody struct {
	VisitorID *string `json:"visitor_id"`
}

func (b joinBody) request(roomID string) (stockade.JoinRequest, error) {
	if b.VisitorID == nil {
		return stockade.JoinRequest{}, required("visitor_id")
	}
	req := stockade.JoinRequest{RoomID: roomID, VisitorID: *b.VisitorID}
	return req, req.Validate()
}

// admissionBody is the admission of a hold's, a reservation's or a
// checkout's body: the visitor, and the token its ticket carries.
type admissionBody struct {
	VisitorID *string `json:"visitor_id"`
	Token     *string `json:"token"`
}

// admissionOf decodes the admission of a body, nil when it is left out
// or null. The service checks its values (AdmissionProof.Validate) and
// its token.
func admissionOf(raw json.RawMessage) (*stockade.AdmissionProof, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var b admissionBody
	if err := decode(raw, &b, "admission"); err != nil {
		return nil, err
	}
	switch {
	case b.VisitorID == nil:
		return nil, required("admission.visitor_id")
	case b.Token == nil:
		return nil, required("admission.token")
	}
	return &stockade.AdmissionProof{VisitorID: *b.VisitorID, Token: *b.Token}, nil
}

// roomQuery reads the query of GET /v1/rooms.
func roomQuery(r *http.Request) (stockade.RoomQuery, error) {
	var q stockade.RoomQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxRoomLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// The JSON documents.

// roomJSON is a room as the API shows it (stockade.RoomDocument), with
// Secret in the answer to its creation only.
type roomJSON struct {
	stockade.RoomDocument
	Secret string `json:"secret,omitempty"`
}

type roomsJSON struct {
	Rooms      []roomJSON `json:"rooms"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

// roomTicketJSON is a visitor's ticket: its place, and once admitted the
// token that holds carry.
type roomTicketJSON struct {
	RoomID               string    `json:"room_id"`
	VisitorID            string    `json:"visitor_id"`
	Status               string    `json:"status"`
	Position             int64     `json:"position,omitempty"`
	Ahead                int64     `json:"ahead"`
	EstimatedWaitSeconds int64     `json:"estimated_wait_seconds"`
	Token                string    `json:"token,omitempty"`
	ExpiresAt            time.Time `json:"expires_at,omitzero"`
	JoinedAt             time.Time `json:"joined_at"`
	OpensAt              time.Time `json:"opens_at"`
}

func toRoom(v stockade.RoomView) roomJSON { return roomJSON{RoomDocument: v.Document()} }

func toRoomTicket(t stockade.RoomTicket) roomTicketJSON {
	return roomTicketJSON{RoomID: t.RoomID, VisitorID: t.VisitorID, Status: string(t.Status), Position: t.Position, Ahead: t.Ahead,
		EstimatedWaitSeconds: seconds(t.EstimatedWait), Token: t.Token, ExpiresAt: wireTime(t.ExpiresAt),
		JoinedAt: wireTime(t.JoinedAt), OpensAt: wireTime(t.OpensAt)}
}

// The conversions back, for Client. The room comes back without the
// state the service keeps to itself (its secret, its rate's credit, the
// places its order has given).

func (j roomJSON) domain() stockade.RoomView { return j.RoomDocument.View() }

func (j roomTicketJSON) domain() stockade.RoomTicket {
	return stockade.RoomTicket{RoomID: j.RoomID, VisitorID: j.VisitorID, Status: stockade.TicketStatus(j.Status),
		Position: j.Position, Ahead: j.Ahead, EstimatedWait: time.Duration(j.EstimatedWaitSeconds) * time.Second,
		Token: j.Token, ExpiresAt: j.ExpiresAt, JoinedAt: j.JoinedAt, OpensAt: j.OpensAt}
}

// The handlers.

// newRoom is what CreateRoom answers: the room and its secret.
type newRoom struct {
	view   stockade.RoomView
	secret string
}

func viewNewRoom(n newRoom) any {
	out := toRoom(n.view)
	out.Secret = n.secret
	return out
}

func viewRoom(v stockade.RoomView) any { return toRoom(v) }

func viewRooms(p stockade.RoomPage) any {
	return roomsJSON{Rooms: each(p.Rooms, toRoom), NextCursor: p.Next}
}

func viewRoomTicket(t stockade.RoomTicket) any { return toRoomTicket(t) }

// createRoom puts a room in front of a show or SKUs. Unlike an API key's
// or a webhook endpoint's creation, it takes an Idempotency-Key: the
// service keeps the room's secret with the room, and its answer to a
// retry holds the secret again.
func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	var in newRoomBody
	body, ok := s.input(w, r, &in)
	if !ok {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusCreated, viewNewRoom, func(ctx context.Context, idem *stockade.Idempotency) (newRoom, error) {
		v, secret, err := s.svc.CreateRoom(ctx, req, idem)
		return newRoom{view: v, secret: secret}, err
	})
}

func (s *Server) listRooms(w http.ResponseWriter, r *http.Request) {
	q, err := roomQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewRooms, func(ctx context.Context, _ *stockade.Idempotency) (stockade.RoomPage, error) {
		return s.svc.Rooms(ctx, q)
	})
}

func (s *Server) getRoom(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewRoom, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.RoomView, error) {
		return s.svc.Room(ctx, id)
	})
}

func (s *Server) updateRoom(w http.ResponseWriter, r *http.Request) {
	var in roomUpdateBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	u, err := in.update()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, viewRoom, func(ctx context.Context, idem *stockade.Idempotency) (stockade.RoomView, error) {
		return s.svc.UpdateRoom(ctx, id, u, idem)
	})
}

// joinRoom gives a visitor a place, or answers the place it has: a join
// is idempotent by itself, so nothing is stored under an Idempotency-Key.
func (s *Server) joinRoom(w http.ResponseWriter, r *http.Request) {
	var in joinBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	req, err := in.request(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewRoomTicket, func(ctx context.Context, _ *stockade.Idempotency) (stockade.RoomTicket, error) {
		return s.svc.JoinRoom(ctx, req)
	})
}

func (s *Server) roomTicket(w http.ResponseWriter, r *http.Request) {
	body, ok := s.input(w, r, nil, "id", "visitor")
	if !ok {
		return
	}
	id, visitor := r.PathValue("id"), r.PathValue("visitor")
	call(s, w, r, body, http.StatusOK, viewRoomTicket, func(ctx context.Context, _ *stockade.Idempotency) (stockade.RoomTicket, error) {
		return s.svc.RoomTicket(ctx, id, visitor)
	})
}

// leaveRoom ends a visitor's admission, so that the room lets the next
// one in.
func (s *Server) leaveRoom(w http.ResponseWriter, r *http.Request) {
	body, ok := s.input(w, r, nil, "id", "visitor")
	if !ok {
		return
	}
	id, visitor := r.PathValue("id"), r.PathValue("visitor")
	call(s, w, r, body, http.StatusOK, viewRoomTicket, func(ctx context.Context, _ *stockade.Idempotency) (stockade.RoomTicket, error) {
		return s.svc.LeaveRoom(ctx, id, visitor)
	})
}

// streamRoomTicket serves a visitor's tickets as Server-Sent Events: an
// event "ticket" with the ticket now, then one each time it changes, and
// the stream ends after a ticket that no longer changes (sold out,
// closed, expired). A comment line keeps the connection alive while
// nothing changes; the stream ends too when the server shuts down.
func (s *Server) streamRoomTicket(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.input(w, r, nil, "id", "visitor"); !ok {
		return
	}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	tickets, err := s.svc.WatchTicket(ctx, r.PathValue("id"), r.PathValue("visitor"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rc, ok := s.beginStream(ctx, stop, w, r)
	if !ok {
		return
	}
	keepAlive := time.NewTicker(streamPoll)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return // the client went, or the server shuts down
		case <-keepAlive.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case t, ok := <-tickets:
			if !ok {
				return // the ticket ended, or the watch did
			}
			data, err := json.Marshal(toRoomTicket(t))
			if err != nil {
				s.logFailure(r, err)
				return
			}
			fmt.Fprintf(w, "event: ticket\ndata: %s\n\n", data)
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// The Client's calls.

// admissionJSON is the admission of a hold's or reservation's body as the
// client sends it.
type admissionJSON struct {
	VisitorID string `json:"visitor_id"`
	Token     string `json:"token"`
}

func admissionBodyOf(p *stockade.AdmissionProof) *admissionJSON {
	if p == nil {
		return nil
	}
	return &admissionJSON{VisitorID: p.VisitorID, Token: p.Token}
}

// newRoomJSON is the body of POST /v1/rooms as the client sends it: the
// fields the request leaves at zero, the service's defaults, left out.
type newRoomJSON struct {
	ID                  string             `json:"id"`
	ShowID              string             `json:"show_id,omitempty"`
	SKUs                []string           `json:"skus,omitempty"`
	OpensAt             time.Time          `json:"opens_at,omitzero"`
	ActiveLimit         int64              `json:"active_limit"`
	AdmitPerMinute      int64              `json:"admit_per_minute"`
	AdmissionTTLSeconds int64              `json:"admission_ttl_seconds,omitempty"`
	Order               stockade.RoomOrder `json:"order,omitempty"`
	PerVisitor          int64              `json:"per_visitor,omitempty"`
	StockFactor         float64            `json:"stock_factor,omitempty"`
	Metadata            stockade.Metadata  `json:"metadata,omitempty"`
}

func newRoomBodyOf(req stockade.NewRoomRequest) newRoomJSON {
	return newRoomJSON{ID: req.ID, ShowID: req.ShowID, SKUs: req.SKUs, OpensAt: req.OpensAt, ActiveLimit: req.ActiveLimit,
		AdmitPerMinute: req.AdmitPerMinute, AdmissionTTLSeconds: seconds(req.AdmissionTTL), Order: req.Order,
		PerVisitor: req.PerVisitor, StockFactor: req.StockFactor, Metadata: req.Metadata}
}

// roomUpdateBodyOf is the body of PATCH /v1/rooms/{id} as the client
// sends it: the fields u sets.
func roomUpdateBodyOf(u stockade.RoomUpdate) map[string]any {
	in := map[string]any{}
	if u.OpensAt != nil {
		in["opens_at"] = *u.OpensAt
	}
	if u.ActiveLimit != nil {
		in["active_limit"] = *u.ActiveLimit
	}
	if u.AdmitPerMinute != nil {
		in["admit_per_minute"] = *u.AdmitPerMinute
	}
	if u.AdmissionTTL != nil {
		in["admission_ttl_seconds"] = seconds(*u.AdmissionTTL)
	}
	if u.Order != nil {
		in["order"] = *u.Order
	}
	if u.PerVisitor != nil {
		in["per_visitor"] = *u.PerVisitor
	}
	if u.StockFactor != nil {
		in["stock_factor"] = *u.StockFactor
	}
	if u.Status != nil {
		in["status"] = *u.Status
	}
	if u.Reorder {
		in["reorder"] = true
	}
	if u.ExpectedVersion != nil {
		in["expected_version"] = *u.ExpectedVersion
	}
	if u.Metadata != nil {
		in["metadata"] = u.Metadata
	}
	return in
}

// CreateRoom puts a room in front of a show or SKUs (an admin key's call)
// and returns it with the secret that signs its admission tokens, which
// no other call returns. The admission TTL goes over the wire in whole
// seconds, rounded up.
func (c *Client) CreateRoom(ctx context.Context, req stockade.NewRoomRequest, idem *stockade.Idempotency) (stockade.RoomView, string, error) {
	var out roomJSON
	if err := c.do(ctx, http.MethodPost, "/v1/rooms", newRoomBodyOf(req), &out, idem); err != nil {
		return stockade.RoomView{}, "", err
	}
	return out.domain(), out.Secret, nil
}

// Room returns a room.
func (c *Client) Room(ctx context.Context, id string) (stockade.RoomView, error) {
	var out roomJSON
	if err := c.do(ctx, http.MethodGet, "/v1/rooms/"+seg(id), nil, &out, nil); err != nil {
		return stockade.RoomView{}, err
	}
	return out.domain(), nil
}

// Rooms returns a page of the rooms, in id order.
func (c *Client) Rooms(ctx context.Context, q stockade.RoomQuery) (stockade.RoomPage, error) {
	var out roomsJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/rooms", url.Values{}, q.Cursor, q.Limit), nil, &out, nil)
	return stockade.RoomPage{Rooms: each(out.Rooms, roomJSON.domain), Next: out.NextCursor}, err
}

// UpdateRoom changes what u sets (an admin key's call). The admission
// TTL goes over the wire in whole seconds, rounded up.
func (c *Client) UpdateRoom(ctx context.Context, id string, u stockade.RoomUpdate, idem *stockade.Idempotency) (stockade.RoomView, error) {
	var out roomJSON
	if err := c.do(ctx, http.MethodPatch, "/v1/rooms/"+seg(id), roomUpdateBodyOf(u), &out, idem); err != nil {
		return stockade.RoomView{}, err
	}
	return out.domain(), nil
}

// JoinRoom gives a visitor a place in a room, or returns the place it has
// (a storefront or admin key's call).
func (c *Client) JoinRoom(ctx context.Context, req stockade.JoinRequest) (stockade.RoomTicket, error) {
	var out roomTicketJSON
	if err := c.do(ctx, http.MethodPost, "/v1/rooms/"+seg(req.RoomID)+"/visitors", joinJSON{VisitorID: req.VisitorID}, &out, nil); err != nil {
		return stockade.RoomTicket{}, err
	}
	return out.domain(), nil
}

// joinJSON is the body of POST /v1/rooms/{id}/visitors as the client sends
// it.
type joinJSON struct {
	VisitorID string `json:"visitor_id"`
}

// RoomTicket returns a visitor's ticket: its place, and once admitted
// the token to hold with.
// LeaveRoom ends a visitor's admission (POST …/leave).
func (c *Client) LeaveRoom(ctx context.Context, roomID, visitorID string) (stockade.RoomTicket, error) {
	var out roomTicketJSON
	if err := c.do(ctx, http.MethodPost, "/v1/rooms/"+seg(roomID)+"/visitors/"+seg(visitorID)+"/leave", nil, &out, nil); err != nil {
		return stockade.RoomTicket{}, err
	}
	return out.domain(), nil
}

func (c *Client) RoomTicket(ctx context.Context, roomID, visitorID string) (stockade.RoomTicket, error) {
	var out roomTicketJSON
	if err := c.do(ctx, http.MethodGet, "/v1/rooms/"+seg(roomID)+"/visitors/"+seg(visitorID), nil, &out, nil); err != nil {
		return stockade.RoomTicket{}, err
	}
	return out.domain(), nil
}
