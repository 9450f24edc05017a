package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stockade/stockade/sqlite"
)

func TestOpenCreatesFileInWALMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stockade.db")
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	// WAL mode is recorded in the file itself: a plain connection sees it.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var mode string
	if err := raw.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("journal_mode = %q, want wal", mode)
	}
}

func TestOpenRefusesEmptyPathAndUnwritableDir(t *testing.T) {
	if _, err := sqlite.Open(t.Context(), ""); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
	if _, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "missing", "dir", "x.db")); err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}
