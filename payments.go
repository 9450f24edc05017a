package stockade

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Payments: stockade moves no money. A Payment records what a payment
// system says about the payment of one reservation, hold or order, so
// that the stock or seats it pays for are confirmed when it succeeds and
// given back when it fails, whatever order and however many times the
// payment system's outcomes arrive.

// PaymentService keeps the payments of reservations, holds and orders
// and applies what payment systems report of them: what the HTTP API
// exposes and the engine implements, a part of Service. Refusals are
// *Error: EPaymentExists for a second payment of a target (the message
// names the first), EInvalidState for a move the status table does not
// allow (the message names the current status).
type PaymentService interface {
	// CreatePayment records the pending payment of a held reservation or
	// hold, or a committed order.
	CreatePayment(ctx context.Context, req NewPaymentRequest, idem *Idempotency) (Payment, error)

	// Payment returns a payment (ENotFound if unknown).
	Payment(ctx context.Context, id string) (Payment, error)

	// Payments returns a page of the payments that match q, newest
	// first, and the cursor of the next page.
	Payments(ctx context.Context, q PaymentQuery) (PaymentPage, error)

	// PaymentHistory returns every change of a payment, oldest first.
	PaymentHistory(ctx context.Context, id string) ([]PaymentChange, error)

	// ApplyOutcome applies what the payment system reports of a payment,
	// once per outcome id and in any order, and confirms or gives back
	// what the payment pays for. source names where the outcome came
	// from ("webhook", "jetstream"), or is empty for the caller's key.
	ApplyOutcome(ctx context.Context, o PaymentOutcome, source string) (Payment, error)

	// CancelPayment cancels a pending or authorized payment and gives
	// back what it pays for.
	CancelPayment(ctx context.Context, id, reason string, idem *Idempotency) (Payment, error)

	// UpdatePayment merges req into a payment's metadata, in any status;
	// its version and status stay as they are.
	UpdatePayment(ctx context.Context, id string, req UpdateRequest, idem *Idempotency) (Payment, error)
}

// PaymentStatus is where a payment is, modelled on Stripe's
// PaymentIntent: a payment starts pending; processing while the payment
// system works; authorized when it holds the money but must be captured;
// and ends succeeded (then perhaps refunded), captured (likewise),
// failed or cancelled.
type PaymentStatus string

// Payment statuses.
const (
	PaymentPending    PaymentStatus = "pending"
	PaymentProcessing PaymentStatus = "processing"
	PaymentAuthorized PaymentStatus = "authorized"
	PaymentSucceeded  PaymentStatus = "succeeded"
	PaymentCaptured   PaymentStatus = "captured"
	PaymentFailed     PaymentStatus = "failed"
	PaymentCancelled  PaymentStatus = "cancelled"
	PaymentRefunded   PaymentStatus = "refunded"
)

// PaymentStatuses are the payment statuses, in the order of the
// constants.
var PaymentStatuses = []PaymentStatus{PaymentPending, PaymentProcessing, PaymentAuthorized, PaymentSucceeded,
	PaymentCaptured, PaymentFailed, PaymentCancelled, PaymentRefunded}

// PaymentTransitions is the payment state machine, whole: the statuses
// a payment in each status may move to. A status that is not a key, or
// whose list is empty, is terminal. Every check of a move reads this
// table and nothing else.
var PaymentTransitions = map[PaymentStatus][]PaymentStatus{
	PaymentPending:    {PaymentProcessing, PaymentAuthorized, PaymentSucceeded, PaymentFailed, PaymentCancelled},
	PaymentProcessing: {PaymentAuthorized, PaymentSucceeded, PaymentFailed},
	PaymentAuthorized: {PaymentCaptured, PaymentCancelled, PaymentFailed},
	PaymentSucceeded:  {PaymentRefunded},
	PaymentCaptured:   {PaymentRefunded},
}

// paymentStage orders the statuses along a payment's life, for outcomes
// that arrive out of order: one whose status is of an earlier stage than
// the payment's is stale (a "processing" after "succeeded"). Statuses of
// one stage are alternatives: none follows another without a move in the
// table.
var paymentStage = map[PaymentStatus]int{
	PaymentPending:    0,
	PaymentProcessing: 1,
	PaymentAuthorized: 2,
	PaymentSucceeded:  3,
	PaymentCaptured:   3,
	PaymentFailed:     3,
	PaymentCancelled:  3,
	PaymentRefunded:   4,
}

// Valid reports whether s is one of the payment statuses.
func (s PaymentStatus) Valid() bool {
	_, ok := paymentStage[s]
	return ok
}

// Terminal reports whether a payment in status s can move no more.
func (s PaymentStatus) Terminal() bool { return len(PaymentTransitions[s]) == 0 }

// CanMove reports whether the table allows a payment in status s to move
// to status to.
func (s PaymentStatus) CanMove(to PaymentStatus) bool {
	return slices.Contains(PaymentTransitions[s], to)
}

// Settled reports whether a payment in status s has paid: the stock or
// seats it pays for are to be confirmed.
func (s PaymentStatus) Settled() bool { return s == PaymentSucceeded || s == PaymentCaptured }

// Move checks a client's or an operator's request to move a payment in
// status s to status to. It is nil if the table allows it; otherwise
// EInvalidState naming the current status and, if there are any, the
// statuses it may move to. An unknown status is EInvalid.
func (s PaymentStatus) Move(to PaymentStatus) error {
	switch {
	case !s.Valid():
		return invalidf("status: unknown payment status %q", s)
	case !to.Valid():
		return invalidf("status: unknown payment status %q; one of %s", to, listStatuses(PaymentStatuses))
	case s.CanMove(to):
		return nil
	case s.Terminal():
		return Errorf(EInvalidState, fmt.Sprintf("payment is %s, which is final: it cannot become %s", s, to))
	}
	return Errorf(EInvalidState, fmt.Sprintf("payment is %s: it can become %s, not %s", s, listStatuses(PaymentTransitions[s]), to))
}

// OutcomeEffect is what an outcome reported by the payment system does
// to a payment.
type OutcomeEffect int

// Outcome effects.
const (
	// OutcomeApply moves the payment to the outcome's status.
	OutcomeApply OutcomeEffect = iota
	// OutcomeStale changes nothing: the payment is already in the
	// outcome's status (a delivery again), or past it (an outcome that
	// arrived late).
	OutcomeStale
)

// Outcome decides what an outcome of status to does to a payment in
// status s. Outcomes arrive at least once and in any order. One whose
// status the table leads to from s, in one move or more, is OutcomeApply:
// a "refunded" that overtook its "succeeded" moves the payment to
// refunded, where the payment system says it is. The same status again,
// or one of an earlier stage ("processing" after "succeeded"), is
// OutcomeStale. Anything else ("failed" after "succeeded") contradicts
// what the payment system said before, and is refused as Move refuses
// it.
func (s PaymentStatus) Outcome(to PaymentStatus) (OutcomeEffect, error) {
	err := s.Move(to)
	switch {
	case err == nil || s.Valid() && s.leadsTo(to):
		return OutcomeApply, nil
	case !s.Valid() || !to.Valid():
		return OutcomeStale, err
	case to == s || paymentStage[to] < paymentStage[s]:
		return OutcomeStale, nil
	}
	return OutcomeStale, err
}

// leadsTo reports whether the table leads from s to to in one move or
// more. The table has no cycle, so the search ends.
func (s PaymentStatus) leadsTo(to PaymentStatus) bool {
	for _, next := range PaymentTransitions[s] {
		if next == to || next.leadsTo(to) {
			return true
		}
	}
	return false
}

// listStatuses returns ss as "a, b or c".
func listStatuses[S ~string](ss []S) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// IgnoredOutcome is ApplyOutcome's answer to an outcome that contradicts
// what the payment system reported before ("failed" after "succeeded"):
// it changed nothing, but the payment's history records that it came and
// why it was ignored, and its event id is kept, so a delivery of it again
// is answered as a replay. It is the EInvalidState *Error Err (errors.As
// finds it), with the payment as it stands.
type IgnoredOutcome struct {
	Payment Payment
	Err     *Error
}

// Error implements error.
func (e *IgnoredOutcome) Error() string { return e.Err.Error() }

// Unwrap returns the *Error.
func (e *IgnoredOutcome) Unwrap() error { return e.Err }

// PaymentTargetKind is what a payment pays for.
type PaymentTargetKind string

// Payment target kinds.
const (
	PayReservation PaymentTargetKind = "reservation"
	PayHold        PaymentTargetKind = "hold"
	PayOrder       PaymentTargetKind = "order"
)

// PaymentTarget names the one reservation, hold or order a payment pays
// for. A target has at most one payment.
type PaymentTarget struct {
	Kind PaymentTargetKind `json:"kind"`
	ID   string            `json:"id"`
}

func (t PaymentTarget) String() string { return string(t.Kind) + " " + t.ID }

// Validate checks that t names a kind and an id.
func (t PaymentTarget) Validate() error {
	switch t.Kind {
	case PayReservation, PayHold, PayOrder:
	default:
		return invalidf("target.kind: must be reservation, hold or order, got %q", t.Kind)
	}
	return ValidateID("target.id", t.ID)
}

// InFlight reports whether a payment in status s may still move money:
// the payment system is working on it (processing) or holds the money
// (authorized). A hold or reservation whose payment is in flight is not
// expired when it lapses (see PaymentGrace).
func (s PaymentStatus) InFlight() bool { return s == PaymentProcessing || s == PaymentAuthorized }

// PaymentResolution is what a payment has done to what it pays for.
type PaymentResolution string

// Payment resolutions.
const (
	// Unresolved: nothing yet. A payment that is settled and unresolved
	// is one whose target had lapsed, being taken again (see
	// ResolvedReordered).
	Unresolved PaymentResolution = ""
	// ResolvedConfirmed: the payment settled while its reservation or
	// hold was held, which became Payment.Order or Payment.Booking (for
	// an order, Order is the order itself).
	ResolvedConfirmed PaymentResolution = "confirmed"
	// ResolvedReleased: the payment failed or was cancelled, and its
	// reservation or hold was released, or its order cancelled (or it had
	// lapsed already).
	ResolvedReleased PaymentResolution = "released"
	// ResolvedReordered: the payment settled after its reservation or
	// hold had lapsed, and the same stock or seats were still free and
	// were taken again, into Payment.Order or Payment.Booking.
	ResolvedReordered PaymentResolution = "reordered"
	// ResolvedNeedsRefund: the payment settled after its reservation or
	// hold had lapsed, and the stock or seats were gone: nothing was
	// sold twice, and the money must go back, by a person or the payment
	// system.
	ResolvedNeedsRefund PaymentResolution = "needs_refund"
)

// PaymentResolutions are the payment resolutions, in the order of the
// constants.
var PaymentResolutions = []PaymentResolution{Unresolved, ResolvedConfirmed, ResolvedReleased, ResolvedReordered, ResolvedNeedsRefund}

// Payment is the payment of one target, as the payment system reports
// it. Amount is in the currency's minor units (cents), as the client
// gave it; stockade does not check it against prices it does not keep.
type Payment struct {
	ID        string        `json:"id"`
	Target    PaymentTarget `json:"target"`
	Amount    int64         `json:"amount"`
	Currency  string        `json:"currency"`
	Status    PaymentStatus `json:"status"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	// Resolution is what the payment has done to its target, and Order
	// or Booking what it became.
	Resolution PaymentResolution `json:"resolution,omitempty"`
	Order      string            `json:"order_id,omitempty"`
	Booking    string            `json:"booking_id,omitempty"`
	// StuckAt is when the payment was found still in flight after its
	// target's grace period ran out: its target is kept, and a person
	// must look. Zero if it never was.
	StuckAt time.Time `json:"stuck_at,omitzero"`
	// Version counts the payment's changes: 1 when created.
	Version int64  `json:"version"`
	Owner   string `json:"owner,omitempty"`
	// Metadata is the shop's own data, as the request gave it.
	Metadata Metadata `json:"metadata,omitempty"`
}

// Stuck reports whether p waits for a person: found in flight after its
// grace period, and not resolved since.
func (p Payment) Stuck() bool { return !p.StuckAt.IsZero() && p.Resolution == Unresolved }

// PaymentChange is one change of a payment, as its history keeps it:
// a move of its status (From → To), or, with From equal to To, a change
// of its resolution or its being found stuck; who or what made it, and
// why.
type PaymentChange struct {
	PaymentID  string            `json:"payment_id"`
	From       PaymentStatus     `json:"from"`
	To         PaymentStatus     `json:"to"`
	Resolution PaymentResolution `json:"resolution,omitempty"`
	At         time.Time         `json:"at"`
	// Actor is the API key's name, or the source of an outcome
	// ("webhook", "jetstream"), or the service's own ("" for the
	// sweeper).
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// NewPaymentRequest asks for the payment of a target.
type NewPaymentRequest struct {
	Target   PaymentTarget `json:"target"`
	Amount   int64         `json:"amount"`
	Currency string        `json:"currency"`
	// Metadata is the shop's own data on the payment.
	Metadata Metadata `json:"metadata,omitempty"`
}

// maxPaymentAmount bounds an amount in minor units: 10^15, ten trillion
// of a currency with cents, far below where int64 arithmetic overflows.
const maxPaymentAmount = 1_000_000_000_000_000

// Validate checks r: a valid target, an amount above 0 and at most
// 10^15 minor units, and a currency of three capital letters (ISO 4217).
func (r NewPaymentRequest) Validate() error {
	if err := r.Target.Validate(); err != nil {
		return err
	}
	if err := r.Metadata.Validate("metadata"); err != nil {
		return err
	}
	if r.Amount <= 0 || r.Amount > maxPaymentAmount {
		return invalidf("amount: must be between 1 and %d minor units, got %d", int64(maxPaymentAmount), r.Amount)
	}
	if !validCurrency(r.Currency) {
		return invalidf("currency: must be three capital letters (ISO 4217, such as EUR), got %q", r.Currency)
	}
	return nil
}

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := range len(c) {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// PaymentOutcome is what a payment system reports of a payment: its new
// status, under an id of the report's own by which a report delivered
// again is applied once.
type PaymentOutcome struct {
	EventID   string        `json:"event_id"`
	PaymentID string        `json:"payment_id"`
	Status    PaymentStatus `json:"status"`
	Reason    string        `json:"reason,omitempty"`
}

// Validate checks that o names its report and its payment and a status
// a payment system can report: any but pending.
func (o PaymentOutcome) Validate() error {
	if err := ValidateID("event_id", o.EventID); err != nil {
		return err
	}
	if err := ValidateID("payment_id", o.PaymentID); err != nil {
		return err
	}
	if !o.Status.Valid() || o.Status == PaymentPending {
		return invalidf("status: must be one of %s, got %q", listStatuses(PaymentStatuses[1:]), o.Status)
	}
	return ValidateText("reason", o.Reason)
}

// PaymentQuery selects a page of payments, newest first. Zero fields
// match everything.
type PaymentQuery struct {
	Status PaymentStatus
	// Stuck keeps the payments that wait for a person: stuck in flight
	// (Payment.Stuck).
	Stuck bool
	// Resolution, if not empty, keeps the payments with this resolution
	// ("unresolved" for none yet).
	Resolution string
	// Metadata keeps the payments whose metadata holds each of its keys
	// with its value.
	Metadata Metadata
	// Cursor is the Next of the page before; empty for the first page.
	Cursor string
	// Limit is the most in the page: 1 to MaxListLimit, or 0 for
	// DefaultListLimit.
	Limit int
}

// ResolutionUnresolved is how a PaymentQuery asks for the payments with
// no resolution yet.
const ResolutionUnresolved = "unresolved"

// Validate checks the status, the resolution and the limit of q.
func (q PaymentQuery) Validate() error {
	if err := q.Metadata.Validate("metadata"); err != nil {
		return err
	}
	if q.Status != "" && !q.Status.Valid() {
		return invalidf("status: must be one of %s, got %q", listStatuses(PaymentStatuses), q.Status)
	}
	if q.Resolution != "" && q.Resolution != ResolutionUnresolved && !slices.Contains(PaymentResolutions[1:], PaymentResolution(q.Resolution)) {
		return invalidf("resolution: must be %s, %s, got %q", ResolutionUnresolved, listStatuses(PaymentResolutions[1:]), q.Resolution)
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return invalidf("limit: must be between 1 and %d, got %d", MaxListLimit, q.Limit)
	}
	return nil
}

// PaymentPage is a page of payments, newest first.
type PaymentPage struct {
	Payments []Payment
	// Next is the cursor of the following page; empty on the last page.
	Next string
}
