package storetest

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// reservation returns a reservation with lines and allocations on keys.
func reservation(id string, status stockade.ReservationStatus, expires time.Time, keys ...stockade.Key) stockade.Reservation {
	r := stockade.Reservation{ID: id, Status: status, CreatedAt: expires.Add(-15 * time.Minute), ExpiresAt: expires}
	for i, k := range keys {
		r.Lines = append(r.Lines, stockade.Line{SKU: k.SKU, Quantity: int64(i + 1)})
		r.Allocations = append(r.Allocations, stockade.Allocation{SKU: k.SKU, Location: k.Location, Quantity: int64(i + 1)})
	}
	return r
}

// checkReservation fails the test unless got is want as a store returns
// it: times to the millisecond in UTC.
func checkReservation(t *testing.T, got, want stockade.Reservation) {
	t.Helper()
	checkTime(t, "reservation "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, "reservation "+want.ID+" ExpiresAt", got.ExpiresAt, want.ExpiresAt)
	if got.ID != want.ID || got.Status != want.Status || got.OrderID != want.OrderID || got.Owner != want.Owner ||
		!equalSlices(got.Lines, want.Lines) || !equalSlices(got.Allocations, want.Allocations) {
		t.Errorf("reservation = %+v, want %+v", got, want)
	}
}

// checkOrder fails the test unless got is want as a store returns it:
// CreatedAt to the millisecond in UTC.
func checkOrder(t *testing.T, got, want stockade.Order) {
	t.Helper()
	checkTime(t, "order "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	if got.ID != want.ID || got.Status != want.Status || got.ReservationID != want.ReservationID || got.Owner != want.Owner ||
		got.Version != want.Version || !equalSlices(got.Lines, want.Lines) || !equalSlices(got.Allocations, want.Allocations) {
		t.Errorf("order = %+v, want %+v", got, want)
	}
}

func testReservations(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 10}, level{Key: keyA2, OnHand: 10}, level{Key: keyB1, OnHand: 10})
	r1 := reservation("r-1", stockade.Held, base, keyA1, keyA2, keyB1)
	r1.Lines = []stockade.Line{{SKU: "A", Quantity: 3}, {SKU: "B", Quantity: 3, Location: "w1"}}
	r1.Owner = "key_Shop1"
	r2 := reservation("r-2", stockade.Held, base.Add(time.Hour)) // no owner
	r3 := reservation("r-3", stockade.Held, base.Add(time.Hour), keyB1)
	r3.OrderID, r3.Owner = "o-3", "key_shop2"
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx); err != nil {
			return fmt.Errorf("ReservationInsert(none): %w", err)
		}
		if err := tx.ReservationInsert(ctx, r1); err != nil {
			return err
		}
		return tx.ReservationInsert(ctx, r2, r3)
	})

	for _, want := range []stockade.Reservation{r1, r2, r3} {
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.ReservationGet(ctx, stockade.ByID{ID: want.ID})
			if err != nil {
				return err
			}
			checkReservation(t, got, want)
			return nil
		})
	}
	for _, lock := range []bool{false, true} {
		txFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.ReservationGetMany(ctx, stockade.ByIDs{IDs: []string{r3.ID, "no-such-reservation", r1.ID}, Lock: lock})
			if err != nil {
				return fmt.Errorf("Reservations(lock %v): %w", lock, err)
			}
			if len(got) != 2 {
				t.Fatalf("Reservations returned %d, want r-1 and r-3", len(got))
			}
			checkReservation(t, got[0], r1)
			checkReservation(t, got[1], r3)
			none, err := tx.ReservationGetMany(ctx, stockade.ByIDs{IDs: nil, Lock: lock})
			if err != nil || len(none) != 0 {
				t.Errorf("Reservations(none) = %v, %v", none, err)
			}
			return nil
		})
	}
	update(t, s, func(tx stockade.Tx) error {
		got, err := tx.ReservationGet(ctx, stockade.ByID{ID: r1.ID, Lock: true})
		if err != nil {
			return fmt.Errorf("Reservation(%s, lock): %w", r1.ID, err)
		}
		checkReservation(t, got, r1)
		return nil
	})
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.ReservationGet(ctx, stockade.ByID{ID: "no-such-reservation"})
		wantCode(t, "Reservation(unknown id)", err, stockade.ENotFound)
		return nil
	})

	dup := r1
	dup.Status = stockade.Released
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.ReservationInsert(ctx, dup) }); err == nil {
		t.Errorf("ReservationInsert with an id in use succeeded")
	}
	// A duplicate within one call fails the call, and the rollback leaves
	// nothing of it.
	r4 := reservation("r-4", stockade.Held, base, keyA1)
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.ReservationInsert(ctx, r4, r4) }); err == nil {
		t.Errorf("ReservationInsert with one id twice succeeded")
	}
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.ReservationGet(ctx, stockade.ByID{ID: r4.ID})
		wantCode(t, "Reservation(r-4) after a failed insert", err, stockade.ENotFound)
		return nil
	})

	steps := []struct {
		name     string
		id       string
		from, to stockade.ReservationStatus
		orderID  string
		ok       bool
	}{
		{"confirm", r1.ID, stockade.Held, stockade.Confirmed, "o-1", true},
		{"from the wrong status", r1.ID, stockade.Held, stockade.Released, "", false},
		{"unknown id", "no-such-reservation", stockade.Held, stockade.Released, "", false},
		{"release, no order id", r2.ID, stockade.Held, stockade.Released, "", true},
		{"released stays released", r2.ID, stockade.Held, stockade.Expired, "", false},
		{"no order id keeps the one set", r3.ID, stockade.Held, stockade.Expired, "", true},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.ReservationSetStatus(ctx, st.id, st.from, st.to, st.orderID)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok {
				t.Errorf("%s: ReservationSetStatus(%s, %s → %s) = %v, want %v", st.name, st.id, st.from, st.to, ok, st.ok)
			}
			return nil
		})
	}
	r1.Status, r1.OrderID = stockade.Confirmed, "o-1"
	r2.Status = stockade.Released
	r3.Status = stockade.Expired
	for _, want := range []stockade.Reservation{r1, r2, r3} {
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.ReservationGet(ctx, stockade.ByID{ID: want.ID})
			if err != nil {
				return err
			}
			checkReservation(t, got, want)
			return nil
		})
	}
}

func testReservationLapseCandidates(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	keyC1 := stockade.Key{SKU: "C", Location: "w1"}
	seed(t, s, level{Key: keyA1}, level{Key: keyA2}, level{Key: keyB1}, level{Key: keyC1})
	now := base
	rs := []stockade.Reservation{
		reservation("r-a", stockade.Held, now.Add(-1*time.Hour), keyA1),
		reservation("r-b", stockade.Held, now.Add(-3*time.Hour), keyB1),
		reservation("r-c", stockade.Held, now.Add(time.Hour), keyA1, keyB1), // not expired yet
		reservation("r-d", stockade.Confirmed, now.Add(-4*time.Hour), keyA1),
		reservation("r-e", stockade.Released, now.Add(-4*time.Hour), keyB1),
		reservation("r-f", stockade.Held, now.Add(-2*time.Hour), keyA2, keyB1, keyB1),
		reservation("r-g", stockade.Expired, now.Add(-5*time.Hour), keyA2),
		reservation("r-h", stockade.Held, now, keyA1), // expires at now: not before it
		reservation("r-i", stockade.Held, now.Add(-time.Millisecond), keyC1),
		reservation("r-A", stockade.Held, now.Add(-1*time.Hour), keyA1), // as r-a, and before it in byte order
	}
	rs[0].Owner, rs[1].Owner, rs[5].Owner = "key_shop1", "key_shop2", "key_shop1"
	// One call: the allocation rows of every reservation are found by key.
	update(t, s, func(tx stockade.Tx) error { return tx.ReservationInsert(ctx, rs...) })
	byID := map[string]stockade.Reservation{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	at := func(d time.Duration, id string) stockade.LapseCursor {
		return stockade.LapseCursor{ExpiresAt: now.Add(d), ID: id}
	}
	all := []string{"r-b", "r-f", "r-A", "r-a", "r-i"}

	tests := []struct {
		name   string
		before time.Time // now if zero
		keys   []stockade.Key
		after  stockade.LapseCursor
		limit  int
		want   []string
	}{
		{name: "all, by expiry then id", limit: 10, want: all},
		{name: "no limit", want: all},
		{name: "limit", limit: 2, want: all[:2]},
		{name: "limit 1", limit: 1, want: all[:1]},
		{name: "the bound is strict", before: now.Add(-2 * time.Hour), want: all[:1]},
		{name: "after a cursor", after: at(-2*time.Hour, "r-f"), want: all[2:]},
		{name: "after a cursor between ties", after: at(-time.Hour, "r-A"), limit: 10, want: all[3:]},
		{name: "after an expiry, whatever the id", after: at(-time.Hour, "~"), want: all[4:]},
		{name: "after the last", after: at(-time.Millisecond, "r-i"), want: nil},
		{name: "one key", keys: []stockade.Key{keyB1}, limit: 10, want: []string{"r-b", "r-f"}},
		{name: "a key of a multi-allocation reservation", keys: []stockade.Key{keyA2}, limit: 10, want: []string{"r-f"}},
		{name: "several keys", keys: []stockade.Key{keyC1, keyA1}, limit: 10, want: []string{"r-A", "r-a", "r-i"}},
		{name: "several keys, limit", keys: []stockade.Key{keyB1, keyA2, keyA1}, limit: 2, want: []string{"r-b", "r-f"}},
		{name: "several keys, by expiry", keys: []stockade.Key{keyA1, keyA2}, limit: 10, want: []string{"r-f", "r-A", "r-a"}},
		{name: "several keys, after a cursor", keys: []stockade.Key{keyA1, keyA2}, after: at(-time.Hour, "r-A"), want: []string{"r-a"}},
		{name: "a key with no candidate", keys: []stockade.Key{{SKU: "C", Location: "W2"}}, limit: 10, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := stockade.ReservationLapseQuery{ExpiredBefore: cmp.Or(tc.before, now), Keys: tc.keys, After: tc.after, Limit: tc.limit}
			update(t, s, func(tx stockade.Tx) error {
				got, err := tx.ReservationLapseCandidates(ctx, q)
				if err != nil {
					return err
				}
				var ids []string
				for _, c := range got {
					ids = append(ids, c.Reservation.ID)
				}
				if !equalSlices(ids, tc.want) {
					t.Fatalf("ReservationLapseCandidates(%+v) = %q, want %q", q, ids, tc.want)
				}
				for _, c := range got {
					checkReservation(t, c.Reservation, byID[c.Reservation.ID])
					if c.Payment != "" {
						t.Errorf("candidate %s without a payment: payment %q, want none", c.Reservation.ID, c.Payment)
					}
				}
				return nil
			})
		})
	}
	// Pages of two, each after the last candidate of the one before, read
	// every candidate once, in order; the last page is short.
	t.Run("pages", func(t *testing.T) {
		var ids []string
		var after stockade.LapseCursor
		for pages := 1; ; pages++ {
			var got []stockade.ReservationLapseCandidate
			update(t, s, func(tx stockade.Tx) (err error) {
				got, err = tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: now, After: after, Limit: 2})
				return err
			})
			for _, c := range got {
				ids = append(ids, c.Reservation.ID)
			}
			if len(got) < 2 || pages > len(all) {
				break
			}
			last := got[len(got)-1].Reservation
			after = stockade.LapseCursor{ExpiresAt: last.ExpiresAt, ID: last.ID}
		}
		if !equalSlices(ids, all) {
			t.Fatalf("pages of 2 read %q, want %q", ids, all)
		}
	})
}

func testOrders(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 10}, level{Key: keyB1, OnHand: 10})
	o1 := stockade.Order{ID: "o-1", Status: stockade.Committed, CreatedAt: base, ReservationID: "r-1", Owner: "key_shop1", Version: 1,
		Lines:       []stockade.Line{{SKU: "A", Quantity: 2}, {SKU: "B", Quantity: 1, Location: "w1"}},
		Allocations: []stockade.Allocation{{SKU: "A", Location: "w1", Quantity: 2}, {SKU: "B", Location: "w1", Quantity: 1}}}
	o2 := stockade.Order{ID: "o-2", Status: stockade.Committed, CreatedAt: base.Add(time.Minute), Version: 1,
		Lines:       []stockade.Line{{SKU: "A", Quantity: 1, Location: "w1"}},
		Allocations: []stockade.Allocation{{SKU: "A", Location: "w1", Quantity: 1}}}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.OrderInsert(ctx); err != nil {
			return fmt.Errorf("OrderInsert(none): %w", err)
		}
		return tx.OrderInsert(ctx, o1, o2)
	})
	check := func(want stockade.Order, lock bool) {
		t.Helper()
		txFor(lock)(t, s, func(tx stockade.Tx) error {
			got, err := tx.OrderGet(ctx, stockade.ByID{ID: want.ID, Lock: lock})
			if err != nil {
				return err
			}
			checkOrder(t, got, want)
			return nil
		})
	}
	check(o1, false)
	check(o1, true)
	check(o2, false)
	view(t, s, func(tx stockade.Tx) error {
		_, err := tx.OrderGet(ctx, stockade.ByID{ID: "no-such-order"})
		wantCode(t, "Order(unknown id)", err, stockade.ENotFound)
		return nil
	})
	dup := o1
	dup.Status = stockade.Cancelled
	if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.OrderInsert(ctx, dup) }); err == nil {
		t.Errorf("OrderInsert with an id in use succeeded")
	}

	steps := []struct {
		name     string
		id       string
		from, to stockade.OrderStatus
		ok       bool
	}{
		{"fulfill", o1.ID, stockade.Committed, stockade.Fulfilled, true},
		{"cancel a fulfilled order", o1.ID, stockade.Committed, stockade.Cancelled, false},
		{"cancel", o2.ID, stockade.Committed, stockade.Cancelled, true},
		{"fulfill a cancelled order", o2.ID, stockade.Committed, stockade.Fulfilled, false},
		{"unknown id", "no-such-order", stockade.Committed, stockade.Cancelled, false},
	}
	for _, st := range steps {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.OrderSetStatus(ctx, st.id, st.from, st.to)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok {
				t.Errorf("%s: OrderSetStatus(%s, %s → %s) = %v, want %v", st.name, st.id, st.from, st.to, ok, st.ok)
			}
			return nil
		})
	}
	// Each moved once: one version on; the refused moves changed nothing.
	o1.Status, o2.Status = stockade.Fulfilled, stockade.Cancelled
	o1.Version, o2.Version = 2, 2
	check(o1, false)
	check(o2, false)
}

func testIdempotency(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	get := func(key string) (stockade.IdempotencyRecord, bool) {
		t.Helper()
		var rec stockade.IdempotencyRecord
		var ok bool
		view(t, s, func(tx stockade.Tx) error {
			var err error
			rec, ok, err = idempotencyRecord(ctx, tx, key)
			return err
		})
		return rec, ok
	}
	put := func(rec stockade.IdempotencyRecord) {
		t.Helper()
		update(t, s, func(tx stockade.Tx) error { return tx.IdempotencyPut(ctx, rec) })
	}
	same := func(got, want stockade.IdempotencyRecord) bool {
		return got.Key == want.Key && got.Op == want.Op && got.Fingerprint == want.Fingerprint &&
			bytes.Equal(got.Result, want.Result) && sameTime(got.CreatedAt, want.CreatedAt)
	}
	check := func(want stockade.IdempotencyRecord) {
		t.Helper()
		got, ok := get(want.Key)
		if !ok {
			t.Fatalf("Idempotency(%q) found nothing", want.Key)
		}
		checkTime(t, "idempotency "+want.Key+" CreatedAt", got.CreatedAt, want.CreatedAt)
		if !same(got, want) {
			t.Errorf("Idempotency(%q) = %s %s result %q, want %s %s result %q", want.Key,
				got.Op, got.Fingerprint, got.Result, want.Op, want.Fingerprint, want.Result)
		}
	}

	if rec, ok := get("k-1"); ok {
		t.Fatalf("Idempotency of a missing key = %+v, true", rec)
	}
	first := stockade.IdempotencyRecord{Key: "k-1", Op: "reserve", Fingerprint: "sha256:aa", Result: []byte(`{"id":"r-1"}`), CreatedAt: base}
	put(first)
	check(first)

	// Replaced whole; every byte value, invalid UTF-8 and a NUL included.
	result := []byte("{\"id\":\"r-1\"}\n\x00\xff\xfe")
	for b := range 256 {
		result = append(result, byte(b))
	}
	again := stockade.IdempotencyRecord{Key: "k-1", Op: "checkout", Fingerprint: "sha256:bb", Result: result, CreatedAt: base.Add(time.Hour)}
	put(again)
	check(again)

	// Many at once, in one call each way: missing keys are left out, the
	// rest come back in key order.
	many := []stockade.IdempotencyRecord{
		{Key: "m-2", Op: "reserve", Fingerprint: "h2", Result: []byte("{}"), CreatedAt: base},
		{Key: "m-1", Op: "confirm", Fingerprint: "h1", Result: []byte("[]"), CreatedAt: base.Add(time.Second)},
		{Key: "m-3", Op: "release", Fingerprint: "h3", Result: []byte("x"), CreatedAt: base},
	}
	update(t, s, func(tx stockade.Tx) error { return tx.IdempotencyPut(ctx, many...) })
	for _, write := range []bool{false, true} {
		txFor(write)(t, s, func(tx stockade.Tx) error {
			got, err := tx.IdempotencyGetMany(ctx, []string{"m-3", "nope", "m-1", "m-2"})
			if err != nil {
				return err
			}
			want := []stockade.IdempotencyRecord{many[1], many[0], many[2]}
			if len(got) != len(want) {
				t.Fatalf("IdempotencyGetMany returned %d records, want %d", len(got), len(want))
			}
			for i, w := range want {
				if !same(got[i], w) {
					t.Errorf("IdempotencyGetMany()[%d] = %+v, want %+v", i, got[i], w)
				}
			}
			none, err := tx.IdempotencyGetMany(ctx, nil)
			if err != nil || len(none) != 0 {
				t.Errorf("IdempotencyGetMany(none) = %v, %v", none, err)
			}
			return nil
		})
	}

	for i, age := range []time.Duration{3 * time.Hour, 2 * time.Hour, time.Hour, 0} {
		put(stockade.IdempotencyRecord{Key: fmt.Sprintf("p-%d", i), Op: "reserve", Fingerprint: "h",
			Result: []byte("{}"), CreatedAt: base.Add(-age)})
	}
	purges := []struct {
		before time.Time
		want   int
	}{
		{base.Add(-4 * time.Hour), 0},
		{base.Add(-90 * time.Minute), 2},
		{base.Add(-90 * time.Minute), 0},
		{base.Add(-time.Hour), 0}, // created exactly then: not before
		{base, 1},
	}
	for _, p := range purges {
		update(t, s, func(tx stockade.Tx) error {
			n, err := tx.IdempotencyPurge(ctx, p.before)
			if err != nil {
				return err
			}
			if n != p.want {
				t.Errorf("IdempotencyPurge(base%v) = %d, want %d", p.before.Sub(base), n, p.want)
			}
			return nil
		})
	}
	for i, want := range []bool{false, false, false, true} {
		if _, ok := get(fmt.Sprintf("p-%d", i)); ok != want {
			t.Errorf("after the purges, p-%d exists = %v, want %v", i, ok, want)
		}
	}
}

// testInvalidStatus checks that a status or state outside the domain's
// constants is refused with EInvalid.
func testInvalidStatus(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 10})
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx, reservation("r-1", stockade.Held, base, keyA1)); err != nil {
			return err
		}
		return tx.OrderInsert(ctx, stockade.Order{ID: "o-1", Status: stockade.Committed, CreatedAt: base})
	})
	before := take(t, s, []string{"r-1", "r-2"}, []string{"o-1", "o-2"}, []string{"k-1"})
	tests := []struct {
		name string
		fn   func(tx stockade.Tx) error
	}{
		{"InsertReservation", func(tx stockade.Tx) error {
			return tx.ReservationInsert(ctx, reservation("r-2", "lost", base, keyA1))
		}},
		{"ReservationSetStatus", func(tx stockade.Tx) error {
			_, err := tx.ReservationSetStatus(ctx, "r-1", stockade.Held, "lost", "")
			return err
		}},
		{"InsertOrder", func(tx stockade.Tx) error {
			return tx.OrderInsert(ctx, stockade.Order{ID: "o-2", Status: "lost", CreatedAt: base})
		}},
		{"OrderSetStatus", func(tx stockade.Tx) error {
			_, err := tx.OrderSetStatus(ctx, "o-1", stockade.Committed, "lost")
			return err
		}},
	}
	for _, tc := range tests {
		err := s.Update(ctx, tc.fn)
		wantCode(t, tc.name+" with an unknown status", err, stockade.EInvalid)
	}
	if after := take(t, s, []string{"r-1", "r-2"}, []string{"o-1", "o-2"}, []string{"k-1"}); !reflect.DeepEqual(after, before) {
		t.Errorf("refused writes left changes:\nbefore %+v\nafter  %+v", before, after)
	}
}

func testRecordSums(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 100}, level{Key: keyA2, OnHand: 100}, level{Key: keyB1, OnHand: 100})
	order := func(id string, status stockade.OrderStatus, allocs ...stockade.Allocation) stockade.Order {
		return stockade.Order{ID: id, Status: status, CreatedAt: base, Lines: []stockade.Line{{SKU: "A", Quantity: 1}}, Allocations: allocs}
	}
	alloc := func(k stockade.Key, q int64) stockade.Allocation {
		return stockade.Allocation{SKU: k.SKU, Location: k.Location, Quantity: q}
	}
	update(t, s, func(tx stockade.Tx) error {
		err := tx.ReservationInsert(ctx,
			reservation("r-1", stockade.Held, base, keyA1, keyB1),          // A1 1, B1 2
			reservation("r-2", stockade.Held, base.Add(-time.Hour), keyA1), // lapsed, still held
			reservation("r-3", stockade.Confirmed, base, keyA1),
			reservation("r-4", stockade.Expired, base, keyB1),
			reservation("r-5", stockade.Released, base, keyA2))
		if err != nil {
			return err
		}
		return tx.OrderInsert(ctx,
			order("o-1", stockade.Committed, alloc(keyA1, 5), alloc(keyA2, 2)),
			order("o-2", stockade.Cancelled, alloc(keyA1, 7)),
			order("o-3", stockade.Fulfilled, alloc(keyA2, 9)),
			order("o-4", stockade.Committed, alloc(keyA2, 3)))
	})
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.AllocationSums(ctx)
		if err != nil {
			return err
		}
		want := map[stockade.Key]stockade.Delta{
			keyA1: {Reserved: 2, Committed: 5},
			keyA2: {Committed: 5},
			keyB1: {Reserved: 2},
		}
		if !maps.Equal(got, want) {
			t.Errorf("AllocationSums() = %v, want %v", got, want)
		}
		return nil
	})
}
