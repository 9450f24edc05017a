package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// batchEnv is a Batch engine on a real SQLite store that a test can hold
// back: the first write transaction after hold waits until release, so
// that the calls queued meanwhile all go into the next batch.
type batchEnv struct {
	*env
	h    *hooked
	base int64         // Updates before hold
	open chan struct{} // closed by release
	// fail, if set before hold, is asked before each Update after hold
	// (n from 1); an error is returned instead of running it.
	fail func(n int64) error
}

func newBatchEnv(t *testing.T, stock map[string]int64) *batchEnv {
	t.Helper()
	h := &hooked{Store: openSQLite(t)}
	en := newEnvOn(t, h, engine.Batch, func(o *engine.Options) { o.MinBackoff, o.MaxBackoff = time.Microsecond, time.Microsecond })
	en.location("w1", 0, 0)
	for sku, n := range stock {
		en.stock(sku, "w1", n)
	}
	return &batchEnv{env: en, h: h, open: make(chan struct{})}
}

// updates returns how many write transactions started since hold.
func (b *batchEnv) updates() int64 { return b.h.n.Load() - b.base }

// started is a Reserve or Checkout that a test started.
type started struct {
	done chan struct{}
	idem *stockade.Idempotency
	res  stockade.Reservation
	ord  stockade.Order
	err  error
}

// start begins a Reserve (or, with checkout, a Checkout) of req under ctx.
func (b *batchEnv) start(ctx context.Context, req stockade.ReserveRequest, checkout bool) *started {
	return b.startKeyed(ctx, req, checkout, nil)
}

// startKeyed is start with an idempotency key.
func (b *batchEnv) startKeyed(ctx context.Context, req stockade.ReserveRequest, checkout bool, idem *stockade.Idempotency) *started {
	c := &started{done: make(chan struct{}), idem: idem}
	go func() {
		defer close(c.done)
		if checkout {
			c.ord, c.err = b.eng.Checkout(ctx, req, idem)
		} else {
			c.res, c.err = b.eng.Reserve(ctx, req, idem)
		}
	}()
	return c
}

// wait polls until cond holds, or fails the test after a while.
func (b *batchEnv) wait(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			b.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// hold starts a first call, whose batch's transaction waits until release,
// so that the calls started next queue behind it.
func (b *batchEnv) hold(req stockade.ReserveRequest) *started {
	b.t.Helper()
	return b.holdKeyed(sys(b.t), req, nil)
}

// holdKeyed is hold with the first call's context and idempotency key.
func (b *batchEnv) holdKeyed(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) *started {
	b.t.Helper()
	var c *started
	b.first(func() { c = b.startKeyed(ctx, req, false, idem) })
	return c
}

// first runs start, which starts a first call of any kind, and waits
// until that call's batch is in its transaction, which waits until
// release: the calls started next queue behind it.
func (b *batchEnv) first(start func()) {
	b.t.Helper()
	b.base = b.h.n.Load()
	b.h.before = func(n int64) error {
		n -= b.base
		if n == 1 {
			<-b.open
		}
		if b.fail != nil {
			return b.fail(n)
		}
		return nil
	}
	start()
	b.wait("the first batch is in its transaction", func() bool { return b.updates() == 1 })
}

// release lets the held batch run.
func (b *batchEnv) release() { close(b.open) }

// queue starts a call and waits until it is queued.
func (b *batchEnv) queue(ctx context.Context, req stockade.ReserveRequest, checkout bool) *started {
	b.t.Helper()
	return b.queueKeyed(ctx, req, checkout, nil)
}

// queueKeyed is queue with an idempotency key.
func (b *batchEnv) queueKeyed(ctx context.Context, req stockade.ReserveRequest, checkout bool, idem *stockade.Idempotency) *started {
	b.t.Helper()
	n := engine.QueuedCalls(b.eng)
	c := b.startKeyed(ctx, req, checkout, idem)
	b.wait(fmt.Sprintf("call %d is queued", n+1), func() bool { return engine.QueuedCalls(b.eng) == n+1 })
	return c
}

func one(sku string, q int64) stockade.Line { return line(sku, q, "") }

// TestBatchArrivalOrder queues calls behind a held batch, so that one
// transaction decides them all: each in arrival order, each all or
// nothing, reservations and a checkout together.
func TestBatchArrivalOrder(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, map[string]int64{"a": 6, "b": 1})
	first := b.hold(lines(one("a", 1)))
	ctx := sys(t)
	calls := []struct {
		c    *started
		want string // error code
	}{
		{b.queue(ctx, lines(one("a", 3), one("b", 2)), false), stockade.EInsufficientStock}, // b has 1: takes no a either
		{b.queue(ctx, lines(one("a", 4)), false), ""},                                       // 5 left
		{b.queue(ctx, lines(one("b", 1), one("a", 1)), true), ""},                           // a checkout: the last b, 1 a
		{b.queue(ctx, lines(one("a", 1)), false), stockade.EInsufficientStock},              // a is gone
		{b.queue(ctx, lines(one("nope", 1)), false), stockade.ENotFound},
	}
	b.release()
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
	if n := b.updates(); n != 2 {
		t.Errorf("%d write transactions, want 2: the held one and one for the five queued calls", n)
	}
	if r := calls[1].c.res; r.Status != stockade.Held || len(r.Allocations) != 1 || r.Allocations[0].Quantity != 4 {
		t.Errorf("second call's reservation %+v, want 4 a held", r)
	}
	if o := calls[2].c.ord; o.Status != stockade.Committed || len(o.Allocations) != 2 {
		t.Errorf("checkout's order %+v, want committed a and b", o)
	}
	if got := b.counters("a", "w1"); got != [3]int64{6, 5, 1} {
		t.Errorf("a: on hand, reserved, committed = %v, want [6 5 1]", got)
	}
	if got := b.counters("b", "w1"); got != [3]int64{1, 0, 1} {
		t.Errorf("b: on hand, reserved, committed = %v, want [1 0 1]", got)
	}
	b.balanced()
}

// TestBatchWithdraw: a caller that gives up while its call is queued
// leaves without changing anything, and the batch goes on without it.
func TestBatchWithdraw(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, map[string]int64{"a": 5})
	first := b.hold(lines(one("a", 1)))
	ctx, cancel := context.WithCancel(sys(t))
	gone := b.queue(ctx, lines(one("a", 1)), false)
	kept := b.queue(sys(t), lines(one("a", 2)), false)
	cancel()
	<-gone.done
	if got := stockade.ErrorCode(gone.err); got != stockade.EUnavailable || !errors.Is(gone.err, context.Canceled) {
		t.Errorf("withdrawn call: error %v, want %s wrapping context.Canceled", gone.err, stockade.EUnavailable)
	}
	b.release()
	<-first.done
	<-kept.done
	if first.err != nil || kept.err != nil {
		t.Fatalf("errors %v and %v", first.err, kept.err)
	}
	if l := b.level("a", "w1"); l.Reserved != 3 {
		t.Errorf("level %+v, want 3 reserved: the withdrawn call took nothing", l)
	}
	b.balanced()
}

// expiring is a context whose deadline the test brings about: after
// expire, it is done with context.DeadlineExceeded.
type expiring struct {
	context.Context
	done chan struct{}
}

func (c *expiring) Done() <-chan struct{} { return c.done }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestBatchDeadline: a caller whose context ends once a batch holds its
// call leaves at once with EUnavailable, its outcome unknown, while the
// batch goes on. A retry with the same idempotency key learns the truth:
// queued behind the batch or made after it, it replays the result the
// batch committed, or runs afresh if the batch rolled back.
func TestBatchDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		end      func(t *testing.T) (context.Context, func())
		want     error // in the caller's error
		rollback bool  // the batch fails
	}{
		{
			name: "cancelled, committed",
			end: func(t *testing.T) (context.Context, func()) {
				return context.WithCancel(sys(t))
			},
			want: context.Canceled,
		},
		{
			name: "deadline, committed",
			end: func(t *testing.T) (context.Context, func()) {
				ctx := &expiring{Context: sys(t), done: make(chan struct{})}
				return ctx, func() { close(ctx.done) }
			},
			want: context.DeadlineExceeded,
		},
		{
			name: "deadline, rolled back",
			end: func(t *testing.T) (context.Context, func()) {
				ctx := &expiring{Context: sys(t), done: make(chan struct{})}
				return ctx, func() { close(ctx.done) }
			},
			want:     context.DeadlineExceeded,
			rollback: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBatchEnv(t, map[string]int64{"a": 5})
			if tc.rollback {
				b.fail = func(n int64) error {
					if n == 1 {
						return errBoom
					}
					return nil
				}
			}
			ctx, end := tc.end(t)
			left := b.holdKeyed(ctx, lines(one("a", 2)), key("k", "h"))
			end()
			select { // before release: the caller does not wait for its batch
			case <-left.done:
			case <-time.After(bound):
				t.Fatal("the caller is still waiting for its batch")
			}
			if got := stockade.ErrorCode(left.err); got != stockade.EUnavailable || !errors.Is(left.err, tc.want) ||
				!strings.Contains(left.err.Error(), "outcome is unknown") {
				t.Fatalf("caller whose context ended in a batch: %v, want %s saying the outcome is unknown, wrapping %v",
					left.err, stockade.EUnavailable, tc.want)
			}
			retry := b.queueKeyed(sys(t), lines(one("a", 2)), false, key("k", "h"))
			b.release()
			<-retry.done
			if retry.err != nil {
				t.Fatalf("retry: %v", retry.err)
			}
			if retry.idem.Replayed == tc.rollback {
				t.Errorf("retry replayed = %v, want %v", retry.idem.Replayed, !tc.rollback)
			}
			later := key("k", "h")
			res, err := b.eng.Reserve(sys(t), lines(one("a", 2)), later)
			if err != nil || !later.Replayed || res.ID != retry.res.ID {
				t.Errorf("a later retry: %s %v (replayed %v), want a replay of %s", res.ID, err, later.Replayed, retry.res.ID)
			}
			if got := b.counters("a", "w1"); got != [3]int64{5, 2, 0} {
				t.Errorf("on hand, reserved, committed = %v, want [5 2 0]: reserved once", got)
			}
			if n := engine.QueuedCalls(b.eng); n != 0 {
				t.Errorf("%d calls still queued", n)
			}
			b.balanced()
		})
	}
}

// TestBatchFailure: a batch whose transaction fails fails each of its
// calls and commits nothing; a conflict is retried; later batches go on.
func TestBatchFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fail    error // the error of the second batch's first attempt
		want    error // what its calls get
		updates int64
	}{
		{"failed", errBoom, errBoom, 3},
		{"conflict retried", errConflict, nil, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBatchEnv(t, map[string]int64{"a": 10})
			b.fail = func(n int64) error {
				if n == 2 {
					return tc.fail
				}
				return nil
			}
			first := b.hold(lines(one("a", 1)))
			second := []*started{
				b.queue(sys(t), lines(one("a", 2)), false),
				b.queue(sys(t), lines(one("a", 3)), true),
			}
			b.release()
			<-first.done
			var taken int64 = 1
			for i, c := range second {
				<-c.done
				if !errors.Is(c.err, tc.want) || (tc.want == nil) != (c.err == nil) {
					t.Errorf("second batch, call %d: error %v, want %v", i+1, c.err, tc.want)
				}
				if c.err == nil {
					taken += int64(i + 2)
				}
			}
			if tc.want != nil && stockade.ErrorCode(second[0].err) != stockade.EInternal {
				t.Errorf("code %q, want %q", stockade.ErrorCode(second[0].err), stockade.EInternal)
			}
			after := b.start(sys(t), lines(one("a", 4)), false)
			<-after.done
			if after.err != nil {
				t.Fatalf("a batch after the failed one: %v", after.err)
			}
			taken += 4
			if l := b.level("a", "w1"); l.Reserved+l.Committed != taken {
				t.Errorf("level %+v, want %d reserved or committed", l, taken)
			}
			if n := b.updates(); n != tc.updates {
				t.Errorf("%d transactions, want %d", n, tc.updates)
			}
			b.balanced()
		})
	}
}

// TestBatchIdempotency queues calls with idempotency keys behind a held
// batch: a key's second call in the same batch replays the first's
// result, another request under the key is refused, and a refusal is not
// recorded, all in the batch's own commit.
func TestBatchIdempotency(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, map[string]int64{"a": 3})
	first := b.hold(lines(one("a", 1)))
	ctx := sys(t)
	k1 := b.queueKeyed(ctx, lines(one("a", 2)), true, key("k1", "h"))
	k1again := b.queueKeyed(ctx, lines(one("a", 2)), true, key("k1", "h"))
	k1other := b.queueKeyed(ctx, lines(one("a", 1)), true, key("k1", "other"))
	k2 := b.queueKeyed(ctx, lines(one("a", 5)), false, key("k2", "h")) // refused: 0 left
	b.release()
	for _, c := range []*started{first, k1, k1again, k1other, k2} {
		<-c.done
	}
	if first.err != nil || k1.err != nil || k1again.err != nil {
		t.Fatalf("errors %v, %v, %v", first.err, k1.err, k1again.err)
	}
	if k1.idem.Replayed || !k1again.idem.Replayed || !reflect.DeepEqual(k1again.ord, k1.ord) {
		t.Errorf("k1 twice: %+v (replayed %v) and %+v (replayed %v), want the second a replay of the first",
			k1.ord, k1.idem.Replayed, k1again.ord, k1again.idem.Replayed)
	}
	if got := stockade.ErrorCode(k1other.err); got != stockade.EIdempotencyMismatch {
		t.Errorf("k1 for another request: %v, want %s", k1other.err, stockade.EIdempotencyMismatch)
	}
	if got := stockade.ErrorCode(k2.err); got != stockade.EInsufficientStock {
		t.Errorf("k2: %v, want %s", k2.err, stockade.EInsufficientStock)
	}
	if n := b.updates(); n != 2 {
		t.Errorf("%d write transactions, want 2: no claims of their own", n)
	}
	if got := b.counters("a", "w1"); got != [3]int64{3, 1, 2} {
		t.Errorf("on hand, reserved, committed = %v, want [3 1 2]: k1 checked out once", got)
	}
	// Later calls replay what the batch recorded; the refused key runs
	// afresh, and is refused again while the stock is short.
	later := key("k1", "h")
	if o, err := b.eng.Checkout(ctx, lines(one("a", 1)), later); err != nil || !later.Replayed || o.ID != k1.ord.ID {
		t.Errorf("k1 later: %s %v (replayed %v), want a replay of %s", o.ID, err, later.Replayed, k1.ord.ID)
	}
	_, err := b.eng.Reserve(ctx, lines(one("a", 5)), key("k2", "h"))
	wantCode(t, err, stockade.EInsufficientStock)
	b.balanced()
}

// TestBatchConfirm queues confirms behind a held batch with reservations:
// one transaction confirms a hold (twice: the second call gets the same
// order), expires a lapsed one, whose stock a reservation in the same
// batch then takes, and refuses a released and an unknown one.
func TestBatchConfirm(t *testing.T) {
	t.Parallel()
	b := newBatchEnv(t, map[string]int64{"a": 4})
	ctx := sys(t)
	hold := func(q int64, ttl time.Duration) stockade.Reservation {
		t.Helper()
		r, err := b.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{one("a", q)}, TTL: ttl}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	live, lapsing, released := hold(1, time.Hour), hold(2, time.Second), hold(1, time.Hour)
	if _, err := b.eng.Release(ctx, released.ID, nil); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(2 * time.Second)

	first := b.hold(lines(one("a", 1))) // the last free unit
	confirm := func(id string) *started {
		t.Helper()
		n := engine.QueuedCalls(b.eng)
		c := &started{done: make(chan struct{})}
		go func() {
			defer close(c.done)
			c.ord, c.err = b.eng.Confirm(ctx, id, nil)
		}()
		b.wait("the confirm is queued", func() bool { return engine.QueuedCalls(b.eng) == n+1 })
		return c
	}
	c1 := confirm(live.ID)
	c2 := confirm(live.ID)
	cLapsed := confirm(lapsing.ID)
	takes := b.queue(ctx, lines(one("a", 2)), false) // the lapsed hold's 2 units
	cReleased := confirm(released.ID)
	cUnknown := confirm("res_nope")
	b.release()
	for _, c := range []*started{first, c1, c2, cLapsed, takes, cReleased, cUnknown} {
		<-c.done
	}
	if first.err != nil || c1.err != nil || c2.err != nil || takes.err != nil {
		t.Fatalf("errors: %v, %v, %v, %v", first.err, c1.err, c2.err, takes.err)
	}
	if c1.ord.ReservationID != live.ID || c1.ord.Status != stockade.Committed || c2.ord.ID != c1.ord.ID {
		t.Errorf("confirms of %s: orders %+v and %+v, want one committed order twice", live.ID, c1.ord, c2.ord)
	}
	for _, tc := range []struct {
		c    *started
		want string
	}{{cLapsed, stockade.EReservationExpired}, {cReleased, stockade.EInvalidState}, {cUnknown, stockade.ENotFound}} {
		if got := stockade.ErrorCode(tc.c.err); got != tc.want {
			t.Errorf("error %v, want %s", tc.c.err, tc.want)
		}
	}
	if n := b.updates(); n != 2 {
		t.Errorf("%d write transactions, want 2", n)
	}
	// on hand 4: 1 committed by the confirm, 1 held by first, 2 by takes.
	if got := b.counters("a", "w1"); got != [3]int64{4, 3, 1} {
		t.Errorf("on hand, reserved, committed = %v, want [4 3 1]", got)
	}
	if got := b.kinds(lapsing.ID); got != "reserve,expire" {
		t.Errorf("ledger of the lapsed hold: %s, want reserve,expire", got)
	}
	b.balanced()
}
