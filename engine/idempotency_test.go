package engine_test

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

func key(k, fingerprint string) *stockade.Idempotency {
	return &stockade.Idempotency{Key: k, Fingerprint: fingerprint}
}

// checkouts counts the checkout rows of the ledger.
func (en *env) checkouts() int {
	en.t.Helper()
	page, err := en.eng.Movements(sys(en.t), stockade.MovementQuery{SKU: "tee"})
	if err != nil {
		en.t.Fatal(err)
	}
	n := 0
	for _, m := range page.Movements {
		if m.Kind == stockade.MoveCheckout {
			n++
		}
	}
	return n
}

// TestIdempotency runs under every strategy: each call's result is stored
// in the transaction that commits its effect, which under batch decides a
// batch of calls.
func TestIdempotency(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		for _, strategy := range engine.Strategies() {
			t.Run(b.name+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				testIdempotency(t, b, strategy)
			})
		}
	}
}

func testIdempotency(t *testing.T, b backend, strategy string) {
	h := &hooked{Store: b.open(t)}
	en := newEnvOn(t, h, strategy, nil)
	ctx := sys(t)
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 10)
	req := lines(line("tee", 1, ""))

	t.Run("replay", func(t *testing.T) {
		first := key("k1", "h1")
		o, err := en.eng.Checkout(ctx, req, first)
		if err != nil {
			t.Fatal(err)
		}
		if first.Replayed {
			t.Error("the first call is marked replayed")
		}
		before := en.checkouts()
		again := key("k1", "h1")
		got, err := en.eng.Checkout(ctx, req, again)
		if err != nil {
			t.Fatal(err)
		}
		if !again.Replayed {
			t.Error("the second call is not marked replayed")
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("replay = %+v\nwant the first result %+v", got, o)
		}
		if n := en.checkouts(); n != before {
			t.Errorf("the replay ran the checkout again: %d checkouts, then %d", before, n)
		}
	})

	t.Run("mismatch", func(t *testing.T) {
		_, err := en.eng.Checkout(ctx, req, key("k1", "h2"))
		wantCode(t, err, stockade.EIdempotencyMismatch)
		_, err = en.eng.Reserve(ctx, req, key("k1", "h1")) // another operation
		wantCode(t, err, stockade.EIdempotencyMismatch)
	})

	t.Run("a refusal is not stored", func(t *testing.T) {
		big := lines(line("tee", 100, ""))
		_, err := en.eng.Checkout(ctx, big, key("k2", "h"))
		wantCode(t, err, stockade.EInsufficientStock)
		if _, err := en.eng.AdjustStock(ctx, stockade.Key{SKU: "tee", Location: "w1"}, 200, "restock", nil); err != nil {
			t.Fatal(err)
		}
		before := en.checkouts()
		retry := key("k2", "h")
		o, err := en.eng.Checkout(ctx, big, retry)
		if err != nil || retry.Replayed {
			t.Fatalf("retry after the restock: %v (replayed %v), want a fresh checkout", err, retry.Replayed)
		}
		again := key("k2", "h")
		if got, err := en.eng.Checkout(ctx, big, again); err != nil || !again.Replayed || got.ID != o.ID {
			t.Errorf("third call: %s %v (replayed %v), want a replay of %s", got.ID, err, again.Replayed, o.ID)
		}
		if n := en.checkouts(); n != before+1 {
			t.Errorf("%d checkouts, want %d", n, before+1)
		}
	})

	t.Run("failure frees the key", func(t *testing.T) {
		fail := h.n.Load() + 1 // the checkout's one transaction
		h.before = func(n int64) error {
			if n == fail {
				return errBoom
			}
			return nil
		}
		defer func() { h.before = nil }()
		before := en.checkouts()
		_, err := en.eng.Checkout(ctx, req, key("k4", "h"))
		if !errors.Is(err, errBoom) || stockade.ErrorCode(err) != stockade.EInternal {
			t.Fatalf("error %v, want the injected internal error", err)
		}
		retry := key("k4", "h")
		if _, err := en.eng.Checkout(ctx, req, retry); err != nil || retry.Replayed {
			t.Fatalf("retry after an internal error: %v (replayed %v)", err, retry.Replayed)
		}
		if got := en.checkouts(); got != before+1 {
			t.Errorf("%d checkouts, want %d", got, before+1)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		before := en.checkouts()
		var ran, replayed atomic.Int64
		ids := make([]string, 16)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() {
				idem := key("k6", "h")
				o, err := en.eng.Checkout(ctx, req, idem)
				switch {
				case err != nil:
					t.Error(err)
				case idem.Replayed:
					replayed.Add(1)
				default:
					ran.Add(1)
				}
				ids[i] = o.ID
			})
		}
		wg.Wait()
		if ran.Load() != 1 || replayed.Load() != int64(len(ids)-1) || en.checkouts() != before+1 {
			t.Errorf("%d calls ran, %d replayed, %d checkouts made; want 1, %d, 1",
				ran.Load(), replayed.Load(), en.checkouts()-before, len(ids)-1)
		}
		for _, id := range ids {
			if id != ids[0] {
				t.Errorf("calls with one key answered with orders %s and %s", ids[0], id)
			}
		}
	})

	t.Run("confirm of a lapsed hold stores nothing", func(t *testing.T) {
		r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: req.Lines, TTL: time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		en.clock.Advance(2 * time.Second)
		_, err = en.eng.Confirm(ctx, r.ID, key("k7", "h"))
		wantCode(t, err, stockade.EReservationExpired)
		if got, err := en.eng.Reservation(ctx, r.ID); err != nil || got.Status != stockade.Expired {
			t.Errorf("after the confirm: %s %v, want expired", got.Status, err)
		}
		_, err = en.eng.Confirm(ctx, r.ID, key("k7", "h"))
		wantCode(t, err, stockade.EReservationExpired)
	})

	t.Run("a key is free again after its retention", func(t *testing.T) {
		o, err := en.eng.Checkout(ctx, req, key("k8", "h"))
		if err != nil {
			t.Fatal(err)
		}
		en.clock.Advance(25 * time.Hour)
		later := key("k8", "h")
		o2, err := en.eng.Checkout(ctx, req, later)
		if err != nil || later.Replayed || o2.ID == o.ID {
			t.Errorf("a day later: %s %v (replayed %v), want a new order", o2.ID, err, later.Replayed)
		}
	})
	en.balanced()
}
