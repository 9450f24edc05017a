package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// listRecord is a reservation or order of the list fixture: its status is
// an index into the three statuses the test gives.
type listRecord struct {
	id      string
	created time.Time
	owner   string
	status  int
}

// listFixture is the records the list tests insert. Newest first they
// are r-6, R-9 (base+3m), r-5, r-10 (base+2m), r-4, r-3, r-2 (base+1m),
// r-1 (base), r-7 (base-1m): records created at the same time come in
// descending byte order of their ids, in which "r-5" > "r-10" and
// "r-6" > "R-9".
var listFixture = []listRecord{
	{"r-1", base, "key_a", 0},
	{"r-2", base.Add(time.Minute), "key_b", 1},
	{"r-3", base.Add(time.Minute), "key_a", 0},
	{"r-4", base.Add(time.Minute), "", 2},
	{"r-5", base.Add(2 * time.Minute), "key_a", 2},
	{"r-6", base.Add(3 * time.Minute), "key_b", 0},
	{"r-7", base.Add(-time.Minute), "key_a", 0},
	{"R-9", base.Add(3 * time.Minute), "key_a", 1},
	{"r-10", base.Add(2 * time.Minute), "key_a", 0},
}

// listNewestFirst is listFixture in the lists' order.
var listNewestFirst = []string{"r-6", "R-9", "r-5", "r-10", "r-4", "r-3", "r-2", "r-1", "r-7"}

// listed is a row of a list: its id and its created_at as the store
// returned it, which the next page's cursor is made of.
type listed struct {
	id      string
	created time.Time
}

func testListReservations(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 100})
	statuses := [3]stockade.ReservationStatus{stockade.Held, stockade.Confirmed, stockade.Released}
	byID := map[string]stockade.Reservation{}
	var rs []stockade.Reservation
	for _, rec := range listFixture {
		r := reservation(rec.id, statuses[rec.status], rec.created.Add(15*time.Minute), keyA1)
		r.Owner = rec.owner
		byID[r.ID] = r
		rs = append(rs, r)
	}
	update(t, s, func(tx stockade.Tx) error { return tx.ReservationInsert(ctx, rs...) })

	checkList(t, s, [3]string{string(statuses[0]), string(statuses[1]), string(statuses[2])},
		func(tx stockade.Tx, f stockade.ListFilter) ([]listed, error) {
			got, err := tx.ReservationList(ctx, f)
			var rows []listed
			for _, r := range got {
				checkReservation(t, r, byID[r.ID])
				rows = append(rows, listed{r.ID, r.CreatedAt})
			}
			return rows, err
		})
}

func testListOrders(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	statuses := [3]stockade.OrderStatus{stockade.Committed, stockade.Cancelled, stockade.Fulfilled}
	byID := map[string]stockade.Order{}
	var orders []stockade.Order
	for i, rec := range listFixture {
		o := stockade.Order{ID: rec.id, Status: statuses[rec.status], CreatedAt: rec.created, Owner: rec.owner,
			ReservationID: fmt.Sprintf("res-%d", i), Version: 1, // as OrderInsert stores them
			Lines:       []stockade.Line{{SKU: "A", Quantity: int64(i + 1)}},
			Allocations: []stockade.Allocation{{SKU: "A", Location: "w1", Quantity: int64(i + 1)}}}
		byID[o.ID] = o
		orders = append(orders, o)
	}
	update(t, s, func(tx stockade.Tx) error { return tx.OrderInsert(ctx, orders...) })

	checkList(t, s, [3]string{string(statuses[0]), string(statuses[1]), string(statuses[2])},
		func(tx stockade.Tx, f stockade.ListFilter) ([]listed, error) {
			got, err := tx.OrderList(ctx, f)
			var rows []listed
			for _, o := range got {
				checkOrder(t, o, byID[o.ID])
				rows = append(rows, listed{o.ID, o.CreatedAt})
			}
			return rows, err
		})
}

// checkList runs the list tests on listFixture, stored with statuses, with
// list: every filter alone and combined, and cursor walks.
func checkList(t *testing.T, s stockade.Store, statuses [3]string, list func(tx stockade.Tx, f stockade.ListFilter) ([]listed, error)) {
	t.Helper()
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	tests := []struct {
		name string
		f    stockade.ListFilter
		want []string
	}{
		{"all, newest first, ties by id", stockade.ListFilter{Limit: 100}, listNewestFirst},
		{"limit", stockade.ListFilter{Limit: 3}, []string{"r-6", "R-9", "r-5"}},
		{"limit 1", stockade.ListFilter{Limit: 1}, []string{"r-6"}},
		{"status", stockade.ListFilter{Status: statuses[0], Limit: 100}, []string{"r-6", "r-10", "r-3", "r-1", "r-7"}},
		{"another status", stockade.ListFilter{Status: statuses[2], Limit: 100}, []string{"r-5", "r-4"}},
		{"a status no record has", stockade.ListFilter{Status: "lost", Limit: 100}, nil},
		{"owner", stockade.ListFilter{Owner: "key_a", Limit: 100}, []string{"R-9", "r-5", "r-10", "r-3", "r-1", "r-7"}},
		{"another owner", stockade.ListFilter{Owner: "key_b", Limit: 100}, []string{"r-6", "r-2"}},
		{"an owner with nothing", stockade.ListFilter{Owner: "key_A", Limit: 100}, nil},
		{"created after, inclusive", stockade.ListFilter{CreatedAfter: at(1), Limit: 100},
			[]string{"r-6", "R-9", "r-5", "r-10", "r-4", "r-3", "r-2"}},
		{"created before, exclusive", stockade.ListFilter{CreatedBefore: at(1), Limit: 100}, []string{"r-1", "r-7"}},
		{"created between", stockade.ListFilter{CreatedAfter: at(0), CreatedBefore: at(2), Limit: 100},
			[]string{"r-4", "r-3", "r-2", "r-1"}},
		{"created between, empty", stockade.ListFilter{CreatedAfter: at(1), CreatedBefore: at(1), Limit: 100}, nil},
		{"cursor within a tie", stockade.ListFilter{BeforeAt: at(1), BeforeID: "r-3", Limit: 100}, []string{"r-2", "r-1", "r-7"}},
		{"cursor, byte order of ids", stockade.ListFilter{BeforeAt: at(2), BeforeID: "r-5", Limit: 100},
			[]string{"r-10", "r-4", "r-3", "r-2", "r-1", "r-7"}},
		{"cursor, upper case sorts first", stockade.ListFilter{BeforeAt: at(3), BeforeID: "r-6", Limit: 2}, []string{"R-9", "r-5"}},
		{"cursor after the last of a tie", stockade.ListFilter{BeforeAt: at(2), BeforeID: "r-10", Limit: 100},
			[]string{"r-4", "r-3", "r-2", "r-1", "r-7"}},
		{"cursor with no id: strictly before", stockade.ListFilter{BeforeAt: at(1), Limit: 100}, []string{"r-1", "r-7"}},
		{"cursor at the last row", stockade.ListFilter{BeforeAt: at(-1), BeforeID: "r-7", Limit: 100}, nil},
		{"status and owner", stockade.ListFilter{Status: statuses[1], Owner: "key_b", Limit: 100}, []string{"r-2"}},
		{"owner and created between", stockade.ListFilter{Owner: "key_a", CreatedAfter: at(1), CreatedBefore: at(3), Limit: 100},
			[]string{"r-5", "r-10", "r-3"}},
		{"every filter", stockade.ListFilter{Status: statuses[0], Owner: "key_a", CreatedAfter: at(0), CreatedBefore: at(3),
			BeforeAt: at(2), BeforeID: "r-5", Limit: 2}, []string{"r-10", "r-3"}},
		{"every filter, next page", stockade.ListFilter{Status: statuses[0], Owner: "key_a", CreatedAfter: at(0), CreatedBefore: at(3),
			BeforeAt: at(1), BeforeID: "r-3", Limit: 2}, []string{"r-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx stockade.Tx) error {
				rows, err := list(tx, tc.f)
				if err != nil {
					return err
				}
				if got := listedIDs(rows); !equalSlices(got, tc.want) {
					t.Errorf("list(%+v) = %q, want %q", tc.f, got, tc.want)
				}
				for _, r := range rows {
					if i := slices.IndexFunc(listFixture, func(rec listRecord) bool { return rec.id == r.id }); i >= 0 {
						checkTime(t, r.id+" CreatedAt", r.created, listFixture[i].created)
					}
				}
				return nil
			})
		})
	}

	// Walking page by page, each page's cursor the last row of the page
	// before, reads every row once, in order.
	walks := []struct {
		name string
		f    stockade.ListFilter
		want []string
	}{
		{"all", stockade.ListFilter{}, listNewestFirst},
		{"owner", stockade.ListFilter{Owner: "key_a"}, []string{"R-9", "r-5", "r-10", "r-3", "r-1", "r-7"}},
		{"status and created after", stockade.ListFilter{Status: statuses[0], CreatedAfter: at(0)}, []string{"r-6", "r-10", "r-3", "r-1"}},
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

func listedIDs(rows []listed) []string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.id)
	}
	return ids
}

// keyFixture is the keys the key tests insert. In id (byte) order:
// key_C, key_a, key_b, key_d.
func keyFixture() []stockade.APIKey {
	return []stockade.APIKey{
		{ID: "key_b", Name: "Shop", Role: stockade.RoleStorefront, RateLimit: 2.5,
			Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", CreatedAt: base},
		{ID: "key_a", Name: "admin", Role: stockade.RoleAdmin,
			Hash: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752", CreatedAt: base.Add(time.Second)},
		{ID: "key_C", Name: "reports", Role: stockade.RoleReader, RateLimit: stockade.MaxRateLimit,
			Hash: "fd61a03af4f77d870fc21e05e7e80678095c92d808cfb3b5c279ee04c74aca13", CreatedAt: base.Add(time.Hour)},
		{ID: "key_d", Name: "old", Role: stockade.RoleReader,
			Hash: "a4e624d686e03ed2767c0abd85c14426b0b1157d2ce81d27bb4fe4f6f01d688a", CreatedAt: base.Add(-time.Hour),
			RevokedAt: base.Add(-time.Minute)},
	}
}

// checkKey fails the test unless got is want as a store returns it: times
// to the millisecond in UTC, RevokedAt zero for a live key.
func checkKey(t *testing.T, got, want stockade.APIKey) {
	t.Helper()
	checkTime(t, "key "+want.ID+" CreatedAt", got.CreatedAt, want.CreatedAt)
	if want.RevokedAt.IsZero() {
		if !got.RevokedAt.IsZero() {
			t.Errorf("key %s RevokedAt = %v, want zero: the key is live", want.ID, got.RevokedAt)
		}
	} else {
		checkTime(t, "key "+want.ID+" RevokedAt", got.RevokedAt, want.RevokedAt)
	}
	if got.ID != want.ID || got.Name != want.Name || got.Role != want.Role || got.RateLimit != want.RateLimit || got.Hash != want.Hash {
		t.Errorf("key = %+v, want %+v", got, want)
	}
}

// checkKeys fails the test unless got are want, in that order.
func checkKeys(t *testing.T, what string, got, want []stockade.APIKey) {
	t.Helper()
	ids := func(ks []stockade.APIKey) []string {
		var ids []string
		for _, k := range ks {
			ids = append(ids, k.ID)
		}
		return ids
	}
	if !equalSlices(ids(got), ids(want)) {
		t.Errorf("%s = %q, want %q", what, ids(got), ids(want))
		return
	}
	for i := range got {
		checkKey(t, got[i], want[i])
	}
}

func testKeys(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	ks := keyFixture()
	byID := map[string]stockade.APIKey{}
	for _, k := range ks {
		byID[k.ID] = k
	}
	update(t, s, func(tx stockade.Tx) error {
		for _, k := range ks {
			if err := tx.KeyInsert(ctx, k); err != nil {
				return fmt.Errorf("KeyInsert(%s): %w", k.ID, err)
			}
		}
		return nil
	})

	for _, write := range []bool{false, true} {
		txFor(write)(t, s, func(tx stockade.Tx) error {
			for _, want := range ks {
				got, err := tx.KeyGet(ctx, want.ID)
				if err != nil {
					return fmt.Errorf("Key(%s): %w", want.ID, err)
				}
				checkKey(t, got, want)
				got, ok, err := tx.KeyGetByName(ctx, want.Name)
				if err != nil || !ok {
					return fmt.Errorf("KeyGetByName(%s) = %v, %v", want.Name, ok, err)
				}
				checkKey(t, got, want)
			}
			_, err := tx.KeyGet(ctx, "key_nope")
			wantCode(t, "Key(unknown id)", err, stockade.ENotFound)
			if e, ok := errors.AsType[*stockade.Error](err); ok && e.Message != `api key "key_nope" not found` {
				t.Errorf("Key(unknown id) message = %q, want %q", e.Message, `api key "key_nope" not found`)
			}
			_, err = tx.KeyGet(ctx, "Key_a") // ids are compared byte for byte
			wantCode(t, "Key(Key_a)", err, stockade.ENotFound)
			for _, name := range []string{"nobody", "shop", "Admin", ""} {
				if k, ok, err := tx.KeyGetByName(ctx, name); err != nil || ok {
					t.Errorf("KeyGetByName(%q) = %+v, %v, %v; want nothing", name, k, ok, err)
				}
			}
			return nil
		})
	}

	pages := []struct {
		after string
		limit int
		want  []string
	}{
		{"", 10, []string{"key_C", "key_a", "key_b", "key_d"}},
		{"", 2, []string{"key_C", "key_a"}},
		{"key_a", 2, []string{"key_b", "key_d"}},
		{"key_C", 1, []string{"key_a"}},
		{"key_B", 10, []string{"key_C", "key_a", "key_b", "key_d"}},
		{"key_b", 10, []string{"key_d"}},
		{"key_d", 10, nil},
	}
	for _, p := range pages {
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.KeyList(ctx, p.after, p.limit)
			if err != nil {
				return err
			}
			var want []stockade.APIKey
			for _, id := range p.want {
				want = append(want, byID[id])
			}
			checkKeys(t, fmt.Sprintf("Keys(%q, %d)", p.after, p.limit), got, want)
			return nil
		})
	}

	// Revoking: a live key once, then never again; the time stays the
	// first one, and no other key changes.
	revokes := []struct {
		name string
		id   string
		at   time.Time
		ok   bool
	}{
		{"live key", "key_b", base.Add(2 * time.Hour), true},
		{"again", "key_b", base.Add(3 * time.Hour), false},
		{"revoked when inserted", "key_d", base.Add(2 * time.Hour), false},
		{"unknown id", "key_nope", base, false},
	}
	for _, r := range revokes {
		update(t, s, func(tx stockade.Tx) error {
			ok, err := tx.KeyRevoke(ctx, r.id, r.at)
			if err != nil {
				return fmt.Errorf("%s: RevokeKey(%s): %w", r.name, r.id, err)
			}
			if ok != r.ok {
				t.Errorf("%s: RevokeKey(%s) = %v, want %v", r.name, r.id, ok, r.ok)
			}
			return nil
		})
	}
	revoked := byID["key_b"]
	revoked.RevokedAt = base.Add(2 * time.Hour)
	byID["key_b"] = revoked
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.KeyGet(ctx, "key_b")
		if err != nil {
			return err
		}
		checkKey(t, got, revoked)
		if !got.Revoked() {
			t.Errorf("Key(key_b) after RevokeKey is not revoked: %+v", got)
		}
		got, ok, err := tx.KeyGetByName(ctx, "Shop")
		if err != nil || !ok {
			return fmt.Errorf("KeyGetByName(Shop) after RevokeKey = %v, %v", ok, err)
		}
		checkKey(t, got, revoked)
		all, err := tx.KeyList(ctx, "", 10)
		if err != nil {
			return err
		}
		checkKeys(t, "Keys after RevokeKey", all, []stockade.APIKey{byID["key_C"], byID["key_a"], byID["key_b"], byID["key_d"]})
		return nil
	})
}

// testKeyConflict checks that KeyInsert refuses an id or a name in use
// with an error wrapping stockade.ErrConflict, and writes nothing.
func testKeyConflict(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	ks := keyFixture()
	update(t, s, func(tx stockade.Tx) error { return tx.KeyInsert(ctx, ks[0]) })
	before := take(t, s, nil, nil, nil)

	tests := []struct {
		name string
		keys []stockade.APIKey // inserted in one transaction; the last is refused
	}{
		{"name in use", []stockade.APIKey{{ID: "key_other", Name: ks[0].Name, Role: stockade.RoleReader, Hash: "ab", CreatedAt: base}}},
		{"id in use", []stockade.APIKey{{ID: ks[0].ID, Name: "other", Role: stockade.RoleReader, Hash: "ab", CreatedAt: base}}},
		{"name used earlier in the transaction", []stockade.APIKey{
			{ID: "key_x", Name: "twice", Role: stockade.RoleReader, Hash: "ab", CreatedAt: base},
			{ID: "key_y", Name: "twice", Role: stockade.RoleAdmin, Hash: "cd", CreatedAt: base},
		}},
		{"id used earlier in the transaction", []stockade.APIKey{
			{ID: "key_x", Name: "first", Role: stockade.RoleReader, Hash: "ab", CreatedAt: base},
			{ID: "key_x", Name: "second", Role: stockade.RoleAdmin, Hash: "cd", CreatedAt: base},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var last error
			err := s.Update(ctx, func(tx stockade.Tx) error {
				for i, k := range tc.keys {
					last = tx.KeyInsert(ctx, k)
					if last != nil {
						if i != len(tc.keys)-1 {
							t.Fatalf("KeyInsert(%s, %s) failed before the duplicate: %v", k.ID, k.Name, last)
						}
						return last
					}
				}
				return nil
			})
			if err == nil {
				t.Fatalf("KeyInsert of a duplicate succeeded")
			}
			if !errors.Is(last, stockade.ErrConflict) {
				t.Errorf("KeyInsert of a duplicate = %v, want an error wrapping stockade.ErrConflict", last)
			}
			if after := take(t, s, nil, nil, nil); !equalSlices(after.Keys, before.Keys) {
				t.Errorf("a refused KeyInsert left changes: keys %+v, want %+v", after.Keys, before.Keys)
			}
		})
	}
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.KeyGet(ctx, ks[0].ID)
		if err != nil {
			return err
		}
		checkKey(t, got, ks[0])
		return nil
	})
}

// testInvalidKey checks that a role outside stockade.Roles or a negative
// rate limit is refused with EInvalid, writing nothing.
func testInvalidKey(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	tests := []struct {
		name string
		key  stockade.APIKey
	}{
		{"unknown role", stockade.APIKey{ID: "key_a", Name: "a", Role: "root", Hash: "ab", CreatedAt: base}},
		{"empty role", stockade.APIKey{ID: "key_a", Name: "a", Hash: "ab", CreatedAt: base}},
		{"negative rate limit", stockade.APIKey{ID: "key_a", Name: "a", Role: stockade.RoleReader, RateLimit: -1, Hash: "ab", CreatedAt: base}},
	}
	for _, tc := range tests {
		err := s.Update(ctx, func(tx stockade.Tx) error { return tx.KeyInsert(ctx, tc.key) })
		wantCode(t, "KeyInsert with "+tc.name, err, stockade.EInvalid)
	}
	view(t, s, func(tx stockade.Tx) error {
		ks, err := tx.KeyList(ctx, "", 10)
		if err != nil || len(ks) != 0 {
			t.Errorf("after refused inserts, Keys = %+v, %v; want none", ks, err)
		}
		return nil
	})
}
