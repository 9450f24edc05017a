package sqlite_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/sqlite"
)

// TestUnopenableFileIsUnavailable: once the database's directory has moved
// away, a connection the store opens cannot open the file
// (SQLITE_CANTOPEN), and the error wraps stockade.ErrUnavailable. Back in
// place, the store works again.
func TestUnopenableFileIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(dir, "stockade.db"), &sqlite.Options{Readers: 2})
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}

	// Hold the one read connection open so far, so that the next View
	// opens another.
	held, release, finished := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		finished <- s.View(ctx, func(stockade.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	moved := dir + "-moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	err := s.View(ctx, func(tx stockade.Tx) error { _, err := tx.LevelList(ctx, stockade.LevelQuery{All: true}); return err })
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-finished; err != nil {
		t.Errorf("the View that held its connection: %v", err)
	}
	switch {
	case !errors.Is(err, stockade.ErrUnavailable):
		t.Errorf("View of a file that cannot be opened: %v, want an error wrapping ErrUnavailable", err)
	case errors.Is(err, stockade.ErrConflict):
		t.Errorf("View of a file that cannot be opened: %v also wraps ErrConflict", err)
	}

	if err := s.View(ctx, func(tx stockade.Tx) error { _, err := tx.LevelList(ctx, stockade.LevelQuery{All: true}); return err }); err != nil {
		t.Errorf("View with the file back: %v", err)
	}
}
