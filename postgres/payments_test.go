package postgres_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// TestLapseCandidatesWaitForPayment checks that ReservationLapseCandidates
// with keys and HoldLapseCandidates with an event, which wait for targets
// another transaction has locked, report the payment status that
// transaction wrote: the payment's row is not one they lock, and READ
// COMMITTED re-checks only the rows they do once they have them.
func TestLapseCandidatesWaitForPayment(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	k := stockade.Key{SKU: "sku", Location: "w1"}
	r := stockade.Reservation{ID: "r-1", Status: stockade.Held, CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute),
		Lines:       []stockade.Line{{SKU: k.SKU, Quantity: 1}},
		Allocations: []stockade.Allocation{{SKU: k.SKU, Location: k.Location, Quantity: 1}}}
	h := stockade.Hold{ID: "h-1", ShowID: "E1", Status: stockade.HoldHeld, CreatedAt: now.Add(-time.Hour),
		ExpiresAt: now.Add(-time.Minute), Version: 1}
	pay := func(id string, kind stockade.PaymentTargetKind, target string) stockade.Payment {
		return stockade.Payment{ID: id, Target: stockade.PaymentTarget{Kind: kind, ID: target}, Amount: 100, Currency: "EUR",
			Status: stockade.PaymentPending, CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour), Version: 1}
	}
	pr, ph := pay("p-r", stockade.PayReservation, r.ID), pay("p-h", stockade.PayHold, h.ID)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.InsertReservations(ctx, r); err != nil {
			return err
		}
		if err := tx.InsertHolds(ctx, h); err != nil {
			return err
		}
		if err := tx.InsertPayment(ctx, pr); err != nil {
			return err
		}
		return tx.InsertPayment(ctx, ph)
	})

	// The payment system takes both payments: under their targets' locks,
	// as the engine moves a payment.
	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx stockade.Tx) error {
			if _, err := tx.Reservation(ctx, r.ID, true); err != nil {
				return err
			}
			if _, err := tx.Hold(ctx, h.ID, true); err != nil {
				return err
			}
			close(locked)
			<-release
			for _, p := range []stockade.Payment{pr, ph} {
				p.Status, p.UpdatedAt, p.Version = stockade.PaymentProcessing, now, 2
				if ok, err := tx.UpdatePayment(ctx, p); err != nil || !ok {
					return errors.Join(err, errors.New("payment changed"))
				}
			}
			return nil
		})
	}()
	<-locked
	type lapsed struct {
		ids []string
		err error
	}
	reservations, holds := make(chan lapsed, 1), make(chan lapsed, 1)
	go func() {
		var got lapsed
		got.err = s.Update(ctx, func(tx stockade.Tx) error {
			cs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, Keys: []stockade.Key{k}})
			for _, c := range cs {
				got.ids = append(got.ids, c.Reservation.ID+":"+string(c.Payment))
			}
			return err
		})
		reservations <- got
	}()
	go func() {
		var got lapsed
		got.err = s.Update(ctx, func(tx stockade.Tx) error {
			cs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, ShowID: h.ShowID})
			for _, c := range cs {
				got.ids = append(got.ids, c.Hold.ID+":"+string(c.Payment))
			}
			return err
		})
		holds <- got
	}()
	eventually(t, "both requests to wait for the targets' locks", func() bool { return lockWaiters(t, db) == 2 })
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for what, tc := range map[string]struct {
		ch   chan lapsed
		want string
	}{"ReservationLapseCandidates": {reservations, r.ID + ":processing"}, "HoldLapseCandidates": {holds, h.ID + ":processing"}} {
		got := <-tc.ch
		if got.err != nil || !slices.Equal(got.ids, []string{tc.want}) {
			t.Errorf("%s after the payment went in flight while it waited = %q, %v; want [%s]", what, got.ids, got.err, tc.want)
		}
	}
}

// TestPaymentConstraints checks that the schema holds the payments'
// invariants, whatever writes to it.
func TestPaymentConstraints(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.InsertPayment(t.Context(), stockade.Payment{ID: "p", Target: stockade.PaymentTarget{Kind: stockade.PayOrder, ID: "o"},
			Amount: 1, Currency: "EUR", Status: stockade.PaymentPending, CreatedAt: time.Now(), UpdatedAt: time.Now(), Version: 1}); err != nil {
			return err
		}
		return tx.AppendPaymentChanges(t.Context(), stockade.PaymentChange{PaymentID: "p", From: stockade.PaymentPending, To: stockade.PaymentPending})
	})
	db := newPool(t, url)
	insert := `INSERT INTO payments (id, target_kind, target_id, amount, currency, status, created_at, updated_at, version) VALUES `
	for _, tc := range []struct {
		name, sql, code string
	}{
		{"a second payment of a target", insert + `('q', 'order', 'o', 1, 'EUR', 'pending', now(), now(), 1)`, "23505"},
		{"unknown target kind", insert + `('q', 'level', 'o', 1, 'EUR', 'pending', now(), now(), 1)`, "23514"},
		{"amount 0", insert + `('q', 'order', 'q', 0, 'EUR', 'pending', now(), now(), 1)`, "23514"},
		{"currency of four letters", insert + `('q', 'order', 'q', 1, 'EURO', 'pending', now(), now(), 1)`, "23514"},
		{"unknown status", insert + `('q', 'order', 'q', 1, 'EUR', 'lost', now(), now(), 1)`, "23514"},
		{"version 0", insert + `('q', 'order', 'q', 1, 'EUR', 'pending', now(), now(), 0)`, "23514"},
		{"unknown resolution", `UPDATE payments SET resolution = 'lost'`, "23514"},
		{"resolution NULL", `UPDATE payments SET resolution = NULL`, "23502"},
		{"history of an unknown payment", `INSERT INTO payment_changes (payment_id, from_status, to_status)
			VALUES ('q', 'pending', 'pending')`, "23503"},
		{"history update", `UPDATE payment_changes SET reason = 'rewritten'`, "23001"},
		{"history delete", `DELETE FROM payment_changes`, "23001"},
		{"outcome twice", `INSERT INTO payment_inbox VALUES ('e', 'p', now()), ('e', 'p', now())`, "23505"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(t.Context(), tc.sql)
			if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != tc.code {
				t.Fatalf("got %v, want SQLSTATE %s", err, tc.code)
			}
		})
	}
}
