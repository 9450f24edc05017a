package stockade_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// TestPaymentTransitions checks every pair of statuses against the table
// itself: a move the table lists is allowed, every other one is refused
// with invalid_state naming the current status, and the table is a state
// machine a payment can live through.
func TestPaymentTransitions(t *testing.T) {
	t.Parallel()
	all := stockade.PaymentStatuses
	for from, tos := range stockade.PaymentTransitions {
		if !from.Valid() {
			t.Errorf("the table has moves from an unknown status %q", from)
		}
		for i, to := range tos {
			if !to.Valid() || to == from || slices.Contains(tos[:i], to) {
				t.Errorf("%s → %s: unknown, to itself, or listed twice", from, to)
			}
		}
	}
	for _, from := range all {
		for _, to := range all {
			allowed := slices.Contains(stockade.PaymentTransitions[from], to)
			if got := from.CanMove(to); got != allowed {
				t.Errorf("%s.CanMove(%s) = %v, want %v", from, to, got, allowed)
			}
			err := from.Move(to)
			switch {
			case allowed && err != nil:
				t.Errorf("%s → %s: %v, want it allowed", from, to, err)
			case !allowed && stockade.ErrorCode(err) != stockade.EInvalidState:
				t.Errorf("%s → %s: %v, want %s", from, to, err, stockade.EInvalidState)
			case !allowed && !strings.Contains(err.Error(), "payment is "+string(from)):
				t.Errorf("%s → %s: %q does not name the current status", from, to, err)
			}
		}
		if from.Terminal() != (len(stockade.PaymentTransitions[from]) == 0) {
			t.Errorf("%s.Terminal() = %v", from, from.Terminal())
		}
	}

	// Every status is reachable from pending, and every life ends: no
	// cycle leads back to a status already passed.
	reached := map[stockade.PaymentStatus]bool{}
	var walk func(s stockade.PaymentStatus, path []stockade.PaymentStatus)
	walk = func(s stockade.PaymentStatus, path []stockade.PaymentStatus) {
		if slices.Contains(path, s) {
			t.Fatalf("a cycle: %v → %s", path, s)
		}
		reached[s] = true
		for _, to := range stockade.PaymentTransitions[s] {
			walk(to, append(path, s))
		}
	}
	walk(stockade.PaymentPending, nil)
	for _, s := range all {
		if !reached[s] {
			t.Errorf("%s cannot be reached from pending", s)
		}
	}

	for _, bad := range []stockade.PaymentStatus{"", "paid", "Succeeded"} {
		if code := stockade.ErrorCode(stockade.PaymentPending.Move(bad)); code != stockade.EInvalid {
			t.Errorf("pending → %q: %s, want %s", bad, code, stockade.EInvalid)
		}
		if code := stockade.ErrorCode(bad.Move(stockade.PaymentFailed)); code != stockade.EInvalid {
			t.Errorf("%q → failed: %s, want %s", bad, code, stockade.EInvalid)
		}
	}
}

// TestPaymentOutcome: an outcome the table leads to applies, in one move
// or more (a refund that overtook its success); the same status again,
// or one a payment has passed, is stale; anything else contradicts an
// earlier outcome and is refused.
func TestPaymentOutcome(t *testing.T) {
	t.Parallel()
	// A payment's lives, in order; any status of a life is past the
	// statuses before it in that life.
	lives := [][]stockade.PaymentStatus{
		{stockade.PaymentPending, stockade.PaymentProcessing, stockade.PaymentSucceeded, stockade.PaymentRefunded},
		{stockade.PaymentPending, stockade.PaymentProcessing, stockade.PaymentAuthorized, stockade.PaymentCaptured, stockade.PaymentRefunded},
		{stockade.PaymentPending, stockade.PaymentProcessing, stockade.PaymentFailed},
		{stockade.PaymentPending, stockade.PaymentAuthorized, stockade.PaymentCancelled},
	}
	for _, life := range lives {
		for i, cur := range life {
			for j, to := range life {
				effect, err := cur.Outcome(to)
				switch {
				case j <= i && (effect != stockade.OutcomeStale || err != nil):
					t.Errorf("%s, then %s (already passed): %v, %v; want stale", cur, to, effect, err)
				case j > i && (effect != stockade.OutcomeApply || err != nil): // later in the life: reachable
					t.Errorf("%s, then %s: %v, %v; want applied", cur, to, effect, err)
				}
			}
		}
	}
	contradictions := [][2]stockade.PaymentStatus{
		{stockade.PaymentSucceeded, stockade.PaymentFailed},
		{stockade.PaymentFailed, stockade.PaymentSucceeded},
		{stockade.PaymentCancelled, stockade.PaymentCaptured},
		{stockade.PaymentCaptured, stockade.PaymentCancelled},
		{stockade.PaymentFailed, stockade.PaymentRefunded},
	}
	for _, c := range contradictions {
		if _, err := c[0].Outcome(c[1]); stockade.ErrorCode(err) != stockade.EInvalidState {
			t.Errorf("%s, then %s: %v; want %s", c[0], c[1], err, stockade.EInvalidState)
		}
	}
}

func TestNewPaymentRequestValidate(t *testing.T) {
	t.Parallel()
	ok := stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayHold, ID: "hld_1"}, Amount: 4200, Currency: "EUR"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	tests := []struct {
		name  string
		edit  func(r *stockade.NewPaymentRequest)
		field string
	}{
		{"no kind", func(r *stockade.NewPaymentRequest) { r.Target.Kind = "" }, "target.kind"},
		{"unknown kind", func(r *stockade.NewPaymentRequest) { r.Target.Kind = "cart" }, "target.kind"},
		{"no id", func(r *stockade.NewPaymentRequest) { r.Target.ID = "" }, "target.id"},
		{"zero amount", func(r *stockade.NewPaymentRequest) { r.Amount = 0 }, "amount"},
		{"negative amount", func(r *stockade.NewPaymentRequest) { r.Amount = -1 }, "amount"},
		{"huge amount", func(r *stockade.NewPaymentRequest) { r.Amount = 1e15 + 1 }, "amount"},
		{"lower-case currency", func(r *stockade.NewPaymentRequest) { r.Currency = "eur" }, "currency"},
		{"long currency", func(r *stockade.NewPaymentRequest) { r.Currency = "EURO" }, "currency"},
		{"no currency", func(r *stockade.NewPaymentRequest) { r.Currency = "" }, "currency"},
	}
	for _, tc := range tests {
		r := ok
		tc.edit(&r)
		err := r.Validate()
		if stockade.ErrorCode(err) != stockade.EInvalid || !strings.HasPrefix(stockade.ErrorMessage(err), tc.field+":") {
			t.Errorf("%s: %v; want invalid, about %s", tc.name, err, tc.field)
		}
	}
}

func TestPaymentOutcomeValidate(t *testing.T) {
	t.Parallel()
	ok := stockade.PaymentOutcome{EventID: "evt-1", PaymentID: "pay_1", Status: stockade.PaymentSucceeded}
	if err := ok.Validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	for _, bad := range []stockade.PaymentOutcome{
		{PaymentID: "pay_1", Status: stockade.PaymentSucceeded},
		{EventID: "evt-1", Status: stockade.PaymentSucceeded},
		{EventID: "evt-1", PaymentID: "pay_1", Status: stockade.PaymentPending},
		{EventID: "evt-1", PaymentID: "pay_1", Status: "paid"},
		{EventID: "evt-1", PaymentID: "pay_1", Status: stockade.PaymentFailed, Reason: "card\x00declined"},
	} {
		if err := bad.Validate(); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("%+v: %v; want invalid", bad, err)
		}
	}
}

func ExamplePaymentStatus_Move() {
	fmt.Println(stockade.PaymentProcessing.Move(stockade.PaymentSucceeded))
	fmt.Println(stockade.PaymentProcessing.Move(stockade.PaymentRefunded))
	fmt.Println(stockade.PaymentFailed.Move(stockade.PaymentSucceeded))
	// Output:
	// <nil>
	// invalid_state: payment is processing: it can become authorized, succeeded or failed, not refunded
	// invalid_state: payment is failed, which is final: it cannot become succeeded
}
