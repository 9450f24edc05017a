package postgres_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// TestRequestLapseCandidatesTakeNoLocks: the lapse candidates of a
// request (with keys, or with a show) are read without locks, so a
// request never waits for a reservation or hold whose row another
// transaction holds, such as one whose payment is being moved; the
// engine locks those that lapse and decides them again (see the engine's
// TestLapsedDecidedUnderLock).
func TestRequestLapseCandidatesTakeNoLocks(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
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
		if err := tx.ReservationInsert(ctx, r); err != nil {
			return err
		}
		if err := tx.HoldInsert(ctx, h); err != nil {
			return err
		}
		if err := tx.PaymentInsert(ctx, pr); err != nil {
			return err
		}
		return tx.PaymentInsert(ctx, ph)
	})

	// The payment system takes both payments, under their targets' locks,
	// as the engine moves a payment; meanwhile a request reads the
	// candidates in its path, without waiting for those rows.
	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx stockade.Tx) error {
			if _, err := tx.ReservationGet(ctx, stockade.ByID{ID: r.ID, Lock: true}); err != nil {
				return err
			}
			if _, err := tx.HoldGet(ctx, stockade.ByID{ID: h.ID, Lock: true}); err != nil {
				return err
			}
			close(locked)
			<-release
			for _, p := range []stockade.Payment{pr, ph} {
				p.Status, p.UpdatedAt, p.Version = stockade.PaymentProcessing, now, 2
				if ok, err := tx.PaymentUpdate(ctx, p); err != nil || !ok {
					return errors.Join(err, errors.New("payment changed"))
				}
			}
			return nil
		})
	}()
	<-locked
	var got []string
	update(t, s, func(tx stockade.Tx) error {
		got = nil
		rs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, Keys: []stockade.Key{k}})
		if err != nil {
			return err
		}
		hs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, ShowID: h.ShowID})
		for _, c := range rs {
			got = append(got, c.Reservation.ID+":"+string(c.Payment))
		}
		for _, c := range hs {
			got = append(got, c.Hold.ID+":"+string(c.Payment))
		}
		return err
	})
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if want := []string{r.ID + ":pending", h.ID + ":pending"}; !slices.Equal(got, want) {
		t.Errorf("candidates of a request while their rows are locked = %q, want %q", got, want)
	}
}

// TestPaymentConstraints checks that the schema holds the payments'
// invariants, whatever writes to it.
func TestPaymentConstraints(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.PaymentInsert(t.Context(), stockade.Payment{ID: "p", Target: stockade.PaymentTarget{Kind: stockade.PayOrder, ID: "o"},
			Amount: 1, Currency: "EUR", Status: stockade.PaymentPending, CreatedAt: time.Now(), UpdatedAt: time.Now(), Version: 1}); err != nil {
			return err
		}
		return tx.PaymentChangeAppend(t.Context(), stockade.PaymentChange{PaymentID: "p", From: stockade.PaymentPending, To: stockade.PaymentPending})
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
