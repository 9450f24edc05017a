package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/postgres"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// sys returns tb's context carrying the service's own actor, as every
// call to the engine needs one.
func sys(tb testing.TB) context.Context { return stockade.WithActor(tb.Context(), stockade.System) }

// bound turns a hang (a deadlock, a lock never released) into a failure;
// no test depends on how fast a store is.
const bound = 60 * time.Second

// A backend opens a fresh, migrated, empty store for a test.
type backend struct {
	name string
	open func(t *testing.T) stockade.Store
}

var backends = []backend{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
}

// strategies are every strategy; on SQLite rowlock and advisory fall back.
var strategies = engine.Strategies()

// openSQLite opens a store on a new migrated file of the test's.
func openSQLite(t *testing.T) stockade.Store { return teststore.OpenSQLite(t, nil) }

func openPostgres(t *testing.T) stockade.Store { return openPostgresN(t, 1)[0] }

// openPostgresN opens n stores, each with a pool of its own, on one fresh
// migrated database of the shared server, as n service instances would.
func openPostgresN(t *testing.T, n int) []stockade.Store {
	t.Helper()
	return openPostgresNOn(t, testkit.SharedPostgres(t), n)
}

// openPostgresNOn is openPostgresN on server pg.
func openPostgresNOn(t *testing.T, pg *testkit.Postgres, n int) []stockade.Store {
	t.Helper()
	url := teststore.PostgresURLOn(t, pg)
	var stores []stockade.Store
	for range n {
		s, err := postgres.Open(sys(t), url, &postgres.Options{MaxConns: 16})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	return stores
}

// clock is a settable time for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2031, 3, 14, 15, 9, 26, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is an engine on a fresh store, with a settable clock.
type env struct {
	t      *testing.T
	store  stockade.Store
	eng    *engine.Engine
	clock  *clock
	events chan engine.CallReport // the last events, if the buffer has room
}

// newEnv returns an engine with strategy on a store that b opens. opts,
// if not nil, may change the options first.
func newEnv(t *testing.T, b backend, strategy string, opts func(o *engine.Options)) *env {
	t.Helper()
	return newEnvOn(t, b.open(t), strategy, opts)
}

func newEnvOn(t *testing.T, s stockade.Store, strategy string, opts func(o *engine.Options)) *env {
	t.Helper()
	en := &env{t: t, store: s, clock: newClock(), events: make(chan engine.CallReport, 4096)}
	o := &engine.Options{
		Strategy: strategy,
		Now:      en.clock.Now,
		Logger:   slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		Observer: func(ev engine.CallReport) {
			select {
			case en.events <- ev:
			default:
			}
		},
	}
	if strategy == engine.Lock {
		o.Locker = memlock.New(nil)
	}
	if opts != nil {
		opts(o)
	}
	eng, err := engine.New(s, o)
	if err != nil {
		t.Fatal(err)
	}
	en.eng = eng
	return en
}

// forEach runs fn as a subtest for every backend and strategy.
func forEach(t *testing.T, fn func(t *testing.T, en *env)) {
	t.Helper()
	for _, b := range backends {
		for _, s := range strategies {
			t.Run(b.name+"/"+s, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				en := newEnv(t, b, s, nil)
				fn(t, en)
				t.Logf("strategy %q, %v", en.eng.Strategy(), time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

// location creates a location at (lat, lon).
func (en *env) location(id string, lat, lon float64) {
	en.t.Helper()
	if _, err := en.eng.PutLocation(sys(en.t), stockade.Location{ID: id, Name: "Warehouse " + id, Point: &stockade.Point{Lat: lat, Lon: lon}}, nil); err != nil {
		en.t.Fatal(err)
	}
}

// stock sets sku's on hand at loc.
func (en *env) stock(sku, loc string, onHand int64) {
	en.t.Helper()
	if _, err := en.eng.SetStock(sys(en.t), stockade.Key{SKU: sku, Location: loc}, onHand, nil, nil); err != nil {
		en.t.Fatal(err)
	}
}

// level returns the level at sku@loc (the zero Level if missing).
func (en *env) level(sku, loc string) stockade.Level {
	en.t.Helper()
	var l stockade.Level
	err := en.store.View(en.t.Context(), func(tx stockade.Tx) error {
		ls, err := tx.LevelList(en.t.Context(), stockade.LevelQuery{Keys: []stockade.Key{{SKU: sku, Location: loc}}})
		if len(ls) == 1 {
			l = ls[0]
		}
		return err
	})
	if err != nil {
		en.t.Fatal(err)
	}
	return l
}

// state is every level and every ledger row, to check that a refused
// call changed nothing.
type state struct {
	levels    []stockade.Level
	movements int
}

func (en *env) state() state {
	en.t.Helper()
	var s state
	err := en.store.View(en.t.Context(), func(tx stockade.Tx) error {
		var err error
		if s.levels, err = tx.LevelList(en.t.Context(), stockade.LevelQuery{All: true}); err != nil {
			return err
		}
		ms, err := tx.MovementList(en.t.Context(), stockade.MovementFilter{Limit: 100000})
		s.movements = len(ms)
		return err
	})
	if err != nil {
		en.t.Fatal(err)
	}
	return s
}

// balanced fails the test unless Reconcile finds the ledger balanced.
func (en *env) balanced() {
	en.t.Helper()
	rep, err := en.eng.Reconcile(sys(en.t))
	if err != nil {
		en.t.Fatal(err)
	}
	if !rep.OK {
		for _, m := range rep.Mismatches {
			en.t.Errorf("reconcile: %s", m)
		}
	}
}

// wantCode fails the test unless err has code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := stockade.ErrorCode(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func lines(ls ...stockade.Line) stockade.ReserveRequest { return stockade.ReserveRequest{Lines: ls} }

func line(sku string, q int64, loc string) stockade.Line {
	return stockade.Line{SKU: sku, Quantity: q, Location: loc}
}

func ptr[T any](v T) *T { return &v }

// hooked is a store that lets a test step in: before is called before
// each Update with its ordinal (from 1) and, if it returns an error, the
// Update returns that instead of running; wrap, if set, wraps the
// transaction Update's function is given.
type hooked struct {
	stockade.Store
	n      atomic.Int64
	before func(n int64) error
	wrap   func(tx stockade.Tx) stockade.Tx
}

var errBoom = errors.New("test: boom")

func (h *hooked) Update(ctx context.Context, fn func(tx stockade.Tx) error) error {
	if n := h.n.Add(1); h.before != nil {
		if err := h.before(n); err != nil {
			return err
		}
	}
	if h.wrap == nil {
		return h.Store.Update(ctx, fn)
	}
	return h.Store.Update(ctx, func(tx stockade.Tx) error { return fn(h.wrap(tx)) })
}

// errConflict is an error a store returns for a transaction that met another.
var errConflict = fmt.Errorf("test: injected: %w", stockade.ErrConflict)
