package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape gets /metrics from a's server and returns every sample by its
// series, written as name{label="value",…} with the labels in name order
// (the _bucket, _sum and _count of a histogram as separate series).
func (a *api) scrape() map[string]float64 {
	a.t.Helper()
	r := a.must(200, "GET", "/metrics", nil)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		a.t.Fatalf("/metrics is not in the text format: %v\n%s", err, r.body)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			series := func(suffix string, extra ...*dto.LabelPair) string {
				ls := append(slices.Clone(m.GetLabel()), extra...)
				slices.SortFunc(ls, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
				var parts []string
				for _, l := range ls {
					parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				if len(parts) == 0 {
					return name + suffix
				}
				return name + suffix + "{" + strings.Join(parts, ",") + "}"
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[series("")] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[series("")] = m.GetGauge().GetValue()
			case dto.MetricType_UNTYPED:
				out[series("")] = m.GetUntyped().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				out[series("_count")] = float64(h.GetSampleCount())
				out[series("_sum")] = h.GetSampleSum()
				for _, b := range h.GetBucket() {
					le := "le"
					out[series("_bucket", &dto.LabelPair{Name: &le, Value: ptr(fmt.Sprint(b.GetUpperBound()))})] = float64(b.GetCumulativeCount())
				}
			case dto.MetricType_SUMMARY:
				out[series("_count")] = float64(m.GetSummary().GetSampleCount())
			}
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestMetricsCountRequests scrapes a real server before and after real
// requests: each series of the request counter and of the latency
// histogram rises by exactly the requests it stands for.
func TestMetricsCountRequests(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	before := a.scrape()

	for range 3 {
		a.must(200, "GET", "/v1/stock/widget", nil)
	}
	a.must(404, "GET", "/v1/stock/gadget", nil)
	a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`)
	a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`)
	a.must(409, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":100}]}`)
	a.must(400, "POST", "/v1/orders", `{}`)
	a.must(404, "GET", "/nowhere", nil)
	a.must(405, "BREW", "/v1/stock/widget", nil)

	after := a.scrape()
	for series, want := range map[string]float64{
		`stockade_http_requests_total{method="GET",route="/v1/stock/{sku}",status="200"}`:           3,
		`stockade_http_requests_total{method="GET",route="/v1/stock/{sku}",status="404"}`:           1,
		`stockade_http_requests_total{method="POST",route="/v1/reservations",status="201"}`:         2,
		`stockade_http_requests_total{method="POST",route="/v1/reservations",status="409"}`:         1,
		`stockade_http_requests_total{method="POST",route="/v1/orders",status="400"}`:               1,
		`stockade_http_requests_total{method="GET",route="unmatched",status="404"}`:                 1,
		`stockade_http_requests_total{method="other",route="unmatched",status="405"}`:               1, // no series per made-up method
		`stockade_http_requests_total{method="GET",route="/metrics",status="200"}`:                  1, // the first scrape
		`stockade_http_request_duration_seconds_count{method="GET",route="/v1/stock/{sku}"}`:        4,
		`stockade_http_request_duration_seconds_count{method="POST",route="/v1/reservations"}`:      3,
		`stockade_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/orders"}`: 1,
		`stockade_reservations_total{op="reserve",outcome="ok"}`:                                    2,
		`stockade_reservations_total{op="reserve",outcome="insufficient_stock"}`:                    1,
		`stockade_reservations_total{op="checkout",outcome="invalid"}`:                              1,
		`stockade_http_requests_in_flight`:                                                          0, // the scrape itself, both times
	} {
		if got := after[series] - before[series]; got != want {
			t.Errorf("%s rose by %v, want %v", series, got, want)
		}
	}
	if got := after[`stockade_http_requests_in_flight`]; got != 1 {
		t.Errorf("in flight during a scrape: %v, want 1 (the scrape)", got)
	}
	for series := range after {
		if strings.Contains(series, `method="BREW"`) {
			t.Errorf("a made-up method has a series of its own: %s", series)
		}
	}
}

// TestMetricsRuntime: the registry holds the Go runtime and process
// collectors besides the server's own metrics.
func TestMetricsRuntime(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	got := a.scrape()
	for _, series := range []string{
		"go_goroutines",
		"go_memstats_alloc_bytes",
		"go_gc_duration_seconds_count",
		"process_cpu_seconds_total",
		"process_resident_memory_bytes",
		"stockade_http_requests_in_flight",
	} {
		if _, ok := got[series]; !ok {
			t.Errorf("/metrics has no %s", series)
		}
	}
	if got["go_goroutines"] < 1 {
		t.Errorf("go_goroutines = %v", got["go_goroutines"])
	}
}

// TestMetricsFormat: /metrics answers in the Prometheus text format.
func TestMetricsFormat(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.must(200, "GET", "/healthz", nil)
	r := a.must(200, "GET", "/metrics", nil)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	for _, want := range []string{
		"# TYPE stockade_http_requests_total counter\n",
		`stockade_http_requests_total{method="GET",route="/healthz",status="200"} 1` + "\n",
		"# TYPE stockade_http_request_duration_seconds histogram\n",
	} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("no %q in\n%s", want, r.body)
		}
	}
}

// TestMetricsRegistries: servers in one process each have a registry of
// their own, and a registry shared with the server takes metrics of the
// caller's that /metrics then serves.
func TestMetricsRegistries(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s1 := NewServer(nil, log, nil)
	s2 := NewServer(nil, log, nil) // would panic on a shared default registry
	s1.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
	n := func(s *Server) float64 {
		return testutil.ToFloat64(s.m.requests.WithLabelValues("GET", "/healthz", "200"))
	}
	if n(s1) != 1 || n(s2) != 0 {
		t.Errorf("requests counted: %v and %v, want 1 and 0", n(s1), n(s2))
	}

	reg := NewRegistry()
	mine := prometheus.NewCounter(prometheus.CounterOpts{Name: "test_things_total", Help: "Things."})
	reg.MustRegister(mine)
	mine.Add(7)
	s := NewServer(nil, log, &Options{Registry: reg})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "\ntest_things_total 7\n") {
		t.Errorf("/metrics does not serve the caller's metric:\n%s", rec.Body)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP stockade_http_requests_total HTTP requests answered, by method, route and status.
# TYPE stockade_http_requests_total counter
stockade_http_requests_total{method="GET",route="/metrics",status="200"} 1
`), "stockade_http_requests_total"); err != nil {
		t.Error(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second server on one registry did not panic")
		}
	}()
	NewServer(nil, log, &Options{Registry: reg})
}
