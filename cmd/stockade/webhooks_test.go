package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/webhook"
)

// received is one delivery as a receiver got it, its signature checked.
type received struct {
	delivery string // Stockade-Delivery
	attempt  int    // Stockade-Attempt
	event    stockade.DomainEvent
	at       time.Time
}

// hangingReceiver is a webhook receiver whose first request hangs until
// the sender gives it up (its connection closes) or the test ends, and
// which answers every later one 200 once its signature verifies with
// secret, which is set before any delivery can arrive.
type hangingReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	secret []byte
	// hung is the first request, and hungEnded when its wait ended.
	hung      *received
	hungEnded time.Time
	got       []received
	errs      []string // what failed to verify
}

func newHangingReceiver(t *testing.T) *hangingReceiver {
	t.Helper()
	r := &hangingReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// The body is read to its end first: only then does the server
		// see the sender's connection close, and end the request's
		// context.
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		d, err := r.check(req.Header, body)
		r.mu.Lock()
		if err != nil {
			r.errs = append(r.errs, err.Error())
			r.mu.Unlock()
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.hung == nil {
			r.hung = &d
			r.mu.Unlock()
			select {
			case <-req.Context().Done():
			case <-t.Context().Done():
			}
			r.mu.Lock()
			r.hungEnded = time.Now()
			r.mu.Unlock()
			return
		}
		r.got = append(r.got, d)
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// check verifies a delivery's signature and reads its headers and event.
func (r *hangingReceiver) check(h http.Header, body []byte) (received, error) {
	r.mu.Lock()
	secret := r.secret
	r.mu.Unlock()
	if err := httpapi.VerifyWebhook(h, body, [][]byte{secret}, time.Now(), 5*time.Minute); err != nil {
		return received{}, err
	}
	d := received{delivery: h.Get(webhook.HeaderDelivery), at: time.Now()}
	var err error
	if d.attempt, err = strconv.Atoi(h.Get(webhook.HeaderAttempt)); err != nil {
		return received{}, fmt.Errorf("%s: %v", webhook.HeaderAttempt, err)
	}
	if err := json.Unmarshal(body, &d.event); err != nil {
		return received{}, fmt.Errorf("the body: %v", err)
	}
	if id, typ := h.Get(webhook.HeaderEventID), h.Get(webhook.HeaderEventType); d.delivery == "" || id != d.event.ID || typ != d.event.Type {
		return received{}, fmt.Errorf("delivery %q: headers say event %s (%s), the body %s (%s)", d.delivery, id, typ, d.event.ID, d.event.Type)
	}
	return d, nil
}

func (r *hangingReceiver) setSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = []byte(secret)
}

// state returns a copy of what the receiver holds.
func (r *hangingReceiver) state() (hung *received, hungEnded time.Time, got []received, errs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hung, r.hungEnded, append([]received(nil), r.got...), append([]string(nil), r.errs...)
}

// TestWebhookKilledMidDelivery: serve delivers the events of an endpoint
// that asked for every type to a receiver whose first request hangs;
// serve is killed with SIGKILL while it waits there, and started again on
// the same store. The delivery that was in flight arrives again, with
// the same delivery id and a higher attempt, once its claim has run out;
// every event of the feed arrives at least once, a copy always with its
// first one's delivery id; each aggregate's events arrive in the order
// they committed; and the endpoint's deliveries all end succeeded.
func TestWebhookKilledMidDelivery(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			webhookKilledMidDelivery(t, kind)
		})
	}
}

func webhookKilledMidDelivery(t *testing.T, kind string) {
	ctx := t.Context()
	// An attempt long enough that the kill comes while it waits, not
	// after the sender gave it up; the claim lasts twice as long.
	const timeout = 5 * time.Second
	const lease = 2 * timeout
	// Long enough for a process to start and its sender to claim and
	// send on a busy machine, beside a lease's wait.
	const bound = 2*lease + 40*time.Second

	recv := newHangingReceiver(t)
	store := newStore(t, kind)
	args := []string{"-store", store, "-webhook-allow-private", "-webhook-timeout", timeout.String()}
	p := startProcess(t, args...)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	ep, secret, err := c.CreateWebhookEndpoint(ctx, stockade.NewWebhookEndpointRequest{URL: recv.srv.URL + "/hooks",
		Events: []string{stockade.WebhookAllEvents}, Description: "hangs once"})
	if err != nil {
		t.Fatal(err)
	}
	recv.setSecret(secret)

	// Changes on several aggregates, several events each: three levels,
	// nine reservations, the orders of six, one cancelled and one
	// fulfilled last.
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "dc", Name: "DC"}, nil); err != nil {
		t.Fatal(err)
	}
	skus := []string{"bolt", "nut", "gear"}
	for _, sku := range skus {
		if _, err := c.SetStock(ctx, stockade.Key{SKU: sku, Location: "dc"}, 100, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	var orders []stockade.Order
	for i := range 9 {
		r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: skus[i%len(skus)], Quantity: int64(1 + i%2)}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 {
			if _, err := c.Release(ctx, r.ID, nil); err != nil {
				t.Fatal(err)
			}
			continue
		}
		o, err := c.Confirm(ctx, r.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	if _, err := c.CancelOrder(ctx, orders[0].ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	last, err := c.FulfillOrder(ctx, orders[1].ID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	waitWithin(t, "the first delivery at the receiver", bound, func() bool {
		hung, _, _, errs := recv.state()
		return hung != nil || len(errs) > 0
	})
	killed := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	hung, hungEnded, _, errs := recv.state()
	if len(errs) > 0 {
		t.Fatalf("deliveries that did not verify: %q", errs)
	}
	if hungEnded.Before(killed) && !hungEnded.IsZero() {
		t.Fatalf("the sender gave up the first attempt (%s) %s before the kill: its timeout %s passed", hung.delivery, killed.Sub(hungEnded), timeout)
	}
	t.Logf("killed while delivery %s (%s, attempt %d) hung", hung.delivery, hung.event.Type, hung.attempt)

	p = startProcess(t, args...)
	c = httpapi.NewClient("http://"+p.addr, httpClient)
	// The feed up to the last change: events are read in commit order,
	// so once its event is there, so is every earlier one.
	var feed []stockade.DomainEvent
	waitWithin(t, "the last change in the feed", bound, func() bool {
		feed = outboxEvents(t, c)
		for _, ev := range feed {
			if ev.Type == stockade.EventOrderFulfilled && ev.AggregateID == last.ID {
				return true
			}
		}
		return false
	})
	var want []stockade.DomainEvent
	for _, ev := range feed {
		if ep.Wants(ev) {
			want = append(want, ev)
		}
	}
	// Three stock sets, nine holds, six confirms and their orders, three
	// releases, a cancel and a fulfil: 29 events at least.
	if len(want) < 29 {
		t.Fatalf("the endpoint wants %d of the feed's %d events, want at least 29", len(want), len(feed))
	}
	waitWithin(t, "every event received", bound, func() bool {
		_, _, got, errs := recv.state()
		seen := map[string]bool{}
		for _, d := range got {
			seen[d.event.ID] = true
		}
		for _, ev := range want {
			if !seen[ev.ID] {
				return len(errs) > 0
			}
		}
		return true
	})
	var deliveries []stockade.WebhookDelivery
	waitWithin(t, "every delivery succeeded", bound, func() bool {
		deliveries = webhookDeliveries(t, c, ep.ID)
		for _, d := range deliveries {
			if d.Status != stockade.DeliverySucceeded {
				return false
			}
		}
		return true
	})

	_, _, got, errs := recv.state()
	if len(errs) > 0 {
		t.Fatalf("deliveries that did not verify: %q", errs)
	}
	// The delivery in flight at the kill, again: its id, a later attempt.
	var again *received
	for i := range got {
		if got[i].delivery == hung.delivery {
			again = &got[i]
			break
		}
	}
	switch {
	case again == nil:
		t.Errorf("delivery %s (%s), in flight at the kill, never arrived again", hung.delivery, hung.event.ID)
	case again.event.ID != hung.event.ID || again.attempt <= hung.attempt:
		t.Errorf("delivery %s again with event %s, attempt %d; it was event %s, attempt %d",
			again.delivery, again.event.ID, again.attempt, hung.event.ID, hung.attempt)
	default:
		t.Logf("delivery %s again %s after the kill, attempt %d", again.delivery, again.at.Sub(killed).Round(time.Millisecond), again.attempt)
	}

	// Every event once or more, each copy with its first one's delivery id.
	position := make(map[string]int, len(want)) // in commit order
	for i, ev := range want {
		position[ev.ID] = i
	}
	deliveryOf := map[string]string{} // event id → delivery id
	copies := 0
	for _, d := range got {
		if _, ok := position[d.event.ID]; !ok {
			t.Errorf("delivery %s: event %s (%s), which the feed does not hold", d.delivery, d.event.ID, d.event.Type)
			continue
		}
		first, ok := deliveryOf[d.event.ID]
		switch {
		case !ok:
			deliveryOf[d.event.ID] = d.delivery
		case first != d.delivery:
			t.Errorf("event %s (%s) arrived as delivery %s and as %s", d.event.ID, d.event.Type, first, d.delivery)
		default:
			copies++
		}
	}
	for _, ev := range want {
		if _, ok := deliveryOf[ev.ID]; !ok {
			t.Errorf("event %s (%s of %s %s) never arrived", ev.ID, ev.Type, ev.Aggregate, ev.AggregateID)
		}
	}
	// Each aggregate's events in commit order: a copy only right after
	// its first.
	latest := map[string]int{} // aggregate → position of its last arrival
	for _, d := range got {
		pos, ok := position[d.event.ID]
		if !ok {
			continue
		}
		agg := d.event.Aggregate + " " + d.event.AggregateID
		if prev, ok := latest[agg]; ok && pos < prev {
			t.Errorf("%s: event %s (%s) arrived after %s (%s), which committed later",
				agg, d.event.ID, d.event.Type, want[prev].ID, want[prev].Type)
		}
		latest[agg] = pos
	}

	// The endpoint's deliveries: one per event, each succeeded, the one
	// in flight at the kill attempted again.
	if len(deliveries) != len(want) {
		t.Errorf("the endpoint has %d deliveries, the feed %d events it wants", len(deliveries), len(want))
	}
	for _, d := range deliveries {
		if d.ID != deliveryOf[d.EventID] {
			t.Errorf("delivery %s of event %s: the receiver got the event as delivery %q", d.ID, d.EventID, deliveryOf[d.EventID])
		}
		if d.ID == hung.delivery && d.Attempts <= hung.attempt {
			t.Errorf("delivery %s, in flight at the kill: %d attempts, want more than %d", d.ID, d.Attempts, hung.attempt)
		}
	}
	t.Logf("%d events, %d deliveries, %d copies received", len(want), len(deliveries), copies)
}

// webhookDeliveries reads every delivery of an endpoint.
func webhookDeliveries(t *testing.T, c *httpapi.Client, endpointID string) []stockade.WebhookDelivery {
	t.Helper()
	var all []stockade.WebhookDelivery
	q := stockade.WebhookDeliveryQuery{Limit: stockade.MaxWebhookLimit}
	for {
		page, err := c.WebhookDeliveries(t.Context(), endpointID, q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Deliveries...)
		if page.Next == "" {
			return all
		}
		q.Cursor = page.Next
	}
}
