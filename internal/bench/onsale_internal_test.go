package bench

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

func TestOnSaleEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seats, rows, sections, lastRow int
	}{
		{10_000, 250, 10, 40},
		{500, 13, 1, 20},
		{2, 1, 1, 2},
		{1_001, 26, 2, 1},
		{stockade.MaxSeats, 2500, 100, 40},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.seats), func(t *testing.T) {
			ev := onsaleShow("show", tc.seats)
			if err := ev.Validate(); err != nil {
				t.Fatal(err)
			}
			n, sections := 0, map[string]bool{}
			seen := map[stockade.SeatPoint]string{}
			for _, r := range ev.Rows {
				sections[r.Section] = true
				for _, s := range r.Seats() {
					n++
					if other, ok := seen[s.Position]; ok {
						t.Fatalf("seats %s and %s are both at %v", other, s.ID, s.Position)
					}
					seen[s.Position] = s.ID
				}
			}
			if n != tc.seats || len(ev.Rows) != tc.rows || len(sections) != tc.sections || ev.Rows[len(ev.Rows)-1].Last != tc.lastRow {
				t.Errorf("%d seats in %d rows of %d sections, last row of %d; want %d, %d, %d, %d",
					n, len(ev.Rows), len(sections), ev.Rows[len(ev.Rows)-1].Last, tc.seats, tc.rows, tc.sections, tc.lastRow)
			}
		})
	}
}

// TestOnSaleEventDistances: the stage is in front of the middle of the
// first tier, so the best seat is in the middle of the centre section's
// front row, and the distance grows towards the sides and the back.
func TestOnSaleEventDistances(t *testing.T) {
	t.Parallel()
	ev := onsaleShow("show", 10_000)
	dist := map[string]float64{}
	for _, r := range ev.Rows {
		for _, s := range r.Seats() {
			dist[s.ID] = math.Hypot(s.Position.X-ev.Focal.X, s.Position.Y-ev.Focal.Y)
		}
	}
	for _, order := range [][]string{
		{"s03/r01/20", "s03/r01/22", "s03/r01/1", "s01/r01/40", "s01/r01/1"}, // along the front row
		{"s03/r01/21", "s04/r01/1", "s05/r01/40"},                            // to the other side
		{"s03/r01/20", "s03/r02/20", "s03/r25/20"},                           // backwards
		{"s03/r25/20", "s08/r01/20", "s08/r25/20", "s10/r25/40"},             // the second tier
	} {
		for i := 1; i < len(order); i++ {
			if dist[order[i-1]] > dist[order[i]] {
				t.Errorf("%s is %.1f from the stage, further than %s at %.1f", order[i-1], dist[order[i-1]], order[i], dist[order[i]])
			}
		}
	}
}

func TestHotPairs(t *testing.T) {
	t.Parallel()
	for _, seats := range []int{10_000, 500, 40, 3, 2} {
		ev := onsaleShow("show", seats)
		pairs := hotPairs(ev)
		if len(pairs) == 0 {
			t.Errorf("%d seats: no hot pairs", seats)
		}
		hot := map[string]bool{}
		for _, p := range pairs {
			if !together(p[:]) || p[0] == p[1] {
				t.Errorf("%d seats: pair %v does not sit together", seats, p)
			}
			hot[p[0]], hot[p[1]] = true, true
		}
		if len(hot) > onsaleHotSeats {
			t.Errorf("%d seats: %d hot seats, want at most %d", seats, len(hot), onsaleHotSeats)
		}
		if seats == 10_000 && !hot["s03/r01/20"] {
			t.Errorf("the best seat s03/r01/20 is not hot: %v", pairs)
		}
	}
}

func TestTogether(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ids  []string
		want bool
	}{
		{nil, true},
		{[]string{"s01/r01/5"}, true},
		{[]string{"s01/r01/6", "s01/r01/4", "s01/r01/5"}, true},
		{[]string{"s01/r01/4", "s01/r01/6"}, false},
		{[]string{"s01/r01/4", "s01/r02/5"}, false},
		{[]string{"s01/r01/4", "s02/r01/5"}, false},
		{[]string{"s01/r01/x", "s01/r01/5"}, false},
		{[]string{"nothing"}, false},
	}
	for _, tc := range tests {
		if got := together(tc.ids); got != tc.want {
			t.Errorf("together(%q) = %v, want %v", tc.ids, got, tc.want)
		}
	}
}

func TestOrphans(t *testing.T) {
	t.Parallel()
	// Rows as strings: '.' free, 'x' taken, ' ' an aisle (an order
	// skipped).
	seatsOf := func(rows ...string) []stockade.Seat {
		var seats []stockade.Seat
		for r, row := range rows {
			for order, c := range row {
				if c == ' ' {
					continue
				}
				st := stockade.SeatBooked
				if c == '.' {
					st = stockade.SeatFree
				}
				seats = append(seats, stockade.Seat{Section: "s", Row: fmt.Sprint(r), Order: order, Status: st})
			}
		}
		return seats
	}
	tests := []struct {
		rows []string
		want int
	}{
		{[]string{"...."}, 0},
		{[]string{"xxxx"}, 0},
		{[]string{".xx."}, 2},
		{[]string{"x.x..x"}, 1},
		{[]string{"x. .x"}, 2}, // an aisle parts neighbours
		{[]string{".", "x", "."}, 2},
		{[]string{"x.x", "...", "x.x"}, 2},
	}
	for _, tc := range tests {
		if got := orphans(seatsOf(tc.rows...)); got != tc.want {
			t.Errorf("orphans(%q) = %d, want %d", tc.rows, got, tc.want)
		}
	}
}

func TestWrongHold(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	held := func(seats ...string) stockade.Hold {
		return stockade.Hold{ID: "h", Status: stockade.HoldHeld, Seats: seats, CreatedAt: at, ExpiresAt: at.Add(time.Second)}
	}
	best := stockade.HoldRequest{Best: []stockade.BestSeats{{Quantity: 2}}}
	named := stockade.HoldRequest{Seats: []string{"s/r/1", "s/r/2"}}
	tests := []struct {
		name string
		req  stockade.HoldRequest
		h    stockade.Hold
		want string
	}{
		{"best", best, held("s/r/3", "s/r/4"), ""},
		{"named", named, held("s/r/2", "s/r/1"), ""},
		{"too few", best, held("s/r/3"), "took 1 seats"},
		{"twice", best, held("s/r/3", "s/r/3"), "a seat twice"},
		{"apart", best, held("s/r/3", "s/r/5"), "not side by side"},
		{"other seats", named, held("s/r/2", "s/r/3"), "named"},
		{"expired", best, stockade.Hold{ID: "h", Status: stockade.HoldHeld, Seats: []string{"s/r/3", "s/r/4"}, CreatedAt: at, ExpiresAt: at}, "expires at"},
		{"not held", best, stockade.Hold{ID: "h", Status: stockade.HoldExpired}, "want a held hold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrongHold(tc.req, 2, tc.h)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("wrongHold = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := func(d float64) time.Time { return at.Add(time.Duration(d * float64(time.Second))) }
	// hold: made at created, back at got, lasting until created+2s.
	hold := func(id string, created, got float64, fate holdFate, booked float64) *onsaleHold {
		h := &onsaleHold{id: id, created: s(created), got: s(got), expires: s(created + 2), fate: fate}
		if fate == holdBooked {
			h.booking, h.booked = "bkg-"+id, s(booked)
		}
		return h
	}
	tests := []struct {
		name      string
		hs        []*onsaleHold
		sameClock bool
		want      string
	}{
		{"one", []*onsaleHold{hold("a", 0, 0.1, holdBooked, 0.2)}, true, ""},
		{"expired, then booked", []*onsaleHold{hold("a", 0, 0.1, holdLeft, 0), hold("b", 2.1, 2.2, holdBooked, 2.3)}, true, ""},
		{"a long wait in a queue", []*onsaleHold{hold("a", 0, 0.1, holdLeft, 0), hold("b", 1.0, 2.5, holdBooked, 2.6)}, true, ""},
		{"booked twice", []*onsaleHold{hold("a", 0, 0.1, holdBooked, 0.2), hold("b", 5, 5.1, holdBooked, 5.2)}, false, "booked twice"},
		{"held after booked", []*onsaleHold{hold("a", 0, 0.1, holdBooked, 0.2), hold("b", 0.3, 0.4, holdLeft, 0)}, false, "after a booked it"},
		{"held long after booked", []*onsaleHold{hold("a", 0, 0.1, holdBooked, 0.2), hold("b", 9, 9.1, holdLapsed, 0)}, false, "after a booked it"},
		{"held at once", []*onsaleHold{hold("a", 0, 0.1, holdLeft, 0), hold("b", 1, 1.1, holdLeft, 0)}, true, "in two holds at once"},
		{"held at once, other clock", []*onsaleHold{hold("a", 0, 0.1, holdLeft, 0), hold("b", 1, 1.1, holdLeft, 0)}, false, ""},
		{"held while booked", []*onsaleHold{hold("a", 3, 3.1, holdLeft, 0), hold("b", 0, 3.0, holdBooked, 3.5)}, true, "in two holds at once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := overlap("s/r/1", tc.hs, tc.sameClock)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("overlap = %q, want %q", got, tc.want)
			}
		})
	}
}
