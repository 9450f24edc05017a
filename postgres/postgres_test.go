package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

func TestMigrate(t *testing.T) {
	t.Parallel()
	t.Run("twice is a no-op", func(t *testing.T) {
		s, url := newStore(t)
		db := newPool(t, url)
		before := migrationRows(t, db)
		if err := s.Migrate(t.Context()); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		if after := migrationRows(t, db); !slices.Equal(before, after) {
			t.Fatalf("schema_migrations changed: %v, then %v", before, after)
		}
		if len(before) == 0 || before[0] != "1 0001_init.sql" {
			t.Fatalf("schema_migrations = %v, want 0001_init.sql first", before)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		url := newDatabase(t)
		const instances = 4
		stores := make([]*postgres.Store, instances)
		for i := range stores {
			stores[i] = openStore(t, url)
		}
		errs := make([]error, instances)
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Go(func() { errs[i] = s.Migrate(t.Context()) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("instance %d: %v", i, err)
			}
		}
		rows := migrationRows(t, newPool(t, url))
		if len(rows) == 0 || rows[0] != "1 0001_init.sql" {
			t.Fatalf("schema_migrations = %v", rows)
		}
		for _, s := range stores {
			seed(t, s, "w1", 5, "sku") // every instance can use the schema
		}
	})
}

// migrationRows lists schema_migrations as "version name".
func migrationRows(t *testing.T, db *pgxpool.Pool) []string {
	t.Helper()
	rows, _ := db.Query(t.Context(), `SELECT version || ' ' || name FROM schema_migrations ORDER BY version`)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConstraints checks that the schema itself holds the invariants,
// whatever writes to it.
func TestConstraints(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	seed(t, s, "w1", 10, "sku")
	update(t, s, func(tx stockade.Tx) error {
		return tx.MovementAppend(t.Context(), stockade.Movement{SKU: "sku", Location: "w1", Kind: stockade.MoveSet, Delta: stockade.Delta{OnHand: 10}})
	})
	db := newPool(t, url)
	for _, tc := range []struct {
		name, sql, code string
	}{
		{"available below zero", `UPDATE levels SET reserved = 6, committed = 5`, "23514"},
		{"on hand below zero", `UPDATE levels SET on_hand = -1`, "23514"},
		{"reserved below zero", `UPDATE levels SET reserved = -1`, "23514"},
		{"unknown location", `INSERT INTO levels (sku, location) VALUES ('sku', 'nowhere')`, "23503"},
		{"bad reservation status", `INSERT INTO reservations VALUES ('r', 'lost', now(), now(), '', '[]', '[]')`, "23514"},
		{"reservation without an owner", `INSERT INTO reservations (id, status, created_at, expires_at, lines, allocations, owner)
			VALUES ('r', 'held', now(), now(), '[]', '[]', NULL)`, "23502"},
		{"unknown api key role", `INSERT INTO api_keys (id, name, role, hash, created_at) VALUES ('k', 'k', 'root', '', now())`, "23514"},
		{"negative api key rate limit", `INSERT INTO api_keys (id, name, role, rate_limit, hash, created_at)
			VALUES ('k', 'k', 'reader', -1, '', now())`, "23514"},
		{"NaN api key rate limit", `INSERT INTO api_keys (id, name, role, rate_limit, hash, created_at)
			VALUES ('k', 'k', 'reader', 'NaN', '', now())`, "23514"},
		{"ledger update", `UPDATE movements SET on_hand = 11`, "23001"},
		{"ledger delete", `DELETE FROM movements`, "23001"},
		{"event payload not JSON", `INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
			VALUES ('e', 't', 'a', 'i', 1, now(), '{')`, "22P02"},
		{"event without a payload", `INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
			VALUES ('e', 't', 'a', 'i', 1, now(), NULL)`, "23502"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(t.Context(), tc.sql)
			if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != tc.code {
				t.Fatalf("got %v, want SQLSTATE %s", err, tc.code)
			}
		})
	}
}

// TestKeyOrder checks that levels come back in stockade.Key.Compare order
// (byte-wise) in a database whose collation sorts otherwise.
func TestKeyOrder(t *testing.T) {
	t.Parallel()
	srv := testkit.SharedPostgres(t)
	name := fmt.Sprintf("stockade_icu_%d", databases.Add(1))
	admin := newPool(t, srv.URL())
	_, err := admin.Exec(t.Context(), `CREATE DATABASE `+name+
		` TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`)
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(srv.URL(), "/postgres?", "/"+name+"?", 1)
	var natural bool
	if err := newPool(t, url).QueryRow(t.Context(), `SELECT 'a' < 'B'`).Scan(&natural); err != nil || !natural {
		t.Fatalf("the database sorts 'a' before 'B': %v, %v; want true", natural, err)
	}
	s := openStore(t, url)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	skus := []string{"b", "B", "a", "é", "A-1", "a_1", "Z"}
	seed(t, s, "x", 1, skus...)
	seed(t, s, "W", 1, skus...)
	var want []stockade.Key
	for _, sku := range skus {
		want = append(want, stockade.Key{SKU: sku, Location: "x"}, stockade.Key{SKU: sku, Location: "W"})
	}
	slices.SortFunc(want, stockade.Key.Compare)
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	update(t, s, func(tx stockade.Tx) error {
		for _, lock := range []bool{false, true} {
			ls, err := tx.LevelList(t.Context(), stockade.LevelQuery{Keys: reversed, Lock: lock})
			if err != nil {
				return err
			}
			if got := levelKeys(ls); !slices.Equal(got, want) {
				t.Errorf("Levels(lock=%v) = %v, want %v", lock, got, want)
			}
		}
		all, err := tx.LevelList(t.Context(), stockade.LevelQuery{All: true})
		if err != nil {
			return err
		}
		if got := levelKeys(all); !slices.Equal(got, want) {
			t.Errorf("LevelList = %v, want %v", got, want)
		}
		ls, err := tx.LevelList(t.Context(), stockade.LevelQuery{SKUs: []string{"b"}, Lock: true})
		if err != nil {
			return err
		}
		if got := levelKeys(ls); !slices.Equal(got, []stockade.Key{{SKU: "b", Location: "W"}, {SKU: "b", Location: "x"}}) {
			t.Errorf("LevelList = %v", got)
		}
		return nil
	})
}

func levelKeys(ls []stockade.Level) []stockade.Key {
	var ks []stockade.Key
	for _, l := range ls {
		ks = append(ks, l.Key())
	}
	return ks
}

// TestSetOnHand checks the compare-and-set and its refusals.
func TestSetOnHand(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seed(t, s, "w1", 0)
	k := stockade.Key{SKU: "sku", Location: "w1"}
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		steps := []struct {
			name     string
			onHand   int64
			expected *int64
			ok       bool
			version  int64
		}{
			{"create with expected version 1 refused", 5, ptr[int64](1), false, 0},
			{"create with expected version 0", 5, ptr[int64](0), true, 1},
			{"expected version 0 refused once it exists", 6, ptr[int64](0), false, 1},
			{"stale version refused", 6, ptr[int64](7), false, 1},
			{"matching version", 6, ptr[int64](1), true, 2},
			{"any version", 8, nil, true, 3},
		}
		for _, st := range steps {
			l, ok, err := tx.LevelSetOnHand(ctx, k, st.onHand, st.expected)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok || l.Version != st.version {
				t.Errorf("%s: ok %v version %d, want %v %d (level %+v)", st.name, ok, l.Version, st.ok, st.version, l)
			}
		}
		if _, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 3, Committed: 2}, stockade.Guard{}); err != nil || !ok {
			return fmt.Errorf("reserve: %v %v", ok, err)
		}
		// Below reserved + committed: refused, and the transaction goes on.
		_, ok, err := tx.LevelSetOnHand(ctx, k, 4, nil)
		if ok || stockade.ErrorCode(err) != stockade.EInsufficientStock {
			t.Errorf("on hand below reserved+committed: ok %v err %v", ok, err)
		}
		_, _, err = tx.LevelSetOnHand(ctx, stockade.Key{SKU: "sku", Location: "nowhere"}, 1, nil)
		if stockade.ErrorCode(err) != stockade.ENotFound || stockade.ErrorMessage(err) != `location "nowhere" not found` {
			t.Errorf("unknown location: %v", err)
		}
		if _, _, err := tx.LevelSetOnHand(ctx, k, -1, nil); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("negative on hand: %v", err)
		}
		l, ok, err := tx.LevelSetOnHand(ctx, k, 5, ptr[int64](4))
		if err != nil || !ok || l != (stockade.Level{SKU: "sku", Location: "w1", OnHand: 5, Reserved: 3, Committed: 2, Version: 5}) {
			t.Errorf("after refusals: %+v %v %v", l, ok, err)
		}
		return nil
	})
}

func TestUpdateLevel(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seed(t, s, "w1", 10, "sku")
	k := stockade.Key{SKU: "sku", Location: "w1"}
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		steps := []struct {
			name  string
			d     stockade.Delta
			guard stockade.Guard
			ok    bool
		}{
			{"reserve", stockade.Delta{Reserved: 4}, stockade.Guard{}, true},
			{"over-reserve", stockade.Delta{Reserved: 7}, stockade.Guard{}, false},
			{"reserved below zero", stockade.Delta{Reserved: -5}, stockade.Guard{}, false},
			{"stale version", stockade.Delta{Reserved: 1}, stockade.Guard{Version: ptr[int64](1)}, false},
			{"matching version", stockade.Delta{Reserved: -4, Committed: 4}, stockade.Guard{Version: ptr[int64](2)}, true},
			{"fence", stockade.Delta{}, stockade.Guard{Fence: 10}, true},
			{"stale fence", stockade.Delta{OnHand: 1}, stockade.Guard{Fence: 9}, false},
			{"no fence", stockade.Delta{OnHand: 1}, stockade.Guard{}, true},
			{"on hand below committed", stockade.Delta{OnHand: -8}, stockade.Guard{}, false},
			{"fulfil", stockade.Delta{OnHand: -4, Committed: -4}, stockade.Guard{Fence: 10}, true},
		}
		for _, st := range steps {
			_, ok, err := tx.LevelUpdate(ctx, k, st.d, st.guard)
			if err != nil {
				return fmt.Errorf("%s: %w", st.name, err)
			}
			if ok != st.ok {
				t.Errorf("%s: ok = %v", st.name, ok)
			}
		}
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
		if err != nil {
			return err
		}
		want := stockade.Level{SKU: "sku", Location: "w1", OnHand: 7, Version: 6, Fence: 10}
		if len(ls) != 1 || ls[0] != want {
			t.Errorf("level = %+v, want %+v", ls, want)
		}
		if _, ok, err := tx.LevelUpdate(ctx, stockade.Key{SKU: "none", Location: "w1"}, stockade.Delta{OnHand: 1}, stockade.Guard{}); ok || err != nil {
			t.Errorf("missing level: %v %v", ok, err)
		}
		if _, _, err := tx.LevelUpdate(ctx, k, stockade.Delta{}, stockade.Guard{Fence: math.MaxInt64 + 1}); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("fence above 2^63-1: %v", err)
		}
		return nil
	})
}

// TestRoundTrip checks that what goes in comes out: the ledger, its sums,
// reservations, orders and idempotency records, times in UTC.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := t.Context()
	at := time.Date(2030, 1, 2, 3, 4, 5, 123456000, time.FixedZone("X", 3600))
	update(t, s, func(tx stockade.Tx) error {
		for _, l := range []stockade.Location{{ID: "w2", Name: "Two", Point: &stockade.Point{Lat: 1.5, Lon: -2}}, {ID: "w1", Name: "One"}, {ID: "w3", Name: "Drop-shipper"}} {
			if err := tx.LocationPut(ctx, l); err != nil {
				return err
			}
		}
		if err := tx.LocationPut(ctx, stockade.Location{ID: "w1", Name: "Uno", Point: &stockade.Point{Lat: 3}}); err != nil {
			return err
		}
		locs, err := tx.LocationList(ctx)
		if err != nil {
			return err
		}
		if want := []stockade.Location{{ID: "w1", Name: "Uno", Point: &stockade.Point{Lat: 3}}, {ID: "w2", Name: "Two", Point: &stockade.Point{Lat: 1.5, Lon: -2}}, {ID: "w3", Name: "Drop-shipper"}}; !reflect.DeepEqual(locs, want) {
			t.Errorf("Locations() = %v", locs)
		}
		if locs, err := tx.LocationList(ctx, "w2", "nope"); err != nil || len(locs) != 1 || locs[0].ID != "w2" {
			t.Errorf("Locations(w2, nope) = %v %v", locs, err)
		}

		ms := []stockade.Movement{
			{At: at, SKU: "a", Location: "w1", Kind: stockade.MoveSet, Delta: stockade.Delta{OnHand: 5}, Reason: "count"},
			{At: at, SKU: "a", Location: "w1", Kind: stockade.MoveReserve, Delta: stockade.Delta{Reserved: 2}, Ref: "r1"},
			{SKU: "b", Location: "w2", Kind: stockade.MoveAdjust, Delta: stockade.Delta{OnHand: 3}},
			{At: at, SKU: "a", Location: "w1", Kind: stockade.MoveConfirm, Delta: stockade.Delta{Reserved: -2, Committed: 2}, Ref: "r1"},
		}
		if err := tx.MovementAppend(ctx, ms...); err != nil {
			return err
		}
		all, err := tx.MovementList(ctx, stockade.MovementFilter{})
		if err != nil {
			return err
		}
		if len(all) != 4 {
			t.Fatalf("Movements = %v", all)
		}
		for i, m := range all {
			want := ms[i]
			want.ID = all[0].ID + int64(i)
			if want.At.IsZero() {
				want.At = m.At // the transaction's start
			}
			want.At = want.At.UTC()
			if m != want {
				t.Errorf("movement %d = %+v, want %+v", i, m, want)
			}
		}
		for _, tc := range []struct {
			f    stockade.MovementFilter
			want []int
		}{
			{stockade.MovementFilter{SKU: "a"}, []int{0, 1, 3}},
			{stockade.MovementFilter{SKU: "a", Location: "w2"}, nil},
			{stockade.MovementFilter{Location: "w2"}, []int{2}},
			{stockade.MovementFilter{Ref: "r1"}, []int{1, 3}},
			{stockade.MovementFilter{AfterID: all[1].ID}, []int{2, 3}},
			{stockade.MovementFilter{SKU: "a", Limit: 2}, []int{0, 1}},
		} {
			got, err := tx.MovementList(ctx, tc.f)
			if err != nil {
				return err
			}
			var idx []int
			for _, m := range got {
				idx = append(idx, int(m.ID-all[0].ID))
			}
			if !slices.Equal(idx, tc.want) {
				t.Errorf("Movements(%+v) = %v, want %v", tc.f, idx, tc.want)
			}
		}
		sums, err := tx.MovementSums(ctx)
		if err != nil {
			return err
		}
		if len(sums) != 2 || sums[stockade.Key{SKU: "a", Location: "w1"}] != (stockade.Delta{OnHand: 5, Committed: 2}) ||
			sums[stockade.Key{SKU: "b", Location: "w2"}] != (stockade.Delta{OnHand: 3}) {
			t.Errorf("MovementSums = %v", sums)
		}

		r := stockade.Reservation{
			ID: "r1", Status: stockade.Held, CreatedAt: at, ExpiresAt: at.Add(15 * time.Minute),
			Lines:       []stockade.Line{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 1, Location: "w2"}},
			Allocations: []stockade.Allocation{{SKU: "a", Location: "w1", Quantity: 2}, {SKU: "b", Location: "w2", Quantity: 1}},
		}
		if err := tx.ReservationInsert(ctx, r); err != nil {
			return err
		}
		got, err := tx.ReservationGet(ctx, stockade.ByID{ID: "r1", Lock: true})
		if err != nil {
			return err
		}
		want := r
		want.CreatedAt, want.ExpiresAt = at.UTC(), want.ExpiresAt.UTC()
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("Reservation = %#v\nwant %#v", got, want)
		}
		if ok, err := tx.ReservationSetStatus(ctx, "r1", stockade.Released, stockade.Expired, ""); ok || err != nil {
			t.Errorf("ReservationSetStatus from the wrong status: %v %v", ok, err)
		}
		if ok, err := tx.ReservationSetStatus(ctx, "r1", stockade.Held, stockade.Confirmed, "o1"); !ok || err != nil {
			t.Errorf("ReservationSetStatus: %v %v", ok, err)
		}
		if got, err := tx.ReservationGet(ctx, stockade.ByID{ID: "r1"}); err != nil || got.Status != stockade.Confirmed || got.OrderID != "o1" {
			t.Errorf("after confirm: %+v %v", got, err)
		}
		if _, err := tx.ReservationGet(ctx, stockade.ByID{ID: "r2"}); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("missing reservation: %v", err)
		}

		o := stockade.Order{ID: "o1", Status: stockade.Committed, CreatedAt: at, Lines: r.Lines, Allocations: r.Allocations, ReservationID: "r1"}
		if err := tx.OrderInsert(ctx, o); err != nil {
			return err
		}
		if ok, err := tx.OrderSetStatus(ctx, "o1", stockade.Committed, stockade.Fulfilled); !ok || err != nil {
			t.Errorf("OrderSetStatus: %v %v", ok, err)
		}
		gotO, err := tx.OrderGet(ctx, stockade.ByID{ID: "o1", Lock: true})
		if err != nil {
			return err
		}
		o.Status, o.CreatedAt, o.Version = stockade.Fulfilled, at.UTC(), 2
		if fmt.Sprintf("%#v", gotO) != fmt.Sprintf("%#v", o) {
			t.Errorf("Order = %#v\nwant %#v", gotO, o)
		}
		if _, err := tx.OrderGet(ctx, stockade.ByID{ID: "o2"}); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("missing order: %v", err)
		}

		recs := []stockade.IdempotencyRecord{
			{Key: "k1", Op: "reserve", Fingerprint: "h1", Result: []byte(`{}`), CreatedAt: at},
			{Key: "k2", Op: "confirm", Fingerprint: "h2", Result: []byte(`[]`), CreatedAt: at.Add(time.Hour)},
			{Key: "k1", Op: "checkout", Fingerprint: "h1", Result: []byte(`{"id":"o1"}`), CreatedAt: at},
		}
		for _, rec := range recs {
			if err := tx.IdempotencyPut(ctx, rec); err != nil {
				return err
			}
		}
		for _, want := range recs[1:] {
			got, ok, err := idempotencyRecord(ctx, tx, want.Key)
			want.CreatedAt = want.CreatedAt.UTC()
			if err != nil || !ok || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Errorf("Idempotency(%s) = %#v %v %v, want %#v", want.Key, got, ok, err, want)
			}
		}
		if n, err := tx.IdempotencyPurge(ctx, at.Add(2*time.Hour)); n != 2 || err != nil {
			t.Errorf("IdempotencyPurge = %d %v, want 2", n, err)
		}
		for _, key := range []string{"k1", "k2"} {
			if _, ok, err := idempotencyRecord(ctx, tx, key); ok || err != nil {
				t.Errorf("Idempotency(%s) after purge: %v %v", key, ok, err)
			}
		}
		return nil
	})
	// Reads in View, too.
	err := s.View(ctx, func(tx stockade.Tx) error {
		if _, ok, err := idempotencyRecord(ctx, tx, "k1"); ok || err != nil {
			return fmt.Errorf("Idempotency in View: %v %v", ok, err)
		}
		_, err := tx.ReservationGet(ctx, stockade.ByID{ID: "r1"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRowLockBlocks checks that LevelList with Lock holds a second
// transaction until the first commits, which then reads the first's write.
func TestRowLockBlocks(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	seed(t, s, "w1", 10, "sku")
	seed(t, s, "w2", 10, "sku")
	k := stockade.Key{SKU: "sku", Location: "w2"}

	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, err := tx.LevelList(t.Context(), stockade.LevelQuery{SKUs: []string{"sku"}, Lock: true}); err != nil {
				return err
			}
			close(locked)
			<-release
			_, _, err := tx.LevelUpdate(t.Context(), k, stockade.Delta{Reserved: 7}, stockade.Guard{})
			return err
		})
	}()
	<-locked
	second := make(chan []stockade.Level, 1)
	go func() {
		var ls []stockade.Level
		err := s.Update(t.Context(), func(tx stockade.Tx) error {
			var err error
			ls, err = tx.LevelList(t.Context(), stockade.LevelQuery{SKUs: []string{"sku"}, Lock: true})
			return err
		})
		if err != nil {
			t.Error(err)
		}
		second <- ls
	}()
	eventually(t, "the second transaction to wait for the row lock", func() bool { return lockWaiters(t, db) == 1 })
	select {
	case <-second:
		t.Fatal("second transaction got the rows while the first held them")
	default:
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	ls := <-second
	if len(ls) != 2 || ls[1].Reserved != 7 {
		t.Fatalf("second transaction read %+v, want the first's write", ls)
	}
}

// TestReservationLapseCandidatesSkipLocked checks that two sweepers at once take
// disjoint sets, oldest expiry first, and that the second does not wait,
// and that a request (with keys) does not wait either: it reads the holds
// a sweeper has locked as they were committed, locking none.
func TestReservationLapseCandidatesSkipLocked(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	const n = 10
	update(t, s, func(tx stockade.Tx) error {
		for i := range n + 2 {
			r := stockade.Reservation{
				ID: fmt.Sprintf("r%02d", i), Status: stockade.Held, CreatedAt: now.Add(-time.Hour),
				ExpiresAt:   now.Add(time.Duration(i-n) * time.Minute), // r10 expires now, r11 later
				Lines:       []stockade.Line{{SKU: "sku", Quantity: 1}},
				Allocations: []stockade.Allocation{{SKU: "sku", Location: fmt.Sprintf("w%d", i%2), Quantity: 1}},
			}
			if err := tx.ReservationInsert(t.Context(), r); err != nil {
				return err
			}
		}
		_, err := tx.ReservationSetStatus(t.Context(), "r01", stockade.Held, stockade.Released, "")
		return err
	})

	ids := func(cs []stockade.ReservationLapseCandidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Reservation.ID)
		}
		return out
	}
	held, release := make(chan []string, 1), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(t.Context(), func(tx stockade.Tx) error {
			rs, err := tx.ReservationLapseCandidates(t.Context(), stockade.ReservationLapseQuery{ExpiredBefore: now, Limit: 4})
			held <- ids(rs)
			if err != nil {
				return err
			}
			<-release
			// It expires one of them; the others it leaves held.
			_, err = tx.ReservationSetStatus(t.Context(), "r00", stockade.Held, stockade.Expired, "")
			return err
		})
	}()
	a := <-held
	if want := []string{"r00", "r02", "r03", "r04"}; !slices.Equal(a, want) {
		t.Fatalf("first sweeper took %v, want %v", a, want)
	}
	var b, c []string
	update(t, s, func(tx stockade.Tx) error {
		rs, err := tx.ReservationLapseCandidates(t.Context(), stockade.ReservationLapseQuery{ExpiredBefore: now, Limit: 100})
		b = ids(rs)
		return err
	})
	if want := []string{"r05", "r06", "r07", "r08", "r09"}; !slices.Equal(b, want) {
		t.Fatalf("second sweeper took %v, want %v", b, want)
	}
	// With keys (a request that needs the stock) it reads the holds on
	// its keys (w0: even numbers) while the first sweeper has them locked,
	// without waiting: the engine locks those that lapse, and checks them
	// again once it has them.
	update(t, s, func(tx stockade.Tx) error {
		rs, err := tx.ReservationLapseCandidates(t.Context(), stockade.ReservationLapseQuery{ExpiredBefore: now,
			Keys: []stockade.Key{{SKU: "sku", Location: "w0"}, {SKU: "other", Location: "w1"}}, Limit: 2})
		c = ids(rs)
		return err
	})
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if want := []string{"r00", "r02"}; !slices.Equal(c, want) {
		t.Fatalf("request by key took %v, want %v", c, want)
	}
}

// TestAdvisoryLockSerializes checks that a second transaction locking a key
// waits for the first, and that one on another key does not.
func TestAdvisoryLockSerializes(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	a, b, c := stockade.Key{SKU: "a", Location: "w"}, stockade.Key{SKU: "b", Location: "w"}, stockade.Key{SKU: "c", Location: "w"}

	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	var inFirst atomic.Bool
	go func() {
		first <- s.Update(t.Context(), func(tx stockade.Tx) error {
			if err := tx.AdvisoryLock(t.Context(), []stockade.Key{b, a, a}); err != nil {
				return err
			}
			inFirst.Store(true)
			close(locked)
			<-release
			inFirst.Store(false)
			return nil
		})
	}()
	<-locked
	update(t, s, func(tx stockade.Tx) error { return tx.AdvisoryLock(t.Context(), []stockade.Key{c}) })

	second := make(chan error, 1)
	go func() {
		second <- s.Update(t.Context(), func(tx stockade.Tx) error {
			if err := tx.AdvisoryLock(t.Context(), []stockade.Key{c, b}); err != nil {
				return err
			}
			if inFirst.Load() {
				return errors.New("got the lock while the first transaction held it")
			}
			return nil
		})
	}()
	eventually(t, "the second transaction to wait for the advisory lock", func() bool { return lockWaiters(t, db) == 1 })
	var granted int
	err := db.QueryRow(t.Context(), `
		SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 1
		  AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid`,
		postgres.LockID(a)).Scan(&granted)
	if err != nil || granted != 1 {
		t.Fatalf("pg_locks shows LockID(a) granted %d times (%v), want 1", granted, err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
}

// TestDeadlockIsConflict locks two levels in opposite orders from two
// transactions: PostgreSQL breaks the cycle by failing one with 40P01,
// which must wrap stockade.ErrConflict; the other commits.
func TestDeadlockIsConflict(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seed(t, s, "w1", 10, "a", "b")
	a, b := stockade.Key{SKU: "a", Location: "w1"}, stockade.Key{SKU: "b", Location: "w1"}

	var ready sync.WaitGroup
	ready.Add(2)
	run := func(first, second stockade.Key) error {
		return s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, err := tx.LevelList(t.Context(), stockade.LevelQuery{Keys: []stockade.Key{first}, Lock: true}); err != nil {
				return err
			}
			ready.Done()
			ready.Wait()
			_, _, err := tx.LevelUpdate(t.Context(), second, stockade.Delta{OnHand: 1}, stockade.Guard{})
			return err
		})
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = run(a, b) })
	wg.Go(func() { errs[1] = run(b, a) })
	wg.Wait()

	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("errors %v, want exactly one", errs)
	}
	err := failed[0]
	if !errors.Is(err, stockade.ErrConflict) {
		t.Errorf("%v does not wrap ErrConflict", err)
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != "40P01" {
		t.Errorf("%v: want a *pgconn.PgError with SQLSTATE 40P01", err)
	}
	if stockade.ErrorCode(err) != stockade.EInternal {
		t.Errorf("code %s, want none (internal): the engine retries conflicts", stockade.ErrorCode(err))
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seed(t, s, "w1", 10, "sku")
	res := stockade.Reservation{ID: "r1", Status: stockade.Held, Lines: []stockade.Line{}, Allocations: []stockade.Allocation{}}
	update(t, s, func(tx stockade.Tx) error { return tx.ReservationInsert(t.Context(), res) })

	t.Run("duplicate key is a conflict", func(t *testing.T) {
		err := s.Update(t.Context(), func(tx stockade.Tx) error { return tx.ReservationInsert(t.Context(), res) })
		if !errors.Is(err, stockade.ErrConflict) {
			t.Errorf("%v does not wrap ErrConflict", err)
		}
		if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != "23505" {
			t.Errorf("%v: want SQLSTATE 23505", err)
		}
	})
	t.Run("check violation explains itself", func(t *testing.T) {
		err := s.Update(t.Context(), func(tx stockade.Tx) error {
			_, err := tx.ReservationSetStatus(t.Context(), "r1", stockade.Held, "lost", "")
			return err
		})
		if stockade.ErrorCode(err) != stockade.EInvalid || stockade.ErrorMessage(err) != "invalid reservation status" {
			t.Errorf("got %v", err)
		}
		if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != "23514" {
			t.Errorf("%v: want SQLSTATE 23514", err)
		}
	})
	t.Run("other errors name the call", func(t *testing.T) {
		err := s.View(t.Context(), func(tx stockade.Tx) error {
			return tx.LocationPut(t.Context(), stockade.Location{ID: "w9"})
		})
		if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != "25006" {
			t.Errorf("write in View: %v, want SQLSTATE 25006 (read-only transaction)", err)
		}
		if want := `postgres: put location "w9": `; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("message %q, want it to start with %q", err, want)
		}
	})
	t.Run("a swallowed failure still fails and rolls back", func(t *testing.T) {
		k := stockade.Key{SKU: "sku", Location: "w1"}
		err := s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, _, err := tx.LevelUpdate(t.Context(), k, stockade.Delta{OnHand: 5}, stockade.Guard{}); err != nil {
				return err
			}
			_ = tx.ReservationInsert(t.Context(), res) // fails, and aborts the transaction
			return nil
		})
		if !errors.Is(err, stockade.ErrConflict) {
			t.Errorf("Update returned %v, want the swallowed conflict", err)
		}
		assertOnHand(t, s, k, 10)
	})
	t.Run("fn's error rolls back", func(t *testing.T) {
		k := stockade.Key{SKU: "sku", Location: "w1"}
		boom := errors.New("boom")
		err := s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, _, err := tx.LevelUpdate(t.Context(), k, stockade.Delta{OnHand: 5}, stockade.Guard{}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("Update returned %v, want fn's error", err)
		}
		assertOnHand(t, s, k, 10)
	})
	t.Run("panic rolls back", func(t *testing.T) {
		k := stockade.Key{SKU: "sku", Location: "w1"}
		func() {
			defer func() { _ = recover() }()
			s.Update(t.Context(), func(tx stockade.Tx) error {
				tx.LevelUpdate(t.Context(), k, stockade.Delta{OnHand: 5}, stockade.Guard{})
				panic("boom")
			})
		}()
		assertOnHand(t, s, k, 10)
		// The connection went back to the pool clean.
		update(t, s, func(tx stockade.Tx) error {
			_, err := tx.LevelList(t.Context(), stockade.LevelQuery{All: true})
			return err
		})
	})
}

func assertOnHand(t *testing.T, s stockade.Store, k stockade.Key, want int64) {
	t.Helper()
	err := s.View(t.Context(), func(tx stockade.Tx) error {
		ls, err := tx.LevelList(t.Context(), stockade.LevelQuery{Keys: []stockade.Key{k}})
		if err != nil {
			return err
		}
		if len(ls) != 1 || ls[0].OnHand != want {
			t.Errorf("level %v = %+v, want on hand %d", k, ls, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestViewSnapshot checks that a View reads one snapshot: a commit made
// between two of its reads is not seen by the second.
func TestViewSnapshot(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	seed(t, s, "w1", 10, "sku")
	k := stockade.Key{SKU: "sku", Location: "w1"}
	err := s.View(t.Context(), func(tx stockade.Tx) error {
		before, err := tx.LevelList(t.Context(), stockade.LevelQuery{All: true})
		if err != nil {
			return err
		}
		update(t, s, func(tx stockade.Tx) error {
			if _, _, err := tx.LevelUpdate(t.Context(), k, stockade.Delta{OnHand: 1}, stockade.Guard{}); err != nil {
				return err
			}
			return tx.MovementAppend(t.Context(), stockade.Movement{SKU: "sku", Location: "w1", Kind: stockade.MoveAdjust, Delta: stockade.Delta{OnHand: 1}})
		})
		after, err := tx.LevelList(t.Context(), stockade.LevelQuery{All: true})
		if err != nil {
			return err
		}
		sums, err := tx.MovementSums(t.Context())
		if err != nil {
			return err
		}
		if !slices.Equal(before, after) || len(sums) != 0 {
			t.Errorf("View saw a later commit: %+v, then %+v and ledger %v", before, after, sums)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	assertOnHand(t, s, k, 11)
}

// TestIdempotencyClaim checks that of transactions that each read a key
// and write it if it is free, exactly one writes it.
func TestIdempotencyClaim(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	const n = 8
	var claimed atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := s.Update(t.Context(), func(tx stockade.Tx) error {
				if _, ok, err := idempotencyRecord(t.Context(), tx, "key"); err != nil || ok {
					return err
				}
				time.Sleep(20 * time.Millisecond) // widen the window between read and claim
				rec := stockade.IdempotencyRecord{Key: "key", Op: "reserve", Fingerprint: fmt.Sprint(i), Result: []byte("{}"), CreatedAt: time.Now()}
				if err := tx.IdempotencyPut(t.Context(), rec); err != nil {
					return err
				}
				claimed.Add(1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := claimed.Load(); got != 1 {
		t.Fatalf("%d transactions claimed the key, want 1", got)
	}
}

// TestCancelWhileWaiting checks that a transaction whose context ends while
// it waits for a row lock returns the context's error and leaves the
// server's lock queue at once, though the holder still holds the lock, and
// that its connection survives: the wait is cancelled, not cut.
func TestCancelWhileWaiting(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	db := newPool(t, url)
	seed(t, s, "w1", 10, "sku")
	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, err := tx.LevelList(t.Context(), stockade.LevelQuery{SKUs: []string{"sku"}, Lock: true}); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error, 1)
	go func() {
		second <- s.Update(ctx, func(tx stockade.Tx) error {
			_, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{"sku"}, Lock: true})
			return err
		})
	}()
	eventually(t, "the second transaction to wait", func() bool { return lockWaiters(t, db) == 1 })
	var pid int32
	err := db.QueryRow(t.Context(), `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if n := lockWaiters(t, db); n != 0 {
		t.Errorf("%d backends still wait for the lock", n)
	}
	var state string
	err = db.QueryRow(t.Context(), `SELECT state FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&state)
	if err != nil || state != "idle" {
		t.Errorf("the cancelled transaction's backend: state %q, %v; want idle, its connection back in the pool", state, err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestServerRestart checks that the pool gets over a restart of the
// server: Ping and transactions work again.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	srv := testkit.NewPostgres(t)
	s := openStore(t, createDatabase(t, srv))
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	seed(t, s, "w1", 10, "sku")
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	// Connections idle in the pool died with the server; the pool finds
	// out as it hands them out, so the first calls may fail.
	eventually(t, "Ping to succeed after the restart", func() bool { return s.Ping(t.Context()) == nil })
	eventually(t, "a transaction to succeed after the restart", func() bool {
		return s.Update(t.Context(), func(tx stockade.Tx) error {
			_, _, err := tx.LevelUpdate(t.Context(), stockade.Key{SKU: "sku", Location: "w1"}, stockade.Delta{OnHand: 1}, stockade.Guard{})
			return err
		}) == nil
	})
	assertOnHand(t, s, stockade.Key{SKU: "sku", Location: "w1"}, 11)
}

func TestOpenFails(t *testing.T) {
	t.Parallel()
	if _, err := postgres.Open(t.Context(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=5", nil); err == nil {
		t.Fatal("Open succeeded with no server")
	}
	if _, err := postgres.Open(t.Context(), "postgres://%zz", nil); err == nil {
		t.Fatal("Open succeeded with a malformed URL")
	}
}

// TestIdleInTransactionFreesRows: a transaction whose client sends nothing
// more (a process paused, frozen or cut off in the middle of it; here, one
// that waits) is ended by the server after Options.IdleInTransaction,
// without the client's help: another transaction gets its row lock, and
// the stopped one, when its client runs again, commits nothing.
func TestIdleInTransactionFreesRows(t *testing.T) {
	t.Parallel()
	const idle, stopped = 500 * time.Millisecond, 3 * time.Second
	url := teststore.PostgresURL(t)
	s, err := postgres.Open(t.Context(), url, &postgres.Options{IdleInTransaction: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	seed(t, s, "w1", 10, "sku")
	k := stockade.Key{SKU: "sku", Location: "w1"}

	locked := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(t.Context(), func(tx stockade.Tx) error {
			if _, _, err := tx.LevelUpdate(t.Context(), k, stockade.Delta{Reserved: 3}, stockade.Guard{}); err != nil {
				return err
			}
			close(locked)
			time.Sleep(stopped) // nothing sent: stopped, as the server sees it
			return nil
		})
	}()
	<-locked
	start := time.Now()
	var ls []stockade.Level
	err = s.Update(t.Context(), func(tx stockade.Tx) (err error) {
		ls, err = tx.LevelList(t.Context(), stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true})
		return err
	})
	waited := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the row was free %v after the first transaction's last statement (IdleInTransaction %v)", waited, idle)
	if waited >= stopped-time.Second {
		t.Errorf("the row stayed locked %v, as long as its transaction's client was stopped; the server should end that transaction after %v", waited, idle)
	}
	if len(ls) != 1 || ls[0].Reserved != 0 {
		t.Errorf("level %+v, want it with nothing reserved", ls)
	}
	if err := <-first; err == nil {
		t.Error("the stopped transaction committed after the server ended it")
	}
}
