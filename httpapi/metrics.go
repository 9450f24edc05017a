package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Metrics is a small registry of counters, gauges and histograms, served
// at /metrics in the Prometheus text format (version 0.0.4). The server
// registers its own; the binary adds others (lock waits, sweeper runs)
// through NewCounter, NewGauge and NewHistogram. It is safe for concurrent
// use.
type Metrics struct {
	mu       sync.Mutex
	families map[string]*family
}

// NewMetrics returns an empty registry.
func NewMetrics() *Metrics { return &Metrics{families: make(map[string]*family)} }

// DefBuckets are latency buckets in seconds, from 1 ms to 10 s.
var DefBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// family is one metric name and its series, one per set of label values.
type family struct {
	name, help, kind string
	labels           []string
	buckets          []float64 // histograms

	mu     sync.Mutex
	series map[string]*series // by joined label values
}

type series struct {
	values []string
	value  float64  // counter, gauge; the sum of a histogram
	counts []uint64 // histogram: per bucket (not cumulative), then +Inf
	count  uint64
}

func (m *Metrics) register(name, help, kind string, buckets []float64, labels []string) *family {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.families[name]; ok {
		panic("httpapi: metric " + name + " registered twice")
	}
	f := &family{name: name, help: help, kind: kind, labels: labels, buckets: buckets, series: make(map[string]*series)}
	m.families[name] = f
	return f
}

// get returns the series for values, creating it.
func (f *family) get(values []string) *series {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("httpapi: metric %s takes %d label values, got %d", f.name, len(f.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	s := f.series[key]
	if s == nil {
		s = &series{values: slices.Clone(values)}
		if f.kind == "histogram" {
			s.counts = make([]uint64, len(f.buckets)+1)
		}
		f.series[key] = s
	}
	return s
}

// Counter is a family of counters, one per set of label values.
type Counter struct{ f *family }

// NewCounter registers a counter named name (by convention ending in
// _total) with the given label names. It panics if name is taken.
func (m *Metrics) NewCounter(name, help string, labels ...string) *Counter {
	return &Counter{m.register(name, help, "counter", nil, labels)}
}

// Add adds v, which must not be negative, to the counter with the given
// label values, one per label name.
func (c *Counter) Add(v float64, values ...string) {
	c.f.mu.Lock()
	c.f.get(values).value += v
	c.f.mu.Unlock()
}

// Inc adds one.
func (c *Counter) Inc(values ...string) { c.Add(1, values...) }

// Gauge is a family of values that go up and down.
type Gauge struct{ f *family }

// NewGauge registers a gauge. It panics if name is taken.
func (m *Metrics) NewGauge(name, help string, labels ...string) *Gauge {
	return &Gauge{m.register(name, help, "gauge", nil, labels)}
}

// Add adds v (negative to subtract).
func (g *Gauge) Add(v float64, values ...string) {
	g.f.mu.Lock()
	g.f.get(values).value += v
	g.f.mu.Unlock()
}

// Set sets the value.
func (g *Gauge) Set(v float64, values ...string) {
	g.f.mu.Lock()
	g.f.get(values).value = v
	g.f.mu.Unlock()
}

// Histogram is a family of distributions over fixed buckets.
type Histogram struct{ f *family }

// NewHistogram registers a histogram with the given upper bounds, in
// increasing order (DefBuckets when nil); +Inf is implied. It panics if
// name is taken.
func (m *Metrics) NewHistogram(name, help string, buckets []float64, labels ...string) *Histogram {
	if buckets == nil {
		buckets = DefBuckets
	}
	if !slices.IsSorted(buckets) {
		panic("httpapi: histogram " + name + ": buckets not in increasing order")
	}
	return &Histogram{m.register(name, help, "histogram", slices.Clone(buckets), labels)}
}

// Observe records one value.
func (h *Histogram) Observe(v float64, values ...string) {
	i, _ := slices.BinarySearch(h.f.buckets, v) // first bucket whose bound is ≥ v
	h.f.mu.Lock()
	s := h.f.get(values)
	s.counts[i]++
	s.count++
	s.value += v
	h.f.mu.Unlock()
}

// WriteTo writes every metric in the Prometheus text format, families in
// name order and series in label order.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	m.mu.Lock()
	fams := make([]*family, 0, len(m.families))
	for _, f := range m.families {
		fams = append(fams, f)
	}
	m.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })

	cw := &countingWriter{w: bufio.NewWriter(w)}
	for _, f := range fams {
		f.write(cw)
	}
	err := cw.w.(*bufio.Writer).Flush()
	return cw.n, err
}

func (f *family) write(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.kind)
	keys := make([]string, 0, len(f.series))
	for k := range f.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := f.series[k]
		if f.kind != "histogram" {
			fmt.Fprintf(w, "%s%s %s\n", f.name, labelText(f.labels, s.values, "", ""), formatFloat(s.value))
			continue
		}
		var cum uint64
		for i, le := range f.buckets {
			cum += s.counts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.values, "le", formatFloat(le)), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.values, "le", "+Inf"), s.count)
		fmt.Fprintf(w, "%s_sum%s %s\n", f.name, labelText(f.labels, s.values, "", ""), formatFloat(s.value))
		fmt.Fprintf(w, "%s_count%s %d\n", f.name, labelText(f.labels, s.values, "", ""), s.count)
	}
}

// labelText renders {name="value",…}, with an extra label when extra is
// not empty, or nothing when there are no labels.
func labelText(names, values []string, extra, extraValue string) string {
	if len(names) == 0 && extra == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + `="` + escapeLabel(values[i]) + `"`)
	}
	if extra != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extra + `="` + extraValue + `"`)
	}
	b.WriteByte('}')
	return b.String()
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
