package engine

// seatRows indexes seats in seat order by row, for choosing best-available
// seats again and again while holds take them, as a batch does: each row
// keeps the best blocks it found for the asks it answered until one of
// its seats changes, so that a choice looks at each row once, and scans
// only the rows changed since it last looked. Blocks, runs and orphans
// never span two rows, so the best block of the seats is the best of the
// rows' best blocks, the first row's on a tie, as bestAvailable's scan
// of all the seats finds it.
//
// Seats change only through setFree.
type seatRows struct {
	seats []seatSpot
	rows  []rowSeats // in seat order
	rowOf []int32    // seat index → its row
}

// rowSeats is the seats seats[first:end] of one row (Section and Row).
type rowSeats struct {
	first, end int
	free       int       // how many of them are Free
	known      []rowBest // the answers of the asks since the row last changed
}

// rowBest is what scanBlocks found in one row for ask, as indexes into
// the whole seats.
type rowBest struct {
	ask   seatAsk
	best  [2]int
	score [2]int64
}

// maxKnown bounds the asks a row remembers: a venue's buyers ask for a
// few quantities, with or without a few filters.
const maxKnown = 8

// newSeatRows indexes seats, which it shares: their Free must change
// through setFree from now on. ok is false when the seats are not in seat
// order; the index cannot be used then.
func newSeatRows(seats []seatSpot) (x *seatRows, ok bool) {
	x = &seatRows{seats: seats, rowOf: make([]int32, len(seats))}
	for i := range seats {
		s := &seats[i]
		if i > 0 {
			p := &seats[i-1]
			if compareSeats(p, s) > 0 {
				return nil, false
			}
			if !sameString(p.Row, s.Row) || !sameString(p.Section, s.Section) {
				x.rows[len(x.rows)-1].end = i
				x.rows = append(x.rows, rowSeats{first: i})
			}
		} else {
			x.rows = append(x.rows, rowSeats{first: 0})
		}
		x.rowOf[i] = int32(len(x.rows) - 1)
		if s.Free {
			x.rows[len(x.rows)-1].free++
		}
	}
	if len(x.rows) > 0 {
		x.rows[len(x.rows)-1].end = len(seats)
	}
	return x, true
}

// setFree sets the Free of seat i, and makes its row forget its answers
// if it changed.
func (x *seatRows) setFree(i int, free bool) {
	if x.seats[i].Free == free {
		return
	}
	x.seats[i].Free = free
	r := &x.rows[x.rowOf[i]]
	if free {
		r.free++
	} else {
		r.free--
	}
	r.known = r.known[:0]
}

// best is bestAvailable(x.seats, ask), answered row by row.
func (x *seatRows) best(ask seatAsk) (picked []int, together, ok bool) {
	q := ask.Quantity
	if q < 1 || q > len(x.seats) {
		return nil, false, false
	}
	best, score := [2]int{-1, -1}, [2]int64{}
	for k := range x.rows {
		r := &x.rows[k]
		if r.free < q || ask.Section != "" && x.seats[r.first].Section != ask.Section {
			continue
		}
		rb := r.bestFor(x.seats, ask)
		for j := range best {
			if rb.best[j] >= 0 && (best[j] < 0 || rb.score[j] < score[j]) {
				best[j], score[j] = rb.best[j], rb.score[j]
			}
		}
	}
	return pickBlock(x.seats, ask, best)
}

// bestFor returns the row's best blocks for ask, scanning the row if it
// does not know them.
func (r *rowSeats) bestFor(seats []seatSpot, ask seatAsk) rowBest {
	for _, rb := range r.known {
		if rb.ask == ask {
			return rb
		}
	}
	// The row's free seats are in seat order: the index was built so.
	best, score, _ := scanBlocks(seats[r.first:r.end], ask)
	for j := range best {
		if best[j] >= 0 {
			best[j] += r.first
		}
	}
	rb := rowBest{ask: ask, best: best, score: score}
	if len(r.known) == maxKnown {
		r.known = r.known[:copy(r.known, r.known[1:])]
	}
	r.known = append(r.known, rb)
	return rb
}
