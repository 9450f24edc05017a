package teststore_test

import (
	"context"
	"os"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// versioned is what both stores say of their schema.
type versioned interface {
	stockade.Store
	SchemaVersion(ctx context.Context) (version, latest int, err error)
}

// Each copy is migrated to the newest schema, empty, and the test's own:
// a write to one is not seen by another.
func TestCopies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open func(t *testing.T) versioned
	}{
		{"sqlite", func(t *testing.T) versioned { return teststore.OpenSQLite(t, nil) }},
		{"postgres", func(t *testing.T) versioned { return teststore.OpenPostgres(t, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := tc.open(t), tc.open(t)
			for _, s := range []versioned{a, b} {
				version, latest, err := s.SchemaVersion(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if version != latest || latest == 0 {
					t.Fatalf("schema version %d, want the latest, %d", version, latest)
				}
			}
			loc := stockade.Location{ID: "w1", Name: "Warehouse 1"}
			if err := a.Update(t.Context(), func(tx stockade.Tx) error { return tx.LocationPut(t.Context(), loc) }); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				s    versioned
				want int
			}{{a, 1}, {b, 0}} {
				var n int
				err := c.s.View(t.Context(), func(tx stockade.Tx) error {
					ls, err := tx.LocationList(t.Context())
					n = len(ls)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if n != c.want {
					t.Errorf("%d locations, want %d", n, c.want)
				}
			}
		})
	}
}
