package postgres_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// bound only turns a hang into a failure; no test depends on speed.
const bound = 30 * time.Second

var databases atomic.Int64

// newDatabase creates a fresh database on the shared server and returns
// its URL.
func newDatabase(t *testing.T) string {
	t.Helper()
	return createDatabase(t, testkit.SharedPostgres(t))
}

func createDatabase(t *testing.T, srv *testkit.Postgres) string {
	t.Helper()
	url, err := srv.CreateDatabase(fmt.Sprintf("stockade_%d", databases.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// openStore opens a store on url, closed when the test ends.
func openStore(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), url, &postgres.Options{MaxConns: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newStore returns a migrated, empty store on a fresh database, a copy of
// a template migrated once, and the database's URL.
func newStore(t *testing.T) (*postgres.Store, string) {
	t.Helper()
	url := teststore.PostgresURL(t)
	return openStore(t, url), url
}

// newPool returns a pool on url for raw SQL, closed when the test ends.
func newPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// update runs fn in s.Update and fails the test on error.
func update(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

// seed creates location loc and the levels of skus there with onHand each.
func seed(t *testing.T, s stockade.Store, loc string, onHand int64, skus ...string) {
	t.Helper()
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.LocationPut(t.Context(), stockade.Location{ID: loc, Name: loc}); err != nil {
			return err
		}
		for _, sku := range skus {
			if _, _, err := tx.LevelSetOnHand(t.Context(), stockade.Key{SKU: sku, Location: loc}, onHand, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// eventually polls cond until it holds, or fails the test after bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lockWaiters returns how many backends of the database at pool are
// waiting for a lock (a row, transaction or advisory lock).
func lockWaiters(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	err := pool.QueryRow(t.Context(), `
		SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func ptr[T any](v T) *T { return &v }

// idempotencyRecord reads the record of one key with IdempotencyGetMany.
func idempotencyRecord(ctx context.Context, tx stockade.Tx, key string) (stockade.IdempotencyRecord, bool, error) {
	recs, err := tx.IdempotencyGetMany(ctx, []string{key})
	if err != nil || len(recs) == 0 {
		return stockade.IdempotencyRecord{}, false, err
	}
	return recs[0], true, nil
}
