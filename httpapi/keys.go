package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// API keys: POST, GET and DELETE /v1/keys, an admin's routes, the
// documents they read and answer, and the Client's calls of them. How a
// request's key is checked is auth.go's.

// The request bodies and queries.

// keyBody is the body of POST /v1/keys.
type keyBody struct {
	Name      *string  `json:"name"`
	Role      *string  `json:"role"`
	RateLimit *float64 `json:"rate_limit"`
}

func (b keyBody) request() (stockade.NewKeyRequest, error) {
	switch {
	case b.Name == nil:
		return stockade.NewKeyRequest{}, required("name")
	case b.Role == nil:
		return stockade.NewKeyRequest{}, required("role")
	}
	req := stockade.NewKeyRequest{Name: *b.Name, Role: stockade.Role(*b.Role)}
	if b.RateLimit != nil {
		req.RateLimit = *b.RateLimit
	}
	return req, req.Validate()
}

// keyQuery reads the query of GET /v1/keys.
func keyQuery(r *http.Request) (stockade.KeyQuery, error) {
	var q stockade.KeyQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxKeyLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// The JSON documents.

// keyJSON is an API key as the API shows it: never its hash. Secret is
// set only in the answer to its creation.
type keyJSON struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	RateLimit float64    `json:"rate_limit,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Secret    string     `json:"secret,omitempty"`
}

// keysJSON is the answer of GET /v1/keys: a page of keys in id order.
type keysJSON struct {
	Keys       []keyJSON `json:"keys"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

func toKey(k stockade.APIKey) keyJSON {
	out := keyJSON{ID: k.ID, Name: k.Name, Role: string(k.Role), RateLimit: k.RateLimit, CreatedAt: wireTime(k.CreatedAt)}
	if k.Revoked() {
		at := wireTime(k.RevokedAt)
		out.RevokedAt = &at
	}
	return out
}

func toKeys(p stockade.KeyPage) keysJSON {
	return keysJSON{Keys: each(p.Keys, toKey), NextCursor: p.Next}
}

// The conversions back, for Client.

func (k keyJSON) domain() stockade.APIKey {
	out := stockade.APIKey{ID: k.ID, Name: k.Name, Role: stockade.Role(k.Role), RateLimit: k.RateLimit, CreatedAt: k.CreatedAt}
	if k.RevokedAt != nil {
		out.RevokedAt = *k.RevokedAt
	}
	return out
}

func (j keysJSON) domain() stockade.KeyPage {
	return stockade.KeyPage{Keys: each(j.Keys, keyJSON.domain), Next: j.NextCursor}
}

// The handlers.

func viewKey(k stockade.APIKey) any   { return toKey(k) }
func viewKeys(p stockade.KeyPage) any { return toKeys(p) }

// createKey creates an API key. It is not idempotent by Idempotency-Key,
// which would mean keeping the secret to replay it: the key's name is
// unique, so a retry of a creation that went through is refused (409),
// and the key can be revoked and made again under another name.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	var in keyBody
	if _, ok := s.input(w, r, &in); !ok {
		return
	}
	if r.Header.Get(headerIdempotencyKey) != "" {
		s.writeError(w, r, invalidf("Idempotency-Key: not taken by POST /v1/keys, whose secret is shown once; a repeated name is refused instead"))
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	k, secret, err := s.svc.CreateKey(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := toKey(k)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	q, err := keyQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewKeys, func(ctx context.Context, _ *stockade.Idempotency) (stockade.KeyPage, error) {
		return s.svc.Keys(ctx, q)
	})
}

// revokeKey revokes a key, and forgets it at once here; other instances
// trust it until their cache entry ends (Options.KeyCacheTTL).
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewKey, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.APIKey, error) {
		k, err := s.svc.RevokeKey(ctx, id)
		if err == nil && k.Revoked() {
			s.keys.forget(id)
		}
		return k, err
	})
}

// The Client's calls.

// CreateKey creates an API key (an admin key's call) and returns it
// with its secret, which no later call shows.
func (c *Client) CreateKey(ctx context.Context, req stockade.NewKeyRequest) (stockade.APIKey, string, error) {
	in := map[string]any{"name": req.Name, "role": req.Role}
	if req.RateLimit != 0 {
		in["rate_limit"] = req.RateLimit
	}
	var out keyJSON
	err := c.do(ctx, http.MethodPost, "/v1/keys", in, &out, nil)
	return out.domain(), out.Secret, err
}

// Keys returns a page of the API keys.
func (c *Client) Keys(ctx context.Context, q stockade.KeyQuery) (stockade.KeyPage, error) {
	var out keysJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/keys", url.Values{}, q.Cursor, q.Limit), nil, &out, nil)
	return out.domain(), err
}

// RevokeKey revokes an API key.
func (c *Client) RevokeKey(ctx context.Context, id string) (stockade.APIKey, error) {
	var out keyJSON
	err := c.do(ctx, http.MethodDelete, "/v1/keys/"+seg(id), nil, &out, nil)
	return out.domain(), err
}
