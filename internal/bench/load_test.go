package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/bench"
)

func TestParseStages(t *testing.T) {
	t.Parallel()
	got, err := bench.ParseStages("10s:50, 20s:100,0s:7,1m:0")
	if err != nil {
		t.Fatal(err)
	}
	want := []bench.Stage{{10 * time.Second, 50}, {20 * time.Second, 100}, {0, 7}, {time.Minute, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stage %d: got %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "10s", "10s:", ":5", "ten:5", "10s:-1", "10s:x", "-1s:5", "0s:5", "10s:5,", "10s:2000000"} {
		if st, err := bench.ParseStages(bad); err == nil {
			t.Errorf("ParseStages(%q) = %v, want an error", bad, st)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		metric string
		op     string
		value  float64
	}{
		{"p95<500ms", "p95", "<", 500},
		{"p99.9 <= 2s", "p99.9", "<=", 2000},
		{"max<1.5s", "max", "<", 1500},
		{"errors<1%", "errors", "<", 0.01},
		{"errors<=0.05", "errors", "<=", 0.05},
		{"throughput>1000", "throughput", ">", 1000},
		{"throughput>=0", "throughput", ">=", 0},
	} {
		th, err := bench.ParseThreshold(tc.in)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", tc.in, err)
			continue
		}
		if th.Metric != tc.metric || th.Op != tc.op || th.Value != tc.value {
			t.Errorf("ParseThreshold(%q) = %s %s %v, want %s %s %v", tc.in, th.Metric, th.Op, th.Value, tc.metric, tc.op, tc.value)
		}
	}
	for _, bad := range []string{"", "p95", "p95<", "<5ms", "p0<5ms", "p100<5ms", "px<5ms", "p95<5", "p95<-5ms",
		"errors<2", "errors<x%", "throughput>x", "latency<5ms", "p95=5ms"} {
		if th, err := bench.ParseThreshold(bad); err == nil {
			t.Errorf("ParseThreshold(%q) = %+v, want an error", bad, th)
		}
	}
}

// inFlight is a service that counts the calls in flight at once, to check
// the load a run puts on it.
type inFlight struct {
	stockade.StockService
	now, most atomic.Int64
	// early is the most in flight among the calls that started within
	// earlyFor of the last SetStock, if earlyFor is set: the run starts
	// after its stock is set, so they started in its first earlyFor.
	early    atomic.Int64
	earlyFor time.Duration
	stockSet atomic.Int64 // Unix nanoseconds
}

func (s *inFlight) SetStock(ctx context.Context, key stockade.Key, onHand int64, expected *int64, idem *stockade.Idempotency) (stockade.Level, error) {
	l, err := s.StockService.SetStock(ctx, key, onHand, expected, idem)
	raise(&s.stockSet, time.Now().UnixNano())
	return l, err
}

func (s *inFlight) Checkout(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	raise(&s.most, n)
	if set := s.stockSet.Load(); s.earlyFor > 0 && set > 0 && time.Now().Before(time.Unix(0, set).Add(s.earlyFor)) {
		raise(&s.early, n)
	}
	return s.StockService.Checkout(ctx, req, idem)
}

// raise makes v at least n.
func raise(v *atomic.Int64, n int64) {
	for m := v.Load(); n > m && !v.CompareAndSwap(m, n); m = v.Load() {
	}
}

func newInFlight(t *testing.T) *inFlight {
	t.Helper()
	eng, err := engine.New(newStore(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &inFlight{StockService: eng}
}

// TestStagesBoundTheClients: a staged run never has more requests in
// flight than its stages allow, follows them in its timeline, and keeps
// its invariants.
func TestStagesBoundTheClients(t *testing.T) {
	t.Parallel()
	svc := newInFlight(t)
	stages, err := bench.ParseStages("600ms:2,600ms:5,800ms:5")
	if err != nil {
		t.Fatal(err)
	}
	// The calls of the run's first 400 ms (counted from when its stock was
	// set, before it started) are in the first stage, which allows at
	// most 2 clients. (Counted from before the set-up, the window could
	// close before the run begins on a busy machine.)
	svc.earlyFor = 400 * time.Millisecond
	rep, err := bench.Run(t.Context(), &bench.Options{Workload: bench.FlashSale, Service: svc, Stages: stages, Stock: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if e := svc.early.Load(); e > 2 || e < 1 {
		t.Errorf("%d requests in flight at most in the first stage, want 1 or 2", e)
	}
	if rep.Clients != 5 {
		t.Errorf("clients %d, want the largest target, 5", rep.Clients)
	}
	if m := svc.most.Load(); m > 5 || m < 2 {
		t.Errorf("%d requests in flight at most, want 2 to 5", m)
	}
	res := rep.Results[0]
	if !res.InvariantsOK || res.Requests == 0 {
		t.Fatalf("result %+v", res)
	}
	if len(res.Timeline) < 2 {
		t.Fatalf("timeline %+v: want a point per second of the 2 s run", res.Timeline)
	}
	if res.Timeline[0].Load < 2 || res.Timeline[0].Load > 5 || res.Timeline[1].Load != 5 {
		t.Errorf("timeline loads %v, %v: want 2..5 at the end of the first second and 5 at the second's", res.Timeline[0].Load, res.Timeline[1].Load)
	}
	sum := 0
	for _, p := range res.Timeline {
		sum += p.Requests
	}
	if sum != res.Requests {
		t.Errorf("the timeline counts %d requests, the result %d", sum, res.Requests)
	}
}

// TestArrivalRate: an open-model run starts no more requests than its
// rate schedules, dropping those that find every client busy, and never
// has more in flight than its clients.
func TestArrivalRate(t *testing.T) {
	t.Parallel()
	svc := newInFlight(t)
	const rate, clients = 300, 3
	rep, err := bench.Run(t.Context(), &bench.Options{Workload: bench.FlashSale, Service: svc, Rate: rate, Clients: clients,
		Duration: time.Second, Stock: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results[0]
	if res.Requests == 0 || res.Requests+res.Dropped > rate+1 {
		t.Errorf("%d requests and %d dropped in 1 s at %d/s: want some, and no more than scheduled", res.Requests, res.Dropped, rate)
	}
	if m := svc.most.Load(); m > clients {
		t.Errorf("%d requests in flight at most, want at most %d", m, clients)
	}
}

// TestTimelineChart: the timeline chart of a staged run is an SVG
// document that names its strategies, panels and load, with a point per
// second of each run.
func TestTimelineChart(t *testing.T) {
	t.Parallel()
	stages, err := bench.ParseStages("1s:2,1s:4")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(t.Context(), &bench.Options{Workload: bench.FlashSale, Store: newStore(t),
		Strategies: []string{engine.Atomic, engine.Batch}, Stages: stages})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if len(res.Timeline) != 2 {
			t.Errorf("%s: timeline %+v, want 2 seconds", res.Strategy, res.Timeline)
		}
	}
	var svg bytes.Buffer
	if err := rep.WriteTimelineSVG(&svg); err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVGText(t, svg.Bytes())
	for _, want := range []string{"p99 latency, ms", "requests per second", "dashed: clients", "atomic", "batch", "stages of clients 1s:2,1s:4"} {
		if !strings.Contains(texts, want) {
			t.Errorf("chart does not say %q; its text:\n%s", want, texts)
		}
	}
	if n := strings.Count(svg.String(), "<polyline"); n != 5 {
		t.Errorf("%d lines, want one per strategy in each of the two panels, and the load's", n)
	}
}

func TestThresholds(t *testing.T) {
	t.Parallel()
	var ths []bench.Threshold
	for _, s := range []string{"errors<=0%", "p99<1h", "throughput>1e12"} {
		th, err := bench.ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	rep, err := bench.Run(t.Context(), &bench.Options{Workload: bench.FlashSale, Store: newStore(t),
		Strategies: []string{engine.Atomic}, Requests: 200, Clients: 4, Thresholds: ths})
	if !errors.Is(err, bench.ErrThreshold) || errors.Is(err, bench.ErrInvariant) {
		t.Fatalf("err %v, want ErrThreshold alone", err)
	}
	if !strings.Contains(err.Error(), "atomic: throughput>1e12") {
		t.Errorf("error %q does not name the missed threshold", err)
	}
	got := rep.Results[0].Thresholds
	if len(got) != 3 || !got[0].OK || !got[1].OK || got[2].OK {
		t.Fatalf("thresholds %+v: want the first two kept and the third missed", got)
	}
	if got[2].Actual != rep.Results[0].Throughput {
		t.Errorf("throughput measured %v, the result says %v", got[2].Actual, rep.Results[0].Throughput)
	}
}

func TestLoadOptionsRefused(t *testing.T) {
	t.Parallel()
	stages := []bench.Stage{{time.Second, 5}}
	for _, tc := range []struct {
		name string
		o    bench.Options
	}{
		{"stages with duration", bench.Options{Stages: stages, Duration: time.Second}},
		{"stages with requests", bench.Options{Stages: stages, Requests: 10}},
		{"stages with rate", bench.Options{Stages: stages, Rate: 10}},
		{"arrival rate without stages", bench.Options{ArrivalRate: true}},
		{"negative rate", bench.Options{Rate: -1}},
	} {
		tc.o.Store = newStore(t)
		if _, err := bench.Run(t.Context(), &tc.o); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestSweep: a sweep runs every point with its own invariant check, and
// its table, JSON and chart name each point and strategy.
func TestSweep(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	sw, err := bench.RunSweep(t.Context(), &bench.Options{Workload: bench.Carts, Store: st,
		Strategies: []string{engine.Atomic, engine.Batch}, Requests: 100, Clients: 2}, bench.SweepSKUs, []int{1, 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 2 {
		t.Fatalf("%d points, want 2", len(sw.Points))
	}
	for i, want := range []int{1, 7} {
		rep := sw.Points[i].Report
		if sw.Points[i].Value != want || rep.SKUs != want || len(rep.Results) != 2 {
			t.Errorf("point %d: value %d, report of %d SKUs with %d results; want %d SKUs and 2 results", i, sw.Points[i].Value, rep.SKUs, len(rep.Results), want)
		}
		for _, res := range rep.Results {
			if !res.InvariantsOK || res.Requests != 100 {
				t.Errorf("%d SKUs, %s: %+v", want, res.Strategy, res)
			}
		}
	}
	var js bytes.Buffer
	if err := sw.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Strategy string `json:"strategy"`
		Clients  int    `json:"clients"`
		SKUs     int    `json:"skus"`
		Requests int    `json:"requests"`
	}
	if err := json.Unmarshal(js.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0].SKUs != 1 || rows[3].SKUs != 7 || rows[3].Clients != 2 || rows[3].Strategy != engine.Batch || rows[3].Requests != 100 {
		t.Errorf("JSON rows %+v: want one per point and strategy with its SKUs and clients", rows)
	}
	var txt, svg bytes.Buffer
	if err := sw.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "sweep of skus: 1, 7") {
		t.Errorf("text lacks the sweep:\n%s", txt.String())
	}
	if err := sw.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVGText(t, svg.Bytes())
	for _, want := range []string{"by skus", "successful requests per second", "p99 latency, ms", "atomic", "batch"} {
		if !strings.Contains(texts, want) {
			t.Errorf("chart does not say %q:\n%s", want, texts)
		}
	}
	if _, err := bench.RunSweep(t.Context(), &bench.Options{Store: st}, "instances", []int{1}); err == nil {
		t.Error("a sweep of an unknown variable ran")
	}
}
