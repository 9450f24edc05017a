package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// describe says what a workload sends, in words.
func describe(workload string) string {
	switch workload {
	case FlashSale:
		return "one SKU at one location, every request a checkout of 1 unit"
	case Carts:
		return fmt.Sprintf("%d SKUs (Zipf popularity) over %d locations, checkouts of 1-4 lines of 1-3 units", cartSKUs, cartLocations)
	case Booking:
		return fmt.Sprintf("%d SKUs, holds of 1-2 units; %.0f%% confirmed after 5-50ms, the rest left to expire", bookingSKUs, 100*confirmShare)
	}
	return workload
}

// Limit says how each run ended: "10s each" or "200 requests each".
func (r *Report) Limit() string {
	if r.Requests > 0 {
		return fmt.Sprintf("%d requests each", r.Requests)
	}
	return r.Duration.String() + " each"
}

// WriteText writes the report as an aligned table, one row per strategy,
// headed by the workload and store, and followed by notes: fallbacks,
// reconcile, error samples and broken invariants.
func (r *Report) WriteText(out io.Writer) error {
	w := new(bytes.Buffer)
	fmt.Fprintf(w, "workload %s: %s\n", r.Workload, describe(r.Workload))
	fmt.Fprintf(w, "store %s, %d clients, %s, stock %d per level\n\n", r.Store, r.Clients, r.Limit(), r.Stock)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\trequests\tok/s\treq/s\tp50 ms\tp95 ms\tp99 ms\tmax ms\terrors\tinvariants\toutcomes")
	for _, res := range r.Results {
		inv := "ok"
		if !res.InvariantsOK {
			inv = "BROKEN"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%s\t%s\n",
			res.Strategy, res.Requests, res.Throughput, res.RequestsPerSec,
			res.P50Ms, res.P95Ms, res.P99Ms, res.MaxMs, res.Errors, inv, outcomesText(res.Outcomes))
	}
	tw.Flush() // writes to a bytes.Buffer cannot fail

	fmt.Fprintln(w, "\nnotes:")
	for _, res := range r.Results {
		if res.Effective != "" && res.Effective != res.Strategy {
			fmt.Fprintf(w, "  %s: runs as %s\n", res.Strategy, strings.TrimPrefix(res.Effective, res.Strategy+" "))
		}
		if r.Workload == Booking {
			fmt.Fprintf(w, "  %s: %d holds left to expire, %d expired by sweeps during the run (holds of earlier runs too)\n", res.Strategy, res.Abandoned, res.Swept)
		}
		fmt.Fprintf(w, "  %s: reconcile %s\n", res.Strategy, res.Reconcile)
		if res.Errors > 0 {
			fmt.Fprintf(w, "  %s: %d errors, first: %s\n", res.Strategy, res.Errors, res.ErrorSample)
		}
		for _, v := range res.Violations {
			fmt.Fprintf(w, "  %s: INVARIANT BROKEN: %s\n", res.Strategy, v)
		}
	}
	_, err := out.Write(w.Bytes())
	return err
}

// outcomesText lists outcomes as "ok=120 insufficient_stock=80", ok first.
func outcomesText(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int {
		return boolInt(!strings.HasSuffix(a, "ok")) - boolInt(!strings.HasSuffix(b, "ok"))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteJSON writes the results as an indented JSON list, one object per
// strategy.
func (r *Report) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	results := r.Results
	if results == nil {
		results = []Result{}
	}
	return enc.Encode(results)
}
