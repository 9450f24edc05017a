package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
	"github.com/stockade/stockade/webhook"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// sys returns tb's context carrying the service's own actor.
func sys(tb testing.TB) context.Context { return stockade.WithActor(tb.Context(), stockade.System) }

// stores are the stores every test runs on.
var stores = []struct {
	name string
	open func(testing.TB) stockade.Store
}{
	{"sqlite", func(tb testing.TB) stockade.Store { return teststore.OpenSQLite(tb, nil) }},
	{"postgres", func(tb testing.TB) stockade.Store {
		return teststore.OpenPostgres(tb, &postgres.Options{MaxConns: 16})
	}},
}

// eachStore runs test on every store, in parallel.
func eachStore(t *testing.T, test func(t *testing.T, st stockade.Store, eng *engine.Engine)) {
	t.Parallel()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			st := s.open(t)
			eng, err := engine.New(st, &engine.Options{WebhookPrivate: true})
			if err != nil {
				t.Fatal(err)
			}
			test(t, st, eng)
		})
	}
}

// fast are sender options for tests: short waits everywhere, and the
// log in the test's output.
func fast(t *testing.T, eng *engine.Engine) *webhook.Options {
	return &webhook.Options{AllowPrivate: true, Timeout: 5 * time.Second, MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 50 * time.Millisecond, Poll: 50 * time.Millisecond, Wake: eng.Written,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}
}

// run runs a sender until the test ends, and waits for it to stop.
func run(t *testing.T, s *webhook.Sender) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return cancel
}

// call is one request a receiver got.
type call struct {
	delivery, event, eventType, aggregate, aggregateID string
	attempt                                            int
	signature                                          string
	body                                               []byte
}

// receiver is a real HTTP server that records what it is sent and
// answers with answer (200 when nil).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	calls  []call
	answer func(c call, n int) int // n counts the calls of c's delivery, from 1
	block  chan struct{}           // if set, every call waits on it (or its request's end)
	// hang, if set, says which calls get no answer until the sender
	// gives up on them.
	hang func(c call, n int) bool
}

func newReceiver(t *testing.T, answer func(c call, n int) int) *receiver {
	r := &receiver{t: t, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	var ev struct {
		Aggregate   string `json:"aggregate"`
		AggregateID string `json:"aggregate_id"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		r.t.Errorf("delivery body %q: %v", body, err)
	}
	attempt, _ := strconv.Atoi(req.Header.Get(webhook.HeaderAttempt))
	c := call{delivery: req.Header.Get(webhook.HeaderDelivery), event: req.Header.Get(webhook.HeaderEventID),
		eventType: req.Header.Get(webhook.HeaderEventType), aggregate: ev.Aggregate, aggregateID: ev.AggregateID,
		attempt: attempt, signature: req.Header.Get(webhook.HeaderSignature), body: body}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	n := 0
	for _, o := range r.calls {
		if o.delivery == c.delivery {
			n++
		}
	}
	block := r.block
	r.mu.Unlock()
	if r.hang != nil && r.hang(c, n) {
		<-req.Context().Done()
		return
	}
	if block != nil {
		select {
		case <-block:
		case <-req.Context().Done():
			return
		}
	}
	code := http.StatusOK
	if r.answer != nil {
		code = r.answer(c, n)
	}
	if code == http.StatusFound {
		w.Header().Set("Location", "http://example.invalid/elsewhere")
	}
	w.WriteHeader(code)
}

func (r *receiver) snapshot() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// waitFor waits until cond holds of what has been received, or fails.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// endpoint registers r's URL for types.
func endpoint(t *testing.T, eng *engine.Engine, url string, types ...string) (stockade.WebhookEndpoint, string) {
	t.Helper()
	if len(types) == 0 {
		types = []string{stockade.WebhookAllEvents}
	}
	ep, secret, err := eng.CreateWebhookEndpoint(sys(t), stockade.NewWebhookEndpointRequest{URL: url, Events: types})
	if err != nil {
		t.Fatal(err)
	}
	return ep, secret
}

// outbox returns every event of eng's outbox, in order, once it holds at
// least n: on PostgreSQL a reader does not see an event until every
// transaction that began before it committed has ended.
func outbox(t *testing.T, eng *engine.Engine, n int) []stockade.DomainEvent {
	t.Helper()
	var all []stockade.DomainEvent
	q := stockade.DomainEventQuery{Limit: stockade.MaxEventLimit, Wait: time.Second}
	for len(all) < n {
		page, err := eng.Events(sys(t), q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Events...)
		q.Cursor = page.Next
	}
	return all
}

// delivery returns the delivery of ep that carries event id.
func delivery(t *testing.T, eng *engine.Engine, ep, event string) stockade.WebhookDelivery {
	t.Helper()
	page, err := eng.WebhookDeliveries(sys(t), ep, stockade.WebhookDeliveryQuery{Limit: stockade.MaxWebhookLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range page.Deliveries {
		if d.EventID == event {
			return d
		}
	}
	t.Fatalf("endpoint %s has no delivery of event %s", ep, event)
	return stockade.WebhookDelivery{}
}

// verify checks c's signature with secret, as a receiver does.
func verify(t *testing.T, c call, secret string) {
	t.Helper()
	h := http.Header{webhook.HeaderSignature: {c.signature}}
	if err := httpapi.VerifyWebhook(h, c.body, [][]byte{[]byte(secret)}, time.Now(), 5*time.Minute); err != nil {
		t.Errorf("delivery %s (attempt %d): %v", c.delivery, c.attempt, err)
	}
}

// stock gives eng a location and n SKUs of it.
func stock(t *testing.T, eng *engine.Engine, n int) []stockade.Key {
	t.Helper()
	if _, err := eng.PutLocation(sys(t), stockade.Location{ID: "wh", Name: "Warehouse"}, nil); err != nil {
		t.Fatal(err)
	}
	keys := make([]stockade.Key, n)
	for i := range keys {
		keys[i] = stockade.Key{SKU: fmt.Sprintf("sku-%d", i), Location: "wh"}
		if _, err := eng.SetStock(sys(t), keys[i], 1000, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestThousandChangesInOrder: a thousand changes over ten levels reach
// the endpoint, every event at least once, each aggregate's in commit
// order, every delivery signed; the receiver answers 500 to the first
// attempt of one delivery in eight, which comes again with the same
// delivery id. Two senders share the store, as two instances would.
func TestThousandChangesInOrder(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, func(c call, n int) int {
			if n == 1 && strings.ContainsAny(c.delivery[len(c.delivery)-1:], "2345") {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		ep, secret := endpoint(t, eng, r.srv.URL+"/hooks")
		run(t, webhook.New(eng, fast(t, eng)))
		run(t, webhook.New(eng, fast(t, eng)))
		keys := stock(t, eng, 10)
		for i := range 1000 {
			if _, err := eng.AdjustStock(sys(t), keys[i%len(keys)], -1, "sold", nil); err != nil {
				t.Fatal(err)
			}
		}
		evs := outbox(t, eng, 1010)
		want := map[string]bool{}
		for _, ev := range evs {
			if !ev.At.Before(ep.CreatedAt) {
				want[ev.ID] = true
			}
		}
		if len(want) < 1000 {
			t.Fatalf("the outbox holds %d events after the endpoint was made, want at least 1000", len(want))
		}
		waitFor(t, "every event delivered", 2*time.Minute, func() bool {
			got := map[string]bool{}
			for _, c := range r.snapshot() {
				got[c.event] = true
			}
			return len(got) >= len(want)
		})
		calls := r.snapshot()
		deliveryOf := map[string]string{} // event → delivery id
		retried := 0
		firsts := map[string][]string{} // aggregate → events, in the order first received
		for _, c := range calls {
			if !want[c.event] {
				t.Errorf("event %s delivered, not one of the outbox's since the endpoint was made", c.event)
			}
			if d, ok := deliveryOf[c.event]; ok {
				if d != c.delivery {
					t.Errorf("event %s came as deliveries %s and %s", c.event, d, c.delivery)
				}
				retried++
				continue
			}
			deliveryOf[c.event] = c.delivery
			agg := c.aggregate + "/" + c.aggregateID
			firsts[agg] = append(firsts[agg], c.event)
			verify(t, c, secret)
		}
		if retried == 0 {
			t.Error("no delivery was retried, though the receiver failed some first attempts")
		}
		for agg, got := range firsts {
			var inOutbox []string
			for _, ev := range evs {
				if ev.Aggregate+"/"+ev.AggregateID == agg && want[ev.ID] {
					inOutbox = append(inOutbox, ev.ID)
				}
			}
			if !slices.Equal(got, inOutbox) {
				t.Errorf("%s: events first received in the order %v, committed in %v", agg, got, inOutbox)
			}
		}
		waitFor(t, "every delivery recorded as succeeded", 30*time.Second, func() bool {
			page, err := eng.WebhookDeliveries(sys(t), ep.ID, stockade.WebhookDeliveryQuery{Status: stockade.DeliveryPending})
			return err == nil && len(page.Deliveries) == 0
		})
	})
}

// TestRetriedUntilDelivered: a receiver that answers 500 twice, then 200,
// gets the delivery three times with one id, and the delivery records
// three attempts and the last answer.
func TestRetriedUntilDelivered(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, func(c call, n int) int {
			if n <= 2 {
				return http.StatusServiceUnavailable
			}
			return http.StatusNoContent
		})
		ep, _ := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		run(t, webhook.New(eng, fast(t, eng)))
		stock(t, eng, 1)
		waitFor(t, "three attempts", time.Minute, func() bool { return len(r.snapshot()) >= 3 })
		calls := r.snapshot()
		for i, c := range calls[:3] {
			if c.delivery != calls[0].delivery || c.attempt != i+1 || c.eventType != stockade.EventStockSet {
				t.Errorf("call %d: delivery %s attempt %d type %s, want %s, %d, %s", i, c.delivery, c.attempt, c.eventType,
					calls[0].delivery, i+1, stockade.EventStockSet)
			}
		}
		waitFor(t, "the delivery to succeed", 30*time.Second, func() bool {
			return delivery(t, eng, ep.ID, calls[0].event).Status == stockade.DeliverySucceeded
		})
		d := delivery(t, eng, ep.ID, calls[0].event)
		if d.Attempts != 3 || d.LastCode != http.StatusNoContent || d.LastError != "" || d.LastAttemptAt.IsZero() {
			t.Errorf("delivery = %+v, want 3 attempts, last code 204, no error", d)
		}
	})
}

// TestHangingReceiver: an attempt that gets no answer within the timeout
// is retried; and an endpoint whose receiver never answers does not hold
// up another's deliveries.
func TestHangingReceiver(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		stuck := newReceiver(t, nil)
		stuck.block = make(chan struct{}) // never closed: every call hangs until the sender gives up
		slowOnce := newReceiver(t, nil)
		slowOnce.hang = func(_ call, n int) bool { return n == 1 }
		healthy := newReceiver(t, nil)
		endpoint(t, eng, stuck.srv.URL)
		slowEP, _ := endpoint(t, eng, slowOnce.srv.URL, stockade.EventStockSet)
		endpoint(t, eng, healthy.srv.URL)
		opts := fast(t, eng)
		opts.Timeout = 300 * time.Millisecond
		run(t, webhook.New(eng, opts))
		stock(t, eng, 5)
		waitFor(t, "every delivery to the slow receiver to succeed", 30*time.Second, func() bool {
			page, err := eng.WebhookDeliveries(sys(t), slowEP.ID, stockade.WebhookDeliveryQuery{Status: stockade.DeliverySucceeded})
			return err == nil && len(page.Deliveries) == 5
		})
		page, _ := eng.WebhookDeliveries(sys(t), slowEP.ID, stockade.WebhookDeliveryQuery{})
		for _, d := range page.Deliveries {
			if d.Attempts != 2 || d.LastError != "" {
				t.Errorf("delivery = %+v, want 2 attempts, the first timed out", d)
			}
		}
		waitFor(t, "every level's event at the healthy receiver", 30*time.Second, func() bool {
			got := map[string]bool{}
			for _, c := range healthy.snapshot() {
				got[c.aggregateID] = true
			}
			return len(got) == 5
		})
	})
}

// TestGoneDisables: a 410 fails the delivery and disables the endpoint,
// which then gets no more deliveries.
func TestGoneDisables(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, func(call, int) int { return http.StatusGone })
		ep, _ := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		run(t, webhook.New(eng, fast(t, eng)))
		keys := stock(t, eng, 1)
		waitFor(t, "the endpoint disabled", 30*time.Second, func() bool {
			got, err := eng.WebhookEndpoint(sys(t), ep.ID)
			return err == nil && got.Disabled
		})
		got, _ := eng.WebhookEndpoint(sys(t), ep.ID)
		if !strings.Contains(got.DisabledReason, "410") {
			t.Errorf("disabled_reason = %q, want the 410 named", got.DisabledReason)
		}
		calls := r.snapshot()
		if d := delivery(t, eng, ep.ID, calls[0].event); d.Status != stockade.DeliveryFailed || d.LastCode != http.StatusGone {
			t.Errorf("delivery = %+v, want failed with 410", d)
		}
		if _, err := eng.SetStock(sys(t), keys[0], 5, nil, nil); err != nil {
			t.Fatal(err)
		}
		waitForTurns(t, eng)
		if n := len(r.snapshot()); n != 1 {
			t.Errorf("the receiver got %d calls, want 1: a disabled endpoint gets no deliveries", n)
		}
	})
}

// waitForTurns waits until the webhooks' relay has passed every event
// committed so far: a delivery it would make exists by then.
func waitForTurns(t *testing.T, eng *engine.Engine) {
	t.Helper()
	marker := "marker-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	probe := newReceiver(t, nil)
	endpoint(t, eng, probe.srv.URL+"/"+marker, stockade.EventStockSet)
	if _, err := eng.SetStock(sys(t), stockade.Key{SKU: marker, Location: "wh"}, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the probe's delivery", 30*time.Second, func() bool { return len(probe.snapshot()) > 0 })
}

// TestPrivateAddressRefused: without AllowPrivate, the sender does not
// connect to a loopback receiver, whatever the engine let through; and an
// engine without WebhookPrivate refuses to register one.
func TestPrivateAddressRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, nil)
		ep, _ := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		opts := fast(t, eng)
		opts.AllowPrivate = false
		opts.RetryFor = time.Millisecond // one attempt, then failed
		run(t, webhook.New(eng, opts))
		stock(t, eng, 1)
		var d stockade.WebhookDelivery
		waitFor(t, "the delivery to fail", 30*time.Second, func() bool {
			page, err := eng.WebhookDeliveries(sys(t), ep.ID, stockade.WebhookDeliveryQuery{Status: stockade.DeliveryFailed})
			if err != nil || len(page.Deliveries) == 0 {
				return false
			}
			d = page.Deliveries[0]
			return true
		})
		if !strings.Contains(d.LastError, "private") || d.LastCode != 0 {
			t.Errorf("delivery = %+v, want refused for a private address", d)
		}
		if n := len(r.snapshot()); n != 0 {
			t.Errorf("the receiver got %d calls, want none", n)
		}

		strict, err := engine.New(st, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, url := range []string{r.srv.URL, "http://localhost:9/x", "http://10.0.0.1/x", "http://[::1]/x", "http://169.254.169.254/latest", "http://[::ffff:127.0.0.1]/"} {
			_, _, err := strict.CreateWebhookEndpoint(sys(t), stockade.NewWebhookEndpointRequest{URL: url, Events: []string{"*"}})
			if stockade.ErrorCode(err) != stockade.EInvalid || !strings.Contains(stockade.ErrorMessage(err), "-webhook-allow-private") {
				t.Errorf("register %s: %v, want invalid naming -webhook-allow-private", url, err)
			}
		}
	})
}

// TestRedirectNotFollowedThenRedelivered: a 302 fails the delivery at
// once, the place it names never called; redelivered by hand once the
// receiver is mended, it arrives with the same id.
func TestRedirectNotFollowedThenRedelivered(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		var mended sync.Once
		fixed := make(chan struct{})
		r := newReceiver(t, func(call, int) int {
			select {
			case <-fixed:
				return http.StatusOK
			default:
				return http.StatusFound
			}
		})
		ep, _ := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		run(t, webhook.New(eng, fast(t, eng)))
		stock(t, eng, 1)
		waitFor(t, "the first call", 30*time.Second, func() bool { return len(r.snapshot()) == 1 })
		first := r.snapshot()[0]
		waitFor(t, "the delivery to fail", 30*time.Second, func() bool {
			return delivery(t, eng, ep.ID, first.event).Status == stockade.DeliveryFailed
		})
		if d := delivery(t, eng, ep.ID, first.event); d.Attempts != 1 || d.LastCode != http.StatusFound || !strings.Contains(d.LastError, "redirect") {
			t.Errorf("delivery = %+v, want one attempt refused as a redirect", d)
		}
		mended.Do(func() { close(fixed) })
		if _, err := eng.RedeliverWebhook(sys(t), ep.ID, first.delivery); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the redelivery", 30*time.Second, func() bool {
			return delivery(t, eng, ep.ID, first.event).Status == stockade.DeliverySucceeded
		})
		calls := r.snapshot()
		if len(calls) != 2 || calls[1].delivery != first.delivery || calls[1].attempt != 2 {
			t.Errorf("calls = %+v, want the same delivery again as attempt 2", calls)
		}
		if _, err := eng.RedeliverWebhook(sys(t), ep.ID, "whd_missing"); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("redeliver a missing delivery: %v, want not_found", err)
		}
	})
}

// TestRotationSignsWithBoth: after a rotation, deliveries carry a
// signature with the new secret and one with the old, so a receiver with
// either accepts them.
func TestRotationSignsWithBoth(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, nil)
		ep, old := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		_, fresh, err := eng.RotateWebhookSecret(sys(t), ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if fresh == old || !strings.HasPrefix(fresh, "whsec_") {
			t.Fatalf("rotated secret %q, old %q", fresh, old)
		}
		run(t, webhook.New(eng, fast(t, eng)))
		stock(t, eng, 1)
		waitFor(t, "a delivery", 30*time.Second, func() bool { return len(r.snapshot()) > 0 })
		c := r.snapshot()[0]
		verify(t, c, old)
		verify(t, c, fresh)
		if n := strings.Count(c.signature, "v1="); n != 2 {
			t.Errorf("signature %q has %d v1 entries, want 2", c.signature, n)
		}
	})
}

// TestStoppedMidDelivery: a sender stopped while its attempt waits for
// the receiver records nothing; another sender delivers it again, with
// the same id, once the claim runs out.
func TestStoppedMidDelivery(t *testing.T) {
	eachStore(t, func(t *testing.T, st stockade.Store, eng *engine.Engine) {
		r := newReceiver(t, nil)
		r.block = make(chan struct{})
		ep, _ := endpoint(t, eng, r.srv.URL, stockade.EventStockSet)
		opts := fast(t, eng)
		opts.Timeout = 500 * time.Millisecond // the claim: 1s
		stop := run(t, webhook.New(eng, opts))
		stock(t, eng, 1)
		waitFor(t, "the first attempt", 30*time.Second, func() bool { return len(r.snapshot()) == 1 })
		stop()
		r.mu.Lock()
		close(r.block)
		r.block = nil
		r.mu.Unlock()
		first := r.snapshot()[0]
		if d := delivery(t, eng, ep.ID, first.event); d.Status != stockade.DeliveryPending || d.LastAttemptAt != (time.Time{}) {
			t.Errorf("after the stop, delivery = %+v, want pending with no attempt recorded", d)
		}
		run(t, webhook.New(eng, opts))
		waitFor(t, "the delivery again", 30*time.Second, func() bool {
			return delivery(t, eng, ep.ID, first.event).Status == stockade.DeliverySucceeded
		})
		calls := r.snapshot()
		if len(calls) < 2 || calls[len(calls)-1].delivery != first.delivery {
			t.Errorf("calls = %+v, want the same delivery made again", calls)
		}
	})
}
