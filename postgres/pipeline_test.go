package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

// TestFirstStatement: a transaction's BEGIN goes out with its first
// statement, and every kind of first statement works: a read, one that
// must be planned at each run (it cannot go in a pipeline), and a write
// that fails, after which the store goes on. A function that runs no
// statement commits nothing and returns its own result. Peek's statements
// behave alike.
func TestFirstStatement(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := t.Context()
	seed(t, s, "w1", 5, "tee")
	now := time.Now()

	onHand := func(tx stockade.Tx) (int64, error) {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{"tee"}})
		if err != nil || len(ls) != 1 {
			return 0, errors.Join(err, errors.New("want one level of tee"))
		}
		return ls[0].OnHand, nil
	}
	// A first statement planned at each run, then a read and a write.
	update(t, s, func(tx stockade.Tx) error {
		if _, err := tx.RoomVisitorActivity(ctx, "no-room", now); err != nil {
			return err
		}
		if n, err := onHand(tx); err != nil || n != 5 {
			return errors.Join(err, errors.New("on hand is not 5"))
		}
		_, _, err := tx.LevelUpdate(ctx, stockade.Key{SKU: "tee", Location: "w1"}, stockade.Delta{OnHand: 1}, stockade.Guard{})
		return err
	})
	for _, read := range []func(func(stockade.Tx) error) error{
		func(fn func(stockade.Tx) error) error { return s.View(ctx, fn) },
		func(fn func(stockade.Tx) error) error { return s.Peek(ctx, fn) },
	} {
		err := read(func(tx stockade.Tx) error {
			if _, err := tx.RoomVisitorActivity(ctx, "no-room", now); err != nil {
				return err
			}
			if n, err := onHand(tx); err != nil || n != 6 {
				return errors.Join(err, errors.New("on hand is not 6"))
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}

	// A first statement that fails: the Update fails, changes nothing, and
	// the next one runs.
	room := stockade.Room{ID: "room-1", ShowID: "show-1", OpensAt: now, ActiveLimit: 1, AdmitPerMinute: 1,
		AdmissionTTL: stockade.DefaultAdmissionTTL, Order: stockade.RoomArrival, PerVisitor: 1, StockFactor: 1,
		Status: stockade.RoomClosed, CreditAt: now, Secret: "rsec_1", CreatedAt: now, UpdatedAt: now, Version: 1}
	update(t, s, func(tx stockade.Tx) error { return tx.RoomInsert(ctx, room) })
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.RoomInsert(ctx, room); err != nil {
			return err
		}
		_, _, err := tx.LevelUpdate(ctx, stockade.Key{SKU: "tee", Location: "w1"}, stockade.Delta{OnHand: 1}, stockade.Guard{})
		return err
	})
	if !errors.Is(err, stockade.ErrConflict) {
		t.Errorf("a room inserted twice: %v, want a conflict", err)
	}
	update(t, s, func(tx stockade.Tx) error {
		n, err := onHand(tx)
		if err == nil && n != 6 {
			t.Errorf("after a failed Update, on hand = %d, want 6", n)
		}
		return err
	})

	errFn := errors.New("fn's own")
	for name, run := range map[string]func(func(stockade.Tx) error) error{
		"Update": func(fn func(stockade.Tx) error) error { return s.Update(ctx, fn) },
		"View":   func(fn func(stockade.Tx) error) error { return s.View(ctx, fn) },
		"Peek":   func(fn func(stockade.Tx) error) error { return s.Peek(ctx, fn) },
	} {
		if err := run(func(stockade.Tx) error { return nil }); err != nil {
			t.Errorf("%s without a statement: %v, want nil", name, err)
		}
		if err := run(func(stockade.Tx) error { return errFn }); !errors.Is(err, errFn) {
			t.Errorf("%s without a statement, failing: %v, want fn's error", name, err)
		}
	}
}

// BenchmarkSmallTransactions measures transactions of one and of two
// statements: a View that reads a level, an Update that reads and moves
// it, and a Peek of the read. Each begins with its first statement, so a
// View of one statement is two round trips and a Peek one.
func BenchmarkSmallTransactions(b *testing.B) {
	ctx := b.Context()
	s, err := postgres.Open(ctx, teststore.PostgresURL(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "w1", Name: "w1"}); err != nil {
			return err
		}
		_, _, err := tx.LevelSetOnHand(ctx, stockade.Key{SKU: "tee", Location: "w1"}, 1e9, nil)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	read := func(tx stockade.Tx) error {
		_, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{"tee"}})
		return err
	}
	for _, bc := range []struct {
		name string
		run  func() error
	}{
		{"View", func() error { return s.View(ctx, read) }},
		{"Peek", func() error { return s.Peek(ctx, read) }},
		{"Update", func() error {
			return s.Update(ctx, func(tx stockade.Tx) error {
				if err := read(tx); err != nil {
					return err
				}
				_, _, err := tx.LevelUpdate(ctx, stockade.Key{SKU: "tee", Location: "w1"}, stockade.Delta{OnHand: -1}, stockade.Guard{})
				return err
			})
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
