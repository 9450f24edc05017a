package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// Waiting rooms (stockade.RoomService): the rooms' queues live in the
// store, so that every instance serves one room with one order.
//
// Joins go through a group lane of their own, one queue per room, under
// every strategy: a join writes only the room's queue, never stock or
// seats, so the strategies have nothing to decide for it, and a crowd
// joining a room at once costs one transaction per batch. decideJoins is
// the one body, a lone join a batch of one. Reads of tickets batch the
// same way (decideTickets).
//
// AdmitRooms is the admissions' round, run by serve on a ticker: per room,
// in a transaction that locks the room's row (so that instances take
// turns), it opens a room whose time has come (drawing the order of those
// who came before, under RoomRandomAtOpening), admits what Room.Admissions
// allows, and marks the room sold out when its stock is gone.
//
// Holds and reservations are checked against the rooms that hold their
// show or SKUs in the transaction that decides them (see gate): a room
// that gates needs each call to carry an admission token of its own,
// signed with its secret, for the visitor the call names, in force.

var _ stockade.RoomService = (*Engine)(nil)

// roomCursorTag tags the cursors of pages of rooms.
const roomCursorTag = 'W'

// createdRoom is what CreateRoom's idempotency record keeps: the room, and
// its secret, which a retry must get again.
type createdRoom struct {
	Room   stockade.RoomView `json:"room"`
	Secret string            `json:"secret"`
}

// CreateRoom implements stockade.RoomService.
func (e *Engine) CreateRoom(ctx context.Context, req stockade.NewRoomRequest, idem *stockade.Idempotency) (stockade.RoomView, string, error) {
	out, err := run(e, ctx, "create room", idem, func(ctx context.Context, c *call) (createdRoom, error) {
		now := e.now()
		if err := req.Validate(now); err != nil {
			return createdRoom{}, err
		}
		var out createdRoom
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			out, err = once(ctx, c, tx, func() (createdRoom, error) {
				r := stockade.NewRoom(req, now)
				if r.ShowID != "" {
					if _, err := tx.ShowGetHead(ctx, stockade.ByID{ID: r.ShowID}); err != nil {
						return createdRoom{}, err
					}
				}
				if err := checkTargetsFree(ctx, tx, r); err != nil {
					return createdRoom{}, err
				}
				if _, err := tx.RoomGet(ctx, stockade.ByID{ID: r.ID}); err == nil {
					return createdRoom{}, refuse(stockade.EInvalidState, "room %q exists already", r.ID)
				} else if stockade.ErrorCode(err) != stockade.ENotFound {
					return createdRoom{}, err
				}
				if err := tx.RoomInsert(ctx, r); err != nil {
					return createdRoom{}, err
				}
				v, err := roomView(ctx, tx, r, now)
				if err != nil {
					return createdRoom{}, err
				}
				return createdRoom{Room: v, Secret: r.Secret}, roomEvents(ctx, tx, v, now, stockade.EventRoomCreated)
			})
			return err
		})
		return out, err
	})
	return out.Room, out.Secret, err
}

// checkTargetsFree refuses a room whose targets another gating room holds,
// naming that room.
func checkTargetsFree(ctx context.Context, tx stockade.Tx, r stockade.Room) error {
	if !r.Status.Gates() {
		return nil
	}
	others, err := tx.RoomHolding(ctx, r.Targets())
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != r.ID {
			return refuse(stockade.EInvalidState, "room %q already stands in front of %s; close it first", o.ID, what(o))
		}
	}
	return nil
}

// what names what a room stands in front of.
func what(r stockade.Room) string {
	if r.ShowID != "" {
		return fmt.Sprintf("show %q", r.ShowID)
	}
	return fmt.Sprintf("skus %q", r.SKUs)
}

// Room implements stockade.RoomService.
func (e *Engine) Room(ctx context.Context, id string) (stockade.RoomView, error) {
	return run(e, ctx, "room", nil, func(ctx context.Context, c *call) (stockade.RoomView, error) {
		if err := checkID("room id", id); err != nil {
			return stockade.RoomView{}, err
		}
		var v stockade.RoomView
		err := c.view(ctx, func(tx stockade.Tx) error {
			r, err := tx.RoomGet(ctx, stockade.ByID{ID: id})
			if err != nil {
				return err
			}
			v, err = roomView(ctx, tx, r, e.now())
			return err
		})
		return v, err
	})
}

// Rooms implements stockade.RoomService.
func (e *Engine) Rooms(ctx context.Context, q stockade.RoomQuery) (stockade.RoomPage, error) {
	return run(e, ctx, "rooms", nil, func(ctx context.Context, c *call) (stockade.RoomPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.RoomPage{}, err
		}
		after, err := parseIDCursor(q.Cursor, roomCursorTag)
		if err != nil {
			return stockade.RoomPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultRoomLimit)
		var page stockade.RoomPage
		err = c.view(ctx, func(tx stockade.Tx) error {
			rs, err := tx.RoomList(ctx, after, limit+1)
			if err != nil {
				return err
			}
			if len(rs) > limit {
				rs, page.Next = rs[:limit], idCursor(roomCursorTag, rs[limit-1].ID)
			}
			now := e.now()
			page.Rooms = make([]stockade.RoomView, len(rs))
			for i, r := range rs {
				if page.Rooms[i], err = roomView(ctx, tx, r, now); err != nil {
					return err
				}
			}
			return nil
		})
		return page, err
	})
}

// roomView returns r with its admissions in force, its queue and the
// stock its target has left.
func roomView(ctx context.Context, tx stockade.Tx, r stockade.Room, now time.Time) (stockade.RoomView, error) {
	v := stockade.RoomView{Room: r}
	if r.Status.Gates() {
		v.Queued = max(0, r.Joined-r.Admitted) // the visitors of a closed or sold-out room wait for nothing
	}
	act, err := tx.RoomVisitorActivity(ctx, r.ID, now)
	if err != nil {
		return v, err
	}
	v.Active = act.Active
	if v.Stock, err = roomStock(ctx, tx, r); err != nil {
		return v, err
	}
	if v.Queued > 0 && r.Status.Gates() {
		last := r.Ticket(stockade.RoomVisitor{VisitorID: "-", Position: r.Joined}, now)
		v.LongestWait = last.EstimatedWait
	}
	return v, nil
}

// roomStock returns what r's target has left: the free and held seats
// and places of its show, or the available and reserved units of its
// SKUs.
func roomStock(ctx context.Context, tx stockade.Tx, r stockade.Room) (stockade.RoomStock, error) {
	var s stockade.RoomStock
	if r.ShowID == "" {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: r.SKUs})
		for _, l := range ls {
			s.Free += l.Available()
			s.Held += l.Reserved
		}
		return s, err
	}
	show, err := tx.ShowGetHead(ctx, stockade.ByID{ID: r.ShowID})
	if stockade.ErrorCode(err) == stockade.ENotFound {
		return s, nil // deleted: nothing left
	}
	if err != nil {
		return s, err
	}
	for _, a := range show.Areas {
		s.Free += a.Available()
		s.Held += a.Held
	}
	counts, err := tx.SeatCounts(ctx, r.ShowID)
	for _, c := range counts {
		switch c.Status {
		case stockade.SeatFree:
			s.Free += c.Count
		case stockade.SeatHeld:
			s.Held += c.Count
		}
	}
	return s, err
}

// UpdateRoom implements stockade.RoomService.
func (e *Engine) UpdateRoom(ctx context.Context, id string, u stockade.RoomUpdate, idem *stockade.Idempotency) (stockade.RoomView, error) {
	return run(e, ctx, "update room", idem, func(ctx context.Context, c *call) (stockade.RoomView, error) {
		if err := checkID("room id", id); err != nil {
			return stockade.RoomView{}, err
		}
		if err := u.Validate(); err != nil {
			return stockade.RoomView{}, err
		}
		var v stockade.RoomView
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			v, err = once(ctx, c, tx, func() (stockade.RoomView, error) {
				now := e.now()
				r, err := tx.RoomGet(ctx, stockade.ByID{ID: id, Lock: true})
				if err != nil {
					return stockade.RoomView{}, err
				}
				next, err := u.Apply(r, now)
				if err != nil {
					return stockade.RoomView{}, err
				}
				if !u.Changes() {
					return roomView(ctx, tx, r, now) // and no event: nothing changed
				}
				if err := checkTargetsFree(ctx, tx, next); err != nil {
					return stockade.RoomView{}, err
				}
				if err := reorder(ctx, tx, r, &next); err != nil {
					return stockade.RoomView{}, err
				}
				if next.Status != stockade.RoomQueueing {
					next.Paused = "" // only an open room pauses
				}
				if next.Status == stockade.RoomScheduled && r.Status != stockade.RoomScheduled {
					next.CreditAt = next.OpensAt
				}
				if next.Status == stockade.RoomQueueing && r.Status != stockade.RoomQueueing {
					next.Credit, next.CreditAt = 0, now // a room opened again starts its rate afresh
				}
				if err := writeRoom(ctx, tx, &next, now); err != nil {
					return stockade.RoomView{}, err
				}
				v, err := roomView(ctx, tx, next, now)
				if err != nil {
					return v, err
				}
				return v, roomEvents(ctx, tx, v, now, stockade.EventRoomUpdated)
			})
			return err
		})
		return v, err
	})
}

// reorder places the visitors of a scheduled room again for a change of
// its order (which RoomUpdate.Apply allows only with Reorder): to
// RoomRandomAtOpening, every place is taken back and the draw at opening
// orders them all; to RoomArrival, those waiting for the draw get their
// places from it now, and later visitors follow in arrival order.
func reorder(ctx context.Context, tx stockade.Tx, r stockade.Room, next *stockade.Room) error {
	if next.Order == r.Order {
		return nil
	}
	if next.Order == stockade.RoomRandomAtOpening {
		if _, err := tx.RoomVisitorUnplace(ctx, r.ID); err != nil {
			return err
		}
		next.Ordered = 0
		return nil
	}
	drawn, err := tx.RoomVisitorDraw(ctx, r.ID, r.Ordered)
	next.Ordered += drawn
	return err
}

// writeRoom writes r, changed at now, over its stored version: a room is
// written only under its row's lock, so a version that moved is a fault.
func writeRoom(ctx context.Context, tx stockade.Tx, r *stockade.Room, now time.Time) error {
	r.Version++
	r.UpdatedAt = now
	ok, err := tx.RoomUpdate(ctx, *r)
	if err == nil && !ok {
		err = conflictf("room %s changed meanwhile", r.ID)
	}
	return err
}

// JoinRoom implements stockade.RoomService.
func (e *Engine) JoinRoom(ctx context.Context, req stockade.JoinRequest) (stockade.RoomTicket, error) {
	return run(e, ctx, "join room", nil, func(ctx context.Context, c *call) (stockade.RoomTicket, error) {
		if err := req.Validate(); err != nil {
			return stockade.RoomTicket{}, err
		}
		j := &joinCall{slot: slot{c: c}, req: req}
		if err := e.joins.apply(ctx, j); err != nil {
			return stockade.RoomTicket{}, err
		}
		return j.ticket, nil
	})
}

// joinCall is one JoinRoom call in its lane.
type joinCall struct {
	slot
	req    stockade.JoinRequest
	ticket stockade.RoomTicket // the call's result, set by decideJoins
}

func joinQueue(j *joinCall) string { return j.req.RoomID }

// joinTxn runs the transaction that decides a batch of joins of one room.
func (e *Engine) joinTxn(ctx context.Context, c *call, batch []*joinCall) error {
	return c.update(ctx, func(tx stockade.Tx) error { return e.decideJoins(ctx, tx, batch[0].req.RoomID, batch) })
}

// decideJoins is the body of JoinRoom: one attempt of the transaction that
// decides a batch of joins of one room, or one alone. It locks the room's
// row, which orders the batches of a room across instances, reads the
// places of the visitors that have one, and gives each of the others the
// next place in arrival order (or a draw, while a RoomRandomAtOpening room
// has not opened); a visitor joining twice in a batch gets one place. A
// room that no longer queues refuses new visitors and answers those it
// has with their ticket.
func (e *Engine) decideJoins(ctx context.Context, tx stockade.Tx, roomID string, batch []*joinCall) error {
	now := e.now()
	for _, j := range batch {
		j.reset()
	}
	r, err := tx.RoomGet(ctx, stockade.ByID{ID: roomID, Lock: true})
	if stockade.ErrorCode(err) == stockade.ENotFound {
		for _, j := range batch {
			j.err = err
		}
		return nil
	}
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(batch))
	for _, j := range batch {
		ids = append(ids, j.req.VisitorID)
	}
	slices.Sort(ids)
	have, err := tx.RoomVisitorGetMany(ctx, roomID, slices.Compact(ids))
	if err != nil {
		return err
	}
	places := make(map[string]stockade.RoomVisitor, len(batch))
	for _, v := range have {
		places[v.VisitorID] = v
	}
	var added []stockade.RoomVisitor
	for _, j := range batch {
		v, ok := places[j.req.VisitorID]
		if ok && !j.c.actor.Sees(v.Owner) {
			j.err = refuse(stockade.ENotFound, "visitor %q of room %q is another key's", j.req.VisitorID, roomID)
			continue
		}
		if !ok {
			if err := joinable(r); err != nil {
				j.err = err
				continue
			}
			// Every visitor draws, so that a change of order to random
			// at opening (RoomUpdate.Reorder) has draws to order by.
			v = stockade.RoomVisitor{RoomID: roomID, VisitorID: j.req.VisitorID, JoinedAt: now, Draw: stockade.NewRoomDraw(), Owner: j.c.actor.KeyID}
			r.Joined++
			if r.Order != stockade.RoomRandomAtOpening || r.Status != stockade.RoomScheduled {
				r.Ordered++
				v.Position = r.Ordered
			}
			places[v.VisitorID] = v
			added = append(added, v)
		}
		j.ticket = r.Ticket(v, now)
	}
	if len(added) == 0 {
		return nil
	}
	if err := tx.RoomVisitorInsert(ctx, added); err != nil {
		return err
	}
	if err := writeRoom(ctx, tx, &r, now); err != nil {
		return err
	}
	for _, j := range batch { // the room's counts as the batch leaves them
		if j.err == nil {
			j.ticket = r.Ticket(places[j.req.VisitorID], now)
		}
	}
	return nil
}

// joinable refuses a new visitor of a room that does not queue.
func joinable(r stockade.Room) error {
	switch r.Status {
	case stockade.RoomSoldOut:
		return refuse(stockade.ESoldOut, "room %q: the sale sold out at %s", r.ID, r.SoldOutAt.Format(time.RFC3339))
	case stockade.RoomClosed:
		return refuse(stockade.EInvalidState, "room %q is closed: buy without it", r.ID)
	}
	return nil
}

// RoomTicket implements stockade.RoomService. Reads of tickets batch as
// joins do, one queue per room: a crowd that asks where it stands costs
// one read per batch, not one per visitor.
func (e *Engine) RoomTicket(ctx context.Context, roomID, visitorID string) (stockade.RoomTicket, error) {
	return run(e, ctx, "room ticket", nil, func(ctx context.Context, c *call) (stockade.RoomTicket, error) {
		req := stockade.JoinRequest{RoomID: roomID, VisitorID: visitorID}
		if err := req.Validate(); err != nil {
			return stockade.RoomTicket{}, err
		}
		tc := &ticketCall{slot: slot{c: c}, req: req}
		if err := e.tickets.apply(ctx, tc); err != nil {
			return stockade.RoomTicket{}, err
		}
		return tc.ticket, nil
	})
}

// ticketCall is one RoomTicket call in its lane.
type ticketCall struct {
	slot
	req    stockade.JoinRequest
	ticket stockade.RoomTicket // the call's result, set by decideTickets
	// room and visitor are what the ticket was worked out from.
	room    stockade.Room
	visitor stockade.RoomVisitor
}

func ticketQueue(tc *ticketCall) string { return tc.req.RoomID }

// ticketTxn reads the tickets of a batch of RoomTicket calls of one room.
func (e *Engine) ticketTxn(ctx context.Context, c *call, batch []*ticketCall) error {
	return c.view(ctx, func(tx stockade.Tx) error { return e.decideTickets(ctx, tx, batch[0].req.RoomID, batch) })
}

// decideTickets is the body of RoomTicket: it reads the room and the
// places of the batch's visitors, and gives each call its visitor's
// ticket; a visitor that has not joined, or that another storefront key
// joined, is ENotFound.
func (e *Engine) decideTickets(ctx context.Context, tx stockade.Tx, roomID string, batch []*ticketCall) error {
	now := e.now()
	for _, tc := range batch {
		tc.reset()
	}
	r, err := tx.RoomGet(ctx, stockade.ByID{ID: roomID})
	if stockade.ErrorCode(err) == stockade.ENotFound {
		for _, tc := range batch {
			tc.err = err
		}
		return nil
	}
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(batch))
	for _, tc := range batch {
		ids = append(ids, tc.req.VisitorID)
	}
	slices.Sort(ids)
	vs, err := tx.RoomVisitorGetMany(ctx, roomID, slices.Compact(ids))
	if err != nil {
		return err
	}
	byID := make(map[string]stockade.RoomVisitor, len(vs))
	for _, v := range vs {
		byID[v.VisitorID] = v
	}
	for _, tc := range batch {
		v, ok := byID[tc.req.VisitorID]
		if !ok || !tc.c.actor.Sees(v.Owner) {
			tc.err = refuse(stockade.ENotFound, "visitor %q has not joined room %q", tc.req.VisitorID, roomID)
			continue
		}
		tc.ticket, tc.room, tc.visitor = r.Ticket(v, now), r, v
	}
	return nil
}

// LeaveRoom implements stockade.RoomService.
func (e *Engine) LeaveRoom(ctx context.Context, roomID, visitorID string) (stockade.RoomTicket, error) {
	return run(e, ctx, "leave room", nil, func(ctx context.Context, c *call) (stockade.RoomTicket, error) {
		req := stockade.JoinRequest{RoomID: roomID, VisitorID: visitorID}
		if err := req.Validate(); err != nil {
			return stockade.RoomTicket{}, err
		}
		tc := &ticketCall{slot: slot{c: c}, req: req}
		err := c.write(ctx, func(tx stockade.Tx) error {
			if err := e.decideTickets(ctx, tx, roomID, []*ticketCall{tc}); err != nil || tc.err != nil {
				return cmp.Or(err, tc.err)
			}
			now, v := e.now(), tc.visitor
			if v.AdmittedAt.IsZero() {
				return refuse(stockade.EInvalidState, "visitor %q of room %q is waiting: it has no admission to end", visitorID, roomID)
			}
			if now.Before(v.ExpiresAt) {
				if _, err := tx.RoomVisitorEnd(ctx, roomID, visitorID, now); err != nil {
					return err
				}
				v.ExpiresAt = now
			}
			tc.ticket = tc.room.Ticket(v, now)
			return nil
		})
		return tc.ticket, err
	})
}

// AdmitRooms makes one round of admissions in every room that gates: it
// opens those whose time has come, admits in each what Room.Admissions
// allows, and marks sold out those whose stock is gone. It returns how
// many visitors it admitted. RunAdmissions calls it on a ticker; every
// instance may, and the rooms' rows make them take turns. Each round
// reaches Options.Observer as a CallReport of Op "admit rooms".
func (e *Engine) AdmitRooms(ctx context.Context) (admitted int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "admit rooms", start: time.Now(), actor: stockade.System}
	var reports []RoomReport
	defer func() {
		err = c.classify(ctx, err)
		if obs := e.opts.Observer; obs != nil {
			if err != nil {
				reports = nil
			}
			obs(CallReport{Op: c.op, Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start),
				Rooms: reports})
		}
	}()
	var rooms []stockade.Room
	err = c.view(ctx, func(tx stockade.Tx) (err error) {
		rooms, err = tx.RoomListGating(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, r := range rooms {
		var (
			n   int64
			rep RoomReport
		)
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			n, rep, err = e.admitRoom(ctx, tx, r.ID)
			return err
		})
		if err != nil {
			return admitted, fmt.Errorf("room %s: %w", r.ID, err)
		}
		admitted += n
		if rep.ID != "" {
			reports = append(reports, rep)
		}
	}
	return admitted, nil
}

// admitRoom makes one round of a room's admissions: it opens the room if
// its time has come, admits the visitors Room.Admissions allows, in the
// order of their places, and marks the room sold out when its stock is
// gone. It writes the room only when something changed. It returns how
// many it admitted and the room as the round left it (none if the room
// is gone or no longer gates).
func (e *Engine) admitRoom(ctx context.Context, tx stockade.Tx, id string) (int64, RoomReport, error) {
	now := e.now()
	r, err := tx.RoomGet(ctx, stockade.ByID{ID: id, Lock: true})
	if stockade.ErrorCode(err) == stockade.ENotFound {
		return 0, RoomReport{}, nil
	}
	if err != nil || !r.Status.Gates() {
		return 0, RoomReport{}, err
	}
	var act stockade.RoomActivity
	report := func() RoomReport {
		rep := RoomReport{ID: r.ID, Status: r.Status, Active: act.Active, Admitted: r.Admitted, Paused: r.Paused}
		if r.Status.Gates() {
			rep.Queued = max(0, r.Joined-r.Admitted) // as roomView counts them
		}
		return rep
	}
	before := r
	if r.Status == stockade.RoomScheduled {
		if now.Before(r.OpensAt) {
			return 0, report(), nil
		}
		drawn, err := tx.RoomVisitorDraw(ctx, r.ID, r.Ordered)
		if err != nil {
			return 0, RoomReport{}, err
		}
		r.Ordered += drawn
		r.Status = stockade.RoomQueueing
		r.Credit, r.CreditAt = 0, r.OpensAt
	}
	stock, err := roomStock(ctx, tx, r)
	if err != nil {
		return 0, RoomReport{}, err
	}
	var n int64
	if stock.SoldOut() {
		r.Status, r.SoldOutAt, r.Paused = stockade.RoomSoldOut, now, ""
	} else {
		if act, err = tx.RoomVisitorActivity(ctx, r.ID, now); err != nil {
			return 0, RoomReport{}, err
		}
		n, r.Paused = r.Admissions(now, act, stock)
		if n > 0 {
			q := stockade.RoomAdmit{RoomID: r.ID, After: r.Admitted, Through: r.Admitted + n, At: now,
				Expires: now.Add(r.AdmissionTTL).Truncate(time.Second)} // as the token says it: in seconds
			got, err := tx.RoomVisitorAdmit(ctx, q)
			if err != nil {
				return 0, RoomReport{}, err
			}
			if got != n {
				return 0, RoomReport{}, fmt.Errorf("engine: room %s: admitted %d of places %d to %d", r.ID, got, q.After+1, q.Through)
			}
			r.Admit(n, now)
			act.Active += n
		}
	}
	if n == 0 && r.Status == before.Status && r.Paused == before.Paused && r.Ordered == before.Ordered {
		return 0, report(), nil
	}
	if err := writeRoom(ctx, tx, &r, now); err != nil {
		return 0, RoomReport{}, err
	}
	var types []string
	if before.Status == stockade.RoomScheduled {
		types = append(types, stockade.EventRoomOpened)
	}
	if r.Status == stockade.RoomSoldOut {
		types = append(types, stockade.EventRoomSoldOut)
	}
	if len(types) == 0 {
		return n, report(), nil
	}
	v, err := roomView(ctx, tx, r, now)
	if err != nil {
		return 0, RoomReport{}, err
	}
	return n, report(), roomEvents(ctx, tx, v, now, types...)
}

// roomEvents writes events of types about the room v, as it is after
// its change at now: in the API's shape (stockade.RoomDocument), so that
// the feed never carries the room's secret.
func roomEvents(ctx context.Context, tx stockade.Tx, v stockade.RoomView, now time.Time, types ...string) error {
	var ob outbox
	doc := v.Document()
	for _, typ := range types {
		ob.add(typ, stockade.AggregateRoom, v.ID, v.Version, now, doc)
	}
	return ob.flush(ctx, tx)
}

// gate is the rooms that hold the show or SKUs of a batch of holds or
// reservations, read in the batch's transaction, and the visitors whose
// admissions the batch used.
type gate struct {
	rooms map[string]stockade.Room // by target
	used  map[string][]string      // visitor ids by room id
}

// readGate reads the rooms that hold any of targets.
func readGate(ctx context.Context, tx stockade.Tx, targets []string) (*gate, error) {
	if len(targets) == 0 { // a batch of confirms: no room to read
		return nil, nil
	}
	rooms, err := tx.RoomHolding(ctx, targets)
	if err != nil || len(rooms) == 0 {
		return nil, err
	}
	g := &gate{rooms: map[string]stockade.Room{}, used: map[string][]string{}}
	for _, r := range rooms {
		for _, t := range r.Targets() {
			g.rooms[t] = r
		}
	}
	return g, nil
}

// check refuses a call on targets unless proof admits it to every room
// that holds one of them: EAdmissionRequired without a proof, naming the
// room to join; EAdmissionInvalid for a token that VerifyAdmission
// refuses. It returns the rooms whose admission the call uses, to be
// recorded (use) if the call goes through.
func (g *gate) check(targets []string, proof *stockade.AdmissionProof, now time.Time) ([]string, error) {
	if g == nil {
		return nil, nil
	}
	var rooms []string
	for _, t := range targets {
		r, ok := g.rooms[t]
		if !ok || slices.Contains(rooms, r.ID) {
			continue
		}
		if proof == nil {
			return nil, refuse(stockade.EAdmissionRequired, "%s is behind waiting room %q, which is %s: join it, and hold with the admission it gives",
				what(r), r.ID, r.Status)
		}
		if _, err := stockade.VerifyAdmission(r, proof.Token, proof.VisitorID, now); err != nil {
			return nil, err
		}
		rooms = append(rooms, r.ID)
	}
	return rooms, nil
}

// skuTargets names the SKUs as rooms' targets.
func skuTargets(skus []string) []string {
	ts := make([]string, len(skus))
	for i, sku := range skus {
		ts[i] = stockade.SKUTarget(sku)
	}
	return ts
}

// use records that visitor held through the admissions of rooms.
func (g *gate) use(rooms []string, visitor string) {
	for _, id := range rooms {
		g.used[id] = append(g.used[id], visitor)
	}
}

// write marks the admissions used, so that a room no longer counts their
// visitors as yet to hold (Room.Admissions).
func (g *gate) write(ctx context.Context, tx stockade.Tx, now time.Time) error {
	if g == nil {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(g.used)) {
		vs := g.used[id]
		slices.Sort(vs)
		if err := tx.RoomVisitorUse(ctx, id, slices.Compact(vs), now); err != nil {
			return err
		}
	}
	return nil
}

// RunAdmissions calls AdmitRooms at once and then every interval (a
// quarter of a second if interval is not positive) until ctx ends. Errors
// are logged, and the next tick tries again. Every instance may run it:
// the rooms' rows make them take turns.
func (e *Engine) RunAdmissions(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = time.Second / 4
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := e.AdmitRooms(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			e.log.Error("engine: admissions", "admitted", n, "err", err)
		case n > 0:
			e.log.Debug("engine: admissions", "admitted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
