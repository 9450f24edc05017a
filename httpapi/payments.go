package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Payments: POST /v1/payments and its reads, cancels and outcomes,
// reported by an operator or by a payment system through the signed
// webhook (POST /v1/payments/webhook; its signature scheme is
// webhook.go's), the documents they read and answer, and the Client's
// calls of them. The documents have the fields, and the names, of the
// domain types' JSON, so that the payload of a payment.* event reads like
// GET /v1/payments/{id}.

// The request bodies and queries.

// paymentBody is the body of POST /v1/payments.
type paymentBody struct {
	Target   json.RawMessage   `json:"target"`
	Amount   *int64            `json:"amount"`
	Currency *string           `json:"currency"`
	Metadata map[string]string `json:"metadata"`
}

type targetBody struct {
	Kind *string `json:"kind"`
	ID   *string `json:"id"`
}

// request decodes the target of b into the request the service
// validates (stockade.NewPaymentRequest.Validate).
func (b paymentBody) request() (stockade.NewPaymentRequest, error) {
	var req stockade.NewPaymentRequest
	if len(b.Target) == 0 || isNull(b.Target) {
		return req, required("target")
	}
	var t targetBody
	if err := decode(b.Target, &t, "target"); err != nil {
		return req, err
	}
	switch {
	case t.Kind == nil:
		return req, required("target.kind")
	case t.ID == nil:
		return req, required("target.id")
	case b.Amount == nil:
		return req, required("amount")
	case b.Currency == nil:
		return req, required("currency")
	}
	req.Target = stockade.PaymentTarget{Kind: stockade.PaymentTargetKind(*t.Kind), ID: *t.ID}
	req.Amount, req.Currency = *b.Amount, *b.Currency
	if len(b.Metadata) > 0 {
		req.Metadata = b.Metadata
	}
	return req, nil
}

// cancelPaymentBody is the body of POST /v1/payments/{id}/cancel, which
// may be left out.
type cancelPaymentBody struct {
	Reason *string `json:"reason"`
}

func (b cancelPaymentBody) reason() string {
	if b.Reason == nil {
		return ""
	}
	return *b.Reason
}

// outcomeBody is the body of POST /v1/payments/{id}/outcomes: an outcome
// without its payment's id, which is in the path.
type outcomeBody struct {
	EventID *string `json:"event_id"`
	Status  *string `json:"status"`
	Reason  *string `json:"reason"`
}

// outcome returns the outcome of b for the payment id, which the service
// validates (stockade.PaymentOutcome.Validate).
func (b outcomeBody) outcome(id string) (stockade.PaymentOutcome, error) {
	switch {
	case b.EventID == nil:
		return stockade.PaymentOutcome{}, required("event_id")
	case b.Status == nil:
		return stockade.PaymentOutcome{}, required("status")
	}
	o := stockade.PaymentOutcome{EventID: *b.EventID, PaymentID: id, Status: stockade.PaymentStatus(*b.Status)}
	if b.Reason != nil {
		o.Reason = *b.Reason
	}
	return o, nil
}

// webhookBody is the body of POST /v1/payments/webhook: an outcome, as a
// payment system reports it.
type webhookBody struct {
	EventID   *string `json:"event_id"`
	PaymentID *string `json:"payment_id"`
	Status    *string `json:"status"`
	Reason    *string `json:"reason"`
}

func (b webhookBody) outcome() (stockade.PaymentOutcome, error) {
	switch {
	case b.EventID == nil:
		return stockade.PaymentOutcome{}, required("event_id")
	case b.PaymentID == nil:
		return stockade.PaymentOutcome{}, required("payment_id")
	}
	return outcomeBody{EventID: b.EventID, Status: b.Status, Reason: b.Reason}.outcome(*b.PaymentID)
}

// paymentQuery reads the query of GET /v1/payments. The status and the
// resolution are checked by the service (stockade.PaymentQuery.Validate).
func paymentQuery(r *http.Request) (stockade.PaymentQuery, error) {
	var q stockade.PaymentQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxListLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			if v == "" {
				return invalidf("status: must not be empty; leave it out for payments of every status")
			}
			q.Status = stockade.PaymentStatus(v)
			return nil
		case "resolution":
			if v == "" {
				return invalidf("resolution: must not be empty; leave it out for payments of every resolution")
			}
			q.Resolution = v
			return nil
		case "stuck":
			switch v {
			case "true":
				q.Stuck = true
			case "false":
			default:
				return invalidf("stuck: want true or false, got %q", v)
			}
			return nil
		}
		if metadataParam(name, v, &q.Metadata) {
			return nil
		}
		return invalidf("query: unknown parameter %q (want status, stuck, resolution, metadata[KEY], cursor, limit)", name)
	})
	return q, err
}

// The JSON documents.

// paymentTargetJSON names what a payment pays for.
type paymentTargetJSON struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// paymentJSON is a payment, as the payment system reported it, and what
// it did to its target.
type paymentJSON struct {
	ID         string            `json:"id"`
	Target     paymentTargetJSON `json:"target"`
	Amount     int64             `json:"amount"`
	Currency   string            `json:"currency"`
	Status     string            `json:"status"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
	Resolution string            `json:"resolution,omitempty"`
	OrderID    string            `json:"order_id,omitempty"`
	BookingID  string            `json:"booking_id,omitempty"`
	// StuckAt is when the payment was found in flight after its target's
	// grace period; left out if it never was.
	StuckAt *time.Time `json:"stuck_at,omitempty"`
	Version int64      `json:"version"`
	Owner   string     `json:"owner,omitempty"`
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

// paymentsJSON is the answer of GET /v1/payments: a page of payments,
// newest first, and the opaque cursor of the next page.
type paymentsJSON struct {
	Payments   []paymentJSON `json:"payments"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// paymentChangeJSON is one change of a payment: a move of its status,
// or, with from equal to to, of its resolution or its being found stuck.
type paymentChangeJSON struct {
	PaymentID  string    `json:"payment_id"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Resolution string    `json:"resolution,omitempty"`
	At         time.Time `json:"at"`
	// Actor is the name of the API key that made the change, or where
	// the outcome came from ("webhook").
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// paymentHistoryJSON is the answer of GET /v1/payments/{id}/history:
// every change of the payment, oldest first.
type paymentHistoryJSON struct {
	Changes []paymentChangeJSON `json:"changes"`
}

func toPayment(p stockade.Payment) paymentJSON {
	out := paymentJSON{ID: p.ID, Target: paymentTargetJSON{Kind: string(p.Target.Kind), ID: p.Target.ID}, Amount: p.Amount,
		Currency: p.Currency, Status: string(p.Status), CreatedAt: wireTime(p.CreatedAt), UpdatedAt: wireTime(p.UpdatedAt),
		Resolution: string(p.Resolution), OrderID: p.Order, BookingID: p.Booking, Version: p.Version, Owner: p.Owner, Metadata: p.Metadata}
	if !p.StuckAt.IsZero() {
		at := wireTime(p.StuckAt)
		out.StuckAt = &at
	}
	return out
}

func toPayments(p stockade.PaymentPage) paymentsJSON {
	return paymentsJSON{Payments: each(p.Payments, toPayment), NextCursor: p.Next}
}

func toPaymentChange(c stockade.PaymentChange) paymentChangeJSON {
	return paymentChangeJSON{PaymentID: c.PaymentID, From: string(c.From), To: string(c.To), Resolution: string(c.Resolution),
		At: wireTime(c.At), Actor: c.Actor, Reason: c.Reason}
}

func toPaymentHistory(cs []stockade.PaymentChange) paymentHistoryJSON {
	return paymentHistoryJSON{Changes: each(cs, toPaymentChange)}
}

// The conversions back, for Client.

func (p paymentJSON) domain() stockade.Payment {
	out := stockade.Payment{ID: p.ID, Target: stockade.PaymentTarget{Kind: stockade.PaymentTargetKind(p.Target.Kind), ID: p.Target.ID},
		Amount: p.Amount, Currency: p.Currency, Status: stockade.PaymentStatus(p.Status), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		Resolution: stockade.PaymentResolution(p.Resolution), Order: p.OrderID, Booking: p.BookingID, Version: p.Version, Owner: p.Owner,
		Metadata: p.Metadata}
	if p.StuckAt != nil {
		out.StuckAt = *p.StuckAt
	}
	return out
}

func (j paymentsJSON) domain() stockade.PaymentPage {
	return stockade.PaymentPage{Payments: orNone(j.Payments, paymentJSON.domain), Next: j.NextCursor}
}

func (c paymentChangeJSON) domain() stockade.PaymentChange {
	return stockade.PaymentChange{PaymentID: c.PaymentID, From: stockade.PaymentStatus(c.From), To: stockade.PaymentStatus(c.To),
		Resolution: stockade.PaymentResolution(c.Resolution), At: c.At, Actor: c.Actor, Reason: c.Reason}
}

func (j paymentHistoryJSON) domain() []stockade.PaymentChange {
	return orNone(j.Changes, paymentChangeJSON.domain)
}

// The handlers.

func viewPayment(p stockade.Payment) any                 { return toPayment(p) }
func viewPayments(p stockade.PaymentPage) any            { return toPayments(p) }
func viewPaymentHistory(cs []stockade.PaymentChange) any { return toPaymentHistory(cs) }

func (s *Server) createPayment(w http.ResponseWriter, r *http.Request) {
	var in paymentBody
	body, ok := s.input(w, r, &in)
	if !ok {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusCreated, viewPayment, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.CreatePayment(ctx, req, idem)
	})
}

func (s *Server) listPayments(w http.ResponseWriter, r *http.Request) {
	q, err := paymentQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewPayments, func(ctx context.Context, _ *stockade.Idempotency) (stockade.PaymentPage, error) {
		return s.svc.Payments(ctx, q)
	})
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewPayment, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.Payment(ctx, id)
	})
}

func (s *Server) updatePayment(w http.ResponseWriter, r *http.Request) {
	updateByID(s, w, r, viewPayment, s.svc.UpdatePayment)
}

func (s *Server) paymentHistory(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewPaymentHistory, func(ctx context.Context, id string, _ *stockade.Idempotency) ([]stockade.PaymentChange, error) {
		return s.svc.PaymentHistory(ctx, id)
	})
}

func (s *Server) cancelPayment(w http.ResponseWriter, r *http.Request) {
	var in cancelPaymentBody
	body, ok := s.optionalInput(w, r, &in, "id")
	if !ok {
		return
	}
	id, reason := r.PathValue("id"), in.reason()
	call(s, w, r, body, http.StatusOK, viewPayment, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.CancelPayment(ctx, id, reason, idem)
	})
}

// paymentOutcome applies an outcome that an operator reports of the
// payment in the path, recorded under the name of the caller's key. The
// outcome's event id makes it idempotent: an Idempotency-Key is checked,
// as on every mutating request, but nothing is stored under it.
func (s *Server) paymentOutcome(w http.ResponseWriter, r *http.Request) {
	var in outcomeBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	o, err := in.outcome(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewPayment, func(ctx context.Context, _ *stockade.Idempotency) (stockade.Payment, error) {
		return s.svc.ApplyOutcome(ctx, o, "")
	})
}

// webhookSource is what the payment's history records as the author of
// an outcome that came by the webhook.
const webhookSource = "webhook"

// paymentWebhook serves POST /v1/payments/webhook: it checks the
// signature of the body, then applies the outcome it holds as the
// webhook's. An outcome delivered again is answered with the payment as
// it is (the service applies each event id once), so the event id, not
// an Idempotency-Key, makes a delivery safe to repeat: a key is checked,
// as on every mutating request, but nothing is stored under it.
func (s *Server) paymentWebhook(w http.ResponseWriter, r *http.Request) {
	if len(s.opts.WebhookSecrets) == 0 {
		s.writeError(w, r, stockade.Errorf(stockade.ENotFound,
			"the payment webhook is not configured: this server has no webhook secret"))
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeBadRequest(w, r, err)
		return
	}
	if err := VerifyWebhook(r.Header, body, s.opts.WebhookSecrets, time.Now(), s.opts.WebhookTolerance); err != nil {
		w.Header().Set("WWW-Authenticate", webhookChallenge)
		s.writeError(w, r, err)
		return
	}
	if err := noQuery(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	var in webhookBody
	if err := decode(body, &in, ""); err != nil {
		s.writeError(w, r, err)
		return
	}
	o, err := in.outcome()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The signature is the provider's, which owns no API key: the service
	// applies its outcome as its own. An outcome that contradicts an
	// earlier one is answered 200 all the same: a payment system delivers
	// again whatever is not answered 2xx, for days, and no delivery of it
	// will ever be applied.
	call(s, w, r, body, http.StatusOK, viewWebhookAnswer, func(ctx context.Context, _ *stockade.Idempotency) (webhookAnswer, error) {
		p, err := s.svc.ApplyOutcome(stockade.WithActor(ctx, stockade.System), o, webhookSource)
		if ignored, ok := errors.AsType[*stockade.IgnoredOutcome](err); ok {
			return webhookAnswer{p: ignored.Payment, ignored: ignored.Err.Message}, nil
		}
		return webhookAnswer{p: p}, err
	})
}

// webhookAnswer is what the webhook answers: the payment, and why the
// outcome was ignored if it was.
type webhookAnswer struct {
	p       stockade.Payment
	ignored string
}

// webhookAnswerJSON is the body of the webhook's answer: the payment,
// with ignored_outcome when the outcome changed nothing because it
// contradicts an earlier one.
type webhookAnswerJSON struct {
	paymentJSON
	IgnoredOutcome string `json:"ignored_outcome,omitempty"`
}

func viewWebhookAnswer(a webhookAnswer) any {
	return webhookAnswerJSON{paymentJSON: toPayment(a.p), IgnoredOutcome: a.ignored}
}

// The Client's calls.

// newPaymentJSON is the body of POST /v1/payments as the client sends
// it.
type newPaymentJSON struct {
	Target   paymentTargetJSON `json:"target"`
	Amount   int64             `json:"amount"`
	Currency string            `json:"currency"`
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

// outcomeJSON is an outcome as the client sends it: to
// /v1/payments/{id}/outcomes without PaymentID, which is in the path, and
// to the webhook with it.
type outcomeJSON struct {
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id,omitempty"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// CreatePayment implements stockade.PaymentService.
func (c *Client) CreatePayment(ctx context.Context, req stockade.NewPaymentRequest, idem *stockade.Idempotency) (stockade.Payment, error) {
	in := newPaymentJSON{Target: paymentTargetJSON{Kind: string(req.Target.Kind), ID: req.Target.ID}, Amount: req.Amount, Currency: req.Currency,
		Metadata: req.Metadata}
	return c.payment(ctx, http.MethodPost, "/v1/payments", in, idem)
}

// Payment implements stockade.PaymentService.
func (c *Client) Payment(ctx context.Context, id string) (stockade.Payment, error) {
	return c.payment(ctx, http.MethodGet, "/v1/payments/"+seg(id), nil, nil)
}

// Payments implements stockade.PaymentService: one page, whose Next is
// the server's cursor, to pass back as is in q.Cursor.
func (c *Client) Payments(ctx context.Context, q stockade.PaymentQuery) (stockade.PaymentPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	if q.Stuck {
		v.Set("stuck", "true")
	}
	if q.Resolution != "" {
		v.Set("resolution", q.Resolution)
	}
	setMetadataParams(v, q.Metadata)
	var out paymentsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/payments", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.PaymentPage{}, err
	}
	return out.domain(), nil
}

// PaymentHistory implements stockade.PaymentService.
func (c *Client) PaymentHistory(ctx context.Context, id string) ([]stockade.PaymentChange, error) {
	var out paymentHistoryJSON
	if err := c.do(ctx, http.MethodGet, "/v1/payments/"+seg(id)+"/history", nil, &out, nil); err != nil {
		return nil, err
	}
	return out.domain(), nil
}

// ApplyOutcome implements stockade.PaymentService: POST
// /v1/payments/{id}/outcomes, an operator's call that needs an admin key.
// source is not sent: the server records the outcome under the name of
// the client's key. A payment system reports outcomes with Webhook
// instead.
func (c *Client) ApplyOutcome(ctx context.Context, o stockade.PaymentOutcome, source string) (stockade.Payment, error) {
	if err := stockade.ValidateID("payment_id", o.PaymentID); err != nil {
		return stockade.Payment{}, err // it goes in the path, which cannot be empty
	}
	in := outcomeJSON{EventID: o.EventID, Status: string(o.Status), Reason: o.Reason}
	return c.payment(ctx, http.MethodPost, "/v1/payments/"+seg(o.PaymentID)+"/outcomes", in, nil)
}

// UpdatePayment implements stockade.PaymentService.
func (c *Client) UpdatePayment(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Payment, error) {
	return c.payment(ctx, http.MethodPatch, "/v1/payments/"+seg(id), updateBodyOf(req), idem)
}

// CancelPayment implements stockade.PaymentService. An empty reason
// sends no body.
func (c *Client) CancelPayment(ctx context.Context, id, reason string, idem *stockade.Idempotency) (stockade.Payment, error) {
	var in any
	if reason != "" {
		in = map[string]string{"reason": reason}
	}
	return c.payment(ctx, http.MethodPost, "/v1/payments/"+seg(id)+"/cancel", in, idem)
}

// Webhook reports o to the server as a payment system does: it posts o
// to POST /v1/payments/webhook, signed with secret at the current time
// (SignWebhook), without the client's API key. The answer is the
// payment after o, or as it was if o's event id was applied before.
func (c *Client) Webhook(ctx context.Context, secret []byte, o stockade.PaymentOutcome) (stockade.Payment, error) {
	body, err := json.Marshal(outcomeJSON{EventID: o.EventID, PaymentID: o.PaymentID, Status: string(o.Status), Reason: o.Reason})
	if err != nil {
		return stockade.Payment{}, fmt.Errorf("httpapi: POST %s: %w", webhookPath, err)
	}
	unkeyed := *c
	unkeyed.key = ""
	var out webhookAnswerJSON
	header := http.Header{headerSignature: {SignWebhook(secret, body, time.Now())}}
	if err := unkeyed.send(ctx, http.MethodPost, webhookPath, body, header, &out, nil); err != nil {
		return stockade.Payment{}, err
	}
	if out.IgnoredOutcome != "" {
		return stockade.Payment{}, &stockade.IgnoredOutcome{Payment: out.paymentJSON.domain(),
			Err: stockade.Errorf(stockade.EInvalidState, out.IgnoredOutcome)}
	}
	return out.paymentJSON.domain(), nil
}

func (c *Client) payment(ctx context.Context, method, path string, in any, idem *stockade.Idempotency) (stockade.Payment, error) {
	var out paymentJSON
	if err := c.do(ctx, method, path, in, &out, idem); err != nil {
		return stockade.Payment{}, err
	}
	return out.domain(), nil
}
