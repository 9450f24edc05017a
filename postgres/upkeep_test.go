package postgres_test

import (
	"fmt"
	"testing"

	"github.com/stockade/stockade"
)

// TestVacuumAfterManySeats: a transaction that puts a thousand seats has
// the seats table vacuumed and analyzed once it commits; one that puts a
// few, or that rolls back, does not.
func TestVacuumAfterManySeats(t *testing.T) {
	t.Parallel()
	s, url := newStore(t)
	admin := newPool(t, url)
	ctx := t.Context()
	vacuums := func() (n int64) {
		t.Helper()
		err := admin.QueryRow(ctx, `SELECT vacuum_count + analyze_count FROM pg_stat_user_tables WHERE relname = 'seats'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	seats := func(n int) []stockade.Seat {
		ss := make([]stockade.Seat, n)
		for i := range ss {
			ss[i] = stockade.Seat{ID: fmt.Sprintf("s/A/%d", i+1), Section: "s", Row: "A", Label: fmt.Sprint(i + 1), Order: i + 1, Status: stockade.SeatFree}
		}
		return ss
	}
	put := func(event string, n int) error {
		return s.Update(ctx, func(tx stockade.Tx) error {
			if err := tx.ShowPut(ctx, stockade.Show{ID: event, Name: event, Version: 1}); err != nil {
				return err
			}
			return tx.SeatPut(ctx, event, seats(n))
		})
	}

	before := vacuums()
	if err := put("small", 10); err != nil {
		t.Fatal(err)
	}
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.ShowPut(ctx, stockade.Show{ID: "undone", Name: "undone", Version: 1}); err != nil {
			return err
		}
		if err := tx.SeatPut(ctx, "undone", seats(2000)); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	if err == nil {
		t.Fatal("an Update that returned an error succeeded")
	}
	if err := put("big", 1000); err != nil {
		t.Fatal(err)
	}
	// The statistics collector reports with a delay: wait for the one
	// vacuum, then check that it was the only one.
	eventually(t, "the seats table is vacuumed and analyzed", func() bool { return vacuums() >= before+2 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := vacuums(); n != before+2 {
		t.Errorf("%d vacuums and analyzes after puts of 10, 2,000 (rolled back) and 1,000 seats, want 2 (one of each)", n-before)
	}
}
