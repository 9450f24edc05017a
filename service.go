package stockade

import (
	"context"
	"time"
)

// Service is the stockade inventory service: what the HTTP API exposes and
// the engine implements. Every refusal is an *Error with a stable code;
// a request is refused for lack of stock only ever with
// EInsufficientStock, never because the service is busy: lock waits and
// retries happen inside, bounded by ctx's deadline.
type Service interface {
	// PutLocation creates or replaces a location.
	PutLocation(ctx context.Context, loc Location) (Location, error)

	// SetStock sets the on-hand quantity of a SKU at a location, creating
	// the level if needed. With expectedVersion it is a compare-and-set
	// (EVersionConflict if the level's version differs; a missing level
	// has version 0).
	SetStock(ctx context.Context, k Key, onHand int64, expectedVersion *int64) (Level, error)

	// AdjustStock adds delta (negative to remove) to the on-hand quantity.
	AdjustStock(ctx context.Context, k Key, delta int64, reason string) (Level, error)

	// Stock returns a SKU's levels per location and their totals
	// (ENotFound for a SKU with no level anywhere).
	Stock(ctx context.Context, sku string) (Stock, error)

	// Reserve holds stock for every line or for none, until the
	// reservation's TTL passes, it is confirmed, or it is released.
	Reserve(ctx context.Context, req ReserveRequest) (Reservation, error)

	// Reservation returns a reservation (ENotFound if unknown).
	Reservation(ctx context.Context, id string) (Reservation, error)

	// Confirm turns a held reservation into an order: reserved stock
	// becomes committed. EReservationExpired if it has expired.
	Confirm(ctx context.Context, id string) (Order, error)

	// Release gives a held reservation's stock back.
	Release(ctx context.Context, id string) (Reservation, error)

	// Checkout reserves and confirms in one step: a direct order.
	Checkout(ctx context.Context, req ReserveRequest) (Order, error)

	// Order returns an order (ENotFound if unknown).
	Order(ctx context.Context, id string) (Order, error)

	// CancelOrder gives a committed order's stock back.
	CancelOrder(ctx context.Context, id string) (Order, error)

	// FulfillOrder ships a committed order: its stock leaves on-hand.
	FulfillOrder(ctx context.Context, id string) (Order, error)

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

// Idempotent asks a Service to make one mutating call idempotent under
// Key: the first call's outcome, rendered by Render, is stored in the same
// transaction as its effect (or, for a refusal, right after), and a later
// call with the same Key gets a *Replay of it instead of running again.
// Attach it with WithIdempotency.
type Idempotent struct {
	Key string
	// RequestHash identifies the request; the same Key with another hash
	// is refused with EIdempotencyMismatch.
	RequestHash string
	// Render turns the call's result (or its error, with v nil) into the
	// response to store: HTTP status and body bytes.
	Render func(v any, err error) (status int, body []byte)
}

type idempotentKey struct{}

// WithIdempotency returns a context that makes the Service call it is
// passed to idempotent under idem.
func WithIdempotency(ctx context.Context, idem *Idempotent) context.Context {
	return context.WithValue(ctx, idempotentKey{}, idem)
}

// IdempotencyFrom returns the Idempotent attached to ctx, or nil.
func IdempotencyFrom(ctx context.Context) *Idempotent {
	idem, _ := ctx.Value(idempotentKey{}).(*Idempotent)
	return idem
}

// Replay is returned as the error of an idempotent call whose key was
// already used by the same request: Status and Body are the stored
// response, to be sent byte for byte. A call still running under the key
// is refused with EIdempotencyInFlight instead.
type Replay struct {
	Status int
	Body   []byte
}

func (r *Replay) Error() string { return "stockade: replayed idempotent response" }
