package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/bench"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/sqlite"
)

// newStore opens a migrated SQLite store in a temporary directory.
func newStore(t *testing.T) *sqlite.Store { return teststore.OpenSQLite(t, nil) }

// checkResult checks that a result's numbers agree with each other. An
// onsale run ends when every seat is booked, which may come before its
// requests run out: how soon depends on how many holds lapse meanwhile,
// and so on the machine's speed.
func checkResult(t *testing.T, res bench.Result, requests int) {
	t.Helper()
	switch soldOut := res.OnSale != nil && res.OnSale.SoldOut; {
	case soldOut && (res.Requests > requests || res.Requests == 0):
		t.Errorf("%s: %d requests before the sell-out, want 1 to %d", res.Strategy, res.Requests, requests)
	case !soldOut && res.Requests != requests:
		t.Errorf("%s: %d requests, want %d", res.Strategy, res.Requests, requests)
	}
	sum, ok := 0, 0
	for k, n := range res.Outcomes {
		sum += n
		if k == "ok" || strings.HasSuffix(k, ":ok") {
			ok += n
		}
	}
	if sum != res.Requests {
		t.Errorf("%s: outcomes %v sum to %d, want %d", res.Strategy, res.Outcomes, sum, res.Requests)
	}
	if ok != res.Successes || ok == 0 {
		t.Errorf("%s: %d successes, outcomes say %d (want > 0)", res.Strategy, res.Successes, ok)
	}
	if !(0 < res.P50Ms && res.P50Ms <= res.P95Ms && res.P95Ms <= res.P99Ms && res.P99Ms <= res.MaxMs) {
		t.Errorf("%s: latencies p50 %v, p95 %v, p99 %v, max %v: want 0 < p50 ≤ p95 ≤ p99 ≤ max",
			res.Strategy, res.P50Ms, res.P95Ms, res.P99Ms, res.MaxMs)
	}
	if res.Throughput <= 0 || res.Throughput > res.RequestsPerSec {
		t.Errorf("%s: throughput %v, requests/s %v: want 0 < throughput ≤ requests/s", res.Strategy, res.Throughput, res.RequestsPerSec)
	}
	if !res.InvariantsOK || len(res.Violations) > 0 {
		t.Errorf("%s: invariants broken: %q", res.Strategy, res.Violations)
	}
	if res.Errors != 0 {
		t.Errorf("%s: %d errors, first: %s", res.Strategy, res.Errors, res.ErrorSample)
	}
}

func TestRunWorkloads(t *testing.T) {
	t.Parallel()
	const requests = 200
	for _, workload := range bench.Workloads() {
		if workload == bench.OnSale || workload == bench.WaitingRoom {
			continue // TestRunOnSale and TestRunWaitingRoom, with events of their size
		}
		t.Run(workload, func(t *testing.T) {
			var progress bytes.Buffer
			rep, err := bench.Run(t.Context(), &bench.Options{
				Workload:   workload,
				Store:      newStore(t),
				StoreName:  "sqlite:test.db",
				Strategies: []string{engine.Atomic, engine.RowLock},
				Clients:    8,
				Requests:   requests,
				Progress:   &progress,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 2 || rep.Results[0].Strategy != "atomic" || rep.Results[1].Strategy != "rowlock" {
				t.Fatalf("results %+v, want atomic then rowlock", rep.Results)
			}
			for _, res := range rep.Results {
				checkResult(t, res, requests)
				if !strings.HasSuffix(res.Reconcile, "levels match the whole ledger and the records)") {
					t.Errorf("%s: reconcile %q, want ok", res.Strategy, res.Reconcile)
				}
			}
			// SQLite has no row locks: rowlock says what runs instead.
			if eff := rep.Results[1].Effective; !strings.Contains(eff, "fallback") {
				t.Errorf("rowlock on SQLite runs as %q, want a fallback", eff)
			}
			switch workload {
			case bench.FlashSale:
				// Stock for half the requests: exactly that many sell.
				for _, res := range rep.Results {
					if res.Outcomes["ok"] != requests/2 || res.Outcomes["insufficient_stock"] != requests/2 {
						t.Errorf("%s: outcomes %v, want %d ok and %d insufficient_stock", res.Strategy, res.Outcomes, requests/2, requests/2)
					}
				}
			case bench.Booking:
				for _, res := range rep.Results {
					if res.Outcomes["reserve:ok"] == 0 || res.Outcomes["confirm:ok"] == 0 {
						t.Errorf("%s: outcomes %v, want reserves and confirms", res.Strategy, res.Outcomes)
					}
				}
			}
			for _, s := range []string{"atomic: " + workload, "rowlock: done"} {
				if !strings.Contains(progress.String(), s) {
					t.Errorf("progress does not say %q:\n%s", s, progress.String())
				}
			}
			checkOutputs(t, rep)
		})
	}
}

// checkOutputs checks the table, the JSON and the SVG of rep.
func checkOutputs(t *testing.T, rep *bench.Report) {
	t.Helper()
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if !strings.Contains(text.String(), "\n"+res.Strategy+" ") {
			t.Errorf("table has no row for %s:\n%s", res.Strategy, text.String())
		}
	}

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal(js.Bytes(), &list); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if len(list) != len(rep.Results) {
		t.Fatalf("JSON has %d objects, want %d", len(list), len(rep.Results))
	}
	for _, obj := range list {
		for _, key := range []string{"strategy", "throughput", "p50_ms", "p99_ms", "outcomes", "invariants_ok"} {
			if _, ok := obj[key]; !ok {
				t.Errorf("JSON object lacks %q: %v", key, obj)
			}
		}
		if _, ok := obj["outcomes"].(map[string]any); !ok {
			t.Errorf("JSON outcomes is %T, want an object", obj["outcomes"])
		}
		if obj["invariants_ok"] != true {
			t.Errorf("JSON invariants_ok is %v", obj["invariants_ok"])
		}
	}

	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	texts := parseSVG(t, svg.Bytes())
	for _, want := range append([]string{rep.Workload, rep.Store, "per second"}, strategies(rep)...) {
		if !strings.Contains(texts, want) {
			t.Errorf("chart does not say %q; its text:\n%s", want, texts)
		}
	}
}

func strategies(rep *bench.Report) []string {
	var s []string
	for _, res := range rep.Results {
		s = append(s, res.Strategy)
	}
	return s
}

// parseSVG parses an SVG bar chart as XML, checks its root and bars, and
// returns its text.
func parseSVG(t *testing.T, data []byte) string {
	t.Helper()
	text, rects := parseSVGText(t, data)
	if rects < 2 {
		t.Errorf("SVG has %d rects, want a background and bars", rects)
	}
	return text
}

// parseSVGText parses an SVG document as XML, checks its root, and
// returns its text and how many rects it has.
func parseSVGText(t *testing.T, data []byte) (string, int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var text strings.Builder
	root, rects := "", 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not valid XML: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Space + " " + tok.Name.Local
			}
			if tok.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("SVG root is %q, want svg in the SVG namespace", root)
	}
	return text.String(), rects
}

// TestRunService drives an engine through the HTTP API, as -url does.
func TestRunService(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	eng, err := engine.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewServer(eng, slog.New(slog.DiscardHandler), &httpapi.Options{Open: true}, st))
	t.Cleanup(srv.Close)
	rep, err := bench.Run(t.Context(), &bench.Options{
		Workload:  bench.Booking,
		Service:   httpapi.NewClient(srv.URL, srv.Client()),
		StoreName: "service at " + srv.URL,
		Clients:   8,
		Requests:  100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results, want 1", len(rep.Results))
	}
	res := rep.Results[0]
	checkResult(t, res, 100)
	if res.Strategy != "service at "+srv.URL || res.Effective != "" {
		t.Errorf("run named %q (%q), want the service", res.Strategy, res.Effective)
	}
	if !strings.Contains(res.Reconcile, "not available") {
		t.Errorf("reconcile %q, want a note that it was not run", res.Reconcile)
	}
	checkOutputs(t, rep)
}

// liar is a service that reports more committed than there is.
type liar struct{ stockade.StockService }

func (l liar) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	st, err := l.StockService.Stock(ctx, sku)
	st.Totals.Committed += 1000
	return st, err
}

func TestRunFailsOnBrokenInvariant(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(newStore(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(t.Context(), &bench.Options{Service: liar{eng}, Clients: 2, Requests: 20})
	if !errors.Is(err, bench.ErrInvariant) {
		t.Fatalf("Run: %v, want ErrInvariant", err)
	}
	if rep == nil || len(rep.Results) != 1 || rep.Results[0].InvariantsOK {
		t.Fatalf("report %+v, want one result with invariants broken", rep)
	}
	if v := strings.Join(rep.Results[0].Violations, "; "); !strings.Contains(v, "OVERSOLD") {
		t.Errorf("violations %q do not say OVERSOLD", v)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "INVARIANT BROKEN") {
		t.Errorf("table does not say the invariant broke:\n%s", text.String())
	}
}

func TestRunDuration(t *testing.T) {
	t.Parallel()
	var progress bytes.Buffer
	rep, err := bench.Run(t.Context(), &bench.Options{
		Store:      newStore(t),
		Strategies: []string{engine.Optimistic},
		Clients:    4,
		Duration:   1200 * time.Millisecond,
		Progress:   &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results[0]
	checkResult(t, res, res.Requests)
	if res.Seconds < 1.2 {
		t.Errorf("ran %.2fs, want at least 1.2s", res.Seconds)
	}
	if rep.Stock != 1_000_000 {
		t.Errorf("stock %d, want the 1000000 default for a timed flash sale", rep.Stock)
	}
	if !strings.Contains(progress.String(), "ops/s") {
		t.Errorf("no progress line with ops/s after a second:\n%s", progress.String())
	}
}

func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	eng, err := engine.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts *bench.Options
		want string
	}{
		{"nil", nil, "Store or Service is required"},
		{"neither", &bench.Options{}, "Store or Service is required"},
		{"both", &bench.Options{Store: st, Service: eng}, "both set"},
		{"workload", &bench.Options{Store: st, Workload: "auction"}, `unknown workload "auction"`},
		{"strategy", &bench.Options{Store: st, Strategies: []string{"atomic", "magic"}}, `unknown strategy "magic"`},
		{"twice", &bench.Options{Store: st, Strategies: []string{"atomic", "atomic"}}, "given twice"},
		{"none", &bench.Options{Store: st, Strategies: []string{}}, "no strategies"},
		{"service strategies", &bench.Options{Service: eng, Strategies: []string{"atomic"}}, "do not apply"},
		{"clients", &bench.Options{Store: st, Clients: -1}, "clients must be at least 1"},
		{"requests", &bench.Options{Store: st, Requests: -5}, "requests must not be negative"},
		{"ttl", &bench.Options{Store: st, HoldTTL: time.Millisecond}, "hold TTL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bench.Run(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
