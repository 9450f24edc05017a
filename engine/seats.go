package engine

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// seatSpot is a seat as best-available selection sees it.
type seatSpot struct {
	Section, Row string
	Order        int // place in the row: Order n and n+1 sit together
	Category     string
	Accessible   bool
	Distance     float64 // to the focal point; nearer is better
	Free         bool    // neither held, booked nor blocked
}

// seatAsk is a request for best-available seats.
type seatAsk struct {
	Quantity   int    // 1 or more
	Category   string // "" for any
	Section    string // "" for any
	Accessible bool   // true: only accessible seats
	Split      bool   // the seats may be apart when no block of Quantity adjacent seats is free
}

// fits reports whether s can be given to ask.
func (ask seatAsk) fits(s *seatSpot) bool {
	return s.Free &&
		(ask.Category == "" || s.Category == ask.Category) &&
		(ask.Section == "" || s.Section == ask.Section) &&
		(!ask.Accessible || s.Accessible)
}

// maxSeatDistance is the farthest a seat counts as; farther seats, and a
// NaN Distance, count as this far.
const maxSeatDistance = 1e6

// seatDistance is d as scores add it up: in millionths, rounded, within
// [0, maxSeatDistance]. Whole numbers add up exactly and in any order, so
// that blocks that are equally near, such as mirror images across the
// stage, tie and go to the tie-breaks rather than to rounding. A block of
// up to 9 million seats cannot overflow.
func seatDistance(d float64) int64 {
	if !(d <= maxSeatDistance) { // also NaN
		d = maxSeatDistance
	}
	return int64(math.Round(max(d, 0) * 1e6))
}

// compareSeats orders seats by section, row and order (strings in byte
// order). Seats in the same place, which a caller should not pass, are
// ordered by their other fields, so that the order never depends on the
// input's.
func compareSeats(a, b *seatSpot) int {
	if c := strings.Compare(a.Section, b.Section); c != 0 {
		return c
	}
	if c := strings.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	if a.Order != b.Order {
		return cmp.Compare(a.Order, b.Order)
	}
	return cmp.Or(
		strings.Compare(a.Category, b.Category),
		cmp.Compare(b2i(a.Accessible), b2i(b.Accessible)),
		cmp.Compare(a.Distance, b.Distance),
		cmp.Compare(b2i(a.Free), b2i(b.Free)),
	)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// besides reports whether b sits directly after a, in the same row with no
// aisle between.
func besides(a, b *seatSpot) bool {
	return b.Order == a.Order+1 && a.Row == b.Row && a.Section == b.Section
}

// freeSeat is a free seat during selection.
type freeSeat struct {
	i    int   // index in the seats given
	dist int64 // seatDistance
	fits bool
}

// bestAvailable picks ask.Quantity seats from seats (indexes into seats, in
// section, row, order order), or ok false when it cannot. together reports
// whether the picked seats sit side by side in one row.
//
// A seat fits when it is Free and matches ask's Category, Section and
// Accessible filters. A block is ask.Quantity fitting seats side by side in
// one row: same Section and Row, each Order one more than the last; a gap
// in Order (an aisle) or a seat that is not free breaks it. A block leaves
// an orphan when a free seat directly beside it, fitting or not, has no
// free seat on its other side: a lone seat no one would buy. The rules,
// first that gives an answer wins (seats.io's best-available order):
//
//  1. the best block that leaves no orphan;
//  2. the best block;
//  3. if ask.Split, the ask.Quantity fitting seats with the smallest
//     seatDistance, ties to the first by section, row and order; together
//     is false;
//  4. else ok is false, as it is when ask.Quantity < 1.
//
// The best block is the one with the smallest score, the sum of its seats'
// seatDistance: Distance in whole millionths, between 0 and
// maxSeatDistance, so that mirror-image blocks tie exactly. Ties go to the first block by section, row, then first order;
// strings compare in byte order. For a Quantity of 1 each fitting seat is
// a block, so rule 1 keeps a single seat from stranding its neighbour.
//
// A seat that is not free counts as no seat at all. Seats should be one to
// a place (section, row, order); two in one place never sit together. The
// answer depends on the seats, never on their order in seats, and seats is
// not modified. It costs one sort of the free seats, a scan, and for rule
// 3 a heap of Quantity seats.
func bestAvailable(seats []seatSpot, ask seatAsk) (picked []int, together bool, ok bool) {
	q := ask.Quantity
	if q < 1 {
		return nil, false, false
	}
	nfree, nfit := 0, 0
	for i := range seats {
		nfree += b2i(seats[i].Free)
	}
	free := make([]freeSeat, 0, nfree)
	for i := range seats {
		if s := &seats[i]; s.Free {
			f := freeSeat{i: i, dist: seatDistance(s.Distance), fits: ask.fits(s)}
			nfit += b2i(f.fits)
			free = append(free, f)
		}
	}
	if nfit < q {
		return nil, false, false
	}
	bySeat := func(a, b freeSeat) int { return compareSeats(&seats[a.i], &seats[b.i]) }
	if !slices.IsSortedFunc(free, bySeat) { // the engine passes seats in seat order
		slices.SortFunc(free, bySeat)
	}

	// Rules 1 and 2: one scan over the runs of free seats side by side,
	// sliding a window of q fitting seats along each. best[0] is the best
	// block without orphan (rule 1), best[1] the best block (rule 2); each
	// is a start in free, or -1. Strictly smaller scores win, so that on a
	// tie the first block in seat order stays.
	best := [2]int{-1, -1}
	var score [2]int64
	for lo := 0; lo < len(free); {
		hi := lo + 1
		for hi < len(free) && besides(&seats[free[hi-1].i], &seats[free[hi].i]) {
			hi++
		}
		n, sum := 0, int64(0) // fitting seats in the window ending at j, and their distances
		for j := lo; j < hi; j++ {
			if !free[j].fits {
				n, sum = 0, 0
				continue
			}
			n++
			sum += free[j].dist
			if n > q {
				sum -= free[j-q].dist
				n = q
			}
			if n < q {
				continue
			}
			// The block is free[a..j]. The run has a-lo free seats before
			// it and hi-j-1 after it; a side with just one is an orphan.
			a := j - q + 1
			if a-lo != 1 && hi-j-1 != 1 && (best[0] < 0 || sum < score[0]) {
				best[0], score[0] = a, sum
			}
			if best[1] < 0 || sum < score[1] {
				best[1], score[1] = a, sum
			}
		}
		lo = hi
	}
	for _, a := range best {
		if a >= 0 {
			picked = make([]int, q)
			for k := range picked {
				picked[k] = free[a+k].i
			}
			return picked, true, true
		}
	}
	if !ask.Split {
		return nil, false, false
	}

	// Rule 3: the nearest fitting seats, in a max-heap of q: the farthest
	// of the nearest so far is on top, where a nearer seat replaces it.
	h := make([]nearSeat, 0, q)
	for p := range free {
		if !free[p].fits {
			continue
		}
		switch n := (nearSeat{free[p].dist, p}); {
		case len(h) < q:
			if h = append(h, n); len(h) == q {
				for k := q/2 - 1; k >= 0; k-- {
					siftDown(h, k)
				}
			}
		case n.before(h[0]):
			h[0] = n
			siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b nearSeat) int { return cmp.Compare(a.p, b.p) })
	picked = make([]int, q)
	for k, n := range h {
		picked[k] = free[n.p].i
	}
	return picked, false, true
}

// nearSeat is a fitting seat for rule 3: its seatDistance and its place
// in seat order.
type nearSeat struct {
	dist int64
	p    int
}

// before reports whether n goes before m: nearer, or as near and first.
func (n nearSeat) before(m nearSeat) bool {
	return n.dist < m.dist || n.dist == m.dist && n.p < m.p
}

// siftDown restores the max-heap h, whose last seat is on top, below k.
func siftDown(h []nearSeat, k int) {
	for {
		c := 2*k + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c].before(h[c+1]) {
			c++
		}
		if !h[k].before(h[c]) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}
