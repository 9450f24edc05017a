package postgres_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
)

// TestDurableCommit: with a synchronous standby that confirms nothing, no
// commit is reported as a success, whether the caller's deadline passes
// during the wait, an operator cuts the wait short on the server, or the
// transaction only replays an idempotency record that the standby does
// not have yet; every such Update returns ErrUnavailable, the outcome
// unknown. Once the standby confirms again, commits succeed.
func TestDurableCommit(t *testing.T) {
	t.Parallel()
	primary := testkit.NewPostgres(t)
	dbURL := createDatabase(t, primary)
	standby := testkit.NewStandby(t, primary, &testkit.StandbyOptions{Synchronous: true})
	s := openStore(t, dbURL)
	ctx := t.Context()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rec := stockade.IdempotencyRecord{Key: "k1", Op: "reserve", Fingerprint: "f", Result: []byte("{}"), CreatedAt: time.Now()}
	update(t, s, func(tx stockade.Tx) error { return tx.PutIdempotency(ctx, rec) })
	if err := standby.PauseReplication(); err != nil {
		t.Fatal(err)
	}

	// unknown runs an Update with a 300ms deadline and wants it to end
	// as an unknown outcome, at its deadline.
	unknown := func(t *testing.T, s stockade.Store, fn func(ctx context.Context, tx stockade.Tx) error) {
		t.Helper()
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		err := s.Update(cctx, func(tx stockade.Tx) error { return fn(cctx, tx) })
		if err == nil {
			t.Fatal("Update succeeded while the synchronous standby confirmed nothing")
		}
		wantUnavailable(t, "Update waiting for the standby", err)
		// The store's documented bound past the deadline, with room for
		// a busy machine; it only tells a wait cut at the deadline from
		// one that lasted until replication resumed.
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Update took %v", took)
		}
	}
	t.Run("Deadline", func(t *testing.T) {
		unknown(t, s, func(ctx context.Context, tx stockade.Tx) error {
			return tx.PutLocation(ctx, stockade.Location{ID: "w1", Name: "West"})
		})
	})
	t.Run("Replay", func(t *testing.T) {
		unknown(t, s, func(ctx context.Context, tx stockade.Tx) error {
			got, ok, err := tx.Idempotency(ctx, rec.Key)
			if err == nil && (!ok || got.Fingerprint != rec.Fingerprint) {
				t.Errorf("Idempotency(%q) = %+v, %v; want the record", rec.Key, got, ok)
			}
			return err
		})
	})
	t.Run("OperatorCancel", func(t *testing.T) {
		// pg_cancel_backend cuts the COMMIT's wait on the server, which
		// then reports success with a warning; the caller's context
		// still has seconds to run.
		admin := newPool(t, dbURL)
		// cancelWaits cancels every commit waiting for the standby and
		// returns how many there were.
		cancelWaits := func() int {
			var n int
			err := admin.QueryRow(ctx, `SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event = 'SyncRep'`).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// The commits cut off above still wait on the server, their
		// clients gone, until cancelled: the next one to wait must be
		// this Update's.
		eventually(t, "no commit left waiting for the standby", func() bool { return cancelWaits() == 0 })
		done := make(chan error, 1)
		go func() {
			done <- s.Update(ctx, func(tx stockade.Tx) error {
				return tx.PutLocation(ctx, stockade.Location{ID: "w2", Name: "East"})
			})
		}()
		eventually(t, "the Update's commit waits for the standby, and is cancelled", func() bool { return cancelWaits() == 1 })
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("Update succeeded after an operator cut its wait for the synchronous standby")
			}
			wantUnavailable(t, "Update whose wait an operator cut", err)
		case <-time.After(30 * time.Second):
			// It ends once the standby confirms: the store cannot close
			// before.
			standby.ResumeReplication()
			t.Fatal("Update still waits 30s after its commit's wait was cancelled")
		}
	})

	if err := standby.ResumeReplication(); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx stockade.Tx) error {
		return tx.PutLocation(ctx, stockade.Location{ID: "w3", Name: "North"})
	})
}

// TestStandbyRefusesWrites: a store on a standby answers reads; its
// writes and Ping wrap ErrUnavailable until the standby is promoted.
func TestStandbyRefusesWrites(t *testing.T) {
	t.Parallel()
	primary := testkit.NewPostgres(t)
	dbURL := createDatabase(t, primary)
	seedStore := openStore(t, dbURL)
	ctx := t.Context()
	if err := seedStore.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	seed(t, seedStore, "w1", 5, "tee")
	standby := testkit.NewStandby(t, primary, nil)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = standby.Addr()
	s := openStore(t, u.String())

	eventually(t, "the standby has the seeded level", func() bool {
		var n int
		err := s.View(ctx, func(tx stockade.Tx) error {
			levels, err := tx.AllLevels(ctx)
			n = len(levels)
			return err
		})
		return err == nil && n == 1
	})
	err = s.Update(ctx, func(tx stockade.Tx) error { return tx.PutLocation(ctx, stockade.Location{ID: "w2", Name: "East"}) })
	wantUnavailable(t, "Update on a standby", err)
	wantUnavailable(t, "Ping on a standby", s.Ping(ctx))

	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping on the promoted standby: %v", err)
	}
	update(t, s, func(tx stockade.Tx) error { return tx.PutLocation(ctx, stockade.Location{ID: "w2", Name: "East"}) })
}
