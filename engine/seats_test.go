package engine

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// seatRow lays out one row, a seat per byte of layout with Order 1, 2, … by
// position, except ' ', an aisle where no seat is:
//
//	'.' free, category "std"
//	'p' free, category "prem"
//	'w' free, "std", accessible
//	'x' taken, "std"
//
// Each seat's Distance is its Order, unless dist gives one per byte.
func seatRow(section, row, layout string, dist ...float64) []seatSpot {
	if dist != nil && len(dist) != len(layout) {
		panic("seatRow: one distance per byte of the layout")
	}
	var seats []seatSpot
	for k, c := range []byte(layout) {
		if c == ' ' {
			continue
		}
		s := seatSpot{Section: section, Row: row, Order: k + 1, Category: "std", Distance: float64(k + 1), Free: c != 'x'}
		if dist != nil {
			s.Distance = dist[k]
		}
		switch c {
		case 'p':
			s.Category = "prem"
		case 'w':
			s.Accessible = true
		case '.', 'x':
		default:
			panic("seatRow: unknown seat " + string(c))
		}
		seats = append(seats, s)
	}
	return seats
}

// seatPlace is where a seat is: what a pick is compared by.
type seatPlace struct {
	Section, Row string
	Order        int
}

func (p seatPlace) String() string { return fmt.Sprintf("%s/%s/%d", p.Section, p.Row, p.Order) }

func placeOf(s seatSpot) seatPlace { return seatPlace{s.Section, s.Row, s.Order} }

func comparePlaces(a, b seatPlace) int {
	return cmp.Or(strings.Compare(a.Section, b.Section), strings.Compare(a.Row, b.Row), cmp.Compare(a.Order, b.Order))
}

// seatNames names the picked seats "section/row/order".
func seatNames(seats []seatSpot, picked []int) []string {
	var names []string
	for _, i := range picked {
		names = append(names, placeOf(seats[i]).String())
	}
	return names
}

func TestBestAvailable(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	ask := func(q int) seatAsk { return seatAsk{Quantity: q} }
	tests := []struct {
		name     string
		seats    []seatSpot
		ask      seatAsk
		want     []string // nil: ok is false
		together bool
	}{{
		name:     "nearest block",
		seats:    seatRow("A", "1", "......"),
		ask:      ask(2),
		want:     []string{"A/1/1", "A/1/2"},
		together: true,
	}, {
		name:     "nearest row",
		seats:    slices.Concat(seatRow("A", "1", "....", 5, 5, 5, 5), seatRow("A", "2", "....", 1, 1, 1, 1)),
		ask:      ask(2),
		want:     []string{"A/2/1", "A/2/2"},
		together: true,
	}, {
		name:     "whole row",
		seats:    seatRow("A", "1", "...."),
		ask:      ask(4),
		want:     []string{"A/1/1", "A/1/2", "A/1/3", "A/1/4"},
		together: true,
	}, {
		name:     "an aisle breaks a block",
		seats:    seatRow("A", "1", ". .."),
		ask:      ask(2),
		want:     []string{"A/1/3", "A/1/4"},
		together: true,
	}, {
		name:  "aisles everywhere, no split",
		seats: seatRow("A", "1", ". . ."),
		ask:   ask(2),
	}, {
		name:  "aisles everywhere, split",
		seats: seatRow("A", "1", ". . ."),
		ask:   seatAsk{Quantity: 2, Split: true},
		want:  []string{"A/1/1", "A/1/3"},
	}, {
		name:     "a taken seat breaks a block",
		seats:    seatRow("A", "1", ".x.."),
		ask:      ask(2),
		want:     []string{"A/1/3", "A/1/4"},
		together: true,
	}, {
		// 2+3 strands 1 and 3+4 strands 5: 1+2 is farther but strands none.
		name:     "orphan avoided although a nearer block leaves one",
		seats:    seatRow("A", "1", ".....", 1.4, 0.4, 0.6, 1.6, 2.6),
		ask:      ask(2),
		want:     []string{"A/1/1", "A/1/2"},
		together: true,
	}, {
		// 1+2 strands 3 against the aisle, 2+3 strands 1 against the end.
		name:     "a seat before an aisle can be an orphan",
		seats:    seatRow("A", "1", "... ...."),
		ask:      ask(2),
		want:     []string{"A/1/5", "A/1/6"},
		together: true,
	}, {
		name:     "a taken seat beyond the neighbour makes it an orphan",
		seats:    seatRow("A", "1", "...x.."),
		ask:      ask(2),
		want:     []string{"A/1/5", "A/1/6"},
		together: true,
	}, {
		name:     "orphan allowed when it is the only way",
		seats:    seatRow("A", "1", "x...x"),
		ask:      ask(2),
		want:     []string{"A/1/2", "A/1/3"},
		together: true,
	}, {
		// Seat 1 is not for this ask, but 2+3 would still strand it.
		name:     "a free seat of another category still counts as an orphan",
		seats:    seatRow("A", "1", "p...."),
		ask:      seatAsk{Quantity: 2, Category: "std"},
		want:     []string{"A/1/4", "A/1/5"},
		together: true,
	}, {
		name:     "one seat does not strand its neighbour",
		seats:    seatRow("A", "1", "..x..."),
		ask:      ask(1),
		want:     []string{"A/1/4"},
		together: true,
	}, {
		name:     "one seat between taken ones",
		seats:    seatRow("A", "1", "x.x.."),
		ask:      ask(1),
		want:     []string{"A/1/2"},
		together: true,
	}, {
		name:     "one seat, every choice strands one",
		seats:    seatRow("A", "1", ".."),
		ask:      ask(1),
		want:     []string{"A/1/1"},
		together: true,
	}, {
		name:  "no block, no split",
		seats: slices.Concat(seatRow("A", "1", ".x."), seatRow("A", "2", ".x.")),
		ask:   ask(3),
	}, {
		name:  "split: the nearest seats, ties by row",
		seats: slices.Concat(seatRow("A", "1", ".x."), seatRow("A", "2", ".x.")),
		ask:   seatAsk{Quantity: 3, Split: true},
		want:  []string{"A/1/1", "A/1/3", "A/2/1"},
	}, {
		name:     "split is not used when a block exists",
		seats:    slices.Concat(seatRow("A", "1", ".x.x."), seatRow("A", "2", "...", 100, 100, 100)),
		ask:      seatAsk{Quantity: 2, Split: true},
		want:     []string{"A/2/1", "A/2/2"},
		together: true,
	}, {
		name:     "category",
		seats:    seatRow("A", "1", "..pp.."),
		ask:      seatAsk{Quantity: 2, Category: "prem"},
		want:     []string{"A/1/3", "A/1/4"},
		together: true,
	}, {
		name:     "section",
		seats:    slices.Concat(seatRow("A", "1", "..", 1, 1), seatRow("B", "1", "..", 5, 5)),
		ask:      seatAsk{Quantity: 2, Section: "B"},
		want:     []string{"B/1/1", "B/1/2"},
		together: true,
	}, {
		name:     "accessible",
		seats:    seatRow("A", "1", "w.w..ww"),
		ask:      seatAsk{Quantity: 2, Accessible: true},
		want:     []string{"A/1/6", "A/1/7"},
		together: true,
	}, {
		name:  "accessible, split",
		seats: seatRow("A", "1", "w.w..w."),
		ask:   seatAsk{Quantity: 2, Accessible: true, Split: true},
		want:  []string{"A/1/1", "A/1/3"},
	}, {
		name:  "all filters",
		seats: slices.Concat(seatRow("A", "1", "pp"), seatRow("B", "1", "pw")),
		ask:   seatAsk{Quantity: 1, Category: "std", Section: "B", Accessible: true},
		want:  []string{"B/1/2"},
		// B/1/1 is free: the pick strands it, but there is no other.
		together: true,
	}, {
		name:  "nothing free",
		seats: seatRow("A", "1", "xxx"),
		ask:   seatAsk{Quantity: 1, Split: true},
	}, {
		name:  "nothing fits",
		seats: seatRow("A", "1", "..."),
		ask:   seatAsk{Quantity: 1, Category: "prem", Split: true},
	}, {
		name:  "no seats",
		seats: nil,
		ask:   seatAsk{Quantity: 1, Split: true},
	}, {
		name:  "more than any row, no split",
		seats: slices.Concat(seatRow("A", "1", "...."), seatRow("A", "2", "....")),
		ask:   ask(5),
	}, {
		name:  "more than any row, split",
		seats: slices.Concat(seatRow("A", "1", "...."), seatRow("A", "2", "....")),
		ask:   seatAsk{Quantity: 5, Split: true},
		want:  []string{"A/1/1", "A/1/2", "A/1/3", "A/2/1", "A/2/2"},
	}, {
		name:  "more than all the seats",
		seats: slices.Concat(seatRow("A", "1", "...."), seatRow("A", "2", "....")),
		ask:   seatAsk{Quantity: 9, Split: true},
	}, {
		name:  "quantity 0",
		seats: seatRow("A", "1", "...."),
		ask:   seatAsk{Quantity: 0, Split: true},
	}, {
		name:  "negative quantity",
		seats: seatRow("A", "1", "...."),
		ask:   seatAsk{Quantity: -1, Split: true},
	}, {
		name:     "ties go to the first section",
		seats:    slices.Concat(seatRow("B", "1", ".."), seatRow("A", "1", "..")),
		ask:      ask(2),
		want:     []string{"A/1/1", "A/1/2"},
		together: true,
	}, {
		name:     "ties go to the first row, in byte order",
		seats:    slices.Concat(seatRow("A", "9", ".."), seatRow("A", "10", "..")),
		ask:      ask(2),
		want:     []string{"A/10/1", "A/10/2"},
		together: true,
	}, {
		// 2+3 and 3+4 strand a seat; 1+2 and 4+5 tie.
		name:     "ties go to the smaller first order",
		seats:    seatRow("A", "1", ".....", 2, 1, 0, 1, 2),
		ask:      ask(2),
		want:     []string{"A/1/1", "A/1/2"},
		together: true,
	}, {
		// In float64, 0.1+0.2+0.3 > 0.3+0.2+0.1: a float sum would pick B.
		name:     "mirrored sections tie exactly",
		seats:    slices.Concat(seatRow("B", "1", "...", 0.3, 0.2, 0.1), seatRow("A", "1", "...", 0.1, 0.2, 0.3)),
		ask:      ask(3),
		want:     []string{"A/1/1", "A/1/2", "A/1/3"},
		together: true,
	}, {
		name:     "NaN counts as far",
		seats:    slices.Concat(seatRow("A", "1", "..", nan, nan), seatRow("A", "2", "..", 5, 5)),
		ask:      ask(2),
		want:     []string{"A/2/1", "A/2/2"},
		together: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			picked, together, ok := bestAvailable(tc.seats, tc.ask)
			if ok != (tc.want != nil) {
				t.Fatalf("ok %v (picked %v), want %v", ok, seatNames(tc.seats, picked), tc.want != nil)
			}
			if got := seatNames(tc.seats, picked); !slices.Equal(got, tc.want) || together != tc.together {
				t.Errorf("picked %v together %v, want %v together %v", got, together, tc.want, tc.together)
			}
		})
	}
}

func TestSeatDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    float64
		want int64
	}{
		{0, 0},
		{1, 1e6},
		{0.1 + 0.2, 300_000},
		{1.0000004, 1_000_000},
		{1.0000005, 1_000_001},
		{-3, 0},
		{maxSeatDistance, 1e12},
		{2 * maxSeatDistance, 1e12},
		{math.Inf(1), 1e12},
		{math.NaN(), 1e12},
	}
	for _, tc := range tests {
		if got := seatDistance(tc.d); got != tc.want {
			t.Errorf("seatDistance(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

// randomVenue is a few small rows, with aisles, seats taken, both
// categories, accessible seats and distances that often tie, in a random
// order.
func randomVenue(r *rand.Rand) []seatSpot {
	var seats []seatSpot
	for _, section := range []string{"A", "B", "C"}[:1+r.IntN(3)] {
		for row := range 1 + r.IntN(3) {
			order := 0
			for range r.IntN(12) {
				order += 1 + b2i(r.IntN(6) == 0) // an aisle, one time in six
				seats = append(seats, seatSpot{
					Section:    section,
					Row:        strconv.Itoa(row + 1),
					Order:      order,
					Category:   []string{"std", "std", "std", "prem"}[r.IntN(4)],
					Accessible: r.IntN(5) == 0,
					Distance:   float64(r.IntN(8)) / 10,
					Free:       r.IntN(10) < 7,
				})
			}
		}
	}
	r.Shuffle(len(seats), func(i, j int) { seats[i], seats[j] = seats[j], seats[i] })
	return seats
}

func randomAsk(r *rand.Rand) seatAsk {
	ask := seatAsk{
		Quantity:   1 + r.IntN(5),
		Accessible: r.IntN(6) == 0,
		Split:      r.IntN(2) == 0,
	}
	if r.IntN(30) == 0 {
		ask.Quantity = 0
	}
	if r.IntN(3) == 0 {
		ask.Category = []string{"std", "prem"}[r.IntN(2)]
	}
	if r.IntN(3) == 0 {
		ask.Section = []string{"A", "B", "Z"}[r.IntN(3)]
	}
	return ask
}

// seatBlock is a block as the brute force sees it.
type seatBlock struct {
	first  seatPlace
	score  int64
	orphan bool
}

// seatTruth is what a brute force knows of seats and ask.
type seatTruth struct {
	at     map[seatPlace]seatSpot
	blocks []seatBlock // every block, in no order
	fit    []seatPlace // every fitting seat, in no order
}

func bruteSeats(seats []seatSpot, ask seatAsk) seatTruth {
	tr := seatTruth{at: map[seatPlace]seatSpot{}}
	for _, s := range seats {
		tr.at[placeOf(s)] = s
	}
	if ask.Quantity < 1 {
		return tr
	}
	for p, s := range tr.at {
		if ask.fits(&s) {
			tr.fit = append(tr.fit, p)
		}
		if b, ok := tr.block(p, ask); ok {
			tr.blocks = append(tr.blocks, b)
		}
	}
	return tr
}

func (tr seatTruth) free(p seatPlace) bool { return tr.at[p].Free }

// block is the block of ask.Quantity seats from first, if they all fit.
func (tr seatTruth) block(first seatPlace, ask seatAsk) (seatBlock, bool) {
	b := seatBlock{first: first}
	p := first
	for range ask.Quantity {
		s, ok := tr.at[p]
		if !ok || !ask.fits(&s) {
			return b, false
		}
		b.score += seatDistance(s.Distance)
		p.Order++
	}
	b.orphan = tr.orphan(first, ask.Quantity)
	return b, true
}

// orphan reports whether the n seats from first leave a lone free seat
// beside them.
func (tr seatTruth) orphan(first seatPlace, n int) bool {
	at := func(o int) bool { return tr.free(seatPlace{first.Section, first.Row, o}) }
	o, end := first.Order, first.Order+n // the block is [o, end)
	return at(o-1) && !at(o-2) || at(end) && !at(end+1)
}

// want is the answer by the rules, found by brute force: the block with the
// smallest score and then place, among those without orphan, else all;
// else, with Split, the nearest fitting seats.
func (tr seatTruth) want(ask seatAsk) (picked []seatPlace, together, ok bool) {
	if ask.Quantity < 1 {
		return nil, false, false
	}
	better := func(a, b seatBlock) int {
		return cmp.Or(cmp.Compare(a.score, b.score), comparePlaces(a.first, b.first))
	}
	for _, rule := range []func(seatBlock) bool{
		func(b seatBlock) bool { return !b.orphan },
		func(seatBlock) bool { return true },
	} {
		var best *seatBlock
		for _, b := range tr.blocks {
			if rule(b) && (best == nil || better(b, *best) < 0) {
				best = &b
			}
		}
		if best != nil {
			for k := range ask.Quantity {
				picked = append(picked, seatPlace{best.first.Section, best.first.Row, best.first.Order + k})
			}
			return picked, true, true
		}
	}
	if !ask.Split || len(tr.fit) < ask.Quantity {
		return nil, false, false
	}
	fit := slices.Clone(tr.fit)
	slices.SortFunc(fit, func(a, b seatPlace) int {
		return cmp.Or(cmp.Compare(seatDistance(tr.at[a].Distance), seatDistance(tr.at[b].Distance)), comparePlaces(a, b))
	})
	picked = fit[:ask.Quantity]
	slices.SortFunc(picked, comparePlaces)
	return picked, false, true
}

// drawVenue draws seats for a failure message, a row a line.
func drawVenue(seats []seatSpot) string {
	seats = slices.Clone(seats)
	slices.SortFunc(seats, func(a, b seatSpot) int { return comparePlaces(placeOf(a), placeOf(b)) })
	var sb strings.Builder
	for k, s := range seats {
		if k == 0 || s.Section != seats[k-1].Section || s.Row != seats[k-1].Row {
			fmt.Fprintf(&sb, "\n%s/%s:", s.Section, s.Row)
		}
		mark := "x"
		if s.Free {
			mark = "."
		}
		if s.Category == "prem" {
			mark += "p"
		}
		if s.Accessible {
			mark += "w"
		}
		fmt.Fprintf(&sb, " %d%s(%g)", s.Order, mark, s.Distance)
	}
	return sb.String()
}

// checkBestAvailable calls bestAvailable on seats and on other, the same
// seats in another order, and checks the answer against the rules.
func checkBestAvailable(t *testing.T, seats, other []seatSpot, ask seatAsk) {
	t.Helper()
	before := slices.Clone(seats)
	picked, together, ok := bestAvailable(seats, ask)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("ask %+v: picked %v together %v ok %v: %s; venue:%s",
			ask, seatNames(seats, picked), together, ok, fmt.Sprintf(format, args...), drawVenue(seats))
	}
	if !slices.Equal(seats, before) {
		fail("seats modified")
	}
	tr := bruteSeats(seats, ask)
	var places []seatPlace
	for k, i := range picked {
		if i < 0 || i >= len(seats) {
			fail("index %d out of range", i)
		}
		places = append(places, placeOf(seats[i]))
		if k > 0 && comparePlaces(places[k-1], places[k]) >= 0 {
			fail("not distinct and in seat order")
		}
	}

	// (a) Only free, fitting seats, exactly Quantity of them.
	if ok && len(picked) != ask.Quantity {
		fail("%d seats, want %d", len(picked), ask.Quantity)
	}
	if !ok && picked != nil {
		fail("seats picked, but not ok")
	}
	for _, i := range picked {
		if !ask.fits(&seats[i]) {
			fail("%v does not fit", placeOf(seats[i]))
		}
	}
	// (b) Together when a block exists, and then side by side.
	if len(tr.blocks) > 0 != together {
		fail("%d blocks exist", len(tr.blocks))
	}
	if together {
		for k := 1; k < len(places); k++ {
			if p, q := places[k-1], places[k]; p.Section != q.Section || p.Row != q.Row || p.Order+1 != q.Order {
				fail("%v and %v do not sit together", p, q)
			}
		}
	}
	// (c) No orphan when a block without one exists.
	if together && slices.ContainsFunc(tr.blocks, func(b seatBlock) bool { return !b.orphan }) && tr.orphan(places[0], len(places)) {
		fail("an orphan left, but a block without one exists")
	}
	// (d) Not ok only when no answer exists.
	if !ok && ask.Quantity >= 1 && (len(tr.blocks) > 0 || ask.Split && len(tr.fit) >= ask.Quantity) {
		fail("%d blocks and %d fitting seats exist", len(tr.blocks), len(tr.fit))
	}
	// (e) The same seats whatever the input order.
	otherPicked, otherTogether, otherOK := bestAvailable(other, ask)
	var otherPlaces []seatPlace
	for _, i := range otherPicked {
		otherPlaces = append(otherPlaces, placeOf(other[i]))
	}
	if otherOK != ok || otherTogether != together || !slices.Equal(otherPlaces, places) {
		fail("in another order: %v together %v ok %v", otherPlaces, otherTogether, otherOK)
	}
	// (f) The best of its rule: smallest score, then first place (for
	// Split, the nearest seats); the brute force finds the same.
	want, wantTogether, wantOK := tr.want(ask)
	if !slices.Equal(places, want) || together != wantTogether || ok != wantOK {
		fail("brute force picks %v together %v ok %v", want, wantTogether, wantOK)
	}
}

func TestBestAvailableProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	for range 5000 {
		seats, ask := randomVenue(r), randomAsk(r)
		other := slices.Clone(seats)
		r.Shuffle(len(other), func(i, j int) { other[i], other[j] = other[j], other[i] })
		checkBestAvailable(t, seats, other, ask)
	}
}

// FuzzBestAvailable decodes an ask from the first two bytes and a seat from
// each byte after:
//
//	ask:  quantity byte%7 (0 to 6); flags bit 0 Split, bit 1 Accessible,
//	      bits 2-3 category (any, std, prem, any), bits 4-5 section (any, A, B, Z)
//	seat: bit 0 section A/B, bit 1 row 1/2, bit 2 taken, bit 3 prem,
//	      bit 4 accessible, bits 5-7 distance in tenths
//
// A seat's Order is its byte's place, so consecutive bytes of one row sit
// together and a byte of another row between them is an aisle.
func FuzzBestAvailable(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 1, 0, 4, 0, 0, 1, 1, 0})
	f.Add([]byte{1, 0x16, 0x20, 0x48, 0x10, 0x11, 0xf3, 0x02})
	f.Add([]byte{4, 0x21, 0x01, 0x00, 0x02, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 200 {
			return
		}
		ask := seatAsk{
			Quantity:   int(data[0] % 7),
			Split:      data[1]&1 != 0,
			Accessible: data[1]&2 != 0,
			Category:   []string{"", "std", "prem", ""}[data[1]>>2&3],
			Section:    []string{"", "A", "B", "Z"}[data[1]>>4&3],
		}
		var seats []seatSpot
		for k, b := range data[2:] {
			s := seatSpot{
				Section:    string("AB"[b&1]),
				Row:        string("12"[b>>1&1]),
				Order:      k,
				Category:   "std",
				Free:       b&4 == 0,
				Accessible: b&16 != 0,
				Distance:   float64(b>>5) / 10,
			}
			if b&8 != 0 {
				s.Category = "prem"
			}
			seats = append(seats, s)
		}
		other := slices.Clone(seats)
		slices.Reverse(other)
		checkBestAvailable(t, seats, other, ask)
	})
}

// bestAvailableReference is bestAvailable as first written: a copy of
// the free seats, sorted unless they are in seat order, then the rules
// over it. bestAvailable must give the same answers, index for index.
func bestAvailableReference(seats []seatSpot, ask seatAsk) (picked []int, together bool, ok bool) {
	q := ask.Quantity
	if q < 1 {
		return nil, false, false
	}
	nfree, nfit := 0, 0
	for i := range seats {
		nfree += b2i(seats[i].Free)
	}
	free := make([]refFreeSeat, 0, nfree)
	for i := range seats {
		if s := &seats[i]; s.Free {
			f := refFreeSeat{i: i, dist: seatDistance(s.Distance), fits: ask.fits(s)}
			nfit += b2i(f.fits)
			free = append(free, f)
		}
	}
	if nfit < q {
		return nil, false, false
	}
	bySeat := func(a, b refFreeSeat) int { return compareSeats(&seats[a.i], &seats[b.i]) }
	if !slices.IsSortedFunc(free, bySeat) {
		slices.SortFunc(free, bySeat)
	}
	best := [2]int{-1, -1}
	var score [2]int64
	for lo := 0; lo < len(free); {
		hi := lo + 1
		for hi < len(free) && refBesides(&seats[free[hi-1].i], &seats[free[hi].i]) {
			hi++
		}
		n, sum := 0, int64(0)
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

type refFreeSeat struct {
	i    int
	dist int64
	fits bool
}

func refBesides(a, b *seatSpot) bool {
	return b.Order == a.Order+1 && a.Row == b.Row && a.Section == b.Section
}

// checkReference fails unless bestAvailable and bestAvailableReference
// give the same answer.
func checkReference(t *testing.T, what string, seats []seatSpot, ask seatAsk) {
	t.Helper()
	picked, together, ok := bestAvailable(seats, ask)
	want, wantTogether, wantOK := bestAvailableReference(seats, ask)
	if !slices.Equal(picked, want) || (picked == nil) != (want == nil) || together != wantTogether || ok != wantOK {
		t.Fatalf("%s, ask %+v: picked %v together %v ok %v, reference %v together %v ok %v; venue:%s",
			what, ask, picked, together, ok, want, wantTogether, wantOK, drawVenue(seats))
	}
}

// randomSeatMap is seats in seat order, made to catch a fast path out:
// names whose byte order is not their numeric one, a section or row
// repeated as another string, rows that start anywhere, aisles, two
// seats in one place, and distances that tie, round to a tie, or are NaN,
// negative or beyond maxSeatDistance.
func randomSeatMap(r *rand.Rand) []seatSpot {
	names := []string{"1", "2", "9", "10", "A", "B", "a"}
	distances := []float64{0, 0.25, 0.5, 0.5, 1, 1.0000004, 1.0000005, math.NaN(), -1, 2 * maxSeatDistance}
	var seats []seatSpot
	for range 1 + r.IntN(4) {
		section := names[r.IntN(len(names))]
		for range 1 + r.IntN(4) {
			row := names[r.IntN(len(names))]
			order := r.IntN(5) - 2
			for range r.IntN(25) {
				switch r.IntN(12) {
				case 0:
					order += 2 // an aisle
				case 1: // the same place as the seat before
				default:
					order++
				}
				s := seatSpot{
					Section:    section,
					Row:        row,
					Order:      order,
					Category:   []string{"std", "std", "prem"}[r.IntN(3)],
					Accessible: r.IntN(4) == 0,
					Distance:   distances[r.IntN(len(distances))],
					Free:       r.IntN(5) != 0,
				}
				if r.IntN(3) == 0 {
					s.Distance = float64(r.IntN(40)) / 8
				}
				if r.IntN(4) == 0 { // as a caller that does not intern
					s.Section, s.Row = strings.Clone(section), strings.Clone(row)
				}
				seats = append(seats, s)
			}
		}
	}
	slices.SortStableFunc(seats, func(a, b seatSpot) int { return compareSeats(&a, &b) })
	return seats
}

func randomMapAsk(r *rand.Rand) seatAsk {
	ask := seatAsk{
		Quantity:   1 + r.IntN(4),
		Accessible: r.IntN(8) == 0,
		Split:      r.IntN(2) == 0,
	}
	switch r.IntN(8) {
	case 0:
		ask.Quantity = 12 + r.IntN(12) // beyond the window kept on the stack
	case 1:
		ask.Quantity = r.IntN(3) - 1
	}
	if r.IntN(4) == 0 {
		ask.Category = []string{"std", "prem", "none"}[r.IntN(3)]
	}
	if r.IntN(4) == 0 {
		ask.Section = []string{"1", "10", "A", "Z"}[r.IntN(4)]
	}
	return ask
}

// TestBestAvailableReference compares bestAvailable with the reference
// on seats in seat order (its fast path), with the seats not free moved
// anywhere (still in seat order, as bestAvailable sees it), with two free
// seats swapped, and shuffled.
func TestBestAvailableReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 8))
	for range 20000 {
		seats, ask := randomSeatMap(r), randomMapAsk(r)
		checkReference(t, "in order", seats, ask)

		var taken []seatSpot
		moved := slices.DeleteFunc(slices.Clone(seats), func(s seatSpot) bool {
			if !s.Free {
				taken = append(taken, s)
			}
			return !s.Free
		})
		for _, s := range taken {
			moved = slices.Insert(moved, r.IntN(len(moved)+1), s)
		}
		checkReference(t, "taken seats moved", moved, ask)

		if len(seats) >= 2 {
			swapped := slices.Clone(seats)
			k := r.IntN(len(seats) - 1)
			swapped[k], swapped[k+1] = swapped[k+1], swapped[k]
			checkReference(t, "two swapped", swapped, ask)
		}

		shuffled := slices.Clone(seats)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		checkReference(t, "shuffled", shuffled, ask)
	}
}

// TestBestAvailableReferenceOnSale compares bestAvailable with the
// reference on the benchmark's venue as a batch of holds takes its seats,
// one ask after the other, until none is met.
func TestBestAvailableReferenceOnSale(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 9))
	seats := benchVenue(20)
	for range 400 {
		ask := seatAsk{Quantity: 1 + r.IntN(8), Split: r.IntN(4) == 0}
		switch r.IntN(10) {
		case 0:
			ask.Category = "prem"
		case 1:
			ask.Accessible = true
		case 2:
			ask.Section = fmt.Sprintf("S%02d", r.IntN(10))
		case 3:
			ask.Quantity = 20 + r.IntN(40)
		}
		checkReference(t, "on sale", seats, ask)
		picked, _, _ := bestAvailable(seats, ask)
		for _, i := range picked {
			seats[i].Free = false
		}
	}
}

// TestBestAvailableAllocs checks that seats in seat order cost
// allocations for the answer only, not for every seat. It is not parallel:
// testing.AllocsPerRun counts the allocations of the whole process.
func TestBestAvailableAllocs(t *testing.T) {
	seats := benchVenue(50)
	for _, ask := range []seatAsk{{Quantity: 1}, {Quantity: 4, Category: "prem"}, {Quantity: 16, Section: "S03"}} {
		if n := testing.AllocsPerRun(20, func() { bestAvailable(seats, ask) }); n > 1 {
			t.Errorf("ask %+v: %v allocations, want 1", ask, n)
		}
	}
}

// FuzzBestAvailableReference compares bestAvailable with the reference
// on seats in the order decoded, and then sorted. The first two bytes are
// the ask as in FuzzBestAvailable, but quantity byte%20; then a seat a
// byte:
//
//	bit 0 section A/B, bit 1 row 1/2, bits 2-3 Order the last seat's
//	plus 1, plus 0, plus 2 or minus 1, bit 4 taken, bit 5 prem,
//	bit 6 accessible, bit 7 distance 0.5 more
func FuzzBestAvailableReference(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 1, 0x00, 0x04, 0x08, 0x0c, 0x01, 0x05, 0x10, 0x80, 0x20})
	f.Add([]byte{17, 0x21, 0x01, 0x00, 0x02, 0x03, 0x40, 0x00, 0x00, 0x84, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 300 {
			return
		}
		ask := seatAsk{
			Quantity:   int(data[0] % 20),
			Split:      data[1]&1 != 0,
			Accessible: data[1]&2 != 0,
			Category:   []string{"", "std", "prem", ""}[data[1]>>2&3],
			Section:    []string{"", "A", "B", "Z"}[data[1]>>4&3],
		}
		var seats []seatSpot
		order := 0
		for k, b := range data[2:] {
			order += []int{1, 0, 2, -1}[b>>2&3]
			s := seatSpot{
				Section:    string("AB"[b&1]),
				Row:        string("12"[b>>1&1]),
				Order:      order,
				Category:   "std",
				Free:       b&16 == 0,
				Accessible: b&64 != 0,
				Distance:   float64(k%4)/4 + float64(b>>7)/2,
			}
			if b&32 != 0 {
				s.Category = "prem"
			}
			seats = append(seats, s)
		}
		checkReference(t, "as decoded", seats, ask)
		slices.SortStableFunc(seats, func(a, b seatSpot) int { return compareSeats(&a, &b) })
		checkReference(t, "sorted", seats, ask)
	})
}

// benchVenue is 10 sections of 25 rows of 40 seats in seat order, each
// taken at random with a chance of 1 in taken. Sections stand side by
// side, an aisle of 4 seats between them, facing a stage in the middle of
// the front; rows 1 to 5 are "prem" and the back row is accessible.
func benchVenue(taken int) []seatSpot {
	r := rand.New(rand.NewPCG(1, 2))
	const sections, rows, perRow = 10, 25, 40
	var seats []seatSpot
	for sec := range sections {
		for row := range rows {
			// One string per section and per row, as the engine
			// interns them.
			section, rowName := fmt.Sprintf("S%02d", sec), fmt.Sprintf("%02d", row+1)
			for o := range perRow {
				x := float64(sec*(perRow+4)+o) - float64(sections*(perRow+4))/2
				y := float64(row) + 5
				s := seatSpot{
					Section:    section,
					Row:        rowName,
					Order:      o + 1,
					Category:   "std",
					Accessible: row == rows-1,
					Distance:   math.Hypot(x, y),
					Free:       r.IntN(taken) != 0,
				}
				if row < 5 {
					s.Category = "prem"
				}
				seats = append(seats, s)
			}
		}
	}
	return seats
}

func BenchmarkBestAvailable(b *testing.B) {
	seats := benchVenue(2)
	shuffled := slices.Clone(seats)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// As the engine sees an event on sale: its free seats, a few of them
	// taken by the holds decided before in the batch.
	onSale := benchVenue(50)
	for _, bc := range []struct {
		name  string
		seats []seatSpot
		ask   seatAsk
	}{
		{"q=1", seats, seatAsk{Quantity: 1}},
		{"q=2", seats, seatAsk{Quantity: 2}},
		{"q=4", seats, seatAsk{Quantity: 4}},
		{"q=8", seats, seatAsk{Quantity: 8}},
		{"q=4,prem", seats, seatAsk{Quantity: 4, Category: "prem"}},
		{"q=2,accessible", seats, seatAsk{Quantity: 2, Accessible: true}},
		{"q=4,section", seats, seatAsk{Quantity: 4, Section: "S05"}},
		{"q=30,split", seats, seatAsk{Quantity: 30, Split: true}},
		{"q=4,shuffled", shuffled, seatAsk{Quantity: 4}},
		{"q=30,split,shuffled", shuffled, seatAsk{Quantity: 30, Split: true}},
		{"onsale,q=2", onSale, seatAsk{Quantity: 2}},
		{"onsale,q=4,prem", onSale, seatAsk{Quantity: 4, Category: "prem"}},
		{"onsale,q=6,accessible", onSale, seatAsk{Quantity: 6, Accessible: true}},
		{"onsale,q=60,split", onSale, seatAsk{Quantity: 60, Split: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := bestAvailable(bc.seats, bc.ask); !ok {
					b.Fatal("no seats")
				}
			}
		})
	}
}
