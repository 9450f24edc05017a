package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
)

// TestLevelsReplannedAsTheyGrow: Levels and LevelUpdateMany, run many
// times on one connection while the levels table is small, reach a few
// levels through the primary key once it has grown and the store has had
// it analyzed. Without the ANALYZE, PostgreSQL keeps, after five runs of
// a prepared statement, a generic plan made for the small table: a
// sequential scan of every level, each call.
func TestLevelsReplannedAsTheyGrow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, err := testkit.SharedPostgres(t).CreateDatabase("stockade_plans_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	// One connection: every call below runs on the same server session,
	// with the same prepared statements and pending statistics.
	s, err := Open(ctx, url, &Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keys := []stockade.Key{{SKU: "a", Location: "main"}, {SKU: "b", Location: "main"}}
	if err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "main", Name: "Main"}); err != nil {
			return err
		}
		for _, k := range append(keys, stockade.Key{SKU: "c", Location: "main"}) {
			if _, _, err := tx.LevelSetOnHand(ctx, k, 10, nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	touch := func() {
		t.Helper()
		err := s.Update(ctx, func(tx stockade.Tx) error {
			ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: keys, Lock: true})
			if err != nil || len(ls) != len(keys) {
				t.Errorf("Levels(%v) = %v, %v", keys, ls, err)
				return err
			}
			changes := []stockade.LevelChange{{Key: keys[0], Delta: stockade.Delta{Reserved: 1}}, {Key: keys[1], Delta: stockade.Delta{Reserved: 1}}}
			ls, err = tx.LevelUpdateMany(ctx, changes)
			if err != nil || len(ls) != len(changes) {
				t.Errorf("LevelUpdateMany(%v) = %v, %v", changes, ls, err)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 8 {
		touch()
	}

	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	const grown = 50000
	if _, err := other.Exec(ctx, `INSERT INTO levels (sku, location, on_hand)
		SELECT 'grown-' || i, 'main', 1 FROM generate_series(1, $1::int) AS i`, grown); err != nil {
		t.Fatal(err)
	}
	// As if the store had created them (TestLevelsCounted counts those).
	s.upkeep.levelsAdded(grown)
	waitAnalyzed(t, s.upkeep)
	// The session's statistics reach the server when it next goes idle;
	// pg_stat_force_next_flush makes that the end of its own statement.
	flush := func() {
		t.Helper()
		if _, err := s.pool.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
	}
	scanned := func() int64 {
		t.Helper()
		var n int64
		if err := other.QueryRow(ctx, "SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'levels'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	flush()
	before := scanned()
	touch()
	flush()
	if n := scanned() - before; n != 0 {
		t.Errorf("Levels and LevelUpdateMany of 2 keys read %d levels by sequential scan; want them read through the primary key", n)
	}
}

// TestLevelsCounted: the levels that LevelSetOnHand creates, in transactions
// that commit, are what the upkeep counts towards an ANALYZE; those it
// changes, or creates in a transaction that rolls back, are not.
func TestLevelsCounted(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, err := testkit.SharedPostgres(t).CreateDatabase("stockade_counted_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	put := func(n int, fail error) {
		t.Helper()
		err := s.Update(ctx, func(tx stockade.Tx) error {
			if err := tx.LocationPut(ctx, stockade.Location{ID: "main", Name: "Main"}); err != nil {
				return err
			}
			for i := range n {
				if _, _, err := tx.LevelSetOnHand(ctx, stockade.Key{SKU: fmt.Sprint("sku-", i), Location: "main"}, 5, nil); err != nil {
					return err
				}
			}
			return fail
		})
		if !errors.Is(err, fail) {
			t.Fatalf("Update: %v, want %v", err, fail)
		}
	}
	added := func() int {
		s.upkeep.mu.Lock()
		defer s.upkeep.mu.Unlock()
		return s.upkeep.added
	}
	put(3, nil)
	if n := added(); n != 3 {
		t.Errorf("after creating 3 levels: %d counted, want 3", n)
	}
	put(5, nil) // 3 changed, 2 created
	if n := added(); n != 5 {
		t.Errorf("after creating 2 more: %d counted, want 5", n)
	}
	rollback := errors.New("rolled back")
	put(8, rollback)
	if n := added(); n != 5 {
		t.Errorf("after a transaction that rolled back: %d counted, want 5", n)
	}
	put(5+analyzeLevelsAt, nil)
	waitAnalyzed(t, s.upkeep)
	var analyzed int
	if err := s.pool.QueryRow(ctx, "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'levels'").Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if analyzed == 0 || added() != 0 {
		t.Errorf("after creating %d levels: analyzed %d times, %d counted; want an ANALYZE, and the count begun again", 5+analyzeLevelsAt, analyzed, added())
	}
}

// waitAnalyzed waits until u has analyzed the levels table and stopped.
func waitAnalyzed(t *testing.T, u *upkeep) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		u.mu.Lock()
		done := !u.analyzing && u.analyzed > 0
		u.mu.Unlock()
		if done {
			return
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the levels table was not analyzed within a minute")
		}
	}
}

// TestJITOff: the store's sessions run without JIT compilation unless the
// URL asks for it.
func TestJITOff(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, err := testkit.SharedPostgres(t).CreateDatabase("stockade_jit_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ url, want string }{{url, "off"}, {url + "&jit=on", "on"}} {
		s, err := Open(ctx, c.url, &Options{MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = s.pool.QueryRow(ctx, "SHOW jit").Scan(&got)
		s.Close()
		if err != nil || got != c.want {
			t.Errorf("%s: SHOW jit = %q, %v; want %q", c.url, got, err, c.want)
		}
	}
}
