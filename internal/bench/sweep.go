package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Variables that a sweep can move, for RunSweep.
const (
	SweepClients = "clients" // Options.Clients
	SweepSKUs    = "skus"    // Options.SKUs, of the carts workload
	// SweepInstances is the instances of a service on one store; the
	// caller runs them (see stockade bench -instances), RunSweep cannot.
	SweepInstances = "instances"
)

// Sweep is the bench run at each value of one variable: how the
// strategies' cost grows as the work grows.
type Sweep struct {
	Variable string       `json:"variable"`
	Points   []SweepPoint `json:"points"`
}

// SweepPoint is the run at one value of the swept variable.
type SweepPoint struct {
	Value  int     `json:"value"`
	Report *Report `json:"report"`
}

// RunSweep runs the bench once per value of variable (SweepClients or
// SweepSKUs), with o's other options, in the order given; each point
// checks its own invariants and thresholds. Like Run, it goes on after a
// point that broke an invariant or missed a threshold, and returns the
// sweep with an error wrapping ErrInvariant or ErrThreshold; any other
// error stops it.
func RunSweep(ctx context.Context, o *Options, variable string, values []int) (*Sweep, error) {
	if o == nil {
		return nil, errors.New("bench: no options: Store or Service is required")
	}
	if variable != SweepClients && variable != SweepSKUs {
		return nil, fmt.Errorf("bench: cannot sweep %q (want %s or %s)", variable, SweepClients, SweepSKUs)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("bench: no values of %s to sweep", variable)
	}
	if variable == SweepClients && len(o.Stages) > 0 && !o.ArrivalRate {
		return nil, errors.New("bench: stages set the clients: sweep them, or stages, not both")
	}
	sw := &Sweep{Variable: variable}
	var errs []error
	for _, v := range values {
		po := *o
		if variable == SweepClients {
			po.Clients = v
		} else {
			po.SKUs = v
		}
		rep, err := Run(ctx, &po)
		if rep == nil || !Judged(err) {
			return sw, fmt.Errorf("%s %d: %w", variable, v, err)
		}
		sw.Points = append(sw.Points, SweepPoint{Value: v, Report: rep})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %d: %w", variable, v, err))
		}
	}
	return sw, errors.Join(errs...)
}

// WriteText writes the sweep as one table, a row per point and strategy,
// followed by each point's notes and thresholds.
func (s *Sweep) WriteText(out io.Writer) error {
	w := new(bytes.Buffer)
	if len(s.Points) == 0 {
		_, err := fmt.Fprintf(out, "sweep of %s: no points\n", s.Variable)
		return err
	}
	first := s.Points[0].Report
	fmt.Fprintf(w, "workload %s: %s\n", first.Workload, describe(first.Workload, first.SKUs))
	fmt.Fprintf(w, "store %s, %s, sweep of %s: %s\n\n", first.Store, first.Limit(), s.Variable, s.values())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tstrategy\trequests\tok/s\treq/s\tp50 ms\tp95 ms\tp99 ms\tmax ms\terrors\tinvariants\n", s.Variable)
	for _, p := range s.Points {
		for _, res := range p.Report.Results {
			inv := "ok"
			if !res.InvariantsOK {
				inv = "BROKEN"
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%s\n", p.Value, res.Strategy, res.Requests,
				res.Throughput, res.RequestsPerSec, res.P50Ms, res.P95Ms, res.P99Ms, res.MaxMs, res.Errors, inv)
		}
	}
	tw.Flush() // writes to a bytes.Buffer cannot fail
	for _, p := range s.Points {
		var notes []string
		for _, res := range p.Report.Results {
			for _, v := range res.Violations {
				notes = append(notes, fmt.Sprintf("  %s: INVARIANT BROKEN: %s", res.Strategy, v))
			}
			if res.Errors > 0 {
				notes = append(notes, fmt.Sprintf("  %s: %d errors, first: %s", res.Strategy, res.Errors, res.ErrorSample))
			}
			notes = append(notes, thresholdLines(res)...)
			notes = append(notes, probeNotes(res)...)
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n%s %d:\n%s\n", s.Variable, p.Value, strings.Join(notes, "\n"))
		}
	}
	_, err := out.Write(w.Bytes())
	return err
}

func (s *Sweep) values() string {
	v := make([]string, len(s.Points))
	for i, p := range s.Points {
		v[i] = strconv.Itoa(p.Value)
	}
	return strings.Join(v, ", ")
}

// sweepRow is one strategy at one point, as WriteJSON writes it: the
// result, with the point's settings as fields of their own.
type sweepRow struct {
	Workload  string `json:"workload"`
	Clients   int    `json:"clients"`
	SKUs      int    `json:"skus,omitempty"`
	Instances int    `json:"instances,omitempty"` // of the service, in a sweep of them
	Result
}

// WriteJSON writes the sweep as an indented JSON list, one object per
// point and strategy: the strategy's result, with the workload, the
// clients, (for carts) the SKUs and (in a sweep of them) the instances of
// its point as fields.
func (s *Sweep) WriteJSON(out io.Writer) error {
	rows := []sweepRow{}
	for _, p := range s.Points {
		for _, res := range p.Report.Results {
			row := sweepRow{Workload: p.Report.Workload, Clients: p.Report.Clients, SKUs: p.Report.SKUs, Result: res}
			if s.Variable == SweepInstances {
				row.Instances = p.Value
			}
			rows = append(rows, row)
		}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteSVG draws the sweep as an SVG chart of two panels over the swept
// values, evenly spaced: successful requests per second on top and p99
// latency below, one line per strategy.
func (s *Sweep) WriteSVG(out io.Writer) error {
	const width, left, right, top, panel, gap = 880, 70, 150, 78, 220, 70
	height := top + 2*panel + gap + 60
	w := new(bytes.Buffer)
	svgStart(w, width, height)
	workload, store, limit := "", "", ""
	if len(s.Points) > 0 {
		r := s.Points[0].Report
		workload, store, limit = r.Workload, r.Store, r.Limit()
	}
	text(w, 20, 30, `font-size="18" font-weight="bold" fill="#222"`, "stockade bench: "+workload+" — throughput and p99 by "+s.Variable)
	text(w, 20, 52, `fill="#555"`, fmt.Sprintf("%s · %s", store, limit))
	var ok, p99 []series
	index := map[string]int{}
	for _, p := range s.Points {
		for _, res := range p.Report.Results {
			i, seen := index[res.Strategy]
			if !seen {
				i = len(ok)
				index[res.Strategy] = i
				color := palette[i%len(palette)]
				ok = append(ok, series{name: res.Strategy, color: color})
				p99 = append(p99, series{name: res.Strategy, color: color})
			}
			ok[i].values = append(ok[i].values, res.Throughput)
			p99[i].values = append(p99[i].values, res.P99Ms)
		}
	}
	labels := make([]string, len(s.Points))
	for i, p := range s.Points {
		labels[i] = strconv.Itoa(p.Value)
	}
	plotW := float64(width - left - right)
	linePanel(w, left, top, plotW, panel, len(labels), ok, "successful requests per second", nil, labels)
	linePanel(w, left, top+panel+gap, plotW, panel, len(labels), p99, "p99 latency, ms", nil, labels)
	text(w, left+plotW/2, float64(top+2*panel+gap+40), `text-anchor="middle" fill="#333"`, s.Variable)
	fmt.Fprintln(w, `</svg>`)
	_, err := out.Write(w.Bytes())
	return err
}
