package httpapi

import (
	"strings"
	"sync"
	"testing"
)

func TestMetricsText(t *testing.T) {
	m := NewMetrics()
	c := m.NewCounter("test_requests_total", "Requests.\nBy \\ route.", "route")
	g := m.NewGauge("test_in_flight", "In flight.")
	h := m.NewHistogram("test_seconds", "Latency.", []float64{0.1, 1}, "op")
	c.Inc(`/a"b`)
	c.Add(2, "/x\ny")
	g.Add(3)
	g.Add(-1)
	h.Observe(0.05, "get")
	h.Observe(0.1, "get") // le is inclusive
	h.Observe(5, "get")

	var b strings.Builder
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	want := `# HELP test_in_flight In flight.
# TYPE test_in_flight gauge
test_in_flight 2
# HELP test_requests_total Requests.\nBy \\ route.
# TYPE test_requests_total counter
test_requests_total{route="/a\"b"} 1
test_requests_total{route="/x\ny"} 2
# HELP test_seconds Latency.
# TYPE test_seconds histogram
test_seconds_bucket{op="get",le="0.1"} 2
test_seconds_bucket{op="get",le="1"} 2
test_seconds_bucket{op="get",le="+Inf"} 3
test_seconds_sum{op="get"} 5.15
test_seconds_count{op="get"} 3
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestMetricsConcurrent(t *testing.T) {
	m := NewMetrics()
	c := m.NewCounter("n_total", "N.", "k")
	h := m.NewHistogram("d_seconds", "D.", nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Inc([]string{"a", "b"}[i%2])
				h.Observe(0.01)
			}
		})
		wg.Go(func() { m.WriteTo(new(strings.Builder)) })
	}
	wg.Wait()
	var b strings.Builder
	m.WriteTo(&b)
	for _, line := range []string{`n_total{k="a"} 4000`, `n_total{k="b"} 4000`, `d_seconds_count 8000`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("no %q in\n%s", line, b.String())
		}
	}
}

func TestMetricsMisuse(t *testing.T) {
	m := NewMetrics()
	c := m.NewCounter("x_total", "X.", "a", "b")
	for name, f := range map[string]func(){
		"twice":        func() { m.NewCounter("x_total", "again") },
		"label values": func() { c.Inc("only one") },
		"buckets":      func() { m.NewHistogram("h", "H.", []float64{1, 0.5}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
