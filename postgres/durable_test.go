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
// commit is reported as a success, whether the caller's context ends
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
	update(t, s, func(tx stockade.Tx) error { return tx.IdempotencyPut(ctx, rec) })
	if err := standby.PauseReplication(); err != nil {
		t.Fatal(err)
	}

	// syncWaits counts the commits of transactions begun at since or
	// later (server time) that wait for the standby, cancelling them if
	// cancel is set. (A commit cut off on the client's side goes on
	// waiting on the server for a while, its client gone.)
	admin := newPool(t, dbURL)
	syncWaits := func(t *testing.T, since time.Time, cancel bool) int {
		count := "count(*)"
		if cancel {
			count = "count(pg_cancel_backend(pid))"
		}
		var n int
		err := admin.QueryRow(ctx, `SELECT `+count+` FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event = 'SyncRep' AND xact_start >= $1`, since).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// unknown runs an Update whose context ends, by end, once its COMMIT
	// waits for the standby, and wants it to end as an unknown outcome,
	// soon after. It waits for the state, not for a time: a deadline
	// could also pass before the COMMIT, on a busy machine.
	unknown := func(t *testing.T, what string, fn func(ctx context.Context, tx stockade.Tx) error, end func(since time.Time, cancel context.CancelFunc)) {
		t.Helper()
		var since time.Time
		if err := admin.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&since); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- s.Update(cctx, func(tx stockade.Tx) error { return fn(cctx, tx) }) }()
		eventually(t, "the Update's commit waits for the standby", func() bool { return syncWaits(t, since, false) == 1 })
		ended := time.Now()
		end(since, cancel)
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("%s: Update succeeded while the synchronous standby confirmed nothing", what)
			}
			wantUnavailable(t, what, err)
			// The store's documented bound past the context's end,
			// with room for a busy machine; it only tells a wait cut
			// short from one that lasted until replication resumed.
			if took := time.Since(ended); took > 5*time.Second {
				t.Errorf("%s: Update took %v after its context ended", what, took)
			}
		case <-time.After(30 * time.Second):
			// It ends once the standby confirms: the store cannot close
			// before.
			standby.ResumeReplication()
			t.Fatalf("%s: Update still waits 30s after its context ended", what)
		}
	}
	write := func(id string) func(ctx context.Context, tx stockade.Tx) error {
		return func(ctx context.Context, tx stockade.Tx) error {
			return tx.LocationPut(ctx, stockade.Location{ID: id, Name: id})
		}
	}
	t.Run("ContextEnds", func(t *testing.T) {
		unknown(t, "Update whose context ended during the commit", write("w1"), func(_ time.Time, cancel context.CancelFunc) { cancel() })
	})
	t.Run("Replay", func(t *testing.T) {
		unknown(t, "a replay whose context ended during the commit", func(ctx context.Context, tx stockade.Tx) error {
			got, ok, err := idempotencyRecord(ctx, tx, rec.Key)
			if err == nil && (!ok || got.Fingerprint != rec.Fingerprint) {
				t.Errorf("Idempotency(%q) = %+v, %v; want the record", rec.Key, got, ok)
			}
			return err
		}, func(_ time.Time, cancel context.CancelFunc) { cancel() })
	})
	t.Run("OperatorCancel", func(t *testing.T) {
		// pg_cancel_backend cuts the COMMIT's wait on the server, which
		// then reports success with a warning; the caller's context
		// lives on.
		unknown(t, "Update whose wait an operator cut", write("w2"), func(since time.Time, _ context.CancelFunc) {
			if n := syncWaits(t, since, true); n != 1 {
				t.Errorf("cancelled %d commits, want the Update's alone", n)
			}
		})
	})

	if err := standby.ResumeReplication(); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx stockade.Tx) error {
		return tx.LocationPut(ctx, stockade.Location{ID: "w3", Name: "North"})
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
			levels, err := tx.LevelList(ctx, stockade.LevelQuery{All: true})
			n = len(levels)
			return err
		})
		return err == nil && n == 1
	})
	err = s.Update(ctx, func(tx stockade.Tx) error { return tx.LocationPut(ctx, stockade.Location{ID: "w2", Name: "East"}) })
	wantUnavailable(t, "Update on a standby", err)
	wantUnavailable(t, "Ping on a standby", s.Ping(ctx))

	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping on the promoted standby: %v", err)
	}
	update(t, s, func(tx stockade.Tx) error { return tx.LocationPut(ctx, stockade.Location{ID: "w2", Name: "East"}) })
}
