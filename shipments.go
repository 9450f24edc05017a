package stockade

import (
	"slices"
	"time"
)

// Shipment is a part of an order that left: some of its units, each from
// the location of the allocation it came out of. An order is shipped by
// one or more shipments; a fulfilment ships what is left in one.
type Shipment struct {
	ID        string    `json:"id"`
	OrderID   string    `json:"order_id"`
	CreatedAt time.Time `json:"created_at"`
	// Lines are what it took, one per level (SKU and location), in key
	// order.
	Lines []Allocation `json:"lines"`
	// OrderVersion is the version the order reached with the shipment: a
	// client that ships or changes the order again at it (If-Match,
	// expected_version) needs no read in between.
	OrderVersion int64 `json:"order_version"`
	// Metadata is the shop's own data on the shipment, as the request
	// gave it (a carrier's tracking number, a parcel's id).
	Metadata Metadata `json:"metadata,omitempty"`
}

// NewShipment is the body of a shipment of part of an order.
type NewShipment struct {
	// Lines say what leaves: a quantity of a SKU of the order, from the
	// named location or, without one, from the order's allocations of the
	// SKU in location order (see Order.Unshipped). Lines of the same SKU
	// and location add up.
	Lines []Line `json:"lines"`
	// Metadata is the shop's own data on the shipment.
	Metadata Metadata `json:"metadata,omitempty"`
}

// Validate refuses a shipment with no lines or more than MaxLines, a line
// whose SKU or location (if given) is not a valid identifier or whose
// quantity is not between 1 and MaxQuantity, or metadata over its limits.
// Whether the order has those units left to ship is the service's to say,
// under the order's lock.
func (s NewShipment) Validate() error {
	if err := validateLines(s.Lines); err != nil {
		return err
	}
	return s.Metadata.Validate("metadata")
}

// Unshipped returns what of the order is still to ship: its allocations
// less what it has shipped, one per level in key order, those with
// nothing left left out. It is nil for an order that is not committed: a
// fulfilled one has shipped everything and a cancelled one gave the rest
// back.
func (o Order) Unshipped() []Allocation {
	if o.Status != Committed {
		return nil
	}
	left := map[Key]int64{}
	for _, a := range o.Allocations {
		left[a.Key()] += a.Quantity
	}
	for _, s := range o.Shipped {
		left[s.Key()] -= s.Quantity
	}
	return allocationsOf(left)
}

// allocationsOf returns the positive quantities of q as allocations, in
// key order.
func allocationsOf(q map[Key]int64) []Allocation {
	var out []Allocation
	for k, n := range q {
		if n > 0 {
			out = append(out, Allocation{SKU: k.SKU, Location: k.Location, Quantity: n})
		}
	}
	slices.SortFunc(out, func(a, b Allocation) int { return a.Key().Compare(b.Key()) })
	return out
}

// SumAllocations returns the allocations of lists summed per level, one
// per level in key order, leaving out the levels that sum to nothing:
// what an order has shipped, with a shipment's lines added.
func SumAllocations(lists ...[]Allocation) []Allocation {
	sum := map[Key]int64{}
	for _, as := range lists {
		for _, a := range as {
			sum[a.Key()] += a.Quantity
		}
	}
	return allocationsOf(sum)
}

const (
	// DefaultShipmentLimit is how many shipments a page holds when the
	// query does not say.
	DefaultShipmentLimit = 100
	// MaxShipmentLimit is the most shipments one page holds.
	MaxShipmentLimit = 1000
)

// ShipmentQuery asks Service.Shipments for one page of an order's
// shipments, newest first.
type ShipmentQuery struct {
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most shipments in the page: 1 to MaxShipmentLimit, or
	// 0 for DefaultShipmentLimit.
	Limit int
}

// Validate refuses a query whose Limit is out of range. The service
// checks the Cursor when it reads it.
func (q ShipmentQuery) Validate() error {
	if q.Limit < 0 || q.Limit > MaxShipmentLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxShipmentLimit, DefaultShipmentLimit, q.Limit)
	}
	return nil
}

// ShipmentPage is a page of an order's shipments, newest first, as
// ReservationPage.
type ShipmentPage struct {
	Shipments []Shipment
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

// ShipmentFilter selects the shipments of an order for Tx.ShipmentList,
// newest first (by created_at, then id, both descending).
type ShipmentFilter struct {
	OrderID string
	// BeforeAt and BeforeID are the cursor, as in ListFilter.
	BeforeAt time.Time
	BeforeID string
	// Limit is the most rows returned; it is always set (1 or more).
	Limit int
}
