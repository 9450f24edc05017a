package stockade

import "errors"

// Error codes. They are stable: clients match on them, and httpapi maps each
// to an HTTP status.
//
// EInvalid refuses input that no state of the service would accept;
// EInvalidState refuses a well-formed request that the resource's current
// status does not allow (confirming a released reservation, cancelling a
// fulfilled order), and its message names that status.
const (
	EInvalid             = "invalid"
	ENotFound            = "not_found"
	EInsufficientStock   = "insufficient_stock"
	EVersionConflict     = "version_conflict"
	EInvalidState        = "invalid_state"
	EIdempotencyMismatch = "idempotency_mismatch"
	EReservationExpired  = "reservation_expired"
	EUnavailable         = "unavailable"
	EInternal            = "internal"

	// ESeatsUnavailable refuses a hold of named seats that are not free;
	// its message names them. ESoldOut refuses a hold that no free seats
	// or places of the kind it asks for can meet (a category, a section,
	// seats side by side, a general-admission area); its message says
	// which. EHoldExpired refuses to confirm a hold that ran out.
	ESeatsUnavailable = "seats_unavailable"
	ESoldOut          = "sold_out"
	EHoldExpired      = "hold_expired"

	// EPaymentExists refuses a second payment for a reservation, hold or
	// order; its message names the first.
	EPaymentExists = "payment_exists"
	// EPaymentInFlight refuses to release a reservation or hold whose
	// payment is processing or authorized: the payment system may still
	// settle it, and the buyer would be charged for stock or seats given
	// to someone else. Its message names the payment.
	EPaymentInFlight = "payment_in_flight"

	// EUnauthenticated refuses a call that carries no API key, or one
	// that is malformed, unknown or revoked.
	EUnauthenticated = "unauthenticated"
	// EForbidden refuses a call whose key's role may not make it.
	EForbidden = "forbidden"
	// ERateLimited refuses a call over its key's request rate.
	ERateLimited = "rate_limited"

	// EAdmissionRequired refuses a hold or reservation on a show or SKU
	// that a waiting room queues for, made without an admission; its
	// message names the room to join. EAdmissionInvalid refuses one whose
	// admission token is forged, expired, or for another visitor or room;
	// its message says which.
	EAdmissionRequired = "admission_required"
	EAdmissionInvalid  = "admission_invalid"
)

// Error is a failure the service explains to its caller: a stable Code and a
// human-readable Message that says why. Errors of any other type are
// internal and are reported to callers only as "internal error".
type Error struct {
	Code    string
	Message string
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code and message.
func Errorf(code, message string) *Error { return &Error{Code: code, Message: message} }

// ErrorCode returns the code of the *Error in err's chain, EInternal if there
// is none, and "" for a nil err.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of the *Error in err's chain, and
// "internal error" if there is none.
func ErrorMessage(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}
