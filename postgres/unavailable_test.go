package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
)

// wantUnavailable fails unless err wraps stockade.ErrUnavailable and
// nothing that would make it a refusal or a retry.
func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	switch {
	case !errors.Is(err, stockade.ErrUnavailable):
		t.Errorf("%s: %v, want an error wrapping ErrUnavailable", what, err)
	case errors.Is(err, stockade.ErrConflict):
		t.Errorf("%s: %v also wraps ErrConflict", what, err)
	case stockade.ErrorCode(err) != stockade.EInternal:
		t.Errorf("%s: %v is a refusal (%s)", what, err, stockade.ErrorCode(err))
	}
}

// TestUnreachableDatabase: a server killed in the middle of a transaction,
// stopped, or not running at all gives errors that wrap ErrUnavailable,
// from every entry point; once it is back, the same store works again.
func TestUnreachableDatabase(t *testing.T) {
	t.Parallel()
	srv := testkit.NewPostgres(t)
	s := openStore(t, createDatabase(t, srv))
	ctx := t.Context()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	loc := stockade.Location{ID: "w1", Name: "West"}
	k := stockade.Key{SKU: "tee", Location: "w1"}
	update(t, s, func(tx stockade.Tx) error { return tx.LocationPut(ctx, loc) })

	// Killed mid-transaction: the statement after the kill fails, and so
	// does Update, even if fn swallowed the error.
	var inTx error
	err := s.Update(ctx, func(tx stockade.Tx) error {
		if _, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true}); err != nil {
			return err
		}
		if err := srv.Kill(); err != nil {
			t.Fatal(err)
		}
		_, _, inTx = tx.LevelSetOnHand(ctx, k, 5, nil)
		return nil
	})
	wantUnavailable(t, "statement after a kill", inTx)
	wantUnavailable(t, "Update killed mid-transaction", err)

	// Down: nothing connects.
	wantUnavailable(t, "Update while down", s.Update(ctx, func(tx stockade.Tx) error { return tx.LocationPut(ctx, loc) }))
	wantUnavailable(t, "View while down", s.View(ctx, func(tx stockade.Tx) error { _, err := tx.LevelList(ctx, stockade.LevelQuery{All: true}); return err }))
	wantUnavailable(t, "Ping while down", s.Ping(ctx))

	// A deadline that ends while the database is down is the caller's,
	// not the database's.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Ping(done); errors.Is(err, stockade.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Ping with a cancelled context: %v, want context.Canceled and not ErrUnavailable", err)
	}

	// Back up: the pool drops its broken connections and makes new ones.
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitUp(t, s)
	update(t, s, func(tx stockade.Tx) error { return tx.LocationPut(ctx, loc) })

	// Stopped (fast shutdown) with a transaction open: the server ends the
	// session (57P01) and the next statement fails.
	err = s.Update(ctx, func(tx stockade.Tx) error {
		if _, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}, Lock: true}); err != nil {
			return err
		}
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		_, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
		return err
	})
	wantUnavailable(t, "Update stopped mid-transaction", err)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitUp(t, s)
}

// waitUp waits until s answers a Ping: the first calls after a restart
// may meet connections the pool has not yet found broken.
func waitUp(t *testing.T, s interface{ Ping(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	defer cancel()
	for {
		err := s.Ping(ctx)
		if err == nil {
			return
		}
		if !errors.Is(err, stockade.ErrUnavailable) || ctx.Err() != nil {
			t.Fatalf("the store does not come back: %v", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}
