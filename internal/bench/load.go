package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Stage is one step of a staged run, as k6 has them: over Duration, the
// load moves in a straight line from the previous stage's Target (0
// before the first) to this one's. A Target is clients, or with
// Options.ArrivalRate requests started per second.
type Stage struct {
	Duration time.Duration `json:"duration_ns"`
	Target   int           `json:"target"`
}

// maxTarget bounds a stage's target, clients or requests per second.
const maxTarget = 1_000_000

// ParseStages reads stages written as k6's are on one line:
// "10s:50,20s:100,10s:0" ramps to 50 over 10 s, to 100 over the next 20 s,
// then down to none over 10 s. A duration of 0 jumps to its target.
func ParseStages(s string) ([]Stage, error) {
	var stages []Stage
	var total time.Duration
	for part := range strings.SplitSeq(s, ",") {
		d, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("stage %q: want DURATION:TARGET, such as 10s:50", part)
		}
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return nil, fmt.Errorf("stage %q: duration %q: want a duration such as 10s or 1m30s", part, d)
		}
		target, err := strconv.Atoi(n)
		if err != nil || target < 0 || target > maxTarget {
			return nil, fmt.Errorf("stage %q: target %q: want a whole number from 0 to %d", part, n, maxTarget)
		}
		stages = append(stages, Stage{Duration: dur, Target: target})
		total += dur
	}
	if total <= 0 {
		return nil, fmt.Errorf("stages %q last no time at all", s)
	}
	return stages, nil
}

// stagesString writes stages back as ParseStages reads them.
func stagesString(stages []Stage) string {
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = fmt.Sprintf("%v:%d", s.Duration, s.Target)
	}
	return strings.Join(parts, ",")
}

// stagesDuration is how long stages last together.
func stagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += s.Duration
	}
	return d
}

// stagesMax is the largest target of stages.
func stagesMax(stages []Stage) int {
	m := 0
	for _, s := range stages {
		m = max(m, s.Target)
	}
	return m
}

// level is the load the stages ask for at t after the start: the target
// interpolated within the stage that t falls in, the last target after
// the end.
func level(stages []Stage, t time.Duration) float64 {
	from := 0.0
	for _, s := range stages {
		if t < s.Duration {
			return from + (float64(s.Target)-from)*float64(t)/float64(s.Duration)
		}
		t -= s.Duration
		from = float64(s.Target)
	}
	return from
}

// gate lets a run's clients send requests as its load shape says. In the
// closed model (stages of clients) client i may start a request while i
// is below the stages' level; in the open model (an arrival rate) a
// client starts one when an arrival is handed to it, and an arrival that
// finds every client busy is dropped, as k6's arrival-rate executors do.
type gate struct {
	stages  []Stage
	rate    float64 // a constant arrival rate, or 0 to follow stages
	arrival bool
	length  time.Duration   // of the run: no arrival is due after it
	end     <-chan struct{} // closed when the run is over

	active   atomic.Int64 // clients allowed, closed model
	arrivals chan struct{}
	dropped  atomic.Int64
}

// newGate returns the gate of o's load shape, or nil when every client
// sends requests for the whole run. end is closed when the run is over.
func newGate(o Options, end <-chan struct{}) *gate {
	if o.Rate == 0 && len(o.Stages) == 0 {
		return nil
	}
	return &gate{stages: o.Stages, rate: o.Rate, arrival: o.Rate > 0 || o.ArrivalRate, length: o.Duration, end: end,
		arrivals: make(chan struct{})}
}

// level is the load asked for at t after the start.
func (g *gate) level(t time.Duration) float64 {
	if g.rate > 0 {
		return g.rate
	}
	return level(g.stages, t)
}

// run moves the load from start on until ctx ends. It must run in a
// goroutine of its own.
func (g *gate) run(ctx context.Context, start time.Time) {
	const step = 10 * time.Millisecond
	tick := time.NewTicker(step)
	defer tick.Stop()
	g.active.Store(int64(math.Round(g.level(0))))
	owed := 0.0 // arrivals due, not yet handed out
	last := start
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.end:
			return
		case now := <-tick.C:
			if end := start.Add(g.length); now.After(end) {
				now = end
			}
			lvl := g.level(now.Sub(start))
			if !g.arrival {
				g.active.Store(int64(math.Round(lvl)))
				continue
			}
			owed += lvl * now.Sub(last).Seconds()
			last = now
			for ; owed >= 1; owed-- {
				select {
				case g.arrivals <- struct{}{}:
				default:
					g.dropped.Add(1)
				}
			}
		}
	}
}

// claim returns the claim function of client i: it waits until the load
// lets the client start a request, and reports false once the run is
// over. more is the run's own claim (its request count and stop).
func (g *gate) claim(i int, more func() bool) func() bool {
	if g.arrival {
		return func() bool {
			select {
			case <-g.arrivals:
				return more()
			case <-g.end:
				return false
			}
		}
	}
	return func() bool {
		for int64(i) >= g.active.Load() {
			select {
			case <-g.end:
				return false
			case <-time.After(5 * time.Millisecond):
			}
		}
		return more()
	}
}

// ErrThreshold is returned by Run, with the report, when a result misses
// one of Options.Thresholds; the report's Thresholds say which.
var ErrThreshold = errors.New("bench: threshold missed")

// Judged reports whether err, from Run or RunSweep, leaves the report
// whole: it is nil, or says only that a run broke an invariant or missed
// a threshold, which the report shows.
func Judged(err error) bool {
	return err == nil || errors.Is(err, ErrInvariant) || errors.Is(err, ErrThreshold)
}

// Threshold is a bound that a run's result must keep, as k6's thresholds:
// "p95<500ms", "p99<=1s", "max<2s", "errors<1%", "throughput>1000".
type Threshold struct {
	// Metric is pNN (a percentile of latency, 0 < NN < 100, decimals
	// allowed: p99.9), max (the slowest request), errors (the share of
	// requests that failed other than by an expected refusal), or
	// throughput (successful requests per second).
	Metric string  `json:"metric"`
	Op     string  `json:"op"` // <, <=, > or >=
	Value  float64 `json:"value"`
	// Text is the threshold as written.
	Text string `json:"threshold"`

	quantile float64 // for pNN, NN/100
}

// ParseThreshold reads a threshold: a metric, an operator and a value in
// the metric's unit (a duration for latencies, a percentage or a fraction
// for errors, a number for throughput).
func ParseThreshold(s string) (Threshold, error) {
	text := strings.TrimSpace(s)
	i := strings.IndexAny(text, "<>")
	if i <= 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want METRIC OP VALUE, such as p95<500ms or errors<1%%", s)
	}
	th := Threshold{Metric: strings.TrimSpace(text[:i]), Op: text[i : i+1], Text: text}
	rest := text[i+1:]
	if strings.HasPrefix(rest, "=") {
		th.Op += "="
		rest = rest[1:]
	}
	rest = strings.TrimSpace(rest)
	var err error
	switch m := th.Metric; {
	case m == "max" || strings.HasPrefix(m, "p"):
		if m != "max" {
			q, perr := strconv.ParseFloat(m[1:], 64)
			if perr != nil || q <= 0 || q >= 100 {
				return Threshold{}, fmt.Errorf("threshold %q: metric %q: a percentile is p followed by a number between 0 and 100, such as p95 or p99.9", s, m)
			}
			th.quantile = q / 100
		}
		var d time.Duration
		d, err = time.ParseDuration(rest)
		th.Value = ms(d)
		if err != nil || d < 0 {
			err = fmt.Errorf("threshold %q: %q is not a duration such as 500ms or 1.5s", s, rest)
		}
	case m == "errors":
		pct := strings.HasSuffix(rest, "%")
		th.Value, err = strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
		if pct {
			th.Value /= 100
		}
		if err != nil || th.Value < 0 || th.Value > 1 {
			err = fmt.Errorf("threshold %q: %q is not a share such as 1%% or 0.01", s, rest)
		}
	case m == "throughput":
		th.Value, err = strconv.ParseFloat(rest, 64)
		if err != nil || th.Value < 0 || math.IsInf(th.Value, 0) {
			err = fmt.Errorf("threshold %q: %q is not a number of successful requests per second", s, rest)
		}
	default:
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q (want pNN, max, errors or throughput)", s, m)
	}
	return th, err
}

// ThresholdResult is how one result fared against one threshold.
type ThresholdResult struct {
	Strategy  string  `json:"strategy"`
	Threshold string  `json:"threshold"`
	Actual    float64 `json:"actual"` // in the metric's unit: ms, a share, or per second
	OK        bool    `json:"ok"`
}

// measure is the threshold's metric in res, whose sorted latencies are
// lat.
func (th Threshold) measure(res Result, lat []time.Duration) float64 {
	switch th.Metric {
	case "max":
		return res.MaxMs
	case "errors":
		if res.Requests == 0 {
			return 0
		}
		return float64(res.Errors) / float64(res.Requests)
	case "throughput":
		return res.Throughput
	}
	return percentile(lat, th.quantile)
}

// holds reports whether actual keeps the threshold.
func (th Threshold) holds(actual float64) bool {
	switch th.Op {
	case "<":
		return actual < th.Value
	case "<=":
		return actual <= th.Value
	case ">":
		return actual > th.Value
	}
	return actual >= th.Value
}

// checkThresholds measures res, whose latencies are lat, against every
// threshold.
func checkThresholds(ths []Threshold, res Result, lat []time.Duration) []ThresholdResult {
	if len(ths) == 0 {
		return nil
	}
	lat = slices.Clone(lat)
	slices.Sort(lat)
	out := make([]ThresholdResult, len(ths))
	for i, th := range ths {
		v := th.measure(res, lat)
		out[i] = ThresholdResult{Strategy: res.Strategy, Threshold: th.Text, Actual: v, OK: th.holds(v)}
	}
	return out
}

// TimePoint is one second of a run: the load asked for, the requests that
// ended in it and their latency.
type TimePoint struct {
	Second int `json:"second"` // from the start, 1 for the first
	// Load is the clients allowed, or the arrival rate asked for, at the
	// end of the second; the run's clients for a flat run.
	Load     float64 `json:"load"`
	Requests int     `json:"requests"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
}

// timeline cuts a run's requests, which ended at ends after the start and
// took lat, into its seconds, elapsed rounded; those that ended after the
// last second count in it. load is the load asked for at a time from the
// start.
func timeline(ends, lat []time.Duration, elapsed time.Duration, load func(time.Duration) float64) []TimePoint {
	seconds := max(int(math.Round(elapsed.Seconds())), 1)
	by := make([][]time.Duration, seconds)
	for i, e := range ends {
		s := min(int(e/time.Second), seconds-1)
		by[s] = append(by[s], lat[i])
	}
	points := make([]TimePoint, len(by))
	for s, l := range by {
		slices.Sort(l)
		end := time.Duration(s+1) * time.Second
		points[s] = TimePoint{Second: s + 1, Load: load(end), Requests: len(l), P50Ms: percentile(l, 0.5), P99Ms: percentile(l, 0.99)}
	}
	return points
}
