package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/stockade/stockade"
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
// not modified. When the free seats are in seat order, as the engine
// passes them, it costs a scan, for rule 3 another with a heap of
// Quantity seats, and allocations in proportion to Quantity; else a
// sorted copy of the free seats first.
func bestAvailable(seats []seatSpot, ask seatAsk) (picked []int, together bool, ok bool) {
	if ask.Quantity < 1 || ask.Quantity > len(seats) {
		return nil, false, false
	}
	if picked, together, ok, inOrder := pickInOrder(seats, ask); inOrder {
		return picked, together, ok
	}
	// The same on a sorted copy of the free seats, mapped back.
	free := make([]int, 0, len(seats))
	for i := range seats {
		if seats[i].Free {
			free = append(free, i)
		}
	}
	slices.SortFunc(free, func(a, b int) int { return compareSeats(&seats[a], &seats[b]) })
	sorted := make([]seatSpot, len(free))
	for k, i := range free {
		sorted[k] = seats[i]
	}
	picked, together, ok, _ = pickInOrder(sorted, ask)
	for k, p := range picked {
		picked[k] = free[p]
	}
	return picked, together, ok
}

// pickInOrder is bestAvailable for seats whose free seats are in seat
// order; inOrder is false, and the rest zero, as soon as two are not.
//
// Rules 1 and 2 take one scan over the runs of free seats side by side,
// which also checks the order: the free seats it has passed are in order,
// so a run is complete and in order when the next free seat is not beside
// its last.
func pickInOrder(seats []seatSpot, ask seatAsk) (picked []int, together, ok, inOrder bool) {
	best, _, inOrder := scanBlocks(seats, ask)
	if !inOrder {
		return nil, false, false, false
	}
	picked, together, ok = pickBlock(seats, ask, best)
	return picked, together, ok, true
}

// pickBlock finishes a choice on seats in seat order whose best blocks
// (as scanBlocks finds them) are best: the block of rule 1, else that of
// rule 2, else rule 3's seats if ask allows them apart.
func pickBlock(seats []seatSpot, ask seatAsk, best [2]int) (picked []int, together, ok bool) {
	for _, a := range best {
		if a >= 0 {
			picked = make([]int, 0, ask.Quantity)
			for i := a; len(picked) < ask.Quantity; i++ {
				if seats[i].Free {
					picked = append(picked, i)
				}
			}
			return picked, true, true
		}
	}
	if !ask.Split {
		return nil, false, false
	}
	picked = nearestSeats(seats, ask)
	return picked, false, picked != nil
}

// scanBlocks finds the best blocks of seats for rules 1 and 2: best[0] is
// the first seat of the best block that leaves no orphan, best[1] of the
// best block, -1 for none; score is theirs. inOrder is false, and the
// rest zero, as soon as two free seats are not in seat order.
func scanBlocks(seats []seatSpot, ask seatAsk) (best [2]int, score [2]int64, inOrder bool) {
	q := ask.Quantity
	var window [16]windowSeat // on the stack for the usual quantities
	b := blockScan{seats: seats, ask: ask, best: [2]int{-1, -1}}
	if q <= len(window) {
		b.window = window[:q]
	} else {
		b.window = make([]windowSeat, q)
	}
	r := seatRun{near: math.Inf(1)} // the run so far
	var p *seatSpot                 // the free seat before s
	for i := range seats {
		s := &seats[i]
		if !s.Free {
			continue
		}
		if p == nil {
			r.first = i
		} else {
			row := sameString(p.Row, s.Row) && sameString(p.Section, s.Section)
			switch {
			case row && p.Order < s.Order && s.Order == p.Order+1: // beside p, Order+1 not wrapped
			case row && p.Order < s.Order, compareSeats(p, s) <= 0: // after p
				b.run(r)
				r = seatRun{first: i, near: math.Inf(1)}
			default:
				return [2]int{-1, -1}, [2]int64{}, false
			}
		}
		p = s
		r.last, r.n = i, r.n+1
		if s.Distance < r.near { // false for NaN
			r.near = s.Distance
		}
	}
	if r.n > 0 {
		b.run(r)
	}
	return b.best, b.score, true
}

// sameString is a == b, comparing first where the strings are: the
// engine gives the seats of a section, and of a row, one string each, so
// that the seats of a row compare without reading their bytes.
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// seatRun is n free seats side by side, from seats[first] to seats[last]:
// the seats between that are not free count as no seat. near is the
// smallest Distance of its seats that is not NaN, or +Inf.
type seatRun struct {
	first, last, n int
	near           float64
}

// blockScan is the search for the best blocks (rules 1 and 2), a run at
// a time, in seat order.
type blockScan struct {
	seats  []seatSpot
	ask    seatAsk
	window []windowSeat // the last Quantity fitting seats, a ring
	// best[0] is the first seat of the best block without orphan (rule
	// 1), best[1] of the best block (rule 2), or -1; score is theirs.
	best  [2]int
	score [2]int64
}

// windowSeat is a fitting seat in the window: its index in seats and its
// seatDistance.
type windowSeat struct {
	i    int
	dist int64
}

// run slides a window of Quantity fitting seats along r. Strictly smaller
// scores win, so that on a tie the first block in seat order stays.
func (b *blockScan) run(r seatRun) {
	ask, q := b.ask, len(b.window)
	if r.n < q || ask.Section != "" && b.seats[r.first].Section != ask.Section {
		return
	}
	// No block of r scores less than Quantity times its nearest seat
	// (seatDistance never decreases with Distance, and counts NaN as
	// farthest): when that cannot beat either best, r cannot change them.
	if near := seatDistance(r.near); b.best[0] >= 0 && b.best[1] >= 0 && near <= math.MaxInt64/int64(q) {
		if least := int64(q) * near; least >= b.score[0] && least >= b.score[1] {
			return
		}
	}
	// pos is the seat's place in the run; the window has fit fitting
	// seats, sum their distances, and its next seat goes to next.
	pos, fit, sum, next := -1, 0, int64(0), 0
	for i := r.first; i <= r.last; i++ {
		s := &b.seats[i]
		if !s.Free {
			continue
		}
		pos++
		if ask.Category != "" && s.Category != ask.Category || ask.Accessible && !s.Accessible {
			fit, sum = 0, 0
			continue
		}
		d := seatDistance(s.Distance)
		if fit == q {
			sum -= b.window[next].dist // the seat leaving
		} else {
			fit++
		}
		b.window[next] = windowSeat{i, d}
		sum += d
		if next++; next == q {
			next = 0
		}
		if fit < q {
			continue
		}
		// The block is the window, from b.window[next]. The run has
		// pos-q+1 free seats before it and r.n-pos-1 after it; a side
		// with just one is an orphan.
		a := b.window[next].i
		if pos-q+1 != 1 && r.n-pos-1 != 1 && (b.best[0] < 0 || sum < b.score[0]) {
			b.best[0], b.score[0] = a, sum
		}
		if b.best[1] < 0 || sum < b.score[1] {
			b.best[1], b.score[1] = a, sum
		}
	}
}

// nearestSeats is rule 3 for seats in seat order: the indexes of the
// Quantity fitting seats with the smallest seatDistance, ties to the
// first, in seat order; nil when fewer fit. They gather in a max-heap of
// Quantity: the farthest of the nearest so far is on top, where a nearer
// seat replaces it.
func nearestSeats(seats []seatSpot, ask seatAsk) []int {
	q := ask.Quantity
	h := make([]nearSeat, 0, q)
	var far float64 // the Distance of the seat on top, once h is full
	for i := range seats {
		s := &seats[i]
		// A seat as far as the one on top, or farther, comes after it
		// and so would not replace it.
		if len(h) == q && s.Distance >= far || !ask.fits(s) {
			continue
		}
		switch n := (nearSeat{seatDistance(s.Distance), i}); {
		case len(h) < q:
			if h = append(h, n); len(h) == q {
				for k := q/2 - 1; k >= 0; k-- {
					siftDown(h, k)
				}
				far = seats[h[0].p].Distance
			}
		case n.before(h[0]):
			h[0] = n
			siftDown(h, 0)
			far = seats[h[0].p].Distance
		}
	}
	if len(h) < q {
		return nil
	}
	slices.SortFunc(h, func(a, b nearSeat) int { return cmp.Compare(a.p, b.p) })
	picked := make([]int, q)
	for k, n := range h {
		picked[k] = n.p
	}
	return picked
}

// nearSeat is a fitting seat for rule 3: its seatDistance and its index
// in seats, which are in seat order.
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

// namedSeats reads the seats of a show with the given ids, by id,
// locking them with lock.
func namedSeats(ctx context.Context, b stockade.BookingTx, showID string, ids []string, lock bool) (map[string]stockade.Seat, error) {
	seats, err := b.SeatList(ctx, showID, stockade.SeatFilter{IDs: ids, Lock: lock})
	if err != nil {
		return nil, err
	}
	named := make(map[string]stockade.Seat, len(seats))
	for _, s := range seats {
		named[s.ID] = s
	}
	return named, nil
}

// seatState is what best-available seats are chosen on: all of a show's
// seats, in seat order, as bestAvailable sees them, the free ones Free.
// Choosing seats marks them taken, so that the holds of a batch are
// decided one after the other on one read; a batch's state is kept for
// the next and brought up to date by the seat epoch's changes (catchUp).
type seatState struct {
	event   string
	version int64           // the event's, as read with the seats
	epoch   int64           // its seat epoch (BookingTx.SeatEpoch), once a hold batch knows it
	areas   []stockade.Area // as read with the seats
	seats   []stockade.Seat // the show's layout, shared: never changed
	spots   []seatSpot      // Free changes through setFree
	index   map[string]int  // seat id → its place in seats, shared with the layout

	// rows indexes spots from the second choice of best-available
	// seats on: a state a batch keeps answers many.
	rows      *seatRows
	choices   int
	unordered bool // spots are not in seat order: rows cannot index them
}

// setFree sets the Free of spot i.
func (st *seatState) setFree(i int, free bool) {
	if st.rows != nil {
		st.rows.setFree(i, free)
		return
	}
	st.spots[i].Free = free
}

// bestSeats is bestAvailable on st's spots.
func (st *seatState) bestSeats(ask seatAsk) (picked []int, together, ok bool) {
	if st.rows == nil && st.choices > 0 && !st.unordered {
		st.rows, st.unordered = newSeatRows(st.spots)
		st.unordered = !st.unordered
	}
	st.choices++
	if st.rows != nil {
		return st.rows.best(ask)
	}
	return bestAvailable(st.spots, ask)
}

// choose decides the seats of req: its named seats, which named holds
// (read from the store) and which must be free and not taken in st, then
// the best available on st. It marks them taken in st, and returns them
// all in the order chosen, the best available apart, and whether some
// best-available seats are apart. st may be nil for a request with no
// best-available seats. On a refusal st is as it was.
func (st *seatState) choose(req stockade.HoldRequest, named map[string]stockade.Seat) (ids, best []string, split bool, err error) {
	var taken []string
	for _, id := range req.Seats {
		s, ok := named[id]
		if !ok {
			return nil, nil, false, refuse(stockade.ENotFound, "show %q has no seat %q", req.ShowID, id)
		}
		if s.Status == stockade.SeatFree && st != nil {
			if i, ok := st.index[id]; ok && !st.spots[i].Free {
				s.Status = stockade.SeatHeld // by a hold decided before, in this batch
			}
		}
		if s.Status != stockade.SeatFree {
			taken = append(taken, fmt.Sprintf("%s (%s)", s.ID, s.Status))
		}
		ids = append(ids, s.ID)
	}
	if len(taken) > 0 {
		return nil, nil, false, refuse(stockade.ESeatsUnavailable, "seats not available: %s", list(taken))
	}
	var marked []int
	undo := func() {
		for _, i := range marked {
			st.setFree(i, true)
		}
	}
	if st != nil {
		for _, id := range ids {
			if i, ok := st.index[id]; ok {
				st.setFree(i, false)
				marked = append(marked, i)
			}
		}
	}
	for _, ask := range req.Best {
		picked, together, ok := st.bestSeats(seatAsk{Quantity: ask.Quantity, Category: ask.Category, Section: ask.Section,
			Accessible: ask.Accessible, Split: ask.AllowSplit})
		if !ok {
			err := soldOut(req.ShowID, ask, st.spots)
			undo()
			return nil, nil, false, err
		}
		for _, i := range picked {
			st.setFree(i, false)
			marked = append(marked, i)
			best = append(best, st.seats[i].ID)
		}
		split = split || !together
	}
	return append(ids, best...), best, split, nil
}

// soldOut explains why no seats meet ask: too few fit it, or not enough
// of them sit together.
func soldOut(event string, ask stockade.BestSeats, spots []seatSpot) error {
	var what []string
	if ask.Category != "" {
		what = append(what, "category "+ask.Category)
	}
	if ask.Section != "" {
		what = append(what, "section "+ask.Section)
	}
	if ask.Accessible {
		what = append(what, "accessible")
	}
	kind := "seats"
	if len(what) > 0 {
		kind = "seats of " + strings.Join(what, ", ")
	}
	fit := 0
	sa := seatAsk{Category: ask.Category, Section: ask.Section, Accessible: ask.Accessible}
	for i := range spots {
		if sa.fits(&spots[i]) {
			fit++
		}
	}
	if fit >= ask.Quantity {
		return refuse(stockade.ESoldOut, "show %q: no %d free %s side by side in one row (%d free apart; allow_split takes them)", event, ask.Quantity, kind, fit)
	}
	return refuse(stockade.ESoldOut, "show %q: %d free %s asked, %d left", event, ask.Quantity, kind, fit)
}

// catchUp brings st, kept at an older seat epoch, to epoch by applying
// the epoch's recorded changes in between, in order (see
// stockade.SeatEpochChange), and reports whether it could: a change the
// store no longer has, or a seat the layout lacks, leaves st to be read
// again. Its cost is the seats changed, not the show's.
func (st *seatState) catchUp(ctx context.Context, b stockade.BookingTx, epoch int64) (bool, error) {
	if st.epoch >= epoch {
		return st.epoch == epoch, nil
	}
	cs, err := b.SeatEpochChanges(ctx, st.event, st.epoch)
	if err != nil {
		return false, err
	}
	set := func(ids []string, free bool) bool {
		for _, id := range ids {
			i, ok := st.index[id]
			if !ok {
				return false
			}
			st.setFree(i, free)
		}
		return true
	}
	next := st.epoch + 1
	for _, c := range cs {
		if c.Epoch > epoch {
			break // committed since the epoch was read: the next batch applies it
		}
		if c.Epoch != next || !set(c.Freed, true) || !set(c.Taken, false) {
			return false, nil
		}
		next++
	}
	if next != epoch+1 {
		return false, nil
	}
	st.epoch = epoch
	return true, nil
}

// release marks the seats ids free again in st: a choice that the
// places of its hold turned down.
func (st *seatState) release(ids []string) {
	if st == nil {
		return
	}
	for _, id := range ids {
		if i, ok := st.index[id]; ok {
			st.setFree(i, true)
		}
	}
}

// seat returns the seat id, from st (which may be nil) or from named.
func (st *seatState) seat(id string, named map[string]stockade.Seat) stockade.Seat {
	if st != nil {
		if i, ok := st.index[id]; ok {
			return st.seats[i]
		}
	}
	return named[id]
}
