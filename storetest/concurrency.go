package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// reserve1 reserves one unit at k and writes its ledger row, in one
// transaction, and reports whether the store had it.
func reserve1(ctx context.Context, s stockade.Store, k stockade.Key, ref string) (bool, error) {
	var got bool
	err := s.Update(ctx, func(tx stockade.Tx) error {
		got = false
		_, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 1}, stockade.Guard{})
		if err != nil || !ok {
			return err
		}
		got = true
		return tx.MovementAppend(ctx, stockade.Movement{At: base, SKU: k.SKU, Location: k.Location,
			Kind: stockade.MoveReserve, Delta: stockade.Delta{Reserved: 1}, Ref: ref})
	})
	return got, err
}

// checkBalanced fails the test unless every level's counters equal the sums
// of its ledger rows.
func checkBalanced(t *testing.T, s stockade.Store) {
	t.Helper()
	ctx := t.Context()
	view(t, s, func(tx stockade.Tx) error {
		levels, err := tx.LevelList(ctx, stockade.LevelQuery{All: true})
		if err != nil {
			return err
		}
		sums, err := tx.MovementSums(ctx)
		if err != nil {
			return err
		}
		for _, l := range levels {
			want := stockade.Delta{OnHand: l.OnHand, Reserved: l.Reserved, Committed: l.Committed}
			if got := sums[l.Key()]; got != want {
				t.Errorf("%s: counters %+v, ledger sums %+v", l.Key(), want, got)
			}
		}
		return nil
	})
}

// testConcurrentReserve is the point of the product: many requests race for
// the last units of one level, and exactly as many succeed as there are
// units, whatever the store does underneath.
func testConcurrentReserve(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers, stock = 32, 100
	k := stockade.Key{SKU: "hot", Location: "w1"}
	seed(t, s, level{Key: k, OnHand: stock})
	before, _ := getLevel(t, s, k)

	var won, refused, conflicts atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				var ok bool
				n, err := retry(ctx, func() error {
					var err error
					ok, err = reserve1(ctx, s, k, fmt.Sprintf("w%d-%d", w, i))
					return err
				})
				conflicts.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					refused.Add(1)
					return
				}
				won.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("reserve: %v (only errors wrapping stockade.ErrConflict are legal, and the test retries them)", err)
	}
	t.Logf("%d reserved, %d refused, %d conflicts retried", won.Load(), refused.Load(), conflicts.Load())
	if won.Load() != stock || refused.Load() != workers {
		t.Errorf("%d reservations succeeded and %d workers were refused, want %d and %d", won.Load(), refused.Load(), stock, workers)
	}
	after, _ := getLevel(t, s, k)
	if after.OnHand != stock || after.Reserved != stock || after.Committed != 0 || after.Available() != 0 {
		t.Errorf("level after the race = %+v, want %d on hand, all of it reserved", after, stock)
	}
	if after.Version < before.Version+stock {
		t.Errorf("version after %d writes = %d, want at least %d", stock, after.Version, before.Version+stock)
	}
	view(t, s, func(tx stockade.Tx) error {
		ms, err := tx.MovementList(ctx, stockade.MovementFilter{SKU: k.SKU, Limit: 1000})
		if err != nil {
			return err
		}
		refs := map[string]bool{}
		for _, m := range ms {
			if m.Kind != stockade.MoveReserve {
				continue
			}
			if refs[m.Ref] {
				t.Errorf("ledger row %q written twice", m.Ref)
			}
			refs[m.Ref] = true
		}
		if len(refs) != stock {
			t.Errorf("%d reserve rows in the ledger, want %d", len(refs), stock)
		}
		return nil
	})
	checkBalanced(t, s)
}

// testOppositeOrder runs two kinds of transaction that update two SKUs in
// opposite orders after locking both with LevelList in key order, as the
// rowlock strategy does. Taking the locks in key order first is what keeps
// them from waiting on each other in a cycle. It means something only for
// a store with RowLocks; without, write transactions run one at a time.
// With RowLocks, a conflict fails the test rather than being retried: a
// deadlock that the database detects and breaks is still a deadlock.
func testOppositeOrder(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	rowLocks := s.Features().RowLocks
	if !rowLocks {
		t.Log("the store has no RowLocks: write transactions run one at a time, so this cannot deadlock")
	}
	try := retry
	if rowLocks {
		try = func(ctx context.Context, fn func() error) (int, error) { return 0, fn() }
	}
	const rounds = 50
	x := stockade.Key{SKU: "X", Location: "w1"}
	y := stockade.Key{SKU: "Y", Location: "w1"}
	seed(t, s, level{Key: x, OnHand: 1000}, level{Key: y, OnHand: 1000})

	var conflicts atomic.Int64
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for g, order := range [][]stockade.Key{{x, y}, {y, x}} {
		wg.Go(func() {
			for i := range rounds {
				n, err := try(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						for _, k := range []stockade.Key{x, y} { // key order
							if _, err := tx.LevelList(ctx, stockade.LevelQuery{SKUs: []string{k.SKU}, Lock: true}); err != nil {
								return err
							}
						}
						for _, k := range order {
							_, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 1}, stockade.Guard{})
							if err != nil {
								return err
							}
							if !ok {
								return fmt.Errorf("LevelUpdate(%s) refused with stock left", k)
							}
							err = tx.MovementAppend(ctx, stockade.Movement{At: base, SKU: k.SKU, Location: k.Location,
								Kind: stockade.MoveReserve, Delta: stockade.Delta{Reserved: 1}, Ref: fmt.Sprintf("g%d-%d", g, i)})
							if err != nil {
								return err
							}
						}
						return nil
					})
				})
				conflicts.Add(int64(n))
				if err != nil {
					switch {
					case errors.Is(err, context.DeadlineExceeded):
						err = fmt.Errorf("%w (deadlocked?)", err)
					case errors.Is(err, stockade.ErrConflict):
						err = fmt.Errorf("%w (with RowLocks, locks taken in key order must not conflict)", err)
					}
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
	if n := conflicts.Load(); n > 0 {
		t.Logf("%d conflicts retried", n)
	}
	for _, k := range []stockade.Key{x, y} {
		if l, _ := getLevel(t, s, k); l.Reserved != 2*rounds {
			t.Errorf("%s reserved = %d, want %d", k, l.Reserved, 2*rounds)
		}
	}
	checkBalanced(t, s)
}

// testIdempotencyClaim has many requests with the same Idempotency-Key
// race to use it, as the engine does: in one Update, read the key and, if
// there is no record, write one with the effect. Exactly one must win. The
// store has to make that read and write atomic: a single writer does,
// and so does a lock that Idempotency takes on the key in an Update.
func testIdempotencyClaim(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const workers = 16
	var claims, conflicts atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var claimed bool
			n, err := retry(ctx, func() error {
				return s.Update(ctx, func(tx stockade.Tx) error {
					claimed = false
					_, ok, err := idempotencyRecord(ctx, tx, "k-race")
					if err != nil || ok {
						return err
					}
					time.Sleep(2 * time.Millisecond) // widen the window between read and write
					claimed = true
					return tx.IdempotencyPut(ctx, stockade.IdempotencyRecord{Key: "k-race", Op: "reserve",
						Fingerprint: fmt.Sprintf("worker %d", w), Result: []byte("{}"), CreatedAt: base})
				})
			})
			conflicts.Add(int64(n))
			if err != nil {
				errs <- err
				return
			}
			if claimed {
				claims.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("claim: %v", err)
	}
	if n := claims.Load(); n != 1 {
		t.Errorf("%d requests claimed the same idempotency key, want exactly 1 (%d conflicts retried)", n, conflicts.Load())
	}
}

// testIdempotenciesOrder has transactions read and write overlapping sets
// of idempotency keys given in opposite orders: the store takes their
// locks in one fixed order, so none waits in a cycle (a deadlock the
// database would have to break, which would surface as ErrConflict).
func testIdempotenciesOrder(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	keys := []string{"k-a", "k-b", "k-c", "k-d"}
	var conflicts atomic.Int64
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			mine := slices.Clone(keys)
			if w%2 == 1 {
				slices.Reverse(mine)
			}
			for i := range 20 {
				n, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						if _, err := tx.IdempotencyGetMany(ctx, mine); err != nil {
							return err
						}
						time.Sleep(100 * time.Microsecond) // hold the locks a while
						recs := make([]stockade.IdempotencyRecord, len(mine))
						for j, k := range mine {
							recs[j] = stockade.IdempotencyRecord{Key: k, Op: "reserve", Fingerprint: fmt.Sprintf("w%d-%d", w, i),
								Result: []byte("{}"), CreatedAt: base}
						}
						return tx.IdempotencyPut(ctx, recs...)
					})
				})
				conflicts.Add(int64(n))
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
		t.Error(err)
	}
	if n := conflicts.Load(); n != 0 {
		t.Errorf("%d conflicts: the key locks were taken in an order that let transactions wait in a cycle", n)
	}
}
