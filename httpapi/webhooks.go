package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Outbound webhooks: /v1/webhook-endpoints, an admin's routes, the
// documents they read and answer, and the Client's calls of them. The
// deliveries themselves are package webhook's.

// The request bodies and queries.

// webhookEndpointBody is the body of POST /v1/webhook-endpoints, and of
// PATCH /v1/webhook-endpoints/{id}, where every field may be left out.
type webhookEndpointBody struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	Disabled    *bool    `json:"disabled"`
}

func (b webhookEndpointBody) request() (stockade.NewWebhookEndpointRequest, error) {
	switch {
	case b.URL == nil:
		return stockade.NewWebhookEndpointRequest{}, required("url")
	case b.Events == nil:
		return stockade.NewWebhookEndpointRequest{}, required("events")
	case b.Disabled != nil:
		return stockade.NewWebhookEndpointRequest{}, invalidf("disabled: an endpoint is made enabled; disable it with PATCH")
	}
	req := stockade.NewWebhookEndpointRequest{URL: *b.URL, Events: b.Events}
	if b.Description != nil {
		req.Description = *b.Description
	}
	return req, req.Validate()
}

func (b webhookEndpointBody) update() (stockade.WebhookEndpointUpdate, error) {
	u := stockade.WebhookEndpointUpdate{URL: b.URL, Events: b.Events, Description: b.Description, Disabled: b.Disabled}
	return u, u.Validate()
}

// rotateBody is the body of POST /v1/webhook-endpoints/{id}/rotate-secret.
type rotateBody struct {
	OverlapSeconds *int64 `json:"overlap_seconds"`
}

func (b rotateBody) overlap() (time.Duration, error) {
	if b.OverlapSeconds == nil {
		return 0, nil
	}
	most := int64(stockade.MaxWebhookSecretOverlap.Seconds())
	if *b.OverlapSeconds < 0 || *b.OverlapSeconds > most {
		return 0, invalidf("overlap_seconds: must be between 0 and %d, got %d", most, *b.OverlapSeconds)
	}
	return time.Duration(*b.OverlapSeconds) * time.Second, nil
}

// webhookEndpointQuery reads the query of GET /v1/webhook-endpoints.
func webhookEndpointQuery(r *http.Request) (stockade.WebhookEndpointQuery, error) {
	var q stockade.WebhookEndpointQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxWebhookLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// webhookDeliveryQuery reads the query of GET
// /v1/webhook-endpoints/{id}/deliveries.
func webhookDeliveryQuery(r *http.Request) (stockade.WebhookDeliveryQuery, error) {
	var q stockade.WebhookDeliveryQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxWebhookLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		if name == "status" {
			q.Status = stockade.WebhookDeliveryStatus(v)
			return q.Status.Validate("status")
		}
		return invalidf("query: unknown parameter %q (want status, cursor, limit)", name)
	})
	return q, err
}

// The JSON documents.

// webhookEndpointJSON is an endpoint as the API shows it: never its
// secret, except Secret in the answers to its creation and rotation.
type webhookEndpointJSON struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Description    string    `json:"description,omitempty"`
	Disabled       bool      `json:"disabled"`
	DisabledReason string    `json:"disabled_reason,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	Version        int64     `json:"version"`
	// PreviousSecretExpiresAt is when the secret before the last
	// rotation stops signing deliveries, while it still does.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
	Secret                  string     `json:"secret,omitempty"`
}

type webhookEndpointsJSON struct {
	Endpoints  []webhookEndpointJSON `json:"webhook_endpoints"`
	NextCursor string                `json:"next_cursor,omitempty"`
}

func toWebhookEndpoint(ep stockade.WebhookEndpoint) webhookEndpointJSON {
	out := webhookEndpointJSON{ID: ep.ID, URL: ep.URL, Events: ep.Events, Description: ep.Description, Disabled: ep.Disabled,
		DisabledReason: ep.DisabledReason, CreatedAt: wireTime(ep.CreatedAt), UpdatedAt: wireTime(ep.UpdatedAt), Version: ep.Version}
	if ep.PreviousSecret != "" && time.Now().Before(ep.PreviousExpiresAt) {
		at := wireTime(ep.PreviousExpiresAt)
		out.PreviousSecretExpiresAt = &at
	}
	return out
}

// webhookDeliveryJSON is a delivery as the API shows it: the domain
// type's JSON, its body aside.
type webhookDeliveryJSON = stockade.WebhookDelivery

type webhookDeliveriesJSON struct {
	Deliveries []webhookDeliveryJSON `json:"deliveries"`
	NextCursor string                `json:"next_cursor,omitempty"`
}

func toWebhookDelivery(d stockade.WebhookDelivery) webhookDeliveryJSON {
	d.NextAttemptAt, d.RetryUntil = wireTime(d.NextAttemptAt), wireTime(d.RetryUntil)
	d.LastAttemptAt, d.CreatedAt = wireTime(d.LastAttemptAt), wireTime(d.CreatedAt)
	return d
}

// The conversions back, for Client.

func (j webhookEndpointJSON) domain() stockade.WebhookEndpoint {
	ep := stockade.WebhookEndpoint{ID: j.ID, URL: j.URL, Events: j.Events, Description: j.Description, Disabled: j.Disabled,
		DisabledReason: j.DisabledReason, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, Version: j.Version}
	if j.PreviousSecretExpiresAt != nil {
		ep.PreviousExpiresAt = *j.PreviousSecretExpiresAt
	}
	return ep
}

// The handlers.

func viewWebhookEndpoint(ep stockade.WebhookEndpoint) any { return toWebhookEndpoint(ep) }

func viewWebhookEndpoints(p stockade.WebhookEndpointPage) any {
	return webhookEndpointsJSON{Endpoints: each(p.Endpoints, toWebhookEndpoint), NextCursor: p.Next}
}

func viewWebhookDelivery(d stockade.WebhookDelivery) any { return toWebhookDelivery(d) }

func viewWebhookDeliveries(p stockade.WebhookDeliveryPage) any {
	return webhookDeliveriesJSON{Deliveries: each(p.Deliveries, toWebhookDelivery), NextCursor: p.Next}
}

// refuseIdempotencyKey refuses an Idempotency-Key on a route whose answer
// holds a secret shown once: keeping it to replay would mean keeping the
// secret where idempotency records are.
func (s *Server) refuseIdempotencyKey(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get(headerIdempotencyKey) == "" {
		return false
	}
	s.writeError(w, r, invalidf("Idempotency-Key: not taken by %s %s, whose answer holds a secret shown once", r.Method, r.Pattern))
	return true
}

// createWebhookEndpoint registers an endpoint. As with API keys, it is
// not idempotent by Idempotency-Key: the secret is shown once, and an
// endpoint made twice by a retry is deleted with DELETE.
func (s *Server) createWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	var in webhookEndpointBody
	if _, ok := s.input(w, r, &in); !ok || s.refuseIdempotencyKey(w, r) {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ep, secret, err := s.svc.CreateWebhookEndpoint(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := toWebhookEndpoint(ep)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listWebhookEndpoints(w http.ResponseWriter, r *http.Request) {
	q, err := webhookEndpointQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewWebhookEndpoints, func(ctx context.Context, _ *stockade.Idempotency) (stockade.WebhookEndpointPage, error) {
		return s.svc.WebhookEndpoints(ctx, q)
	})
}

func (s *Server) getWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewWebhookEndpoint, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.WebhookEndpoint, error) {
		return s.svc.WebhookEndpoint(ctx, id)
	})
}

// updateWebhookEndpoint changes the fields the body gives. A change is
// a state to set, so a repeat of it changes nothing more.
func (s *Server) updateWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	var in webhookEndpointBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	u, err := in.update()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, viewWebhookEndpoint, func(ctx context.Context, _ *stockade.Idempotency) (stockade.WebhookEndpoint, error) {
		return s.svc.UpdateWebhookEndpoint(ctx, id, u)
	})
}

func (s *Server) deleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewWebhookEndpoint, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.WebhookEndpoint, error) {
		return s.svc.DeleteWebhookEndpoint(ctx, id)
	})
}

// rotateWebhookSecret gives an endpoint a new secret, in the answer only.
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	var in rotateBody
	if _, ok := s.optionalInput(w, r, &in, "id"); !ok || s.refuseIdempotencyKey(w, r) {
		return
	}
	overlap, err := in.overlap()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ep, secret, err := s.svc.RotateWebhookSecret(r.Context(), r.PathValue("id"), overlap)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := toWebhookEndpoint(ep)
	out.Secret = secret
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	q, err := webhookDeliveryQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, nil, http.StatusOK, viewWebhookDeliveries, func(ctx context.Context, _ *stockade.Idempotency) (stockade.WebhookDeliveryPage, error) {
		return s.svc.WebhookDeliveries(ctx, id, q)
	})
}

// redeliverWebhook makes a finished delivery pending again. A repeat
// while it is pending is refused (409), so a retried request changes
// nothing more.
func (s *Server) redeliverWebhook(w http.ResponseWriter, r *http.Request) {
	body, ok := s.input(w, r, nil, "id", "delivery")
	if !ok {
		return
	}
	id, delivery := r.PathValue("id"), r.PathValue("delivery")
	call(s, w, r, body, http.StatusOK, viewWebhookDelivery, func(ctx context.Context, _ *stockade.Idempotency) (stockade.WebhookDelivery, error) {
		return s.svc.RedeliverWebhook(ctx, id, delivery)
	})
}

// The Client's calls.

// CreateWebhookEndpoint registers an endpoint (an admin key's call) and
// returns it with its signing secret, which no later call shows.
func (c *Client) CreateWebhookEndpoint(ctx context.Context, req stockade.NewWebhookEndpointRequest) (stockade.WebhookEndpoint, string, error) {
	in := map[string]any{"url": req.URL, "events": req.Events}
	if req.Description != "" {
		in["description"] = req.Description
	}
	var out webhookEndpointJSON
	err := c.do(ctx, http.MethodPost, "/v1/webhook-endpoints", in, &out, nil)
	return out.domain(), out.Secret, err
}

// WebhookEndpoints returns a page of the endpoints.
func (c *Client) WebhookEndpoints(ctx context.Context, q stockade.WebhookEndpointQuery) (stockade.WebhookEndpointPage, error) {
	var out webhookEndpointsJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/webhook-endpoints", url.Values{}, q.Cursor, q.Limit), nil, &out, nil)
	return stockade.WebhookEndpointPage{Endpoints: each(out.Endpoints, webhookEndpointJSON.domain), Next: out.NextCursor}, err
}

// WebhookEndpoint returns an endpoint.
func (c *Client) WebhookEndpoint(ctx context.Context, id string) (stockade.WebhookEndpoint, error) {
	var out webhookEndpointJSON
	err := c.do(ctx, http.MethodGet, "/v1/webhook-endpoints/"+seg(id), nil, &out, nil)
	return out.domain(), err
}

// UpdateWebhookEndpoint changes what u sets.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, u stockade.WebhookEndpointUpdate) (stockade.WebhookEndpoint, error) {
	in := map[string]any{}
	if u.URL != nil {
		in["url"] = *u.URL
	}
	if u.Events != nil {
		in["events"] = u.Events
	}
	if u.Description != nil {
		in["description"] = *u.Description
	}
	if u.Disabled != nil {
		in["disabled"] = *u.Disabled
	}
	var out webhookEndpointJSON
	err := c.do(ctx, http.MethodPatch, "/v1/webhook-endpoints/"+seg(id), in, &out, nil)
	return out.domain(), err
}

// DeleteWebhookEndpoint deletes an endpoint and its deliveries.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string) (stockade.WebhookEndpoint, error) {
	var out webhookEndpointJSON
	err := c.do(ctx, http.MethodDelete, "/v1/webhook-endpoints/"+seg(id), nil, &out, nil)
	return out.domain(), err
}

// RotateWebhookSecret gives an endpoint a new secret, returned once.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (stockade.WebhookEndpoint, string, error) {
	var in any
	if overlap != 0 {
		in = map[string]any{"overlap_seconds": int64(overlap / time.Second)}
	}
	var out webhookEndpointJSON
	err := c.do(ctx, http.MethodPost, "/v1/webhook-endpoints/"+seg(id)+"/rotate-secret", in, &out, nil)
	return out.domain(), out.Secret, err
}

// WebhookDeliveries returns a page of an endpoint's deliveries.
func (c *Client) WebhookDeliveries(ctx context.Context, endpointID string, q stockade.WebhookDeliveryQuery) (stockade.WebhookDeliveryPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	var out webhookDeliveriesJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/webhook-endpoints/"+seg(endpointID)+"/deliveries", v, q.Cursor, q.Limit), nil, &out, nil)
	return stockade.WebhookDeliveryPage{Deliveries: out.Deliveries, Next: out.NextCursor}, err
}

// RedeliverWebhook makes a finished delivery pending again.
func (c *Client) RedeliverWebhook(ctx context.Context, endpointID, deliveryID string) (stockade.WebhookDelivery, error) {
	var out webhookDeliveryJSON
	err := c.do(ctx, http.MethodPost, "/v1/webhook-endpoints/"+seg(endpointID)+"/deliveries/"+seg(deliveryID)+"/redeliver", nil, &out, nil)
	return out, err
}
