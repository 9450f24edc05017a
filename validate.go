package stockade

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on what a request may ask. They are the service's one set of
// limits: the Validate functions below enforce them, the engine calls
// those functions on every request, and adapters (the HTTP API) check only
// their wire format and leave the rest to them.
const (
	// MaxIDLength is the longest identifier, in bytes: a SKU, a location
	// id, a reservation or order id, an idempotency key.
	MaxIDLength = 128
	// MaxTextLength is the longest free text, in bytes: a location's name,
	// an adjustment's reason.
	MaxTextLength = 1024
	// MaxLines is the most lines a reservation or order may have.
	MaxLines = 100
	// MaxQuantity is the largest quantity of a line, the largest on-hand
	// quantity a level may be set to, and the largest adjustment either
	// way. MaxLines × MaxQuantity is far below the largest int64, so no
	// sum of a request's quantities overflows.
	MaxQuantity = 1_000_000_000
	// MaxTTL is the longest hold a reservation may ask for, unless the
	// service is configured with another ceiling.
	MaxTTL = 24 * time.Hour
)

// invalidf returns an *Error with code EInvalid.
func invalidf(format string, args ...any) *Error {
	return Errorf(EInvalid, fmt.Sprintf(format, args...))
}

// Every refusal below is an *Error with code EInvalid whose message
// starts with the field at fault, named as the JSON of the HTTP API names
// it ("lines[2].quantity"), then says the rule and what was given:
// "lines[2].quantity: must be between 1 and 1000000000, got 0".

// ValidateID refuses an identifier that is empty, longer than MaxIDLength
// bytes, not UTF-8 or holds a control character. field names it in the
// message.
func ValidateID(field, id string) error {
	if id == "" {
		return invalidf("%s: required, must not be empty", field)
	}
	if len(id) > MaxIDLength {
		return invalidf("%s: longer than %d bytes, got %d", field, MaxIDLength, len(id))
	}
	return validateChars(field, id)
}

// ValidateText refuses free text that is longer than MaxTextLength bytes,
// not UTF-8 or holds a control character. Empty text passes.
func ValidateText(field, s string) error {
	if len(s) > MaxTextLength {
		return invalidf("%s: longer than %d bytes, got %d", field, MaxTextLength, len(s))
	}
	return validateChars(field, s)
}

func validateChars(field, s string) error {
	if !utf8.ValidString(s) {
		return invalidf("%s: not valid UTF-8", field)
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return invalidf("%s: must not contain control characters", field)
	}
	return nil
}

// ValidateIdempotencyKey refuses an idempotency key that is not 1 to
// MaxIDLength bytes of printable ASCII (an HTTP header carries it as is).
func ValidateIdempotencyKey(field, key string) error {
	if key == "" || len(key) > MaxIDLength {
		return invalidf("%s: want 1 to %d characters, got %d", field, MaxIDLength, len(key))
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return invalidf("%s: want printable ASCII, got byte %#x at %d", field, c, i)
		}
	}
	return nil
}

// Validate refuses a key whose SKU or location is not a valid identifier.
func (k Key) Validate() error {
	if err := ValidateID("sku", k.SKU); err != nil {
		return err
	}
	return ValidateID("location", k.Location)
}

// validate refuses coordinates that are not finite or out of range; field
// prefixes their names ("ship_to." gives "ship_to.lat").
func (p Point) validate(field string) error {
	if err := validateCoordinate(field+"lat", p.Lat, 90); err != nil {
		return err
	}
	return validateCoordinate(field+"lon", p.Lon, 180)
}

func validateCoordinate(field string, v, limit float64) error {
	if math.IsNaN(v) || v < -limit || v > limit {
		return invalidf("%s: must be between %g and %g, got %g", field, -limit, limit, v)
	}
	return nil
}

// Validate refuses a location whose id is not a valid identifier, whose
// name is not valid text, or whose point, if it has one, is off the map.
func (l Location) Validate() error {
	if err := ValidateID("id", l.ID); err != nil {
		return err
	}
	if err := ValidateText("name", l.Name); err != nil {
		return err
	}
	if l.Point == nil {
		return nil
	}
	return l.Point.validate("")
}

// Validate refuses a reservation or checkout request that has no lines or
// more than MaxLines, a line whose SKU or location (if given) is not a
// valid identifier or whose quantity is not between 1 and MaxQuantity, a
// negative TTL or one longer than maxTTL (MaxTTL when maxTTL is zero or
// less), or a ship-to point off the map. A zero TTL passes: it means the
// service's default.
func (r ReserveRequest) Validate(maxTTL time.Duration) error {
	if maxTTL <= 0 {
		maxTTL = MaxTTL
	}
	if err := validateLines(r.Lines); err != nil {
		return err
	}
	if err := r.Metadata.Validate("metadata"); err != nil {
		return err
	}
	if err := r.Admission.Validate(); err != nil {
		return err
	}
	switch {
	case r.TTL < 0:
		return invalidf("ttl: must not be negative, got %v", r.TTL)
	case r.TTL > maxTTL:
		return invalidf("ttl: must be at most %v (%d seconds), got %v", maxTTL, int64(maxTTL/time.Second), r.TTL)
	}
	if r.ShipTo != nil {
		return r.ShipTo.validate("ship_to.")
	}
	return nil
}

// ValidateSetStock refuses a SetStock call with an invalid key, an
// on-hand quantity that is not between 0 and MaxQuantity, or a negative
// expected version.
func ValidateSetStock(k Key, onHand int64, expectedVersion *int64) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if onHand < 0 || onHand > MaxQuantity {
		return invalidf("on_hand: must be between 0 and %d, got %d", MaxQuantity, onHand)
	}
	if expectedVersion != nil && *expectedVersion < 0 {
		return invalidf("expected_version: must not be negative, got %d", *expectedVersion)
	}
	return nil
}

// ValidateAdjustStock refuses an AdjustStock call with an invalid key, a
// delta that is zero or beyond ±MaxQuantity, or a reason that is empty or
// not valid text: every adjustment says why in the ledger.
func ValidateAdjustStock(k Key, delta int64, reason string) error {
	if err := k.Validate(); err != nil {
		return err
	}
	switch {
	case delta == 0:
		return invalidf("delta: must not be zero")
	case delta < -MaxQuantity || delta > MaxQuantity:
		return invalidf("delta: must be between %d and %d, got %d", -MaxQuantity, MaxQuantity, delta)
	case reason == "":
		return invalidf("reason: required, must not be empty")
	}
	return ValidateText("reason", reason)
}

// validateLines refuses lines that are none or more than MaxLines, or one
// whose SKU or location (if given) is not a valid identifier or whose
// quantity is not between 1 and MaxQuantity: the lines of a reservation,
// an order or a shipment.
func validateLines(lines []Line) error {
	switch n := len(lines); {
	case n == 0:
		return invalidf("lines: must not be empty")
	case n > MaxLines:
		return invalidf("lines: at most %d, got %d", MaxLines, n)
	}
	for i, l := range lines {
		path := fmt.Sprintf("lines[%d].", i)
		if err := ValidateID(path+"sku", l.SKU); err != nil {
			return err
		}
		if l.Quantity < 1 || l.Quantity > MaxQuantity {
			return invalidf("%squantity: must be between 1 and %d, got %d", path, MaxQuantity, l.Quantity)
		}
		if l.Location != "" {
			if err := ValidateID(path+"location", l.Location); err != nil {
				return err
			}
		}
	}
	return nil
}
