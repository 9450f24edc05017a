package sqlite_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/sqlite"
)

// TestSchemaVersionReadOnly: a read-only Store neither creates a missing
// file nor writes to an existing one, sees the schema version, and refuses
// to write.
func TestSchemaVersionReadOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	ro := &sqlite.Options{ReadOnly: true}

	missing := filepath.Join(dir, "missing.db")
	if db, err := sqlite.Open(ctx, missing, ro); err == nil {
		db.Close()
		t.Fatal("read-only Open of a missing file succeeded")
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only Open of a missing file left %v", err)
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, empty, ro)
	if err != nil {
		t.Fatal(err)
	}
	version, latest, err := db.SchemaVersion(ctx)
	if err != nil || version != 0 || latest < 1 {
		t.Fatalf("SchemaVersion of an empty file = %d, %d, %v; want 0 and the latest", version, latest, err)
	}
	if err := db.Migrate(ctx); err == nil {
		t.Error("Migrate on a read-only Store succeeded")
	}
	err = db.Update(ctx, func(tx stockade.Tx) error {
		return tx.LocationPut(ctx, stockade.Location{ID: "east", Name: "East"})
	})
	if err == nil {
		t.Error("Update on a read-only Store succeeded")
	}
	db.Close()
	if b, err := os.ReadFile(empty); err != nil || len(b) != 0 {
		t.Fatalf("the empty file holds %d bytes (%v) after a read-only Store", len(b), err)
	}

	// Migrated: the read-only Store sees the latest version, and leaves
	// the file as it was.
	path := filepath.Join(dir, "s.db")
	rw, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := rw.SchemaVersion(ctx); err != nil || v != 0 {
		t.Fatalf("SchemaVersion before Migrate = %d, %v", v, err)
	}
	if err := rw.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.Open(ctx, path, ro)
	if err != nil {
		t.Fatal(err)
	}
	version, latest, err = db.SchemaVersion(ctx)
	if err != nil || version != latest {
		t.Fatalf("SchemaVersion after Migrate = %d, %d, %v; want equal", version, latest, err)
	}
	db.Close()
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
		t.Fatalf("a read-only Store changed the file (%v)", err)
	}
}
