package sqlite_test

import (
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestPaymentConstraints checks that the schema holds the payments'
// invariants, whatever writes to the file.
func TestPaymentConstraints(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	err := s.Update(ctx, func(tx stockade.Tx) error {
		err := tx.PaymentInsert(ctx, stockade.Payment{ID: "p", Target: stockade.PaymentTarget{Kind: stockade.PayOrder, ID: "o"},
			Amount: 1, Currency: "EUR", Status: stockade.PaymentPending, CreatedAt: time.Now(), UpdatedAt: time.Now(), Version: 1})
		if err != nil {
			return err
		}
		return tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: "p", From: stockade.PaymentPending, To: stockade.PaymentPending})
	})
	if err != nil {
		t.Fatal(err)
	}
	db := raw(t, s.Path())
	db.SetMaxOpenConns(1) // the pragma is the connection's
	if _, err := db.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO payments (id, target_kind, target_id, amount, currency, status, created_at, updated_at, version) VALUES `
	for _, tc := range []struct {
		name, sql string
	}{
		{"a second payment of a target", insert + `('q', 'order', 'o', 1, 'EUR', 'pending', 0, 0, 1)`},
		{"unknown target kind", insert + `('q', 'level', 'o', 1, 'EUR', 'pending', 0, 0, 1)`},
		{"amount 0", insert + `('q', 'order', 'q', 0, 'EUR', 'pending', 0, 0, 1)`},
		{"amount as text", insert + `('q', 'order', 'q', 'ten', 'EUR', 'pending', 0, 0, 1)`},
		{"currency of four letters", insert + `('q', 'order', 'q', 1, 'EURO', 'pending', 0, 0, 1)`},
		{"unknown status", insert + `('q', 'order', 'q', 1, 'EUR', 'lost', 0, 0, 1)`},
		{"version 0", insert + `('q', 'order', 'q', 1, 'EUR', 'pending', 0, 0, 0)`},
		{"unknown resolution", `UPDATE payments SET resolution = 'lost'`},
		{"resolution NULL", `UPDATE payments SET resolution = NULL`},
		{"history of an unknown payment", `INSERT INTO payment_changes (payment_id, from_status, to_status, at)
			VALUES ('q', 'pending', 'pending', 0)`},
		{"history update", `UPDATE payment_changes SET reason = 'rewritten'`},
		{"history delete", `DELETE FROM payment_changes`},
		{"outcome twice", `INSERT INTO payment_inbox VALUES ('e', 'p', 0), ('e', 'p', 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := db.ExecContext(ctx, tc.sql); err == nil {
				t.Errorf("%s succeeded", tc.sql)
			} else {
				t.Log(err)
			}
		})
	}
}
