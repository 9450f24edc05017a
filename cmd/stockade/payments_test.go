package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/sqlite"
)

// TestPaymentsCommand: "payments stuck" lists a payment stuck in flight
// and one that needs a refund, and nothing else; "payments show" prints
// a payment with its history; neither changes the store.
func TestPaymentsCommand(t *testing.T) {
	t.Parallel()
	ctx := stockade.WithActor(t.Context(), stockade.System)
	path := filepath.Join(t.TempDir(), "pay.db")
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	eng, err := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.PutLocation(ctx, stockade.Location{ID: "dc", Name: "DC"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.SetStock(ctx, stockade.Key{SKU: "tee", Location: "dc"}, 3, nil, nil); err != nil {
		t.Fatal(err)
	}
	pay := func(status stockade.PaymentStatus) stockade.Payment {
		t.Helper()
		r, err := eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tee", Quantity: 1}}, TTL: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := eng.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
			Amount: 4200, Currency: "EUR"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if status != stockade.PaymentPending {
			if p, err = eng.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "o-" + p.ID, PaymentID: p.ID, Status: status}, "webhook"); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	stuck := pay(stockade.PaymentProcessing)
	refund := pay(stockade.PaymentPending)
	fine := pay(stockade.PaymentSucceeded)
	now = now.Add(time.Hour) // past every hold and the grace period
	if _, err := eng.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	// The stock of the expired reservation goes to another buyer.
	if _, err := eng.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tee", Quantity: 1}}}, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := eng.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "late", PaymentID: refund.ID, Status: stockade.PaymentSucceeded}, "webhook"); err != nil ||
		p.Resolution != stockade.ResolvedNeedsRefund {
		t.Fatalf("late success: %+v, %v", p, err)
	}
	st.Close()

	store := "sqlite:" + path
	out, _, err := runCmd(t, nil, "payments", "stuck", "-store", store)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") ||
		!strings.HasPrefix(lines[1], stuck.ID) || !strings.Contains(lines[1], "stuck") || !strings.Contains(lines[1], "processing") ||
		!strings.HasPrefix(lines[2], refund.ID) || !strings.Contains(lines[2], "refund") || strings.Contains(out, fine.ID) {
		t.Errorf("payments stuck:\n%s", out)
	}
	out, _, err = runCmd(t, nil, "payments", "stuck", "-store", store, "-json")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var p stockade.Payment
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("payments stuck -json: %v\n%s", err, out)
		}
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, " ") != stuck.ID+" "+refund.ID {
		t.Errorf("payments stuck -json: %v, want %s and %s", ids, stuck.ID, refund.ID)
	}
	out, _, err = runCmd(t, nil, "payments", "show", "-store", store, "-id", refund.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "needs_refund") || !strings.Contains(out, "pending") || !strings.Contains(out, "webhook") || !strings.Contains(out, "lapsed") {
		t.Errorf("payments show:\n%s", out)
	}
	if _, _, err := runCmd(t, nil, "payments", "show", "-store", store, "-id", "pay_none"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("payments show of an unknown id: %v", err)
	}
	if _, _, err := runCmd(t, nil, "payments", "refund"); err == nil {
		t.Error("payments refund: no error")
	}
}
