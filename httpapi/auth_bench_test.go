package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/sqlite"
)

// BenchmarkAccess is the cost of the front door: the same checkout
// through one server, side by side, without a key (open mode: no
// authentication, no rate limit) and with one (authentication, a role
// check and a token bucket), on the batch strategy. Compare the two
// ns/op of one run:
//
//	go test -run '^$' -bench BenchmarkAccess -count 6 ./httpapi/
func BenchmarkAccess(b *testing.B) {
	srv, secret := benchServer(b, engine.Batch, stockade.RoleAdmin)
	send := func(b *testing.B, method, path, body string, header ...string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		for _, h := range header {
			name, value, _ := strings.Cut(h, ": ")
			req.Header.Set(name, value)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
	}
	send(b, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`)
	send(b, "PUT", "/v1/stock/widget/east", `{"on_hand":1000000000}`)
	for _, tc := range []struct {
		name   string
		header []string
	}{
		{"open", nil},
		{"key", []string{"Authorization: Bearer " + secret}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					send(b, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, tc.header...)
				}
			})
		})
	}
}

// BenchmarkAccessCheck is the front door alone: what a request pays for
// its key (parsing, the cached key, the role, the token bucket, the
// actor in its context) before a handler that does nothing. Set its ns/op
// beside the CPU a request costs in full (BenchmarkAccess, or the
// service's own process CPU over a stockade bench run).
func BenchmarkAccessCheck(b *testing.B) {
	srv, secret := benchServer(b, engine.Atomic, stockade.RoleStorefront)
	h := srv.guard(route{pattern: "POST /v1/orders", access: shoppers, handler: func(*Server, http.ResponseWriter, *http.Request) {}})
	for _, tc := range []struct{ name, header string }{{"open", ""}, {"key", "Bearer " + secret}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			req := httptest.NewRequest("POST", "/v1/orders", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			w := httptest.NewRecorder()
			for b.Loop() {
				h(w, req)
			}
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
		})
	}
}

// benchServer returns an open server, keyed too, over an engine with
// strategy on a fresh SQLite store, and the secret of a key of role with
// a rate no benchmark reaches.
func benchServer(b *testing.B, strategy string, role stockade.Role) (*Server, string) {
	st, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := st.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(st, &engine.Options{Strategy: strategy})
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := eng.CreateKey(b.Context(), stockade.NewKeyRequest{Name: "bench", Role: role, RateLimit: stockade.MaxRateLimit})
	if err != nil {
		b.Fatal(err)
	}
	return NewServer(eng, slog.New(slog.DiscardHandler), &Options{Keys: eng, Open: true}), secret
}
