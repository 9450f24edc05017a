package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade"
)

// The Client's transport: requests, answers and errors. Its calls of each
// aggregate are in that aggregate's file: stock.go, orders.go, shows.go,
// payments.go, keys.go, webhooks.go, rooms.go and events.go.

// Client is a stockade.StockService, a stockade.BookingService and a
// stockade.PaymentService over the HTTP API of a stockade server, and
// manages API keys (CreateKey, Keys, RevokeKey) and waiting rooms
// (CreateRoom, UpdateRoom, JoinRoom, RoomTicket and the rest); it is not a
// whole stockade.Service, since a key is authenticated by the server only
// and a room's admissions are the server's own work.
// A refusal comes back as the *stockade.Error the server sent (its code
// and detail); transport failures and unexpected answers are other errors.
//
// A mutating call with a *stockade.Idempotency sends its Key as the
// Idempotency-Key header (the server computes the fingerprint from the
// request, so the Fingerprint field is not sent); a replayed answer
// decodes like the first and sets Replayed.
//
// It is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
	key  string // sent as Authorization: Bearer, if set
}

var (
	_ stockade.StockService   = (*Client)(nil)
	_ stockade.BookingService = (*Client)(nil)
	_ stockade.PaymentService = (*Client)(nil)
)

// WithKey returns a client that sends secret, an API key, with every
// request.
func (c *Client) WithKey(secret string) *Client {
	cc := *c
	cc.key = secret
	return &cc
}

// NewClient returns a client of the server at baseURL (such as
// "http://localhost:8080"), sending its requests through hc
// (http.DefaultClient when nil).
func NewClient(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc}
}

// maxResponseBytes bounds what the client reads of an answer.
const maxResponseBytes = 64 << 20

// do sends a request with in (if not nil) as its JSON body, under idem's
// key if idem is not nil, and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any, idem *stockade.Idempotency) error {
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
		}
		body = b
	}
	return c.send(ctx, method, path, body, nil, out, idem)
}

// send sends a request with body (if not nil) as its JSON body and the
// header lines of header, under idem's key if idem is not nil, and
// decodes a 2xx answer into out.
func (c *Client) send(ctx context.Context, method, path string, body []byte, header http.Header, out any, idem *stockade.Idempotency) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
	}
	for name, vs := range header {
		req.Header[name] = vs
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if idem != nil {
		idem.Replayed = false
		req.Header.Set(headerIdempotencyKey, idem.Key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("httpapi: %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return responseError(method, path, resp, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("httpapi: %s %s: decode answer: %w", method, path, err)
		}
	}
	if idem != nil {
		idem.Replayed = resp.Header.Get(headerReplayed) == "true"
	}
	return nil
}

// responseError turns an error answer into an error: the problem
// document's code and detail as a *stockade.Error, or a description of an
// answer that is not one.
func responseError(method, path string, resp *http.Response, data []byte) error {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == contentProblem {
		var p problem
		if err := json.Unmarshal(data, &p); err == nil && p.Code != "" {
			return &stockade.Error{Code: p.Code, Message: p.Detail}
		}
	}
	const maxShown = 200
	shown := string(data)
	if len(shown) > maxShown {
		shown = shown[:maxShown] + "…"
	}
	return fmt.Errorf("httpapi: %s %s: %s: %q", method, path, resp.Status, shown)
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }

// pagePath is path with the query v and a list's cursor and limit, those
// that are set.
func pagePath(path string, v url.Values, cursor string, limit int) string {
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	return path
}

// seconds is a TTL as the API counts it, in whole seconds, rounded up to
// the next one.
func seconds(ttl time.Duration) int64 { return int64((ttl + time.Second - 1) / time.Second) }

// Ready asks the service whether it and its dependencies (the store, and
// the lock strategy's locker) answer: GET /readyz. It returns nil when they
// do, and an error with code stockade.EUnavailable when one does not.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/readyz", nil, nil, nil)
}
