package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// writes are one of each kind of write, for the rollback and read-only
// tests. They expect the state that seedWrites makes.
var writes = []struct {
	name string
	fn   func(ctx context.Context, tx stockade.Tx) error
}{
	{"PutLocation new", func(ctx context.Context, tx stockade.Tx) error {
		return tx.LocationPut(ctx, stockade.Location{ID: "w9", Name: "new"})
	}},
	{"PutLocation replace", func(ctx context.Context, tx stockade.Tx) error {
		return tx.LocationPut(ctx, stockade.Location{ID: "w1", Name: "renamed"})
	}},
	{"LevelSetOnHand", func(ctx context.Context, tx stockade.Tx) error {
		_, _, err := tx.LevelSetOnHand(ctx, keyA1, 50, nil)
		return err
	}},
	{"LevelSetOnHand new level", func(ctx context.Context, tx stockade.Tx) error {
		_, _, err := tx.LevelSetOnHand(ctx, stockade.Key{SKU: "new", Location: "w1"}, 50, nil)
		return err
	}},
	{"LevelUpdate", func(ctx context.Context, tx stockade.Tx) error {
		_, _, err := tx.LevelUpdate(ctx, keyA1, stockade.Delta{Reserved: 1}, stockade.Guard{})
		return err
	}},
	{"LevelUpdate fenced", func(ctx context.Context, tx stockade.Tx) error {
		_, _, err := tx.LevelUpdate(ctx, keyA1, stockade.Delta{}, stockade.Guard{Fence: 9})
		return err
	}},
	{"MovementAppend", func(ctx context.Context, tx stockade.Tx) error {
		return tx.MovementAppend(ctx, stockade.Movement{At: base, SKU: keyA1.SKU, Location: keyA1.Location,
			Kind: stockade.MoveAdjust, Delta: stockade.Delta{OnHand: 1}})
	}},
	{"InsertReservation", func(ctx context.Context, tx stockade.Tx) error {
		return tx.ReservationInsert(ctx, reservation("r-new", stockade.Held, base, keyA1))
	}},
	{"ReservationSetStatus", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.ReservationSetStatus(ctx, "r-old", stockade.Held, stockade.Confirmed, "o-new")
		return err
	}},
	{"InsertOrder", func(ctx context.Context, tx stockade.Tx) error {
		return tx.OrderInsert(ctx, stockade.Order{ID: "o-new", Status: stockade.Committed, CreatedAt: base})
	}},
	{"OrderSetStatus", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.OrderSetStatus(ctx, "o-old", stockade.Committed, stockade.Cancelled)
		return err
	}},
	{"IdempotencyPut new", func(ctx context.Context, tx stockade.Tx) error {
		return tx.IdempotencyPut(ctx, stockade.IdempotencyRecord{Key: "k-new", Op: "reserve", Fingerprint: "h", Result: []byte("{}"), CreatedAt: base})
	}},
	{"IdempotencyPut replace", func(ctx context.Context, tx stockade.Tx) error {
		return tx.IdempotencyPut(ctx, stockade.IdempotencyRecord{Key: "k-old", Op: "confirm", Fingerprint: "h2",
			Result: []byte(`{"id":"o"}`), CreatedAt: base.Add(time.Second)})
	}},
	{"IdempotencyPurge", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.IdempotencyPurge(ctx, base.Add(24*time.Hour))
		return err
	}},
	{"KeyInsert", func(ctx context.Context, tx stockade.Tx) error {
		return tx.KeyInsert(ctx, stockade.APIKey{ID: "key_new", Name: "new", Role: stockade.RoleReader, Hash: "ab", CreatedAt: base})
	}},
	{"RevokeKey", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.KeyRevoke(ctx, "key_old", base.Add(time.Hour))
		return err
	}},
	{"EventAppend", func(ctx context.Context, tx stockade.Tx) error {
		return tx.EventAppend(ctx, newEvent)
	}},
	{"EventPrune", func(ctx context.Context, tx stockade.Tx) error {
		_, err := tx.EventPrune(ctx, base.Add(24*time.Hour), 10)
		return err
	}},
}

// seedWrites makes the state writes expect and returns a snapshot of it.
func seedWrites(t *testing.T, s stockade.Store) snapshot {
	t.Helper()
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 10})
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx, reservation("r-old", stockade.Held, base, keyA1)); err != nil {
			return err
		}
		if err := tx.OrderInsert(ctx, stockade.Order{ID: "o-old", Status: stockade.Committed, CreatedAt: base}); err != nil {
			return err
		}
		if err := tx.KeyInsert(ctx, stockade.APIKey{ID: "key_old", Name: "old", Role: stockade.RoleAdmin, Hash: "cd", CreatedAt: base}); err != nil {
			return err
		}
		if err := tx.EventAppend(ctx, storeEvent); err != nil {
			return err
		}
		return tx.IdempotencyPut(ctx, stockade.IdempotencyRecord{Key: "k-old", Op: "reserve", Fingerprint: "h", Result: []byte("{}"), CreatedAt: base})
	})
	settleEvents(t, s, storeEvent.ID)
	return takeWrites(t, s)
}

func takeWrites(t *testing.T, s stockade.Store) snapshot {
	t.Helper()
	return take(t, s, []string{"r-old", "r-new"}, []string{"o-old", "o-new"}, []string{"k-old", "k-new"})
}

func testUpdateRollsBack(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedWrites(t, s)

	err := s.Update(ctx, func(tx stockade.Tx) error {
		for _, w := range writes {
			if err := w.fn(ctx, tx); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if after := takeWrites(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("Update whose fn failed left changes:\nbefore %+v\nafter  %+v", before, after)
	}

	// The same writes commit when fn returns nil.
	update(t, s, func(tx stockade.Tx) error {
		for _, w := range writes {
			if err := w.fn(ctx, tx); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
		}
		return nil
	})
	if after := takeWrites(t, s); reflect.DeepEqual(after, before) {
		t.Errorf("Update whose fn succeeded changed nothing")
	}
}

func testViewIsReadOnly(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedWrites(t, s)
	for _, w := range writes {
		err := s.View(ctx, func(tx stockade.Tx) error { return w.fn(ctx, tx) })
		if err == nil {
			t.Errorf("%s in View succeeded, want an error", w.name)
		}
	}
	if after := takeWrites(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("writes in View left changes:\nbefore %+v\nafter  %+v", before, after)
	}
	if err := s.View(ctx, func(stockade.Tx) error { return errBoom }); !errors.Is(err, errBoom) {
		t.Errorf("View returned %v, want fn's error", err)
	}
}

// testPeek checks Peek: each write fails and changes nothing, each read
// sees what had committed when it began (a commit between two reads of
// one Peek shows in the second), a read that finds nothing does not
// spoil the reads after it, and fn's error is Peek's.
func testPeek(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	before := seedWrites(t, s)
	for _, w := range writes {
		if err := s.Peek(ctx, func(tx stockade.Tx) error { return w.fn(ctx, tx) }); err == nil {
			t.Errorf("%s in Peek succeeded, want an error", w.name)
		}
	}
	if after := takeWrites(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("writes in Peek left changes:\nbefore %+v\nafter  %+v", before, after)
	}

	bump := func() {
		t.Helper()
		update(t, s, func(tx stockade.Tx) error {
			_, _, err := tx.LevelUpdate(ctx, keyA1, stockade.Delta{OnHand: 1}, stockade.Guard{})
			return err
		})
	}
	onHand := func(tx stockade.Tx) (int64, error) {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{keyA1}})
		if err != nil || len(ls) != 1 {
			return 0, fmt.Errorf("level %v: %+v, %w", keyA1, ls, err)
		}
		return ls[0].OnHand, nil
	}
	err := s.Peek(ctx, func(tx stockade.Tx) error {
		first, err := onHand(tx)
		if err != nil {
			return err
		}
		if _, err := tx.ShowGetHead(ctx, stockade.ByID{ID: "no-such-show"}); stockade.ErrorCode(err) != stockade.ENotFound {
			return fmt.Errorf("an unknown show: %w, want %s", err, stockade.ENotFound)
		}
		bump()
		second, err := onHand(tx)
		if err != nil {
			return err
		}
		if second != first+1 {
			t.Errorf("a read after another transaction committed saw on hand %d, want %d", second, first+1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Peek(ctx, func(stockade.Tx) error { return errBoom }); !errors.Is(err, errBoom) {
		t.Errorf("Peek returned %v, want fn's error", err)
	}
}

// updateHeldOpen runs write in an Update that stays open, once write has
// returned, until release is called or ctx ends; done receives the
// Update's outcome. It fails the test if write fails.
func updateHeldOpen(t *testing.T, ctx context.Context, s stockade.Store, write func(tx stockade.Tx) error) (release func(), done <-chan error) {
	t.Helper()
	written, released := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- s.Update(ctx, func(tx stockade.Tx) error {
			if err := write(tx); err != nil {
				return err
			}
			close(written)
			select {
			case <-released:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	select {
	case <-written:
	case err := <-result:
		t.Fatalf("the Update held open: %v", err)
	}
	return sync.OnceFunc(func() { close(released) }), result
}

// testViewDoesNotWait checks that a View neither waits for an Update in
// progress nor sees its uncommitted writes.
func testViewDoesNotWait(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	seed(t, s, level{Key: keyA1, OnHand: 10})

	release, done := updateHeldOpen(t, ctx, s, func(tx stockade.Tx) error {
		if _, _, err := tx.LevelSetOnHand(ctx, keyA1, 50, nil); err != nil {
			return err
		}
		_, _, err := tx.LevelUpdate(ctx, keyA1, stockade.Delta{Reserved: 5}, stockade.Guard{})
		return err
	})
	err := s.View(ctx, func(tx stockade.Tx) error {
		ls, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{keyA1}})
		if err != nil {
			return err
		}
		if len(ls) != 1 || ls[0].OnHand != 10 || ls[0].Reserved != 0 {
			t.Errorf("View during an Update saw %+v, want the committed 10 on hand, 0 reserved", ls)
		}
		return nil
	})
	release()
	if err != nil {
		t.Errorf("View while an Update is in progress: %v (a hang here means View waited for the Update)", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Update: %v", err)
	}
	if l, _ := getLevel(t, s, keyA1); l.OnHand != 50 || l.Reserved != 5 {
		t.Errorf("after the Update committed: %+v, want 50 on hand, 5 reserved", l)
	}
}

// checkExcludes runs transactions that each call lock and then look for
// another transaction past the same call, and fails the test if it finds
// one. Each transaction holds on for a moment to give an overlap the
// chance to show; the pass or fail does not depend on timing.
func checkExcludes(t *testing.T, s stockade.Store, lock func(ctx context.Context, tx stockade.Tx) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers, rounds = 6, 4
	var inside, overlaps atomic.Int32
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				_, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						if err := lock(ctx, tx); err != nil {
							return err
						}
						if inside.Add(1) > 1 {
							overlaps.Add(1)
						}
						time.Sleep(2 * time.Millisecond)
						inside.Add(-1)
						return nil
					})
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update: %v", err)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d transactions ran while another held the same lock", n)
	}
}

// testLocksExclude checks that the reads with lock exclude each other on
// the same rows until commit. With RowLocks they take row locks; without,
// every write transaction holds the whole database, which excludes too.
func testLocksExclude(t *testing.T, s stockade.Store) {
	seed(t, s, level{Key: keyA1, OnHand: 10}, level{Key: keyA2, OnHand: 10})
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx, reservation("r-1", stockade.Held, base, keyA1)); err != nil {
			return err
		}
		return tx.OrderInsert(ctx, stockade.Order{ID: "o-1", Status: stockade.Committed, CreatedAt: base})
	})
	tests := []struct {
		name string
		lock func(ctx context.Context, tx stockade.Tx) error
	}{
		{"Levels", func(ctx context.Context, tx stockade.Tx) error {
			_, err := tx.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{keyA2, keyA1}, Lock: true})
			return err
		}},
		{"LevelList", func(ctx context.Context, tx stockade.Tx) error {
			_, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{keyA1.SKU}, Lock: true})
			return err
		}},
		{"Reservation", func(ctx context.Context, tx stockade.Tx) error {
			_, err := tx.ReservationGet(ctx, stockade.ByID{ID: "r-1", Lock: true})
			return err
		}},
		{"Order", func(ctx context.Context, tx stockade.Tx) error {
			_, err := tx.OrderGet(ctx, stockade.ByID{ID: "o-1", Lock: true})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkExcludes(t, s, tc.lock) })
	}
}

func testAdvisoryLock(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	if !s.Features().AdvisoryLocks {
		err := s.Update(ctx, func(tx stockade.Tx) error { return tx.AdvisoryLock(ctx, []stockade.Key{keyA1}) })
		if !errors.Is(err, stockade.ErrUnsupported) {
			t.Errorf("AdvisoryLock without Features().AdvisoryLocks = %v, want ErrUnsupported", err)
		}
		return
	}

	t.Run("excludes", func(t *testing.T) {
		checkExcludes(t, s, func(ctx context.Context, tx stockade.Tx) error {
			return tx.AdvisoryLock(ctx, []stockade.Key{keyB1, keyA1})
		})
	})
	t.Run("other keys do not wait", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
		defer cancel()
		held, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.Update(ctx, func(tx stockade.Tx) error {
				if err := tx.AdvisoryLock(ctx, []stockade.Key{keyA1}); err != nil {
					return err
				}
				close(held)
				<-release
				return nil
			})
		}()
		select {
		case <-held:
		case err := <-done:
			t.Fatalf("AdvisoryLock(%s): %v", keyA1, err)
		}
		_, err := retry(ctx, func() error {
			return s.Update(ctx, func(tx stockade.Tx) error { return tx.AdvisoryLock(ctx, []stockade.Key{keyA2, keyB1}) })
		})
		close(release)
		if err != nil {
			t.Errorf("AdvisoryLock on other keys while %s is held: %v (a hang here means it waited)", keyA1, err)
		}
		if err := <-done; err != nil {
			t.Errorf("AdvisoryLock(%s): %v", keyA1, err)
		}
	})
}

// testSkipLocked checks that, with SkipLocked, a second sweeper skips the
// lapse candidates the first has locked.
func testSkipLocked(t *testing.T, s stockade.Store) {
	if !s.Features().SkipLocked {
		t.Skip("the store does not offer SkipLocked")
	}
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	seed(t, s, level{Key: keyA1})
	update(t, s, func(tx stockade.Tx) error {
		for i, id := range []string{"r-1", "r-2", "r-3"} {
			r := reservation(id, stockade.Held, base.Add(time.Duration(i-10)*time.Minute), keyA1)
			if err := tx.ReservationInsert(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	ids := func(cs []stockade.ReservationLapseCandidate) []string {
		var ids []string
		for _, c := range cs {
			ids = append(ids, c.Reservation.ID)
		}
		return ids
	}

	locked, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(ctx, func(tx stockade.Tx) error {
			rs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: base, Limit: 1})
			if err != nil {
				return err
			}
			if got := ids(rs); !equalSlices(got, []string{"r-1"}) {
				t.Errorf("first sweeper got %q, want [r-1]", got)
			}
			close(locked)
			<-release
			return nil
		})
	}()
	select {
	case <-locked:
	case err := <-done:
		t.Fatalf("first sweeper: %v", err)
	}
	_, err := retry(ctx, func() error {
		return s.Update(ctx, func(tx stockade.Tx) error {
			rs, err := tx.ReservationLapseCandidates(ctx, stockade.ReservationLapseQuery{ExpiredBefore: base, Limit: 10})
			if err != nil {
				return err
			}
			if got := ids(rs); !equalSlices(got, []string{"r-2", "r-3"}) {
				t.Errorf("second sweeper got %q, want [r-2 r-3]", got)
			}
			return nil
		})
	})
	close(release)
	if err != nil {
		t.Errorf("second sweeper: %v (a hang here means it waited for the first)", err)
	}
	if err := <-done; err != nil {
		t.Errorf("first sweeper: %v", err)
	}
}
