package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
)

// features is a store that declares other features than it has, to
// exercise a fallback.
type features struct {
	stockade.Store
	f stockade.Features
}

func (f features) Features() stockade.Features { return f.f }

func TestNew(t *testing.T) {
	t.Parallel()
	s := openSQLite(t)
	serial := func(name, missing string) string {
		return name + " (fallback: serialized write transactions, the store has no " + missing + ")"
	}
	for _, tc := range []struct {
		store    stockade.Store
		strategy string
		locker   lock.Locker
		want     string // Strategy(), or the start of New's error
	}{
		{s, "", nil, "atomic"},
		{s, engine.Optimistic, nil, "optimistic"},
		{s, engine.RowLock, nil, serial("rowlock", "row locks")},
		{s, engine.Advisory, nil, serial("advisory", "advisory locks")},
		{features{s, stockade.Features{RowLocks: true}}, engine.Advisory, nil, "advisory (fallback: rowlock, the store has no advisory locks)"},
		{features{s, stockade.Features{RowLocks: true, AdvisoryLocks: true}}, engine.Advisory, nil, "advisory"},
		{s, engine.Lock, memlock.New(nil), "lock"},
		{s, engine.Lock, nil, "engine: the lock strategy needs Options.Locker"},
		{s, engine.Batch, nil, "batch"},
		{s, "batchy", nil, `engine: unknown strategy "batchy"`},
	} {
		e, err := engine.New(tc.store, &engine.Options{Strategy: tc.strategy, Locker: tc.locker})
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = e.Strategy()
		}
		if !strings.HasPrefix(got, tc.want) || (err == nil && got != tc.want) {
			t.Errorf("New(%q) on %+v: %q, want %q", tc.strategy, tc.store.Features(), got, tc.want)
		}
	}
	if _, err := engine.New(nil, nil); err == nil {
		t.Error("New with a nil store: no error")
	}
}

// TestAdvisoryFallsBackToRowLock runs a sale with the advisory strategy on
// PostgreSQL declared without advisory locks.
func TestAdvisoryFallsBackToRowLock(t *testing.T) {
	t.Parallel()
	s := features{openPostgres(t), stockade.Features{RowLocks: true, SkipLocked: true}}
	en := newEnvOn(t, s, engine.Advisory, nil)
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 2)
	for _, want := range []string{"", "", stockade.EInsufficientStock} {
		_, err := en.eng.Checkout(sys(t), lines(line("tee", 1, "")), nil)
		wantCode(t, err, want)
	}
	en.balanced()
}

// lastEvent returns the last event of op that en's observer saw.
func (en *env) lastEvent(op string) engine.CallReport {
	en.t.Helper()
	var last engine.CallReport
	for {
		select {
		case ev := <-en.events:
			if ev.Op == op {
				last = ev
			}
		default:
			if last.Op == "" {
				en.t.Fatalf("no %s event", op)
			}
			return last
		}
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	h := &hooked{Store: openSQLite(t)}
	en := newEnvOn(t, h, engine.Atomic, nil)
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 5)

	// Conflicts are retried.
	first := h.n.Load() + 1
	h.before = func(n int64) error {
		if n < first+3 {
			return errConflict
		}
		return nil
	}
	if _, err := en.eng.Reserve(sys(t), lines(line("tee", 1, "")), nil); err != nil {
		t.Fatal(err)
	}
	if ev := en.lastEvent("reserve"); ev.Attempts != 4 || ev.Code != "" {
		t.Errorf("event %+v: want success after 4 attempts", ev)
	}

	// Conflicts until the deadline: unavailable, never "busy" as a refusal.
	h.before = func(int64) error { return errConflict }
	before := en.state()
	ctx, cancel := context.WithTimeout(sys(t), 200*time.Millisecond)
	defer cancel()
	_, err := en.eng.Checkout(ctx, lines(line("tee", 1, "")), nil)
	wantCode(t, err, stockade.EUnavailable)
	h.before = nil
	if after := en.state(); after.movements != before.movements {
		t.Errorf("a call that gave up wrote to the ledger")
	}
	if ev := en.lastEvent("checkout"); ev.Attempts < 2 || ev.Code != stockade.EUnavailable {
		t.Errorf("event %+v: want several attempts, then unavailable", ev)
	}
}

// interfering is a transaction in which, just before the engine's first
// write that takes stock at key, a "concurrent" adjustment removes 3 units
// there (with its ledger row): the write then fails as if another request
// had got there first.
type interfering struct {
	stockade.Tx
	key   stockade.Key
	armed *atomic.Bool
}

func (i interfering) LevelUpdate(ctx context.Context, k stockade.Key, d stockade.Delta, g stockade.Guard) (stockade.Level, bool, error) {
	if k == i.key && d.Reserved+d.Committed > 0 && i.armed.CompareAndSwap(true, false) {
		if _, _, err := i.Tx.LevelUpdate(ctx, k, stockade.Delta{OnHand: -3}, stockade.Guard{}); err != nil {
			return stockade.Level{}, false, err
		}
		err := i.Tx.MovementAppend(ctx, stockade.Movement{SKU: k.SKU, Location: k.Location,
			Kind: stockade.MoveAdjust, Delta: stockade.Delta{OnHand: -3}, Reason: "interference"})
		if err != nil {
			return stockade.Level{}, false, err
		}
	}
	return i.Tx.LevelUpdate(ctx, k, d, g)
}

// TestReallocate changes a level between the engine's read and its write.
// Every strategy that reads without locks retries the transaction, in
// which the change (rolled back with the first) does not happen again, and
// allocates from a fresh read.
func TestReallocate(t *testing.T) {
	t.Parallel()
	a := func(loc string, q int64) stockade.Allocation {
		return stockade.Allocation{SKU: "tee", Location: loc, Quantity: q}
	}
	for _, b := range backends {
		for _, tc := range []struct {
			strategy string
			attempts int
			want     []stockade.Allocation
		}{
			{engine.Atomic, 2, []stockade.Allocation{a("a", 4)}},
			{engine.Lock, 2, []stockade.Allocation{a("a", 4)}},
			{engine.Optimistic, 2, []stockade.Allocation{a("a", 4)}},
		} {
			t.Run(b.name+"/"+tc.strategy, func(t *testing.T) {
				t.Parallel()
				armed := &atomic.Bool{}
				h := &hooked{Store: b.open(t)}
				h.wrap = func(tx stockade.Tx) stockade.Tx {
					return interfering{Tx: tx, key: stockade.Key{SKU: "tee", Location: "a"}, armed: armed}
				}
				en := newEnvOn(t, h, tc.strategy, nil)
				en.location("a", 0, 0)
				en.location("b", 0, 0)
				en.stock("tee", "a", 5) // most available: taken first
				en.stock("tee", "b", 3)
				armed.Store(true)
				r, err := en.eng.Reserve(sys(t), lines(line("tee", 4, "")), nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Allocations) != len(tc.want) || (len(r.Allocations) > 0 && r.Allocations[0] != tc.want[0]) ||
					(len(r.Allocations) > 1 && r.Allocations[1] != tc.want[1]) {
					t.Errorf("allocations %v, want %v", r.Allocations, tc.want)
				}
				if ev := en.lastEvent("reserve"); ev.Attempts != tc.attempts {
					t.Errorf("%d transactions, want %d", ev.Attempts, tc.attempts)
				}
				en.balanced()
			})
		}
	}
}

// staleLocker hands out leases whose token is 1, as a holder whose lease
// ran out while it was paused would still carry, while stale > 0.
type staleLocker struct {
	lock.Locker
	stale atomic.Int64
}

type staleLease struct{ lock.Lease }

func (staleLease) Token() uint64 { return 1 }

func (s *staleLocker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	l, err := s.Locker.Acquire(ctx, key, opts...)
	if err == nil && s.stale.Add(-1) >= 0 {
		return staleLease{l}, nil
	}
	return l, err
}

// TestFencing has the lock strategy write with a token older than the
// level's fence: the store refuses the write, and the engine retries with
// a new lease, or gives up at the deadline without writing.
func TestFencing(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			locker := &staleLocker{Locker: memlock.New(&memlock.Options{FirstToken: 100})}
			en := newEnv(t, b, engine.Lock, func(o *engine.Options) { o.Locker = locker })
			en.location("w1", 0, 0)
			en.stock("tee", "w1", 10)
			if _, err := en.eng.Reserve(sys(t), lines(line("tee", 1, "w1")), nil); err != nil {
				t.Fatal(err)
			}
			fence := en.level("tee", "w1").Fence
			if fence < 100 {
				t.Fatalf("fence after a write under lease = %d, want the lease's token", fence)
			}

			locker.stale.Store(1)
			if _, err := en.eng.Reserve(sys(t), lines(line("tee", 1, "w1")), nil); err != nil {
				t.Fatal(err)
			}
			if ev := en.lastEvent("reserve"); ev.Attempts != 2 {
				t.Errorf("%d attempts, want 2: the stale write refused, then retried", ev.Attempts)
			}
			l := en.level("tee", "w1")
			if l.Fence <= fence || l.Reserved != 2 {
				t.Errorf("level %+v: want 2 reserved, fence above %d", l, fence)
			}

			locker.stale.Store(1 << 30)
			ctx, cancel := context.WithTimeout(sys(t), 200*time.Millisecond)
			defer cancel()
			_, err := en.eng.Reserve(ctx, lines(line("tee", 1, "w1")), nil)
			wantCode(t, err, stockade.EUnavailable)
			if got := en.level("tee", "w1"); got.Reserved != 2 {
				t.Errorf("a stale holder wrote: %+v", got)
			}
			en.balanced()
		})
	}
}
