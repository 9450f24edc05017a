package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
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

	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="13">
`, chartWidth, height, chartWidth, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="#ffffff"/>
`)
	text(w, 20, 30, `font-size="18" font-weight="bold" fill="#222"`, "stockade bench: "+r.Workload+" — throughput by strategy")
	stock := fmt.Sprintf("stock %d per level", r.Stock)
	if r.Workload == OnSale {
		stock = fmt.Sprintf("%d seats", r.Stock)
	}
	text(w, 20, 52, `fill="#555"`, fmt.Sprintf("%s · %d clients · %s · %s", r.Store, r.Clients, r.Limit(), stock))

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
