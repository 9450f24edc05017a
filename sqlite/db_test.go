package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stockade/stockade/sqlite"
)

func TestOpenCreatesFileInWALMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stockade.db")
	db, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
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

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	readOnly := filepath.Join(t.TempDir(), "ro.db")
	db, err := sqlite.Open(t.Context(), readOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Chmod(readOnly, 0o444); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		path string
	}{
		{"empty path", ""},
		{"missing directory", filepath.Join(t.TempDir(), "missing", "dir", "x.db")},
		{"in-memory database", ":memory:"},
	}
	if os.Geteuid() != 0 { // root writes read-only files
		tests = append(tests, struct{ name, path string }{"read-only file", readOnly})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sqlite.Open(t.Context(), tc.path, nil)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded", tc.path)
			}
			t.Log(err)
		})
	}
}

func TestOpenPathNeedsNoEscaping(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a dir?#%", "stock ade.db")
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created where asked: %v", err)
	}
}
