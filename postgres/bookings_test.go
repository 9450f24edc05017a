package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// seedEvent creates event id with rows A and B of section "stalls", seats
// 1 to 10 each, then more rows, and a general-admission area "floor" of
// 100 places.
func seedEvent(t *testing.T, s stockade.Store, id string, more ...stockade.SeatRow) stockade.Show {
	t.Helper()
	e := stockade.Show{
		ID: id, Name: "Show " + id, Focal: stockade.SeatPoint{X: 5, Y: -10},
		Rows: append([]stockade.SeatRow{
			{Section: "stalls", Row: "A", First: 1, Last: 10, Category: "A", AislesAfter: []int{5}},
			{Section: "stalls", Row: "B", First: 1, Last: 10, Category: "B", Blocked: []int{10}, Start: stockade.SeatPoint{Y: 1}},
		}, more...),
		Areas:     []stockade.Area{{Name: "floor", Capacity: 100}},
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
		Version:   1,
	}
	update(t, s, func(tx stockade.Tx) error {
		btx := tx
		if err := btx.ShowPut(t.Context(), e); err != nil {
			return err
		}
		var seats []stockade.Seat
		for _, r := range e.Rows {
			seats = append(seats, r.Seats()...)
		}
		if err := btx.SeatPut(t.Context(), id, seats); err != nil {
			return err
		}
		return btx.AreaPut(t.Context(), id, e.Areas)
	})
	return e
}

// TestBookingConstraints checks that the schema itself holds the
// invariants of seats, areas and the seat history, whatever writes to it.
func TestBookingConstraints(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	seedEvent(t, s, "e1")
	update(t, s, func(tx stockade.Tx) error {
		return tx.SeatChangeAppend(t.Context(), stockade.SeatChange{
			ShowID: "e1", Seat: "stalls/A/1", Quantity: 1, From: stockade.SeatFree, To: stockade.SeatHeld})
	})
	db := newPool(t, url)
	for _, tc := range []struct {
		name, sql, code string
	}{
		{"bad seat status", `UPDATE seats SET status = 'lost'`, "23514"},
		{"seat of no event", `INSERT INTO seats (show_id, id, section, row, ord, status) VALUES ('nope', 's', 'a', 'b', 1, 'free')`, "23503"},
		{"area over capacity", `UPDATE areas SET held = 60, booked = 41`, "23514"},
		{"area held below zero", `UPDATE areas SET held = -1`, "23514"},
		{"bad hold status", `INSERT INTO holds (id, show_id, status, seats, places, created_at, expires_at)
			VALUES ('h', 'e1', 'lost', '[]', '[]', now(), now())`, "23514"},
		{"bad booking status", `INSERT INTO bookings (id, show_id, status, seats, places, created_at)
			VALUES ('b', 'e1', 'lost', '[]', '[]', now())`, "23514"},
		{"two bookings of a hold", `INSERT INTO bookings (id, show_id, hold_id, status, seats, places, created_at)
			VALUES ('b1', 'e1', 'h', 'booked', '[]', '[]', now()), ('b2', 'e1', 'h', 'booked', '[]', '[]', now())`, "23505"},
		{"history update", `UPDATE seat_history SET quantity = 2`, "23001"},
		{"history delete", `DELETE FROM seat_history`, "23001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(t.Context(), tc.sql)
			if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != tc.code {
				t.Fatalf("got %v, want SQLSTATE %s", err, tc.code)
			}
		})
	}
}

// TestBookingErrors checks how the store's errors map, and that a
// refused AreaPut, which fails no statement, leaves the transaction
// going: PostgreSQL aborts a transaction at its first failed statement.
func TestBookingErrors(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seedEvent(t, s, "e1")
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		btx := tx
		if _, ok, err := btx.AreaMovePlaces(ctx, "e1", "floor", 60, 0); err != nil || !ok {
			t.Fatalf("AreaMovePlaces(floor, 60, 0) = %v, %v", ok, err)
		}
		err := btx.AreaPut(ctx, "e1", []stockade.Area{{Name: "balcony", Capacity: 5}, {Name: "floor", Capacity: 59}})
		if stockade.ErrorCode(err) != stockade.EInvalidState {
			t.Errorf("AreaPut below what is held: %v, want %s", err, stockade.EInvalidState)
		}
		// The transaction goes on, and commits what comes next.
		return btx.AreaPut(ctx, "e1", []stockade.Area{{Name: "floor", Category: "GA", Capacity: 60}})
	})
	update(t, s, func(tx stockade.Tx) error {
		e, err := tx.ShowGet(ctx, stockade.ByID{ID: "e1"})
		want := []stockade.Area{{Name: "floor", Category: "GA", Capacity: 60, Held: 60}}
		if err != nil || !slices.Equal(e.Areas, want) {
			t.Errorf("areas = %+v, %v; want %+v", e.Areas, err, want)
		}
		return err
	})

	for _, tc := range []struct {
		name  string
		fn    func(btx stockade.BookingTx) error
		code  string
		state string // SQLSTATE
	}{
		{"SeatPut of an unknown event", func(btx stockade.BookingTx) error {
			return btx.SeatPut(ctx, "nope", []stockade.Seat{{ID: "s/A/1", Section: "s", Row: "A", Status: stockade.SeatFree}})
		}, stockade.ENotFound, "23503"},
		{"AreaPut of an unknown event", func(btx stockade.BookingTx) error {
			return btx.AreaPut(ctx, "nope", []stockade.Area{{Name: "floor", Capacity: 1}})
		}, stockade.ENotFound, "23503"},
		{"a hold's id in use", func(btx stockade.BookingTx) error {
			h := stockade.Hold{ID: "h1", ShowID: "e1", Status: stockade.HoldHeld}
			return btx.HoldInsert(ctx, h, h)
		}, "", "23505"},
		{"a second booking of a hold", func(btx stockade.BookingTx) error {
			return btx.BookingInsert(ctx, stockade.Booking{ID: "b1", ShowID: "e1", HoldID: "h1", Status: stockade.BookingBooked},
				stockade.Booking{ID: "b2", ShowID: "e1", HoldID: "h1", Status: stockade.BookingBooked})
		}, "", "23505"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, func(tx stockade.Tx) error { return tc.fn(tx) })
			if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != tc.state {
				t.Errorf("%v: want SQLSTATE %s in the chain", err, tc.state)
			}
			if tc.code != "" && stockade.ErrorCode(err) != tc.code {
				t.Errorf("%v: code %s, want %s", err, stockade.ErrorCode(err), tc.code)
			}
			if tc.state == "23505" && !errors.Is(err, stockade.ErrConflict) {
				t.Errorf("%v does not wrap ErrConflict", err)
			}
		})
	}
}

func holdIDs(cs []stockade.HoldLapseCandidate) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.Hold.ID)
	}
	return ids
}

// TestHoldLapseCandidatesSkipLocked checks that two sweepers at once take
// disjoint sets of lapsed holds, oldest expiry first, and that the second
// does not wait, and that a hold that needs a show's seats does not wait
// either: it reads the show's holds a sweeper has locked as they were
// committed, locking none.
func TestHoldLapseCandidatesSkipLocked(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	const n = 10
	update(t, s, func(tx stockade.Tx) error {
		btx := tx
		for i := range n + 2 {
			h := stockade.Hold{
				ID: fmt.Sprintf("h%02d", i), ShowID: fmt.Sprintf("e%d", i%2), Status: stockade.HoldHeld,
				Seats: []string{fmt.Sprintf("s/A/%d", i)}, CreatedAt: now.Add(-time.Hour),
				ExpiresAt: now.Add(time.Duration(i-n) * time.Minute), // h10 expires now, h11 later
			}
			if err := btx.HoldInsert(ctx, h); err != nil {
				return err
			}
		}
		_, err := btx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldReleased, stockade.HoldMove{Hold: "h01"})
		return err
	})

	held, release := make(chan []string, 1), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx stockade.Tx) error {
			hs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, Limit: 4})
			held <- holdIDs(hs)
			if err != nil {
				return err
			}
			<-release
			// It expires one of them; the others it leaves held.
			_, err = tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldExpired, stockade.HoldMove{Hold: "h00"})
			return err
		})
	}()
	a := <-held
	if want := []string{"h00", "h02", "h03", "h04"}; !slices.Equal(a, want) {
		t.Fatalf("first sweeper took %v, want %v", a, want)
	}
	var b, c []string
	update(t, s, func(tx stockade.Tx) error {
		hs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now})
		b = holdIDs(hs)
		return err
	})
	if want := []string{"h05", "h06", "h07", "h08", "h09"}; !slices.Equal(b, want) {
		t.Fatalf("second sweeper took %v, want %v", b, want)
	}
	// With a show (a hold that needs its seats) it reads the show's holds
	// (e0: even numbers) while the first sweeper has them locked, without
	// waiting: the engine locks those that lapse, and checks them again
	// once it has them.
	update(t, s, func(tx stockade.Tx) error {
		hs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, ShowID: "e0", Limit: 2})
		c = holdIDs(hs)
		return err
	})
	if n := lockWaiters(t, db); n != 0 {
		t.Errorf("%d sessions wait for a lock after a request read its candidates", n)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if want := []string{"h00", "h02"}; !slices.Equal(c, want) {
		t.Fatalf("request by show took %v, want %v", c, want)
	}
}

// TestSeatLockBlocks checks that SeatList with Lock holds a second
// transaction that locks the same seat until the first commits, which
// then reads the first's write, and that it does not hold one that locks
// other seats.
func TestSeatLockBlocks(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	seedEvent(t, s, "e1")
	ctx := t.Context()

	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx stockade.Tx) error {
			btx := tx
			if _, err := btx.SeatList(ctx, "e1", stockade.SeatFilter{IDs: []string{"stalls/A/1", "stalls/A/2"}, Lock: true}); err != nil {
				return err
			}
			close(locked)
			<-release
			_, err := btx.SeatMoveMany(ctx, "e1", []stockade.SeatMove{{Seat: "stalls/A/2", From: stockade.SeatFree, To: stockade.SeatHeld, Hold: "h1"}})
			return err
		})
	}()
	<-locked
	update(t, s, func(tx stockade.Tx) error {
		_, err := tx.SeatList(ctx, "e1", stockade.SeatFilter{IDs: []string{"stalls/A/3"}, Lock: true})
		return err
	})
	second := make(chan []stockade.Seat, 1)
	go func() {
		var seats []stockade.Seat
		err := s.Update(ctx, func(tx stockade.Tx) error {
			var err error
			seats, err = tx.SeatList(ctx, "e1", stockade.SeatFilter{IDs: []string{"stalls/A/2", "stalls/A/3"}, Lock: true})
			return err
		})
		if err != nil {
			t.Error(err)
		}
		second <- seats
	}()
	eventually(t, "the second transaction to wait for the seat's lock", func() bool { return lockWaiters(t, db) == 1 })
	select {
	case <-second:
		t.Fatal("second transaction got the seat while the first held it")
	default:
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	seats := <-second
	if len(seats) != 2 || seats[0].ID != "stalls/A/2" || seats[0].Status != stockade.SeatHeld || seats[0].HoldID != "h1" {
		t.Fatalf("second transaction read %+v, want the first's write", seats)
	}
}

// TestMoveSeatsRace has 50 transactions try to hold the same two seats at
// once, each all or nothing: one that moves fewer than both rolls back.
// Exactly one gets both, and the seats end held by it.
func TestMoveSeatsRace(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	// An event of an on-sale's size: the planner then looks the seats up
	// by key in the order the moves name them, so an UPDATE … FROM alone
	// would lock them in that order, and the two halves below deadlock.
	// SeatMoveMany locks them in seat order first.
	var circle []stockade.SeatRow
	for r := range 100 {
		circle = append(circle, stockade.SeatRow{Section: "circle", Row: fmt.Sprintf("R%02d", r), First: 1, Last: 100})
	}
	seedEvent(t, s, "e1", circle...)
	ctx := t.Context()
	const n = 50
	errTaken := errors.New("seats taken")
	var (
		wg    sync.WaitGroup
		errs  = make([]error, n)
		start = make(chan struct{})
	)
	for i := range n {
		// Half name the seats in one order, half in the other.
		seats := []string{"stalls/B/4", "stalls/A/7"}
		if i%2 == 1 {
			slices.Reverse(seats)
		}
		hold := fmt.Sprintf("h%02d", i)
		wg.Go(func() {
			<-start
			errs[i] = s.Update(ctx, func(tx stockade.Tx) error {
				var moves []stockade.SeatMove
				for _, id := range seats {
					moves = append(moves, stockade.SeatMove{Seat: id, From: stockade.SeatFree, To: stockade.SeatHeld, Hold: hold})
				}
				moved, err := tx.SeatMoveMany(ctx, "e1", moves)
				if err != nil {
					return err
				}
				if len(moved) < len(moves) {
					return fmt.Errorf("%w: moved %v", errTaken, moved)
				}
				return nil
			})
		})
	}
	close(start)
	wg.Wait()
	winner := ""
	for i, err := range errs {
		switch {
		case err == nil:
			if winner != "" {
				t.Errorf("h%02d and %s both got the seats", i, winner)
			}
			winner = fmt.Sprintf("h%02d", i)
		case !errors.Is(err, errTaken):
			t.Errorf("h%02d: %v", i, err) // not a deadlock: seats are locked in seat order
		}
	}
	if winner == "" {
		t.Fatal("no transaction got the seats")
	}
	var seats []stockade.Seat
	update(t, s, func(tx stockade.Tx) error {
		var err error
		seats, err = tx.SeatList(ctx, "e1", stockade.SeatFilter{Status: stockade.SeatHeld})
		return err
	})
	if len(seats) != 2 || seats[0].ID != "stalls/A/7" || seats[1].ID != "stalls/B/4" ||
		seats[0].HoldID != winner || seats[1].HoldID != winner {
		t.Fatalf("held seats %+v, want stalls/A/7 and stalls/B/4 held by %s", seats, winner)
	}
}
