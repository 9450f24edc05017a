package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// row is a show of one row of n seats and no standing area.
func row(id string, n int) stockade.Show {
	return stockade.Show{ID: id, Name: "Row " + id, Rows: []stockade.SeatRow{
		{Section: "s", Row: "A", First: 1, Last: n, Start: stockade.SeatPoint{X: 0, Y: 1}},
	}}
}

// room creates a room from req, opening a minute after the test's clock
// unless req says when.
func (en *env) room(req stockade.NewRoomRequest) stockade.RoomView {
	en.t.Helper()
	if req.OpensAt.IsZero() {
		req.OpensAt = en.clock.Now().Add(time.Minute)
	}
	v, secret, err := en.eng.CreateRoom(sys(en.t), req, nil)
	if err != nil {
		en.t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "rsec_") || v.Secret != secret {
		en.t.Fatalf("CreateRoom gave the secret %q and a room with %q", secret, v.Secret)
	}
	return v
}

// join joins visitor to room and returns the ticket.
func (en *env) join(room, visitor string) stockade.RoomTicket {
	en.t.Helper()
	t, err := en.eng.JoinRoom(sys(en.t), stockade.JoinRequest{RoomID: room, VisitorID: visitor})
	if err != nil {
		en.t.Fatalf("join %s as %s: %v", room, visitor, err)
	}
	return t
}

// ticket returns visitor's ticket in room.
func (en *env) ticket(room, visitor string) stockade.RoomTicket {
	en.t.Helper()
	t, err := en.eng.RoomTicket(sys(en.t), room, visitor)
	if err != nil {
		en.t.Fatal(err)
	}
	return t
}

// admit runs one round of admissions and returns how many it admitted.
func (en *env) admit() int64 {
	en.t.Helper()
	n, err := en.eng.AdmitRooms(sys(en.t))
	if err != nil {
		en.t.Fatal(err)
	}
	return n
}

// proof is the admission of t, as a hold carries it.
func proof(t stockade.RoomTicket) *stockade.AdmissionProof {
	return &stockade.AdmissionProof{VisitorID: t.VisitorID, Token: t.Token}
}

// visitors returns the room's visitors as the store keeps them.
func (en *env) visitors(room string, ids []string) []stockade.RoomVisitor {
	en.t.Helper()
	var vs []stockade.RoomVisitor
	err := en.store.View(en.t.Context(), func(tx stockade.Tx) (err error) {
		vs, err = tx.RoomVisitorGetMany(en.t.Context(), room, ids)
		return err
	})
	if err != nil {
		en.t.Fatal(err)
	}
	return vs
}

// TestRoomGatesHolds: a room in front of a show takes visitors in arrival
// order, one place each, admits none before it opens and then at most its
// active limit, and while it queues a hold needs an admission of its own:
// none, a forged one, another visitor's, another room's or an expired one
// is refused and changes nothing; the visitor's own holds. Under every
// strategy, on both stores.
func TestRoomGatesHolds(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		ctx := sys(t)
		if _, err := en.eng.PutShow(ctx, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.PutShow(ctx, row("other", 4), nil); err != nil {
			t.Fatal(err)
		}
		en.room(stockade.NewRoomRequest{ID: "gig-room", ShowID: "gig", ActiveLimit: 3, AdmitPerMinute: 600, PerVisitor: 2})
		other := en.room(stockade.NewRoomRequest{ID: "other-room", ShowID: "other", ActiveLimit: 3, AdmitPerMinute: 600})
		for i := 1; i <= 5; i++ {
			tk := en.join("gig-room", fmt.Sprintf("v%d", i))
			if tk.Position != int64(i) || tk.Status != stockade.TicketWaiting || tk.Ahead != int64(i-1) {
				t.Fatalf("visitor %d joined at %+v, want position %d with %d ahead", i, tk, i, i-1)
			}
		}
		if again := en.join("gig-room", "v2"); again.Position != 2 {
			t.Fatalf("v2 joined again at %d, want its place 2", again.Position)
		}
		if n := en.admit(); n != 0 {
			t.Fatalf("admitted %d before the opening", n)
		}
		best := stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 2}}}
		_, err := en.eng.HoldSeats(ctx, best, nil)
		wantCode(t, err, stockade.EAdmissionRequired)
		if !strings.Contains(stockade.ErrorMessage(err), `"gig-room"`) {
			t.Errorf("the refusal %q does not name the room to join", stockade.ErrorMessage(err))
		}

		en.clock.Advance(time.Minute + 10*time.Second)
		if n := en.admit(); n != 3 {
			t.Fatalf("admitted %d at the opening, want the active limit 3", n)
		}
		v1, v4 := en.ticket("gig-room", "v1"), en.ticket("gig-room", "v4")
		if v1.Status != stockade.TicketAdmitted || v1.Token == "" {
			t.Fatalf("v1 after the opening: %+v", v1)
		}
		if v4.Status != stockade.TicketWaiting || v4.Ahead != 0 {
			t.Fatalf("v4 after the opening: %+v, want waiting with no one ahead", v4)
		}
		if n := en.admit(); n != 0 {
			t.Fatalf("admitted %d beyond the active limit", n)
		}

		before := en.seatsOf("gig", stockade.SeatFree)
		forged := *proof(v1)
		forged.Token = strings.TrimSuffix(forged.Token, forged.Token[len(forged.Token)-4:]) + "AAAA"
		otherTk := en.join("other-room", "v1")
		for _, c := range []struct {
			name  string
			proof *stockade.AdmissionProof
		}{
			{"forged", &forged},
			{"another visitor's", &stockade.AdmissionProof{VisitorID: "v2", Token: v1.Token}},
			{"not a token", &stockade.AdmissionProof{VisitorID: "v1", Token: "hello"}},
			{"another room's", &stockade.AdmissionProof{VisitorID: "v1", Token: stockade.AdmissionToken(
				stockade.Admission{RoomID: "other-room", VisitorID: "v1", Position: otherTk.Position, ExpiresAt: en.clock.Now().Add(time.Hour)}, other.Secret)}},
		} {
			req := best
			req.Admission = c.proof
			_, err := en.eng.HoldSeats(ctx, req, nil)
			wantCode(t, err, stockade.EAdmissionInvalid)
			t.Logf("%s: %v", c.name, err)
		}
		if after := en.seatsOf("gig", stockade.SeatFree); !slices.Equal(after, before) {
			t.Fatalf("refused holds changed the free seats: %d before, %d after", len(before), len(after))
		}
		req := best
		req.Admission = proof(v1)
		if _, err := en.eng.HoldSeats(ctx, req, nil); err != nil {
			t.Fatalf("v1's own admission: %v", err)
		}
		// v1 has bought: leaving lets the next visitor in.
		left, err := en.eng.LeaveRoom(ctx, "gig-room", "v1")
		if err != nil || left.Status != stockade.TicketExpired {
			t.Fatalf("v1 leaves: %+v, %v", left, err)
		}
		if again, err := en.eng.LeaveRoom(ctx, "gig-room", "v1"); err != nil || again.Status != stockade.TicketExpired {
			t.Fatalf("v1 leaves again: %+v, %v", again, err)
		}
		_, err = en.eng.LeaveRoom(ctx, "gig-room", "v5")
		wantCode(t, err, stockade.EInvalidState)
		if n := en.admit(); n != 2 { // v4 here, and v1 in other-room, which it joined since the last round
			t.Fatalf("admitted %d once v1 left, want 2", n)
		}
		if v4, v5 := en.ticket("gig-room", "v4"), en.ticket("gig-room", "v5"); v4.Status != stockade.TicketAdmitted || v5.Status != stockade.TicketWaiting {
			t.Fatalf("once v1 left: v4 %+v, v5 %+v; want v4 admitted and v5 waiting", v4, v5)
		}
		// A show behind no room needs none.
		if _, err := en.eng.PutShow(ctx, row("free", 2), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "free", Seats: []string{"s/A/1"}}, nil); err != nil {
			t.Fatalf("a hold of a show behind no room: %v", err)
		}
		v2 := en.ticket("gig-room", "v2")
		en.clock.Advance(stockade.DefaultAdmissionTTL)
		req.Admission = proof(v2)
		_, err = en.eng.HoldSeats(ctx, req, nil)
		wantCode(t, err, stockade.EAdmissionInvalid)
		if tk := en.ticket("gig-room", "v2"); tk.Status != stockade.TicketExpired || tk.Token != "" {
			t.Fatalf("v2 after its admission ran out: %+v", tk)
		}
		en.reconciled()
	})
}

// TestRoomGatesReservations: a room in front of SKUs gates reservations
// and checkouts that draw on one of them, and not those of other SKUs.
func TestRoomGatesReservations(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("w1", 0, 0)
		en.stock("drop", "w1", 10)
		en.stock("plain", "w1", 10)
		en.room(stockade.NewRoomRequest{ID: "drop-room", SKUs: []string{"drop"}, OpensAt: en.clock.Now(), ActiveLimit: 5, AdmitPerMinute: 600})
		en.join("drop-room", "ann")
		en.clock.Advance(time.Second)
		if n := en.admit(); n != 1 {
			t.Fatalf("admitted %d, want 1", n)
		}
		_, err := en.eng.Reserve(ctx, lines(line("plain", 1, ""), line("drop", 1, "")), nil)
		wantCode(t, err, stockade.EAdmissionRequired)
		_, err = en.eng.Checkout(ctx, lines(line("drop", 1, "")), nil)
		wantCode(t, err, stockade.EAdmissionRequired)
		if _, err := en.eng.Reserve(ctx, lines(line("plain", 1, "")), nil); err != nil {
			t.Fatalf("a SKU behind no room: %v", err)
		}
		req := lines(line("drop", 2, ""))
		req.Admission = proof(en.ticket("drop-room", "ann"))
		if _, err := en.eng.Checkout(ctx, req, nil); err != nil {
			t.Fatalf("ann's admission: %v", err)
		}
		if l := en.level("drop", "w1"); l.Committed != 2 {
			t.Fatalf("drop after the checkout: %+v", l)
		}
		en.balanced()
	})
}

// TestRoomRandomAtOpening: visitors who join a random-order room before
// it opens have no place until the draw at opening, which gives them the
// places 1 … n in the order of their draws; those who join later follow
// in arrival order.
func TestRoomRandomAtOpening(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			en := newEnv(t, b, engine.Batch, nil)
			if _, err := en.eng.PutShow(sys(t), row("draw", 100), nil); err != nil {
				t.Fatal(err)
			}
			en.room(stockade.NewRoomRequest{ID: "draw-room", ShowID: "draw", ActiveLimit: 10, AdmitPerMinute: 60, Order: stockade.RoomRandomAtOpening})
			const early = 40
			var ids []string
			for i := range early {
				id := fmt.Sprintf("v%02d", i)
				ids = append(ids, id)
				if tk := en.join("draw-room", id); tk.Position != 0 || tk.Ahead != int64(i) {
					t.Fatalf("%s before the opening: %+v, want no place yet", id, tk)
				}
			}
			en.clock.Advance(time.Minute)
			en.admit()
			late := en.join("draw-room", "late")
			if late.Position != early+1 {
				t.Fatalf("a visitor after the opening got place %d, want %d", late.Position, early+1)
			}
			vs := en.visitors("draw-room", ids)
			slices.SortFunc(vs, func(a, b stockade.RoomVisitor) int {
				if a.Draw != b.Draw {
					return cmpInt(a.Draw, b.Draw)
				}
				return strings.Compare(a.VisitorID, b.VisitorID)
			})
			arrival := true
			for i, v := range vs {
				if v.Position != int64(i+1) {
					t.Fatalf("the %d-th draw, %s, got place %d", i+1, v.VisitorID, v.Position)
				}
				arrival = arrival && v.VisitorID == ids[i]
			}
			if arrival {
				t.Errorf("the draw gave the places in arrival order")
			}
			// Admission follows the places.
			en.clock.Advance(5 * time.Second)
			if n := en.admit(); n != 5 {
				t.Fatalf("admitted %d in 5 s at 1 a second", n)
			}
			for _, v := range en.visitors("draw-room", ids) {
				if admitted := !v.AdmittedAt.IsZero(); admitted != (v.Position <= 5) {
					t.Errorf("%s at place %d: admitted %v", v.VisitorID, v.Position, admitted)
				}
			}
		})
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestRoomFollowsStock: a room admits no more visitors than the seats left
// can serve, pauses while they are promised or held, admits again when a
// hold expires and its seats come back, and once nothing is free or held
// tells every queued visitor that the sale sold out and stops gating.
func TestRoomFollowsStock(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			en := newEnv(t, b, engine.Batch, nil)
			ctx := sys(t)
			if _, err := en.eng.PutShow(ctx, row("small", 4), nil); err != nil {
				t.Fatal(err)
			}
			en.room(stockade.NewRoomRequest{ID: "small-room", ShowID: "small", ActiveLimit: 100, AdmitPerMinute: 6000, PerVisitor: 2})
			for i := range 8 {
				en.join("small-room", fmt.Sprintf("v%d", i))
			}
			en.clock.Advance(time.Minute + time.Second)
			if n := en.admit(); n != 2 {
				t.Fatalf("admitted %d for 4 seats at 2 a visitor, want 2", n)
			}
			room, err := en.eng.Room(ctx, "small-room")
			if err != nil {
				t.Fatal(err)
			}
			if room.Paused != stockade.RoomPausedStock || room.Active != 2 || room.Queued != 6 {
				t.Fatalf("room after the first round: %+v", room)
			}
			want := engine.RoomReport{ID: "small-room", Status: stockade.RoomQueueing, Queued: 6, Active: 2, Admitted: 2, Paused: stockade.RoomPausedStock}
			if got := en.roomReports(); !slices.Equal(got, []engine.RoomReport{want}) {
				t.Fatalf("the round reported %+v, want %+v", got, want)
			}
			hold := func(visitor string, ttl time.Duration) stockade.Hold {
				t.Helper()
				h, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "small", TTL: ttl, Best: []stockade.BestSeats{{Quantity: 2}},
					Admission: proof(en.ticket("small-room", visitor))}, nil)
				if err != nil {
					t.Fatalf("%s holds: %v", visitor, err)
				}
				return h
			}
			h0 := hold("v0", time.Minute)
			hold("v1", 10*time.Minute)
			if n := en.admit(); n != 0 {
				t.Fatalf("admitted %d with every seat held", n)
			}
			en.clock.Advance(2 * time.Minute) // v0's hold lapses
			if _, err := en.eng.Sweep(ctx); err != nil {
				t.Fatal(err)
			}
			if n := en.admit(); n != 1 {
				t.Fatalf("admitted %d once v0's 2 seats came back, want 1", n)
			}
			if _, err := en.eng.ConfirmHold(ctx, h0.ID, nil); stockade.ErrorCode(err) != stockade.EHoldExpired {
				t.Fatalf("confirm of the lapsed hold: %v", err)
			}
			h2 := hold("v2", 10*time.Minute)
			if _, err := en.eng.ConfirmHold(ctx, h2.ID, nil); err != nil {
				t.Fatal(err)
			}
			// Those still waiting watch their tickets: each hears of the
			// sell-out, and its watch ends there.
			var watches []<-chan stockade.RoomTicket
			for _, v := range []string{"v4", "v5", "v6", "v7"} {
				ch, err := en.eng.WatchTicket(ctx, "small-room", v)
				if err != nil {
					t.Fatal(err)
				}
				if first := <-ch; first.Status != stockade.TicketWaiting {
					t.Fatalf("%s's first watched ticket: %+v", v, first)
				}
				watches = append(watches, ch)
			}
			for _, h := range en.holdsOf("small", stockade.HoldHeld) {
				if _, err := en.eng.ConfirmHold(ctx, h.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
			en.admit()
			deadline := time.After(bound)
			for i, ch := range watches {
				var last stockade.RoomTicket
			watch:
				for {
					select {
					case tk, ok := <-ch:
						if !ok { // closed once the ticket has ended
							break watch
						}
						last = tk
					case <-deadline:
						t.Fatalf("watcher %d: no end within %v; last ticket %+v", i, bound, last)
					}
				}
				if last.Status != stockade.TicketSoldOut {
					t.Errorf("watcher %d's last ticket: %+v, want sold_out", i, last)
				}
			}
			room, err = en.eng.Room(ctx, "small-room")
			if err != nil {
				t.Fatal(err)
			}
			if room.Status != stockade.RoomSoldOut || room.SoldOutAt.IsZero() {
				t.Fatalf("room with every seat booked: %+v", room)
			}
			for _, v := range []string{"v4", "v7"} {
				if tk := en.ticket("small-room", v); tk.Status != stockade.TicketSoldOut {
					t.Errorf("%s after the sell-out: %+v", v, tk)
				}
			}
			_, err = en.eng.JoinRoom(ctx, stockade.JoinRequest{RoomID: "small-room", VisitorID: "newcomer"})
			wantCode(t, err, stockade.ESoldOut)
			// No longer gated: a hold is refused for the seats, not the room.
			_, err = en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "small", Best: []stockade.BestSeats{{Quantity: 1}}}, nil)
			wantCode(t, err, stockade.ESoldOut)
			en.roomEvents("small-room", stockade.EventRoomCreated, stockade.EventRoomOpened, stockade.EventRoomSoldOut)
			en.reconciled()
		})
	}
}

// roomEvents checks that the feed holds the events of types about room,
// in that order, with versions that never fall, each payload the room as the
// API shows it, without its secret; the last as the room is now. The
// feed holds an event back while a transaction that began before its own
// is open, one of another test's on a shared server too: it waits for
// them, and then a moment for any event more.
func (en *env) roomEvents(room string, types ...string) {
	en.t.Helper()
	var (
		evs    []stockade.DomainEvent
		cursor string
	)
	for deadline := time.Now().Add(bound); ; {
		wait := 5 * time.Second
		if len(evs) >= len(types) {
			wait = 200 * time.Millisecond
		}
		page, err := en.eng.Events(sys(en.t), stockade.DomainEventQuery{Aggregate: stockade.AggregateRoom, AggregateID: room,
			Cursor: cursor, Limit: stockade.MaxEventLimit, Wait: wait})
		if err != nil {
			en.t.Fatal(err)
		}
		evs, cursor = append(evs, page.Events...), page.Next
		if (len(evs) >= len(types) && len(page.Events) == 0) || time.Now().After(deadline) {
			break
		}
	}
	var got []string
	var last stockade.RoomDocument
	for i, ev := range evs {
		got = append(got, ev.Type)
		if bytes.Contains(ev.Payload, []byte("rsec_")) || bytes.Contains(ev.Payload, []byte(`"secret"`)) {
			en.t.Errorf("the %s event shows the room's secret: %s", ev.Type, ev.Payload)
		}
		var doc stockade.RoomDocument
		if err := json.Unmarshal(ev.Payload, &doc); err != nil || doc.ID != room || doc.Version != ev.Version {
			en.t.Errorf("the %s event's payload (%v): %s", ev.Type, err, ev.Payload)
		}
		if i > 0 && ev.Version < evs[i-1].Version { // the events of one change share its version
			en.t.Errorf("the %s event at version %d, after %d", ev.Type, ev.Version, evs[i-1].Version)
		}
		last = doc
	}
	if !slices.Equal(got, types) {
		en.t.Fatalf("the room's events: %q, want %q", got, types)
	}
	now, err := en.eng.Room(sys(en.t), room)
	if err != nil {
		en.t.Fatal(err)
	}
	if last.Status != string(now.Status) || last.Version != now.Version || last.Admitted != now.Admitted {
		en.t.Errorf("the last event shows the room %+v; it is %+v", last, now.Document())
	}
}

// roomReports returns the rooms that the last round of admissions
// reported to the observer.
func (en *env) roomReports() []engine.RoomReport {
	en.t.Helper()
	var last *engine.CallReport
	for {
		select {
		case ev := <-en.events:
			if ev.Op == "admit rooms" {
				last = &ev
			}
			continue
		default:
		}
		break
	}
	if last == nil {
		en.t.Fatal("no round of admissions reported")
	}
	return last.Rooms
}

// holdsOf returns the show's holds in status.
func (en *env) holdsOf(show string, status stockade.HoldStatus) []stockade.Hold {
	en.t.Helper()
	page, err := en.eng.Holds(sys(en.t), stockade.ListQuery{ShowID: show, Status: string(status), Limit: 100})
	if err != nil {
		en.t.Fatal(err)
	}
	return page.Holds
}

// TestRoomUpdate: an admin changes a room's limits freely, but not its
// order once visitors queue unless they say so, nor the opening of a room
// that has opened; closing it stops the gating and frees its show for
// another room, and a closed room opens again only while no other room
// stands there.
func TestRoomUpdate(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Batch, nil)
	ctx := sys(t)
	if _, err := en.eng.PutShow(ctx, row("upd", 4), nil); err != nil {
		t.Fatal(err)
	}
	v := en.room(stockade.NewRoomRequest{ID: "upd-room", ShowID: "upd", ActiveLimit: 5, AdmitPerMinute: 60})
	_, _, err := en.eng.CreateRoom(ctx, stockade.NewRoomRequest{ID: "upd-second", ShowID: "upd", ActiveLimit: 5, AdmitPerMinute: 60}, nil)
	wantCode(t, err, stockade.EInvalidState)
	en.join("upd-room", "a")
	random := stockade.RoomRandomAtOpening
	_, err = en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{Order: &random}, nil)
	wantCode(t, err, stockade.EInvalidState)
	if got, _ := en.eng.Room(ctx, "upd-room"); got.Order != stockade.RoomArrival || got.Version != v.Version+1 {
		t.Fatalf("a refused update changed the room: %+v", got) // +1: the join
	}
	up, err := en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{Order: &random, Reorder: true, ActiveLimit: ptr(int64(7))}, nil)
	if err != nil || up.Order != random || up.ActiveLimit != 7 {
		t.Fatalf("update with reorder: %+v, %v", up, err)
	}
	if vs := en.visitors("upd-room", []string{"a"}); vs[0].Position != 0 {
		t.Fatalf("after the change to random order, a is at %d, want waiting for the draw", vs[0].Position)
	}
	en.join("upd-room", "b")
	arrival := stockade.RoomArrival
	if _, err := en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{Order: &arrival, Reorder: true}, nil); err != nil {
		t.Fatal(err)
	}
	placed := en.visitors("upd-room", []string{"a", "b"})
	if got := []int64{placed[0].Position, placed[1].Position}; !slices.Equal(slices.Sorted(slices.Values(got)), []int64{1, 2}) {
		t.Fatalf("after the change back to arrival order, a and b are at %v, want places 1 and 2 from their draws", got)
	}
	if c := en.join("upd-room", "c"); c.Position != 3 {
		t.Fatalf("a visitor after the change joined at %d, want 3", c.Position)
	}
	_, err = en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{ActiveLimit: ptr(int64(0))}, nil)
	wantCode(t, err, stockade.EInvalid)
	_, err = en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{ActiveLimit: ptr(int64(9)), ExpectedVersion: ptr(v.Version)}, nil)
	wantCode(t, err, stockade.EVersionConflict)
	before, err := en.eng.Room(ctx, "upd-room")
	if err != nil {
		t.Fatal(err)
	}
	_, err = en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{ExpectedVersion: ptr(v.Version)}, nil)
	wantCode(t, err, stockade.EVersionConflict) // an empty update is a compare too
	same, err := en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{ExpectedVersion: ptr(before.Version)}, nil)
	if err != nil || same.Version != before.Version || !same.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("an update that sets nothing: %+v, %v; want the room at version %d as it was", same, err, before.Version)
	}

	closed := stockade.RoomClosed
	if _, err := en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{Status: &closed}, nil); err != nil {
		t.Fatal(err)
	}
	if tk := en.ticket("upd-room", "a"); tk.Status != stockade.TicketClosed {
		t.Fatalf("a visitor of a closed room: %+v", tk)
	}
	if _, err := en.eng.HoldSeats(ctx, stockade.HoldRequest{ShowID: "upd", Seats: []string{"s/A/1"}}, nil); err != nil {
		t.Fatalf("a hold once the room closed: %v", err)
	}
	en.room(stockade.NewRoomRequest{ID: "upd-second", ShowID: "upd", ActiveLimit: 5, AdmitPerMinute: 60})
	queueing := stockade.RoomQueueing
	_, err = en.eng.UpdateRoom(ctx, "upd-room", stockade.RoomUpdate{Status: &queueing}, nil)
	wantCode(t, err, stockade.EInvalidState)
	en.clock.Advance(2 * time.Minute)
	en.admit()
	opens := en.clock.Now().Add(time.Hour)
	_, err = en.eng.UpdateRoom(ctx, "upd-second", stockade.RoomUpdate{OpensAt: &opens}, nil)
	wantCode(t, err, stockade.EInvalidState)
	// An event for each change made; none for a refused one, nor a
	// join's, nor an admission round's that opens nothing.
	en.roomEvents("upd-room", stockade.EventRoomCreated, stockade.EventRoomUpdated, stockade.EventRoomUpdated, stockade.EventRoomUpdated)
	en.roomEvents("upd-second", stockade.EventRoomCreated, stockade.EventRoomOpened)
}

// TestRoomVisitorsPerKey: a storefront key finds only the visitors it
// joined; another storefront key can neither read their tickets nor join
// under their ids.
func TestRoomVisitorsPerKey(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Batch, nil)
	admin, shop1, shop2 := en.actors()
	if _, err := en.eng.PutShow(admin, row("keyed", 4), nil); err != nil {
		t.Fatal(err)
	}
	en.room(stockade.NewRoomRequest{ID: "keyed-room", ShowID: "keyed", ActiveLimit: 5, AdmitPerMinute: 60})
	if _, err := en.eng.JoinRoom(shop1, stockade.JoinRequest{RoomID: "keyed-room", VisitorID: "ann"}); err != nil {
		t.Fatal(err)
	}
	if tk, err := en.eng.RoomTicket(shop1, "keyed-room", "ann"); err != nil || tk.Position != 1 {
		t.Fatalf("shop-1 reads its visitor: %+v, %v", tk, err)
	}
	_, err := en.eng.RoomTicket(shop2, "keyed-room", "ann")
	wantCode(t, err, stockade.ENotFound)
	_, err = en.eng.JoinRoom(shop2, stockade.JoinRequest{RoomID: "keyed-room", VisitorID: "ann"})
	wantCode(t, err, stockade.ENotFound)
	if tk, err := en.eng.RoomTicket(admin, "keyed-room", "ann"); err != nil || tk.Position != 1 {
		t.Fatalf("an admin reads any visitor: %+v, %v", tk, err)
	}
}

// TestRoomInstances: two instances on one PostgreSQL database serve one
// room. Visitors joining through both at once, some more than once, get
// one place each and the places 1 … n with none twice; admissions made by
// both at once follow the places with no gap; and an instance started
// later (a restart) finds every place as it was.
func TestRoomInstances(t *testing.T) {
	t.Parallel()
	stores := openPostgresN(t, 2)
	a := newEnvOn(t, stores[0], engine.Batch, nil)
	b := newEnvOn(t, stores[1], engine.Batch, nil)
	b.clock = a.clock
	ctx := sys(t)
	if _, err := a.eng.PutShow(ctx, row("big", 500), nil); err != nil {
		t.Fatal(err)
	}
	a.room(stockade.NewRoomRequest{ID: "big-room", ShowID: "big", ActiveLimit: 1000, AdmitPerMinute: 60 * 50})
	const visitors = 300
	places := make([]int64, visitors)
	var wg sync.WaitGroup
	for i := range visitors {
		wg.Go(func() {
			en := a
			if i%2 == 1 {
				en = b
			}
			id := fmt.Sprintf("v%03d", i)
			tk, err := en.eng.JoinRoom(ctx, stockade.JoinRequest{RoomID: "big-room", VisitorID: id})
			if err != nil {
				t.Error(err)
				return
			}
			if rand.IntN(3) == 0 { // again, through the other instance
				other := b
				if en == b {
					other = a
				}
				again, err := other.eng.JoinRoom(ctx, stockade.JoinRequest{RoomID: "big-room", VisitorID: id})
				if err != nil || again.Position != tk.Position {
					t.Errorf("%s joined again: %+v, %v; first at %d", id, again, err, tk.Position)
				}
			}
			places[i] = tk.Position
		})
	}
	wg.Wait()
	sorted := slices.Sorted(slices.Values(places))
	for i, p := range sorted {
		if p != int64(i+1) {
			t.Fatalf("places %v… are not 1 … %d once each", sorted[:min(len(sorted), i+3)], visitors)
		}
	}
	a.clock.Advance(time.Minute + time.Second)
	for range 3 {
		var wg sync.WaitGroup
		for _, en := range []*env{a, b} {
			wg.Go(func() {
				if _, err := en.eng.AdmitRooms(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		a.clock.Advance(time.Second)
	}
	restarted := newEnvOn(t, stores[1], engine.Batch, nil)
	restarted.clock = a.clock
	room, err := restarted.eng.Room(ctx, "big-room")
	if err != nil {
		t.Fatal(err)
	}
	if room.Joined != visitors || room.Admitted == 0 || room.Admitted >= visitors {
		t.Fatalf("room: joined %d, admitted %d; want %d joined and some admitted", room.Joined, room.Admitted, visitors)
	}
	for i, want := range places {
		tk := restarted.ticket("big-room", fmt.Sprintf("v%03d", i))
		admitted := tk.Status == stockade.TicketAdmitted
		if tk.Position != want || admitted != (want <= room.Admitted) {
			t.Errorf("v%03d after the restart: %+v; want place %d, admitted %v", i, tk, want, want <= room.Admitted)
		}
	}
}

// TestCountdownEvery: a watcher far back hears its count-down seldom, one
// near the front each second, and none waits more than 15 s for one.
func TestCountdownEvery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ wait, every time.Duration }{
		{0, time.Second},
		{10 * time.Second, time.Second},
		{time.Minute, 3 * time.Second},
		{4 * time.Minute, 12 * time.Second},
		{time.Hour, 15 * time.Second},
	} {
		if got := engine.CountdownEvery(stockade.RoomTicket{Status: stockade.TicketWaiting, EstimatedWait: tc.wait}); got != tc.every {
			t.Errorf("a wait of %v: a count-down every %v, want %v", tc.wait, got, tc.every)
		}
	}
}
