package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// render is a stand-in for the HTTP layer's rendering of a result.
func render(v any, err error) (int, []byte) {
	if err != nil {
		b, _ := json.Marshal(map[string]string{"code": stockade.ErrorCode(err), "detail": stockade.ErrorMessage(err)})
		if stockade.ErrorCode(err) == stockade.EInsufficientStock {
			return 409, b
		}
		return 400, b
	}
	b, _ := json.Marshal(v)
	return 201, b
}

func withKey(ctx context.Context, key, hash string) context.Context {
	return stockade.WithIdempotency(ctx, &stockade.Idempotent{Key: key, RequestHash: hash, Render: render})
}

// wantReplay fails the test unless err is a replay of status and body.
func wantReplay(t *testing.T, err error, status int, body []byte) {
	t.Helper()
	r, ok := errors.AsType[*stockade.Replay](err)
	if !ok {
		t.Fatalf("error %v, want a replay", err)
	}
	if r.Status != status || !bytes.Equal(r.Body, body) {
		t.Errorf("replay %d %s, want %d %s", r.Status, r.Body, status, body)
	}
}

// checkouts counts the checkout rows of the ledger.
func (en *env) checkouts() int {
	en.t.Helper()
	page, err := en.eng.Movements(en.t.Context(), stockade.MovementQuery{SKU: "tee"})
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

// TestIdempotency runs under the atomic strategy, where each call is its
// own transaction, and under batch, where a call's result or refusal is
// stored in the commit of a batch of calls.
func TestIdempotency(t *testing.T) {
	for _, b := range backends {
		for _, strategy := range []string{engine.Atomic, engine.Batch} {
			t.Run(b.name+"/"+strategy, func(t *testing.T) { testIdempotency(t, b, strategy) })
		}
	}
}

func testIdempotency(t *testing.T, b backend, strategy string) {
	h := &hooked{Store: b.open(t)}
	en := newEnvOn(t, h, strategy, nil)
	ctx := t.Context()
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 10)
	req := lines(line("tee", 1, ""))

	t.Run("replay", func(t *testing.T) {
		o, err := en.eng.Checkout(withKey(ctx, "k1", "h1"), req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(o)
		before := en.checkouts()
		_, err = en.eng.Checkout(withKey(ctx, "k1", "h1"), req)
		wantReplay(t, err, 201, body)
		if got := en.checkouts(); got != before {
			t.Errorf("the replay ran the checkout again: %d checkouts, then %d", before, got)
		}
	})

	t.Run("mismatch", func(t *testing.T) {
		_, err := en.eng.Checkout(withKey(ctx, "k1", "h2"), req)
		wantCode(t, err, stockade.EIdempotencyMismatch)
	})

	t.Run("refusal replays", func(t *testing.T) {
		big := lines(line("tee", 100, ""))
		_, err := en.eng.Checkout(withKey(ctx, "k2", "h"), big)
		wantCode(t, err, stockade.EInsufficientStock)
		_, body := render(nil, err)
		if _, err := en.eng.AdjustStock(ctx, stockade.Key{SKU: "tee", Location: "w1"}, 200, "restock"); err != nil {
			t.Fatal(err)
		}
		_, err = en.eng.Checkout(withKey(ctx, "k2", "h"), big)
		wantReplay(t, err, 409, body)
	})

	t.Run("in flight", func(t *testing.T) {
		err := h.Store.Update(ctx, func(tx stockade.Tx) error {
			return tx.PutIdempotency(ctx, stockade.Idempotency{Key: "k3", RequestHash: "h",
				State: stockade.InFlight, CreatedAt: en.clock.Now()})
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = en.eng.Checkout(withKey(ctx, "k3", "h"), req)
		wantCode(t, err, stockade.EIdempotencyInFlight)
		en.clock.Advance(61 * time.Second) // the first request died: take over
		o, err := en.eng.Checkout(withKey(ctx, "k3", "h"), req)
		if err != nil {
			t.Fatalf("taking over a stale claim: %v", err)
		}
		body, _ := json.Marshal(o)
		_, err = en.eng.Checkout(withKey(ctx, "k3", "h"), req)
		wantReplay(t, err, 201, body)
	})

	// A call claims its key in a transaction of its own, except under
	// batch, whose transaction is the whole call.
	claims := strategy != engine.Batch
	t.Run("failure frees the key", func(t *testing.T) {
		fail := h.n.Load() + 1 // the checkout
		if claims {
			fail++ // after the claim
		}
		h.before = func(n int64) error {
			if n == fail {
				return errBoom
			}
			return nil
		}
		defer func() { h.before = nil }()
		before := en.checkouts()
		_, err := en.eng.Checkout(withKey(ctx, "k4", "h"), req)
		if !errors.Is(err, errBoom) || stockade.ErrorCode(err) != stockade.EInternal {
			t.Fatalf("error %v, want the injected internal error", err)
		}
		if _, err := en.eng.Checkout(withKey(ctx, "k4", "h"), req); err != nil {
			t.Fatalf("retry after an internal error: %v", err)
		}
		if got := en.checkouts(); got != before+1 {
			t.Errorf("%d checkouts, want %d", got, before+1)
		}
	})

	// Under batch there is no claim to take over: the batch holds the key
	// from reading its record to committing the result.
	if claims {
		t.Run("taken over while running", func(t *testing.T) {
			steal := h.n.Load() + 2
			h.before = func(n int64) error {
				if n != steal {
					return nil
				}
				return h.Store.Update(ctx, func(tx stockade.Tx) error {
					return tx.PutIdempotency(ctx, stockade.Idempotency{Key: "k5", RequestHash: "h",
						State: stockade.InFlight, Body: []byte("another"), CreatedAt: en.clock.Now()})
				})
			}
			defer func() { h.before = nil }()
			before := en.checkouts()
			_, err := en.eng.Checkout(withKey(ctx, "k5", "h"), req)
			wantCode(t, err, stockade.EIdempotencyInFlight)
			if got := en.checkouts(); got != before {
				t.Errorf("a call whose claim was taken over checked out")
			}
		})
	}

	t.Run("concurrent", func(t *testing.T) {
		before := en.checkouts()
		var ok, replayed, inFlight atomic.Int64
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				_, err := en.eng.Checkout(withKey(ctx, "k6", "h"), req)
				_, replay := errors.AsType[*stockade.Replay](err)
				switch {
				case err == nil:
					ok.Add(1)
				case replay:
					replayed.Add(1)
				case stockade.ErrorCode(err) == stockade.EIdempotencyInFlight:
					inFlight.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		t.Logf("%d ran, %d replayed, %d refused as in flight", ok.Load(), replayed.Load(), inFlight.Load())
		if ok.Load() != 1 || en.checkouts() != before+1 {
			t.Errorf("%d calls ran and %d checkouts were made, want 1", ok.Load(), en.checkouts()-before)
		}
	})

	t.Run("confirm of a lapsed hold replays its refusal", func(t *testing.T) {
		r, err := en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: req.Lines, TTL: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		en.clock.Advance(2 * time.Second)
		_, err = en.eng.Confirm(withKey(ctx, "k7", "h"), r.ID)
		wantCode(t, err, stockade.EReservationExpired)
		_, body := render(nil, err)
		_, err = en.eng.Confirm(withKey(ctx, "k7", "h"), r.ID)
		wantReplay(t, err, 400, body)
	})
	en.balanced()
}
