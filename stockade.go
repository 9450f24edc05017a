package stockade

import "time"

// Location is a place that holds stock: a warehouse, a store, a venue.
type Location struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Point is where it is, which an order with a ship-to point is
	// allocated by (nearest first); nil for a location that has no place
	// of its own, such as a virtual warehouse or a drop-shipper. Such
	// orders take from those only after every placed one, by the rule for
	// orders without a ship-to point (see ReserveRequest.ShipTo). In JSON
	// its lat and lon are the location's own, absent when it is nil.
	*Point
}

// Key names one stock level: a SKU at a location.
type Key struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
}

func (k Key) String() string { return k.SKU + "@" + k.Location }

// Compare orders keys by SKU, then location. It is the one global order
// in which every strategy locks rows or keys, so that two requests never
// wait on each other in a cycle.
func (k Key) Compare(o Key) int {
	switch {
	case k.SKU < o.SKU:
		return -1
	case k.SKU > o.SKU:
		return 1
	case k.Location < o.Location:
		return -1
	case k.Location > o.Location:
		return 1
	}
	return 0
}

// Level is the stock of one SKU at one location.
//
// OnHand is what is physically there; Reserved is held by live
// reservations; Committed is ordered but not yet fulfilled. Available is
// what can still be sold and is never negative.
type Level struct {
	SKU       string `json:"sku"`
	Location  string `json:"location"`
	OnHand    int64  `json:"on_hand"`
	Reserved  int64  `json:"reserved"`
	Committed int64  `json:"committed"`
	// Version increases with every change to the level; PUT with an
	// expected version is a compare-and-set on it.
	Version int64 `json:"version"`
	// Fence is the largest lock fencing token that has written the level;
	// writes under the lock strategy carry a token and are refused if it
	// is smaller.
	Fence uint64 `json:"-"`
}

// Key returns the level's key.
func (l Level) Key() Key { return Key{SKU: l.SKU, Location: l.Location} }

// Available is OnHand − Reserved − Committed.
func (l Level) Available() int64 { return l.OnHand - l.Reserved - l.Committed }

// Delta is a change to a level's counters.
type Delta struct {
	OnHand    int64 `json:"on_hand"`
	Reserved  int64 `json:"reserved"`
	Committed int64 `json:"committed"`
}

// Line is one line of a reservation or order: a quantity of a SKU,
// optionally from a named location.
type Line struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location,omitempty"`
}

// Allocation is the part of a line taken from one location.
type Allocation struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
}

// Key returns the level the allocation draws on.
func (a Allocation) Key() Key { return Key{SKU: a.SKU, Location: a.Location} }

// Point is a place on Earth, in degrees.
type Point struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

// ReservationStatus is where a reservation is in its life.
type ReservationStatus string

// Reservation statuses. A reservation starts held and ends in exactly one
// of the others.
const (
	Held      ReservationStatus = "held"
	Confirmed ReservationStatus = "confirmed"
	Released  ReservationStatus = "released"
	Expired   ReservationStatus = "expired"
)

// Reservation is a hold on stock that expires on its own unless confirmed.
type Reservation struct {
	ID          string            `json:"id"`
	Status      ReservationStatus `json:"status"`
	CreatedAt   time.Time         `json:"created_at"`
	ExpiresAt   time.Time         `json:"expires_at"`
	Lines       []Line            `json:"lines"`
	Allocations []Allocation      `json:"allocations"`
	// OrderID is set once the reservation is confirmed.
	OrderID string `json:"order_id,omitempty"`
	// Owner is the id of the API key that created the reservation; empty
	// if it was made without one (see Actor).
	Owner string `json:"owner,omitempty"`
	// Metadata is the shop's own data, as the request gave it.
	Metadata Metadata `json:"metadata,omitempty"`
}

// OrderStatus is where an order is in its life.
type OrderStatus string

// Order statuses.
const (
	Committed OrderStatus = "committed"
	Cancelled OrderStatus = "cancelled"
	Fulfilled OrderStatus = "fulfilled"
)

// Order is committed stock: confirmed from a reservation or checked out
// directly.
type Order struct {
	ID          string       `json:"id"`
	Status      OrderStatus  `json:"status"`
	CreatedAt   time.Time    `json:"created_at"`
	Lines       []Line       `json:"lines"`
	Allocations []Allocation `json:"allocations"`
	// ReservationID is the reservation the order was confirmed from, if
	// any.
	ReservationID string `json:"reservation_id,omitempty"`
	// Owner is the id of the API key that created the order (or its
	// reservation); empty if it was made without one.
	Owner string `json:"owner,omitempty"`
	// Shipped is what has left so far, one allocation per level in key
	// order, summed over the order's shipments; absent until the first.
	// A fulfilled order has shipped all its allocations; a cancelled one
	// keeps what it shipped before the cancel gave the rest back.
	Shipped []Allocation `json:"shipped,omitempty"`
	// Version counts the order's changes: 1 when it is committed, one
	// more at each shipment and at each change of its status (a shipment
	// that ships the last units does both, and counts one). A client
	// that changes an order only as it last read it gives it (If-Match,
	// expected_version).
	Version int64 `json:"version"`
	// Metadata is the shop's own data: its checkout's, or that of the
	// reservation it was confirmed from.
	Metadata Metadata `json:"metadata,omitempty"`
}

// MovementKind says why a level changed.
type MovementKind string

// Movement kinds, one per flow that changes counters.
const (
	MoveSet      MovementKind = "set"      // on_hand set absolutely
	MoveAdjust   MovementKind = "adjust"   // on_hand += delta
	MoveReserve  MovementKind = "reserve"  // available → reserved
	MoveRelease  MovementKind = "release"  // reserved → available, by request
	MoveExpire   MovementKind = "expire"   // reserved → available, at expiry
	MoveConfirm  MovementKind = "confirm"  // reserved → committed
	MoveCheckout MovementKind = "checkout" // available → committed
	MoveCancel   MovementKind = "cancel"   // committed → available
	MoveFulfill  MovementKind = "fulfill"  // committed and on_hand leave: a shipment, or a fulfilment
)

// Movement is one row of the append-only ledger: a change to one level's
// counters, written in the same transaction as the change. Summing a
// level's movements gives its counters.
type Movement struct {
	ID       int64        `json:"id"`
	At       time.Time    `json:"at"`
	SKU      string       `json:"sku"`
	Location string       `json:"location"`
	Kind     MovementKind `json:"kind"`
	Delta
	// Ref is the reservation or order the movement belongs to, if any.
	Ref    string `json:"ref,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Actor is the name of the API key whose call made the change; empty
	// for the service's own changes (System's calls: the command line, a
	// broker's commands, a request in open mode; and expiries).
	Actor string `json:"actor,omitempty"`
}
