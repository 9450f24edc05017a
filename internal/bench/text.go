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

	"github.com/stockade/stockade"
)

// describe says what a workload sends, in words.
func describe(workload string, skus int) string {
	switch workload {
	case FlashSale:
		return "one SKU at one location, every request a checkout of 1 unit"
	case Carts:
		return fmt.Sprintf("%d SKUs (Zipf popularity) over %d locations, checkouts of 1-4 lines of 1-3 units", skus, cartLocations)
	case Booking:
		return fmt.Sprintf("%d SKUs, holds of 1-2 units; %.0f%% confirmed after 5-50ms, the rest left to expire", bookingSKUs, 100*confirmShare)
	case OnSale:
		return fmt.Sprintf("one event, rows of %d seats, %d rows to a section; holds of 1-%d best-available seats (%.0f%%) or a named pair of the %d seats nearest the stage; %.0f%% confirmed at once, the rest left to expire",
			onsaleRowSeats, onsaleSectionRows, onsaleMaxBest, 100*(1-onsaleNamedShare), onsaleHotSeats, 100*onsaleConfirmShare)
	case WaitingRoom:
		return fmt.Sprintf("onsale's event behind a waiting room; a crowd joins and watches its tickets, and each visitor admitted holds once as onsale's buyers do (1-%d best-available seats or a named pair; %.0f%% confirmed at once, the rest left to expire)",
			onsaleMaxBest, 100*onsaleConfirmShare)
	}
	return workload
}

// load says what loaded each run: its clients, or the crowd of a
// waiting room.
func (r *Report) load() string {
	if r.Room != nil {
		return fmt.Sprintf("%d visitors over %v", r.Room.Visitors, r.Room.Ramp)
	}
	return fmt.Sprintf("%d clients", r.Clients)
}

// Limit says how each run ended: "10s each" or "200 requests each".
func (r *Report) Limit() string {
	switch {
	case r.Requests > 0:
		return fmt.Sprintf("%d requests each", r.Requests)
	case len(r.Stages) > 0 && r.ArrivalRate:
		return fmt.Sprintf("stages of requests/s %s each", stagesString(r.Stages))
	case len(r.Stages) > 0:
		return fmt.Sprintf("stages of clients %s each", stagesString(r.Stages))
	case r.Rate > 0:
		return fmt.Sprintf("%v at %g requests/s each", r.Duration, r.Rate)
	}
	return r.Duration.String() + " each"
}

// WriteText writes the report as an aligned table, one row per strategy,
// headed by the workload and store, and followed by notes: fallbacks,
// reconcile, error samples and broken invariants.
func (r *Report) WriteText(out io.Writer) error {
	w := new(bytes.Buffer)
	fmt.Fprintf(w, "workload %s: %s\n", r.Workload, describe(r.Workload, r.SKUs))
	switch {
	case r.Room != nil:
		rm := r.Room
		fmt.Fprintf(w, "store %s, %d seats, %s; until sold out and every visitor told, or %v each\n", r.Store, r.Stock, r.load(), r.Duration)
		fmt.Fprintf(w, "room: active limit %d, %d admitted a minute, seats counted per visitor %d, admissions of %v, a round every %v; holds of %v\n\n",
			rm.ActiveLimit, rm.AdmitPerMinute, rm.PerVisitor, rm.AdmissionTTL, roomAdmitEvery, rm.HoldTTL)
		r.writeRoom(w)
	case r.Workload == OnSale:
		fmt.Fprintf(w, "store %s, %d clients, %s or until sold out, %d seats\n\n", r.Store, r.Clients, r.Limit(), r.Stock)
		r.writeOnSale(w)
	default:
		fmt.Fprintf(w, "store %s, %d clients, %s, stock %d per level\n\n", r.Store, r.Clients, r.Limit(), r.Stock)
		r.writeTable(w)
	}
	r.writeLoad(w)
	r.writeThresholds(w)
	_, err := out.Write(w.Bytes())
	return err
}

// writeLoad writes, for a run with stages or a rate, each strategy's
// timeline: the load asked for each second, the requests that ended in
// it and their latency, and the arrivals dropped.
func (r *Report) writeLoad(w *bytes.Buffer) {
	if len(r.Stages) == 0 && r.Rate == 0 {
		return
	}
	load := "clients"
	if r.ArrivalRate || r.Rate > 0 {
		load = "rate/s"
	}
	for _, res := range r.Results {
		fmt.Fprintf(w, "\n%s, second by second", res.Strategy)
		if r.ArrivalRate || r.Rate > 0 {
			fmt.Fprintf(w, " (%d arrivals dropped: every client busy)", res.Dropped)
		}
		fmt.Fprintln(w, ":")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "second\t%s\treq/s\tp50 ms\tp99 ms\t\n", load)
		for _, p := range res.Timeline {
			fmt.Fprintf(tw, "%d\t%.0f\t%d\t%.1f\t%.1f\t\n", p.Second, p.Load, p.Requests, p.P50Ms, p.P99Ms)
		}
		tw.Flush() // writes to a bytes.Buffer cannot fail
	}
}

// writeThresholds writes how each run fared against each threshold.
func (r *Report) writeThresholds(w *bytes.Buffer) {
	var lines []string
	for _, res := range r.Results {
		lines = append(lines, thresholdLines(res)...)
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nthresholds:\n%s\n", strings.Join(lines, "\n"))
	}
}

// writeTable writes the table and notes of the stock workloads.
func (r *Report) writeTable(w *bytes.Buffer) {
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
		for _, l := range probeNotes(res) {
			fmt.Fprintln(w, l)
		}
	}
}

// writeOnSale writes the table and notes of OnSale: holds and seats
// booked per second, latencies, the seats left and orphans.
func (r *Report) writeOnSale(w *bytes.Buffer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\trequests\tholds/s\tseats/s\tp50 ms\tp99 ms\thold p99 ms\tmax ms\tbooked\torphans\terrors\tinvariants\toutcomes")
	for _, res := range r.Results {
		inv := "ok"
		if !res.InvariantsOK {
			inv = "BROKEN"
		}
		var on OnSaleResult
		if res.OnSale != nil {
			on = *res.OnSale
		}
		booked := fmt.Sprintf("%d", on.SeatsBooked)
		if on.SoldOut {
			booked += " (all)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%d\t%d\t%s\t%s\n",
			res.Strategy, res.Requests, on.HoldsPerSec, on.SeatsPerSec, res.P50Ms, res.P99Ms, on.HoldP99Ms, res.MaxMs,
			booked, on.Orphans, res.Errors, inv, outcomesText(res.Outcomes))
	}
	tw.Flush() // writes to a bytes.Buffer cannot fail

	fmt.Fprintln(w, "\nnotes:")
	for _, res := range r.Results {
		if res.Effective != "" && res.Effective != res.Strategy {
			fmt.Fprintf(w, "  %s: runs as %s\n", res.Strategy, strings.TrimPrefix(res.Effective, res.Strategy+" "))
		}
		if on := res.OnSale; on != nil {
			end := fmt.Sprintf("sold out in %.1fs", res.Seconds)
			if !on.SoldOut {
				end = "not sold out"
			}
			fmt.Fprintf(w, "  %s: %s; %d holds of %d seats, %d booked of %d seats; hold p50 %.1fms; %d holds left to expire, %d swept\n",
				res.Strategy, end, on.Holds, on.SeatsHeld, on.Bookings, on.SeatsBooked, on.HoldP50Ms, res.Abandoned, res.Swept)
			fmt.Fprintf(w, "  %s: seats left: %d free (%d of them orphans), %d held, %d booked\n", res.Strategy,
				on.Left[stockade.SeatFree], on.Orphans, on.Left[stockade.SeatHeld], on.Left[stockade.SeatBooked])
		}
		fmt.Fprintf(w, "  %s: reconcile %s\n", res.Strategy, res.Reconcile)
		if res.Errors > 0 {
			fmt.Fprintf(w, "  %s: %d errors, first: %s\n", res.Strategy, res.Errors, res.ErrorSample)
		}
		for _, v := range res.Violations {
			fmt.Fprintf(w, "  %s: INVARIANT BROKEN: %s\n", res.Strategy, v)
		}
		for _, l := range probeNotes(res) {
			fmt.Fprintln(w, l)
		}
	}
}

// writeRoom writes the table and notes of WaitingRoom: the crowd's joins,
// the sell-out and its notice, the holds with and without the crowd, and
// the order of admission.
func (r *Report) writeRoom(w *bytes.Buffer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tjoins/s\tjoin p99 ms\tsold out after\tnotice p99 ms\thold p99 ms\twithout crowd\tratio\tinversions\terrors\tinvariants")
	for _, res := range r.Results {
		inv := "ok"
		if !res.InvariantsOK {
			inv = "BROKEN"
		}
		var rm RoomResult
		if res.Room != nil {
			rm = *res.Room
		}
		soldOut, notice, base, ratio := "-", "-", "-", "-"
		if rm.SoldOut {
			soldOut = fmt.Sprintf("%.1fs", rm.SellOutSec)
		}
		if rm.Told > 0 {
			notice = fmt.Sprintf("%.1f", rm.NoticeP99Ms)
		}
		if rm.Baseline != nil {
			base = fmt.Sprintf("%.1f", rm.Baseline.HoldP99Ms)
			ratio = fmt.Sprintf("%.2f", rm.HoldP99Ratio)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%s\t%s\t%.1f\t%s\t%s\t%d\t%d\t%s\n",
			res.Strategy, rm.JoinsPerSec, rm.JoinP99Ms, soldOut, notice, rm.HoldP99Ms, base, ratio,
			int64(rm.LateAdmissions)+rm.Inversions, res.Errors+rm.Failed, inv)
	}
	tw.Flush() // writes to a bytes.Buffer cannot fail

	fmt.Fprintln(w, "\nnotes:")
	for _, res := range r.Results {
		s := res.Strategy
		if res.Effective != "" && res.Effective != s {
			fmt.Fprintf(w, "  %s: runs as %s\n", s, strings.TrimPrefix(res.Effective, s+" "))
		}
		if rm := res.Room; rm != nil {
			fmt.Fprintf(w, "  %s: %d visitors, %d joined (%d turned away: sold out; %d joins or watches failed) at %.0f joins/s (first join's start to last successful join's end); join p50 %.1fms, p99 %.1fms\n",
				s, rm.Visitors, rm.Joined, rm.TurnedAway, rm.Failed, rm.JoinsPerSec, rm.JoinP50Ms, rm.JoinP99Ms)
			fmt.Fprintf(w, "  %s: %s; %d admitted: %d held seats, %d held none (the seats were gone or the admission ran out)\n",
				s, roomEndText(rm, res.Seconds), rm.Admitted, rm.Bought, rm.NoSeats)
			if rm.SoldOut {
				fmt.Fprintf(w, "  %s: sold-out notice to the %d visitors waiting: p50 %.1fms, p99 %.1fms, max %.1fms after the room sold out; %d still waiting at the end\n",
					s, rm.Told, rm.NoticeP50Ms, rm.NoticeP99Ms, rm.NoticeMaxMs, rm.StillWaiting)
			} else if rm.StillWaiting > 0 {
				fmt.Fprintf(w, "  %s: %d visitors still waiting at the end\n", s, rm.StillWaiting)
			}
			fmt.Fprintf(w, "  %s: holds with the crowd: %d requests, p50 %.1fms, p99 %.1fms", s, rm.Holds, rm.HoldP50Ms, rm.HoldP99Ms)
			if b := rm.Baseline; b != nil {
				fmt.Fprintf(w, "; without it (%d visitors over %v, %s in %.1fs): %d requests, p50 %.1fms, p99 %.1fms; p99 ratio %.2f",
					b.Visitors, b.Ramp, b.End, b.Seconds, b.Holds, b.HoldP50Ms, b.HoldP99Ms, rm.HoldP99Ratio)
			}
			fmt.Fprintln(w)
			if rm.LateAdmissions == 0 && rm.Inversions == 0 {
				fmt.Fprintf(w, "  %s: admission followed the promised order: 0 inversions\n", s)
			} else {
				fmt.Fprintf(w, "  %s: admission DEPARTED from the promised order: %d visitors admitted after one at an earlier place never admitted, %d pairs admitted in the wrong order\n",
					s, rm.LateAdmissions, rm.Inversions)
			}
		}
		if on := res.OnSale; on != nil {
			fmt.Fprintf(w, "  %s: %d holds of %d seats, %d booked of %d seats; %d holds left to expire, %d swept\n",
				s, on.Holds, on.SeatsHeld, on.Bookings, on.SeatsBooked, res.Abandoned, res.Swept)
			fmt.Fprintf(w, "  %s: seats left: %d free (%d of them orphans), %d held, %d booked\n", s,
				on.Left[stockade.SeatFree], on.Orphans, on.Left[stockade.SeatHeld], on.Left[stockade.SeatBooked])
		}
		fmt.Fprintf(w, "  %s: requests (holds and confirms): %s\n", s, outcomesText(res.Outcomes))
		fmt.Fprintf(w, "  %s: reconcile %s\n", s, res.Reconcile)
		if res.Errors > 0 {
			fmt.Fprintf(w, "  %s: %d requests failed, first: %s\n", s, res.Errors, res.ErrorSample)
		}
		for _, v := range res.Violations {
			fmt.Fprintf(w, "  %s: INVARIANT BROKEN: %s\n", s, v)
		}
		for _, l := range probeNotes(res) {
			fmt.Fprintln(w, l)
		}
	}
}

// roomEndText says how a waiting-room pass of seconds ended.
func roomEndText(rm *RoomResult, seconds float64) string {
	switch rm.End {
	case RoomEndSoldOut:
		return fmt.Sprintf("sold out %.1fs after the room opened; run over in %.1fs", rm.SellOutSec, seconds)
	case RoomEndServed:
		return fmt.Sprintf("every visitor served in %.1fs, seats left", seconds)
	case RoomEndStalled:
		return fmt.Sprintf("NOT SOLD OUT: stalled after %.1fs: %s", seconds, rm.Stalled)
	}
	return fmt.Sprintf("NOT SOLD OUT: the run's deadline passed after %.1fs", seconds)
}

// thresholdLines says how res fared against each threshold, a line each.
func thresholdLines(res Result) []string {
	lines := make([]string, len(res.Thresholds))
	for i, th := range res.Thresholds {
		mark := "ok    "
		if !th.OK {
			mark = "MISSED"
		}
		lines[i] = fmt.Sprintf("  %s %s: %s, was %s", mark, res.Strategy, th.Threshold, formatActual(th))
	}
	return lines
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
