package stockade_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestSeatRowSeats: a compact row expands to numbered seats, in order,
// with aisles skipping an order, and its accessible and blocked seats
// marked.
func TestSeatRowSeats(t *testing.T) {
	t.Parallel()
	r := stockade.SeatRow{Section: "stalls", Row: "B", First: 3, Last: 7, Category: "A",
		Accessible: []int{3}, Blocked: []int{7}, AislesAfter: []int{4}, Start: stockade.SeatPoint{X: -2, Y: 5}, Step: 0.5}
	var got []string
	for _, s := range r.Seats() {
		got = append(got, fmt.Sprintf("%s label=%s order=%d cat=%s acc=%t at=(%g,%g) %s",
			s.ID, s.Label, s.Order, s.Category, s.Accessible, s.Position.X, s.Position.Y, s.Status))
	}
	want := []string{
		"stalls/B/3 label=3 order=0 cat=A acc=true at=(-2,5) free",
		"stalls/B/4 label=4 order=1 cat=A acc=false at=(-1.5,5) free",
		"stalls/B/5 label=5 order=3 cat=A acc=false at=(-1,5) free",
		"stalls/B/6 label=6 order=4 cat=A acc=false at=(-0.5,5) free",
		"stalls/B/7 label=7 order=5 cat=A acc=false at=(0,5) blocked",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("seats:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := (stockade.SeatRow{Section: "s", Row: "r", First: 1, Last: 2}).Seats(); s[1].Position.X != 1 {
		t.Errorf("default step: seat 2 at x=%g, want 1", s[1].Position.X)
	}
}

func TestSeatCompare(t *testing.T) {
	t.Parallel()
	seats := []stockade.Seat{
		{Section: "a", Row: "B", Order: 0},
		{Section: "a", Row: "A", Order: 1},
		{Section: "a", Row: "A", Order: 0},
		{Section: "B", Row: "Z", Order: 9}, // "B" < "a" in byte order
	}
	for i := range len(seats) - 1 {
		if seats[i].Compare(seats[i+1]) <= 0 {
			t.Errorf("seat %d sorts at or before seat %d", i, i+1)
		}
		if seats[i+1].Compare(seats[i]) >= 0 {
			t.Errorf("seat %d sorts at or after seat %d", i+1, i)
		}
	}
	if seats[0].Compare(seats[0]) != 0 {
		t.Error("a seat is not equal to itself")
	}
}

func TestEventValidate(t *testing.T) {
	t.Parallel()
	row := stockade.SeatRow{Section: "stalls", Row: "A", First: 1, Last: 20}
	ok := stockade.Show{ID: "gig-1", Name: "The Gig", Rows: []stockade.SeatRow{row}}
	tests := []struct {
		name string
		edit func(e *stockade.Show)
		want string
	}{
		{"seats", func(e *stockade.Show) {}, ""},
		{"areas only", func(e *stockade.Show) {
			e.Rows, e.Areas = nil, []stockade.Area{{Name: "floor", Capacity: 500}}
		}, ""},
		{"no id", func(e *stockade.Show) { e.ID = "" }, "id: required"},
		{"slash in id", func(e *stockade.Show) { e.ID = "a/b" }, "id: must not contain '/'"},
		{"no name", func(e *stockade.Show) { e.Name = "" }, "name: required"},
		{"nothing to sell", func(e *stockade.Show) { e.Rows = nil }, "rows: an event needs seats or general-admission areas"},
		{"focal NaN", func(e *stockade.Show) { e.Focal.Y = math.NaN() }, "focal.y: must be between"},
		{"row twice", func(e *stockade.Show) { e.Rows = append(e.Rows, row) }, `rows[1]: row "A" of section "stalls" is given twice`},
		{"same row in another section", func(e *stockade.Show) {
			r := row
			r.Section = "circle"
			e.Rows = append(e.Rows, r)
		}, ""},
		{"slash in section", func(e *stockade.Show) { e.Rows[0].Section = "a/b" }, "rows[0].section: must not contain '/'"},
		{"no row", func(e *stockade.Show) { e.Rows[0].Row = "" }, "rows[0].row: required"},
		{"first after last", func(e *stockade.Show) { e.Rows[0].First = 21 }, "rows[0]: first and last must number seats"},
		{"negative first", func(e *stockade.Show) { e.Rows[0].First = -1 }, "rows[0]: first and last must number seats"},
		{"accessible outside", func(e *stockade.Show) { e.Rows[0].Accessible = []int{21} }, "rows[0].accessible[0]: seat 21 is not in the row"},
		{"blocked outside", func(e *stockade.Show) { e.Rows[0].Blocked = []int{0} }, "rows[0].blocked[0]: seat 0 is not in the row"},
		{"aisle outside", func(e *stockade.Show) { e.Rows[0].AislesAfter = []int{1, 30} }, "rows[0].aisles_after[1]: seat 30"},
		{"negative step", func(e *stockade.Show) { e.Rows[0].Step = -1 }, "rows[0].step: must be between 0"},
		{"far start", func(e *stockade.Show) { e.Rows[0].Start.X = 2e6 }, "rows[0].start.x: must be between"},
		{"too many seats", func(e *stockade.Show) {
			e.Rows = nil
			for i := range 11 {
				e.Rows = append(e.Rows, stockade.SeatRow{Section: "s", Row: fmt.Sprint(i), First: 1, Last: 10_000})
			}
		}, "rows[10]: an event has at most 100000 seats"},
		{"area twice", func(e *stockade.Show) {
			e.Areas = []stockade.Area{{Name: "floor", Capacity: 1}, {Name: "floor", Capacity: 2}}
		}, `areas[1].name: area "floor" is given twice`},
		{"area without capacity", func(e *stockade.Show) { e.Areas = []stockade.Area{{Name: "floor"}} }, "areas[0].capacity: must be between 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := ok
			e.Rows = append([]stockade.SeatRow(nil), ok.Rows...)
			tc.edit(&e)
			wantInvalid(t, e.Validate(), tc.want)
		})
	}
}

func TestHoldRequestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  stockade.HoldRequest
		want string
	}{
		{"named", stockade.HoldRequest{ShowID: "gig", Seats: []string{"s/A/1", "s/A/2"}}, ""},
		{"mixed", stockade.HoldRequest{ShowID: "gig", Seats: []string{"s/A/1"}, Best: []stockade.BestSeats{{Quantity: 2, Category: "A"}},
			Places: []stockade.Places{{Area: "floor", Quantity: 3}}, TTL: time.Minute}, ""},
		{"no event", stockade.HoldRequest{Seats: []string{"s/A/1"}}, "event: required"},
		{"nothing", stockade.HoldRequest{ShowID: "gig"}, "seats: a hold needs seats, best_available or general_admission"},
		{"seat twice", stockade.HoldRequest{ShowID: "gig", Seats: []string{"s/A/1", "s/A/1"}}, `seats[1]: seat "s/A/1" is named twice`},
		{"empty seat", stockade.HoldRequest{ShowID: "gig", Seats: []string{""}}, "seats[0]: required"},
		{"no quantity", stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{}}}, "best_available[0].quantity: must be between 1 and 100, got 0"},
		{"area twice", stockade.HoldRequest{ShowID: "gig", Places: []stockade.Places{{Area: "f", Quantity: 1}, {Area: "f", Quantity: 1}}},
			`general_admission[1].area: area "f" is asked for twice`},
		{"too many in all", stockade.HoldRequest{ShowID: "gig", Best: []stockade.BestSeats{{Quantity: 60}, {Quantity: 41}}},
			"seats: a hold takes at most 100 seats and places, got 101"},
		{"ttl too long", stockade.HoldRequest{ShowID: "gig", Seats: []string{"s/A/1"}, TTL: 3 * time.Hour}, "ttl_seconds: must be between 1 and 7200, got 10800"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, tc.req.Validate(2*time.Hour), tc.want) })
	}
}

// TestSeatHistoryQueryValidate: a seat or an area, each an id, not both,
// and a limit in range; the cursor is the service's to check.
func TestSeatHistoryQueryValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		q    stockade.SeatHistoryQuery
		want string
	}{
		{"everything", stockade.SeatHistoryQuery{}, ""},
		{"a seat, a page", stockade.SeatHistoryQuery{Seat: "s/A/1", Cursor: "anything", Limit: stockade.MaxSeatHistoryLimit}, ""},
		{"an area", stockade.SeatHistoryQuery{Area: "floor", Limit: 1}, ""},
		{"seat and area", stockade.SeatHistoryQuery{Seat: "s/A/1", Area: "floor"}, `area: must not be given with seat (a row is of a seat or of an area), got seat "s/A/1" and area "floor"`},
		{"seat too long", stockade.SeatHistoryQuery{Seat: strings.Repeat("s", stockade.MaxIDLength+1)}, "seat: "},
		{"area with a control character", stockade.SeatHistoryQuery{Area: "flo\nor"}, "area: "},
		{"negative limit", stockade.SeatHistoryQuery{Limit: -1}, "limit: must be between 1 and 10000 (0 for 1000), got -1"},
		{"limit too large", stockade.SeatHistoryQuery{Limit: stockade.MaxSeatHistoryLimit + 1}, "limit: must be between 1 and 10000 (0 for 1000), got 10001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantInvalid(t, tc.q.Validate(), tc.want) })
	}
}
