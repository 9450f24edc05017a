package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stockade/stockade/console"
)

func serve(t *testing.T, method, path string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(console.Path, console.Handler())
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec
}

func TestHandlerServesThePage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, contentType, contains string
	}{
		{"/console/", "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"/console/app.js", "text/javascript; charset=utf-8", "class Feed"},
		{"/console/style.css", "text/css; charset=utf-8", ".seat-free"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := serve(t, "GET", tc.path, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", rec.Code)
			}
			h := rec.Header()
			if got := h.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if !strings.Contains(rec.Body.String(), tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			csp := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
				}
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-cache" || h.Get("ETag") == "" {
				t.Errorf("headers %v: want nosniff, no-cache and an ETag", h)
			}
			again := serve(t, "GET", tc.path, http.Header{"If-None-Match": {h.Get("ETag")}})
			if again.Code != http.StatusNotModified {
				t.Errorf("with its ETag: status %d, want 304", again.Code)
			}
		})
	}
}

func TestHandlerRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"POST", "/console/", http.StatusMethodNotAllowed},
		{"DELETE", "/console/app.js", http.StatusMethodNotAllowed},
		{"GET", "/console/missing.js", http.StatusNotFound},
		{"GET", "/console/assets/app.js", http.StatusNotFound},
	} {
		if rec := serve(t, tc.method, tc.path, nil); rec.Code != tc.want {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, rec.Code, tc.want)
		}
	}
}

func TestHandlerAnswersHead(t *testing.T) {
	t.Parallel()
	rec := serve(t, "HEAD", "/console/", nil)
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Fatalf("HEAD: status %d with %d bytes, want 200 and none", rec.Code, rec.Body.Len())
	}
}
