package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// RunBookings runs the conformance cases of stockade.BookingTx, one
// subtest each, as Run does for the rest of the store. Every transaction
// of the store must implement stockade.BookingTx.
//
// Beyond the documentation of BookingTx, the cases fix these choices:
//
//   - Ids, sections, rows and names sort in byte order, as elsewhere; the
//     fixtures mix cases so that a natural-language collation fails.
//     Seats with the same section, row and order (which a valid map never
//     makes) sort by id.
//   - Event returns Rows as they were given and Areas in the order the
//     map gave them, each with its current category, capacity, held and
//     booked (those of its row, which AreaPut and AreaMovePlaces write).
//   - Times come back in UTC and equal what was stored to the
//     microsecond. HoldLapseCandidates's bound is strict: a hold that
//     expires exactly at it is not a candidate.
//   - SeatFilter.IDs empty, like nil, matches every seat; Limit 0 or less
//     means no limit, as do SeatChangeFilter.Limit and HoldLapseQuery.Limit.
//   - SeatMoveMany to SeatHeld clears the seat's booking; to SeatBooked it
//     leaves the seat's hold as it is.
//   - SeatCounts sorts by section, category and status, each in byte
//     order.
//   - A seat, hold, booking or history status outside the domain's
//     constants, or an area's capacity below zero, is refused with
//     EInvalid, changing nothing. SeatPut and AreaPut of a show that
//     does not exist are refused with ENotFound. AreaPut's refusal of a
//     capacity below what is taken leaves the transaction going on.
//   - Holds and bookings come back with nil Seats and Places when they
//     have none. SeatChangeAppend ignores the ids it is given.
func RunBookings(t *testing.T, newStore func(t *testing.T) stockade.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s stockade.Store)
	}{
		{"Event", testBookingEvent},
		{"ListShows", testListShows},
		{"Seats", testSeats},
		{"PutSeatsReplaces", testPutSeatsReplaces},
		{"SeatDelete", testDeleteSeats},
		{"SeatMoveMany", testMoveSeats},
		{"SeatEpoch", testSeatEpoch},
		{"SeatEpochHeld", testSeatEpochHeld},
		{"SeatCounts", testSeatCounts},
		{"AreaPut", testPutAreas},
		{"AreaMovePlaces", testMovePlaces},
		{"SeatChangeList", testSeatChanges},
		{"Holds", testHolds},
		{"HoldLapseCandidates", testHoldLapseCandidates},
		{"Bookings", testBookings},
		{"InvalidBookingStatus", testInvalidBookingStatus},
		{"BookingUpdateRollsBack", testBookingUpdateRollsBack},
		{"BookingViewIsReadOnly", testBookingViewIsReadOnly},
		{"ManySeats", testManySeats},
		{"ConcurrentMoveSeats", testConcurrentMoveSeats},
		{"ConcurrentMovePlaces", testConcurrentMovePlaces},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// btxFor returns update for a test that takes locks and view for one
// that does not.
func btxFor(lock bool) func(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error) {
	if lock {
		return update
	}
	return view
}

// checkMicros fails the test unless got is want in UTC, to the
// microsecond.
func checkMicros(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	d := got.Sub(want)
	if got.Location() != time.UTC || d >= time.Microsecond || d <= -time.Microsecond {
		t.Errorf("%s = %v (%v), want %v in UTC, to the microsecond", what, got, got.Location(), want.UTC())
	}
}

// showRows is the fixtures' seat map. Sections and rows mix cases so that
// byte order ("Circle" < "balcony" < "stalls", "A" < "B" < "a") and a
// natural-language collation disagree; row A numbers its seats from 9, so
// that id order ("stalls/A/10" < "stalls/A/9") and seat order disagree;
// it has an aisle after seat 11, so its orders skip one.
var showRows = []stockade.SeatRow{
	{Section: "stalls", Row: "A", First: 9, Last: 14, Category: "A", Accessible: []int{9, 10}, Blocked: []int{14},
		AislesAfter: []int{11}, Start: stockade.SeatPoint{X: 0.1, Y: 10}, Step: 1.5},
	{Section: "stalls", Row: "a", First: 1, Last: 3, Category: "B", Start: stockade.SeatPoint{X: 0.3, Y: 12.7}},
	{Section: "stalls", Row: "B", First: 1, Last: 4, Category: "A", Start: stockade.SeatPoint{Y: 11}},
	{Section: "Circle", Row: "A", First: 1, Last: 3, Category: "B", Start: stockade.SeatPoint{X: -2.25, Y: 20.1}, Step: 0.7},
	{Section: "balcony", Row: "A", First: 1, Last: 2, Start: stockade.SeatPoint{X: -stockade.MaxSeatCoordinate, Y: stockade.MaxSeatCoordinate}},
}

// showAreas are the fixtures' general-admission areas, not in name order.
var showAreas = []stockade.Area{
	{Name: "pit", Category: "GA", Capacity: 100},
	{Name: "Lawn", Capacity: 50},
}

// show returns a show with the fixtures' map.
func show(id string) stockade.Show {
	return stockade.Show{ID: id, Name: "Show " + id, Focal: stockade.SeatPoint{X: 0.5, Y: -3.25},
		Rows: showRows, Areas: showAreas, CreatedAt: base, Version: 1}
}

// showSeats returns the seats of rows, in seat order.
func showSeats(rows []stockade.SeatRow) []stockade.Seat {
	var seats []stockade.Seat
	for _, r := range rows {
		seats = append(seats, r.Seats()...)
	}
	slices.SortFunc(seats, compareSeats)
	return seats
}

// compareSeats is seat order, ties broken by id.
func compareSeats(a, b stockade.Seat) int {
	return cmp.Or(a.Compare(b), strings.Compare(a.ID, b.ID))
}

// seedShow creates e, its seats and its areas, and returns its seats in
// seat order.
func seedShow(t *testing.T, s stockade.Store, e stockade.Show) []stockade.Seat {
	t.Helper()
	ctx := t.Context()
	seats := showSeats(e.Rows)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ShowPut(ctx, e); err != nil {
			return err
		}
		if err := tx.SeatPut(ctx, e.ID, seats); err != nil {
			return err
		}
		return tx.AreaPut(ctx, e.ID, e.Areas)
	})
	return seats
}

// seatIDs returns the ids of seats.
func seatIDs(seats []stockade.Seat) []string {
	var ids []string
	for _, s := range seats {
		ids = append(ids, s.ID)
	}
	return ids
}

// getSeats returns every seat of a show, read in a View.
//
// It also checks that SeatFreeIDs, read in the same View, names the free
// seats of the list, in its order: a store may keep the free seats apart
// (an index, a table), and every write must keep the two alike.
func getSeats(t *testing.T, s stockade.Store, showID string) []stockade.Seat {
	t.Helper()
	var (
		seats []stockade.Seat
		free  []string
	)
	view(t, s, func(tx stockade.Tx) error {
		var err error
		if seats, err = tx.SeatList(t.Context(), showID, stockade.SeatFilter{}); err != nil {
			return err
		}
		free, err = tx.SeatFreeIDs(t.Context(), showID)
		return err
	})
	var want []string
	for _, st := range seats {
		if st.Status == stockade.SeatFree {
			want = append(want, st.ID)
		}
	}
	if !slices.Equal(free, want) {
		t.Errorf("SeatFreeIDs(%s) = %q, want the free seats of SeatList %q", showID, free, want)
	}
	return seats
}

// getShow returns a show, read in a View.
func getShow(t *testing.T, s stockade.Store, id string) stockade.Show {
	t.Helper()
	var e stockade.Show
	view(t, s, func(tx stockade.Tx) error {
		var err error
		e, err = tx.ShowGet(t.Context(), stockade.ByID{ID: id})
		return err
	})
	return e
}

// checkSeats fails the test unless got is want.
func checkSeats(t *testing.T, what string, got, want []stockade.Seat) {
	t.Helper()
	if equalSlices(got, want) {
		return
	}
	t.Errorf("%s: got %d seats, want %d", what, len(got), len(want))
	for i := range max(len(got), len(want)) {
		var g, w stockade.Seat
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: [%d] = %+v, want %+v", what, i, g, w)
		}
	}
}

// checkShow fails the test unless got is want as a store returns it.
func checkShow(t *testing.T, got, want stockade.Show) {
	t.Helper()
	checkMicros(t, "show "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	if got.ID != want.ID || got.Name != want.Name || got.Focal != want.Focal || got.Version != want.Version {
		t.Errorf("event = %s %q focal %v version %d, want %s %q focal %v version %d",
			got.ID, got.Name, got.Focal, got.Version, want.ID, want.Name, want.Focal, want.Version)
	}
	if !equalSlices(got.Rows, want.Rows) {
		t.Errorf("show %s rows = %+v, want %+v", want.ID, got.Rows, want.Rows)
	}
	if !equalSlices(got.Areas, want.Areas) {
		t.Errorf("show %s areas = %+v, want %+v", want.ID, got.Areas, want.Areas)
	}
}

func testBookingEvent(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	e := show("Show-1")
	seedShow(t, s, e)
	update(t, s, func(tx stockade.Tx) error {
		if _, ok, err := tx.AreaMovePlaces(ctx, e.ID, "pit", 3, 2); err != nil || !ok {
			return fmt.Errorf("AreaMovePlaces(pit, 3, 2) = %v, %v", ok, err)
		}
		return nil
	})
	want := e
	want.Areas = []stockade.Area{{Name: "pit", Category: "GA", Capacity: 100, Held: 3, Booked: 2}, {Name: "Lawn", Capacity: 50}}
	for _, lock := range []bool{false, true} {
		btxFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.ShowGet(ctx, stockade.ByID{ID: e.ID, Lock: lock})
			if err != nil {
				return fmt.Errorf("Event(lock %v): %w", lock, err)
			}
			checkShow(t, got, want)
			// The head: no rows, the areas in name order ("L" < "p").
			head := want
			head.Rows, head.Areas = nil, []stockade.Area{want.Areas[1], want.Areas[0]}
			if got, err = tx.ShowGetHead(ctx, stockade.ByID{ID: e.ID, Lock: lock}); err != nil {
				return fmt.Errorf("ShowGetHead(lock %v): %w", lock, err)
			}
			checkShow(t, got, head)
			return nil
		})
	}
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.ShowGet(ctx, stockade.ByID{ID: "no-such-event"})
		wantCode(t, "Event(unknown id)", err, stockade.ENotFound)
		_, err = tx.ShowGet(ctx, stockade.ByID{ID: "show-1"})
		wantCode(t, "Event(id in another case)", err, stockade.ENotFound)
		_, err = tx.ShowGetHead(ctx, stockade.ByID{ID: "no-such-event"})
		wantCode(t, "ShowGetHead(unknown id)", err, stockade.ENotFound)
		return nil
	})

	// Replaced: the row whole, the areas in the new map's order, their
	// counts kept; the seats are not the show row's business.
	e2 := e
	e2.Name, e2.Focal, e2.Version, e2.CreatedAt = "Renamed", stockade.SeatPoint{X: -1e6, Y: 1e-3}, 2, base.Add(time.Hour)
	e2.Rows = showRows[:2]
	e2.Areas = []stockade.Area{showAreas[1], showAreas[0]}
	update(t, s, func(tx stockade.Tx) error { return tx.ShowPut(ctx, e2) })
	want = e2
	want.Areas = []stockade.Area{{Name: "Lawn", Capacity: 50}, {Name: "pit", Category: "GA", Capacity: 100, Held: 3, Booked: 2}}
	checkShow(t, getShow(t, s, e.ID), want)
	if seats := getSeats(t, s, e.ID); len(seats) != len(showSeats(showRows)) {
		t.Errorf("after PutEvent replaced the event, it has %d seats, want the %d it had", len(seats), len(showSeats(showRows)))
	}

	// An event of general-admission areas only, and one of seats only.
	ga := stockade.Show{ID: "ga", Name: "GA only", Areas: showAreas[:1], CreatedAt: base, Version: 1}
	seated := stockade.Show{ID: "seated", Name: "Seats only", Rows: showRows[3:], CreatedAt: base, Version: 7}
	seedShow(t, s, ga)
	seedShow(t, s, seated)
	checkShow(t, getShow(t, s, ga.ID), ga)
	checkShow(t, getShow(t, s, seated.ID), seated)
}

func testListShows(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	ids := []string{"b", "A", "a-1", "B", "a"} // byte order: A B a a-1 b
	for i, id := range ids {
		e := show(id)
		e.Version = int64(i + 1)
		seedShow(t, s, e)
	}
	update(t, s, func(tx stockade.Tx) error {
		_, _, err := tx.AreaMovePlaces(ctx, "B", "Lawn", 1, 0)
		return err
	})
	tests := []struct {
		after string
		limit int
		want  []string
	}{
		{"", 10, []string{"A", "B", "a", "a-1", "b"}},
		{"", 2, []string{"A", "B"}},
		{"B", 2, []string{"a", "a-1"}},
		{"a-1", 2, []string{"b"}},
		{"Zz", 10, []string{"a", "a-1", "b"}},
		{"b", 2, nil},
	}
	for _, tc := range tests {
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.ShowList(ctx, tc.after, tc.limit)
			if err != nil {
				return err
			}
			var gotIDs []string
			for _, e := range got {
				gotIDs = append(gotIDs, e.ID)
			}
			if !equalSlices(gotIDs, tc.want) {
				t.Fatalf("ListShows(%q, %d) = %q, want %q", tc.after, tc.limit, gotIDs, tc.want)
			}
			for _, e := range got {
				want := show(e.ID)
				want.Version = int64(slices.Index(ids, e.ID) + 1)
				if e.ID == "B" {
					want.Areas = []stockade.Area{showAreas[0], {Name: "Lawn", Capacity: 50, Held: 1}}
				}
				checkShow(t, e, want)
			}
			return nil
		})
	}
}

func testSeats(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seats := seedShow(t, s, show("show"))
	// Another event with seats of the same ids, some held.
	other := seedShow(t, s, show("show-2"))
	for i := range other {
		if i%2 == 0 {
			other[i].Status, other[i].HoldID = stockade.SeatHeld, "h-other"
		}
	}
	update(t, s, func(tx stockade.Tx) error { return tx.SeatPut(ctx, "show-2", other) })
	// Some of this event's seats held and booked.
	seats[1].Status, seats[1].HoldID = stockade.SeatHeld, "h-1"
	seats[5].Status, seats[5].HoldID, seats[5].BookingID = stockade.SeatBooked, "h-2", "b-2"
	seats[9].Status, seats[9].HoldID = stockade.SeatHeld, "h-1"
	update(t, s, func(tx stockade.Tx) error {
		return tx.SeatPut(ctx, "show", []stockade.Seat{seats[1], seats[5], seats[9]})
	})

	if want := 18; len(seats) != want {
		t.Fatalf("the fixture has %d seats, want %d", len(seats), want)
	}
	byID := func(id string) stockade.Seat {
		i := slices.IndexFunc(seats, func(s stockade.Seat) bool { return s.ID == id })
		if i < 0 {
			t.Fatalf("no seat %s in the fixture", id)
		}
		return seats[i]
	}
	a11 := byID("stalls/A/11")
	tests := []struct {
		name   string
		filter stockade.SeatFilter
		keep   func(i int, s stockade.Seat) bool
	}{
		{"all, in seat order", stockade.SeatFilter{}, func(int, stockade.Seat) bool { return true }},
		{"empty ids: all", stockade.SeatFilter{IDs: []string{}}, func(int, stockade.Seat) bool { return true }},
		{"ids, missing left out", stockade.SeatFilter{IDs: []string{"stalls/A/10", "nope", "Circle/A/1", "stalls/A/9", "STALLS/A/9"}},
			func(_ int, s stockade.Seat) bool {
				return s.ID == "stalls/A/10" || s.ID == "Circle/A/1" || s.ID == "stalls/A/9"
			}},
		{"only missing ids", stockade.SeatFilter{IDs: []string{"nope", "stalls/A/1"}}, func(int, stockade.Seat) bool { return false }},
		{"status free", stockade.SeatFilter{Status: stockade.SeatFree},
			func(_ int, s stockade.Seat) bool { return s.Status == stockade.SeatFree }},
		{"status held", stockade.SeatFilter{Status: stockade.SeatHeld},
			func(_ int, s stockade.Seat) bool { return s.Status == stockade.SeatHeld }},
		{"status blocked", stockade.SeatFilter{Status: stockade.SeatBlocked},
			func(_ int, s stockade.Seat) bool { return s.Status == stockade.SeatBlocked }},
		{"section", stockade.SeatFilter{Section: "stalls"}, func(_ int, s stockade.Seat) bool { return s.Section == "stalls" }},
		{"section in another case", stockade.SeatFilter{Section: "circle"}, func(int, stockade.Seat) bool { return false }},
		{"section and status", stockade.SeatFilter{Section: "stalls", Status: stockade.SeatFree},
			func(_ int, s stockade.Seat) bool { return s.Section == "stalls" && s.Status == stockade.SeatFree }},
		{"ids and status", stockade.SeatFilter{IDs: []string{seats[1].ID, seats[2].ID, seats[9].ID}, Status: stockade.SeatHeld},
			func(i int, _ stockade.Seat) bool { return i == 1 || i == 9 }},
		{"after a seat", stockade.SeatFilter{After: &a11}, func(_ int, s stockade.Seat) bool { return s.Compare(a11) > 0 }},
		{"after a cursor that is no seat: the aisle of row A", stockade.SeatFilter{After: &stockade.Seat{Section: "stalls", Row: "A", Order: 3}},
			func(_ int, s stockade.Seat) bool { return s.Section == "stalls" && (s.Row != "A" || s.Order > 3) }},
		{"after, section", stockade.SeatFilter{After: &stockade.Seat{Section: "Circle", Row: "A", Order: 0}, Section: "Circle"},
			func(_ int, s stockade.Seat) bool { return s.Section == "Circle" && s.Order > 0 }},
		{"after the last", stockade.SeatFilter{After: &seats[len(seats)-1]}, func(int, stockade.Seat) bool { return false }},
		{"limit", stockade.SeatFilter{Limit: 4}, func(i int, _ stockade.Seat) bool { return i < 4 }},
		{"status, limit", stockade.SeatFilter{Status: stockade.SeatHeld, Limit: 1}, func(i int, _ stockade.Seat) bool { return i == 1 }},
		{"after, limit", stockade.SeatFilter{After: &seats[3], Limit: 3}, func(i int, _ stockade.Seat) bool { return i > 3 && i <= 6 }},
		{"ids, after, limit", stockade.SeatFilter{IDs: seatIDs(seats[:12]), After: &seats[2], Limit: 2},
			func(i int, _ stockade.Seat) bool { return i == 3 || i == 4 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []stockade.Seat
			for i, s := range seats {
				if tc.keep(i, s) {
					want = append(want, s)
				}
			}
			for _, lock := range []bool{false, true} {
				btxFor(lock)(t, s, func(tx stockade.Tx) error {
					f := tc.filter
					f.Lock = lock
					got, err := tx.SeatList(ctx, "show", f)
					if err != nil {
						return err
					}
					checkSeats(t, fmt.Sprintf("Seats(lock %v)", lock), got, want)
					return nil
				})
			}
		})
	}

	t.Run("free seat ids", func(t *testing.T) {
		var want []string
		for _, s := range seats {
			if s.Status == stockade.SeatFree {
				want = append(want, s.ID)
			}
		}
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.SeatFreeIDs(ctx, "show")
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				t.Errorf("SeatFreeIDs = %v, want %v", got, want)
			}
			if none, err := tx.SeatFreeIDs(ctx, "no-such-event"); err != nil || len(none) != 0 {
				t.Errorf("SeatFreeIDs(unknown event) = %v, %v; want none", none, err)
			}
			return err
		})
	})

	t.Run("pages", func(t *testing.T) {
		var got []stockade.Seat
		var after *stockade.Seat
		for pages := 0; ; pages++ {
			if pages > len(seats) {
				t.Fatalf("paging did not end")
			}
			var page []stockade.Seat
			view(t, s, func(tx stockade.Tx) error {
				var err error
				page, err = tx.SeatList(ctx, "show", stockade.SeatFilter{After: after, Limit: 5})
				return err
			})
			if len(page) == 0 {
				break
			}
			got = append(got, page...)
			after = &page[len(page)-1]
		}
		checkSeats(t, "seats read a page of 5 at a time", got, seats)
	})
	t.Run("events apart", func(t *testing.T) {
		checkSeats(t, "Seats of the other event", getSeats(t, s, "show-2"), other)
		checkSeats(t, "Seats of an unknown event", getSeats(t, s, "no-such-event"), nil)
	})
}

func testPutSeatsReplaces(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seats := seedShow(t, s, show("show"))
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.SeatPut(ctx, "show", nil); err != nil {
			return fmt.Errorf("SeatPut(none): %w", err)
		}
		return nil
	})
	checkSeats(t, "after SeatPut(none)", getSeats(t, s, "show"), seats)

	// Every field replaced, the seat moved to another row; a new seat.
	seats[0] = stockade.Seat{ID: seats[0].ID, Section: "stalls", Row: "a", Label: "1A", Order: 7, Category: "C",
		Position: stockade.SeatPoint{X: 123.456, Y: -0.001}, Status: stockade.SeatBooked, HoldID: "h-1", BookingID: "b-1"}
	seats[3].Accessible, seats[3].Category, seats[3].Status, seats[3].HoldID = true, "", stockade.SeatHeld, "h-2"
	added := stockade.Seat{ID: "stalls/B/99", Section: "stalls", Row: "B", Label: "99", Order: 99, Category: "A",
		Position: stockade.SeatPoint{X: 1e6, Y: -1e6}, Status: stockade.SeatBlocked}
	update(t, s, func(tx stockade.Tx) error {
		return tx.SeatPut(ctx, "show", []stockade.Seat{added, seats[3], seats[0]})
	})
	want := append(slices.Clone(seats), added)
	slices.SortFunc(want, compareSeats)
	checkSeats(t, "after SeatPut replaced two seats and added one", getSeats(t, s, "show"), want)

	// Replaced back: a held seat becomes free, its hold and booking gone.
	fresh := showSeats(showRows)
	update(t, s, func(tx stockade.Tx) error { return tx.SeatPut(ctx, "show", fresh) })
	want = append(slices.Clone(fresh), added)
	slices.SortFunc(want, compareSeats)
	checkSeats(t, "after SeatPut of the fixture again", getSeats(t, s, "show"), want)

	err := s.Update(ctx, func(tx stockade.Tx) error { return tx.SeatPut(ctx, "no-such-event", fresh[:1]) })
	wantCode(t, "SeatPut of an unknown event", err, stockade.ENotFound)
	checkSeats(t, "Seats of an unknown event after SeatPut failed", getSeats(t, s, "no-such-event"), nil)
}

func testDeleteSeats(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seats := seedShow(t, s, show("show"))
	other := seedShow(t, s, show("show-2"))
	del := func(ids []string, want int) {
		t.Helper()
		update(t, s, func(tx stockade.Tx) error {
			n, err := tx.SeatDelete(ctx, "show", ids)
			if err != nil {
				return err
			}
			if n != want {
				t.Errorf("SeatDelete(%q) = %d, want %d", ids, n, want)
			}
			return nil
		})
	}
	del(nil, 0)
	del([]string{"stalls/a/1", "nope", "stalls/a/3", "STALLS/a/2"}, 2)
	del([]string{"stalls/a/1", "stalls/a/3"}, 0)
	want := slices.DeleteFunc(slices.Clone(seats), func(s stockade.Seat) bool { return s.ID == "stalls/a/1" || s.ID == "stalls/a/3" })
	checkSeats(t, "after SeatDelete", getSeats(t, s, "show"), want)
	checkSeats(t, "the other event's seats", getSeats(t, s, "show-2"), other)
	del(seatIDs(want), len(want))
	checkSeats(t, "after deleting every seat", getSeats(t, s, "show"), nil)
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.ShowGet(ctx, stockade.ByID{ID: "show"})
		return err
	})
}

func testMoveSeats(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seats := seedShow(t, s, show("show"))
	other := seedShow(t, s, show("show-2"))
	idx := func(id string) int {
		i := slices.IndexFunc(seats, func(s stockade.Seat) bool { return s.ID == id })
		if i < 0 {
			t.Fatalf("no seat %s in the fixture", id)
		}
		return i
	}
	set := func(id string, status stockade.SeatStatus, hold, booking string) {
		i := idx(id)
		seats[i].Status, seats[i].HoldID, seats[i].BookingID = status, hold, booking
	}
	set("stalls/A/11", stockade.SeatHeld, "h-1", "")
	set("stalls/A/12", stockade.SeatHeld, "h-2", "")
	set("stalls/A/13", stockade.SeatBooked, "h-1", "b-1")
	set("stalls/B/2", stockade.SeatBooked, "", "b-3")
	update(t, s, func(tx stockade.Tx) error { return tx.SeatPut(ctx, "show", seats) })
	checkSeats(t, "the seats before the moves", getSeats(t, s, "show"), seats)

	type move = stockade.SeatMove
	const (
		free, held, booked, blocked = stockade.SeatFree, stockade.SeatHeld, stockade.SeatBooked, stockade.SeatBlocked
	)
	steps := []struct {
		name  string
		moves []move
		want  []string // in seat order
		apply func()
	}{
		{"none", nil, nil, func() {}},
		{"the first moves", []move{
			{Seat: "stalls/B/1", From: free, To: held, Hold: "h-1"},
			{Seat: "stalls/A/9", From: free, To: held, Hold: "h-1", Booking: "ignored"},
			{Seat: "stalls/A/11", From: held, To: booked, Hold: "h-1", Booking: "b-2"},
			{Seat: "stalls/A/12", From: held, To: booked, Hold: "h-1", Booking: "b-2"}, // held by h-2
			{Seat: "stalls/A/13", From: booked, To: free, Booking: "b-2"},              // booked by b-1
			{Seat: "stalls/A/14", From: free, To: held, Hold: "h-1"},                   // blocked
			{Seat: "no-such-seat", From: free, To: held, Hold: "h-1"},
			{Seat: "Circle/A/1", From: free, To: blocked},
			{Seat: "stalls/A/10", From: held, To: free, Hold: "h-1"}, // free
			{Seat: "stalls/a/1", From: blocked, To: free},            // free
		}, []string{"Circle/A/1", "stalls/A/9", "stalls/A/11", "stalls/B/1"}, func() {
			set("stalls/B/1", held, "h-1", "")
			set("stalls/A/9", held, "h-1", "")
			set("stalls/A/11", booked, "h-1", "b-2")
			set("Circle/A/1", blocked, "", "")
		}},
		{"back", []move{
			{Seat: "stalls/A/13", From: booked, To: free, Hold: "h-9", Booking: "b-1"},
			{Seat: "stalls/A/12", From: held, To: free, Hold: "h-2"},
			{Seat: "stalls/A/11", From: booked, To: blocked, Booking: "b-2"},
			{Seat: "Circle/A/1", From: blocked, To: free},
			{Seat: "stalls/B/2", From: booked, To: held, Hold: "h-4", Booking: "b-3"},
			{Seat: "stalls/A/14", From: blocked, To: booked, Booking: "b-5"},
		}, []string{"Circle/A/1", "stalls/A/11", "stalls/A/12", "stalls/A/13", "stalls/A/14", "stalls/B/2"}, func() {
			set("stalls/A/13", free, "", "")
			set("stalls/A/12", free, "", "")
			set("stalls/A/11", blocked, "", "")
			set("Circle/A/1", free, "", "")
			set("stalls/B/2", held, "h-4", "")
			set("stalls/A/14", booked, "", "b-5")
		}},
		{"the same moves again move nothing", []move{
			{Seat: "stalls/A/13", From: booked, To: free, Booking: "b-1"},
			{Seat: "stalls/A/12", From: held, To: free, Hold: "h-2"},
			{Seat: "stalls/B/1", From: free, To: held, Hold: "h-1"},
		}, nil, func() {}},
		{"a hold's seats in another case", []move{
			{Seat: "stalls/B/1", From: held, To: free, Hold: "H-1"},
			{Seat: "STALLS/B/1", From: held, To: free, Hold: "h-1"},
		}, nil, func() {}},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			got, err := tx.SeatMoveMany(ctx, "show", st.moves)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if !equalSlices(got, st.want) {
				t.Errorf("%s: SeatMoveMany moved %q, want %q", st.name, got, st.want)
			}
			return nil
		})
		st.apply()
		checkSeats(t, "after "+st.name, getSeats(t, s, "show"), seats)
	}
	checkSeats(t, "the other event's seats", getSeats(t, s, "show-2"), other)
}

// testSeatEpoch checks that a show's seat epoch grows in each
// transaction that frees some of its seats, and with each bump, and in
// nothing else: not when seats are taken, nor when a move frees none;
// and that each change records what it freed and took, in epoch order,
// the last SeatEpochKept of them at least.
func testSeatEpoch(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seedShow(t, s, show("show"))
	seedShow(t, s, show("show-2"))
	epoch := func(event string) int64 {
		t.Helper()
		return seatEpoch(t, s, event).Epoch
	}
	move := func(ms ...stockade.SeatMove) {
		t.Helper()
		update(t, s, func(tx stockade.Tx) error {
			_, err := tx.SeatMoveMany(ctx, "show", ms)
			return err
		})
	}
	const free, held, booked = stockade.SeatFree, stockade.SeatHeld, stockade.SeatBooked
	if e := epoch("show"); e != 0 {
		t.Fatalf("a new event's epoch = %d, want 0", e)
	}
	view(t, s, func(tx stockade.Tx) error {
		if e, err := tx.SeatEpochGet(ctx, "no-such-show"); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("an unknown show's epoch = %+v, %v; want %s", e, err, stockade.ENotFound)
		}
		return nil
	})
	steps := []struct {
		after string
		moves []stockade.SeatMove
		want  int64
	}{
		{"taking seats", []stockade.SeatMove{{Seat: "stalls/A/9", From: free, To: held, Hold: "h-1"},
			{Seat: "stalls/A/10", From: free, To: held, Hold: "h-1"}}, 0},
		{"booking a seat", []stockade.SeatMove{{Seat: "stalls/A/9", From: held, To: booked, Hold: "h-1", Booking: "b-1"}}, 0},
		{"a move that freed nothing (not its hold)", []stockade.SeatMove{{Seat: "stalls/A/10", From: held, To: free, Hold: "h-2"}}, 0},
		{"a transaction freed two seats", []stockade.SeatMove{{Seat: "stalls/A/10", From: held, To: free, Hold: "h-1"},
			{Seat: "stalls/A/9", From: booked, To: free, Booking: "b-1"}}, 1},
	}
	for _, st := range steps {
		move(st.moves...)
		if e := epoch("show"); e != st.want {
			t.Errorf("after %s the epoch = %d, want %d", st.after, e, st.want)
		}
	}
	update(t, s, func(tx stockade.Tx) error {
		for _, b := range []struct {
			want  int64
			taken []string
		}{{2, []string{"stalls/A/2", "stalls/A/1"}}, {3, nil}} {
			if e, err := tx.SeatEpochBump(ctx, "show", b.taken); err != nil || e != b.want {
				return fmt.Errorf("SeatEpoch(bump) = %d, %v; want %d", e, err, b.want)
			}
		}
		if e, err := tx.SeatEpochGet(ctx, "show"); err != nil || e.Epoch != 3 {
			return fmt.Errorf("SeatEpoch after two bumps = %d, %v; want 3", e.Epoch, err)
		}
		return nil
	})
	if e := epoch("show"); e != 3 {
		t.Errorf("after the bumps committed the epoch = %d, want 3", e)
	}
	if e := epoch("show-2"); e != 0 {
		t.Errorf("the other event's epoch = %d, want 0", e)
	}
	// A move that frees one seat and takes another records both.
	move(stockade.SeatMove{Seat: "stalls/A/10", From: free, To: held, Hold: "h-3"},
		stockade.SeatMove{Seat: "stalls/A/1", From: free, To: held, Hold: "h-3"})
	move(stockade.SeatMove{Seat: "stalls/A/10", From: held, To: free, Hold: "h-3"},
		stockade.SeatMove{Seat: "stalls/A/9", From: free, To: booked, Booking: "b-2"})
	want := []stockade.SeatEpochChange{
		{Epoch: 1, Freed: []string{"stalls/A/10", "stalls/A/9"}},
		{Epoch: 2, Taken: []string{"stalls/A/1", "stalls/A/2"}},
		{Epoch: 3},
		{Epoch: 4, Freed: []string{"stalls/A/10"}, Taken: []string{"stalls/A/9"}},
	}
	changes := func(show string, after int64) []stockade.SeatEpochChange {
		t.Helper()
		var cs []stockade.SeatEpochChange
		view(t, s, func(tx stockade.Tx) (err error) {
			cs, err = tx.SeatEpochChanges(ctx, show, after)
			return err
		})
		for i := range cs {
			slices.Sort(cs[i].Freed)
			slices.Sort(cs[i].Taken)
			if len(cs[i].Freed) == 0 {
				cs[i].Freed = nil
			}
			if len(cs[i].Taken) == 0 {
				cs[i].Taken = nil
			}
		}
		return cs
	}
	if got := changes("show", 0); !reflect.DeepEqual(got, want) {
		t.Errorf("SeatEpochChanges after 0 = %+v, want %+v", got, want)
	}
	if got := changes("show", 2); !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("SeatEpochChanges after 2 = %+v, want %+v", got, want[2:])
	}
	if got := changes("show-2", 0); len(got) != 0 {
		t.Errorf("the other event's changes = %+v, want none", got)
	}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if _, err := tx.SeatEpochBump(ctx, "show-2", []string{"stalls/A/1"}); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	if err == nil {
		t.Fatal("Update that returned an error succeeded")
	}
	if e := epoch("show-2"); e != 0 {
		t.Errorf("after a bump rolled back the epoch = %d, want 0", e)
	}
	if got := changes("show-2", 0); len(got) != 0 {
		t.Errorf("after a bump rolled back the changes = %+v, want none", got)
	}

	// The store forgets what is older than its last SeatEpochKept
	// changes, and keeps those whole.
	const bumps = stockade.SeatEpochKept + 5
	update(t, s, func(tx stockade.Tx) error {
		for range bumps {
			if _, err := tx.SeatEpochBump(ctx, "show-2", []string{"stalls/A/1"}); err != nil {
				return err
			}
		}
		return nil
	})
	kept := changes("show-2", 0)
	if len(kept) < stockade.SeatEpochKept || len(kept) == bumps || kept[len(kept)-1].Epoch != bumps {
		t.Fatalf("after %d bumps the store keeps %d changes, up to %+v; want from %d to %d up to %d",
			bumps, len(kept), kept[len(kept)-1], stockade.SeatEpochKept, bumps-1, bumps)
	}
	for i, c := range kept {
		if want := bumps - int64(len(kept)) + 1 + int64(i); c.Epoch != want || !slices.Equal(c.Taken, []string{"stalls/A/1"}) {
			t.Fatalf("kept change %d = %+v, want epoch %d taking stalls/A/1", i, c, want)
		}
	}
}

func testSeatCounts(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seats := seedShow(t, s, show("show"))
	seedShow(t, s, show("show-2"))
	for i := range seats {
		switch i % 3 {
		case 1:
			seats[i].Status, seats[i].HoldID = stockade.SeatHeld, "h-1"
		case 2:
			if seats[i].Status == stockade.SeatFree {
				seats[i].Status, seats[i].BookingID = stockade.SeatBooked, "b-1"
			}
		}
	}
	update(t, s, func(tx stockade.Tx) error { return tx.SeatPut(ctx, "show", seats) })
	counts := map[stockade.SeatCount]int64{}
	for _, s := range seats {
		counts[stockade.SeatCount{Section: s.Section, Category: s.Category, Status: s.Status}]++
	}
	var want []stockade.SeatCount
	for c, n := range counts {
		c.Count = n
		want = append(want, c)
	}
	slices.SortFunc(want, func(a, b stockade.SeatCount) int {
		return cmp.Or(strings.Compare(a.Section, b.Section), strings.Compare(a.Category, b.Category),
			strings.Compare(string(a.Status), string(b.Status)))
	})
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.SeatCounts(ctx, "show")
		if err != nil {
			return err
		}
		if !equalSlices(got, want) {
			t.Errorf("SeatCounts() = %+v\nwant %+v", got, want)
		}
		none, err := tx.SeatCounts(ctx, "no-such-event")
		if err != nil || len(none) != 0 {
			t.Errorf("SeatCounts(unknown event) = %+v, %v; want none", none, err)
		}
		return nil
	})
}

func testPutAreas(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	e := show("show")
	e.Areas = append(slices.Clone(showAreas), stockade.Area{Name: "Balcony", Capacity: 5})
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ShowPut(ctx, e); err != nil {
			return err
		}
		if err := tx.AreaPut(ctx, e.ID, nil); err != nil {
			return fmt.Errorf("AreaPut(none): %w", err)
		}
		return tx.AreaPut(ctx, e.ID, showAreas)
	})
	update(t, s, func(tx stockade.Tx) error {
		if _, ok, err := tx.AreaMovePlaces(ctx, e.ID, "pit", 10, 20); err != nil || !ok {
			return fmt.Errorf("AreaMovePlaces(pit, 10, 20) = %v, %v", ok, err)
		}
		return nil
	})
	areas := func() []stockade.Area {
		t.Helper()
		return getShow(t, s, e.ID).Areas
	}

	// Updated: category and capacity, the counts kept; created.
	update(t, s, func(tx stockade.Tx) error {
		return tx.AreaPut(ctx, e.ID, []stockade.Area{{Name: "pit", Category: "VIP", Capacity: 40, Held: 99, Booked: 99}, {Name: "Balcony", Capacity: 5}})
	})
	want := []stockade.Area{{Name: "pit", Category: "VIP", Capacity: 40, Held: 10, Booked: 20}, {Name: "Lawn", Capacity: 50},
		{Name: "Balcony", Capacity: 5}}
	if got := areas(); !equalSlices(got, want) {
		t.Errorf("areas after AreaPut = %+v, want %+v", got, want)
	}

	// A capacity below what is taken: refused, and nothing changes, the
	// area given before it included.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		return tx.AreaPut(ctx, e.ID, []stockade.Area{{Name: "Lawn", Capacity: 60}, {Name: "pit", Capacity: 29}})
	})
	wantCode(t, "AreaPut with a capacity below held and booked", err, stockade.EInvalidState)
	if got := areas(); !equalSlices(got, want) {
		t.Errorf("areas after a refused AreaPut = %+v, want %+v", got, want)
	}
	// Refused within an Update, it fails no statement that matters: the
	// transaction goes on, the area unchanged in it.
	update(t, s, func(tx stockade.Tx) error {
		err := tx.AreaPut(ctx, e.ID, []stockade.Area{{Name: "Lawn", Capacity: 60}, {Name: "pit", Capacity: 29}})
		wantCode(t, "AreaPut with a capacity below held and booked, in an Update that goes on", err, stockade.EInvalidState)
		a, ok, err := tx.AreaMovePlaces(ctx, e.ID, "pit", 0, 0)
		if err != nil {
			return fmt.Errorf("AreaMovePlaces after a refused AreaPut: %w", err)
		}
		if !ok || a != want[0] {
			t.Errorf("AreaMovePlaces(pit, 0, 0) after a refused AreaPut = %+v, %v; want %+v, true", a, ok, want[0])
		}
		return nil
	})
	if got := areas(); !equalSlices(got, want) {
		t.Errorf("areas after an Update with a refused AreaPut committed = %+v, want %+v", got, want)
	}

	// Exactly what is taken is a capacity.
	update(t, s, func(tx stockade.Tx) error {
		return tx.AreaPut(ctx, e.ID, []stockade.Area{{Name: "pit", Category: "VIP", Capacity: 30}})
	})
	want[0].Capacity = 30
	if got := areas(); !equalSlices(got, want) {
		t.Errorf("areas after AreaPut to exactly held + booked = %+v, want %+v", got, want)
	}

	err = s.Update(ctx, func(tx stockade.Tx) error {
		return tx.AreaPut(ctx, e.ID, []stockade.Area{{Name: "Lawn", Capacity: -1}})
	})
	wantCode(t, "AreaPut with a negative capacity", err, stockade.EInvalid)
	err = s.Update(ctx, func(tx stockade.Tx) error { return tx.AreaPut(ctx, "no-such-event", showAreas) })
	wantCode(t, "AreaPut of an unknown event", err, stockade.ENotFound)
	if got := areas(); !equalSlices(got, want) {
		t.Errorf("areas after the refused AreaPut = %+v, want %+v", got, want)
	}

	// AreaDelete deletes only areas with nothing taken: pit keeps its
	// places; a missing name counts for nothing.
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.AreaDelete(ctx, e.ID, nil); err != nil || n != 0 {
			return fmt.Errorf("AreaDelete(none) = %d, %v", n, err)
		}
		n, err := tx.AreaDelete(ctx, e.ID, []string{"pit", "Balcony", "nope"})
		if err != nil {
			return err
		}
		if n != 1 {
			t.Errorf("AreaDelete(pit, Balcony, nope) = %d, want 1", n)
		}
		return nil
	})
	update(t, s, func(tx stockade.Tx) error {
		a, ok, err := tx.AreaMovePlaces(ctx, e.ID, "Balcony", 1, 0)
		if err != nil || ok || a.Name != "" {
			t.Errorf("AreaMovePlaces(Balcony) after AreaDelete = %+v, %v, %v; want no area", a, ok, err)
		}
		if a, ok, err = tx.AreaMovePlaces(ctx, e.ID, "pit", 0, 0); err != nil || !ok || a != want[0] {
			t.Errorf("AreaMovePlaces(pit, 0, 0) after AreaDelete = %+v, %v, %v; want %+v", a, ok, err, want[0])
		}
		return err
	})
}

func testMovePlaces(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	e := show("show")
	e.Areas = []stockade.Area{{Name: "pit", Category: "GA", Capacity: 10}, {Name: "Lawn", Capacity: 50}}
	seedShow(t, s, e)
	seedShow(t, s, show("show-2"))
	pit := func(held, booked int64) stockade.Area {
		return stockade.Area{Name: "pit", Category: "GA", Capacity: 10, Held: held, Booked: booked}
	}
	steps := []struct {
		name         string
		event, area  string
		held, booked int64
		want         stockade.Area
		ok           bool
	}{
		{"hold", "show", "pit", 3, 0, pit(3, 0), true},
		{"book", "show", "pit", 0, 4, pit(3, 4), true},
		{"over capacity", "show", "pit", 4, 0, pit(3, 4), false},
		{"over capacity by booking", "show", "pit", 0, 4, pit(3, 4), false},
		{"up to capacity", "show", "pit", 3, 0, pit(6, 4), true},
		{"full", "show", "pit", 1, 0, pit(6, 4), false},
		{"nothing", "show", "pit", 0, 0, pit(6, 4), true},
		{"confirm", "show", "pit", -3, 3, pit(3, 7), true},
		{"held below zero", "show", "pit", -4, 0, pit(3, 7), false},
		{"booked below zero", "show", "pit", 0, -8, pit(3, 7), false},
		{"held below zero while booked frees room", "show", "pit", -4, -1, pit(3, 7), false},
		{"booked below zero while held fits", "show", "pit", 1, -8, pit(3, 7), false},
		{"release and cancel", "show", "pit", -3, -7, pit(0, 0), true},
		{"unknown area", "show", "Pit", 1, 0, stockade.Area{}, false},
		{"unknown event", "no-such-event", "pit", 1, 0, stockade.Area{}, false},
		{"the other event's area", "show-2", "pit", 0, 2,
			stockade.Area{Name: "pit", Category: "GA", Capacity: 100, Booked: 2}, true},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			got, ok, err := tx.AreaMovePlaces(ctx, st.event, st.area, st.held, st.booked)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if got != st.want || ok != st.ok {
				t.Errorf("%s: AreaMovePlaces(%s, %s, %d, %d) = %+v, %v; want %+v, %v",
					st.name, st.event, st.area, st.held, st.booked, got, ok, st.want, st.ok)
			}
			return nil
		})
	}
	want := []stockade.Area{pit(0, 0), {Name: "Lawn", Capacity: 50}}
	if got := getShow(t, s, "show").Areas; !equalSlices(got, want) {
		t.Errorf("areas after the moves = %+v, want %+v", got, want)
	}
}

// seatChange returns a history row of a seat's move.
func seatChange(showID, seat string, from, to stockade.SeatStatus, at time.Time) stockade.SeatChange {
	return stockade.SeatChange{At: at, ShowID: showID, Seat: seat, Quantity: 1, From: from, To: to}
}

// checkSeatChanges fails the test unless got is want, with ids assigned.
func checkSeatChanges(t *testing.T, what string, got, want []stockade.SeatChange) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range got {
		checkMicros(t, fmt.Sprintf("%s [%d] At", what, i), got[i].At, want[i].At)
		g, w := got[i], want[i]
		g.At, w.At = time.Time{}, time.Time{}
		if w.ID == 0 {
			g.ID = 0
		}
		if g != w {
			t.Errorf("%s: [%d] = %+v, want %+v", what, i, g, w)
		}
	}
}

func testSeatChanges(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seedShow(t, s, show("show"))
	seedShow(t, s, show("show-2"))
	free, held, booked := stockade.SeatFree, stockade.SeatHeld, stockade.SeatBooked
	first := []stockade.SeatChange{
		seatChange("show", "stalls/A/9", free, held, base),
		seatChange("show", "stalls/A/10", free, held, base),
		{At: base, ShowID: "show", Area: "pit", Quantity: 4, From: free, To: held, HoldID: "h-1", Actor: "key_shop"},
		seatChange("show-2", "stalls/A/9", free, held, base),
	}
	first[0].HoldID, first[1].HoldID, first[3].HoldID = "h-1", "h-1", "h-2"
	first[0].Actor, first[1].ID = "key_shop", 12345 // an id to ignore
	second := []stockade.SeatChange{
		seatChange("show", "stalls/A/9", held, booked, base.Add(time.Minute)),
		{At: base.Add(time.Minute), ShowID: "show", Area: "pit", Quantity: 3, From: held, To: booked, HoldID: "h-1", BookingID: "b-1"},
		{At: base.Add(time.Minute), ShowID: "show", Area: "pit", Quantity: 1, From: held, To: free, HoldID: "h-1"},
	}
	second[0].HoldID, second[0].BookingID = "h-1", "b-1"
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.SeatChangeAppend(ctx); err != nil {
			return fmt.Errorf("SeatChangeAppend(none): %w", err)
		}
		return tx.SeatChangeAppend(ctx, first...)
	})
	update(t, s, func(tx stockade.Tx) error { return tx.SeatChangeAppend(ctx, second...) })

	var all []stockade.SeatChange
	view(t, s, func(tx stockade.Tx) error {
		var err error
		all, err = tx.SeatChangeList(ctx, "show", stockade.SeatChangeFilter{})
		return err
	})
	wantAll := append(slices.Clone(first[:3]), second...)
	wantAll[1].ID = 0
	checkSeatChanges(t, "SeatChangeList(show)", all, wantAll)
	if t.Failed() {
		return
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID <= all[i-1].ID {
			t.Errorf("history ids %d then %d: want them increasing in the order appended", all[i-1].ID, all[i].ID)
		}
	}
	// Now with the ids the store gave them.
	want := func(is ...int) []stockade.SeatChange {
		var cs []stockade.SeatChange
		for _, i := range is {
			cs = append(cs, all[i])
		}
		return cs
	}
	tests := []struct {
		name   string
		event  string
		filter stockade.SeatChangeFilter
		want   []stockade.SeatChange
	}{
		{"a seat", "show", stockade.SeatChangeFilter{Seat: "stalls/A/9"}, want(0, 3)},
		{"a seat in another case", "show", stockade.SeatChangeFilter{Seat: "STALLS/A/9"}, nil},
		{"an area", "show", stockade.SeatChangeFilter{Area: "pit"}, want(2, 4, 5)},
		{"after an id", "show", stockade.SeatChangeFilter{AfterID: all[2].ID}, want(3, 4, 5)},
		{"limit", "show", stockade.SeatChangeFilter{Limit: 2}, want(0, 1)},
		{"area, after, limit", "show", stockade.SeatChangeFilter{Area: "pit", AfterID: all[2].ID, Limit: 1}, want(4)},
		{"after the last", "show", stockade.SeatChangeFilter{AfterID: all[5].ID}, nil},
		{"the other event", "show-2", stockade.SeatChangeFilter{}, []stockade.SeatChange{first[3]}},
		{"an unknown event", "no-such-event", stockade.SeatChangeFilter{}, nil},
	}
	for _, tc := range tests {
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.SeatChangeList(ctx, tc.event, tc.filter)
			if err != nil {
				return fmt.Errorf("%s: %w", tc.name, err)
			}
			checkSeatChanges(t, tc.name, got, tc.want)
			return nil
		})
	}
}

// hold returns a held hold of a show.
func hold(id, showID string, expires time.Time, seats ...string) stockade.Hold {
	return stockade.Hold{ID: id, ShowID: showID, Status: stockade.HoldHeld, Seats: seats,
		CreatedAt: expires.Add(-15 * time.Minute), ExpiresAt: expires, Version: 1}
}

// seatEpoch reads a show's SeatEpochGet in a View, failing the test on an
// error.
func seatEpoch(t *testing.T, s stockade.Store, showID string) stockade.SeatEpoch {
	t.Helper()
	var e stockade.SeatEpoch
	view(t, s, func(tx stockade.Tx) (err error) {
		e, err = tx.SeatEpochGet(t.Context(), showID)
		return err
	})
	return e
}

// testSeatEpochHeld checks what SeatEpochGet reads beside the epoch: the
// show's version; the earliest expiry of the show's held holds alone,
// which follows the holds as they are inserted and leave held; and
// whether a room holds the show, not another.
func testSeatEpochHeld(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	e := show("show")
	e.Version = 7
	seedShow(t, s, e)
	seedShow(t, s, show("show-2"))
	check := func(when string, want time.Time) {
		t.Helper()
		got := seatEpoch(t, s, "show")
		if got.Version != 7 {
			t.Errorf("%s: Version = %d, want 7", when, got.Version)
		}
		if want.IsZero() || got.HeldUntil.IsZero() {
			if !got.HeldUntil.Equal(want) {
				t.Errorf("%s: HeldUntil = %v, want %v", when, got.HeldUntil, want)
			}
		} else {
			checkMicros(t, when+": HeldUntil", got.HeldUntil, want)
		}
	}
	check("with no hold", time.Time{})
	soon, later := base.Add(time.Minute), base.Add(time.Hour)
	confirmed := hold("h-confirmed", "show", base)
	confirmed.Status = stockade.HoldConfirmed
	update(t, s, func(tx stockade.Tx) error {
		return tx.HoldInsert(ctx, confirmed, hold("h-later", "show", later, "stalls/A/1"),
			hold("h-soon", "show", soon, "stalls/A/2"), hold("h-other", "show-2", base, "stalls/A/1"))
	})
	check("with two held holds, a confirmed one and another show's", soon)
	update(t, s, func(tx stockade.Tx) error {
		_, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldExpired, stockade.HoldMove{Hold: "h-soon"})
		return err
	})
	check("once the earlier left held", later)
	update(t, s, func(tx stockade.Tx) error {
		_, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldReleased, stockade.HoldMove{Hold: "h-later"})
		return err
	})
	check("once none is held", time.Time{})

	gated := func(id string) bool {
		t.Helper()
		return seatEpoch(t, s, id).Gated
	}
	if gated("show") {
		t.Error("Gated before any room, want false")
	}
	insertRooms(t, s, newRoom("room-1", stockade.RoomQueueing, "show-2"), newRoom("room-2", stockade.RoomClosed, "show"))
	if gated("show") || !gated("show-2") {
		t.Errorf("with a queueing room in front of show-2 and a closed one in front of show: Gated %v and %v, want false and true",
			gated("show"), gated("show-2"))
	}
}

// checkHold fails the test unless got is want as a store returns it.
func checkHold(t *testing.T, got, want stockade.Hold) {
	t.Helper()
	checkMicros(t, "hold "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkMicros(t, "hold "+want.ID+" ExpiresAt", got.ExpiresAt, want.ExpiresAt)
	if got.ID != want.ID || got.ShowID != want.ShowID || got.Status != want.Status || got.Split != want.Split ||
		got.BookingID != want.BookingID || got.Owner != want.Owner || got.Version != want.Version ||
		!equalSlices(got.Seats, want.Seats) || !equalSlices(got.Places, want.Places) {
		t.Errorf("hold = %+v, want %+v", got, want)
	}
}

func testHolds(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seedShow(t, s, show("show"))
	h1 := hold("h-1", "show", base, "Circle/A/1", "stalls/A/9", "stalls/A/10")
	h1.Places = []stockade.Places{{Area: "pit", Quantity: 2}, {Area: "Lawn", Quantity: 1}}
	h1.Split, h1.Owner, h1.Version = true, "key_Shop1", 5
	h2 := hold("h-2", "show", base.Add(time.Hour))
	h2.Places = []stockade.Places{{Area: "pit", Quantity: 100}}
	h3 := hold("H-3", "show", base.Add(2*time.Hour), "stalls/B/1")
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.HoldInsert(ctx); err != nil {
			return fmt.Errorf("HoldInsert(none): %w", err)
		}
		if err := tx.HoldInsert(ctx, h1); err != nil {
			return err
		}
		return tx.HoldInsert(ctx, h2, h3)
	})
	check := func(want stockade.Hold, lock bool) {
		t.Helper()
		btxFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.HoldGet(ctx, stockade.ByID{ID: want.ID, Lock: lock})
			if err != nil {
				return fmt.Errorf("Hold(%s, lock %v): %w", want.ID, lock, err)
			}
			checkHold(t, got, want)
			return nil
		})
	}
	for _, h := range []stockade.Hold{h1, h2, h3} {
		check(h, false)
		check(h, true)
	}
	for _, lock := range []bool{false, true} {
		btxFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.HoldGetMany(ctx, stockade.ByIDs{IDs: []string{"h-2", "no-such-hold", "h-1", "H-3"}, Lock: lock})
			if err != nil {
				return fmt.Errorf("Holds(lock %v): %w", lock, err)
			}
			if len(got) != 3 {
				t.Fatalf("Holds(h-2, no-such-hold, h-1, H-3) = %d holds, want 3 (H-3, h-1, h-2)", len(got))
			}
			for i, want := range []stockade.Hold{h3, h1, h2} { // in id order: "H" sorts before "h"
				checkHold(t, got[i], want)
			}
			if none, err := tx.HoldGetMany(ctx, stockade.ByIDs{IDs: nil, Lock: lock}); err != nil || len(none) != 0 {
				t.Errorf("Holds(none) = %v, %v; want none", none, err)
			}
			return nil
		})
	}
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.HoldGet(ctx, stockade.ByID{ID: "no-such-hold"})
		wantCode(t, "Hold(unknown id)", err, stockade.ENotFound)
		_, err = tx.HoldGet(ctx, stockade.ByID{ID: "h-3"})
		wantCode(t, "Hold(id in another case)", err, stockade.ENotFound)
		return nil
	})

	dup := h1
	dup.Status = stockade.HoldReleased
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.HoldInsert(ctx, dup) }); err == nil {
		t.Errorf("HoldInsert with an id in use succeeded")
	}
	check(h1, false)
	h4 := hold("h-4", "show", base)
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.HoldInsert(ctx, h4, h4) }); err == nil {
		t.Errorf("HoldInsert with one id twice succeeded")
	}
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.HoldGet(ctx, stockade.ByID{ID: h4.ID})
		wantCode(t, "Hold(h-4) after a failed insert", err, stockade.ENotFound)
		return nil
	})

	steps := []struct {
		name      string
		id        string
		from, to  stockade.HoldStatus
		bookingID string
		ok        bool
	}{
		{"confirm", h1.ID, stockade.HoldHeld, stockade.HoldConfirmed, "b-1", true},
		{"from the wrong status", h1.ID, stockade.HoldHeld, stockade.HoldReleased, "", false},
		{"unknown id", "no-such-hold", stockade.HoldHeld, stockade.HoldReleased, "", false},
		{"release, no booking id", h2.ID, stockade.HoldHeld, stockade.HoldReleased, "", true},
		{"released stays released", h2.ID, stockade.HoldHeld, stockade.HoldExpired, "", false},
		{"no booking id keeps the one set", h1.ID, stockade.HoldConfirmed, stockade.HoldConfirmed, "", true},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			n, err := tx.HoldSetStatus(ctx, st.from, st.to, stockade.HoldMove{Hold: st.id, Booking: st.bookingID})
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok := n == 1; ok != st.ok {
				t.Errorf("%s: HoldSetStatus(%s → %s, %s) moved %d, want ok %v", st.name, st.from, st.to, st.id, n, st.ok)
			}
			return nil
		})
	}
	// Each status change that applied counts in the version.
	h1.Status, h1.BookingID, h1.Version = stockade.HoldConfirmed, "b-1", h1.Version+2
	h2.Status, h2.Version = stockade.HoldReleased, h2.Version+1

	extends := []struct {
		name    string
		id      string
		expires time.Time
		ok      bool
	}{
		{"held", h3.ID, base.Add(3 * time.Hour), true},
		{"held, earlier", h3.ID, base.Add(90 * time.Minute), true},
		{"confirmed", h1.ID, base.Add(3 * time.Hour), false},
		{"released", h2.ID, base.Add(3 * time.Hour), false},
		{"unknown id", "no-such-hold", base.Add(3 * time.Hour), false},
	}
	for _, x := range extends {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.HoldExtend(ctx, x.id, x.expires)
			if err != nil {
				return fmt.Errorf("%s: %w", x.name, err)
			}
			if ok != x.ok {
				t.Errorf("%s: ExtendHold(%s) = %v, want %v", x.name, x.id, ok, x.ok)
			}
			return nil
		})
	}
	h3.ExpiresAt, h3.Version = base.Add(90*time.Minute), h3.Version+2 // and each extension
	for _, h := range []stockade.Hold{h1, h2, h3} {
		check(h, false)
	}

	// Many holds in one call: those in the from status move, each with
	// its own booking id; the others are left as they are.
	h5, h6 := hold("h-5", "show", base), hold("h-6", "show", base)
	update(t, s, func(tx stockade.Tx) error { return tx.HoldInsert(ctx, h5, h6) })
	update(t, s, func(tx stockade.Tx) error {
		n, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldConfirmed,
			stockade.HoldMove{Hold: h6.ID, Booking: "b-6"}, stockade.HoldMove{Hold: h2.ID, Booking: "b-2"},
			stockade.HoldMove{Hold: h5.ID, Booking: "b-5"}, stockade.HoldMove{Hold: "no-such-hold", Booking: "b-7"})
		if err == nil && n != 2 {
			t.Errorf("HoldSetStatus(h-6, h-2 (released), h-5, unknown) moved %d, want 2", n)
		}
		return err
	})
	h5.Status, h5.BookingID, h5.Version = stockade.HoldConfirmed, "b-5", h5.Version+1
	h6.Status, h6.BookingID, h6.Version = stockade.HoldConfirmed, "b-6", h6.Version+1
	for _, h := range []stockade.Hold{h2, h5, h6} {
		check(h, false)
	}
}

func testHoldLapseCandidates(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seedShow(t, s, show("E1"))
	seedShow(t, s, show("E2"))
	now := base
	hs := []stockade.Hold{
		hold("h-a", "E1", now.Add(-1*time.Hour), "stalls/A/9"),
		hold("h-b", "E2", now.Add(-3*time.Hour), "stalls/A/9", "stalls/A/10"),
		hold("h-c", "E1", now.Add(time.Hour), "stalls/A/10"), // not expired yet
		hold("h-d", "E1", now.Add(-4*time.Hour)),
		hold("h-e", "E2", now.Add(-4*time.Hour)),
		hold("h-f", "E1", now.Add(-2*time.Hour)),
		hold("h-g", "E1", now.Add(-5*time.Hour)),
		hold("h-h", "E1", now), // expires at now: not before it
		hold("h-i", "E2", now.Add(-time.Millisecond)),
		hold("h-j", "E1", now.Add(-6*time.Hour)), // released below
		hold("h-A", "E1", now.Add(-1*time.Hour)), // as h-a, and before it in byte order
	}
	hs[3].Status, hs[4].Status, hs[6].Status = stockade.HoldConfirmed, stockade.HoldReleased, stockade.HoldExpired
	hs[5].Places, hs[5].Owner = []stockade.Places{{Area: "pit", Quantity: 3}}, "key_shop1"
	update(t, s, func(tx stockade.Tx) error { return tx.HoldInsert(ctx, hs...) })
	update(t, s, func(tx stockade.Tx) error {
		n, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldReleased, stockade.HoldMove{Hold: "h-j"})
		if err == nil && n != 1 {
			err = errors.New("HoldSetStatus(h-j) found it not held")
		}
		return err
	})
	byID := map[string]stockade.Hold{}
	for _, h := range hs {
		byID[h.ID] = h
	}
	at := func(d time.Duration, id string) stockade.LapseCursor {
		return stockade.LapseCursor{ExpiresAt: now.Add(d), ID: id}
	}
	all := []string{"h-b", "h-f", "h-A", "h-a", "h-i"}
	tests := []struct {
		name   string
		before time.Time // now if zero
		showID string
		after  stockade.LapseCursor
		limit  int
		want   []string
	}{
		{name: "all, by expiry then id", limit: 10, want: all},
		{name: "no limit", want: all},
		{name: "limit", limit: 2, want: all[:2]},
		{name: "the bound is strict", before: now.Add(-2 * time.Hour), want: all[:1]},
		{name: "after a cursor", after: at(-2*time.Hour, "h-f"), want: all[2:]},
		{name: "after a cursor between ties", after: at(-time.Hour, "h-A"), limit: 10, want: all[3:]},
		{name: "after the last", after: at(-time.Millisecond, "h-i"), want: nil},
		{name: "an event", showID: "E1", limit: 10, want: []string{"h-f", "h-A", "h-a"}},
		{name: "an event, limit", showID: "E2", limit: 1, want: []string{"h-b"}},
		{name: "an event, after a cursor", showID: "E1", after: at(-time.Hour, "h-A"), want: []string{"h-a"}},
		{name: "an event in another case", showID: "e1", limit: 10, want: nil},
		{name: "an unknown event", showID: "no-such-event", limit: 10, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := stockade.HoldLapseQuery{ExpiredBefore: cmp.Or(tc.before, now), ShowID: tc.showID, After: tc.after, Limit: tc.limit}
			update(t, s, func(tx stockade.Tx) error {
				got, err := tx.HoldLapseCandidates(ctx, q)
				if err != nil {
					return err
				}
				var ids []string
				for _, c := range got {
					ids = append(ids, c.Hold.ID)
				}
				if !equalSlices(ids, tc.want) {
					t.Fatalf("HoldLapseCandidates(%+v) = %q, want %q", q, ids, tc.want)
				}
				for _, c := range got {
					checkHold(t, c.Hold, byID[c.Hold.ID])
					if c.Payment != "" {
						t.Errorf("candidate %s without a payment: payment %q, want none", c.Hold.ID, c.Payment)
					}
				}
				return nil
			})
		})
	}
}

// checkBooking fails the test unless got is want as a store returns it.
func checkBooking(t *testing.T, got, want stockade.Booking) {
	t.Helper()
	checkMicros(t, "booking "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	if got.ID != want.ID || got.ShowID != want.ShowID || got.HoldID != want.HoldID || got.Status != want.Status ||
		got.Owner != want.Owner || !equalSlices(got.Seats, want.Seats) || !equalSlices(got.Places, want.Places) {
		t.Errorf("booking = %+v, want %+v", got, want)
	}
}

func testBookings(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seedShow(t, s, show("show"))
	b1 := stockade.Booking{ID: "b-1", ShowID: "show", HoldID: "h-1", Status: stockade.BookingBooked,
		Seats: []string{"Circle/A/1", "stalls/A/9"}, Places: []stockade.Places{{Area: "Lawn", Quantity: 3}},
		CreatedAt: base, Owner: "key_Shop1"}
	b2 := stockade.Booking{ID: "B-2", ShowID: "show", Status: stockade.BookingBooked, CreatedAt: base.Add(time.Second)}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.BookingInsert(ctx); err != nil {
			return fmt.Errorf("BookingInsert(none): %w", err)
		}
		return tx.BookingInsert(ctx, b1, b2)
	})
	check := func(want stockade.Booking, lock bool) {
		t.Helper()
		btxFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.BookingGet(ctx, stockade.ByID{ID: want.ID, Lock: lock})
			if err != nil {
				return fmt.Errorf("Booking(%s, lock %v): %w", want.ID, lock, err)
			}
			checkBooking(t, got, want)
			return nil
		})
	}
	for _, b := range []stockade.Booking{b1, b2} {
		check(b, false)
		check(b, true)
	}
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.BookingGet(ctx, stockade.ByID{ID: "no-such-booking"})
		wantCode(t, "Booking(unknown id)", err, stockade.ENotFound)
		_, err = tx.BookingGet(ctx, stockade.ByID{ID: "b-2"})
		wantCode(t, "Booking(id in another case)", err, stockade.ENotFound)
		return nil
	})
	dup := b1
	dup.Status = stockade.BookingCancelled
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.BookingInsert(ctx, dup) }); err == nil {
		t.Errorf("BookingInsert with an id in use succeeded")
	}
	check(b1, false)

	steps := []struct {
		name     string
		id       string
		from, to stockade.BookingStatus
		ok       bool
	}{
		{"cancel", b1.ID, stockade.BookingBooked, stockade.BookingCancelled, true},
		{"cancel again", b1.ID, stockade.BookingBooked, stockade.BookingCancelled, false},
		{"unknown id", "no-such-booking", stockade.BookingBooked, stockade.BookingCancelled, false},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.BookingSetStatus(ctx, st.id, st.from, st.to)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok {
				t.Errorf("%s: BookingSetStatus(%s, %s → %s) = %v, want %v", st.name, st.id, st.from, st.to, ok, st.ok)
			}
			return nil
		})
	}
	b1.Status = stockade.BookingCancelled
	check(b1, false)
	check(b2, false)
}

// bookingState is everything of the booking tables that the rollback,
// read-only and invalid-status tests look at.
type bookingState struct {
	Events   []stockade.Show
	Seats    map[string][]stockade.Seat
	Changes  []stockade.SeatChange
	Holds    map[string]string // id → the hold's fields or the error code
	Bookings map[string]string // id → the booking's fields or the error code
	Epochs   map[string]int64  // event id → its seat epoch
}

// takeBookings reads the booking state of s in a View, with the holds and
// bookings of the writes fixtures.
func takeBookings(t *testing.T, s stockade.Store) bookingState {
	t.Helper()
	ctx := t.Context()
	st := bookingState{Seats: map[string][]stockade.Seat{}, Holds: map[string]string{}, Bookings: map[string]string{}, Epochs: map[string]int64{}}
	view(t, s, func(tx stockade.Tx) error {
		var err error
		if st.Events, err = tx.ShowList(ctx, "", 100); err != nil {
			return err
		}
		for _, e := range st.Events {
			if st.Seats[e.ID], err = tx.SeatList(ctx, e.ID, stockade.SeatFilter{}); err != nil {
				return err
			}
			cs, err := tx.SeatChangeList(ctx, e.ID, stockade.SeatChangeFilter{})
			if err != nil {
				return err
			}
			st.Changes = append(st.Changes, cs...)
			epoch, err := tx.SeatEpochGet(ctx, e.ID)
			if err != nil {
				return err
			}
			st.Epochs[e.ID] = epoch.Epoch
		}
		for _, id := range []string{"h-old", "h-new"} {
			h, err := tx.HoldGet(ctx, stockade.ByID{ID: id})
			st.Holds[id] = fmt.Sprintf("%+v", h) + stockade.ErrorCode(err)
		}
		for _, id := range []string{"b-old", "b-new"} {
			b, err := tx.BookingGet(ctx, stockade.ByID{ID: id})
			st.Bookings[id] = fmt.Sprintf("%+v", b) + stockade.ErrorCode(err)
		}
		return nil
	})
	return st
}

// bookingWrites are one of each kind of booking write, for the rollback
// and read-only tests. They expect the state that seedBookingWrites makes.
var bookingWrites = []struct {
	name string
	fn   func(ctx context.Context, tx stockade.Tx) error
}{
	{"PutEvent new", func(ctx context.Context, tx stockade.Tx) error { return tx.ShowPut(ctx, show("new")) }},
	{"PutEvent replace", func(ctx context.Context, tx stockade.Tx) error {
		e := show("old")
		e.Name, e.Version = "renamed", 2
		return tx.ShowPut(ctx, e)
	}},
	{"SeatPut", func(ctx context.Context, tx stockade.Tx) error {
		seat := showSeats(showRows)[0]
		seat.Status, seat.HoldID = stockade.SeatHeld, "h-x"
		return tx.SeatPut(ctx, "old", []stockade.Seat{seat})
	}},
	{"SeatDelete", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.SeatDelete(ctx, "old", []string{"stalls/B/4"})
		return err
	}},
	{"SeatMoveMany", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.SeatMoveMany(ctx, "old", []stockade.SeatMove{{Seat: "stalls/B/1", From: stockade.SeatFree, To: stockade.SeatHeld, Hold: "h-new"}})
		return err
	}},
	{"AreaPut", func(ctx context.Context, tx stockade.Tx) error {
		return tx.AreaPut(ctx, "old", []stockade.Area{{Name: "pit", Capacity: 7}, {Name: "new", Capacity: 1}})
	}},
	{"AreaMovePlaces", func(ctx context.Context, tx stockade.Tx) error {
		_, _, err := tx.AreaMovePlaces(ctx, "old", "Lawn", 2, 1)
		return err
	}},
	{"SeatChangeAppend", func(ctx context.Context, tx stockade.Tx) error {
		return tx.SeatChangeAppend(ctx, seatChange("old", "stalls/B/1", stockade.SeatFree, stockade.SeatHeld, base))
	}},
	{"HoldInsert", func(ctx context.Context, tx stockade.Tx) error {
		return tx.HoldInsert(ctx, hold("h-new", "old", base, "stalls/B/1"))
	}},
	{"SeatEpoch bump", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.SeatEpochBump(ctx, "old", nil)
		return err
	}},
	{"HoldSetStatus", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, stockade.HoldConfirmed, stockade.HoldMove{Hold: "h-old", Booking: "b-new"})
		return err
	}},
	{"ExtendHold", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.HoldExtend(ctx, "h-old", base.Add(time.Hour))
		return err
	}},
	{"BookingInsert", func(ctx context.Context, tx stockade.Tx) error {
		return tx.BookingInsert(ctx, stockade.Booking{ID: "b-new", ShowID: "old", HoldID: "h-old", Status: stockade.BookingBooked, CreatedAt: base})
	}},
	{"BookingSetStatus", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.BookingSetStatus(ctx, "b-old", stockade.BookingBooked, stockade.BookingCancelled)
		return err
	}},
}

// seedBookingWrites makes the state bookingWrites expect and returns it.
func seedBookingWrites(t *testing.T, s stockade.Store) bookingState {
	t.Helper()
	ctx := t.Context()
	seedShow(t, s, show("old"))
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.HoldInsert(ctx, hold("h-old", "old", base, "stalls/A/9")); err != nil {
			return err
		}
		if _, err := tx.SeatMoveMany(ctx, "old", []stockade.SeatMove{{Seat: "stalls/A/9", From: stockade.SeatFree, To: stockade.SeatHeld, Hold: "h-old"}}); err != nil {
			return err
		}
		if err := tx.SeatChangeAppend(ctx, seatChange("old", "stalls/A/9", stockade.SeatFree, stockade.SeatHeld, base)); err != nil {
			return err
		}
		return tx.BookingInsert(ctx, stockade.Booking{ID: "b-old", ShowID: "old", Status: stockade.BookingBooked, CreatedAt: base})
	})
	return takeBookings(t, s)
}

func testBookingUpdateRollsBack(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedBookingWrites(t, s)
	all := func(tx stockade.Tx) error {
		for _, w := range bookingWrites {
			if err := w.fn(ctx, tx); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
		}
		return nil
	}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := all(tx); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if after := takeBookings(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("Update whose fn failed left changes:\nbefore %+v\nafter  %+v", before, after)
	}
	// The same writes commit when fn returns nil.
	update(t, s, all)
	if after := takeBookings(t, s); reflect.DeepEqual(after, before) {
		t.Errorf("Update whose fn succeeded changed nothing")
	}
}

func testBookingViewIsReadOnly(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedBookingWrites(t, s)
	for _, w := range bookingWrites {
		err := s.View(ctx, func(tx stockade.Tx) error { return w.fn(ctx, tx) })
		if err == nil {
			t.Errorf("%s in View succeeded, want an error", w.name)
		}
	}
	if after := takeBookings(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("writes in View left changes:\nbefore %+v\nafter  %+v", before, after)
	}
}

// testInvalidBookingStatus checks that a status outside the domain's
// constants is refused with EInvalid, changing nothing.
func testInvalidBookingStatus(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedBookingWrites(t, s)
	seat := showSeats(showRows)[1]
	seat.Status = "lost"
	tests := []struct {
		name string
		fn   func(tx stockade.Tx) error
	}{
		{"SeatPut", func(tx stockade.Tx) error { return tx.SeatPut(ctx, "old", []stockade.Seat{seat}) }},
		{"SeatMoveMany", func(tx stockade.Tx) error {
			_, err := tx.SeatMoveMany(ctx, "old", []stockade.SeatMove{{Seat: "stalls/B/1", From: stockade.SeatFree, To: "lost"}})
			return err
		}},
		{"SeatChangeAppend from", func(tx stockade.Tx) error {
			return tx.SeatChangeAppend(ctx, seatChange("old", "stalls/B/1", "lost", stockade.SeatHeld, base))
		}},
		{"SeatChangeAppend to", func(tx stockade.Tx) error {
			return tx.SeatChangeAppend(ctx, seatChange("old", "stalls/B/1", stockade.SeatFree, "lost", base))
		}},
		{"HoldInsert", func(tx stockade.Tx) error {
			h := hold("h-new", "old", base)
			h.Status = "lost"
			return tx.HoldInsert(ctx, h)
		}},
		{"HoldSetStatus", func(tx stockade.Tx) error {
			_, err := tx.HoldSetStatus(ctx, stockade.HoldHeld, "lost", stockade.HoldMove{Hold: "h-old"})
			return err
		}},
		{"BookingInsert", func(tx stockade.Tx) error {
			return tx.BookingInsert(ctx, stockade.Booking{ID: "b-new", ShowID: "old", Status: "lost", CreatedAt: base})
		}},
		{"BookingSetStatus", func(tx stockade.Tx) error {
			_, err := tx.BookingSetStatus(ctx, "b-old", stockade.BookingBooked, "lost")
			return err
		}},
	}
	for _, tc := range tests {
		err := s.Update(ctx, tc.fn)
		wantCode(t, tc.name+" with an unknown status", err, stockade.EInvalid)
	}
	if after := takeBookings(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("refused writes left changes:\nbefore %+v\nafter  %+v", before, after)
	}
}

// testManySeats runs an on-sale event's sizes through the store: ten
// thousand seats written and read in one call each, and hundreds of moves
// in one SeatMoveMany.
func testManySeats(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	e := stockade.Show{ID: "big", Name: "Big", CreatedAt: base, Version: 1}
	for sec := range 4 {
		for r := range 25 {
			e.Rows = append(e.Rows, stockade.SeatRow{Section: fmt.Sprintf("S%d", sec), Row: fmt.Sprintf("R%02d", r),
				First: 1, Last: 100, Category: string(rune('A' + r%3)), AislesAfter: []int{50},
				Start: stockade.SeatPoint{X: float64(sec) * 120.5, Y: float64(r) * 1.1}, Step: 1.1})
		}
	}
	seats := seedShow(t, s, e)
	if len(seats) != 10_000 {
		t.Fatalf("the fixture has %d seats, want 10000", len(seats))
	}
	checkSeats(t, "Seats of the big event", getSeats(t, s, e.ID), seats)

	// Every 17th seat, named in reverse seat order.
	var moves []stockade.SeatMove
	var want []string
	for i := len(seats) - 1; i >= 0; i -= 17 {
		moves = append(moves, stockade.SeatMove{Seat: seats[i].ID, From: stockade.SeatFree, To: stockade.SeatHeld, Hold: "h-big"})
		seats[i].Status, seats[i].HoldID = stockade.SeatHeld, "h-big"
		want = append(want, seats[i].ID)
	}
	slices.Reverse(want)
	update(t, s, func(tx stockade.Tx) error {
		got, err := tx.SeatMoveMany(ctx, e.ID, moves)
		if err != nil {
			return err
		}
		if !equalSlices(got, want) {
			t.Errorf("SeatMoveMany of %d seats moved %d, want all, in seat order", len(moves), len(got))
		}
		return nil
	})
	checkSeats(t, "Seats of the big event after the moves", getSeats(t, s, e.ID), seats)
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.SeatList(ctx, e.ID, stockade.SeatFilter{Status: stockade.SeatHeld})
		if err != nil {
			return err
		}
		if !equalSlices(seatIDs(got), want) {
			t.Errorf("Seats(held) returned %d seats, want the %d moved", len(got), len(want))
		}
		return nil
	})
}

// testConcurrentMoveSeats has transactions race to hold the same free
// seats: each seat is moved by exactly one of them, whose hold it then has.
func testConcurrentMoveSeats(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	seedShow(t, s, show("show"))
	contested := []string{"stalls/A/9", "stalls/A/10", "stalls/B/3"}
	const workers = 8
	start := make(chan struct{})
	moved := make([][]string, workers)
	errs := make(chan error, workers)
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			<-start
			holdID := fmt.Sprintf("h-%d", w)
			var moves []stockade.SeatMove
			for _, id := range contested {
				moves = append(moves, stockade.SeatMove{Seat: id, From: stockade.SeatFree, To: stockade.SeatHeld, Hold: holdID})
			}
			n, err := retry(ctx, func() error {
				return s.Update(ctx, func(tx stockade.Tx) error {
					ids, err := tx.SeatMoveMany(ctx, "show", moves)
					if err != nil {
						return err
					}
					var cs []stockade.SeatChange
					for _, id := range ids {
						c := seatChange("show", id, stockade.SeatFree, stockade.SeatHeld, base)
						c.HoldID = holdID
						cs = append(cs, c)
					}
					if err := tx.SeatChangeAppend(ctx, cs...); err != nil {
						return err
					}
					moved[w] = ids
					return nil
				})
			})
			conflicts.Add(int64(n))
			if err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("SeatMoveMany: %v (only errors wrapping stockade.ErrConflict are legal, and the test retries them)", err)
	}
	t.Logf("%d conflicts retried", conflicts.Load())
	winners := map[string][]string{} // seat → holds that moved it
	for w, ids := range moved {
		for _, id := range ids {
			winners[id] = append(winners[id], fmt.Sprintf("h-%d", w))
		}
	}
	var seats []stockade.Seat
	var changes []stockade.SeatChange
	view(t, s, func(tx stockade.Tx) error {
		var err error
		if seats, err = tx.SeatList(ctx, "show", stockade.SeatFilter{IDs: contested}); err != nil {
			return err
		}
		changes, err = tx.SeatChangeList(ctx, "show", stockade.SeatChangeFilter{})
		return err
	})
	for _, seat := range seats {
		holds := winners[seat.ID]
		if len(holds) != 1 {
			t.Errorf("seat %s was moved by %d transactions (%q), want exactly 1", seat.ID, len(holds), holds)
			continue
		}
		if seat.Status != stockade.SeatHeld || seat.HoldID != holds[0] {
			t.Errorf("seat %s is %s by %q, want held by %s, whose transaction moved it", seat.ID, seat.Status, seat.HoldID, holds[0])
		}
	}
	if len(seats) != len(contested) || len(changes) != len(contested) {
		t.Errorf("%d seats and %d history rows, want %d of each", len(seats), len(changes), len(contested))
	}
}

// testConcurrentMovePlaces has transactions race for the places of an
// area one at a time: exactly its capacity is given.
func testConcurrentMovePlaces(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers, capacity = 16, 40
	e := show("show")
	e.Areas = []stockade.Area{{Name: "pit", Capacity: capacity}}
	seedShow(t, s, e)
	var won, refused atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				var ok bool
				_, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						var err error
						_, ok, err = tx.AreaMovePlaces(ctx, "show", "pit", 1, 0)
						return err
					})
				})
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					refused.Add(1)
					return
				}
				won.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("AreaMovePlaces: %v", err)
	}
	if won.Load() != capacity || refused.Load() != workers {
		t.Errorf("%d moves succeeded and %d workers were refused, want %d and %d", won.Load(), refused.Load(), capacity, workers)
	}
	if got := getShow(t, s, "show").Areas; len(got) != 1 || got[0].Held != capacity || got[0].Booked != 0 {
		t.Errorf("areas after the race = %+v, want pit with all %d places held", got, capacity)
	}
}
