package stockade

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bookings: a Show is a concert or a match with seats and
// general-admission areas to sell. A Hold takes seats and places, all or
// nothing, until it expires, is released, or is confirmed into a Booking.
// "Event" names only the event feed: a DomainEvent is a change, in the
// outbox.

// SeatStatus is where a seat is: free to sell, held by a hold, booked by
// a booking, or blocked (not for sale). Every seat is in exactly one.
type SeatStatus string

// Seat statuses.
const (
	SeatFree    SeatStatus = "free"
	SeatHeld    SeatStatus = "held"
	SeatBooked  SeatStatus = "booked"
	SeatBlocked SeatStatus = "blocked"
)

// SeatStatuses are the seat statuses, in the order of the constants.
var SeatStatuses = []SeatStatus{SeatFree, SeatHeld, SeatBooked, SeatBlocked}

// Show is a concert, a match or a play whose seats and places are sold
// by holds and bookings.
type Show struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Focal is the point the best seats are nearest to: the stage.
	Focal SeatPoint `json:"focal"`
	// Rows is the seat map, as it was given: each row expands to its
	// seats (SeatRow.Seats).
	Rows []SeatRow `json:"rows,omitempty"`
	// Areas are the general-admission areas.
	Areas     []Area    `json:"areas,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Version counts the changes to the show's map: 1 when created.
	Version int64 `json:"version"`
}

// ShowView is a show as the service shows it: with how many of its
// seats are in each status, by section and category.
type ShowView struct {
	Show
	Counts []SeatCount `json:"counts"`
}

// BookingService sells the seats and places of events: what the HTTP
// API exposes and the engine implements, a part of Service. Refusals are
// *Error: ESeatsUnavailable for named seats that are not free (the
// message names them), ESoldOut when no free seats or places meet a
// request, EHoldExpired for a hold that ran out, never "busy".
type BookingService interface {
	// PutShow creates a show or changes its map; seats that are held
	// or booked may not change (EInvalidState).
	PutShow(ctx context.Context, e Show, idem *Idempotency) (Show, error)

	// Show returns a show with its seat counts (ENotFound if unknown).
	Show(ctx context.Context, id string) (ShowView, error)

	// Shows returns a page of the shows that match q, newest first:
	// their heads, without seat map, areas or counts (Show has those).
	Shows(ctx context.Context, q ListQuery) (ShowPage, error)

	// HoldSeats holds what req asks, all or nothing, until the hold's
	// TTL passes.
	HoldSeats(ctx context.Context, req HoldRequest, idem *Idempotency) (Hold, error)

	// Hold returns a hold (ENotFound if unknown).
	Hold(ctx context.Context, id string) (Hold, error)

	// ExtendHold makes a held hold last ttl from now, within the
	// service's maximum hold lifetime.
	ExtendHold(ctx context.Context, id string, ttl time.Duration, idem *Idempotency) (Hold, error)

	// ConfirmHold books a held hold's seats and places.
	ConfirmHold(ctx context.Context, id string, idem *Idempotency) (Booking, error)

	// ReleaseHold gives a held hold's seats and places back.
	ReleaseHold(ctx context.Context, id string, idem *Idempotency) (Hold, error)

	// Booking returns a booking (ENotFound if unknown).
	Booking(ctx context.Context, id string) (Booking, error)

	// CancelBooking gives a booking's seats and places back.
	CancelBooking(ctx context.Context, id string, idem *Idempotency) (Booking, error)

	// UpdateHold merges req into a hold's metadata, in any status; its
	// version, expiry and seats stay as they are.
	UpdateHold(ctx context.Context, id string, req UpdateRequest, idem *Idempotency) (Hold, error)

	// UpdateBooking merges req into a booking's metadata, in any status.
	UpdateBooking(ctx context.Context, id string, req UpdateRequest, idem *Idempotency) (Booking, error)

	// Holds returns a page of the holds that match q, newest first.
	Holds(ctx context.Context, q ListQuery) (HoldPage, error)

	// Bookings returns a page of the bookings that match q, newest
	// first.
	Bookings(ctx context.Context, q ListQuery) (BookingPage, error)

	// Seats returns a page of a show's seats that match q, in seat
	// order, and the cursor of the next page.
	Seats(ctx context.Context, showID string, q SeatQuery) (SeatPage, error)

	// SeatHistory returns a page of a show's seat history that matches
	// q, oldest row first, and the cursor of the next page.
	SeatHistory(ctx context.Context, showID string, q SeatHistoryQuery) (SeatHistoryPage, error)
}

const (
	// DefaultSeatLimit is the size of a page of seats when the query
	// sets no Limit; MaxSeatLimit the largest it may ask for.
	DefaultSeatLimit = 1000
	MaxSeatLimit     = 10000
)

// SeatQuery asks BookingService.Seats for one page of a show's seats.
// Zero fields match everything.
type SeatQuery struct {
	Status  SeatStatus
	Section string
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most seats in the page: 1 to MaxSeatLimit, or 0 for
	// DefaultSeatLimit.
	Limit int
}

// Validate refuses a query with an unknown status, a malformed section,
// or a Limit out of range. The service checks the Cursor when it reads
// it.
func (q SeatQuery) Validate() error {
	if q.Status != "" && !slices.Contains(SeatStatuses, q.Status) {
		return invalidf("status: must be free, held, booked or blocked, got %q", q.Status)
	}
	if err := validateOptionalID("section", q.Section); err != nil {
		return err
	}
	if q.Limit < 0 || q.Limit > MaxSeatLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxSeatLimit, DefaultSeatLimit, q.Limit)
	}
	return nil
}

// SeatPage is one page of a show's seats, in seat order.
type SeatPage struct {
	Seats []Seat
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

const (
	// DefaultSeatHistoryLimit is the size of a page of seat history when
	// the query sets no Limit; MaxSeatHistoryLimit the largest it may ask
	// for.
	DefaultSeatHistoryLimit = 1000
	MaxSeatHistoryLimit     = 10000
)

// SeatHistoryQuery asks BookingService.SeatHistory for one page of an
// event's seat history. Zero fields match everything.
type SeatHistoryQuery struct {
	// Seat keeps the rows of one seat, by id; Area those of one
	// general-admission area. A row is of a seat or of an area, so a
	// query gives one of them at most.
	Seat string
	Area string
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most rows in the page: 1 to MaxSeatHistoryLimit, or 0
	// for DefaultSeatHistoryLimit.
	Limit int
}

// Validate refuses a query with a malformed seat or area, with both, or
// with a Limit out of range. The service checks the Cursor when it reads
// it.
func (q SeatHistoryQuery) Validate() error {
	if err := validateOptionalID("seat", q.Seat); err != nil {
		return err
	}
	if err := validateOptionalID("area", q.Area); err != nil {
		return err
	}
	if q.Seat != "" && q.Area != "" {
		return invalidf("area: must not be given with seat (a row is of a seat or of an area), got seat %q and area %q", q.Seat, q.Area)
	}
	if q.Limit < 0 || q.Limit > MaxSeatHistoryLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxSeatHistoryLimit, DefaultSeatHistoryLimit, q.Limit)
	}
	return nil
}

// SeatHistoryPage is one page of a show's seat history, oldest row
// first.
//
// Following Next from the first page until it is empty reads the rows
// that match, in id order, each once, as MovementPage reads the ledger:
// on PostgreSQL a row that commits after a page ending at a larger id was
// read falls behind the cursor; once writes have stopped, a walk from the
// first page reads every row.
type SeatHistoryPage struct {
	Changes []SeatChange
	// Next is the cursor of the following page; empty when no more rows
	// matched when this page was read.
	Next string
}

// SeatPoint is a position on a show's floor plan, in any unit, the
// same for every seat and the focal point of one event.
type SeatPoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// SeatRow is a row of numbered seats in the compact form a seat map is
// given in: row "A" of section "stalls", seats 1 to 20. Seat n is labelled
// n; seats n and n+1 sit side by side unless an aisle follows n.
type SeatRow struct {
	Section string `json:"section"`
	Row     string `json:"row"`
	// First and Last number the row's seats, First ≤ Last.
	First int `json:"first"`
	Last  int `json:"last"`
	// Category is the seats' price level, such as "A"; empty for none.
	Category string `json:"category,omitempty"`
	// Accessible and Blocked list seat numbers of the row: accessible
	// seats, and seats not for sale.
	Accessible []int `json:"accessible,omitempty"`
	Blocked    []int `json:"blocked,omitempty"`
	// AislesAfter lists seat numbers that an aisle follows: those seats
	// and the next do not sit together.
	AislesAfter []int `json:"aisles_after,omitempty"`
	// Start is the position of seat First; Step is the distance from
	// each seat to the next along the row (x grows), 1 unless given.
	Start SeatPoint `json:"start"`
	Step  float64   `json:"step,omitempty"`
}

// Seat is one seat of a show, as the store keeps it.
type Seat struct {
	// ID is "SECTION/ROW/NUMBER", unique in its event.
	ID      string `json:"id"`
	Section string `json:"section"`
	Row     string `json:"row"`
	Label   string `json:"label"`
	// Order places the seat in its row: seats whose orders differ by one
	// sit side by side. An aisle skips an order.
	Order      int        `json:"order"`
	Category   string     `json:"category,omitempty"`
	Accessible bool       `json:"accessible,omitempty"`
	Position   SeatPoint  `json:"position"`
	Status     SeatStatus `json:"status"`
	// HoldID or BookingID is what holds or booked the seat.
	HoldID    string `json:"hold_id,omitempty"`
	BookingID string `json:"booking_id,omitempty"`
}

// SeatID returns the id of seat number n of a row.
func SeatID(section, row string, n int) string {
	return section + "/" + row + "/" + strconv.Itoa(n)
}

// Compare orders seats by section, row and order, the seat order: byte
// order for section and row.
func (s Seat) Compare(t Seat) int {
	if c := strings.Compare(s.Section, t.Section); c != 0 {
		return c
	}
	if c := strings.Compare(s.Row, t.Row); c != 0 {
		return c
	}
	return s.Order - t.Order
}

// Seats returns the row's seats, free but for the blocked ones, in seat
// order. The row must be valid (Validate).
func (r SeatRow) Seats() []Seat {
	step := r.Step
	if step == 0 {
		step = 1
	}
	seats := make([]Seat, 0, r.Last-r.First+1)
	order := 0
	for n := r.First; n <= r.Last; n++ {
		s := Seat{ID: SeatID(r.Section, r.Row, n), Section: r.Section, Row: r.Row, Label: strconv.Itoa(n),
			Order: order, Category: r.Category, Accessible: slices.Contains(r.Accessible, n),
			Position: SeatPoint{X: r.Start.X + float64(n-r.First)*step, Y: r.Start.Y}, Status: SeatFree}
		if slices.Contains(r.Blocked, n) {
			s.Status = SeatBlocked
		}
		seats = append(seats, s)
		order++
		if slices.Contains(r.AislesAfter, n) {
			order++
		}
	}
	return seats
}

// Area is a general-admission area: Capacity places, any of which a hold
// may take.
type Area struct {
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	Capacity int64  `json:"capacity"`
	// Held and Booked count the places that live holds and bookings
	// have; Held + Booked ≤ Capacity.
	Held   int64 `json:"held"`
	Booked int64 `json:"booked"`
}

// Available is what the area can still give.
func (a Area) Available() int64 { return a.Capacity - a.Held - a.Booked }

// Limits on events and holds.
const (
	// MaxSeats is the most seats a show may have.
	MaxSeats = 100_000
	// MaxSeatRows is the most rows a show's map may have.
	MaxSeatRows = 10_000
	// MaxAreas is the most general-admission areas a show may have.
	MaxAreas = 100
	// MaxHoldSeats is the most seats and places one hold may take.
	MaxHoldSeats = 100
	// MaxSeatNumber bounds seat numbers, and a row's coordinates are
	// within ±MaxSeatCoordinate.
	MaxSeatNumber     = 1_000_000
	MaxSeatCoordinate = 1e6
)

// Validate refuses a show without an id or name, with neither seats
// nor areas, with a row or area that is malformed, or with two rows or
// areas of the same name.
func (e Show) Validate() error {
	if err := ValidateID("id", e.ID); err != nil {
		return err
	}
	if strings.Contains(e.ID, "/") {
		return invalidf("id: must not contain '/', got %q", e.ID)
	}
	if e.Name == "" {
		return invalidf("name: required, must not be empty")
	}
	if err := ValidateText("name", e.Name); err != nil {
		return err
	}
	if err := e.Focal.validate("focal"); err != nil {
		return err
	}
	if len(e.Rows) == 0 && len(e.Areas) == 0 {
		return invalidf("rows: an event needs seats or general-admission areas, got neither")
	}
	if len(e.Rows) > MaxSeatRows {
		return invalidf("rows: at most %d, got %d", MaxSeatRows, len(e.Rows))
	}
	rows := make(map[[2]string]bool, len(e.Rows))
	seats := 0
	for i, r := range e.Rows {
		field := fmt.Sprintf("rows[%d]", i)
		if err := r.validate(field); err != nil {
			return err
		}
		if rows[[2]string{r.Section, r.Row}] {
			return invalidf("%s: row %q of section %q is given twice", field, r.Row, r.Section)
		}
		rows[[2]string{r.Section, r.Row}] = true
		if seats += r.Last - r.First + 1; seats > MaxSeats {
			return invalidf("%s: an event has at most %d seats", field, MaxSeats)
		}
	}
	if len(e.Areas) > MaxAreas {
		return invalidf("areas: at most %d, got %d", MaxAreas, len(e.Areas))
	}
	for i, a := range e.Areas {
		field := fmt.Sprintf("areas[%d]", i)
		if err := ValidateID(field+".name", a.Name); err != nil {
			return err
		}
		if err := validateOptionalID(field+".category", a.Category); err != nil {
			return err
		}
		if a.Capacity < 1 || a.Capacity > MaxQuantity {
			return invalidf("%s.capacity: must be between 1 and %d, got %d", field, MaxQuantity, a.Capacity)
		}
		if slices.ContainsFunc(e.Areas[:i], func(b Area) bool { return b.Name == a.Name }) {
			return invalidf("%s.name: area %q is given twice", field, a.Name)
		}
	}
	return nil
}

func (p SeatPoint) validate(field string) error {
	for _, c := range []struct {
		axis string
		v    float64
	}{{"x", p.X}, {"y", p.Y}} {
		if math.IsNaN(c.v) || math.Abs(c.v) > MaxSeatCoordinate {
			return invalidf("%s.%s: must be between %g and %g, got %g", field, c.axis, -MaxSeatCoordinate, float64(MaxSeatCoordinate), c.v)
		}
	}
	return nil
}

func validateOptionalID(field, id string) error {
	if id == "" {
		return nil
	}
	return ValidateID(field, id)
}

func (r SeatRow) validate(field string) error {
	for _, f := range []struct{ name, v string }{{"section", r.Section}, {"row", r.Row}} {
		if err := ValidateID(field+"."+f.name, f.v); err != nil {
			return err
		}
		if strings.Contains(f.v, "/") {
			return invalidf("%s.%s: must not contain '/', got %q", field, f.name, f.v)
		}
	}
	if err := validateOptionalID(field+".category", r.Category); err != nil {
		return err
	}
	if r.First < 0 || r.Last > MaxSeatNumber || r.First > r.Last {
		return invalidf("%s: first and last must number seats with 0 ≤ first ≤ last ≤ %d, got %d to %d", field, MaxSeatNumber, r.First, r.Last)
	}
	if r.Last-r.First+1 > MaxSeats {
		return invalidf("%s: a row has at most %d seats, got %d", field, MaxSeats, r.Last-r.First+1)
	}
	for _, l := range []struct {
		name string
		ns   []int
	}{{"accessible", r.Accessible}, {"blocked", r.Blocked}, {"aisles_after", r.AislesAfter}} {
		for j, n := range l.ns {
			if n < r.First || n > r.Last {
				return invalidf("%s.%s[%d]: seat %d is not in the row (%d to %d)", field, l.name, j, n, r.First, r.Last)
			}
		}
	}
	if err := r.Start.validate(field + ".start"); err != nil {
		return err
	}
	if math.IsNaN(r.Step) || r.Step < 0 || r.Step > MaxSeatCoordinate {
		return invalidf("%s.step: must be between 0 and %g, got %g", field, float64(MaxSeatCoordinate), r.Step)
	}
	return nil
}

// HoldStatus is where a hold is in its life.
type HoldStatus string

// Hold statuses. A hold starts held and ends in exactly one of the others.
const (
	HoldHeld      HoldStatus = "held"
	HoldConfirmed HoldStatus = "confirmed"
	HoldReleased  HoldStatus = "released"
	HoldExpired   HoldStatus = "expired"
)

// BestSeats asks for the best available seats: Quantity of them, side by
// side in one row unless AllowSplit and no such block is free.
type BestSeats struct {
	Quantity int `json:"quantity"`
	// Category, Section and Accessible narrow the seats: empty (false)
	// for any.
	Category   string `json:"category,omitempty"`
	Section    string `json:"section,omitempty"`
	Accessible bool   `json:"accessible,omitempty"`
	// AllowSplit lets the seats be apart when no block of Quantity seats
	// side by side is free: the nearest to the focal point, then.
	AllowSplit bool `json:"allow_split,omitempty"`
}

// Places asks for places of a general-admission area.
type Places struct {
	Area     string `json:"area"`
	Quantity int64  `json:"quantity"`
}

// HoldRequest asks for seats and places of a show, all or nothing.
type HoldRequest struct {
	ShowID string `json:"-"`
	// Seats names seats by id.
	Seats []string `json:"seats,omitempty"`
	// Best asks for best-available seats, decided in order.
	Best []BestSeats `json:"best_available,omitempty"`
	// Places asks for general-admission places.
	Places []Places `json:"general_admission,omitempty"`
	// TTL is how long the hold lasts; 0 for the service's default.
	TTL time.Duration `json:"-"`
	// Metadata is the shop's own data on the hold and the booking it
	// becomes.
	Metadata Metadata `json:"metadata,omitempty"`
	// Admission proves that the visitor was admitted by the waiting room
	// in front of the show; needed while such a room queues.
	Admission *AdmissionProof `json:"admission,omitempty"`
}

// Validate refuses a request for nothing, for more than MaxHoldSeats
// seats and places, naming a seat twice, or with a TTL out of (0,
// maxTTL].
func (r HoldRequest) Validate(maxTTL time.Duration) error {
	if err := ValidateID("event", r.ShowID); err != nil {
		return err
	}
	if err := r.Metadata.Validate("metadata"); err != nil {
		return err
	}
	if err := r.Admission.Validate(); err != nil {
		return err
	}
	if len(r.Seats) == 0 && len(r.Best) == 0 && len(r.Places) == 0 {
		return invalidf("seats: a hold needs seats, best_available or general_admission, got none")
	}
	total := int64(len(r.Seats))
	for i, id := range r.Seats {
		if err := ValidateID(fmt.Sprintf("seats[%d]", i), id); err != nil {
			return err
		}
		if slices.Contains(r.Seats[:i], id) {
			return invalidf("seats[%d]: seat %q is named twice", i, id)
		}
	}
	for i, b := range r.Best {
		field := fmt.Sprintf("best_available[%d]", i)
		if b.Quantity < 1 || b.Quantity > MaxHoldSeats {
			return invalidf("%s.quantity: must be between 1 and %d, got %d", field, MaxHoldSeats, b.Quantity)
		}
		if err := validateOptionalID(field+".category", b.Category); err != nil {
			return err
		}
		if err := validateOptionalID(field+".section", b.Section); err != nil {
			return err
		}
		total += int64(b.Quantity)
	}
	for i, p := range r.Places {
		field := fmt.Sprintf("general_admission[%d]", i)
		if err := ValidateID(field+".area", p.Area); err != nil {
			return err
		}
		if p.Quantity < 1 || p.Quantity > MaxHoldSeats {
			return invalidf("%s.quantity: must be between 1 and %d, got %d", field, MaxHoldSeats, p.Quantity)
		}
		if slices.ContainsFunc(r.Places[:i], func(q Places) bool { return q.Area == p.Area }) {
			return invalidf("%s.area: area %q is asked for twice", field, p.Area)
		}
		total += p.Quantity
	}
	if total > MaxHoldSeats {
		return invalidf("seats: a hold takes at most %d seats and places, got %d", MaxHoldSeats, total)
	}
	if r.TTL < 0 || r.TTL > maxTTL {
		return invalidf("ttl_seconds: must be between 1 and %d, got %d", int64(maxTTL/time.Second), int64(r.TTL/time.Second))
	}
	return nil
}

// Hold is seats and places of one event, taken until ExpiresAt unless
// confirmed into a booking or released first.
type Hold struct {
	ID     string     `json:"id"`
	ShowID string     `json:"event_id"`
	Status HoldStatus `json:"status"`
	// Seats are the seats held, in seat order.
	Seats []string `json:"seats,omitempty"`
	// Places are the general-admission places held, by area.
	Places []Places `json:"general_admission,omitempty"`
	// Split is true when best-available seats of the hold do not all sit
	// together (a request that allowed it found no block).
	Split     bool      `json:"split,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// BookingID is set once the hold is confirmed.
	BookingID string `json:"booking_id,omitempty"`
	Owner     string `json:"owner,omitempty"`
	// Version counts the hold's changes: 1 when it is made, one more at
	// each extension and at its end.
	Version int64 `json:"version"`
	// Metadata is the shop's own data, as the request gave it.
	Metadata Metadata `json:"metadata,omitempty"`
}

// BookingStatus is where a booking is in its life.
type BookingStatus string

// Booking statuses.
const (
	BookingBooked    BookingStatus = "booked"
	BookingCancelled BookingStatus = "cancelled"
)

// Booking is a confirmed hold: its seats and places are sold until it is
// cancelled.
type Booking struct {
	ID        string        `json:"id"`
	ShowID    string        `json:"event_id"`
	HoldID    string        `json:"hold_id"`
	Status    BookingStatus `json:"status"`
	Seats     []string      `json:"seats,omitempty"`
	Places    []Places      `json:"general_admission,omitempty"`
	CreatedAt time.Time     `json:"created_at"`
	Owner     string        `json:"owner,omitempty"`
	// Metadata is the shop's own data: its hold's.
	Metadata Metadata `json:"metadata,omitempty"`
}

// SeatChange is one row of a show's append-only history: a seat's
// status change, or places of an area moving between statuses
// (Quantity of them, from Free to Held and so on), written in the
// transaction of the change.
type SeatChange struct {
	ID        int64      `json:"id"`
	At        time.Time  `json:"at"`
	ShowID    string     `json:"event_id"`
	Seat      string     `json:"seat,omitempty"`
	Area      string     `json:"area,omitempty"`
	Quantity  int64      `json:"quantity"`
	From      SeatStatus `json:"from"`
	To        SeatStatus `json:"to"`
	HoldID    string     `json:"hold_id,omitempty"`
	BookingID string     `json:"booking_id,omitempty"`
	Actor     string     `json:"actor,omitempty"`
}
