package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// RunPayments runs the conformance cases of stockade.PaymentTx, one
// subtest each, as Run does for the rest of the store. Every transaction
// of the store must implement stockade.PaymentTx.
//
// Beyond the documentation of PaymentTx, the cases fix these choices:
//
//   - Times come back in UTC and equal what was stored to the
//     microsecond; a zero StuckAt comes back zero.
//   - A target is its kind and its id, byte for byte: a hold and a
//     reservation with the same id are two targets. PaymentInsert refuses
//     an id in use, or a target with a payment, with an error wrapping
//     stockade.ErrConflict on every store, changing nothing; of many
//     transactions inserting a payment for one target at once, exactly one
//     succeeds, whether or not they looked with PaymentGetByTarget first.
//   - PaymentUpdate writes only the fields it names; of an unknown id it
//     returns false and no error.
//   - PaymentList sorts newest first, payments created at the same time
//     in descending byte order of their ids; its filters combine with
//     AND, Stuck keeping those that Payment.Stuck reports and a Resolution
//     of "" the unresolved ones; the cursor is strict, as ReservationList'.
//   - PaymentLapseCandidates's bound is strict; payments whose targets
//     expired at the same time come in id order. A payment is a candidate
//     whatever its status, found stuck or not.
//   - ReservationLapseCandidates and HoldLapseCandidates report the
//     status of each candidate's payment, "" for none, whatever it is: the
//     payment of the candidate's kind and id. A candidate whose payment is
//     in flight takes its place in a page as any other does.
//   - PaymentChangeAppend refuses a change of a payment that does not
//     exist with ENotFound; PaymentChangeList of one returns none, and no
//     error. The history keeps the order the rows were appended in, not
//     the order of their times.
//   - OutcomeInsert compares ids byte for byte; OutcomePurge keeps a
//     record received exactly at before. A record of a transaction that
//     rolled back was never made.
//   - OutcomeInsert keeps one inbox: an id recorded once, alone or with
//     others, is not new again, in the same transaction or a later one. It
//     returns none, not an error, when every id was recorded before; it
//     takes any number of outcomes in one call.
//     Of many transactions recording overlapping sets at once, each id is
//     new to exactly one; on a store with RowLocks none of them conflicts.
//   - OutcomeDelete compares ids byte for byte and counts only the
//     records it removed; an id with no record is no error. A forgotten
//     id is new again.
//   - Payments compares ids byte for byte, sorts in their byte order and
//     leaves out those that do not exist; it returns what Payment does.
//   - OutcomeInsert, OutcomeDelete and Payments of no ids return none.
//   - A target kind, status or resolution outside the domain's constants,
//     an amount of 0 or less, a currency of other than three characters or
//     a version below 1 is refused with EInvalid, changing nothing.
func RunPayments(t *testing.T, newStore func(t *testing.T) stockade.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s stockade.Store)
	}{
		{"Payment", testPayment},
		{"PaymentConflict", testPaymentConflict},
		{"ConcurrentPaymentInsert", testConcurrentPaymentInsert},
		{"PaymentUpdate", testUpdatePayment},
		{"PaymentList", testListPayments},
		{"PaymentLapseCandidates", testPaymentLapseCandidates},
		{"LapseCandidatesPayments", testLapseCandidatesPayments},
		{"PaymentChangeList", testPaymentChanges},
		{"Outcomes", testOutcomes},
		{"ConcurrentOutcome", testConcurrentOutcome},
		{"OutcomeInsert", testRecordOutcomes},
		{"ConcurrentOutcomes", testConcurrentOutcomes},
		{"OutcomeDelete", testForgetOutcomes},
		{"PaymentsByID", testPaymentsByID},
		{"InvalidPayment", testInvalidPayment},
		{"PaymentUpdateRollsBack", testPaymentUpdateRollsBack},
		{"PaymentViewIsReadOnly", testPaymentViewIsReadOnly},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// payment returns a pending payment of a target, created at created.
func payment(id string, kind stockade.PaymentTargetKind, targetID string, created time.Time) stockade.Payment {
	return stockade.Payment{ID: id, Target: stockade.PaymentTarget{Kind: kind, ID: targetID}, Amount: 1250,
		Currency: "EUR", Status: stockade.PaymentPending, CreatedAt: created, UpdatedAt: created, Version: 1}
}

// checkPayment fails the test unless got is want as a store returns it.
func checkPayment(t *testing.T, got, want stockade.Payment) {
	t.Helper()
	checkMicros(t, "payment "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkMicros(t, "payment "+want.ID+" UpdatedAt", got.UpdatedAt, want.UpdatedAt)
	if want.StuckAt.IsZero() {
		if !got.StuckAt.IsZero() {
			t.Errorf("payment %s StuckAt = %v, want zero", want.ID, got.StuckAt)
		}
	} else {
		checkMicros(t, "payment "+want.ID+" StuckAt", got.StuckAt, want.StuckAt)
	}
	g, w := got, want
	g.CreatedAt, g.UpdatedAt, g.StuckAt = time.Time{}, time.Time{}, time.Time{}
	w.CreatedAt, w.UpdatedAt, w.StuckAt = time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("payment = %+v, want %+v", got, want)
	}
}

// insertPayments inserts ps in one Update.
func insertPayments(t *testing.T, s stockade.Store, ps ...stockade.Payment) {
	t.Helper()
	update(t, s, func(tx stockade.Tx) error {
		for _, p := range ps {
			if err := tx.PaymentInsert(t.Context(), p); err != nil {
				return err
			}
		}
		return nil
	})
}

// getPayment returns payment id, read in a View, or the error.
func getPayment(t *testing.T, s stockade.Store, id string) (stockade.Payment, error) {
	t.Helper()
	var (
		p   stockade.Payment
		err error
	)
	view(t, s, func(tx stockade.Tx) error {
		p, err = tx.PaymentGet(t.Context(), stockade.ByID{ID: id})
		return nil
	})
	return p, err
}

// allPayments returns every payment, newest first.
func allPayments(t *testing.T, s stockade.Store) []stockade.Payment {
	t.Helper()
	var ps []stockade.Payment
	view(t, s, func(tx stockade.Tx) error {
		var err error
		ps, err = tx.PaymentList(t.Context(), stockade.PaymentFilter{Limit: 1000})
		return err
	})
	return ps
}

// paymentFixtures returns payments p-1, p-2, P-3 and p-4, which between
// them set every field and use every target kind.
func paymentFixtures() []stockade.Payment {
	p1 := payment("p-1", stockade.PayReservation, "r-1", base)
	p1.Status, p1.Owner, p1.UpdatedAt = stockade.PaymentProcessing, "key_Shop1", base.Add(time.Second)
	p2 := payment("p-2", stockade.PayHold, "h-1", base.Add(time.Minute))
	p2.Amount, p2.Currency, p2.Status, p2.Resolution = 1_000_000_000_000_000, "JPY", stockade.PaymentSucceeded, stockade.ResolvedConfirmed
	p2.Booking, p2.StuckAt, p2.UpdatedAt, p2.Version = "b-1", base.Add(20*time.Minute), base.Add(30*time.Minute), 4
	p3 := payment("P-3", stockade.PayOrder, "o-1", base.Add(-time.Minute))
	p3.Amount, p3.Status, p3.Resolution, p3.Order, p3.Version = 1, stockade.PaymentRefunded, stockade.ResolvedReordered, "o-1", 3
	// The same id as p1's target, of another kind: another target.
	p4 := payment("p-4", stockade.PayHold, "r-1", base)
	p4.Status, p4.Resolution, p4.Order = stockade.PaymentCaptured, stockade.ResolvedNeedsRefund, "o-9"
	return []stockade.Payment{p1, p2, p3, p4}
}

func testPayment(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	ps := paymentFixtures()
	insertPayments(t, s, ps...)

	for _, want := range ps {
		for _, lock := range []bool{false, true} {
			txFor(lock)(t, s, func(tx stockade.Tx) error {
				got, err := tx.PaymentGet(ctx, stockade.ByID{ID: want.ID, Lock: lock})
				if err != nil {
					return fmt.Errorf("Payment(%s, lock %v): %w", want.ID, lock, err)
				}
				checkPayment(t, got, want)
				got, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: want.Target, Lock: lock})
				if err != nil || !ok {
					return fmt.Errorf("PaymentGetByTarget(%s, lock %v) = %v, %v; want %s", want.Target, lock, ok, err, want.ID)
				}
				checkPayment(t, got, want)
				return nil
			})
		}
	}
	for _, lock := range []bool{false, true} {
		txFor(lock)(t, s, func(tx stockade.Tx) error {
			for _, target := range []stockade.PaymentTarget{
				{Kind: stockade.PayReservation, ID: "no-such-reservation"},
				{Kind: stockade.PayReservation, ID: "R-1"}, // another case
				{Kind: stockade.PayOrder, ID: "r-1"},       // another kind
				{Kind: stockade.PayReservation, ID: "h-1"},
			} {
				got, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: target, Lock: lock})
				if err != nil || ok {
					t.Errorf("PaymentGetByTarget(%s, lock %v) = %+v, %v, %v; want none", target, lock, got, ok, err)
				}
			}
			_, err := tx.PaymentGet(ctx, stockade.ByID{ID: "no-such-payment", Lock: lock})
			wantCode(t, "Payment(unknown id)", err, stockade.ENotFound)
			_, err = tx.PaymentGet(ctx, stockade.ByID{ID: "P-1", Lock: lock})
			wantCode(t, "Payment(id in another case)", err, stockade.ENotFound)
			return nil
		})
	}
}

// testPaymentConflict checks that an id in use and a target with a
// payment are refused, wrapping stockade.ErrConflict, changing nothing.
func testPaymentConflict(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	p1 := payment("p-1", stockade.PayReservation, "r-1", base)
	p1.Owner = "key_a"
	insertPayments(t, s, p1)

	sameID := payment("p-1", stockade.PayReservation, "r-2", base.Add(time.Minute))
	sameTarget := payment("p-2", stockade.PayReservation, "r-1", base.Add(time.Minute))
	sameTarget.Status, sameTarget.Amount = stockade.PaymentFailed, 99
	for _, tc := range []struct {
		name string
		p    stockade.Payment
	}{
		{"an id in use", sameID},
		{"a target with a payment", sameTarget},
	} {
		err := s.Update(ctx, func(tx stockade.Tx) error { return tx.PaymentInsert(ctx, tc.p) })
		if !errors.Is(err, stockade.ErrConflict) {
			t.Errorf("PaymentInsert with %s: %v, want an error wrapping stockade.ErrConflict", tc.name, err)
		}
	}
	// A payment inserted before the refused one in its transaction is
	// rolled back with it.
	p3 := payment("p-3", stockade.PayReservation, "r-3", base)
	if err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.PaymentInsert(ctx, p3); err != nil {
			return err
		}
		return tx.PaymentInsert(ctx, sameTarget)
	}); !errors.Is(err, stockade.ErrConflict) {
		t.Errorf("PaymentInsert of p-3, then of a target with a payment: %v, want an error wrapping stockade.ErrConflict", err)
	}
	if got := allPayments(t, s); len(got) != 1 {
		t.Fatalf("payments after the refused inserts = %+v, want p-1 alone", got)
	} else {
		checkPayment(t, got[0], p1)
	}
	view(t, s, func(tx stockade.Tx) error {
		for _, target := range []stockade.PaymentTarget{sameID.Target, p3.Target} {
			if got, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: target}); err != nil || ok {
				t.Errorf("PaymentGetByTarget(%s) after the refused inserts = %+v, %v, %v; want none", target, got, ok, err)
			}
		}
		got, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: p1.Target})
		if err != nil || !ok {
			return fmt.Errorf("PaymentGetByTarget(%s) = %v, %v", p1.Target, ok, err)
		}
		checkPayment(t, got, p1)
		return nil
	})
	// The same target id of another kind is free.
	insertPayments(t, s, payment("p-4", stockade.PayHold, "r-1", base))
}

// testConcurrentPaymentInsert has many transactions insert a payment for
// one target at once: exactly one succeeds, however the store lets them
// overlap. First without looking, as two instances that both found no
// payment do; then as the engine does, reading with PaymentGetByTarget first and
// retrying on a conflict.
func testConcurrentPaymentInsert(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers = 50

	t.Run("blind", func(t *testing.T) {
		target := stockade.PaymentTarget{Kind: stockade.PayReservation, ID: "r-race"}
		var won, lost atomic.Int64
		errs := make(chan error, workers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				<-start
				p := payment(fmt.Sprintf("p-blind-%02d", w), target.Kind, target.ID, base)
				err := s.Update(ctx, func(tx stockade.Tx) error { return tx.PaymentInsert(ctx, p) })
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, stockade.ErrConflict):
					lost.Add(1)
				default:
					errs <- err
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("PaymentInsert: %v (want success or an error wrapping stockade.ErrConflict)", err)
		}
		if won.Load() != 1 || lost.Load() != workers-1 {
			t.Errorf("%d inserts of a payment for one target succeeded and %d conflicted, want 1 and %d", won.Load(), lost.Load(), workers-1)
		}
		view(t, s, func(tx stockade.Tx) error {
			got, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: target})
			if err != nil || !ok || got.Target != target {
				t.Errorf("PaymentGetByTarget(%s) after the race = %+v, %v, %v", target, got, ok, err)
			}
			return err
		})
	})

	t.Run("look first", func(t *testing.T) {
		target := stockade.PaymentTarget{Kind: stockade.PayHold, ID: "h-race"}
		var inserted, found, conflicts atomic.Int64
		errs := make(chan error, workers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				<-start
				var ins bool
				n, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						ins = false
						_, ok, err := tx.PaymentGetByTarget(ctx, stockade.ByTarget{Target: target, Lock: true})
						if err != nil || ok {
							return err
						}
						ins = true
						return tx.PaymentInsert(ctx, payment(fmt.Sprintf("p-look-%02d", w), target.Kind, target.ID, base))
					})
				})
				conflicts.Add(int64(n))
				switch {
				case err != nil:
					errs <- err
				case ins:
					inserted.Add(1)
				default:
					found.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("insert: %v", err)
		}
		if inserted.Load() != 1 || found.Load() != workers-1 {
			t.Errorf("%d transactions inserted the target's payment and %d found it, want 1 and %d (%d conflicts retried)",
				inserted.Load(), found.Load(), workers-1, conflicts.Load())
		}
	})

	if got := allPayments(t, s); len(got) != 2 {
		t.Errorf("%d payments after the races, want 2", len(got))
	}
}

func testUpdatePayment(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	orig := payment("p-1", stockade.PayReservation, "r-1", base)
	orig.Owner = "key_a"
	other := payment("p-2", stockade.PayHold, "h-1", base)
	insertPayments(t, s, orig, other)

	processing := orig
	processing.Status, processing.UpdatedAt, processing.Version = stockade.PaymentProcessing, base.Add(time.Minute), 2
	stale := orig
	stale.Status, stale.Version = stockade.PaymentFailed, 2 // written over version 1, which is gone
	ahead := processing
	ahead.Status, ahead.Version = stockade.PaymentFailed, 4
	// Every field PaymentUpdate writes, and some it must not.
	settled := processing
	settled.Status, settled.Resolution, settled.Order, settled.Booking = stockade.PaymentSucceeded, stockade.ResolvedReordered, "o-1", "b-1"
	settled.StuckAt, settled.UpdatedAt, settled.Version = base.Add(5*time.Minute), base.Add(10*time.Minute), 3
	tampered := settled
	tampered.Amount, tampered.Currency, tampered.Owner = 1, "USD", "key_b"
	tampered.Target = stockade.PaymentTarget{Kind: stockade.PayOrder, ID: "o-2"}
	tampered.CreatedAt = base.Add(time.Hour)
	unstuck := settled
	unstuck.StuckAt, unstuck.Resolution, unstuck.UpdatedAt, unstuck.Version = time.Time{}, stockade.Unresolved, base.Add(11*time.Minute), 4
	unknown := unstuck
	unknown.ID, unknown.Version = "no-such-payment", 2

	steps := []struct {
		name  string
		write stockade.Payment
		ok    bool
		want  stockade.Payment // p-1 after the step
	}{
		{"version 1 → 2", processing, true, processing},
		{"over a version that is gone", stale, false, processing},
		{"a version ahead", ahead, false, processing},
		{"every field, others ignored", tampered, true, settled},
		{"again, over version 3 which is gone", tampered, false, settled},
		{"no stuck time, unresolved", unstuck, true, unstuck},
		{"unknown id", unknown, false, unstuck},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.PaymentUpdate(ctx, st.write)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok {
				t.Errorf("%s: PaymentUpdate(version %d) = %v, want %v", st.name, st.write.Version, ok, st.ok)
			}
			return nil
		})
		got, err := getPayment(t, s, orig.ID)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		checkPayment(t, got, st.want)
	}
	if got, err := getPayment(t, s, other.ID); err != nil {
		t.Errorf("Payment(%s): %v", other.ID, err)
	} else {
		checkPayment(t, got, other)
	}
	if _, err := getPayment(t, s, unknown.ID); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("PaymentUpdate of an unknown id made it: %v", err)
	}
}

// paymentListFixture is how the list test pays for each record of
// listFixture: its status, its resolution and whether it was found stuck.
// Stuck are r-2 and r-7 (Payment.Stuck); r-5 was found stuck and has been
// resolved since.
var paymentListFixture = map[string]struct {
	status     stockade.PaymentStatus
	resolution stockade.PaymentResolution
	stuck      bool
}{
	"r-1":  {stockade.PaymentFailed, stockade.ResolvedReleased, false},
	"r-2":  {stockade.PaymentProcessing, stockade.Unresolved, true},
	"r-3":  {stockade.PaymentPending, stockade.Unresolved, false},
	"r-4":  {stockade.PaymentSucceeded, stockade.ResolvedConfirmed, false},
	"r-5":  {stockade.PaymentSucceeded, stockade.ResolvedNeedsRefund, true},
	"r-6":  {stockade.PaymentProcessing, stockade.Unresolved, false},
	"r-7":  {stockade.PaymentAuthorized, stockade.Unresolved, true},
	"R-9":  {stockade.PaymentProcessing, stockade.Unresolved, false},
	"r-10": {stockade.PaymentSucceeded, stockade.ResolvedConfirmed, false},
}

func testListPayments(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	byID := map[string]stockade.Payment{}
	var ps []stockade.Payment
	for i, rec := range listFixture {
		p := payment(rec.id, stockade.PayReservation, fmt.Sprintf("res-%d", i), rec.created)
		f := paymentListFixture[rec.id]
		p.Owner, p.Status, p.Resolution = rec.owner, f.status, f.resolution
		p.UpdatedAt = rec.created.Add(time.Hour)
		if f.stuck {
			p.StuckAt = rec.created.Add(30 * time.Minute)
		}
		byID[p.ID] = p
		ps = append(ps, p)
	}
	insertPayments(t, s, ps...)
	list := func(tx stockade.Tx, f stockade.PaymentFilter) ([]listed, error) {
		got, err := tx.PaymentList(ctx, f)
		var rows []listed
		for _, p := range got {
			checkPayment(t, p, byID[p.ID])
			rows = append(rows, listed{p.ID, p.CreatedAt})
		}
		return rows, err
	}

	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	resolution := func(r stockade.PaymentResolution) *stockade.PaymentResolution { return &r }
	processing, succeeded := stockade.PaymentProcessing, stockade.PaymentSucceeded
	tests := []struct {
		name string
		f    stockade.PaymentFilter
		want []string
	}{
		{"all, newest first, ties by id", stockade.PaymentFilter{Limit: 100}, listNewestFirst},
		{"limit", stockade.PaymentFilter{Limit: 3}, []string{"r-6", "R-9", "r-5"}},
		{"limit 1", stockade.PaymentFilter{Limit: 1}, []string{"r-6"}},
		{"status", stockade.PaymentFilter{Status: processing, Limit: 100}, []string{"r-6", "R-9", "r-2"}},
		{"another status", stockade.PaymentFilter{Status: stockade.PaymentAuthorized, Limit: 100}, []string{"r-7"}},
		{"a status no payment has", stockade.PaymentFilter{Status: stockade.PaymentRefunded, Limit: 100}, nil},
		{"stuck", stockade.PaymentFilter{Stuck: true, Limit: 100}, []string{"r-2", "r-7"}},
		{"resolution", stockade.PaymentFilter{Resolution: resolution(stockade.ResolvedConfirmed), Limit: 100}, []string{"r-10", "r-4"}},
		{"another resolution", stockade.PaymentFilter{Resolution: resolution(stockade.ResolvedNeedsRefund), Limit: 100}, []string{"r-5"}},
		{"unresolved", stockade.PaymentFilter{Resolution: resolution(stockade.Unresolved), Limit: 100},
			[]string{"r-6", "R-9", "r-3", "r-2", "r-7"}},
		{"owner", stockade.PaymentFilter{Owner: "key_a", Limit: 100}, []string{"R-9", "r-5", "r-10", "r-3", "r-1", "r-7"}},
		{"another owner", stockade.PaymentFilter{Owner: "key_b", Limit: 100}, []string{"r-6", "r-2"}},
		{"an owner with nothing", stockade.PaymentFilter{Owner: "key_A", Limit: 100}, nil},
		{"status and owner", stockade.PaymentFilter{Status: processing, Owner: "key_a", Limit: 100}, []string{"R-9"}},
		{"status and stuck", stockade.PaymentFilter{Status: processing, Stuck: true, Limit: 100}, []string{"r-2"}},
		{"stuck and owner", stockade.PaymentFilter{Stuck: true, Owner: "key_a", Limit: 100}, []string{"r-7"}},
		{"stuck and resolved", stockade.PaymentFilter{Stuck: true, Resolution: resolution(stockade.ResolvedNeedsRefund), Limit: 100}, nil},
		{"unresolved and owner", stockade.PaymentFilter{Resolution: resolution(stockade.Unresolved), Owner: "key_b", Limit: 100},
			[]string{"r-6", "r-2"}},
		{"cursor within a tie", stockade.PaymentFilter{BeforeAt: at(1), BeforeID: "r-3", Limit: 100}, []string{"r-2", "r-1", "r-7"}},
		{"cursor, byte order of ids", stockade.PaymentFilter{BeforeAt: at(2), BeforeID: "r-5", Limit: 100},
			[]string{"r-10", "r-4", "r-3", "r-2", "r-1", "r-7"}},
		{"cursor, upper case sorts first", stockade.PaymentFilter{BeforeAt: at(3), BeforeID: "r-6", Limit: 2}, []string{"R-9", "r-5"}},
		{"cursor with no id: strictly before", stockade.PaymentFilter{BeforeAt: at(1), Limit: 100}, []string{"r-1", "r-7"}},
		{"cursor at the last row", stockade.PaymentFilter{BeforeAt: at(-1), BeforeID: "r-7", Limit: 100}, nil},
		{"status and cursor", stockade.PaymentFilter{Status: processing, BeforeAt: at(3), BeforeID: "r-6", Limit: 100},
			[]string{"R-9", "r-2"}},
		{"stuck and cursor", stockade.PaymentFilter{Stuck: true, BeforeAt: at(1), BeforeID: "r-2", Limit: 100}, []string{"r-7"}},
		{"every filter but stuck", stockade.PaymentFilter{Status: succeeded, Resolution: resolution(stockade.ResolvedConfirmed),
			Owner: "key_a", BeforeAt: at(3), BeforeID: "R-9", Limit: 100}, []string{"r-10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx stockade.Tx) error {
				rows, err := list(tx, tc.f)
				if err != nil {
					return err
				}
				if got := listedIDs(rows); !equalSlices(got, tc.want) {
					t.Errorf("PaymentList(%+v) = %q, want %q", tc.f, got, tc.want)
				}
				return nil
			})
		})
	}

	// Walking page by page, each page's cursor the last row of the page
	// before, reads every row once, in order.
	walks := []struct {
		name string
		f    stockade.PaymentFilter
		want []string
	}{
		{"all", stockade.PaymentFilter{}, listNewestFirst},
		{"owner", stockade.PaymentFilter{Owner: "key_a"}, []string{"R-9", "r-5", "r-10", "r-3", "r-1", "r-7"}},
		{"status", stockade.PaymentFilter{Status: processing}, []string{"r-6", "R-9", "r-2"}},
		{"unresolved", stockade.PaymentFilter{Resolution: resolution(stockade.Unresolved)}, []string{"r-6", "R-9", "r-3", "r-2", "r-7"}},
		{"stuck", stockade.PaymentFilter{Stuck: true}, []string{"r-2", "r-7"}},
	}
	for _, w := range walks {
		for _, limit := range []int{1, 2, 3, len(listFixture)} {
			t.Run(fmt.Sprintf("walk %s by %d", w.name, limit), func(t *testing.T) {
				var got []string
				f := w.f
				f.Limit = limit
				for page := 0; ; page++ {
					if page > len(listFixture)+1 {
						t.Fatalf("walk did not end after %d pages: %q", page, got)
					}
					var rows []listed
					view(t, s, func(tx stockade.Tx) error {
						var err error
						rows, err = list(tx, f)
						return err
					})
					if len(rows) > limit {
						t.Fatalf("page %d has %d rows, limit %d", page, len(rows), limit)
					}
					got = append(got, listedIDs(rows)...)
					if len(rows) < limit {
						break
					}
					last := rows[len(rows)-1]
					f.BeforeAt, f.BeforeID = last.created, last.id
				}
				if !slices.Equal(got, w.want) {
					t.Errorf("walk by %d read %q, want %q", limit, got, w.want)
				}
			})
		}
	}
}

// payFor returns a payment of a target in a status, created an hour
// before now.
func payFor(id string, kind stockade.PaymentTargetKind, targetID string, status stockade.PaymentStatus) stockade.Payment {
	p := payment(id, kind, targetID, base.Add(-time.Hour))
	p.Status = status
	return p
}

func testPaymentLapseCandidates(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	now := base
	res := func(id string, status stockade.ReservationStatus, expires time.Duration) stockade.Reservation {
		return reservation(id, status, now.Add(expires), keyA1)
	}
	hld := func(id string, status stockade.HoldStatus, expires time.Duration) stockade.Hold {
		h := hold(id, "show", now.Add(expires))
		h.Status = status
		return h
	}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx,
			res("r-proc", stockade.Held, -3*time.Hour),
			res("r-auth", stockade.Held, -time.Hour),
			res("r-pending", stockade.Held, -2*time.Hour),
			res("r-stuck", stockade.Held, -4*time.Hour),
			res("r-resolved", stockade.Held, -4*time.Hour),
			res("r-succeeded", stockade.Held, -2*time.Hour),
			res("r-later", stockade.Held, time.Hour),
			res("r-now", stockade.Held, 0), // expires at now: not before it
			res("r-released", stockade.Released, -5*time.Hour),
			res("r-kind", stockade.Held, -7*time.Hour),
			res("r-none", stockade.Held, -6*time.Hour),
		); err != nil {
			return err
		}
		return tx.HoldInsert(ctx,
			hld("h-proc", stockade.HoldHeld, -150*time.Minute),
			hld("h-auth", stockade.HoldHeld, -5*time.Hour),
			hld("h-tie", stockade.HoldHeld, -3*time.Hour), // as r-proc
			hld("h-expired", stockade.HoldExpired, -5*time.Hour),
			hld("h-later", stockade.HoldHeld, time.Hour),
			hld("h-failed", stockade.HoldHeld, -5*time.Hour),
		)
	})
	processing, authorized := stockade.PaymentProcessing, stockade.PaymentAuthorized
	stuck := payFor("p-r-stuck", stockade.PayReservation, "r-stuck", processing)
	stuck.StuckAt = now.Add(-10 * time.Minute)
	resolved := payFor("p-r-resolved", stockade.PayReservation, "r-resolved", authorized)
	resolved.StuckAt, resolved.Resolution = now.Add(-10*time.Minute), stockade.ResolvedNeedsRefund
	ps := []stockade.Payment{
		payFor("p-r-proc", stockade.PayReservation, "r-proc", processing),
		payFor("p-r-auth", stockade.PayReservation, "r-auth", authorized),
		payFor("p-r-pending", stockade.PayReservation, "r-pending", stockade.PaymentPending),
		stuck,
		resolved,
		payFor("p-r-succeeded", stockade.PayReservation, "r-succeeded", stockade.PaymentSucceeded),
		payFor("p-r-later", stockade.PayReservation, "r-later", processing),
		payFor("p-r-now", stockade.PayReservation, "r-now", processing),
		payFor("p-r-released", stockade.PayReservation, "r-released", processing),
		// A hold's payment whose id is that of a lapsed reservation: the
		// kind is part of the target.
		payFor("p-r-kind", stockade.PayHold, "r-kind", processing),
		payFor("p-h-proc", stockade.PayHold, "h-proc", processing),
		payFor("p-h-auth", stockade.PayHold, "h-auth", authorized),
		payFor("p-h-tie", stockade.PayHold, "h-tie", processing),
		payFor("p-h-expired", stockade.PayHold, "h-expired", authorized),
		payFor("p-h-later", stockade.PayHold, "h-later", processing),
		payFor("p-h-failed", stockade.PayHold, "h-failed", stockade.PaymentFailed),
		payFor("p-o-1", stockade.PayOrder, "o-1", processing),
		payFor("p-missing", stockade.PayReservation, "no-such-reservation", processing),
	}
	ps[1].Owner, ps[11].Owner = "key_a", "key_b"
	insertPayments(t, s, ps...)
	byID := map[string]stockade.Payment{}
	for _, p := range ps {
		byID[p.ID] = p
	}

	expires := map[string]time.Time{}
	update(t, s, func(tx stockade.Tx) error {
		for _, p := range ps {
			if t, err := readTarget(ctx, tx, p.Target); err == nil {
				expires[p.ID] = t
			}
		}
		return nil
	})
	at := func(d time.Duration, id string) stockade.LapseCursor {
		return stockade.LapseCursor{ExpiresAt: now.Add(d), ID: id}
	}
	all := []string{"p-h-auth", "p-h-failed", "p-r-resolved", "p-r-stuck", "p-h-tie", "p-r-proc", "p-h-proc", "p-r-pending",
		"p-r-succeeded", "p-r-auth"}
	tests := []struct {
		name   string
		before time.Time
		after  stockade.LapseCursor
		limit  int
		want   []string
	}{
		{name: "all, oldest expiry first, ties by id", before: now, limit: 20, want: all},
		{name: "no limit", before: now, want: all},
		{name: "limit", before: now, limit: 2, want: all[:2]},
		{name: "limit 1", before: now, limit: 1, want: all[:1]},
		{name: "before is strict", before: now.Add(-3 * time.Hour), limit: 20, want: all[:4]},
		{name: "an earlier bound", before: now.Add(-2 * time.Hour), want: all[:7]},
		{name: "before them all", before: now.Add(-5 * time.Hour), want: nil},
		{name: "after a cursor", before: now, after: at(-4*time.Hour, "p-r-resolved"), want: all[3:]},
		{name: "after a cursor, limit", before: now, after: at(-3*time.Hour, "p-h-tie"), limit: 2, want: all[5:7]},
		{name: "after an expiry, whatever the id", before: now, after: at(-3*time.Hour, "~"), want: all[6:]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := stockade.PaymentLapseQuery{TargetExpiredBefore: tc.before, After: tc.after, Limit: tc.limit}
			for _, in := range []func(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error){view, update} {
				in(t, s, func(tx stockade.Tx) error {
					got, err := tx.PaymentLapseCandidates(ctx, q)
					if err != nil {
						return err
					}
					var ids []string
					for _, c := range got {
						ids = append(ids, c.Payment.ID)
					}
					if !equalSlices(ids, tc.want) {
						t.Fatalf("PaymentLapseCandidates(%+v) = %q, want %q", q, ids, tc.want)
					}
					for _, c := range got {
						checkPayment(t, c.Payment, byID[c.Payment.ID])
						checkMicros(t, c.Payment.ID+" TargetExpiresAt", c.TargetExpiresAt, expires[c.Payment.ID])
					}
					return nil
				})
			}
		})
	}
}

// readTarget returns when the reservation or hold t expires.
func readTarget(ctx context.Context, tx stockade.Tx, t stockade.PaymentTarget) (time.Time, error) {
	switch t.Kind {
	case stockade.PayReservation:
		r, err := tx.ReservationGet(ctx, stockade.ByID{ID: t.ID})
		return r.ExpiresAt, err
	case stockade.PayHold:
		h, err := tx.HoldGet(ctx, stockade.ByID{ID: t.ID})
		return h.ExpiresAt, err
	}
	return time.Time{}, fmt.Errorf("%s has no expiry", t)
}

// testLapseCandidatesPayments checks that ReservationLapseCandidates and
// HoldLapseCandidates report each candidate's payment, that of its own
// kind, whatever its status, as it is when they run; and that candidates
// whose payment is in flight fill a page as others do.
func testLapseCandidatesPayments(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	now := base
	ago := func(hours int) time.Time { return now.Add(-time.Duration(hours) * time.Hour) }
	rs := []stockade.Reservation{
		reservation("r-none", stockade.Held, ago(1), keyB1),
		reservation("r-pending", stockade.Held, ago(2), keyA1),
		reservation("r-processing", stockade.Held, ago(3), keyA1),
		reservation("r-authorized", stockade.Held, ago(4), keyA1, keyB1),
		reservation("r-succeeded", stockade.Held, ago(5), keyA1),
		reservation("r-failed", stockade.Held, ago(6), keyA1),
		reservation("r-stuck", stockade.Held, ago(7), keyA1),
		reservation("r-kind", stockade.Held, ago(8), keyA1),
	}
	hs := []stockade.Hold{
		hold("h-none", "E1", ago(1)),
		hold("h-pending", "E1", ago(2)),
		hold("h-processing", "E1", ago(3)),
		hold("h-authorized", "E2", ago(4)),
		hold("h-captured", "E1", ago(5)),
		hold("h-cancelled", "E2", ago(6)),
		hold("h-stuck", "E1", ago(7)),
		hold("h-kind", "E1", ago(8)),
	}
	stuckR := payFor("p-r-stuck", stockade.PayReservation, "r-stuck", stockade.PaymentProcessing)
	stuckH := payFor("p-h-stuck", stockade.PayHold, "h-stuck", stockade.PaymentAuthorized)
	stuckR.StuckAt, stuckH.StuckAt = now.Add(-time.Minute), now.Add(-time.Minute)
	rProcessing := payFor("p-r-processing", stockade.PayReservation, "r-processing", stockade.PaymentProcessing)
	hProcessing := payFor("p-h-processing", stockade.PayHold, "h-processing", stockade.PaymentProcessing)
	ps := []stockade.Payment{
		payFor("p-r-pending", stockade.PayReservation, "r-pending", stockade.PaymentPending),
		rProcessing,
		payFor("p-r-authorized", stockade.PayReservation, "r-authorized", stockade.PaymentAuthorized),
		payFor("p-r-succeeded", stockade.PayReservation, "r-succeeded", stockade.PaymentSucceeded),
		payFor("p-r-failed", stockade.PayReservation, "r-failed", stockade.PaymentFailed),
		stuckR,
		payFor("p-r-kind", stockade.PayHold, "r-kind", stockade.PaymentProcessing),
		payFor("p-h-pending", stockade.PayHold, "h-pending", stockade.PaymentPending),
		hProcessing,
		payFor("p-h-authorized", stockade.PayHold, "h-authorized", stockade.PaymentAuthorized),
		payFor("p-h-captured", stockade.PayHold, "h-captured", stockade.PaymentCaptured),
		payFor("p-h-cancelled", stockade.PayHold, "h-cancelled", stockade.PaymentCancelled),
		stuckH,
		payFor("p-h-kind", stockade.PayReservation, "h-kind", stockade.PaymentAuthorized),
	}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx, rs...); err != nil {
			return err
		}
		if err := tx.HoldInsert(ctx, hs...); err != nil {
			return err
		}
		for _, p := range ps {
			if err := tx.PaymentInsert(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})

	type candidatesCase struct {
		name  string
		keys  []stockade.Key // reservations
		event string         // holds
		limit int
		want  []string // "id:payment status"
	}
	check := func(t *testing.T, reservations, holds []candidatesCase) {
		t.Helper()
		for _, tc := range reservations {
			update(t, s, func(tx stockade.Tx) error {
				var got []string
				var after stockade.LapseCursor
				for { // pages of tc.limit
					cs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, Keys: tc.keys, After: after, Limit: tc.limit})
					if err != nil {
						return fmt.Errorf("%s: %w", tc.name, err)
					}
					for _, c := range cs {
						got = append(got, c.Reservation.ID+":"+string(c.Payment))
					}
					if tc.limit <= 0 || len(cs) < tc.limit || len(got) > len(rs) {
						break
					}
					after = stockade.LapseCursor{ExpiresAt: cs[len(cs)-1].Reservation.ExpiresAt, ID: cs[len(cs)-1].Reservation.ID}
				}
				if !equalSlices(got, tc.want) {
					t.Errorf("%s: ReservationLapseCandidates(%v) in pages of %d = %q, want %q", tc.name, tc.keys, tc.limit, got, tc.want)
				}
				return nil
			})
		}
		for _, tc := range holds {
			update(t, s, func(tx stockade.Tx) error {
				var got []string
				var after stockade.LapseCursor
				for {
					cs, err := tx.HoldLapseCandidates(ctx, stockade.HoldLapseQuery{ExpiredBefore: now, ShowID: tc.event, After: after, Limit: tc.limit})
					if err != nil {
						return fmt.Errorf("%s: %w", tc.name, err)
					}
					for _, c := range cs {
						got = append(got, c.Hold.ID+":"+string(c.Payment))
					}
					if tc.limit <= 0 || len(cs) < tc.limit || len(got) > len(hs) {
						break
					}
					after = stockade.LapseCursor{ExpiresAt: cs[len(cs)-1].Hold.ExpiresAt, ID: cs[len(cs)-1].Hold.ID}
				}
				if !equalSlices(got, tc.want) {
					t.Errorf("%s: HoldLapseCandidates(%q) in pages of %d = %q, want %q", tc.name, tc.event, tc.limit, got, tc.want)
				}
				return nil
			})
		}
	}
	allR := []string{"r-kind:", "r-stuck:processing", "r-failed:failed", "r-succeeded:succeeded", "r-authorized:authorized",
		"r-processing:processing", "r-pending:pending", "r-none:"}
	allH := []string{"h-kind:", "h-stuck:authorized", "h-cancelled:cancelled", "h-captured:captured", "h-authorized:authorized",
		"h-processing:processing", "h-pending:pending", "h-none:"}
	check(t, []candidatesCase{
		{name: "sweeper", want: allR},
		{name: "sweeper, pages", limit: 3, want: allR},
		{name: "sweeper, pages of one", limit: 1, want: allR},
		{name: "keys", keys: []stockade.Key{keyB1}, want: []string{"r-authorized:authorized", "r-none:"}},
	}, []candidatesCase{
		{name: "sweeper", want: allH},
		{name: "sweeper, pages", limit: 3, want: allH},
		{name: "an event", event: "E2", want: []string{"h-cancelled:cancelled", "h-authorized:authorized"}},
		{name: "an event, pages", event: "E1", limit: 2,
			want: []string{"h-kind:", "h-stuck:authorized", "h-captured:captured", "h-processing:processing", "h-pending:pending", "h-none:"}},
	})

	// Once their payments land, the candidates say so.
	update(t, s, func(tx stockade.Tx) error {
		for _, p := range []stockade.Payment{rProcessing, hProcessing} {
			p.Status, p.UpdatedAt, p.Version = stockade.PaymentFailed, now, p.Version+1
			if ok, err := tx.PaymentUpdate(ctx, p); err != nil || !ok {
				return fmt.Errorf("PaymentUpdate(%s) = %v, %v", p.ID, ok, err)
			}
		}
		return nil
	})
	allR[5], allH[5] = "r-processing:failed", "h-processing:failed"
	check(t, []candidatesCase{
		{name: "sweeper, payment failed", want: allR},
		{name: "keys, payment failed", keys: []stockade.Key{keyA1}, limit: 4, want: allR[:7]},
	}, []candidatesCase{
		{name: "sweeper, payment failed", want: allH},
		{name: "an event, payment failed", event: "E1", want: []string{"h-kind:", "h-stuck:authorized", "h-captured:captured",
			"h-processing:failed", "h-pending:pending", "h-none:"}},
	})
}

// checkPaymentChanges fails the test unless got is want.
func checkPaymentChanges(t *testing.T, what string, got, want []stockade.PaymentChange) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range got {
		checkMicros(t, fmt.Sprintf("%s [%d] At", what, i), got[i].At, want[i].At)
		g, w := got[i], want[i]
		g.At, w.At = time.Time{}, time.Time{}
		if g != w {
			t.Errorf("%s: [%d] = %+v, want %+v", what, i, g, w)
		}
	}
}

func testPaymentChanges(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	insertPayments(t, s, payment("p-1", stockade.PayReservation, "r-1", base), payment("P-2", stockade.PayHold, "h-1", base))
	pending, processing, succeeded := stockade.PaymentPending, stockade.PaymentProcessing, stockade.PaymentSucceeded
	first := []stockade.PaymentChange{
		{PaymentID: "p-1", From: pending, To: processing, At: base, Actor: "webhook", Reason: "payment_intent.processing"},
		{PaymentID: "P-2", From: pending, To: stockade.PaymentCancelled, At: base.Add(time.Second), Actor: "key_Shop"},
		{PaymentID: "p-1", From: processing, To: processing, At: base.Add(time.Minute), Reason: "in flight after the grace period"},
	}
	second := []stockade.PaymentChange{
		// Earlier than the rows before it: the history keeps the order of
		// appending.
		{PaymentID: "p-1", From: processing, To: succeeded, At: base.Add(-time.Minute), Actor: "jetstream"},
		{PaymentID: "p-1", From: succeeded, To: succeeded, Resolution: stockade.ResolvedReordered, At: base.Add(2 * time.Minute)},
		{PaymentID: "P-2", From: stockade.PaymentCancelled, To: stockade.PaymentCancelled, Resolution: stockade.ResolvedReleased,
			At: base.Add(3 * time.Minute), Actor: "key_Shop", Reason: "released"},
	}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.PaymentChangeAppend(ctx); err != nil {
			return fmt.Errorf("PaymentChangeAppend(none): %w", err)
		}
		return tx.PaymentChangeAppend(ctx, first...)
	})
	update(t, s, func(tx stockade.Tx) error { return tx.PaymentChangeAppend(ctx, second...) })

	// A change of a payment that does not exist is refused, and the rows
	// before it in the call with it.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		return tx.PaymentChangeAppend(ctx,
			stockade.PaymentChange{PaymentID: "p-1", From: succeeded, To: stockade.PaymentRefunded, At: base},
			stockade.PaymentChange{PaymentID: "no-such-payment", From: pending, To: processing, At: base})
	})
	wantCode(t, "PaymentChangeAppend(unknown payment)", err, stockade.ENotFound)
	err = s.Update(ctx, func(tx stockade.Tx) error {
		return tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: "P-1", From: pending, To: processing, At: base})
	})
	wantCode(t, "PaymentChangeAppend(payment id in another case)", err, stockade.ENotFound)

	tests := []struct {
		id   string
		want []stockade.PaymentChange
	}{
		{"p-1", []stockade.PaymentChange{first[0], first[2], second[0], second[1]}},
		{"P-2", []stockade.PaymentChange{first[1], second[2]}},
		{"p-2", nil},
		{"no-such-payment", nil},
	}
	for _, tc := range tests {
		for _, in := range []func(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error){view, update} {
			in(t, s, func(tx stockade.Tx) error {
				got, err := tx.PaymentChangeList(ctx, tc.id)
				if err != nil {
					return fmt.Errorf("PaymentChangeList(%s): %w", tc.id, err)
				}
				checkPaymentChanges(t, "PaymentChangeList("+tc.id+")", got, tc.want)
				return nil
			})
		}
	}
}

// recorded reports, in an Update that it rolls back, whether each outcome
// id was recorded: recording it again is the only way to read the inbox.
func recorded(t *testing.T, s stockade.Store, ids ...string) map[string]bool {
	t.Helper()
	ctx := t.Context()
	got := map[string]bool{}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		for _, id := range ids {
			isNew, err := recordOutcome(ctx, tx, id, "p-probe", base)
			if err != nil {
				return err
			}
			got[id] = !isNew
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("recording outcomes: %v", err)
	}
	return got
}

func testOutcomes(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	record := func(eventID string, at time.Time) bool {
		t.Helper()
		var isNew bool
		update(t, s, func(tx stockade.Tx) error {
			var err error
			isNew, err = recordOutcome(ctx, tx, eventID, "p-1", at)
			return err
		})
		return isNew
	}
	if !record("evt-1", base) {
		t.Errorf("recording evt-1 the first time = false, want true")
	}
	if record("evt-1", base.Add(time.Minute)) {
		t.Errorf("recording evt-1 again = true, want false")
	}
	update(t, s, func(tx stockade.Tx) error {
		first, err := recordOutcome(ctx, tx, "evt-2", "p-2", base)
		if err != nil {
			return err
		}
		again, err := recordOutcome(ctx, tx, "evt-2", "p-2", base)
		if err != nil {
			return err
		}
		if !first || again {
			t.Errorf("recording evt-2 twice in one transaction = %v, %v; want true, false", first, again)
		}
		return nil
	})
	if !record("EVT-1", base) {
		t.Errorf("recording EVT-1 = false, want true: ids are compared byte for byte")
	}
	// A record whose transaction rolls back was never made.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if isNew, err := recordOutcome(ctx, tx, "evt-3", "p-1", base); err != nil || !isNew {
			return fmt.Errorf("recording evt-3 = %v, %v", isNew, err)
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	want := map[string]bool{"evt-1": true, "evt-2": true, "EVT-1": true, "evt-3": false, "Evt-1": false}
	if got := recorded(t, s, "evt-1", "evt-2", "EVT-1", "evt-3", "Evt-1"); !reflect.DeepEqual(got, want) {
		t.Errorf("recorded outcomes = %v, want %v", got, want)
	}

	// Purging: strictly before its time.
	for i, at := range []time.Time{base.Add(-time.Minute), base.Add(time.Minute), base.Add(2 * time.Minute)} {
		if !record(fmt.Sprintf("evt-old-%d", i), at) {
			t.Errorf("recording evt-old-%d = false, want true", i)
		}
	}
	purge := func(before time.Time) int {
		t.Helper()
		var n int
		update(t, s, func(tx stockade.Tx) error {
			var err error
			n, err = tx.OutcomePurge(ctx, before)
			return err
		})
		return n
	}
	// evt-1, evt-2, EVT-1 were received at base, evt-old-0 before.
	if n := purge(base.Add(time.Minute)); n != 4 {
		t.Errorf("OutcomePurge(base+1m) = %d, want 4", n)
	}
	if n := purge(base.Add(time.Minute)); n != 0 {
		t.Errorf("OutcomePurge(base+1m) again = %d, want 0", n)
	}
	want = map[string]bool{"evt-1": false, "evt-2": false, "EVT-1": false, "evt-old-0": false, "evt-old-1": true, "evt-old-2": true}
	if got := recorded(t, s, "evt-1", "evt-2", "EVT-1", "evt-old-0", "evt-old-1", "evt-old-2"); !reflect.DeepEqual(got, want) {
		t.Errorf("recorded outcomes after the purge = %v, want %v", got, want)
	}
	// A purged id is new again.
	if !record("evt-1", base.Add(3*time.Minute)) {
		t.Errorf("recording evt-1 after its purge = false, want true")
	}
}

// testConcurrentOutcome has many transactions record one outcome at once,
// as deliveries of one webhook to many instances do: exactly one finds it
// new, whichever commits first.
func testConcurrentOutcome(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers = 50
	var fresh, seen, conflicts atomic.Int64
	errs := make(chan error, workers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			<-start
			var isNew bool
			n, err := retry(ctx, func() error {
				return s.Update(ctx, func(tx stockade.Tx) error {
					var err error
					if isNew, err = recordOutcome(ctx, tx, "evt-race", "p-1", base); err != nil {
						return err
					}
					time.Sleep(time.Millisecond) // the outcome's effect: widen the window before commit
					return nil
				})
			})
			conflicts.Add(int64(n))
			switch {
			case err != nil:
				errs <- err
			case isNew:
				fresh.Add(1)
			default:
				seen.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("recording outcomes: %v", err)
	}
	if fresh.Load() != 1 || seen.Load() != workers-1 {
		t.Errorf("%d transactions found the outcome new and %d recorded before, want 1 and %d (%d conflicts retried)",
			fresh.Load(), seen.Load(), workers-1, conflicts.Load())
	}
}

// outcomeRecords returns an outcome record of each event id, of payment
// p-1.
func outcomeRecords(eventIDs ...string) []stockade.OutcomeRecord {
	rs := make([]stockade.OutcomeRecord, len(eventIDs))
	for i, id := range eventIDs {
		rs[i] = stockade.OutcomeRecord{EventID: id, PaymentID: "p-1"}
	}
	return rs
}

// recordOutcomes records the outcomes of eventIDs, received at at, in an
// Update of its own, and returns those OutcomeInsert found new.
func recordOutcomes(t *testing.T, s stockade.Store, at time.Time, eventIDs ...string) []string {
	t.Helper()
	var fresh []string
	update(t, s, func(tx stockade.Tx) error {
		var err error
		fresh, err = tx.OutcomeInsert(t.Context(), outcomeRecords(eventIDs...), at)
		if err != nil {
			return fmt.Errorf("OutcomeInsert of %d outcomes: %w", len(eventIDs), err)
		}
		return nil
	})
	return fresh
}

// wantIDs fails the test unless got is want, in that order (nil and
// empty alike).
func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func testRecordOutcomes(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	// Given out of order; byte order puts upper case first.
	wantIDs(t, "OutcomeInsert(evt-3, evt-1, EVT-2, evt-2)", recordOutcomes(t, s, base, "evt-3", "evt-1", "EVT-2", "evt-2"),
		[]string{"EVT-2", "evt-1", "evt-2", "evt-3"})
	// An overlap: only the new ones.
	wantIDs(t, "OutcomeInsert(evt-4, evt-2, evt-0, evt-3)", recordOutcomes(t, s, base, "evt-4", "evt-2", "evt-0", "evt-3"),
		[]string{"evt-0", "evt-4"})
	wantIDs(t, "OutcomeInsert(evt-1, evt-4) again", recordOutcomes(t, s, base, "evt-1", "evt-4"), nil)

	// One inbox with RecordOutcome, both ways, in one transaction.
	update(t, s, func(tx stockade.Tx) error {
		if isNew, err := recordOutcome(ctx, tx, "evt-1", "p-1", base); err != nil || isNew {
			return fmt.Errorf("recording evt-1 after OutcomeInsert recorded it = %v, %v; want false", isNew, err)
		}
		if isNew, err := recordOutcome(ctx, tx, "evt-5", "p-1", base); err != nil || !isNew {
			return fmt.Errorf("recording evt-5 = %v, %v; want true", isNew, err)
		}
		fresh, err := tx.OutcomeInsert(ctx, outcomeRecords("evt-6", "evt-5"), base)
		if err != nil {
			return err
		}
		wantIDs(t, "OutcomeInsert(evt-6, evt-5) after recording evt-5 in its transaction", fresh, []string{"evt-6"})
		if isNew, err := recordOutcome(ctx, tx, "evt-6", "p-1", base); err != nil || isNew {
			return fmt.Errorf("recording evt-6 after OutcomeInsert recorded it in its transaction = %v, %v; want false", isNew, err)
		}
		return nil
	})
	// And in a later one.
	update(t, s, func(tx stockade.Tx) error {
		_, err := recordOutcome(ctx, tx, "evt-7", "p-2", base)
		return err
	})
	wantIDs(t, "OutcomeInsert(evt-8, evt-7, evt-6) after recording evt-7 committed",
		recordOutcomes(t, s, base, "evt-8", "evt-7", "evt-6"), []string{"evt-8"})

	// A record of a transaction that rolls back was never made.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		fresh, err := tx.OutcomeInsert(ctx, outcomeRecords("evt-9", "evt-10"), base)
		if err != nil {
			return err
		}
		wantIDs(t, "OutcomeInsert(evt-9, evt-10) rolled back", fresh, []string{"evt-10", "evt-9"})
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}

	// No outcomes: none new, and no error.
	update(t, s, func(tx stockade.Tx) error {
		for _, none := range [][]stockade.OutcomeRecord{nil, {}} {
			fresh, err := tx.OutcomeInsert(ctx, none, base)
			if err != nil || len(fresh) != 0 {
				return fmt.Errorf("OutcomeInsert(%#v) = %q, %v; want none", none, fresh, err)
			}
		}
		return nil
	})

	want := map[string]bool{"EVT-2": true, "Evt-1": false, "evt-0": true, "evt-1": true, "evt-2": true, "evt-3": true, "evt-4": true,
		"evt-5": true, "evt-6": true, "evt-7": true, "evt-8": true, "evt-9": false, "evt-10": false}
	if got := recorded(t, s, slices.Sorted(maps.Keys(want))...); !reflect.DeepEqual(got, want) {
		t.Errorf("recorded outcomes = %v, want %v", got, want)
	}

	// The records keep the time given: OutcomePurge removes by it.
	wantIDs(t, "OutcomeInsert(evt-old-1, evt-old-2)", recordOutcomes(t, s, base.Add(-time.Hour), "evt-old-2", "evt-old-1"),
		[]string{"evt-old-1", "evt-old-2"})
	update(t, s, func(tx stockade.Tx) error {
		n, err := tx.OutcomePurge(ctx, base)
		if err == nil && n != 2 {
			err = fmt.Errorf("OutcomePurge(base) = %d, want evt-old-1 and evt-old-2", n)
		}
		return err
	})

	// Many outcomes in one call, half of them recorded before: more than
	// a store may bind as parameters of one statement.
	const many = 20_000
	ids := make([]string, many)
	for i := range ids {
		ids[i] = fmt.Sprintf("evt-many-%05d", i)
	}
	var odd []string
	for i := 1; i < many; i += 2 {
		odd = append(odd, ids[i])
	}
	if fresh := recordOutcomes(t, s, base, odd...); !slices.Equal(fresh, odd) {
		t.Errorf("OutcomeInsert of %d outcomes found %d new, want every one, in order", len(odd), len(fresh))
	}
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)
	var even []string
	for i := 0; i < many; i += 2 {
		even = append(even, ids[i])
	}
	if fresh := recordOutcomes(t, s, base, reversed...); !slices.Equal(fresh, even) {
		t.Errorf("OutcomeInsert of %d outcomes, the odd ones recorded before, found %d new, want the %d even ones, in order",
			many, len(fresh), len(even))
	}
}

// testConcurrentOutcomes has many transactions record overlapping sets
// of outcomes at once, each given in an order of its own, as the batches
// of many instances receiving the same deliveries do: each outcome is new
// to exactly one of them. On a store with RowLocks, where they run side
// by side, none may conflict: OutcomeInsert takes the ids in id order,
// so they never wait for each other in a cycle.
func testConcurrentOutcomes(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	// Worker w records ids[w*stride : w*stride+span]: each id is in up
	// to span/stride sets, and the sets are long enough that statements
	// taking them in opposite orders meet midway.
	const workers, stride, span = 20, 25, 500
	ids := make([]string, (workers-1)*stride+span)
	for i := range ids {
		ids[i] = fmt.Sprintf("evt-%04d", i)
	}
	set := func(w int) []string { return ids[w*stride : w*stride+span] }
	rowLocks := s.Features().RowLocks
	try := retry
	if rowLocks {
		try = func(ctx context.Context, fn func() error) (int, error) { return 0, fn() }
	}

	fresh := make([][]string, workers) // fresh[w]: the ids new to worker w
	var conflicts atomic.Int64
	errs := make(chan error, workers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		mine := slices.Clone(set(w))
		if w%2 == 1 {
			slices.Reverse(mine)
		}
		wg.Go(func() {
			<-start
			n, err := try(ctx, func() error {
				return s.Update(ctx, func(tx stockade.Tx) error {
					var err error
					if fresh[w], err = tx.OutcomeInsert(ctx, outcomeRecords(mine...), base); err != nil {
						return err
					}
					time.Sleep(time.Millisecond) // the outcomes' effects: widen the window before commit
					return nil
				})
			})
			conflicts.Add(int64(n))
			if err != nil {
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					err = fmt.Errorf("%w (deadlocked?)", err)
				case rowLocks && errors.Is(err, stockade.ErrConflict):
					err = fmt.Errorf("%w (with RowLocks, ids taken in id order must not conflict)", err)
				}
				errs <- fmt.Errorf("worker %d: OutcomeInsert: %w", w, err)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	t.Logf("%d conflicts retried", conflicts.Load())
	times := map[string]int{}
	for w, got := range fresh {
		if !slices.IsSorted(got) {
			t.Errorf("worker %d: OutcomeInsert returned %d ids, not in id order", w, len(got))
		}
		for _, id := range got {
			if !slices.Contains(set(w), id) {
				t.Errorf("worker %d: OutcomeInsert returned %s, which it did not record", w, id)
			}
			times[id]++
		}
	}
	for _, id := range ids {
		if times[id] != 1 {
			t.Errorf("outcome %s was new to %d transactions, want 1", id, times[id])
		}
	}
	// Every one is recorded: none is new to a transaction that then rolls
	// back.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		fresh, err := tx.OutcomeInsert(ctx, outcomeRecords(ids...), base)
		if err != nil {
			return err
		}
		if len(fresh) > 0 {
			t.Errorf("%d outcomes not recorded after the race, %s the first", len(fresh), fresh[0])
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
}

func testForgetOutcomes(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	forget := func(tx stockade.Tx, want int, ids ...string) error {
		t.Helper()
		n, err := tx.OutcomeDelete(ctx, ids)
		if err == nil && n != want {
			t.Errorf("OutcomeDelete(%q) = %d, want %d", ids, n, want)
		}
		return err
	}
	recordOutcomes(t, s, base, "evt-1", "evt-2", "evt-3", "EVT-1")

	// What a transaction recorded and then refused, it forgets before it
	// commits; the rest commits.
	update(t, s, func(tx stockade.Tx) error {
		fresh, err := tx.OutcomeInsert(ctx, outcomeRecords("evt-4", "evt-5", "evt-6"), base)
		if err != nil {
			return err
		}
		wantIDs(t, "OutcomeInsert(evt-4, evt-5, evt-6)", fresh, []string{"evt-4", "evt-5", "evt-6"})
		return forget(tx, 2, "evt-6", "evt-5")
	})
	// Records that committed before; ids without one remove nothing.
	update(t, s, func(tx stockade.Tx) error { return forget(tx, 1, "evt-1", "Evt-2", "no-such-outcome") })
	// A rollback keeps them.
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := forget(tx, 2, "evt-2", "evt-3"); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	// No ids: nothing removed, and no error.
	update(t, s, func(tx stockade.Tx) error {
		if err := forget(tx, 0); err != nil {
			return err
		}
		return forget(tx, 0, []string{}...)
	})

	want := map[string]bool{"evt-1": false, "evt-2": true, "evt-3": true, "EVT-1": true, "Evt-2": false,
		"evt-4": true, "evt-5": false, "evt-6": false}
	if got := recorded(t, s, slices.Sorted(maps.Keys(want))...); !reflect.DeepEqual(got, want) {
		t.Errorf("recorded outcomes = %v, want %v", got, want)
	}
	// A forgotten id is new again.
	wantIDs(t, "OutcomeInsert(evt-6, evt-1, evt-2) after evt-1 and evt-6 were forgotten",
		recordOutcomes(t, s, base, "evt-6", "evt-1", "evt-2"), []string{"evt-1", "evt-6"})
}

func testPaymentsByID(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	ps := paymentFixtures() // p-1, p-2, P-3, p-4
	insertPayments(t, s, ps...)
	byID := map[string]stockade.Payment{}
	for _, p := range ps {
		byID[p.ID] = p
	}
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{"every one, out of order", []string{"p-4", "p-1", "P-3", "p-2"}, []string{"P-3", "p-1", "p-2", "p-4"}},
		{"missing ones left out", []string{"p-2", "no-such-payment", "P-1", "r-1", "p-4"}, []string{"p-2", "p-4"}},
		{"none that exists", []string{"P-1", "p-3"}, nil},
		{"no ids", nil, nil},
		{"an empty list", []string{}, nil},
	}
	for _, tc := range tests {
		for _, lock := range []bool{false, true} {
			txFor(lock)(t, s, func(tx stockade.Tx) error {
				got, err := tx.PaymentGetMany(ctx, stockade.ByIDs{IDs: tc.ids, Lock: lock})
				if err != nil {
					return fmt.Errorf("%s: Payments(%q, lock %v): %w", tc.name, tc.ids, lock, err)
				}
				ids := make([]string, len(got))
				for i, p := range got {
					ids[i] = p.ID
					if want, ok := byID[p.ID]; ok {
						checkPayment(t, p, want)
					}
				}
				wantIDs(t, fmt.Sprintf("%s: Payments(%q, lock %v)", tc.name, tc.ids, lock), ids, tc.want)
				return nil
			})
		}
	}
}

// paymentState is everything of the payment tables that the rollback,
// read-only and invalid tests look at.
type paymentState struct {
	Payments []stockade.Payment
	Changes  map[string][]stockade.PaymentChange
	Outcomes map[string]bool
}

// takePayments reads the payment state of s, with the payments and
// outcomes of the writes fixtures.
func takePayments(t *testing.T, s stockade.Store) paymentState {
	t.Helper()
	st := paymentState{Payments: allPayments(t, s), Changes: map[string][]stockade.PaymentChange{}}
	view(t, s, func(tx stockade.Tx) error {
		for _, id := range []string{"p-old", "p-new"} {
			cs, err := tx.PaymentChangeList(t.Context(), id)
			if err != nil {
				return err
			}
			st.Changes[id] = cs
		}
		return nil
	})
	st.Outcomes = recorded(t, s, "evt-old", "evt-new", "evt-forget", "evt-bulk-1", "evt-bulk-2")
	return st
}

// paymentWrites are one of each kind of payment write, for the rollback
// and read-only tests. They expect the state that seedPaymentWrites
// makes.
var paymentWrites = []struct {
	name string
	fn   func(ctx context.Context, tx stockade.Tx) error
}{
	{"PaymentInsert", func(ctx context.Context, tx stockade.Tx) error {
		return tx.PaymentInsert(ctx, payment("p-new", stockade.PayHold, "h-new", base))
	}},
	{"PaymentUpdate", func(ctx context.Context, tx stockade.Tx) error {
		p := payment("p-old", stockade.PayReservation, "r-old", base)
		p.Status, p.StuckAt, p.Version = stockade.PaymentProcessing, base.Add(time.Minute), 2
		ok, err := tx.PaymentUpdate(ctx, p)
		if err == nil && !ok {
			err = errors.New("PaymentUpdate(p-old) found another version")
		}
		return err
	}},
	{"PaymentChangeAppend", func(ctx context.Context, tx stockade.Tx) error {
		return tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: "p-old", From: stockade.PaymentPending,
			To: stockade.PaymentProcessing, At: base.Add(time.Minute)})
	}},
	{"RecordOutcome", func(ctx context.Context, tx stockade.Tx) error {
		isNew, err := recordOutcome(ctx, tx, "evt-new", "p-old", base)
		if err == nil && !isNew {
			err = errors.New("recording evt-new found it recorded")
		}
		return err
	}},
	{"OutcomeInsert", func(ctx context.Context, tx stockade.Tx) error {
		fresh, err := tx.OutcomeInsert(ctx, []stockade.OutcomeRecord{{EventID: "evt-bulk-2", PaymentID: "p-old"},
			{EventID: "evt-bulk-1", PaymentID: "p-old"}}, base)
		if err == nil && !slices.Equal(fresh, []string{"evt-bulk-1", "evt-bulk-2"}) {
			err = fmt.Errorf("OutcomeInsert(evt-bulk-2, evt-bulk-1) found %q new, want both", fresh)
		}
		return err
	}},
	{"OutcomeDelete", func(ctx context.Context, tx stockade.Tx) error {
		n, err := tx.OutcomeDelete(ctx, []string{"evt-forget", "no-such-outcome"})
		if err == nil && n != 1 {
			err = fmt.Errorf("OutcomeDelete forgot %d, want evt-forget", n)
		}
		return err
	}},
	{"OutcomePurge", func(ctx context.Context, tx stockade.Tx) error {
		n, err := tx.OutcomePurge(ctx, base)
		if err == nil && n != 1 {
			err = fmt.Errorf("OutcomePurge purged %d, want evt-old", n)
		}
		return err
	}},
}

// seedPaymentWrites makes the state paymentWrites expect and returns it.
func seedPaymentWrites(t *testing.T, s stockade.Store) paymentState {
	t.Helper()
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.PaymentInsert(ctx, payment("p-old", stockade.PayReservation, "r-old", base)); err != nil {
			return err
		}
		if err := tx.PaymentChangeAppend(ctx, stockade.PaymentChange{PaymentID: "p-old", From: stockade.PaymentPending,
			To: stockade.PaymentPending, At: base, Reason: "created"}); err != nil {
			return err
		}
		if _, err := recordOutcome(ctx, tx, "evt-old", "p-old", base.Add(-time.Minute)); err != nil {
			return err
		}
		_, err := recordOutcome(ctx, tx, "evt-forget", "p-old", base)
		return err
	})
	return takePayments(t, s)
}

func testPaymentUpdateRollsBack(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedPaymentWrites(t, s)
	all := func(tx stockade.Tx) error {
		for _, w := range paymentWrites {
			if err := w.fn(ctx, tx); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
		}
		return nil
	}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := all(tx); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if after := takePayments(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("Update whose fn failed left changes:\nbefore %+v\nafter  %+v", before, after)
	}
	// The same writes commit when fn returns nil.
	update(t, s, all)
	after := takePayments(t, s)
	outcomes := map[string]bool{"evt-old": false, "evt-new": true, "evt-forget": false, "evt-bulk-1": true, "evt-bulk-2": true}
	if len(after.Payments) != 2 || len(after.Changes["p-old"]) != 2 || !reflect.DeepEqual(after.Outcomes, outcomes) {
		t.Errorf("state after the writes committed = %+v", after)
	}
}

func testPaymentViewIsReadOnly(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedPaymentWrites(t, s)
	for _, w := range paymentWrites {
		err := s.View(ctx, func(tx stockade.Tx) error { return w.fn(ctx, tx) })
		if err == nil {
			t.Errorf("%s in View succeeded, want an error", w.name)
		}
	}
	if after := takePayments(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("writes in View left changes:\nbefore %+v\nafter  %+v", before, after)
	}
}

// testInvalidPayment checks that what the schema cannot hold is refused
// with EInvalid, changing nothing.
func testInvalidPayment(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedPaymentWrites(t, s)
	type write struct {
		name string
		fn   func(tx stockade.Tx) error
	}
	var writes []write
	for _, c := range []struct {
		name   string
		change func(p *stockade.Payment)
	}{
		{"target kind", func(p *stockade.Payment) { p.Target.Kind = "level" }},
		{"status", func(p *stockade.Payment) { p.Status = "lost" }},
		{"empty status", func(p *stockade.Payment) { p.Status = "" }},
		{"resolution", func(p *stockade.Payment) { p.Resolution = "lost" }},
		{"amount 0", func(p *stockade.Payment) { p.Amount = 0 }},
		{"negative amount", func(p *stockade.Payment) { p.Amount = -1250 }},
		{"currency", func(p *stockade.Payment) { p.Currency = "EURO" }},
		{"no currency", func(p *stockade.Payment) { p.Currency = "" }},
		{"version 0", func(p *stockade.Payment) { p.Version = 0 }},
	} {
		p := payment("p-invalid", stockade.PayReservation, "r-invalid", base)
		c.change(&p)
		writes = append(writes, write{"PaymentInsert: " + c.name, func(tx stockade.Tx) error { return tx.PaymentInsert(ctx, p) }})
	}
	for _, c := range []struct {
		name   string
		change func(p *stockade.Payment)
	}{
		{"status", func(p *stockade.Payment) { p.Status = "lost" }},
		{"resolution", func(p *stockade.Payment) { p.Resolution = "lost" }},
	} {
		p := payment("p-old", stockade.PayReservation, "r-old", base)
		p.Version = 2
		c.change(&p)
		writes = append(writes, write{"PaymentUpdate: " + c.name, func(tx stockade.Tx) error {
			_, err := tx.PaymentUpdate(ctx, p)
			return err
		}})
	}
	for _, c := range []struct {
		name   string
		change stockade.PaymentChange
	}{
		{"from", stockade.PaymentChange{PaymentID: "p-old", From: "lost", To: stockade.PaymentPending, At: base}},
		{"to", stockade.PaymentChange{PaymentID: "p-old", From: stockade.PaymentPending, To: "lost", At: base}},
		{"resolution", stockade.PaymentChange{PaymentID: "p-old", From: stockade.PaymentPending, To: stockade.PaymentPending,
			Resolution: "lost", At: base}},
	} {
		writes = append(writes, write{"PaymentChangeAppend: " + c.name, func(tx stockade.Tx) error { return tx.PaymentChangeAppend(ctx, c.change) }})
	}
	for _, w := range writes {
		wantCode(t, w.name, s.Update(ctx, w.fn), stockade.EInvalid)
	}
	if after := takePayments(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("refused writes left changes:\nbefore %+v\nafter  %+v", before, after)
	}
}
