package stockade

import (
	"slices"
	"strings"
	"time"
)

const (
	// DefaultLocationLimit is how many locations a page holds when the
	// query does not say.
	DefaultLocationLimit = 100
	// MaxLocationLimit is the most locations one page holds.
	MaxLocationLimit = 1000
)

// LocationQuery asks Service.Locations for one page of the locations, in
// id order.
type LocationQuery struct {
	// Cursor is the Next of the page before, to read the page after it;
	// empty for the first page. It is opaque: only a cursor the service
	// gave out is accepted (EInvalid otherwise).
	Cursor string
	// Limit is the most locations in the page: 1 to MaxLocationLimit, or
	// 0 for DefaultLocationLimit.
	Limit int
}

// Validate refuses a query whose Limit is out of range. The service
// checks the Cursor when it reads it.
func (q LocationQuery) Validate() error {
	if q.Limit < 0 || q.Limit > MaxLocationLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxLocationLimit, DefaultLocationLimit, q.Limit)
	}
	return nil
}

// LocationPage is one page of the locations, in id order. Following Next
// from the first page until it is empty reads every location that
// existed throughout the walk once.
type LocationPage struct {
	Locations []Location
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

const (
	// DefaultSKULimit is how many SKUs a page holds when the query does
	// not say.
	DefaultSKULimit = 100
	// MaxSKULimit is the most SKUs one page holds.
	MaxSKULimit = 1000
)

// SKUQuery asks Service.SKUs for one page of the SKUs that have a level,
// in SKU order (byte order).
type SKUQuery struct {
	// Prefix, if set, keeps the SKUs that start with it.
	Prefix string
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most SKUs in the page: 1 to MaxSKULimit, or 0 for
	// DefaultSKULimit.
	Limit int
}

// Validate refuses a query whose Prefix is set but not a valid identifier,
// or whose Limit is out of range.
func (q SKUQuery) Validate() error {
	if q.Prefix != "" {
		if err := ValidateID("prefix", q.Prefix); err != nil {
			return err
		}
	}
	if q.Limit < 0 || q.Limit > MaxSKULimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxSKULimit, DefaultSKULimit, q.Limit)
	}
	return nil
}

// LevelPage is a page of the levels at a location, in SKU order.
type LevelPage struct {
	Levels []Level
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// SKUTotals is a SKU and its counters summed over its locations.
type SKUTotals struct {
	SKU    string `json:"sku"`
	Totals Totals `json:"totals"`
}

// SKUPage is one page of the SKUs, in SKU order. Following Next from the
// first page until it is empty reads every SKU that had a level
// throughout the walk once.
type SKUPage struct {
	SKUs []SKUTotals
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

const (
	// DefaultListLimit is how many reservations or orders a page holds
	// when the query does not say.
	DefaultListLimit = 100
	// MaxListLimit is the most reservations or orders one page holds.
	MaxListLimit = 1000
)

// ListQuery asks Service.Reservations, Orders, Shows, Holds or Bookings
// for one page, newest first. Zero fields match everything. A storefront actor
// sees only what its key created.
type ListQuery struct {
	// Status keeps those in this status: a ReservationStatus for
	// reservations, an OrderStatus for orders, a HoldStatus for holds, a
	// BookingStatus for bookings.
	Status string
	// ShowID keeps the holds or bookings of this show; reservations and
	// orders have none.
	ShowID string
	// Metadata keeps those whose metadata holds each of its keys with
	// its value.
	Metadata Metadata
	// CreatedAfter keeps those created at or after it; CreatedBefore
	// those created strictly before it.
	CreatedAfter, CreatedBefore time.Time
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most in the page: 1 to MaxListLimit, or 0 for
	// DefaultListLimit.
	Limit int
}

// validate refuses a query whose status is not one of statuses, whose
// times are the wrong way round, or whose Limit is out of range.
func (q ListQuery) validate(statuses ...string) error {
	if err := q.Metadata.Validate("metadata"); err != nil {
		return err
	}
	if q.ShowID != "" {
		if err := ValidateID("show", q.ShowID); err != nil {
			return err
		}
	}
	if q.Status != "" && !slices.Contains(statuses, q.Status) {
		return invalidf("status: must be one of %s, got %q", strings.Join(statuses, ", "), q.Status)
	}
	if !q.CreatedAfter.IsZero() && !q.CreatedBefore.IsZero() && !q.CreatedAfter.Before(q.CreatedBefore) {
		return invalidf("created_after: must be before created_before")
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxListLimit, DefaultListLimit, q.Limit)
	}
	return nil
}

// ValidateReservations refuses a query of reservations that validate
// would, with the reservation statuses, or one that names a show.
func (q ListQuery) ValidateReservations() error {
	if q.ShowID != "" {
		return invalidf("show: reservations have none")
	}
	return q.validate(string(Held), string(Confirmed), string(Released), string(Expired))
}

// ValidateOrders refuses a query of orders that validate would, with the
// order statuses, or one that names a show.
func (q ListQuery) ValidateOrders() error {
	if q.ShowID != "" {
		return invalidf("show: orders have none")
	}
	return q.validate(string(Committed), string(Cancelled), string(Fulfilled))
}

// ValidateShows refuses a query of shows that validate would, or one
// that names a status or a show: shows have neither.
func (q ListQuery) ValidateShows() error {
	switch {
	case len(q.Metadata) > 0:
		return invalidf("metadata: shows have none")
	case q.Status != "":
		return invalidf("status: shows have none")
	case q.ShowID != "":
		return invalidf("show: a list of shows names none")
	}
	return q.validate()
}

// ValidateHolds refuses a query of holds that validate would, with the
// hold statuses.
func (q ListQuery) ValidateHolds() error {
	return q.validate(string(HoldHeld), string(HoldConfirmed), string(HoldReleased), string(HoldExpired))
}

// ValidateBookings refuses a query of bookings that validate would, with
// the booking statuses.
func (q ListQuery) ValidateBookings() error {
	return q.validate(string(BookingBooked), string(BookingCancelled))
}

// ReservationPage is a page of reservations, newest first. Following Next
// until it is empty reads every reservation that matched throughout the
// walk once; those created during the walk are newer than its start, and
// are not in it.
type ReservationPage struct {
	Reservations []Reservation
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// OrderPage is a page of orders, newest first, as ReservationPage.
type OrderPage struct {
	Orders []Order
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// ShowPage is a page of shows, newest first, as ReservationPage: their
// heads, without Rows nor Areas.
type ShowPage struct {
	Shows []Show
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// HoldPage is a page of holds, newest first, as ReservationPage.
type HoldPage struct {
	Holds []Hold
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// BookingPage is a page of bookings, newest first, as ReservationPage.
type BookingPage struct {
	Bookings []Booking
	// Next is the cursor of the following page; empty on the last page.
	Next string
}
