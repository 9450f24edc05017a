package httpapi

import (
	"bufio"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	st, err := sqlite.Open(sys(b), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := st.Migrate(sys(b)); err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(st, &engine.Options{Strategy: strategy})
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := eng.CreateKey(sys(b), stockade.NewKeyRequest{Name: "bench", Role: role, RateLimit: stockade.MaxRateLimit})
	if err != nil {
		b.Fatal(err)
	}
	return NewServer(eng, slog.New(slog.DiscardHandler), &Options{Open: true}), secret
}

// BenchmarkEventLatency is how soon an event reaches a Server-Sent
// Events reader of the same instance: from the start of the call whose
// transaction writes it (an upper bound of the time from its commit) to
// the event read from the stream, one change at a time. It reports the
// p50 and p99 of those times.
//
//	go test -run '^$' -bench EventLatency -benchtime 2000x ./httpapi/
func BenchmarkEventLatency(b *testing.B) {
	srv, secret := benchServer(b, engine.Atomic, stockade.RoleAdmin)
	ts := httptest.NewServer(srv)
	b.Cleanup(ts.Close)
	b.Cleanup(srv.CloseStreams)
	c := NewClient(ts.URL, ts.Client()).WithKey(secret)
	ctx := sys(b)
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/events/stream?type=stock.adjusted", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	next := func() {
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), "data: ") {
				return
			}
		}
		b.Fatalf("the stream ended: %v", lines.Err())
	}
	k := stockade.Key{SKU: "widget", Location: "east"}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := c.AdjustStock(ctx, k, 1, "bench", nil); err != nil {
			b.Fatal(err)
		}
		next()
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}
