package httpapi

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// signHeader is the Stockade-Signature header line of body signed with
// webhookSecret at at.
func signHeader(body string, at time.Time) string {
	return headerSignature + ": " + SignWebhook(webhookSecret, []byte(body), at)
}

// webhookBodyOf is the body a payment system posts to the webhook.
func webhookBodyOf(event, payment string, status stockade.PaymentStatus) string {
	return fmt.Sprintf(`{"event_id":%q,"payment_id":%q,"status":%q}`, event, payment, status)
}

// webhook posts the outcome status of payment under the event id,
// signed now, and fails the test unless it gets want.
func (a *api) webhook(want int, event, payment string, status stockade.PaymentStatus) response {
	a.t.Helper()
	body := webhookBodyOf(event, payment, status)
	return a.must(want, "POST", webhookPath, body, signHeader(body, time.Now()))
}

// pay creates the payment of 1,250 cents of the target kind id, with the
// header lines given, and returns it.
func (a *api) pay(kind stockade.PaymentTargetKind, id string, header ...string) paymentJSON {
	a.t.Helper()
	body := fmt.Sprintf(`{"target":{"kind":%q,"id":%q},"amount":1250,"currency":"EUR"}`, kind, id)
	return decodeAs[paymentJSON](a.t, a.must(201, "POST", "/v1/payments", body, header...))
}

// reserveOne reserves one widget, with the header lines given, and
// returns the reservation's id.
func (a *api) reserveOne(header ...string) string {
	a.t.Helper()
	return a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, header...).id(a.t)
}

// paymentState is what a refused payment request must leave as it was:
// every payment, the stock of widget, and every domain event.
func (a *api) paymentState() string {
	a.t.Helper()
	ctx := sys(a.t)
	var b strings.Builder
	add := func(v any, err error) {
		if err != nil {
			a.t.Fatal(err)
		}
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	add(a.eng.Payments(ctx, stockade.PaymentQuery{Limit: stockade.MaxListLimit}))
	add(a.eng.Stock(ctx, "widget"))
	add(a.eng.Events(ctx, stockade.DomainEventQuery{Limit: stockade.MaxEventLimit}))
	return b.String()
}

// history returns the changes of a payment as "FROM>TO:RESOLUTION:ACTOR"
// items, oldest first.
func (a *api) history(id string, header ...string) string {
	a.t.Helper()
	h := decodeAs[paymentHistoryJSON](a.t, a.must(200, "GET", "/v1/payments/"+id+"/history", nil, header...))
	var items []string
	for _, c := range h.Changes {
		if c.PaymentID != id {
			a.t.Errorf("a change of %s in the history of %s", c.PaymentID, id)
		}
		items = append(items, fmt.Sprintf("%s>%s:%s:%s", c.From, c.To, c.Resolution, c.Actor))
	}
	return strings.Join(items, " ")
}

// TestPaymentSaga pays through HTTP, on both stores: outcomes posted to
// the webhook confirm a reservation into an order and a hold into a
// booking; a failure releases; a cancel releases; a second payment of a
// target is refused; a payment in flight past its reservation's grace
// period is listed as stuck; and the event feed tells it all.
func TestPaymentSaga(t *testing.T) {
	t.Parallel()
	for _, pg := range []bool{false, true} {
		name := "sqlite"
		if pg {
			name = "postgres"
		}
		t.Run(name, func(t *testing.T) { testPaymentSaga(t, pg) })
	}
}

func testPaymentSaga(t *testing.T, pg bool) {
	a := newAPI(t, &apiOptions{postgres: pg})
	a.seed() // 15 widgets
	reserved := func(want int64) {
		t.Helper()
		st := decodeAs[stockJSON](t, a.must(200, "GET", "/v1/stock/widget", nil))
		if st.Totals.Reserved != want {
			t.Fatalf("reserved %d, want %d: %+v", st.Totals.Reserved, want, st.Totals)
		}
	}

	// Success: the reservation becomes an order.
	res := a.reserveOne()
	p := a.pay(stockade.PayReservation, res)
	if p.Status != "pending" || p.Version != 1 || p.Target != (paymentTargetJSON{"reservation", res}) || p.Amount != 1250 ||
		p.Currency != "EUR" || p.Resolution != "" || !p.CreatedAt.Equal(start) || !p.UpdatedAt.Equal(start) || p.StuckAt != nil {
		t.Errorf("POST /v1/payments = %+v", p)
	}
	if got := decodeAs[paymentJSON](t, a.must(200, "GET", "/v1/payments/"+p.ID, nil)); !reflect.DeepEqual(got, p) {
		t.Errorf("GET /v1/payments/%s = %+v, want %+v", p.ID, got, p)
	}
	if h := decodeAs[paymentHistoryJSON](t, a.must(200, "GET", "/v1/payments/"+p.ID+"/history", nil)); h.Changes == nil || len(h.Changes) != 0 {
		t.Errorf("the history of a new payment: %+v, want []", h)
	}
	// A second payment of the reservation is refused, naming the first.
	r := a.must(409, "POST", "/v1/payments", `{"target":{"kind":"reservation","id":"`+res+`"},"amount":1,"currency":"EUR"}`)
	if pr := r.problem(t); pr.Code != stockade.EPaymentExists || !strings.Contains(pr.Detail, p.ID) {
		t.Errorf("a second payment: %+v, want %s naming %s", pr, stockade.EPaymentExists, p.ID)
	}
	if got := decodeAs[paymentJSON](t, a.webhook(200, "psp-1", p.ID, stockade.PaymentProcessing)); got.Status != "processing" || got.Version != 2 {
		t.Errorf("processing: %+v", got)
	}
	reserved(1)
	paid := a.webhook(200, "psp-2", p.ID, stockade.PaymentSucceeded)
	p = decodeAs[paymentJSON](t, paid)
	if p.Status != "succeeded" || p.Resolution != "confirmed" || p.OrderID == "" || p.Version != 3 {
		t.Fatalf("succeeded: %+v", p)
	}
	reserved(0)
	if o := decodeAs[orderJSON](t, a.must(200, "GET", "/v1/orders/"+p.OrderID, nil)); o.Status != "committed" || o.ReservationID != res {
		t.Errorf("the order of the payment: %+v", o)
	}
	if r := decodeAs[reservationJSON](t, a.must(200, "GET", "/v1/reservations/"+res, nil)); r.Status != "confirmed" || r.OrderID != p.OrderID {
		t.Errorf("the paid reservation: %+v", r)
	}
	if again := a.webhook(200, "psp-2", p.ID, stockade.PaymentSucceeded); string(again.body) != string(paid.body) {
		t.Errorf("the same outcome again: %s, want it as it was: %s", again, paid)
	}
	if got, want := a.history(p.ID), "pending>processing::webhook processing>succeeded:confirmed:webhook"; got != want {
		t.Errorf("history %q, want %q", got, want)
	}

	// Failure: the reservation is released.
	res = a.reserveOne()
	p = a.pay(stockade.PayReservation, res)
	reserved(1)
	if p = decodeAs[paymentJSON](t, a.webhook(200, "psp-3", p.ID, stockade.PaymentFailed)); p.Status != "failed" || p.Resolution != "released" {
		t.Errorf("failed: %+v", p)
	}
	reserved(0)
	if r := decodeAs[reservationJSON](t, a.must(200, "GET", "/v1/reservations/"+res, nil)); r.Status != "released" {
		t.Errorf("the reservation of a failed payment is %s", r.Status)
	}

	// Cancel: the reservation is released; cancelling again changes
	// nothing.
	res = a.reserveOne()
	p = a.pay(stockade.PayReservation, res)
	cancelled := a.must(200, "POST", "/v1/payments/"+p.ID+"/cancel", `{"reason":"the buyer left"}`)
	if p = decodeAs[paymentJSON](t, cancelled); p.Status != "cancelled" || p.Resolution != "released" {
		t.Errorf("cancelled: %+v", p)
	}
	reserved(0)
	if again := a.must(200, "POST", "/v1/payments/"+p.ID+"/cancel", nil); string(again.body) != string(cancelled.body) {
		t.Errorf("cancel again: %s, want it as it was: %s", again, cancelled)
	}
	h := decodeAs[paymentHistoryJSON](t, a.must(200, "GET", "/v1/payments/"+p.ID+"/history", nil))
	if len(h.Changes) != 1 || h.Changes[0].Reason != "the buyer left" || h.Changes[0].To != "cancelled" {
		t.Errorf("the history of a cancelled payment: %+v", h)
	}

	// A hold: the booking exists once the payment captures.
	a.gala()
	hold := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1","stalls/A/2"]}`).id(t)
	p = a.pay(stockade.PayHold, hold)
	a.webhook(200, "psp-4", p.ID, stockade.PaymentAuthorized)
	if p = decodeAs[paymentJSON](t, a.webhook(200, "psp-5", p.ID, stockade.PaymentCaptured)); p.Status != "captured" || p.BookingID == "" {
		t.Fatalf("captured: %+v", p)
	}
	if bk := decodeAs[bookingJSON](t, a.must(200, "GET", "/v1/bookings/"+p.BookingID, nil)); bk.HoldID != hold || len(bk.Seats) != 2 {
		t.Errorf("the booking of the payment: %+v", bk)
	}

	// Stuck: in flight past its reservation's expiry and the grace
	// period, the reservation is kept and the payment waits for a person.
	res = a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}],"ttl_seconds":60}`).id(t)
	stuck := a.pay(stockade.PayReservation, res)
	a.webhook(200, "psp-6", stuck.ID, stockade.PaymentProcessing)
	a.clock.Advance(time.Hour)
	if _, err := a.eng.Sweep(sys(t)); err != nil {
		t.Fatal(err)
	}
	reserved(1)
	page := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments?stuck=true", nil))
	if len(page.Payments) != 1 || page.Payments[0].ID != stuck.ID || page.Payments[0].StuckAt == nil || page.NextCursor != "" {
		t.Fatalf("stuck payments: %+v", page)
	}
	if p = decodeAs[paymentJSON](t, a.webhook(200, "psp-7", stuck.ID, stockade.PaymentSucceeded)); p.Resolution != "confirmed" || p.StuckAt == nil {
		t.Errorf("a stuck payment that succeeds late: %+v", p)
	}
	if page := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments?stuck=true", nil)); len(page.Payments) != 0 {
		t.Errorf("stuck payments once resolved: %+v", page)
	}

	// The list: newest first, filtered, a page at a time.
	all := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments?stuck=false", nil))
	if len(all.Payments) != 5 || !slices.IsSortedFunc(all.Payments, func(x, y paymentJSON) int { return y.CreatedAt.Compare(x.CreatedAt) }) {
		t.Errorf("every payment: %+v", all)
	}
	var walked []string
	for cursor := ""; ; {
		q := "/v1/payments?limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		page := decodeAs[paymentsJSON](t, a.must(200, "GET", q, nil))
		for _, p := range page.Payments {
			walked = append(walked, p.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if want := each(all.Payments, func(p paymentJSON) string { return p.ID }); !slices.Equal(walked, want) {
		t.Errorf("pages of 2: %v, want %v", walked, want)
	}
	for query, want := range map[string]int{
		"status=succeeded":                   2,
		"status=pending":                     0,
		"resolution=released":                2,
		"resolution=confirmed&status=failed": 0,
		"resolution=unresolved":              0,
	} {
		if page := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments?"+query, nil)); len(page.Payments) != want {
			t.Errorf("?%s: %d payments, want %d", query, len(page.Payments), want)
		}
	}

	// The feed: each payment's events, with the payment as payload.
	feed := a.feed("aggregate=payment&limit=1000")
	var types []string
	for _, ev := range feed.Events {
		if !slices.Contains(types, ev.Type) {
			types = append(types, ev.Type)
		}
		var payload paymentJSON
		if err := json.Unmarshal(ev.Payload, &payload); err != nil || payload.ID != ev.AggregateID || payload.Version != ev.Version {
			t.Errorf("event %s of %s: payload %s", ev.Type, ev.AggregateID, ev.Payload)
		}
	}
	slices.Sort(types)
	if want := []string{"payment.created", "payment.moved", "payment.resolved", "payment.stuck"}; !slices.Equal(types, want) {
		t.Errorf("payment events %v, want %v", types, want)
	}
}

// TestWebhookSignature: the webhook takes a request signed with the
// server's secret, whatever its API key or lack of one, and refuses
// with 401 one whose signature is missing, malformed, made with another
// secret or over another body, or stale either way; a refusal changes
// nothing.
func TestWebhookSignature(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{keyed: true})
	ks := a.makeKeys()
	admin := bearerOf(ks.admin)
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`, admin)
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`, admin)
	p := a.pay(stockade.PayReservation, a.reserveOne(admin), admin)
	body := webhookBodyOf("psp-1", p.ID, stockade.PaymentProcessing)
	now := time.Now()
	mac := func(secret []byte, body string, at time.Time) string {
		_, v1, _ := strings.Cut(SignWebhook(secret, []byte(body), at), ",v1=")
		return v1
	}
	good := mac(webhookSecret, body, now)
	ts := fmt.Sprint(now.Unix())

	before := a.paymentState()
	for _, tc := range []struct {
		name, body, header string
		why                string
	}{
		{"no signature", body, "", "missing"},
		{"another secret", body, headerSignature + ": " + SignWebhook([]byte("whsec_other"), []byte(body), now), "no signature matches"},
		{"tampered body", strings.Replace(body, "processing", "succeeded", 1), signHeader(body, now), "no signature matches"},
		{"stale", body, signHeader(body, now.Add(-6*time.Minute)), "stale"},
		{"from the future", body, signHeader(body, now.Add(6*time.Minute)), "stale"},
		{"signed at another time", body, headerSignature + ": t=" + fmt.Sprint(now.Unix()-1) + ",v1=" + good, "no signature matches"},
		{"not key=value", body, headerSignature + ": " + good, "malformed"},
		{"no time", body, headerSignature + ": v1=" + good, "malformed"},
		{"no v1", body, headerSignature + ": t=" + ts, "malformed"},
		{"time not a number", body, headerSignature + ": t=soon,v1=" + good, "malformed"},
		{"time twice", body, headerSignature + ": t=" + ts + ",t=" + ts + ",v1=" + good, "malformed"},
		{"uppercase hex", body, headerSignature + ": t=" + ts + ",v1=" + strings.ToUpper(good), "malformed"},
		{"short signature", body, headerSignature + ": t=" + ts + ",v1=" + good[:62], "malformed"},
		{"not hex", body, headerSignature + ": t=" + ts + ",v1=" + strings.Repeat("zz", 32), "malformed"},
		{"an empty header", body, headerSignature + ": ", "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hs []string
			if tc.header != "" {
				hs = append(hs, tc.header)
			}
			r := a.must(401, "POST", webhookPath, tc.body, hs...)
			pr := r.problem(t)
			if pr.Code != stockade.EUnauthenticated || !strings.Contains(pr.Detail, tc.why) || !strings.HasPrefix(pr.Detail, headerSignature+": ") {
				t.Errorf("%+v, want %s saying %q", pr, stockade.EUnauthenticated, tc.why)
			}
			if got := r.header.Get("WWW-Authenticate"); got != headerSignature {
				t.Errorf("WWW-Authenticate %q, want %q", got, headerSignature)
			}
		})
	}
	r := a.must(401, "POST", webhookPath, body, signHeader(body, now), signHeader(body, now))
	if pr := r.problem(t); !strings.Contains(pr.Detail, "more than once") {
		t.Errorf("the header twice: %+v", pr)
	}
	if after := a.paymentState(); after != before {
		t.Errorf("refused webhook requests changed the store:\n--- before\n%s--- after\n%s", before, after)
	}

	// Good signatures: alone, after a bad one, with an entry of a scheme
	// to come, and with an API key of any role, which is not needed.
	for i, header := range []string{
		signHeader(body, now),
		headerSignature + ": t=" + ts + ",v1=" + mac([]byte("whsec_old"), body, now) + ",v1=" + good,
		headerSignature + ": t=" + ts + ", v0=abc, v1=" + good,
	} {
		hs := []string{header}
		if i == 1 {
			hs = append(hs, bearerOf(ks.reader))
		}
		if got := decodeAs[paymentJSON](t, a.must(200, "POST", webhookPath, body, hs...)); got.Status != "processing" || got.Version != 2 {
			t.Errorf("%s: %+v", header, got)
		}
	}
	// Within the tolerance either way.
	for _, d := range []time.Duration{-4 * time.Minute, 4 * time.Minute} {
		b := webhookBodyOf(fmt.Sprintf("psp-%v", d), p.ID, stockade.PaymentProcessing)
		a.must(200, "POST", webhookPath, b, signHeader(b, now.Add(d)))
	}
	if got := a.history(p.ID, admin); got != "pending>processing::webhook" {
		t.Errorf("history %q", got)
	}
}

// TestWebhookTolerance: Options.WebhookTolerance sets how old a
// signature may be.
func TestWebhookTolerance(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{server: &Options{WebhookTolerance: time.Hour}})
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	body := webhookBodyOf("psp-1", p.ID, stockade.PaymentProcessing)
	a.must(200, "POST", webhookPath, body, signHeader(body, time.Now().Add(-50*time.Minute)))
	r := a.must(401, "POST", webhookPath, body, signHeader(body, time.Now().Add(-70*time.Minute)))
	if pr := r.problem(t); !strings.Contains(pr.Detail, "stale") || !strings.Contains(pr.Detail, "1h0m0s") {
		t.Errorf("stale by an hour's tolerance: %+v", pr)
	}
}

// TestWebhookRotatedSecrets: a server with two secrets takes requests
// signed with either, and no other, so that a payment system can move
// from the old to the new one.
func TestWebhookRotatedSecrets(t *testing.T) {
	t.Parallel()
	old, fresh := []byte("whsec_old"), []byte("whsec_new")
	a := newAPI(t, &apiOptions{server: &Options{WebhookSecrets: [][]byte{old, fresh}}})
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	for i, tc := range []struct {
		secret []byte
		status int
	}{
		{old, 200},
		{fresh, 200},
		{webhookSecret, 401},
	} {
		body := webhookBodyOf(fmt.Sprintf("psp-%d", i), p.ID, stockade.PaymentProcessing)
		a.must(tc.status, "POST", webhookPath, body, headerSignature+": "+SignWebhook(tc.secret, []byte(body), time.Now()))
	}
	// Signed with both, as a payment system does while it rotates.
	body := webhookBodyOf("psp-both", p.ID, stockade.PaymentSucceeded)
	_, v1, _ := strings.Cut(SignWebhook(fresh, []byte(body), time.Now()), ",v1=")
	both := SignWebhook(old, []byte(body), time.Now()) + ",v1=" + v1
	if got := decodeAs[paymentJSON](t, a.must(200, "POST", webhookPath, body, headerSignature+": "+both)); got.Status != "succeeded" {
		t.Errorf("signed with both secrets: %+v", got)
	}
}

// TestWebhookNotConfigured: a server without a webhook secret answers
// the webhook 404, signed or not, and changes nothing.
func TestWebhookNotConfigured(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{noWebhook: true})
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	before := a.paymentState()
	body := webhookBodyOf("psp-1", p.ID, stockade.PaymentSucceeded)
	r := a.must(404, "POST", webhookPath, body, signHeader(body, time.Now()))
	if pr := r.problem(t); pr.Code != stockade.ENotFound || !strings.Contains(pr.Detail, "webhook is not configured") {
		t.Errorf("the webhook of a server without a secret: %+v", pr)
	}
	if after := a.paymentState(); after != before {
		t.Errorf("the refused webhook changed the store:\n--- before\n%s--- after\n%s", before, after)
	}
}

// TestWebhookReplay: an outcome delivered again answers the payment as
// it is and changes nothing, even after later outcomes moved it.
func TestWebhookReplay(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	first := a.webhook(200, "psp-1", p.ID, stockade.PaymentProcessing)
	before := a.paymentState()
	again := a.webhook(200, "psp-1", p.ID, stockade.PaymentProcessing)
	if string(again.body) != string(first.body) || again.header.Get(headerReplayed) != "" {
		t.Errorf("the outcome again: %s, want %s", again, first)
	}
	if after := a.paymentState(); after != before {
		t.Errorf("an outcome delivered again changed the store:\n--- before\n%s--- after\n%s", before, after)
	}
	now := decodeAs[paymentJSON](t, a.webhook(200, "psp-2", p.ID, stockade.PaymentSucceeded))
	// The first event again, after the second: as the payment is now.
	if late := decodeAs[paymentJSON](t, a.webhook(200, "psp-1", p.ID, stockade.PaymentProcessing)); !reflect.DeepEqual(late, now) {
		t.Errorf("the first outcome after the second: %+v, want %+v", late, now)
	}
	// Another event id with the same status is stale: nothing changes.
	if stale := decodeAs[paymentJSON](t, a.webhook(200, "psp-3", p.ID, stockade.PaymentProcessing)); !reflect.DeepEqual(stale, now) {
		t.Errorf("a stale outcome: %+v, want %+v", stale, now)
	}
	if got := a.history(p.ID); got != "pending>processing::webhook processing>succeeded:confirmed:webhook" {
		t.Errorf("history %q", got)
	}
}

// TestPaymentTransitionsRefused walks stockade.PaymentTransitions from
// pending to every status, and there reports every status that the
// table refuses from it, by the webhook and by the outcomes route, and
// cancels where the table refuses that: each is 409 invalid_state naming
// the payment's status, and changes nothing.
func TestPaymentTransitionsRefused(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`)
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":100}`)
	// paths[s] is a walk of the table from pending to s.
	paths := map[stockade.PaymentStatus][]stockade.PaymentStatus{stockade.PaymentPending: nil}
	for queue := []stockade.PaymentStatus{stockade.PaymentPending}; len(queue) > 0; queue = queue[1:] {
		for _, next := range stockade.PaymentTransitions[queue[0]] {
			if _, ok := paths[next]; !ok {
				paths[next] = append(slices.Clone(paths[queue[0]]), next)
				queue = append(queue, next)
			}
		}
	}
	if len(paths) != len(stockade.PaymentStatuses) {
		t.Fatalf("the table reaches %d statuses of %d", len(paths), len(stockade.PaymentStatuses))
	}
	refused := func(r response, from stockade.PaymentStatus) {
		t.Helper()
		if pr := r.problem(t); pr.Code != stockade.EInvalidState || !strings.Contains(pr.Detail, "payment is "+string(from)) {
			t.Errorf("%+v, want %s naming %s", pr, stockade.EInvalidState, from)
		}
	}
	events, outcomes := 0, 0
	for _, from := range stockade.PaymentStatuses {
		p := a.pay(stockade.PayReservation, a.reserveOne())
		for _, step := range paths[from] {
			events++
			p = decodeAs[paymentJSON](t, a.webhook(200, fmt.Sprintf("walk-%d", events), p.ID, step))
		}
		if p.Status != string(from) {
			t.Fatalf("walked to %s, got %s", from, p.Status)
		}
		before := a.paymentState()
		for _, to := range stockade.PaymentStatuses[1:] { // a payment system never reports pending
			if _, err := from.Outcome(to); err == nil {
				continue
			}
			outcomes++
			t.Run(fmt.Sprintf("%s to %s", from, to), func(t *testing.T) {
				// The webhook answers 200, lest the payment system deliver
				// it again for days, saying why it changed nothing; again,
				// it is a replay.
				event := fmt.Sprintf("bad-%d", outcomes)
				for _, delivery := range []string{"first", "again"} {
					got := decodeAs[webhookAnswerJSON](t, a.webhook(200, event, p.ID, to))
					if got.Status != string(from) || got.Version != p.Version {
						t.Errorf("%s delivery: %s v%d, want %s v%d unchanged", delivery, got.Status, got.Version, from, p.Version)
					}
					if ignored := got.IgnoredOutcome; delivery == "first" && !strings.Contains(ignored, "payment is "+string(from)) {
						t.Errorf("first delivery: ignored_outcome %q, want it naming %s", ignored, from)
					}
				}
				body := fmt.Sprintf(`{"event_id":"bad-op-%d","status":%q}`, outcomes, to)
				refused(a.must(409, "POST", "/v1/payments/"+p.ID+"/outcomes", body), from)
				// Both are in the history, as ignored.
				h := decodeAs[paymentHistoryJSON](t, a.must(200, "GET", "/v1/payments/"+p.ID+"/history", nil))
				var ignored []string
				for _, c := range h.Changes {
					if strings.HasPrefix(c.Reason, "ignored outcome "+string(to)) && c.From == c.To && c.To == string(from) {
						ignored = append(ignored, c.Actor)
					}
				}
				if !slices.Equal(ignored, []string{"webhook", ""}) && !slices.Equal(ignored, []string{"webhook", "admin"}) {
					t.Errorf("ignored outcomes in the history by %q, want the webhook's then the admin key's", ignored)
				}
			})
		}
		if from != stockade.PaymentCancelled && !from.CanMove(stockade.PaymentCancelled) {
			t.Run(fmt.Sprintf("cancel %s", from), func(t *testing.T) {
				refused(a.must(409, "POST", "/v1/payments/"+p.ID+"/cancel", nil), from)
			})
		}
		if after := a.paymentState(); after != before {
			t.Errorf("refused moves of a %s payment changed the store:\n--- before\n%s--- after\n%s", from, before, after)
		}
	}
	if outcomes == 0 {
		t.Fatal("no outcome was refused: the table allows everything?")
	}
}

// TestPaymentAccess: a storefront key sees and cancels only the payments
// of what it made (another's answer 404, as missing ones do, and lists
// leave them out) and pays only for what it made; a reader reads but
// neither pays nor cancels; only an admin key reports outcomes by hand,
// recorded under its name.
func TestPaymentAccess(t *testing.T) {
	t.Parallel()
	a, ks, f := keyedAPI(t)
	shop, other, reader, admin := bearerOf(ks.storefront), bearerOf(ks.otherShop), bearerOf(ks.reader), bearerOf(ks.admin)
	const missing = "pay_23ocd3aaaaaaaaaaaaaaaaaaaa"
	before := a.everything()
	for _, rq := range []struct{ method, path, body string }{
		{"GET", "/v1/payments/" + f.payment, ""},
		{"GET", "/v1/payments/" + f.payment + "/history", ""},
		{"POST", "/v1/payments/" + f.payment + "/cancel", ""},
	} {
		r := a.do(rq.method, rq.path, orNil(rq.body), other)
		m := a.do(rq.method, strings.Replace(rq.path, f.payment, missing, 1), orNil(rq.body), other)
		if r.status != 404 || r.problem(t).Code != stockade.ENotFound ||
			strings.ReplaceAll(string(r.body), f.payment, "ID") != strings.ReplaceAll(string(m.body), missing, "ID") {
			t.Errorf("%s %s with another storefront's key: %s; a missing one: %s", rq.method, rq.path, r, m)
		}
	}
	a.must(404, "POST", "/v1/payments", `{"target":{"kind":"reservation","id":"`+f.reservation+`"},"amount":1,"currency":"EUR"}`, other)
	a.must(403, "POST", "/v1/payments", `{"target":{"kind":"reservation","id":"`+f.reservation+`"},"amount":1,"currency":"EUR"}`, reader)
	a.must(403, "POST", "/v1/payments/"+f.payment+"/cancel", nil, reader)
	for _, key := range []string{shop, reader} {
		a.must(403, "POST", "/v1/payments/"+f.payment+"/outcomes", `{"event_id":"op-1","status":"failed"}`, key)
	}
	if after := a.everything(); after != before {
		t.Errorf("refused requests changed the store:\n--- before\n%s--- after\n%s", before, after)
	}

	lists := map[string]int{other: 0, shop: 1, reader: 1, admin: 1}
	for key, want := range lists {
		page := decodeAs[paymentsJSON](t, a.must(200, "GET", "/v1/payments", nil, key))
		if len(page.Payments) != want || (want == 1 && page.Payments[0].ID != f.payment) {
			t.Errorf("GET /v1/payments with %s: %+v, want %d", key[:30], page, want)
		}
	}
	a.must(200, "GET", "/v1/payments/"+f.payment, nil, reader)
	a.must(200, "GET", "/v1/payments/"+f.payment+"/history", nil, shop)
	p := decodeAs[paymentJSON](t, a.must(200, "POST", "/v1/payments/"+f.payment+"/outcomes", `{"event_id":"op-1","status":"failed","reason":"declined"}`, admin))
	if p.Status != "failed" || p.Resolution != "released" || p.Owner == "" {
		t.Errorf("an outcome by hand: %+v", p)
	}
	if got := a.history(f.payment, admin); got != "pending>failed:released:ops" {
		t.Errorf("history %q, want the admin key's name as the actor", got)
	}
}

// TestPaymentBadInput: malformed bodies and queries, and values out of
// the domain's limits, are 400 and change nothing; so is a signed
// webhook body that is not an outcome.
func TestPaymentBadInput(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	res := a.reserveOne()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	before := a.paymentState()
	target := `"target":{"kind":"reservation","id":"` + res + `"}`
	for _, tc := range []struct{ method, path, body, why string }{
		{"POST", "/v1/payments", `{"amount":1,"currency":"EUR"}`, "target: required"},
		{"POST", "/v1/payments", `{"target":null,"amount":1,"currency":"EUR"}`, "target: required"},
		{"POST", "/v1/payments", `{"target":{"id":"` + res + `"},"amount":1,"currency":"EUR"}`, "target.kind: required"},
		{"POST", "/v1/payments", `{"target":{"kind":"reservation"},"amount":1,"currency":"EUR"}`, "target.id: required"},
		{"POST", "/v1/payments", `{"target":{"kind":"cart","id":"x"},"amount":1,"currency":"EUR"}`, "target.kind: must be"},
		{"POST", "/v1/payments", `{"target":{"kind":"reservation","id":"x","Kind":"order"},"amount":1,"currency":"EUR"}`, "target: unknown field"},
		{"POST", "/v1/payments", `{` + target + `,"currency":"EUR"}`, "amount: required"},
		{"POST", "/v1/payments", `{` + target + `,"amount":1}`, "currency: required"},
		{"POST", "/v1/payments", `{` + target + `,"amount":0,"currency":"EUR"}`, "amount: must be between 1"},
		{"POST", "/v1/payments", `{` + target + `,"amount":"12.50","currency":"EUR"}`, "amount: want an integer"},
		{"POST", "/v1/payments", `{` + target + `,"amount":1,"currency":"eur"}`, "currency: must be three capital letters"},
		{"POST", "/v1/payments", `{` + target + `,"amount":1,"currency":"EUR","status":"succeeded"}`, `unknown field "status"`},
		{"GET", "/v1/payments?status=paid", "", "status: must be one of"},
		{"GET", "/v1/payments?status=", "", "status: must not be empty"},
		{"GET", "/v1/payments?resolution=refunded", "", "resolution: must be"},
		{"GET", "/v1/payments?stuck=yes", "", "stuck: want true or false"},
		{"GET", "/v1/payments?limit=0", "", "limit:"},
		{"GET", "/v1/payments?owner=me", "", `unknown parameter "owner"`},
		{"GET", "/v1/payments/" + p.ID + "?x=1", "", "takes no query"},
		{"POST", "/v1/payments/" + p.ID + "/cancel", `{"reason":7}`, "reason: want a string"},
		{"POST", "/v1/payments/" + p.ID + "/cancel", `{"why":"x"}`, `unknown field "why"`},
		{"POST", "/v1/payments/" + p.ID + "/outcomes", `{"status":"failed"}`, "event_id: required"},
		{"POST", "/v1/payments/" + p.ID + "/outcomes", `{"event_id":"op-1"}`, "status: required"},
		{"POST", "/v1/payments/" + p.ID + "/outcomes", `{"event_id":"op-1","status":"pending"}`, "status: must be one of"},
		{"POST", "/v1/payments/" + p.ID + "/outcomes", `{"event_id":"op-1","status":"failed","payment_id":"` + p.ID + `"}`, `unknown field "payment_id"`},
		{"POST", "/v1/payments/" + p.ID + "/outcomes", `{"event_id":"","status":"failed"}`, "event_id:"},
	} {
		r := a.must(400, tc.method, tc.path, orNil(tc.body))
		if pr := r.problem(t); pr.Code != stockade.EInvalid || !strings.Contains(pr.Detail, tc.why) {
			t.Errorf("%s %s %s: %+v, want it to say %q", tc.method, tc.path, tc.body, pr, tc.why)
		}
	}
	for _, tc := range []struct{ body, why string }{
		{`{"payment_id":"` + p.ID + `","status":"failed"}`, "event_id: required"},
		{`{"event_id":"psp-1","status":"failed"}`, "payment_id: required"},
		{`{"event_id":"psp-1","payment_id":"` + p.ID + `"}`, "status: required"},
		{`{"event_id":"psp-1","payment_id":"` + p.ID + `","status":"paid"}`, "status: must be one of"},
		{`{"event_id":"psp-1","payment_id":"` + p.ID + `","status":"failed","amount":5}`, `unknown field "amount"`},
		{`{"event_id":"psp-1","payment_id":"` + p.ID + `","status":"failed"} {}`, "unexpected data"},
		{`[]`, "want an object"},
	} {
		r := a.must(400, "POST", webhookPath, tc.body, signHeader(tc.body, time.Now()))
		if pr := r.problem(t); pr.Code != stockade.EInvalid || !strings.Contains(pr.Detail, tc.why) {
			t.Errorf("webhook %s: %+v, want it to say %q", tc.body, pr, tc.why)
		}
	}
	body := webhookBodyOf("psp-1", p.ID, stockade.PaymentFailed)
	a.must(400, "POST", webhookPath+"?debug=1", body, signHeader(body, time.Now()))
	a.must(400, "POST", webhookPath, body, signHeader(body, time.Now()), "Idempotency-Key: ")
	r := a.must(415, "POST", webhookPath, body, signHeader(body, time.Now()), "Content-Type: text/plain")
	if pr := r.problem(t); pr.Code != stockade.EInvalid {
		t.Errorf("webhook as text/plain: %+v", pr)
	}
	a.must(404, "POST", "/v1/payments/pay_none/outcomes", `{"event_id":"op-1","status":"failed"}`)
	a.must(404, "POST", webhookPath, webhookBodyOf("psp-9", "pay_none", stockade.PaymentFailed),
		signHeader(webhookBodyOf("psp-9", "pay_none", stockade.PaymentFailed), time.Now()))
	if after := a.paymentState(); after != before {
		t.Errorf("refused requests changed the store:\n--- before\n%s--- after\n%s", before, after)
	}
}

// TestWebhookBodyLimit: the webhook reads no more than the server's body
// limit.
func TestWebhookBodyLimit(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{server: &Options{MaxBodyBytes: 256}})
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	body := fmt.Sprintf(`{"event_id":"psp-1","payment_id":%q,"status":"failed","reason":%q}`, p.ID, strings.Repeat("x", 300))
	r := a.must(413, "POST", webhookPath, body, signHeader(body, time.Now()))
	if pr := r.problem(t); pr.Code != stockade.EInvalid || !strings.Contains(pr.Detail, "256 bytes") {
		t.Errorf("an outcome over the body limit: %+v", pr)
	}
}

// TestPaymentIdempotency: a payment's creation and its cancel replay
// under their Idempotency-Key; the outcomes route and the webhook check
// one but store nothing under it: the event id makes them idempotent.
func TestPaymentIdempotency(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	res := a.reserveOne()
	body := `{"target":{"kind":"reservation","id":"` + res + `"},"amount":1250,"currency":"EUR"}`
	first := a.must(201, "POST", "/v1/payments", body, "Idempotency-Key: pay-1")
	again := a.must(201, "POST", "/v1/payments", body, "Idempotency-Key: pay-1")
	if string(again.body) != string(first.body) || again.header.Get(headerReplayed) != "true" {
		t.Errorf("the creation again: %s, replayed %q; want %s", again, again.header.Get(headerReplayed), first)
	}
	a.must(422, "POST", "/v1/payments", strings.Replace(body, "1250", "1300", 1), "Idempotency-Key: pay-1")
	id := first.id(t)
	cancel := a.must(200, "POST", "/v1/payments/"+id+"/cancel", `{"reason":"changed their mind"}`, "Idempotency-Key: cancel-1")
	if again := a.must(200, "POST", "/v1/payments/"+id+"/cancel", `{"reason":"changed their mind"}`, "Idempotency-Key: cancel-1"); string(again.body) != string(cancel.body) || again.header.Get(headerReplayed) != "true" {
		t.Errorf("the cancel again: %s, replayed %q", again, again.header.Get(headerReplayed))
	}

	p := a.pay(stockade.PayReservation, a.reserveOne())
	out := `{"event_id":"op-1","status":"processing"}`
	for range 2 {
		if r := a.must(200, "POST", "/v1/payments/"+p.ID+"/outcomes", out, "Idempotency-Key: out-1"); r.header.Get(headerReplayed) != "" {
			t.Errorf("an outcome by hand replayed: %s", r)
		}
	}
	a.must(400, "POST", "/v1/payments/"+p.ID+"/outcomes", out, "Idempotency-Key: out-1", "Idempotency-Key: out-2")
	if got := a.history(p.ID); got != "pending>processing::" {
		t.Errorf("history %q", got)
	}
}

// TestWebhookMetrics: the webhook's requests have ids and are counted
// as every other route's.
func TestWebhookMetrics(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	p := a.pay(stockade.PayReservation, a.reserveOne())
	before := a.scrape()
	r := a.webhook(200, "psp-1", p.ID, stockade.PaymentProcessing)
	body := webhookBodyOf("psp-2", p.ID, stockade.PaymentSucceeded)
	refused := a.must(401, "POST", webhookPath, body, signHeader(body, time.Now().Add(-time.Hour)), "X-Request-Id: psp-delivery-2")
	if r.header.Get(requestIDHeader) == "" || refused.header.Get(requestIDHeader) != "psp-delivery-2" {
		t.Errorf("request ids %q and %q", r.header.Get(requestIDHeader), refused.header.Get(requestIDHeader))
	}
	after := a.scrape()
	for series, want := range map[string]float64{
		`stockade_http_requests_total{method="POST",route="/v1/payments/webhook",status="200"}`:    1,
		`stockade_http_requests_total{method="POST",route="/v1/payments/webhook",status="401"}`:    1,
		`stockade_http_request_duration_seconds_count{method="POST",route="/v1/payments/webhook"}`: 2,
	} {
		if got := after[series] - before[series]; got != want {
			t.Errorf("%s rose by %v, want %v", series, got, want)
		}
	}
}

// TestPaymentClient drives every stockade.PaymentService method, and
// Webhook, through the client, and checks each answer against the
// engine's own.
func TestPaymentClient(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{keyed: true})
	ks := a.makeKeys()
	c, ctx := a.client.WithKey(ks.admin), sys(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East", Point: &stockade.Point{Lat: 40.71, Lon: -74.01}}, nil)
	must(err)
	_, err = c.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, 10, nil, nil)
	must(err)
	shop := a.client.WithKey(ks.storefront)
	r, err := shop.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}}, nil)
	must(err)

	req := stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 4999, Currency: "USD"}
	idem := &stockade.Idempotency{Key: "pay-7"}
	p, err := shop.CreatePayment(ctx, req, idem)
	must(err)
	if p.Target != req.Target || p.Amount != 4999 || p.Currency != "USD" || p.Status != stockade.PaymentPending || idem.Replayed {
		t.Errorf("CreatePayment = %+v, replayed %v", p, idem.Replayed)
	}
	again := &stockade.Idempotency{Key: "pay-7"}
	if p2, err := shop.CreatePayment(ctx, req, again); err != nil || !reflect.DeepEqual(p2, p) || !again.Replayed {
		t.Errorf("CreatePayment again = %+v, %v, replayed %v; want %+v", p2, err, again.Replayed, p)
	}
	if _, err := shop.CreatePayment(ctx, req, nil); stockade.ErrorCode(err) != stockade.EPaymentExists || !strings.Contains(stockade.ErrorMessage(err), p.ID) {
		t.Errorf("a second CreatePayment = %v, want %s naming %s", err, stockade.EPaymentExists, p.ID)
	}
	same(t, "Payment", func() (any, error) { return shop.Payment(ctx, p.ID) }, func() (any, error) { return a.eng.Payment(ctx, p.ID) })
	same(t, "PaymentHistory of a new payment", func() (any, error) { return c.PaymentHistory(ctx, p.ID) },
		func() (any, error) { return a.eng.PaymentHistory(ctx, p.ID) })

	// An operator's outcome: the history names the key, not the source.
	p, err = c.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "op-1", PaymentID: p.ID, Status: stockade.PaymentAuthorized, Reason: "by phone"}, "jetstream")
	must(err)
	if p.Status != stockade.PaymentAuthorized || p.Version != 2 {
		t.Errorf("ApplyOutcome = %+v", p)
	}
	if _, err := shop.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "op-2", PaymentID: p.ID, Status: stockade.PaymentFailed}, ""); stockade.ErrorCode(err) != stockade.EForbidden {
		t.Errorf("ApplyOutcome with a storefront key = %v, want %s", err, stockade.EForbidden)
	}
	if _, err := c.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "op-3", Status: stockade.PaymentFailed}, ""); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("ApplyOutcome without a payment id = %v, want %s", err, stockade.EInvalid)
	}

	// A payment system's outcome, signed, needs no key.
	psp := NewClient(a.srv.URL, a.srv.Client())
	captured, err := psp.Webhook(ctx, webhookSecret, stockade.PaymentOutcome{EventID: "psp-1", PaymentID: p.ID, Status: stockade.PaymentCaptured})
	must(err)
	if captured.Status != stockade.PaymentCaptured || captured.Resolution != stockade.ResolvedConfirmed || captured.Order == "" {
		t.Errorf("Webhook = %+v", captured)
	}
	if replay, err := psp.Webhook(ctx, webhookSecret, stockade.PaymentOutcome{EventID: "psp-1", PaymentID: p.ID, Status: stockade.PaymentCaptured}); err != nil || !reflect.DeepEqual(replay, captured) {
		t.Errorf("Webhook again = %+v, %v; want %+v", replay, err, captured)
	}
	if _, err := psp.Webhook(ctx, []byte("whsec_wrong"), stockade.PaymentOutcome{EventID: "psp-2", PaymentID: p.ID, Status: stockade.PaymentRefunded}); stockade.ErrorCode(err) != stockade.EUnauthenticated {
		t.Errorf("Webhook with another secret = %v, want %s", err, stockade.EUnauthenticated)
	}
	if _, err := c.ApplyOutcome(ctx, stockade.PaymentOutcome{EventID: "op-4", PaymentID: p.ID, Status: stockade.PaymentFailed}, ""); stockade.ErrorCode(err) != stockade.EInvalidState ||
		!strings.Contains(stockade.ErrorMessage(err), "captured") {
		t.Errorf("a failure after the capture = %v, want %s naming captured", err, stockade.EInvalidState)
	}
	same(t, "PaymentHistory", func() (any, error) { return shop.PaymentHistory(ctx, p.ID) },
		func() (any, error) { return a.eng.PaymentHistory(ctx, p.ID) })
	hist, err := c.PaymentHistory(ctx, p.ID)
	must(err)
	var actors []string
	for _, ch := range hist {
		actors = append(actors, ch.Actor)
	}
	if !slices.Equal(actors, []string{"ops", "webhook", "ops"}) || hist[0].Reason != "by phone" ||
		!strings.HasPrefix(hist[2].Reason, "ignored outcome failed") || hist[2].From != stockade.PaymentCaptured || hist[2].To != stockade.PaymentCaptured {
		t.Errorf("PaymentHistory = %+v, want the admin key's name, then the webhook, then the failure ignored", hist)
	}
	// The webhook answers such an outcome 200; the client says it was
	// ignored, with the payment as it is.
	_, err = psp.Webhook(ctx, webhookSecret, stockade.PaymentOutcome{EventID: "psp-3", PaymentID: p.ID, Status: stockade.PaymentFailed})
	if ignored, ok := errors.AsType[*stockade.IgnoredOutcome](err); !ok || ignored.Payment.Status != stockade.PaymentCaptured ||
		stockade.ErrorCode(err) != stockade.EInvalidState || !strings.Contains(stockade.ErrorMessage(err), "captured") {
		t.Errorf("Webhook of a failure after the capture = %v, want an IgnoredOutcome naming captured", err)
	}

	// Cancel, with and without a reason.
	r, err = shop.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil)
	must(err)
	p, err = shop.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 1, Currency: "EUR"}, nil)
	must(err)
	if p, err = shop.CancelPayment(ctx, p.ID, "", nil); err != nil || p.Status != stockade.PaymentCancelled || p.Resolution != stockade.ResolvedReleased {
		t.Errorf("CancelPayment = %+v, %v", p, err)
	}
	r, err = shop.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil)
	must(err)
	p, err = shop.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 1, Currency: "EUR"}, nil)
	must(err)
	if p, err = shop.CancelPayment(ctx, p.ID, "out of time", &stockade.Idempotency{Key: "cancel-1"}); err != nil || p.Status != stockade.PaymentCancelled {
		t.Errorf("CancelPayment with a reason = %+v, %v", p, err)
	}
	same(t, "PaymentHistory of a cancel", func() (any, error) { return shop.PaymentHistory(ctx, p.ID) },
		func() (any, error) { return a.eng.PaymentHistory(ctx, p.ID) })
	if _, err := shop.Payment(ctx, "pay_none"); stockade.ErrorCode(err) != stockade.ENotFound {
		t.Errorf("Payment(unknown) = %v, want %s", err, stockade.ENotFound)
	}

	// Lists, with filters and a page at a time.
	for _, q := range []stockade.PaymentQuery{
		{},
		{Status: stockade.PaymentCancelled},
		{Resolution: "released", Limit: 1},
		{Resolution: stockade.ResolutionUnresolved},
		{Stuck: true},
	} {
		same(t, fmt.Sprintf("Payments(%+v)", q), func() (any, error) { return c.Payments(ctx, q) }, func() (any, error) { return a.eng.Payments(ctx, q) })
	}
	page, err := shop.Payments(ctx, stockade.PaymentQuery{Limit: 2})
	must(err)
	if len(page.Payments) != 2 || page.Next == "" {
		t.Fatalf("Payments(limit 2) = %+v, want 2 and a next cursor", page)
	}
	q := stockade.PaymentQuery{Limit: 2, Cursor: page.Next}
	same(t, "Payments after a cursor", func() (any, error) { return c.Payments(ctx, q) }, func() (any, error) { return a.eng.Payments(ctx, q) })
	if _, err := c.Payments(ctx, stockade.PaymentQuery{Status: "paid"}); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("Payments(unknown status) = %v, want %s", err, stockade.EInvalid)
	}
}

// TestSignWebhook: the signature is the HMAC-SHA256 of "<t>.<body>", in
// lowercase hex, after the time in seconds, and verifies as the server
// verifies it.
func TestSignWebhook(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_900_000_000, 999_000_000)
	body := []byte(`{"event_id":"psp-1","payment_id":"pay_1","status":"succeeded"}`)
	sig := SignWebhook([]byte("whsec_x"), body, at)
	// The HMAC-SHA256 of "1900000000.<body>" keyed with "whsec_x", as
	// Python's hmac module computes it.
	const want = "t=1900000000,v1=5fc2d82c6945a0caeb215ca62c77ef6f665e492f041bc11f2403f1e76a788957"
	if sig != want {
		t.Errorf("SignWebhook = %q, want %q", sig, want)
	}
	h := map[string][]string{headerSignature: {sig}}
	if err := VerifyWebhook(h, body, [][]byte{[]byte("whsec_x")}, at, time.Minute); err != nil {
		t.Errorf("verify its own signature: %v", err)
	}
	if err := VerifyWebhook(h, body, [][]byte{[]byte("whsec_y"), []byte("whsec_x")}, at.Add(59*time.Second), time.Minute); err != nil {
		t.Errorf("verify with the secret second, within the tolerance: %v", err)
	}
	if err := VerifyWebhook(h, append(body, ' '), [][]byte{[]byte("whsec_x")}, at, time.Minute); stockade.ErrorCode(err) != stockade.EUnauthenticated {
		t.Errorf("verify another body: %v", err)
	}
}

// paymentBodies are seeds for FuzzPaymentBody.
var paymentBodies = []string{
	`{"target":{"kind":"reservation","id":"res_1"},"amount":1250,"currency":"EUR"}`,
	`{"target":{"kind":"hold","id":"hld_1"},"amount":1,"currency":"usd"}`,
	`{"target":{"kind":"order","id":"ord_1","id":"ord_2"},"amount":1,"currency":"EUR"}`,
	`{"target":null,"amount":1,"currency":"EUR"}`,
	`{"target":{"Kind":"order","id":"x"},"amount":1,"currency":"EUR"}`,
	`{"target":[],"amount":-5,"currency":"EUR"}`,
	`{"target":{"kind":"order","id":"x"},"amount":1e3,"currency":"EUR"}`,
	`null`,
}

// FuzzPaymentBody decodes arbitrary bodies of POST /v1/payments, as
// FuzzShowBody does those of a show.
func FuzzPaymentBody(f *testing.F) {
	for _, b := range paymentBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		roundTrip(t, body, paymentBody.request, func(req stockade.NewPaymentRequest) any {
			return newPaymentJSON{Target: paymentTargetJSON{Kind: string(req.Target.Kind), ID: req.Target.ID},
				Amount: req.Amount, Currency: req.Currency}
		}, nil)
	})
}

// FuzzWebhookSignature checks arbitrary Stockade-Signature headers: each
// is refused as unauthenticated, with a message, unless it carries the
// signature of the body with the secret at a time within the tolerance.
func FuzzWebhookSignature(f *testing.F) {
	body := []byte(`{"event_id":"psp-1","payment_id":"pay_1","status":"succeeded"}`)
	secret := []byte("whsec_fuzz")
	now := time.Unix(1_900_000_000, 0)
	good := SignWebhook(secret, body, now)
	_, v1, _ := strings.Cut(good, ",v1=")
	for _, h := range []string{
		good,
		"t=1900000000,v1=" + v1 + ",v1=" + v1,
		"t=1900000000, v0=x, v1=" + v1,
		"v1=" + v1 + ",t=1900000000",
		"t=1900000000,v1=" + strings.ToUpper(v1),
		"t=+1900000000,v1=" + v1,
		"t=01900000000,v1=" + v1,
		"t=-1,v1=" + v1,
		"t=99999999999999999999,v1=" + v1,
		"t=1900000000,v1=",
		"t=1900000000,,v1=" + v1,
		"",
		"=,=",
	} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) {
		h := http.Header{headerSignature: {header}}
		err := VerifyWebhook(h, body, [][]byte{secret}, now, 5*time.Minute)
		if err == nil {
			sig, _ := parseSignature(h)
			if sig.t != "1900000000" || !slices.ContainsFunc(sig.macs, func(m []byte) bool { return hex.EncodeToString(m) == v1 }) {
				t.Fatalf("%q passes without the signature of the body at its time", header)
			}
			return
		}
		if stockade.ErrorCode(err) != stockade.EUnauthenticated || !strings.HasPrefix(stockade.ErrorMessage(err), headerSignature+": ") {
			t.Fatalf("%q refused with %v", header, err)
		}
	})
}

// A payment system signs the body of each outcome it posts to the
// webhook with the secret it shares with the server.
func ExampleSignWebhook() {
	body := []byte(`{"event_id":"psp-1","payment_id":"pay_1","status":"succeeded"}`)
	fmt.Println(SignWebhook([]byte("whsec_x"), body, time.Unix(1_900_000_000, 0)))
	// Output: t=1900000000,v1=5fc2d82c6945a0caeb215ca62c77ef6f665e492f041bc11f2403f1e76a788957
}

// TestReleaseWithPaymentInFlight: a reservation or hold whose payment is
// processing or authorized cannot be released (409 payment_in_flight,
// naming the payment, changing nothing), lest the buyer be charged for
// stock or seats sold meanwhile; cancelling an authorized payment releases
// it, and one whose payment is only pending is released as ever.
func TestReleaseWithPaymentInFlight(t *testing.T) {
	t.Parallel()
	for _, pg := range []bool{false, true} {
		name := "sqlite"
		if pg {
			name = "postgres"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newAPI(t, &apiOptions{postgres: pg})
			a.seed()
			a.gala()
			refused := func(path string, p paymentJSON, status string) {
				t.Helper()
				before := a.snapshot() + a.seatState()
				pr := a.must(409, "DELETE", path, nil).problem(t)
				if pr.Code != stockade.EPaymentInFlight || !strings.Contains(pr.Detail, p.ID) || !strings.Contains(pr.Detail, status) {
					t.Errorf("DELETE %s: %+v, want %s naming %s, %s", path, pr, stockade.EPaymentInFlight, p.ID, status)
				}
				if after := a.snapshot() + a.seatState(); after != before {
					t.Errorf("the refused release of %s changed the store", path)
				}
			}
			events := 0
			outcome := func(p paymentJSON, status stockade.PaymentStatus) {
				events++
				a.webhook(200, fmt.Sprintf("%s-%d", name, events), p.ID, status)
			}
			for _, target := range []struct {
				kind stockade.PaymentTargetKind
				make func() string
				path string
				gone string // its status once released
			}{
				{stockade.PayReservation, func() string { return a.reserveOne() }, "/v1/reservations/", "released"},
				{stockade.PayHold, func() string {
					return a.must(201, "POST", "/v1/shows/gala/holds", `{"general_admission":[{"area":"standing","quantity":1}]}`).id(t)
				}, "/v1/holds/", "released"},
			} {
				// Processing, then authorized: refused both times; the
				// authorized payment cancelled, the target is released.
				id := target.make()
				p := a.pay(target.kind, id)
				outcome(p, stockade.PaymentProcessing)
				refused(target.path+id, p, "processing")
				outcome(p, stockade.PaymentAuthorized)
				refused(target.path+id, p, "authorized")
				a.must(200, "POST", "/v1/payments/"+p.ID+"/cancel", nil)
				var got struct{ Status string }
				if got = decodeAs[struct{ Status string }](t, a.must(200, "GET", target.path+id, nil)); got.Status != target.gone {
					t.Errorf("%s %s after its payment was cancelled: %s, want %s", target.kind, id, got.Status, target.gone)
				}
				// A pending payment has reached no payment system.
				id = target.make()
				a.pay(target.kind, id)
				if got = decodeAs[struct{ Status string }](t, a.must(200, "DELETE", target.path+id, nil)); got.Status != target.gone {
					t.Errorf("%s %s with a pending payment, released: %s, want %s", target.kind, id, got.Status, target.gone)
				}
			}
		})
	}
}
