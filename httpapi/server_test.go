package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

type pingFunc func(context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

func TestReadyzFollowsDependencies(t *testing.T) {
	t.Parallel()
	up := pingFunc(func(context.Context) error { return nil })
	down := pingFunc(func(context.Context) error { return errors.New("connection refused") })
	tests := []struct {
		name     string
		deps     []Pinger
		draining bool
		want     int
		wantC    string
	}{
		{"no dependencies", nil, false, http.StatusOK, ""},
		{"all up", []Pinger{up, up}, false, http.StatusOK, ""},
		{"one down", []Pinger{up, down}, false, http.StatusServiceUnavailable, stockade.EUnavailable},
		{"draining", []Pinger{up}, true, http.StatusServiceUnavailable, stockade.EUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, tc.deps...)
			if tc.draining {
				s.Drain()
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
				if rec.Code != http.StatusOK || rec.Header().Get("Connection") != "close" {
					t.Errorf("/healthz while draining: %d, Connection %q; want 200, close", rec.Code, rec.Header().Get("Connection"))
				}
			}
			srv := httptest.NewServer(s)
			defer srv.Close()
			err := NewClient(srv.URL, nil).Ready(t.Context())
			if code := stockade.ErrorCode(err); (err == nil) != (tc.wantC == "") || err != nil && code != tc.wantC {
				t.Errorf("Client.Ready: %v, want code %q", err, tc.wantC)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d", rec.Code, tc.want)
			}
			if tc.wantC == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if p.Code != tc.wantC || p.Status != tc.want {
				t.Errorf("problem %+v, want code %q status %d", p, tc.wantC, tc.want)
			}
		})
	}
}

func TestWriteErrorHidesInternalCauses(t *testing.T) {
	t.Parallel()
	s := NewServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	tests := []struct {
		err        error
		wantStatus int
		wantCode   string
		wantDetail string
	}{
		{stockade.Errorf(stockade.EInsufficientStock, "sku A: 3 available, 5 asked"), 409, "insufficient_stock", "sku A: 3 available, 5 asked"},
		{stockade.Errorf(stockade.EReservationExpired, "expired"), 410, "reservation_expired", "expired"},
		{stockade.Errorf(stockade.EIdempotencyMismatch, "other body"), 422, "idempotency_mismatch", "other body"},
		{errors.New("pq: password authentication failed for user secret"), 500, "internal", "internal error"},
		{stockade.Errorf("no_such_code", "x"), 500, "internal", "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.err.Error(), func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.writeError(rec, httptest.NewRequest("GET", "/", nil), tc.err)
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.wantStatus || p.Code != tc.wantCode || p.Detail != tc.wantDetail {
				t.Errorf("got %d %+v, want %d %s %q", rec.Code, p, tc.wantStatus, tc.wantCode, tc.wantDetail)
			}
		})
	}
}

// failingStock is a service whose Stock fails with an internal error.
type failingStock struct{ stockade.Service }

func (failingStock) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	return stockade.Stock{}, errors.New("disk on fire")
}

// waitingStock is a service whose Stock waits for its context to end and
// then fails, wrapping the context's error or, as a driver may, not.
type waitingStock struct {
	stockade.Service
	wrap bool
}

func (w waitingStock) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	<-ctx.Done()
	if w.wrap {
		return stockade.Stock{}, fmt.Errorf("read stock: %w", ctx.Err())
	}
	return stockade.Stock{}, errors.New("driver: interrupted")
}

// TestClientGoneIsNotAWarning: a request whose client went away is logged
// at Debug, whether or not the failure it meets wraps the cancellation,
// and so is a readiness check whose client went away; a request that ran
// out of time is still a warning.
func TestClientGoneIsNotAWarning(t *testing.T) {
	t.Parallel()
	waiting := pingFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	tests := []struct {
		name string
		svc  stockade.Service
		path string
		end  func(*testing.T) context.Context // the request's context, ended
		want string
	}{
		{"gone, wrapped", waitingStock{wrap: true}, "/v1/stock/widget", gone, `level=DEBUG msg="request cancelled"`},
		{"gone, not wrapped", waitingStock{}, "/v1/stock/widget", gone, `level=DEBUG msg="request cancelled"`},
		{"gone, readyz", nil, "/readyz", gone, `level=DEBUG msg="readiness check cancelled"`},
		{"out of time", waitingStock{wrap: true}, "/v1/stock/widget", overdue, `level=WARN msg="request timed out"`},
		{"out of time, readyz", nil, "/readyz", overdue, `level=WARN msg="not ready"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s := NewServer(tc.svc, log, &Options{Open: true}, waiting)
			req := httptest.NewRequestWithContext(tc.end(t), "GET", tc.path, nil)
			s.ServeHTTP(httptest.NewRecorder(), req)
			if !strings.Contains(logs.String(), tc.want) {
				t.Errorf("no %s line in the log:\n%s", tc.want, &logs)
			}
			if errors.Is(req.Context().Err(), context.Canceled) {
				for line := range strings.Lines(logs.String()) {
					if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
						t.Errorf("a request whose client went away: %s", line)
					}
				}
			}
		})
	}
}

// gone returns a context that is cancelled, as a request's context is
// when its client goes away.
func gone(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

// overdue returns a context past its deadline.
func overdue(t *testing.T) context.Context {
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	t.Cleanup(cancel)
	return ctx
}

// TestRequestIDs: a request keeps a sane X-Request-Id of its own and gets
// a fresh one otherwise; the response carries it, and so do the request's
// log line and the "internal error" line, with the client's address.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	generated := regexp.MustCompile(`^[A-Z2-7]{26}$`)
	tests := []struct {
		name   string
		header []string // X-Request-Id values sent
		keep   bool     // the id is the first of them
	}{
		{"none", nil, false},
		{"sane", []string{"req-42/abc.DEF_~"}, true},
		{"with spaces", []string{"trace 1 of 2"}, true},
		{"longest", []string{strings.Repeat("x", 128)}, true},
		{"too long", []string{strings.Repeat("x", 129)}, false},
		{"not ASCII", []string{"clé"}, false},
		{"control character", []string{"a\x7fb"}, false},
		{"empty", []string{""}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s := NewServer(failingStock{}, log, &Options{Open: true})
			req := httptest.NewRequest("GET", "/v1/stock/widget", nil)
			req.RemoteAddr = "192.0.2.7:51234"
			for _, v := range tc.header {
				req.Header.Add("X-Request-Id", v)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)

			if rec.Code != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500", rec.Code)
			}
			id := rec.Header().Get("X-Request-Id")
			switch {
			case tc.keep && id != tc.header[0]:
				t.Errorf("X-Request-Id %q, want the client's %q", id, tc.header[0])
			case !tc.keep && !generated.MatchString(id):
				t.Errorf("X-Request-Id %q, want a fresh random id", id)
			}
			if strings.Contains(rec.Body.String(), "disk on fire") {
				t.Errorf("cause leaked to the client: %s", rec.Body)
			}

			// The request line and the internal error line, as the text
			// handler quotes them.
			attrs := "request_id=" + quote(id) + " client=192.0.2.7:51234"
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("want 2 log lines, got\n%s", logs.String())
			}
			for i, want := range []string{"level=ERROR msg=\"internal error\"", "level=DEBUG msg=request"} {
				if !strings.Contains(lines[i], want) || !strings.Contains(lines[i], attrs) {
					t.Errorf("log line %q: want %q and %q", lines[i], want, attrs)
				}
			}
			if !strings.Contains(lines[0], "disk on fire") {
				t.Errorf("internal error logged without its cause: %s", lines[0])
			}
		})
	}
}

// quote is how slog's text handler writes a string value.
func quote(s string) string {
	if strings.ContainsAny(s, " =\"") {
		return strconv.Quote(s)
	}
	return s
}

// TestCORS: a page of an allowed origin may call the API from a browser
// (its preflight is answered, its answers carry the CORS headers and
// expose the request id); any other origin gets no CORS headers; and with
// no origins allowed the server sends none at all.
func TestCORS(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	const shop = "https://shop.example"
	allowing := NewServer(nil, quiet, &Options{AllowedOrigins: []string{shop}})
	closed := NewServer(nil, quiet, nil)
	do := func(s *Server, method, origin string, header map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/healthz", nil)
		r.Header.Set("Origin", origin)
		for k, v := range header {
			r.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		return rec
	}
	preflight := map[string]string{
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "content-type,idempotency-key",
	}

	rec := do(allowing, http.MethodOptions, shop, preflight)
	if rec.Code/100 != 2 || rec.Header().Get("Access-Control-Allow-Origin") != shop {
		t.Fatalf("preflight from %s: %d, headers %v", shop, rec.Code, rec.Header())
	}
	if got := strings.ToLower(rec.Header().Get("Access-Control-Allow-Headers")); !strings.Contains(got, "idempotency-key") {
		t.Errorf("preflight allows headers %q, want Idempotency-Key among them", got)
	}
	rec = do(allowing, http.MethodGet, shop, nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != shop {
		t.Fatalf("GET from %s: %d, headers %v", shop, rec.Code, rec.Header())
	}
	if got := rec.Header().Get("Access-Control-Expose-Headers"); !strings.Contains(got, requestIDHeader) {
		t.Errorf("exposed headers %q, want %s among them", got, requestIDHeader)
	}

	for name, s := range map[string]*Server{"other origin": allowing, "no origins allowed": closed} {
		for _, method := range []string{http.MethodOptions, http.MethodGet} {
			rec := do(s, method, "https://evil.example", preflight)
			if v := rec.Header().Get("Access-Control-Allow-Origin"); v != "" {
				t.Errorf("%s, %s: Access-Control-Allow-Origin %q", name, method, v)
			}
		}
	}
}
