package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkRows fails unless x answers ask as the reference does on x's
// seats as they are now.
func checkRows(t *testing.T, what string, x *seatRows, ask seatAsk) []int {
	t.Helper()
	picked, together, ok := x.best(ask)
	want, wantTogether, wantOK := bestAvailableReference(x.seats, ask)
	if !slices.Equal(picked, want) || together != wantTogether || ok != wantOK {
		t.Fatalf("%s, ask %+v: picked %v together %v ok %v, reference %v together %v ok %v; venue:%s",
			what, ask, picked, together, ok, want, wantTogether, wantOK, drawVenue(x.seats))
	}
	return picked
}

// TestSeatRowsReference compares the row index with the reference on
// random maps while holds take seats and seats come back, as a batch's
// state sees them: each answer must be the reference's on the seats as
// they are by then, whatever the rows remembered.
func TestSeatRowsReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 10))
	for range 3000 {
		seats := randomSeatMap(r)
		if len(seats) == 0 {
			continue
		}
		x, ok := newSeatRows(seats)
		if !ok {
			t.Fatalf("seats in seat order not indexed:%s", drawVenue(seats))
		}
		for step := range 20 {
			ask := randomMapAsk(r)
			picked := checkRows(t, fmt.Sprintf("step %d", step), x, ask)
			switch r.IntN(3) {
			case 0, 1: // a hold takes them
				for _, i := range picked {
					x.setFree(i, false)
				}
			}
			for range r.IntN(3) { // seats given back, or taken by name
				x.setFree(r.IntN(len(seats)), r.IntN(2) == 0)
			}
			// The rows' free counts follow the seats.
			for k, row := range x.rows {
				n := 0
				for i := row.first; i < row.end; i++ {
					if seats[i].Free {
						n++
					}
				}
				if n != row.free {
					t.Fatalf("step %d: row %d counts %d free seats, has %d", step, k, row.free, n)
				}
			}
		}
	}
}

// TestSeatRowsOnSale runs the benchmark's venue down as a batch does,
// with asks that repeat (the rows' answers are reused) and asks with
// every filter, until no ask is met.
func TestSeatRowsOnSale(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 11))
	x, ok := newSeatRows(benchVenue(20))
	if !ok {
		t.Fatal("the venue, in seat order, is not indexed")
	}
	for step := range 1500 {
		ask := seatAsk{Quantity: 1 + r.IntN(6), Split: r.IntN(8) == 0}
		switch r.IntN(10) {
		case 0:
			ask.Category = "prem"
		case 1:
			ask.Accessible = true
		case 2:
			ask.Section = fmt.Sprintf("S%02d", r.IntN(10))
		}
		for _, i := range checkRows(t, fmt.Sprintf("step %d", step), x, ask) {
			x.setFree(i, false)
		}
		if r.IntN(10) == 0 { // an expired hold's seats come back
			for range 1 + r.IntN(4) {
				x.setFree(r.IntN(len(x.seats)), true)
			}
		}
	}
}

// TestSeatRowsUnordered: seats out of seat order are not indexed, and a
// state of them chooses as bestAvailable does.
func TestSeatRowsUnordered(t *testing.T) {
	t.Parallel()
	seats := benchVenue(4)
	seats[10], seats[11] = seats[11], seats[10]
	if _, ok := newSeatRows(seats); ok {
		t.Fatal("seats out of seat order were indexed")
	}
	st := &seatState{spots: seats}
	for k := range 3 {
		ask := seatAsk{Quantity: 2}
		picked, _, ok := st.bestSeats(ask)
		want, _, wantOK := bestAvailableReference(seats, ask)
		if !slices.Equal(picked, want) || ok != wantOK {
			t.Fatalf("choice %d: %v %v, reference %v %v", k, picked, ok, want, wantOK)
		}
		for _, i := range picked {
			st.setFree(i, false)
		}
	}
	if st.rows != nil || !st.unordered {
		t.Fatalf("rows %v, unordered %v: want no index", st.rows != nil, st.unordered)
	}
}

// BenchmarkSeatRows is a choice on the benchmark's venue as a batch makes
// it: on rows that remember their answers, all but the row of the seats
// taken by the choice before.
func BenchmarkSeatRows(b *testing.B) {
	for _, q := range []int{1, 4} {
		b.Run(fmt.Sprintf("onsale,q=%d", q), func(b *testing.B) {
			x, _ := newSeatRows(benchVenue(50))
			ask := seatAsk{Quantity: q}
			b.ReportAllocs()
			for b.Loop() {
				picked, _, ok := x.best(ask)
				if !ok {
					b.Fatal("no seats")
				}
				for _, i := range picked { // taken, and back: the row changes
					x.setFree(i, false)
				}
				for _, i := range picked {
					x.setFree(i, true)
				}
			}
		})
	}
}
