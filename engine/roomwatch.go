package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
)

// Watched tickets
//
// A crowd in a waiting room watches its tickets (an SSE stream each), and
// a ticket changes at every admissions' round for everyone in the queue.
// Reading each visitor's place at each round would cost a read per
// visitor per round; instead each room watched in this process has one
// goroutine that reads the room every Options.TicketPoll and works out
// every watcher's ticket from the place it read once (Room.Ticket). It
// reads a visitor's row again only when it must: for the place the draw
// at opening gives, and for the admission once the room has admitted
// that far. The goroutine ends when the room has no watcher.

// watches are the rooms watched in this process.
type watches struct {
	mu    sync.Mutex
	rooms map[string]*roomWatch
}

// roomWatch is one watched room and its watchers. Its goroutine alone
// sends to the watchers' channels and closes them.
type roomWatch struct {
	id   string
	mu   sync.Mutex // guards subs
	subs map[*watcher]struct{}
}

// watcher is one WatchTicket call.
type watcher struct {
	// gone is set when the call's context ends: a flag that the room's
	// goroutine reads for each watcher at each round, where ctx.Err would
	// take a lock each time.
	gone    atomic.Bool
	forget  func() bool              // stops the context's setting gone
	visitor stockade.RoomVisitor     // as last read
	ch      chan stockade.RoomTicket // of one: the newest ticket replaces one not yet taken
	last    stockade.RoomTicket
	sent    time.Time // when last was sent
}

// WatchTicket implements stockade.RoomService: a channel of visitor's
// tickets in a room, the ticket of the moment first and then each change,
// closed once the ticket has an end (sold out, closed, expired) or ctx
// ends. A reader that falls behind gets the newest ticket, not each. An
// unknown room or visitor is ENotFound at once.
func (e *Engine) WatchTicket(ctx context.Context, roomID, visitorID string) (<-chan stockade.RoomTicket, error) {
	t, err := e.RoomTicket(ctx, roomID, visitorID)
	if err != nil {
		return nil, err
	}
	w := &watcher{ch: make(chan stockade.RoomTicket, 1), last: t, sent: time.Now(),
		visitor: stockade.RoomVisitor{RoomID: roomID, VisitorID: visitorID, Position: t.Position, JoinedAt: t.JoinedAt}}
	if t.Status == stockade.TicketAdmitted || t.Status == stockade.TicketExpired {
		w.visitor.AdmittedAt, w.visitor.ExpiresAt = t.ExpiresAt, t.ExpiresAt // known: no read needed
	}
	w.ch <- t
	if ended(t) {
		close(w.ch)
		return w.ch, nil
	}
	w.forget = context.AfterFunc(ctx, func() { w.gone.Store(true) })
	e.watches.mu.Lock()
	defer e.watches.mu.Unlock()
	if e.watches.rooms == nil {
		e.watches.rooms = map[string]*roomWatch{}
	}
	rw, ok := e.watches.rooms[roomID]
	if !ok {
		rw = &roomWatch{id: roomID, subs: map[*watcher]struct{}{}}
		e.watches.rooms[roomID] = rw
		go e.watchRoom(rw)
	}
	rw.mu.Lock()
	rw.subs[w] = struct{}{}
	rw.mu.Unlock()
	return w.ch, nil
}

// countdownEvery is how often a watcher is sent a ticket that only counts
// down (fewer ahead, a shorter wait), given the last ticket it was sent:
// a twentieth of its estimated wait, from 1 s to 15 s. At every
// admissions' round each watcher's count moves, and waking a crowd's
// every watcher (over HTTP, writing to each one's stream) at each round
// would take the process from the work that admits them; a visitor far
// back needs to hear less often than one near the front. A ticket whose
// status or place changed goes out at once.
func countdownEvery(last stockade.RoomTicket) time.Duration {
	return min(max(last.EstimatedWait/20, time.Second), 15*time.Second)
}

// ended reports whether t is a ticket that no longer changes.
func ended(t stockade.RoomTicket) bool {
	switch t.Status {
	case stockade.TicketSoldOut, stockade.TicketClosed, stockade.TicketExpired:
		return true
	}
	return false
}

// watchRoom reads rw's room every TicketPoll and sends each watcher its
// ticket when it changed, until rw has no watcher.
func (e *Engine) watchRoom(rw *roomWatch) {
	tick := time.NewTicker(e.opts.TicketPoll)
	defer tick.Stop()
	for range tick.C {
		e.watches.mu.Lock()
		rw.mu.Lock()
		for w := range rw.subs {
			if w.gone.Load() {
				delete(rw.subs, w)
				close(w.ch)
			}
		}
		if len(rw.subs) == 0 {
			delete(e.watches.rooms, rw.id)
			rw.mu.Unlock()
			e.watches.mu.Unlock()
			return
		}
		subs := make([]*watcher, 0, len(rw.subs))
		for w := range rw.subs {
			subs = append(subs, w)
		}
		rw.mu.Unlock()
		e.watches.mu.Unlock()

		if err := e.refreshTickets(rw, subs); err != nil {
			e.log.Warn("engine: watched tickets", "room", rw.id, "err", err)
		}
	}
}

// refreshTickets reads rw's room, and the rows of the watchers whose place
// or admission it does not know yet, and sends each watcher its ticket if
// it changed; a watcher whose ticket ended is sent it and let go.
func (e *Engine) refreshTickets(rw *roomWatch, subs []*watcher) error {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	var room stockade.Room
	err := e.store.View(ctx, func(tx stockade.Tx) (err error) {
		if room, err = tx.RoomGet(ctx, stockade.ByID{ID: rw.id}); err != nil {
			return err
		}
		var stale []*watcher
		for _, w := range subs {
			v := &w.visitor
			if (v.Position == 0 && room.Ordered > 0) || (v.Position > 0 && v.Position <= room.Admitted && v.AdmittedAt.IsZero()) {
				stale = append(stale, w)
			}
		}
		if len(stale) == 0 {
			return nil
		}
		ids := make([]string, len(stale))
		for i, w := range stale {
			ids[i] = w.visitor.VisitorID
		}
		slices.Sort(ids)
		byID := make(map[string]stockade.RoomVisitor, len(ids))
		for chunk := range slices.Chunk(ids, 1000) {
			vs, err := tx.RoomVisitorGetMany(ctx, rw.id, chunk)
			if err != nil {
				return err
			}
			for _, v := range vs {
				byID[v.VisitorID] = v
			}
		}
		for _, w := range stale {
			if v, ok := byID[w.visitor.VisitorID]; ok {
				w.visitor = v
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	now, wall := e.now(), time.Now()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	for _, w := range subs {
		if _, ok := rw.subs[w]; !ok {
			continue
		}
		// Most of a crowd's watchers have nothing to be sent: a visitor
		// still waiting in a room that still gates, whose count-down is
		// not due, and one admitted until later. Their tickets are not
		// worked out again (an admitted one's holds a token to sign).
		switch {
		case w.last.Status == stockade.TicketWaiting && room.Status.Gates() && w.visitor.AdmittedAt.IsZero() &&
			w.visitor.Position == w.last.Position && wall.Sub(w.sent) < countdownEvery(w.last):
			continue
		case w.last.Status == stockade.TicketAdmitted && now.Before(w.visitor.ExpiresAt):
			continue
		}
		t := room.Ticket(w.visitor, now)
		if t.Status == w.last.Status && t.Position == w.last.Position &&
			(t.Ahead == w.last.Ahead && t.EstimatedWait == w.last.EstimatedWait || wall.Sub(w.sent) < countdownEvery(w.last)) {
			continue
		}
		w.last, w.sent = t, wall
		select {
		case <-w.ch: // not taken: replaced
		default:
		}
		w.ch <- t
		if ended(t) {
			w.forget()
			delete(rw.subs, w)
			close(w.ch)
		}
	}
	return nil
}
