package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// Shows, seats and holds
//
// A show's seats are rows of their own, each in one status (free, held,
// booked, blocked), and its general-admission areas are counters, like
// levels: capacity, held, booked. A hold moves seats from free to held
// with one conditional write per transaction (stockade.BookingTx.SeatMoveMany,
// which moves a seat only from the status it is in) and counts its
// places with a conditional counter update (AreaMovePlaces), so that under
// every strategy the database itself refuses a second taker: a hold that
// finds fewer seats than it chose was raced, and its transaction is
// retried whole, its choice made again on what is free then. Every
// change writes the seat history in the same transaction.
//
// Seats are rows rather than units of stock because a seat has an
// identity that a buyer picks and that best-available selection places
// (row, order, position): a unit count cannot say which seats are free.
// What stock and seats share is the engine: the same calls, retries,
// deadlines, idempotency, outbox and sweeper.

var _ stockade.BookingService = (*Engine)(nil)

// PutShow creates a show, or changes its map: its name, focal point,
// rows and areas. A seat that the new map drops or changes (layout or
// blocked) must be free; an area's capacity may not fall below its held
// and booked places. Seats the map keeps unchanged keep their status.
func (e *Engine) PutShow(ctx context.Context, ev stockade.Show, idem *stockade.Idempotency) (stockade.Show, error) {
	return run(e, ctx, "put event", idem, func(ctx context.Context, c *call) (stockade.Show, error) {
		if err := ev.Validate(); err != nil {
			return stockade.Show{}, err
		}
		var out stockade.Show
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			out, err = once(ctx, c, tx, func() (stockade.Show, error) { return e.putShow(ctx, tx, c, ev) })
			return err
		})
		return out, err
	})
}

func (e *Engine) putShow(ctx context.Context, tx stockade.Tx, c *call, ev stockade.Show) (stockade.Show, error) {
	now := e.now()
	old, err := tx.ShowGet(ctx, stockade.ByID{ID: ev.ID, Lock: true})
	switch {
	case stockade.ErrorCode(err) == stockade.ENotFound:
		ev.CreatedAt, ev.Version = now, 1
	case err != nil:
		return stockade.Show{}, err
	default:
		ev.CreatedAt, ev.Version = old.CreatedAt, old.Version+1
	}
	want := map[string]stockade.Seat{}
	for _, r := range ev.Rows {
		for _, s := range r.Seats() {
			want[s.ID] = s
		}
	}
	var have []stockade.Seat
	if err == nil {
		if have, err = tx.SeatList(ctx, ev.ID, stockade.SeatFilter{Lock: true}); err != nil {
			return stockade.Show{}, err
		}
	}
	var (
		put     []stockade.Seat
		drop    []string
		changes []stockade.SeatChange
		busy    []string
	)
	for _, s := range have {
		w, ok := want[s.ID]
		delete(want, s.ID)
		if ok && sameSeat(s, w) {
			continue
		}
		if s.Status != stockade.SeatFree && s.Status != stockade.SeatBlocked {
			busy = append(busy, fmt.Sprintf("%s (%s)", s.ID, s.Status))
			continue
		}
		if !ok {
			drop = append(drop, s.ID)
			continue
		}
		put = append(put, w)
		if w.Status != s.Status {
			changes = append(changes, stockade.SeatChange{At: now, ShowID: ev.ID, Seat: s.ID, Quantity: 1, From: s.Status, To: w.Status, Actor: c.actor.Name})
		}
	}
	if len(busy) > 0 {
		return stockade.Show{}, refuse(stockade.EInvalidState, "show %q: only free or blocked seats may change or go, and these are not: %s", ev.ID, list(busy))
	}
	for _, s := range want { // new seats
		put = append(put, s)
		changes = append(changes, stockade.SeatChange{At: now, ShowID: ev.ID, Seat: s.ID, Quantity: 1, From: stockade.SeatFree, To: s.Status, Actor: c.actor.Name})
	}
	slices.SortFunc(put, stockade.Seat.Compare)
	slices.SortFunc(changes, func(a, b stockade.SeatChange) int { return strings.Compare(a.Seat, b.Seat) })
	changes = slices.DeleteFunc(changes, func(ch stockade.SeatChange) bool { return ch.From == ch.To })
	var dropAreas []string
	for _, a := range old.Areas {
		if slices.ContainsFunc(ev.Areas, func(b stockade.Area) bool { return b.Name == a.Name }) {
			continue
		}
		if a.Held+a.Booked > 0 {
			return stockade.Show{}, refuse(stockade.EInvalidState, "show %q: area %q has %d places held and %d booked; it cannot go", ev.ID, a.Name, a.Held, a.Booked)
		}
		dropAreas = append(dropAreas, a.Name)
	}
	if err := tx.ShowPut(ctx, ev); err != nil {
		return stockade.Show{}, err
	}
	if len(drop) > 0 {
		if _, err := tx.SeatDelete(ctx, ev.ID, drop); err != nil {
			return stockade.Show{}, err
		}
	}
	if len(put) > 0 {
		if err := tx.SeatPut(ctx, ev.ID, put); err != nil {
			return stockade.Show{}, err
		}
	}
	if len(ev.Areas) > 0 {
		if err := tx.AreaPut(ctx, ev.ID, ev.Areas); err != nil {
			return stockade.Show{}, err
		}
	}
	if n, err := tx.AreaDelete(ctx, ev.ID, dropAreas); err != nil {
		return stockade.Show{}, err
	} else if n != len(dropAreas) {
		return stockade.Show{}, conflictf("show %s: %d of the %d areas to drop took places meanwhile", ev.ID, len(dropAreas)-n, len(dropAreas))
	}
	if err := tx.SeatChangeAppend(ctx, changes...); err != nil {
		return stockade.Show{}, err
	}
	out, err := tx.ShowGet(ctx, stockade.ByID{ID: ev.ID})
	if err != nil {
		return stockade.Show{}, err
	}
	var ob outbox
	ob.add(stockade.EventShowPut, stockade.AggregateShow, out.ID, out.Version, now, showPayload(out))
	return out, ob.flush(ctx, tx)
}

// sameSeat reports whether a seat the store has and one a map makes are
// the same seat in the same place, blocked or not alike.
func sameSeat(have, want stockade.Seat) bool {
	blocked := func(s stockade.Seat) bool { return s.Status == stockade.SeatBlocked }
	return have.Section == want.Section && have.Row == want.Row && have.Label == want.Label && have.Order == want.Order &&
		have.Category == want.Category && have.Accessible == want.Accessible && have.Position == want.Position &&
		blocked(have) == blocked(want)
}

// showPayload is a show as its outbox events show it: without its
// rows, which can be large (GET the show for them).
func showPayload(ev stockade.Show) stockade.Show {
	ev.Rows = nil
	ev.CreatedAt = wire(ev.CreatedAt)
	return ev
}

// list joins up to ten items, and says how many more there are.
func list(items []string) string {
	if len(items) <= 10 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:10], ", "), len(items)-10)
}

// Show implements stockade.BookingService.
func (e *Engine) Show(ctx context.Context, id string) (stockade.ShowView, error) {
	return run(e, ctx, "get event", nil, func(ctx context.Context, c *call) (stockade.ShowView, error) {
		if err := checkID("show id", id); err != nil {
			return stockade.ShowView{}, err
		}
		var v stockade.ShowView
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			if v.Show, err = tx.ShowGet(ctx, stockade.ByID{ID: id}); err != nil {
				return err
			}
			v.Counts, err = tx.SeatCounts(ctx, id)
			return err
		})
		return v, err
	})
}

// freeSeats reads the seats of ev as best-available chooses from them:
// its layout, which the engine keeps between calls and reads again when
// the show's version moves, with the free seats, read now, marked Free.
func (e *Engine) freeSeats(ctx context.Context, b stockade.BookingTx, ev stockade.Show) (*seatState, error) {
	showID := ev.ID
	l, err := e.layouts.get(ctx, b, ev)
	if err != nil {
		return nil, err
	}
	e.seatReads.Add(1)
	ids, err := b.SeatFreeIDs(ctx, showID)
	if err != nil {
		return nil, err
	}
	st := &seatState{event: showID, version: ev.Version, areas: ev.Areas, seats: l.seats,
		spots: slices.Clone(l.spots), index: l.index}
	for i := range st.spots {
		st.spots[i].Free = false
	}
	for _, id := range ids {
		i, ok := l.index[id]
		if !ok {
			return nil, conflictf("seat %s of show %s is not in its layout of version %d", id, showID, l.version)
		}
		st.spots[i].Free = true
	}
	return st, nil
}

// layouts keeps the layout of the events whose seats were chosen
// lately: what a seat is and where, which only PutShow changes.
type layouts struct {
	mu     sync.Mutex
	events map[string]*layout
}

// maxLayouts bounds how many shows' layouts an engine keeps.
const maxLayouts = 64

// layout is a show's seats at one version of its map, in seat order,
// with their spots (all free) and their places by id.
type layout struct {
	version int64
	seats   []stockade.Seat
	spots   []seatSpot
	index   map[string]int
}

// get returns the layout of ev at its version, reading the show's seats
// if the engine has no such layout.
func (ls *layouts) get(ctx context.Context, b stockade.BookingTx, ev stockade.Show) (*layout, error) {
	ls.mu.Lock()
	l := ls.events[ev.ID]
	ls.mu.Unlock()
	if l != nil && l.version == ev.Version {
		return l, nil
	}
	seats, err := b.SeatList(ctx, ev.ID, stockade.SeatFilter{})
	if err != nil {
		return nil, err
	}
	l = &layout{version: ev.Version, seats: seats, spots: make([]seatSpot, len(seats)), index: make(map[string]int, len(seats))}
	// One string per section and per row, so that comparing two of a
	// row's seats compares pointers, not bytes.
	interned := map[string]string{}
	intern := func(s string) string {
		if t, ok := interned[s]; ok {
			return t
		}
		interned[s] = s
		return s
	}
	for i, s := range seats {
		s.Section, s.Row = intern(s.Section), intern(s.Row)
		s.Status, s.HoldID, s.BookingID = stockade.SeatFree, "", ""
		l.seats[i] = s
		l.spots[i] = seatSpot{Section: s.Section, Row: s.Row, Order: s.Order, Category: s.Category, Accessible: s.Accessible,
			Distance: math.Hypot(s.Position.X-ev.Focal.X, s.Position.Y-ev.Focal.Y), Free: true}
		l.index[s.ID] = i
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.events == nil {
		ls.events = map[string]*layout{}
	}
	if _, ok := ls.events[ev.ID]; !ok && len(ls.events) >= maxLayouts {
		for id := range ls.events { // any one: a layout is read again at need
			delete(ls.events, id)
			break
		}
	}
	if cur := ls.events[ev.ID]; cur == nil || cur.version <= l.version {
		ls.events[ev.ID] = l
	}
	return l, nil
}

// A seat cursor is the place of the last seat of a page: the byte 's',
// then its section and row each followed by a zero byte (which an id
// cannot hold), then its order as 8 bytes big-endian, in unpadded
// base64url.
const seatCursorTag = 's'

func seatCursor(s stockade.Seat) string {
	b := append([]byte{seatCursorTag}, s.Section...)
	b = append(append(b, 0), s.Row...)
	b = binary.BigEndian.AppendUint64(append(b, 0), uint64(int64(s.Order)))
	return cursorEncoding.EncodeToString(b)
}

// parseSeatCursor returns the seat place a cursor made by seatCursor
// holds, or nil for the empty cursor. Anything else is EInvalid.
func parseSeatCursor(s string) (*stockade.Seat, error) {
	if s == "" {
		return nil, nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) > 10 && b[0] == seatCursorTag && b[len(b)-9] == 0 {
		if section, row, ok := strings.Cut(string(b[1:len(b)-9]), "\x00"); ok && !strings.Contains(row, "\x00") {
			order := int64(binary.BigEndian.Uint64(b[len(b)-8:]))
			if order >= math.MinInt32 && order <= math.MaxInt32 {
				return &stockade.Seat{Section: section, Row: row, Order: int(order)}, nil
			}
		}
	}
	return nil, malformedCursor()
}

// Seats implements stockade.BookingService.
func (e *Engine) Seats(ctx context.Context, showID string, q stockade.SeatQuery) (stockade.SeatPage, error) {
	return run(e, ctx, "seats", nil, func(ctx context.Context, c *call) (stockade.SeatPage, error) {
		if err := checkID("show id", showID); err != nil {
			return stockade.SeatPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.SeatPage{}, err
		}
		after, err := parseSeatCursor(q.Cursor)
		if err != nil {
			return stockade.SeatPage{}, err
		}
		limit := q.Limit
		if limit == 0 {
			limit = stockade.DefaultSeatLimit
		}
		var seats []stockade.Seat
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if _, err := tx.ShowGetHead(ctx, stockade.ByID{ID: showID}); err != nil {
				return err
			}
			seats, err = tx.SeatList(ctx, showID, stockade.SeatFilter{Status: q.Status, Section: q.Section, After: after, Limit: limit + 1})
			return err
		})
		if err != nil {
			return stockade.SeatPage{}, err
		}
		page := stockade.SeatPage{Seats: seats[:min(limit, len(seats))]}
		if len(seats) > limit {
			page.Next = seatCursor(page.Seats[len(page.Seats)-1])
		}
		if c.actor.Role == stockade.RoleStorefront {
			// Which hold or booking has a seat is its owner's to know:
			// a storefront sees the seat's status only.
			for i := range page.Seats {
				page.Seats[i].HoldID, page.Seats[i].BookingID = "", ""
			}
		}
		return page, nil
	})
}

// showCursorTag marks the cursors of the list of shows (see listCursor).
const showCursorTag = 'S'

// Shows returns a page of the shows' heads that match q, newest first.
// Every role sees every show.
func (e *Engine) Shows(ctx context.Context, q stockade.ListQuery) (stockade.ShowPage, error) {
	return run(e, ctx, "shows", nil, func(ctx context.Context, c *call) (stockade.ShowPage, error) {
		if err := q.ValidateShows(); err != nil {
			return stockade.ShowPage{}, err
		}
		f, err := c.listFilter(q, showCursorTag)
		if err != nil {
			return stockade.ShowPage{}, err
		}
		f.Owner = "" // shows are everyone's
		var ss []stockade.Show
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			ss, err = tx.ShowListNewest(ctx, f)
			return err
		})
		if err != nil {
			return stockade.ShowPage{}, err
		}
		page := stockade.ShowPage{Shows: ss}
		page.Shows, page.Next = cutPage(ss, f.Limit-1, showCursorTag, func(x stockade.Show) (time.Time, string) { return x.CreatedAt, x.ID })
		return page, nil
	})
}
