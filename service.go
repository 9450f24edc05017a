package stockade

import (
	"context"
	"time"
)

// Service is the whole stockade service: what the HTTP API exposes and
// the engine implements, one value for all of it. Its parts are
// interfaces of their own, so that a caller that needs one part takes
// only that part: the stock (StockService), the seats of events
// (BookingService), the payments (PaymentService), the API keys
// (KeyService) and the outbound webhooks (WebhookService).
type Service interface {
	StockService
	BookingService
	PaymentService
	KeyService
	WebhookService
	RoomService
}

// StockService is the inventory part of Service: locations, stock levels,
// reservations, orders, the ledger and the feed of domain events. Every
// refusal is an *Error with a stable code; a request is refused for lack
// of stock only ever with EInsufficientStock, never because the service
// is busy: lock waits and retries happen inside, bounded by ctx's
// deadline.
//
// Every mutating method takes an *Idempotency as its last argument: nil
// for a plain call, or a key that makes the call safe to retry (see
// Idempotency).
//
// The Actor that ctx carries (WithActor) is who makes the call; a call
// without one is refused (EUnauthenticated), and System is the service's
// own actor. A storefront actor finds only the reservations and orders
// its key created (others' are ENotFound, as if they did not exist), its
// idempotency keys are its own, and ledger rows record its name.
type StockService interface {
	// PutLocation creates or replaces a location.
	PutLocation(ctx context.Context, loc Location, idem *Idempotency) (Location, error)

	// Location returns a location (ENotFound if unknown).
	Location(ctx context.Context, id string) (Location, error)

	// Locations returns a page of the locations, in id order, and the
	// cursor of the next page.
	Locations(ctx context.Context, q LocationQuery) (LocationPage, error)

	// SetStock sets the on-hand quantity of a SKU at a location, creating
	// the level if needed. With expectedVersion it is a compare-and-set
	// (EVersionConflict if the level's version differs; a missing level
	// has version 0).
	SetStock(ctx context.Context, k Key, onHand int64, expectedVersion *int64, idem *Idempotency) (Level, error)

	// AdjustStock adds delta (negative to remove) to the on-hand quantity.
	AdjustStock(ctx context.Context, k Key, delta int64, reason string, idem *Idempotency) (Level, error)

	// SKUs returns a page of the SKUs that have a level, with their
	// totals, in SKU order, and the cursor of the next page.
	SKUs(ctx context.Context, q SKUQuery) (SKUPage, error)

	// LocationStock returns a page of the levels at a location, in SKU
	// order (q's Prefix keeps the SKUs that start with it), and the cursor
	// of the next page; ENotFound for an unknown location.
	LocationStock(ctx context.Context, location string, q SKUQuery) (LevelPage, error)

	// Stock returns a SKU's levels per location and their totals
	// (ENotFound for a SKU with no level anywhere).
	Stock(ctx context.Context, sku string) (Stock, error)

	// Reserve holds stock for every line or for none, until the
	// reservation's TTL passes, it is confirmed, or it is released.
	Reserve(ctx context.Context, req ReserveRequest, idem *Idempotency) (Reservation, error)

	// Reservation returns a reservation (ENotFound if unknown).
	Reservation(ctx context.Context, id string) (Reservation, error)

	// Confirm turns a held reservation into an order: reserved stock
	// becomes committed. EReservationExpired if it has expired.
	Confirm(ctx context.Context, id string, idem *Idempotency) (Order, error)

	// Release gives a held reservation's stock back.
	Release(ctx context.Context, id string, idem *Idempotency) (Reservation, error)

	// Checkout reserves and confirms in one step: a direct order.
	Checkout(ctx context.Context, req ReserveRequest, idem *Idempotency) (Order, error)

	// Reservations returns a page of the reservations that match q,
	// newest first, and the cursor of the next page.
	Reservations(ctx context.Context, q ListQuery) (ReservationPage, error)

	// Order returns an order (ENotFound if unknown).
	Order(ctx context.Context, id string) (Order, error)

	// Orders returns a page of the orders that match q, newest first, and
	// the cursor of the next page.
	Orders(ctx context.Context, q ListQuery) (OrderPage, error)

	// CancelOrder gives a committed order's stock back: what it has not
	// shipped, when it has shipped part of it. With expectedVersion it is
	// a compare-and-set (EVersionConflict if the order's version differs).
	CancelOrder(ctx context.Context, id string, expectedVersion *int64, idem *Idempotency) (Order, error)

	// FulfillOrder ships what is left of a committed order, as one
	// shipment: its stock leaves on-hand and the order is fulfilled. With
	// expectedVersion it is a compare-and-set, as CancelOrder.
	FulfillOrder(ctx context.Context, id string, expectedVersion *int64, idem *Idempotency) (Order, error)

	// UpdateReservation merges req into a reservation's metadata, in
	// any status, and returns the reservation; its status, expiry and
	// stock stay as they are.
	UpdateReservation(ctx context.Context, id string, req UpdateRequest, idem *Idempotency) (Reservation, error)

	// UpdateOrder merges req into an order's metadata, in any status;
	// its version stays as it is (see DomainEvent.Version).
	UpdateOrder(ctx context.Context, id string, req UpdateRequest, idem *Idempotency) (Order, error)

	// ShipOrder ships part of a committed order: the units req names
	// leave on-hand, the rest stays committed. The shipment that ships
	// the last units fulfils the order. Units beyond what is left of a
	// SKU are refused (EInvalidState, naming what is left), as is a SKU
	// or location the order has not (EInvalid); a refusal ships nothing.
	// With expectedVersion it is a compare-and-set, as CancelOrder.
	ShipOrder(ctx context.Context, id string, req NewShipment, expectedVersion *int64, idem *Idempotency) (Shipment, error)

	// Shipments returns a page of an order's shipments, newest first, and
	// the cursor of the next page (ENotFound for an unknown order).
	Shipments(ctx context.Context, orderID string, q ShipmentQuery) (ShipmentPage, error)

	// Events returns the events after q's cursor that match q, in commit
	// order, waiting up to q.Wait for one if there is none yet.
	Events(ctx context.Context, q DomainEventQuery) (DomainEventPage, error)

	// Movements returns a page of the ledger rows that match q, oldest
	// first, and the cursor of the next page (see MovementPage for what
	// following it guarantees).
	Movements(ctx context.Context, q MovementQuery) (MovementPage, error)
}

// ReserveRequest is the body of a reservation or a direct checkout.
type ReserveRequest struct {
	Lines []Line `json:"lines"`
	// TTL is how long a reservation holds its stock; zero means the
	// service's default (15 minutes). Ignored by Checkout.
	TTL time.Duration `json:"-"`
	// ShipTo, when set, allocates lines without a location from the
	// nearest locations first.
	ShipTo *Point `json:"ship_to,omitempty"`
	// Metadata is the shop's own data on the reservation (and the order
	// it becomes) or on the order of a checkout.
	Metadata Metadata `json:"metadata,omitempty"`
	// Admission proves that the visitor was admitted by the waiting room
	// in front of the lines' SKUs; needed while such a room queues.
	Admission *AdmissionProof `json:"admission,omitempty"`
}

// Stock is a SKU's levels and their totals.
type Stock struct {
	SKU    string  `json:"sku"`
	Levels []Level `json:"levels"`
	Totals Totals  `json:"totals"`
}

// Totals are a SKU's counters summed over its locations.
type Totals struct {
	OnHand    int64 `json:"on_hand"`
	Reserved  int64 `json:"reserved"`
	Committed int64 `json:"committed"`
	Available int64 `json:"available"`
}

// Idempotency makes one mutating Service call safe to retry. The first
// call with Key that succeeds stores its result in the same transaction as
// its effect; a later call with the same Key and Fingerprint does nothing
// and returns that result again, with Replayed set. Calls with a Key
// whose first call is still running wait for it (bounded by their
// context) and then get its result.
//
// Only a success is stored. A refusal (insufficient stock, a wrong state,
// invalid input) changes nothing and stores nothing, so the same Key may
// be retried once the cause is gone: a key refused for lack of stock
// succeeds after a restock. A call that fails or is cut off by its
// deadline stored nothing either, unless it committed, in which case its
// retry gets the committed result.
//
// Keys are scoped to the caller: the same Key sent by two actors (two API
// keys) names two operations.
//
// Keys are kept for the service's retention period (24 hours by default);
// after it, a Key is free again.
type Idempotency struct {
	// Key names the operation, chosen by the client: 1 to MaxIDLength
	// bytes of printable ASCII.
	Key string
	// Fingerprint identifies the request (HTTP: method, path and body).
	// The same Key with another Fingerprint, or for another method, is
	// refused with EIdempotencyMismatch.
	Fingerprint string
	// Replayed is set by the Service when the call did nothing and
	// returned the stored result of an earlier call with Key.
	Replayed bool
}
