package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/sqlite"
	"github.com/stockade/stockade/storetest"
)

// open opens the store at path and closes it when the test ends.
func open(t *testing.T, path string, opts *sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newStore returns a migrated store in a new file, a copy of one
// migrated once.
func newStore(t *testing.T) *sqlite.Store {
	t.Helper()
	return open(t, teststore.SQLitePath(t), nil)
}

// raw opens a plain connection to the file at path, as the sqlite3 shell
// would.
func raw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) stockade.Store { return newStore(t) })
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	db := raw(t, s.Path())
	schema := func() []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT type || ' ' || name FROM sqlite_schema ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var objs []string
		for rows.Next() {
			var o string
			if err := rows.Scan(&o); err != nil {
				t.Fatal(err)
			}
			objs = append(objs, o)
		}
		return objs
	}
	before := schema()
	for _, want := range []string{"table levels", "table movements", "table reservations", "table reservation_allocations",
		"table orders", "table idempotency", "table schema_migrations", "index reservations_held_expiry",
		"table api_keys", "index reservations_owner_created", "index orders_created", "table events",
		"index events_aggregate_id", "table relay_checkpoints", "table shows", "table seats", "index seats_order",
		"table areas", "table holds", "index holds_held_expiry", "table bookings", "index bookings_hold", "table seat_history",
		"table seat_epochs", "table payments", "index payments_stuck", "table payment_changes",
		"index payment_changes_payment", "table payment_inbox", "index payment_inbox_received", "table seat_epoch_changes", "index holds_show_held_expiry",
		"table rooms", "index rooms_status", "table room_targets", "index room_targets_room", "table room_visitors",
		"index room_visitors_position", "index room_visitors_draw", "index room_visitors_admitted"} {
		if !strings.Contains(strings.Join(before, "\n"), want) {
			t.Errorf("schema lacks %s: %q", want, before)
		}
	}
	if slices.Contains(before, "index payments_in_flight") {
		t.Errorf("schema keeps index payments_in_flight, which 0010 drops: %q", before)
	}

	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if after := schema(); !reflect.DeepEqual(after, before) {
		t.Errorf("second Migrate changed the schema:\n%q\n%q", before, after)
	}
	rows, err := db.QueryContext(ctx, `SELECT version, name, applied_at FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var recs []string
	for rows.Next() {
		var v, at int64
		var name string
		if err := rows.Scan(&v, &name, &at); err != nil {
			t.Fatal(err)
		}
		if age := time.Since(time.UnixMicro(at)); age < 0 || age > time.Hour {
			t.Errorf("migration %d applied at %v", v, time.UnixMicro(at))
		}
		recs = append(recs, fmt.Sprintf("%d %s", v, name))
	}
	if want := []string{"1 0001_init.sql", "2 0002_idempotency_results.sql", "3 0003_access.sql", "4 0004_events.sql", "5 0005_relay.sql",
		"6 0006_bookings.sql", "7 0007_seat_epochs.sql", "8 0008_payments.sql", "9 0009_order_versions.sql",
		"10 0010_drop_payments_in_flight.sql", "11 0011_unplaced_locations.sql", "12 0012_hold_booking_lists.sql", "13 0013_show_list.sql", "14 0014_location_stock.sql", "15 0015_metadata.sql", "16 0016_hold_metadata.sql", "17 0017_payment_metadata.sql", "18 0018_webhooks.sql", "19 0019_shipments.sql", "20 0020_seat_epoch_changes.sql", "21 0021_holds_show_held_expiry.sql", "22 0022_rooms.sql"}; !reflect.DeepEqual(recs, want) {
		t.Errorf("schema_migrations = %q, want %q", recs, want)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if _, err := raw(t, s.Path()).ExecContext(t.Context(),
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	err := s.Migrate(t.Context())
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Migrate on a newer schema = %v, want a refusal", err)
	}
}

// TestConstraints checks that the schema itself refuses what the store's
// statements never attempt, so that a bug or a hand-edit cannot oversell.
func TestConstraints(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	k := stockade.Key{SKU: "sku", Location: "w1"}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "w1"}); err != nil {
			return err
		}
		if _, _, err := tx.LevelSetOnHand(ctx, k, 10, nil); err != nil {
			return err
		}
		if _, _, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 4}, stockade.Guard{}); err != nil {
			return err
		}
		return tx.MovementAppend(ctx, stockade.Movement{SKU: k.SKU, Location: k.Location, Kind: stockade.MoveSet})
	})
	if err != nil {
		t.Fatal(err)
	}
	db := raw(t, s.Path())
	if _, err := db.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sql string
	}{
		{"available below zero", `UPDATE levels SET reserved = 7, committed = 4`},
		{"on hand below zero", `UPDATE levels SET on_hand = -1, reserved = 0`},
		{"reserved below zero", `UPDATE levels SET reserved = -1`},
		{"committed below zero", `UPDATE levels SET committed = -1`},
		{"level at an unknown location", `INSERT INTO levels (sku, location, on_hand) VALUES ('sku', 'nowhere', 1)`},
		{"movements are append-only: update", `UPDATE movements SET on_hand = 100`},
		{"movements are append-only: delete", `DELETE FROM movements`},
		{"unknown reservation status", `INSERT INTO reservations (id, status, created_at, expires_at, lines, allocations)
			VALUES ('r', 'lost', 0, 0, '[]', '[]')`},
		{"unknown order status", `INSERT INTO orders (id, status, created_at, lines, allocations) VALUES ('o', 'lost', 0, '[]', '[]')`},
		{"reservation without an owner", `INSERT INTO reservations (id, status, created_at, expires_at, lines, allocations, owner)
			VALUES ('r', 'held', 0, 0, '[]', '[]', NULL)`},
		{"movement without an actor", `INSERT INTO movements (at, sku, location, kind, on_hand, reserved, committed, actor)
			VALUES (0, 'sku', 'w1', 'set', 0, 0, 0, NULL)`},
		{"unknown api key role", `INSERT INTO api_keys (id, name, role, hash, created_at) VALUES ('k', 'k', 'root', '', 0)`},
		{"negative api key rate limit", `INSERT INTO api_keys (id, name, role, rate_limit, hash, created_at)
			VALUES ('k', 'k', 'reader', -1, '', 0)`},
		{"event payload not JSON", `INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
			VALUES ('e', 't', 'a', 'i', 1, 0, '{')`},
		{"event without a payload", `INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
			VALUES ('e', 't', 'a', 'i', 1, 0, NULL)`},
		{"event time as text", `INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
			VALUES ('e', 't', 'a', 'i', 1, 'now', '{}')`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := db.ExecContext(ctx, tc.sql); err == nil {
				t.Errorf("%s succeeded", tc.sql)
			} else {
				t.Log(err)
			}
		})
	}
	var l stockade.Level
	err = s.View(ctx, func(tx stockade.Tx) error {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
		if len(ls) == 1 {
			l = ls[0]
		}
		return err
	})
	if err != nil || l.OnHand != 10 || l.Reserved != 4 || l.Committed != 0 {
		t.Errorf("level after the refused statements = %+v, %v; want 10 on hand, 4 reserved", l, err)
	}
}

// TestReopenAfterCrash checks that committed data survives a process that
// stops without closing: the WAL holds it until a checkpoint.
func TestReopenAfterCrash(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "stockade.db")
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close() // only at the very end: the "crash" leaves it open
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	k := stockade.Key{SKU: "sku", Location: "w1"}
	err = s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "w1", Name: "Warehouse"}); err != nil {
			return err
		}
		_, _, err := tx.LevelSetOnHand(ctx, k, 42, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A copy of the files as they are on disk now, -shm left out, is what
	// a crash leaves behind; SQLite recovers from the WAL on open.
	crashed := filepath.Join(t.TempDir(), "stockade.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, crashed+suffix); err != nil {
			t.Fatal(err)
		}
	}

	for name, p := range map[string]string{"same file, first store still open": path, "copy of a crashed process's files": crashed} {
		t.Run(name, func(t *testing.T) {
			s2 := open(t, p, nil)
			if err := s2.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var ls []stockade.Level
			var locs []stockade.Location
			err := s2.View(ctx, func(tx stockade.Tx) error {
				var err error
				if ls, err = tx.LevelList(ctx, stockade.LevelQuery{All: true}); err != nil {
					return err
				}
				locs, err = tx.LocationList(ctx)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != 1 || ls[0].Key() != k || ls[0].OnHand != 42 || len(locs) != 1 || locs[0].Name != "Warehouse" {
				t.Errorf("after reopening: levels %+v, locations %+v", ls, locs)
			}
		})
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestConcurrentUpdatesNeverBusy checks that writers of one Store queue for
// its writer connection instead of failing with SQLITE_BUSY, and that
// readers run beside them.
func TestConcurrentUpdatesNeverBusy(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	k := stockade.Key{SKU: "sku", Location: "w1"}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "w1"}); err != nil {
			return err
		}
		_, _, err := tx.LevelSetOnHand(ctx, k, 0, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 64, 10
	errs := make(chan error, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				err := s.Update(ctx, func(tx stockade.Tx) error {
					// Read, then write: in a deferred transaction, the
					// write would fail with SQLITE_BUSY_SNAPSHOT when
					// another writer committed in between.
					if _, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true}); err != nil {
						return err
					}
					_, _, err := tx.LevelUpdate(ctx, k, stockade.Delta{OnHand: 1}, stockade.Guard{})
					if err != nil {
						return err
					}
					return tx.MovementAppend(ctx, stockade.Movement{SKU: k.SKU, Location: k.Location,
						Kind: stockade.MoveAdjust, Delta: stockade.Delta{OnHand: 1}})
				})
				if err != nil {
					errs <- fmt.Errorf("Update: %w", err)
					return
				}
			}
		})
		wg.Go(func() {
			for range rounds {
				err := s.View(ctx, func(tx stockade.Tx) error {
					_, err := tx.LevelList(ctx, stockade.LevelQuery{All: true})
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("View: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var l stockade.Level
	err = s.View(ctx, func(tx stockade.Tx) error {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
		if len(ls) == 1 {
			l = ls[0]
		}
		return err
	})
	if err != nil || l.OnHand != workers*rounds {
		t.Errorf("on hand = %d, %v; want %d", l.OnHand, err, workers*rounds)
	}
}

// TestBusyIsConflict checks that the one busy error left, another process
// holding the write lock past the busy timeout, wraps ErrConflict.
func TestBusyIsConflict(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a := newStore(t)
	b := open(t, a.Path(), &sqlite.Options{BusyTimeout: time.Millisecond})

	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Update(ctx, func(tx stockade.Tx) error {
			if err := tx.LocationPut(ctx, stockade.Location{ID: "w1"}); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatal(err)
	}
	err := b.Update(ctx, func(tx stockade.Tx) error { return tx.LocationPut(ctx, stockade.Location{ID: "w2"}) })
	close(release)
	if !errors.Is(err, stockade.ErrConflict) {
		t.Errorf("Update while another process writes = %v, want an error wrapping ErrConflict", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Reads are not blocked by the other process's write lock (WAL), and
	// the retry succeeds.
	if err := b.Update(ctx, func(tx stockade.Tx) error { return tx.LocationPut(ctx, stockade.Location{ID: "w2"}) }); err != nil {
		t.Errorf("retried Update: %v", err)
	}
}
