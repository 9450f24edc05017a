package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/sqlite"
)

// gated is a real store whose write transactions a test can hold back and
// fail, so that it decides which calls share a batch.
type gated struct {
	stockade.Store
	updates atomic.Int64 // Updates started since the gate was armed
	armed   atomic.Bool
	open    chan struct{} // the first Update after arming waits for it
	// fail, if set, is asked before each Update once armed (n from 1); an
	// error is returned instead of running the transaction.
	fail func(n int64) error
}

func (g *gated) Update(ctx context.Context, fn func(tx stockade.Tx) error) error {
	if !g.armed.Load() {
		return g.Store.Update(ctx, fn)
	}
	n := g.updates.Add(1)
	if n == 1 {
		<-g.open
	}
	if g.fail != nil {
		if err := g.fail(n); err != nil {
			return err
		}
	}
	return g.Store.Update(ctx, fn)
}

// batchEnv is a Batch engine on a gated SQLite store with location w1 and
// stock there (SKU → on hand).
type batchEnv struct {
	t     *testing.T
	store *gated
	eng   *Engine
}

func newBatchEnv(t *testing.T, stock map[string]int64) *batchEnv {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "stockade.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	g := &gated{Store: s, open: make(chan struct{})}
	eng, err := New(g, &Options{Strategy: Batch, MinBackoff: time.Microsecond, MaxBackoff: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.PutLocation(t.Context(), stockade.Location{ID: "w1", Name: "Warehouse 1"}); err != nil {
		t.Fatal(err)
	}
	for sku, onHand := range stock {
		if _, err := eng.SetStock(t.Context(), stockade.Key{SKU: sku, Location: "w1"}, onHand, nil); err != nil {
			t.Fatal(err)
		}
	}
	return &batchEnv{t: t, store: g, eng: eng}
}

// started is a Reserve or Checkout that a test started.
type started struct {
	done chan struct{}
	res  stockade.Reservation
	ord  stockade.Order
	err  error
}

// start begins a Reserve (or, with checkout, a Checkout) of req under ctx.
func (b *batchEnv) start(ctx context.Context, req stockade.ReserveRequest, checkout bool) *started {
	c := &started{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		if checkout {
			c.ord, c.err = b.eng.Checkout(ctx, req)
		} else {
			c.res, c.err = b.eng.Reserve(ctx, req)
		}
	}()
	return c
}

// wait polls until cond holds, or fails the test after a while.
func (b *batchEnv) wait(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			b.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// queued returns how many calls wait for a batch.
func (b *batchEnv) queued() int {
	b.eng.batch.mu.Lock()
	defer b.eng.batch.mu.Unlock()
	n := 0
	for _, p := range b.eng.batch.queue {
		if !p.withdrawn {
			n++
		}
	}
	return n
}

// hold arms the gate and starts a first call, which the gate holds in its
// batch's transaction, so that the calls started next queue behind it.
func (b *batchEnv) hold(req stockade.ReserveRequest) *started {
	b.t.Helper()
	b.store.armed.Store(true)
	c := b.start(b.t.Context(), req, false)
	b.wait("the first batch is in its transaction", func() bool { return b.store.updates.Load() == 1 })
	return c
}

// queue starts a call and waits until it is queued.
func (b *batchEnv) queue(ctx context.Context, req stockade.ReserveRequest, checkout bool) *started {
	b.t.Helper()
	n := b.queued()
	c := b.start(ctx, req, checkout)
	b.wait(fmt.Sprintf("call %d is queued", n+1), func() bool { return b.queued() == n+1 })
	return c
}

func (b *batchEnv) level(sku string) stockade.Level {
	b.t.Helper()
	var l stockade.Level
	err := b.store.View(b.t.Context(), func(tx stockade.Tx) error {
		ls, err := tx.Levels(b.t.Context(), []stockade.Key{{SKU: sku, Location: "w1"}}, false)
		if len(ls) == 1 {
			l = ls[0]
		}
		return err
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return l
}

func (b *batchEnv) balanced() {
	b.t.Helper()
	rep, err := b.eng.Reconcile(b.t.Context())
	if err != nil {
		b.t.Fatal(err)
	}
	for _, m := range rep.Mismatches {
		b.t.Errorf("reconcile: %s", m)
	}
}

func reqOf(ls ...stockade.Line) stockade.ReserveRequest { return stockade.ReserveRequest{Lines: ls} }

func ln(sku string, q int64) stockade.Line { return stockade.Line{SKU: sku, Quantity: q} }

// TestBatchArrivalOrder queues calls behind a held batch, so that one
// transaction decides them all: each in arrival order, each all or
// nothing, reservations and a checkout together.
func TestBatchArrivalOrder(t *testing.T) {
	b := newBatchEnv(t, map[string]int64{"a": 6, "b": 1})
	first := b.hold(reqOf(ln("a", 1)))
	ctx := t.Context()
	calls := []struct {
		c    *started
		want string // error code
	}{
		{b.queue(ctx, reqOf(ln("a", 3), ln("b", 2)), false), stockade.EInsufficientStock}, // b has 1: takes no a either
		{b.queue(ctx, reqOf(ln("a", 4)), false), ""},                                      // 5 left
		{b.queue(ctx, reqOf(ln("b", 1), ln("a", 1)), true), ""},                           // a checkout: the last b, 1 a
		{b.queue(ctx, reqOf(ln("a", 1)), false), stockade.EInsufficientStock},             // a is gone
		{b.queue(ctx, reqOf(ln("nope", 1)), false), stockade.ENotFound},
	}
	close(b.store.open)
	<-first.done
	if first.err != nil {
		t.Fatalf("first call: %v", first.err)
	}
	for i, tc := range calls {
		<-tc.c.done
		if got := stockade.ErrorCode(tc.c.err); got != tc.want {
			t.Errorf("call %d: error %v, want code %q", i+1, tc.c.err, tc.want)
		}
	}
	if n := b.store.updates.Load(); n != 2 {
		t.Errorf("%d write transactions, want 2: the held one and one for the five queued calls", n)
	}
	if r := calls[1].c.res; r.Status != stockade.Held || len(r.Allocations) != 1 || r.Allocations[0].Quantity != 4 {
		t.Errorf("second call's reservation %+v, want 4 a held", r)
	}
	if o := calls[2].c.ord; o.Status != stockade.Committed || len(o.Allocations) != 2 {
		t.Errorf("checkout's order %+v, want committed a and b", o)
	}
	if a, want := b.level("a"), (stockade.Level{OnHand: 6, Reserved: 5, Committed: 1}); a.OnHand != want.OnHand ||
		a.Reserved != want.Reserved || a.Committed != want.Committed {
		t.Errorf("level a %+v, want %+v", a, want)
	}
	if l := b.level("b"); l.Reserved != 0 || l.Committed != 1 {
		t.Errorf("level b %+v, want 1 committed", l)
	}
	b.balanced()
}

// TestBatchWithdraw: a caller that gives up while its call is queued
// leaves without changing anything, and the batch goes on without it.
func TestBatchWithdraw(t *testing.T) {
	b := newBatchEnv(t, map[string]int64{"a": 5})
	first := b.hold(reqOf(ln("a", 1)))
	ctx, cancel := context.WithCancel(t.Context())
	gone := b.queue(ctx, reqOf(ln("a", 1)), false)
	kept := b.queue(t.Context(), reqOf(ln("a", 2)), false)
	cancel()
	<-gone.done
	if got := stockade.ErrorCode(gone.err); got != stockade.EUnavailable || !errors.Is(gone.err, context.Canceled) {
		t.Errorf("withdrawn call: error %v, want %s wrapping context.Canceled", gone.err, stockade.EUnavailable)
	}
	close(b.store.open)
	<-first.done
	<-kept.done
	if first.err != nil || kept.err != nil {
		t.Fatalf("errors %v and %v", first.err, kept.err)
	}
	if l := b.level("a"); l.Reserved != 3 {
		t.Errorf("level %+v, want 3 reserved: the withdrawn call took nothing", l)
	}
	b.balanced()
}

// TestBatchFailure: a batch whose transaction fails fails each of its
// calls and commits nothing; a conflict is retried; later batches go on.
func TestBatchFailure(t *testing.T) {
	boom := errors.New("test: boom")
	for _, tc := range []struct {
		name    string
		fail    []error // the errors of the second batch's attempts
		want    error   // what its calls get
		updates int64
	}{
		{"failed", []error{boom}, boom, 3},
		{"conflict retried", []error{fmt.Errorf("test: %w", stockade.ErrConflict)}, nil, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatchEnv(t, map[string]int64{"a": 10})
			b.store.fail = func(n int64) error {
				if n >= 2 && int(n-2) < len(tc.fail) {
					return tc.fail[n-2]
				}
				return nil
			}
			first := b.hold(reqOf(ln("a", 1)))
			second := []*started{
				b.queue(t.Context(), reqOf(ln("a", 2)), false),
				b.queue(t.Context(), reqOf(ln("a", 3)), true),
			}
			close(b.store.open)
			<-first.done
			var reserved int64 = 1
			for i, c := range second {
				<-c.done
				if !errors.Is(c.err, tc.want) || (tc.want == nil) != (c.err == nil) {
					t.Errorf("second batch, call %d: error %v, want %v", i+1, c.err, tc.want)
				}
				if c.err == nil {
					reserved += int64(i + 2)
				}
			}
			if tc.want != nil && stockade.ErrorCode(second[0].err) != stockade.EInternal {
				t.Errorf("code %q, want %q", stockade.ErrorCode(second[0].err), stockade.EInternal)
			}
			after := b.start(t.Context(), reqOf(ln("a", 4)), false)
			<-after.done
			if after.err != nil {
				t.Fatalf("a batch after the failed one: %v", after.err)
			}
			reserved += 4
			if l := b.level("a"); l.Reserved+l.Committed != reserved {
				t.Errorf("level %+v, want %d reserved or committed", l, reserved)
			}
			if n := b.store.updates.Load(); n != tc.updates {
				t.Errorf("%d transactions, want %d", n, tc.updates)
			}
			b.balanced()
		})
	}
}

// TestBatchCoalesces: calls that arrive while a batch runs share the next
// transaction, so far fewer transactions run than calls, and the stock is
// never oversold.
func TestBatchCoalesces(t *testing.T) {
	const stock, buyers = 150, 400
	b := newBatchEnv(t, map[string]int64{"hot": stock})
	b.store.armed.Store(true)
	close(b.store.open)
	var (
		won, refused atomic.Int64
		wg           sync.WaitGroup
		start        = make(chan struct{})
	)
	for i := range buyers {
		wg.Go(func() {
			<-start
			var err error
			if i%2 == 0 {
				_, err = b.eng.Checkout(t.Context(), reqOf(ln("hot", 1)))
			} else {
				_, err = b.eng.Reserve(t.Context(), reqOf(ln("hot", 1)))
			}
			switch stockade.ErrorCode(err) {
			case "":
				won.Add(1)
			case stockade.EInsufficientStock:
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won.Load() != stock || refused.Load() != buyers-stock {
		t.Errorf("%d won and %d were refused, want %d and %d", won.Load(), refused.Load(), stock, buyers-stock)
	}
	n := b.store.updates.Load()
	t.Logf("%d calls in %d transactions", buyers, n)
	if n >= buyers/2 {
		t.Errorf("%d transactions for %d concurrent calls: they were not batched", n, buyers)
	}
	if l := b.level("hot"); l.Available() != 0 {
		t.Errorf("level %+v, want none available", l)
	}
	b.balanced()
}

// TestBatchIdempotency queues calls with idempotency keys behind a held
// batch: a key's second call in the same batch replays the first's
// response, another request under the key is refused, and a refusal is
// recorded for replay too, all in the batch's own commit.
func TestBatchIdempotency(t *testing.T) {
	b := newBatchEnv(t, map[string]int64{"a": 3})
	render := func(v any, err error) (int, []byte) {
		if err != nil {
			return 409, []byte(stockade.ErrorCode(err))
		}
		return 201, []byte(fmt.Sprintf("%T", v))
	}
	with := func(key, hash string) context.Context {
		return stockade.WithIdempotency(t.Context(), &stockade.Idempotent{Key: key, RequestHash: hash, Render: render})
	}
	first := b.hold(reqOf(ln("a", 1)))
	k1 := b.queue(with("k1", "h"), reqOf(ln("a", 2)), true)
	k1again := b.queue(with("k1", "h"), reqOf(ln("a", 2)), true)
	k1other := b.queue(with("k1", "other"), reqOf(ln("a", 1)), true)
	k2 := b.queue(with("k2", "h"), reqOf(ln("a", 5)), false) // refused: 0 left
	close(b.store.open)
	for _, c := range []*started{first, k1, k1again, k1other, k2} {
		<-c.done
	}
	if first.err != nil || k1.err != nil {
		t.Fatalf("errors %v, %v", first.err, k1.err)
	}
	replay, ok := errors.AsType[*stockade.Replay](k1again.err)
	if !ok || replay.Status != 201 || string(replay.Body) != "stockade.Order" {
		t.Errorf("second call with k1: %v, want a replay of 201 stockade.Order", k1again.err)
	}
	if got := stockade.ErrorCode(k1other.err); got != stockade.EIdempotencyMismatch {
		t.Errorf("k1 for another request: %v, want %s", k1other.err, stockade.EIdempotencyMismatch)
	}
	if got := stockade.ErrorCode(k2.err); got != stockade.EInsufficientStock {
		t.Errorf("k2: %v, want %s", k2.err, stockade.EInsufficientStock)
	}
	if n := b.store.updates.Load(); n != 2 {
		t.Errorf("%d write transactions, want 2: no claims of their own", n)
	}
	if l := b.level("a"); l.Reserved != 1 || l.Committed != 2 {
		t.Errorf("level %+v, want 1 reserved and 2 committed: k1 checked out once", l)
	}
	// Later calls replay what the batch recorded.
	for key, want := range map[string]string{"k1": "201 stockade.Order", "k2": "409 " + stockade.EInsufficientStock} {
		_, err := b.eng.Checkout(with(key, "h"), reqOf(ln("a", 1)))
		replay, ok := errors.AsType[*stockade.Replay](err)
		if !ok || fmt.Sprintf("%d %s", replay.Status, replay.Body) != want {
			t.Errorf("retry with %s: %v, want a replay of %s", key, err, want)
		}
	}
	b.balanced()
}
