package bench

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Layout of the chart, in pixels.
const (
	chartWidth  = 880
	chartLeft   = 130 // strategy names
	chartRight  = 250 // annotations right of the longest bar
	chartTop    = 78  // title and subtitle
	chartBottom = 58  // axis ticks and label
	chartRow    = 46
	chartBar    = 20
)

// WriteSVG draws the report as an SVG bar chart: one horizontal bar of
// throughput (successful requests per second) per strategy, annotated
// with it and the p99 latency, with a grid, axis labels and a title that
// names the workload, store and clients. A run that broke an invariant is
// drawn red and says so.
func (r *Report) WriteSVG(out io.Writer) error {
	w := new(bytes.Buffer)
	plotW := float64(chartWidth - chartLeft - chartRight)
	height := chartTop + chartRow*max(len(r.Results), 1) + chartBottom
	top := 0.0
	for _, res := range r.Results {
		top = max(top, res.Throughput)
	}
	step := niceStep(top / 5)
	axisMax := step * math.Max(1, math.Ceil(top/step))
	x := func(v float64) float64 { return chartLeft + plotW*v/axisMax }

	svgStart(w, chartWidth, height)
	text(w, 20, 30, `font-size="18" font-weight="bold" fill="#222"`, "stockade bench: "+r.Workload+" — throughput by strategy")
	stock := fmt.Sprintf("stock %d per level", r.Stock)
	if r.Workload == OnSale || r.Workload == WaitingRoom {
		stock = fmt.Sprintf("%d seats", r.Stock)
	}
	text(w, 20, 52, `fill="#555"`, fmt.Sprintf("%s · %s · %s · %s", r.Store, r.load(), r.Limit(), stock))

	plotBottom := chartTop + chartRow*len(r.Results)
	// Grid and tick labels.
	for v := 0.0; v <= axisMax+step/2; v += step {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e3e3e3"/>
`, x(v), chartTop-6, x(v), plotBottom)
		text(w, x(v), float64(plotBottom+18), `text-anchor="middle" fill="#555" font-size="11"`, compact(v))
	}
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>
`, chartLeft, chartTop-6, chartLeft, plotBottom)
	text(w, chartLeft+plotW/2, float64(plotBottom+42), `text-anchor="middle" fill="#333"`,
		"successful requests per second (longer is better); p99 latency at the end of each bar")

	for i, res := range r.Results {
		y := float64(chartTop + chartRow*i)
		fill, note := "#3d7ab8", ""
		if !res.InvariantsOK {
			fill, note = "#c0392b", " · INVARIANTS BROKEN"
		}
		text(w, chartLeft-10, y+chartBar/2+5, `text-anchor="end" fill="#222" font-weight="bold"`, res.Strategy)
		bw := x(res.Throughput) - chartLeft
		fmt.Fprintf(w, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="%s" rx="2"><title>%s</title></rect>
`, chartLeft, y, math.Max(bw, 1), chartBar, fill, esc(fmt.Sprintf("%s: %.0f ok/s, %.0f req/s, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
			res.Strategy, res.Throughput, res.RequestsPerSec, res.P50Ms, res.P99Ms, res.MaxMs)))
		text(w, x(res.Throughput)+8, y+chartBar/2+5, `fill="#222"`,
			fmt.Sprintf("%s ok/s · p99 %s ms%s", compact(res.Throughput), trimFloat(res.P99Ms), note))
		if res.Effective != "" && res.Effective != res.Strategy {
			text(w, chartLeft+4, y+chartBar+14, `fill="#888" font-size="11"`,
				"runs as "+strings.TrimPrefix(res.Effective, res.Strategy+" "))
		}
	}
	fmt.Fprintln(w, `</svg>`)
	_, err := out.Write(w.Bytes())
	return err
}

// svgStart begins an SVG document of width by height pixels, on white.
func svgStart(w io.Writer, width, height int) {
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="13">
<rect width="100%%" height="100%%" fill="#ffffff"/>
`, width, height, width, height)
}

// text writes a <text> element with escaped content.
func text(w io.Writer, x, y float64, attrs, s string) {
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" %s>%s</text>
`, x, y, attrs, esc(s))
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// compact formats a count: 950, 1.2k, 12k, 1.5M.
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return trimFloat(v/1e6) + "M"
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return trimFloat(math.Round(v/100)/10) + "k"
	}
	return fmt.Sprintf("%.0f", v)
}

// trimFloat formats v with up to one decimal, none if it is whole.
func trimFloat(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

// palette colours the lines of a chart, one per strategy.
var palette = []string{"#3d7ab8", "#e07b39", "#3a9e5f", "#b8433d", "#7d5ab8", "#8c6d31", "#2a9d9d"}

// series is one line of a panel: a value per second.
type series struct {
	name   string
	color  string
	dashed bool
	values []float64
}

// WriteTimelineSVG draws the report's timelines as an SVG chart of two
// panels over the seconds of the runs: p99 latency on top, and below it
// the requests that ended each second, one line per strategy, with the
// load the run asked for (clients, or requests started per second) as a
// dashed line on the lower panel's own scale, named on its right.
func (r *Report) WriteTimelineSVG(out io.Writer) error {
	const (
		width, left, right, top, panel, gap = 880, 70, 150, 78, 220, 70
	)
	height := top + 2*panel + gap + 60
	w := new(bytes.Buffer)
	svgStart(w, width, height)
	text(w, 20, 30, `font-size="18" font-weight="bold" fill="#222"`, "stockade bench: "+r.Workload+" — latency and throughput over time")
	text(w, 20, 52, `fill="#555"`, fmt.Sprintf("%s · %s", r.Store, r.Limit()))

	var p99, rate []series
	var load []float64
	seconds := 1
	for i, res := range r.Results {
		color := palette[i%len(palette)]
		s99 := series{name: res.Strategy, color: color}
		sr := series{name: res.Strategy, color: color}
		for _, p := range res.Timeline {
			s99.values = append(s99.values, p.P99Ms)
			sr.values = append(sr.values, float64(p.Requests))
			if i == 0 {
				load = append(load, p.Load)
			}
		}
		seconds = max(seconds, len(res.Timeline))
		p99, rate = append(p99, s99), append(rate, sr)
	}
	loadName := "clients"
	switch {
	case r.ArrivalRate || r.Rate > 0:
		loadName = "rate asked"
	case r.Room != nil:
		loadName = "visitors arrived"
	}
	plotW := float64(width - left - right)
	linePanel(w, left, top, plotW, panel, seconds, p99, "p99 latency, ms", nil, nil)
	linePanel(w, left, top+panel+gap, plotW, panel, seconds, rate, "requests per second",
		&series{name: loadName, color: "#999", dashed: true, values: load}, nil)
	text(w, left+plotW/2, float64(top+2*panel+gap+40), `text-anchor="middle" fill="#333"`, "seconds since the run started")
	fmt.Fprintln(w, `</svg>`)
	_, err := out.Write(w.Bytes())
	return err
}

// linePanel draws lines of n values each in the box at (x0, y0) of width
// pw and height ph, with a grid, a y axis named label, the lines' names at
// their right end, and extra, if not nil, on a scale of its own. Without
// xLabels the values are seconds 1 to n on a time axis from 0; with them,
// the values sit evenly spaced, each over its label.
func linePanel(w io.Writer, x0, y0 int, pw float64, ph int, n int, lines []series, label string, extra *series, xLabels []string) {
	top := 0.0
	for _, s := range lines {
		for _, v := range s.values {
			top = max(top, v)
		}
	}
	step := niceStep(top / 4)
	yMax := step * math.Max(1, math.Ceil(top/step))
	x := func(k int) float64 { return float64(x0) + pw*float64(k)/float64(n) }
	if xLabels != nil {
		x = func(k int) float64 { return float64(x0) + pw*(float64(k)-0.5)/float64(n) }
	}
	y := func(v, vmax float64) float64 { return float64(y0+ph) - float64(ph)*v/vmax }
	for v := 0.0; v <= yMax+step/2; v += step {
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>
`, x0, y(v, yMax), float64(x0)+pw, y(v, yMax))
		text(w, float64(x0-8), y(v, yMax)+4, `text-anchor="end" fill="#555" font-size="11"`, compact(v))
	}
	if xLabels != nil {
		for i, l := range xLabels {
			text(w, x(i+1), float64(y0+ph+16), `text-anchor="middle" fill="#555" font-size="11"`, l)
		}
	} else {
		xStep := int(math.Max(1, niceStep(float64(n)/8)))
		for s := 0; s <= n; s += xStep {
			text(w, x(s), float64(y0+ph+16), `text-anchor="middle" fill="#555" font-size="11"`, fmt.Sprint(s))
		}
	}
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>
`, x0, y0, x0, y0+ph)
	text(w, float64(x0), float64(y0-10), `fill="#333" font-weight="bold"`, label)
	// The lines' names go at their right ends, spread apart vertically.
	type name struct {
		x, y  float64
		color string
		text  string
	}
	var names []name
	draw := func(s series, vmax float64) {
		if len(s.values) == 0 {
			return
		}
		var pts []string
		for i, v := range s.values {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i+1), y(v, vmax)))
			if xLabels != nil {
				fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>
`, x(i+1), y(v, vmax), s.color)
			}
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></polyline>
`, strings.Join(pts, " "), s.color, dash, esc(s.name))
		names = append(names, name{x(len(s.values)) + 6, y(s.values[len(s.values)-1], vmax) + 4, s.color, s.name})
	}
	for _, s := range lines {
		draw(s, yMax)
	}
	if extra != nil {
		emax := 0.0
		for _, v := range extra.values {
			emax = max(emax, v)
		}
		if emax > 0 {
			estep := niceStep(emax / 4)
			emax = estep * math.Ceil(emax/estep)
			draw(*extra, emax)
			text(w, float64(x0)+pw, float64(y0-10), `text-anchor="end" fill="#999" font-size="11"`,
				fmt.Sprintf("dashed: %s, 0 to %s", extra.name, compact(emax)))
		}
	}
	slices.SortStableFunc(names, func(a, b name) int { return cmp.Compare(a.y, b.y) })
	for i := range names {
		if i > 0 {
			names[i].y = math.Max(names[i].y, names[i-1].y+14)
		}
		text(w, names[i].x, names[i].y, fmt.Sprintf(`fill="%s"`, names[i].color), names[i].text)
	}
}
