package bench

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
)

// The onsale workload: one event's seats go on sale, and many buyers ask
// for them at once through the BookingService. See the package
// documentation for its shape.

// Shape of the onsale workload.
const (
	onsaleRowSeats     = 40   // seats in a full row
	onsaleSectionRows  = 25   // rows in a full section
	onsaleAcross       = 5    // sections side by side in a tier
	onsaleAisle        = 4    // seat widths between two sections of a tier
	onsaleTierGap      = 3    // row depths between two tiers
	onsaleStage        = 5    // row depths from the focal point to the first row
	onsaleHotSeats     = 24   // the seats nearest the focal point, that named pairs are drawn from
	onsaleNamedShare   = 0.10 // share of holds that name a pair of hot seats
	onsaleMaxBest      = 6    // best-available holds ask for 1 to this many seats
	onsaleConfirmShare = 0.8  // share of successful holds confirmed at once; the rest expire
	onsaleSoldOutPause = 50 * time.Millisecond
	onsaleSettle       = 10 * time.Second // over HTTP, how long to wait for the service's sweeper
)

// OnSaleResult is what a run of the onsale workload measured beside the
// requests, latencies and outcomes of its Result.
type OnSaleResult struct {
	// Seats is the event's seats.
	Seats int `json:"seats"`
	// Holds counts the successful holds and SeatsHeld their seats (a seat
	// held again after a hold expired counts again). HoldsPerSec and
	// SeatsPerSec are the rate of the first sale, until 95% of the seats
	// were held (see saleRate): an event that sells out in a second of a
	// ten-second run sold at the rate of that second.
	Holds       int     `json:"holds"`
	SeatsHeld   int     `json:"seats_held"`
	HoldsPerSec float64 `json:"holds_per_sec"`
	// Bookings counts the confirmed holds and SeatsBooked their seats.
	Bookings    int     `json:"bookings"`
	SeatsBooked int     `json:"seats_booked"`
	SeatsPerSec float64 `json:"seats_per_sec"` // seats held per second of the first sale
	// HoldP50Ms and HoldP99Ms are the latencies of the hold requests
	// alone, successful or not, in milliseconds.
	HoldP50Ms float64 `json:"hold_p50_ms"`
	HoldP99Ms float64 `json:"hold_p99_ms"`
	// SoldOut is true when every seat was booked, which ends the run.
	SoldOut bool `json:"sold_out"`
	// Left counts the event's seats by status after the run and a final
	// sweep (in process; over HTTP, after the service's sweeper freed the
	// expired holds, or after a wait).
	Left map[stockade.SeatStatus]int `json:"seats_left"`
	// Orphans counts the free seats left whose neighbours in their row
	// are both taken or absent: single seats stranded.
	Orphans int `json:"orphans"`
}

// onsaleShow returns the event of n seats that a run sells: rows of
// onsaleRowSeats seats numbered from 1 (the last row shorter when n is
// not a multiple), onsaleSectionRows rows to a section, sections
// onsaleAcross side by side in tiers one behind the other, and the focal
// point (the stage) in front of the first tier's middle. Seats are one
// unit apart along a row and rows one unit apart, so the distance to the
// stage varies with the section, the row and the place in the row.
// 10,000 seats are 10 sections (2 tiers of 5) of 25 rows of 40.
func onsaleShow(id string, n int) stockade.Show {
	rows := (n + onsaleRowSeats - 1) / onsaleRowSeats
	sections := (rows + onsaleSectionRows - 1) / onsaleSectionRows
	across := min(sections, onsaleAcross)
	width := across*onsaleRowSeats + (across-1)*onsaleAisle
	ev := stockade.Show{ID: id, Name: fmt.Sprintf("bench on-sale of %d seats", n),
		Focal: stockade.SeatPoint{X: float64(width-1) / 2}}
	for r := range rows {
		s, row := r/onsaleSectionRows, r%onsaleSectionRows
		col, tier := s%onsaleAcross, s/onsaleAcross
		ev.Rows = append(ev.Rows, stockade.SeatRow{
			Section: fmt.Sprintf("s%02d", s+1),
			Row:     fmt.Sprintf("r%02d", row+1),
			First:   1,
			Last:    min(onsaleRowSeats, n-r*onsaleRowSeats),
			Start: stockade.SeatPoint{
				X: float64(col * (onsaleRowSeats + onsaleAisle)),
				Y: float64(onsaleStage + tier*(onsaleSectionRows+onsaleTierGap) + row),
			},
		})
	}
	return ev
}

// hotPairs returns the pairs of seats side by side among the
// onsaleHotSeats seats of ev nearest its focal point, in seat order:
// what buyers who pick seats on the map ask for, and collide on. Pairs
// overlap (seats 5+6 and 6+7), so they collide with each other as well
// as with best-available holds, which start there too.
func hotPairs(ev stockade.Show) [][2]string {
	var seats []stockade.Seat
	for _, r := range ev.Rows {
		seats = append(seats, r.Seats()...)
	}
	dist := func(s stockade.Seat) float64 {
		return math.Hypot(s.Position.X-ev.Focal.X, s.Position.Y-ev.Focal.Y)
	}
	slices.SortStableFunc(seats, func(a, b stockade.Seat) int { return cmp.Compare(dist(a), dist(b)) })
	hot := seats[:min(onsaleHotSeats, len(seats))]
	slices.SortFunc(hot, stockade.Seat.Compare)
	var pairs [][2]string
	for i := 1; i < len(hot); i++ {
		a, b := hot[i-1], hot[i]
		if a.Section == b.Section && a.Row == b.Row && b.Order == a.Order+1 {
			pairs = append(pairs, [2]string{a.ID, b.ID})
		}
	}
	return pairs
}

// onsale is one run's event and what its clients share.
type onsale struct {
	id    string
	ttl   time.Duration
	seats int
	pairs [][2]string
	// booked counts the seats the clients booked; the client that books
	// the last seat ends the run.
	booked atomic.Int64
}

// setup creates the event of seats seats.
func (w *onsale) setup(ctx context.Context, bk stockade.BookingService, seats int) error {
	ev := onsaleShow(w.id, seats)
	if _, err := bk.PutShow(ctx, ev, nil); err != nil {
		return fmt.Errorf("show %s: %w", w.id, err)
	}
	w.seats, w.pairs = seats, hotPairs(ev)
	return nil
}

// holdFate is what became of a successful hold.
type holdFate int

const (
	holdLeft      holdFate = iota // left to expire
	holdBooked                    // confirmed
	holdLapsed                    // its confirm was refused: hold_expired
	holdUncertain                 // its confirm failed otherwise: booked or not
)

// onsaleHold is a successful hold, as the client got it.
type onsaleHold struct {
	id      string
	seats   []string
	created time.Time // the service's clock, when its transaction began
	expires time.Time // the service's clock
	got     time.Time // this process's clock, when the hold came back: after its commit
	fate    holdFate
	// booking and booked are its booking's id and creation time (the
	// service's clock), once confirmed.
	booking string
	booked  time.Time
}

// onsaleTally is what onsale's clients saw beside a tally's outcomes.
type onsaleTally struct {
	holds   []*onsaleHold
	holdLat []time.Duration
	// unknownSeats counts the seats asked by holds that failed other than
	// by a refusal: they may hold seats that no client knows of.
	unknownSeats int
	// bad counts holds and bookings that were not what was asked;
	// badSample is the first.
	bad       int
	badSample string
}

func (t *onsaleTally) merge(o *onsaleTally) {
	t.holds = append(t.holds, o.holds...)
	t.holdLat = append(t.holdLat, o.holdLat...)
	t.unknownSeats += o.unknownSeats
	t.bad += o.bad
	if t.badSample == "" {
		t.badSample = o.badSample
	}
}

func (t *onsaleTally) wrong(msg string) {
	t.bad++
	if t.badSample == "" {
		t.badSample = msg
	}
}

// client holds seats until claim refuses: best available of 1 to
// onsaleMaxBest seats, or a named hot pair, then confirms its share of
// the holds at once and leaves the rest to expire.
func (w *onsale) client(ctx context.Context, c *client) {
	for c.claim() {
		rec, err := w.hold(ctx, c, nil)
		switch {
		case err == nil:
		case stockade.ErrorCode(err) == stockade.ESoldOut:
			// A buyer told there is nothing left looks again a moment later.
			sleep(ctx, soldOutPause(c))
			continue
		default:
			continue
		}
		w.settleHold(ctx, c, rec)
	}
}

// soldOutPause is how long a buyer told sold_out waits before it asks
// again: onsaleSoldOutPause to twice that.
func soldOutPause(c *client) time.Duration {
	return onsaleSoldOutPause + time.Duration(c.rng.Int64N(int64(onsaleSoldOutPause)))
}

// hold asks for a hold as a buyer does, through admission if it is not
// nil: a named pair of hot seats (onsaleNamedShare of the holds), or the
// best 1 to onsaleMaxBest seats side by side. It records the request and,
// if the hold succeeded, the hold, which it returns.
func (w *onsale) hold(ctx context.Context, c *client, admission *stockade.AdmissionProof) (*onsaleHold, error) {
	req := stockade.HoldRequest{ShowID: w.id, TTL: w.ttl, Admission: admission}
	asked := 2
	if len(w.pairs) > 0 && c.rng.Float64() < onsaleNamedShare {
		p := w.pairs[c.rng.IntN(len(w.pairs))]
		req.Seats = []string{p[0], p[1]}
	} else {
		asked = 1 + c.rng.IntN(onsaleMaxBest)
		req.Best = []stockade.BestSeats{{Quantity: asked}}
	}
	var h stockade.Hold
	err := c.do("hold", nil, false, func() (err error) {
		h, err = c.bk.HoldSeats(ctx, req, nil)
		return err
	})
	c.t.on.holdLat = append(c.t.on.holdLat, c.t.lat[len(c.t.lat)-1])
	if err != nil {
		if !c.refused(err) {
			c.t.on.unknownSeats += asked
		}
		return nil, err
	}
	rec := &onsaleHold{id: h.ID, seats: h.Seats, created: h.CreatedAt, expires: h.ExpiresAt, got: time.Now()}
	c.t.on.holds = append(c.t.on.holds, rec)
	if msg := wrongHold(req, asked, h); msg != "" {
		c.t.on.wrong(msg)
	}
	return rec, nil
}

// settleHold confirms rec's hold at once, onsaleConfirmShare of the
// time and while claim allows, and leaves it to expire otherwise; it
// records what became of it. The confirm that books the event's last
// seat ends the run (c.stop).
func (w *onsale) settleHold(ctx context.Context, c *client, rec *onsaleHold) {
	if c.rng.Float64() >= onsaleConfirmShare || !c.claim() {
		c.t.abandoned++
		return
	}
	var bkg stockade.Booking
	err := c.do("confirm", nil, false, func() (err error) {
		bkg, err = c.bk.ConfirmHold(ctx, rec.id, nil)
		return err
	})
	switch code := stockade.ErrorCode(err); {
	case err == nil:
		rec.fate, rec.booking, rec.booked = holdBooked, bkg.ID, bkg.CreatedAt
		if bkg.HoldID != rec.id || !slices.Equal(bkg.Seats, rec.seats) {
			c.t.on.wrong(fmt.Sprintf("booking %s of hold %s has seats %v, the hold %v", bkg.ID, bkg.HoldID, bkg.Seats, rec.seats))
		}
		if w.booked.Add(int64(len(rec.seats))) >= int64(w.seats) {
			c.stop() // sold out
		}
	case code == stockade.EHoldExpired:
		rec.fate = holdLapsed
	default:
		rec.fate = holdUncertain
	}
}

// wrongHold says what is wrong with h, the answer to req, which asked
// for asked seats: too many or too few seats, a seat twice, not the seats
// named, best-available seats that do not sit together. It returns "" if
// nothing is.
func wrongHold(req stockade.HoldRequest, asked int, h stockade.Hold) string {
	seats := slices.Clone(h.Seats)
	slices.Sort(seats)
	switch {
	case h.ID == "" || h.Status != stockade.HoldHeld:
		return fmt.Sprintf("hold %q is %q, want a held hold with an id", h.ID, h.Status)
	case len(h.Seats) != asked:
		return fmt.Sprintf("hold %s took %d seats (%v), %d asked", h.ID, len(h.Seats), h.Seats, asked)
	case len(slices.Compact(seats)) != len(h.Seats):
		return fmt.Sprintf("hold %s took a seat twice: %v", h.ID, h.Seats)
	case !h.ExpiresAt.After(h.CreatedAt):
		return fmt.Sprintf("hold %s expires at %s, not after its creation at %s", h.ID, h.ExpiresAt, h.CreatedAt)
	case len(req.Seats) > 0:
		named := slices.Clone(req.Seats)
		slices.Sort(named)
		if !slices.Equal(seats, named) {
			return fmt.Sprintf("hold %s took %v, %v named", h.ID, h.Seats, req.Seats)
		}
	case h.Split || !together(seats):
		return fmt.Sprintf("hold %s took %v, not side by side in one row", h.ID, h.Seats)
	}
	return ""
}

// together reports whether seat ids of onsaleShow's seats (SECTION/ROW/N)
// are in one row and numbered without a gap. Its rows have no aisles, so
// those seats sit side by side.
func together(ids []string) bool {
	var row string
	nums := make([]int, 0, len(ids))
	for _, id := range ids {
		i := strings.LastIndexByte(id, '/')
		n, err := strconv.Atoi(id[i+1:])
		if i < 0 || err != nil || (row != "" && id[:i] != row) {
			return false
		}
		row = id[:i]
		nums = append(nums, n)
	}
	slices.Sort(nums)
	return len(nums) == 0 || nums[len(nums)-1]-nums[0] == len(nums)-1
}

// check lets the holds left to expire lapse and be swept, reads every
// seat of the event, and returns what is wrong: a seat in two holds or
// bookings at once, or held after it was booked; a seat whose status is
// not what the clients' holds and bookings leave; seat counts that do not
// match them or each other; holds that were not what was asked; requests
// that failed other than by a refusal. It completes res with
// res.OnSale.
func (w *onsale) check(ctx context.Context, tg target, t *tally, res *Result) ([]string, error) {
	var viol []string
	report := func(format string, args ...any) {
		viol = append(viol, fmt.Sprintf(format, args...))
	}
	on := &t.on
	sweptAt, swept, err := w.settle(ctx, tg, on)
	if err != nil {
		return nil, err
	}
	res.Swept += swept
	// mayHold reports whether h, not booked, may still hold its seats: it
	// had not lapsed when the final sweep began, or, over HTTP, the
	// service's sweeper may not have come to it yet.
	mayHold := func(h *onsaleHold) bool {
		return h.fate != holdBooked && (tg.eng == nil || !h.expires.Before(sweptAt))
	}
	seats, err := w.readSeats(ctx, tg.bk)
	if err != nil {
		return nil, err
	}
	view, err := tg.bk.Show(ctx, w.id)
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", w.id, err)
	}

	left := map[stockade.SeatStatus]int{}
	byID := make(map[string]stockade.Seat, len(seats))
	for _, s := range seats {
		left[s.Status]++
		byID[s.ID] = s
	}
	if len(seats) != w.seats || len(byID) != len(seats) {
		report("the event lists %d seats (%d distinct), want %d", len(seats), len(byID), w.seats)
	}
	counted := map[stockade.SeatStatus]int{}
	for _, c := range view.Counts {
		counted[c.Status] += int(c.Count)
	}
	for _, st := range stockade.SeatStatuses {
		// Over HTTP the service's sweeper may free held seats between the
		// two reads.
		if counted[st] != left[st] && (tg.eng != nil || st == stockade.SeatBooked || st == stockade.SeatBlocked) {
			report("the event counts %d %s seats, its seats list %d", counted[st], st, left[st])
		}
	}

	// Each seat's holds: at most one booked it, none took it while
	// another had it, and together they say what the seat must be now.
	claims := map[string][]*onsaleHold{}
	booked, maybe := 0, 0 // seats of confirmed holds, and of holds whose confirm failed
	for _, h := range on.holds {
		for _, s := range h.seats {
			claims[s] = append(claims[s], h)
		}
		switch h.fate {
		case holdBooked:
			booked += len(h.seats)
		case holdUncertain:
			maybe += len(h.seats)
		}
	}
	var bad []string
	wrong := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	for _, id := range slices.Sorted(maps.Keys(claims)) {
		hs := claims[id]
		if msg := overlap(id, hs, tg.eng != nil); msg != "" {
			wrong("%s", msg)
			continue
		}
		// What the seat must be now: booked by the hold that booked it;
		// anything if a hold's confirm failed; else free, its holds
		// expired, or still held by one that had not lapsed (see mayHold).
		i := slices.IndexFunc(hs, func(h *onsaleHold) bool { return h.fate == holdBooked })
		s, ok := byID[id]
		switch {
		case !ok:
			wrong("seat %s of hold %s is not in the event", id, hs[0].id)
		case i >= 0:
			if s.Status != stockade.SeatBooked || s.BookingID != hs[i].booking {
				wrong("seat %s: %s (booking %q), want booked by %s", id, s.Status, s.BookingID, hs[i].booking)
			}
		case slices.ContainsFunc(hs, func(h *onsaleHold) bool { return h.fate == holdUncertain }):
		case s.Status == stockade.SeatHeld && slices.ContainsFunc(hs, func(h *onsaleHold) bool { return h.id == s.HoldID && mayHold(h) }):
		case s.Status != stockade.SeatFree:
			wrong("seat %s: %s (hold %q, booking %q), want free: its holds were left to expire and lapsed", id, s.Status, s.HoldID, s.BookingID)
		}
	}
	unknown := 0
	for _, s := range seats {
		if _, ok := claims[s.ID]; !ok && (s.Status == stockade.SeatHeld || s.Status == stockade.SeatBooked) {
			if unknown++; unknown > on.unknownSeats {
				wrong("seat %s: %s (hold %q, booking %q), but no client held it", s.ID, s.Status, s.HoldID, s.BookingID)
			}
		}
	}
	if len(bad) > 0 {
		viol = append(viol, bad[:min(len(bad), 5)]...)
		if len(bad) > 5 {
			report("and %d more seats", len(bad)-5)
		}
	}
	if n := left[stockade.SeatBooked]; n < booked || n > booked+maybe+on.unknownSeats {
		report("%d seats booked, but the clients booked %d (+%d in requests that failed)", n, booked, maybe+on.unknownSeats)
	}
	if on.bad > 0 {
		report("%d holds or bookings were not what was asked; first: %s", on.bad, on.badSample)
	}
	if t.errors > 0 {
		report("%d requests failed other than by a refusal; first: %s", t.errors, t.errSample)
	}

	r := &OnSaleResult{Seats: w.seats, Holds: len(on.holds), SeatsBooked: booked, Left: left, Orphans: orphans(seats),
		SoldOut: left[stockade.SeatBooked] == w.seats}
	for _, h := range on.holds {
		r.SeatsHeld += len(h.seats)
		if h.fate == holdBooked {
			r.Bookings++
		}
	}
	r.HoldsPerSec, r.SeatsPerSec = saleRate(on.holds, w.seats, res.Seconds)
	lat := slices.Clone(on.holdLat)
	slices.Sort(lat)
	r.HoldP50Ms, r.HoldP99Ms = percentile(lat, 0.50), percentile(lat, 0.99)
	res.OnSale = r
	res.UnitsSold = int64(booked)
	return viol, nil
}

// overlap says how hs, the holds of seat id, had the seat at once, or ""
// if they did not. In this workload nothing is released or cancelled, so
// a seat's holds must follow each other, each expired before the next
// took the seat, and only the last may be booked. A hold's timestamps are
// taken when its transaction begins, not when it commits, so the checks
// are those that no wait in a queue can explain:
//   - two bookings of the seat;
//   - a hold begun (CreatedAt) after a booking of the seat was (the
//     service's clock): the seat was held or booked by then;
//   - with sameClock (in process), two holds each of which came back
//     before the other's expiry: whichever committed first was still
//     unexpired when the other committed. A booked hold never expires.
func overlap(id string, hs []*onsaleHold, sameClock bool) string {
	var booked *onsaleHold
	for _, h := range hs {
		if h.fate != holdBooked {
			continue
		}
		if booked != nil {
			return fmt.Sprintf("seat %s: booked twice: by %s (hold %s) and %s (hold %s)", id, booked.booking, booked.id, h.booking, h.id)
		}
		booked = h
	}
	if booked != nil {
		for _, h := range hs {
			if h != booked && h.created.After(booked.booked) {
				return fmt.Sprintf("seat %s: held by %s from %s, after %s booked it at %s (booking %s)",
					id, h.id, h.created.Format(time.StampMicro), booked.id, booked.booked.Format(time.StampMicro), booked.booking)
			}
		}
	}
	if !sameClock {
		return ""
	}
	end := func(h *onsaleHold) time.Time {
		if h.fate == holdBooked {
			return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return h.expires
	}
	for i, a := range hs {
		for _, b := range hs[i+1:] {
			if !end(a).Before(b.got) && !end(b).Before(a.got) {
				return fmt.Sprintf("seat %s: in two holds at once: %s came back at %s and lasts until %s, %s came back at %s and lasts until %s",
					id, a.id, a.got.Format(time.StampMicro), end(a).Format(time.StampMicro), b.id, b.got.Format(time.StampMicro), end(b).Format(time.StampMicro))
			}
		}
	}
	return ""
}

// settle waits, up to onsaleSettle, until the holds left to expire have
// lapsed, and then, in process, sweeps them; over HTTP it waits, within
// the same bound, for the service's sweeper to free every held seat. It
// returns when the final sweep began (in process) and how many holds it
// swept.
func (w *onsale) settle(ctx context.Context, tg target, on *onsaleTally) (sweptAt time.Time, swept int, err error) {
	deadline := time.Now().Add(onsaleSettle)
	var last time.Time
	for _, h := range on.holds {
		if h.fate != holdBooked && h.expires.After(last) {
			last = h.expires
		}
	}
	sleep(ctx, min(time.Until(last)+10*time.Millisecond, time.Until(deadline)))
	if tg.eng != nil {
		sweptAt = time.Now()
		n, err := tg.eng.Sweep(ctx)
		if err != nil {
			return sweptAt, n, fmt.Errorf("final sweep: %w", err)
		}
		return sweptAt, n, nil
	}
	for {
		v, err := tg.bk.Show(ctx, w.id)
		if err != nil {
			return sweptAt, 0, fmt.Errorf("show %s: %w", w.id, err)
		}
		if !slices.ContainsFunc(v.Counts, func(c stockade.SeatCount) bool { return c.Status == stockade.SeatHeld && c.Count > 0 }) ||
			time.Now().After(deadline) {
			return sweptAt, 0, nil
		}
		sleep(ctx, 250*time.Millisecond)
	}
}

// readSeats reads every seat of the event, page by page.
func (w *onsale) readSeats(ctx context.Context, bk stockade.BookingService) ([]stockade.Seat, error) {
	var seats []stockade.Seat
	q := stockade.SeatQuery{Limit: stockade.MaxSeatLimit}
	for {
		page, err := bk.Seats(ctx, w.id, q)
		if err != nil {
			return nil, fmt.Errorf("seats of %s: %w", w.id, err)
		}
		seats = append(seats, page.Seats...)
		if page.Next == "" {
			return seats, nil
		}
		q.Cursor = page.Next
	}
}

// orphans counts the free seats whose neighbours in their row (orders
// one less and one more) are both not free or not there.
func orphans(seats []stockade.Seat) int {
	type place struct {
		section, row string
		order        int
	}
	free := map[place]bool{}
	for _, s := range seats {
		if s.Status == stockade.SeatFree {
			free[place{s.Section, s.Row, s.Order}] = true
		}
	}
	n := 0
	for p := range free {
		if !free[place{p.section, p.row, p.order - 1}] && !free[place{p.section, p.row, p.order + 1}] {
			n++
		}
	}
	return n
}

// saleRate is the rate of the first sale: the holds that came back, in
// the order they did, until their seats reached 95% of the event's, over
// the time from the first of them to that one; and the seats held in
// that time. Later holds only take seats that expired holds gave back,
// as many as the TTL frees, whatever the service's speed. An event that
// was never 95% held gives every hold over the run's length.
func saleRate(holds []*onsaleHold, seats int, run float64) (holdsPerSec, seatsPerSec float64) {
	sorted := slices.Clone(holds)
	slices.SortFunc(sorted, func(a, b *onsaleHold) int { return a.got.Compare(b.got) })
	held := 0
	for i, h := range sorted {
		held += len(h.seats)
		if 20*held >= 19*seats && i > 0 {
			span := h.got.Sub(sorted[0].got).Seconds()
			if span > 0 {
				return float64(i+1) / span, float64(held) / span
			}
		}
	}
	if run <= 0 {
		return 0, 0
	}
	return float64(len(holds)) / run, float64(held) / run
}
