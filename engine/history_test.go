package engine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// historyOf returns the rows of the event's seat history that q matches,
// following the cursors from the first page, and checks each page: at
// most q.Limit rows, a Next cursor on every full page but the last.
func (en *env) historyOf(ctx context.Context, event string, q stockade.SeatHistoryQuery) (rows []stockade.SeatChange, pages int) {
	en.t.Helper()
	for {
		page, err := en.eng.SeatHistory(ctx, event, q)
		if err != nil {
			en.t.Fatalf("SeatHistory(%s, %+v): %v", event, q, err)
		}
		pages++
		if q.Limit > 0 && (len(page.Changes) > q.Limit || (page.Next != "" && len(page.Changes) != q.Limit)) {
			en.t.Fatalf("page %d of %+v: %d rows and next %q", pages, q, len(page.Changes), page.Next)
		}
		rows = append(rows, page.Changes...)
		if page.Next == "" {
			return rows, pages
		}
		q.Cursor = page.Next
	}
}

// moves returns rows as "SEAT-OR-AREA FROM>TO HOLD BOOKING ACTOR QUANTITY"
// lines, with the ids in names replaced by their names.
func moves(rows []stockade.SeatChange, names map[string]string) string {
	name := func(id string) string {
		if n, ok := names[id]; ok {
			return n
		}
		return id
	}
	var b strings.Builder
	for _, c := range rows {
		fmt.Fprintf(&b, "%s%s %s>%s %s %s %s %d\n", c.Seat, c.Area, c.From, c.To, name(c.HoldID), name(c.BookingID), c.Actor, c.Quantity)
	}
	return b.String()
}

// TestSeatHistory: after a hold, a confirm and a cancel, the history of
// a seat and of an area tells each move, with its hold, booking and
// actor, in order; pages of any size read every row once; a storefront
// sees the moves only; refusals say why.
func TestSeatHistory(t *testing.T) {
	t.Parallel()
	forBackends(t, bookingStrategies, func(t *testing.T, en *env) {
		admin, shop1, _ := en.actors()
		if _, err := en.eng.PutShow(admin, hall("gig"), nil); err != nil {
			t.Fatal(err)
		}
		h, err := en.eng.HoldSeats(shop1, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/2", "stalls/A/3"},
			Places: []stockade.Places{{Area: "standing", Quantity: 2}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bk, err := en.eng.ConfirmHold(shop1, h.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.CancelBooking(admin, bk.ID, nil); err != nil {
			t.Fatal(err)
		}
		other, err := en.eng.HoldSeats(shop1, stockade.HoldRequest{ShowID: "gig", Seats: []string{"stalls/A/2"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := en.eng.ReleaseHold(shop1, other.ID, nil); err != nil {
			t.Fatal(err)
		}
		names := map[string]string{h.ID: "hold", bk.ID: "booking", other.ID: "other"}

		// A seat, and an area: each move in order, with who made it.
		seat, _ := en.historyOf(admin, "gig", stockade.SeatHistoryQuery{Seat: "stalls/A/2"})
		want := "stalls/A/2 free>held hold  shop-1 1\n" +
			"stalls/A/2 held>booked hold booking shop-1 1\n" +
			"stalls/A/2 booked>free hold booking ops 1\n" +
			"stalls/A/2 free>held other  shop-1 1\n" +
			"stalls/A/2 held>free other  shop-1 1\n"
		if got := moves(seat, names); got != want {
			t.Errorf("history of stalls/A/2:\n%swant:\n%s", got, want)
		}
		area, _ := en.historyOf(admin, "gig", stockade.SeatHistoryQuery{Area: "standing"})
		want = "standing free>held hold  shop-1 2\n" +
			"standing held>booked hold booking shop-1 2\n" +
			"standing booked>free hold booking ops 2\n"
		if got := moves(area, names); got != want {
			t.Errorf("history of standing:\n%swant:\n%s", got, want)
		}
		for _, c := range append(seat, area...) {
			if c.ShowID != "gig" || c.At.IsZero() || c.ID <= 0 {
				t.Errorf("row %+v", c)
			}
		}

		// Pages of every size read the whole history once, in id order,
		// as one page does; a full last page has no Next.
		all, pages := en.historyOf(admin, "gig", stockade.SeatHistoryQuery{})
		if pages != 1 || len(all) != 1+2*3+3+2 { // B/10 blocked, two seats and the area moved three times, A/2 twice more
			t.Fatalf("the whole history: %d rows in %d pages\n%s", len(all), pages, moves(all, names))
		}
		for i := 1; i < len(all); i++ {
			if all[i].ID <= all[i-1].ID {
				t.Fatalf("row %d has id %d after %d", i, all[i].ID, all[i-1].ID)
			}
		}
		for _, limit := range []int{1, 2, 3, len(all), len(all) + 1} {
			paged, pages := en.historyOf(admin, "gig", stockade.SeatHistoryQuery{Limit: limit})
			if !reflect.DeepEqual(paged, all) || pages != (len(all)+limit-1)/limit {
				t.Errorf("limit %d: %d rows in %d pages, want the %d rows of one page in %d", limit, len(paged), pages, len(all), (len(all)+limit-1)/limit)
			}
		}
		if paged, _ := en.historyOf(admin, "gig", stockade.SeatHistoryQuery{Seat: "stalls/A/2", Limit: 2}); !reflect.DeepEqual(paged, seat) {
			t.Errorf("stalls/A/2 two rows a page:\n%swant:\n%s", moves(paged, names), moves(seat, names))
		}

		// A storefront sees the moves, not whose they were.
		shown, _ := en.historyOf(shop1, "gig", stockade.SeatHistoryQuery{Limit: 5})
		if len(shown) != len(all) {
			t.Errorf("a storefront reads %d rows of %d", len(shown), len(all))
		}
		for i, c := range shown {
			if c.HoldID != "" || c.BookingID != "" || c.Actor != "" {
				t.Errorf("a storefront reads %+v", c)
			}
			c.HoldID, c.BookingID, c.Actor = all[i].HoldID, all[i].BookingID, all[i].Actor
			if c != all[i] {
				t.Errorf("a storefront reads row %d as %+v, an admin as %+v", i, c, all[i])
			}
		}

		// A seat or an area without rows has an empty history.
		for _, q := range []stockade.SeatHistoryQuery{{Seat: "stalls/A/9"}, {Seat: "stalls/Z/1"}, {Area: "balcony"}} {
			if rows, _ := en.historyOf(admin, "gig", q); len(rows) != 0 {
				t.Errorf("history of %+v: %+v", q, rows)
			}
		}

		// Refusals.
		raw := func(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }
		seats, err := en.eng.Seats(admin, "gig", stockade.SeatQuery{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, event string
			q           stockade.SeatHistoryQuery
			code        string
		}{
			{"unknown event", "nope", stockade.SeatHistoryQuery{}, stockade.ENotFound},
			{"unknown event with a seat", "nope", stockade.SeatHistoryQuery{Seat: "stalls/A/2"}, stockade.ENotFound},
			{"no event id", "", stockade.SeatHistoryQuery{}, stockade.EInvalid},
			{"seat and area", "gig", stockade.SeatHistoryQuery{Seat: "stalls/A/2", Area: "standing"}, stockade.EInvalid},
			{"negative limit", "gig", stockade.SeatHistoryQuery{Limit: -1}, stockade.EInvalid},
			{"limit too large", "gig", stockade.SeatHistoryQuery{Limit: stockade.MaxSeatHistoryLimit + 1}, stockade.EInvalid},
			{"not a cursor", "gig", stockade.SeatHistoryQuery{Cursor: "not a cursor!"}, stockade.EInvalid},
			{"short cursor", "gig", stockade.SeatHistoryQuery{Cursor: raw('h', 0, 0, 0, 0, 0, 0, 1)}, stockade.EInvalid},
			{"zero id", "gig", stockade.SeatHistoryQuery{Cursor: raw('h', 0, 0, 0, 0, 0, 0, 0, 0)}, stockade.EInvalid},
			{"a movement cursor", "gig", stockade.SeatHistoryQuery{Cursor: raw('m', 0, 0, 0, 0, 0, 0, 0, 1)}, stockade.EInvalid},
			{"a seat cursor", "gig", stockade.SeatHistoryQuery{Cursor: seats.Next}, stockade.EInvalid},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := en.eng.SeatHistory(admin, tc.event, tc.q)
				wantCode(t, err, tc.code)
				if stockade.ErrorMessage(err) == "" {
					t.Errorf("refused without a message: %v", err)
				}
			})
		}
	})
}
