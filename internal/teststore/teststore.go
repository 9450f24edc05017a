// Package teststore gives tests fresh, migrated stores cheaply: a
// PostgreSQL database copied from a template migrated once per server,
// and a SQLite file copied from one migrated once per test binary. A copy
// costs a fraction of running every migration again, and each test still
// owns its data, so tests that use it can run in parallel.
//
// It is for tests only: it starts servers through the test kit
// (internal/testkit) and fails the test it is given on any error.
package teststore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/postgres"
	"github.com/stockade/stockade/sqlite"
)

// templateName is the migrated database every PostgreSQL copy is made from.
const templateName = "stockade_template"

var (
	databases atomic.Int64

	templatesMu sync.Mutex
	templates   = map[*testkit.Postgres]*template{}
)

// template is a migrated database on one server, made once.
type template struct {
	once sync.Once
	err  error
}

// PostgresURL returns the URL of a new database on the test binary's
// shared PostgreSQL server with the schema migrated and no data.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return PostgresURLOn(t, testkit.SharedPostgres(t))
}

// PostgresURLOn is PostgresURL on server pg, such as a server private to
// a test that injects faults.
func PostgresURLOn(t testing.TB, pg *testkit.Postgres) string {
	t.Helper()
	templatesMu.Lock()
	tm := templates[pg]
	if tm == nil {
		tm = &template{}
		templates[pg] = tm
	}
	templatesMu.Unlock()
	tm.once.Do(func() { tm.err = migrateTemplate(pg) })
	if tm.err != nil {
		t.Fatal(tm.err)
	}
	url, err := pg.CloneDatabase(fmt.Sprintf("copy_%d", databases.Add(1)), templateName)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// migrateTemplate creates the template database on pg and migrates it. The
// store is closed before any copy is made; CloneDatabase waits for its
// sessions to end.
func migrateTemplate(pg *testkit.Postgres) error {
	url, err := pg.CreateDatabase(templateName)
	if err != nil {
		return fmt.Errorf("teststore: %w", err)
	}
	ctx := context.Background()
	s, err := postgres.Open(ctx, url, &postgres.Options{MaxConns: 1})
	if err != nil {
		return fmt.Errorf("teststore: open the template: %w", err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		return fmt.Errorf("teststore: migrate the template: %w", err)
	}
	return nil
}

// OpenPostgres opens a store on a new migrated database of the shared
// server (PostgresURL), closed when the test ends. opts are as for
// postgres.Open.
func OpenPostgres(t testing.TB, opts *postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), PostgresURL(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var sqliteTemplate struct {
	once  sync.Once
	bytes []byte // the migrated file
	err   error
}

// SQLitePath returns the path of a new SQLite file in a directory of the
// test's with the schema migrated and no data.
func SQLitePath(t testing.TB) string {
	t.Helper()
	sqliteTemplate.once.Do(func() {
		sqliteTemplate.bytes, sqliteTemplate.err = migrateSQLiteTemplate()
	})
	if sqliteTemplate.err != nil {
		t.Fatal(sqliteTemplate.err)
	}
	path := filepath.Join(t.TempDir(), "stockade.db")
	if err := os.WriteFile(path, sqliteTemplate.bytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// OpenSQLite opens a store on a new migrated SQLite file (SQLitePath),
// closed when the test ends. opts are as for sqlite.Open.
func OpenSQLite(t testing.TB, opts *sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), SQLitePath(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// migrateSQLiteTemplate migrates a file in a directory of its own and
// returns the file's contents. Closing the store checkpoints its
// write-ahead log into the file, so the file alone is the database.
func migrateSQLiteTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "teststore-sqlite-*")
	if err != nil {
		return nil, fmt.Errorf("teststore: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return nil, fmt.Errorf("teststore: open the SQLite template: %w", err)
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("teststore: migrate the SQLite template: %w", err)
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("teststore: close the SQLite template: %w", err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("teststore: the SQLite template kept its write-ahead log after Close")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("teststore: %w", err)
	}
	return b, nil
}
