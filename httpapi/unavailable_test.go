package httpapi

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/postgres"
)

// TestUnreachableDatabaseIs503: with the PostgreSQL server killed under a
// running API, every request that needs the database is answered 503
// unavailable, never a bare 500, and so is /readyz; once the server is
// back, the same API serves again.
func TestUnreachableDatabaseIs503(t *testing.T) {
	t.Parallel()
	pg := testkit.NewPostgres(t)
	url, err := pg.CreateDatabase("httpapi")
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(sys(t), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(sys(t)); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	eng, err := engine.New(st, &engine.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServer(eng, log, &Options{Open: true}, st))
	t.Cleanup(srv.Close)
	a := &api{t: t, srv: srv, eng: eng, logs: logs}
	a.seed()
	reserve := `{"lines":[{"sku":"widget","quantity":1}]}`

	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/reservations", reserve},
		{"POST", "/v1/orders", reserve},
		{"GET", "/v1/stock/widget", ""},
		{"PUT", "/v1/stock/widget/east", `{"on_hand":11}`},
		{"POST", "/v1/stock/widget/east/adjust", `{"delta":1,"reason":"found"}`},
		{"PUT", "/v1/locations/north", `{"name":"North","lat":60,"lon":10}`},
		{"GET", "/v1/movements", ""},
		{"GET", "/readyz", ""},
	} {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			var body any
			if r.body != "" {
				body = r.body
			}
			at := *a // fail this subtest, not its parent
			at.t = t
			p := at.must(503, r.method, r.path, body).problem(t)
			if p.Code != stockade.EUnavailable {
				t.Errorf("problem %+v, want code unavailable", p)
			}
			if r.path != "/readyz" && p.Detail != "the database cannot be reached; try again" {
				t.Errorf("detail %q", p.Detail)
			}
		})
	}
	if strings.Contains(logs.String(), "internal error") {
		t.Errorf("an unreachable database was logged as an internal error:\n%s", logs)
	}

	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(sys(t), 30*time.Second)
	defer cancel()
	for a.do("GET", "/readyz", nil).status != 200 { // until the pool has replaced its broken connections
		select {
		case <-ctx.Done():
			t.Fatal("/readyz does not come back after the restart")
		case <-time.After(10 * time.Millisecond):
		}
	}
	a.must(201, "POST", "/v1/reservations", reserve)
}
