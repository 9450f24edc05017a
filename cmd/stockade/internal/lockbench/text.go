package lockbench

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the report as a plain aligned table, one row per
// workload and implementation, headed by the servers used and what the
// workloads are, and followed by notes on failures, release errors and
// violations (and, for a run of several rounds, every round's ops/s). The
// "hand-offs" column is the share of sections that were
// hand-offs to a waiting goroutine; the rest found the key idle, or were
// taken again by the goroutine that had just released it.
func (r *Report) WriteText(out io.Writer) error {
	w := new(bytes.Buffer)
	var head []string
	if r.Addr != "" {
		head = append(head, "redis "+r.Addr)
	}
	if len(r.RedlockAddrs) > 0 {
		head = append(head, "redlock "+strings.Join(r.RedlockAddrs, ","))
	}
	if r.Postgres != "" {
		head = append(head, "postgres "+r.Postgres)
	}
	if len(r.Etcd) > 0 {
		head = append(head, "etcd "+strings.Join(r.Etcd, ","))
	}
	if r.Rounds > 1 {
		head = append(head, fmt.Sprintf("%v per implementation per workload per round, median of %d rounds", r.Duration, r.Rounds))
	} else {
		head = append(head, fmt.Sprintf("%v per implementation per workload", r.Duration))
	}
	fmt.Fprintln(w, strings.Join(head, ", "))
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "workload %s: %v\n", wl.Name, wl)
	}
	fmt.Fprintln(w)

	holds := make(map[string]time.Duration, len(r.Workloads))
	for _, wl := range r.Workloads {
		holds[wl.Name] = wl.Hold
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\timpl\tops/s\tutil\twait p50\twait p99\twait max\thand-offs\thand-off p50\thand-off p99\tshare min/max\tfailures\tviolations")
	for _, res := range r.Results {
		util := "-" // meaningless when the critical section is empty
		if holds[res.Workload] > 0 {
			util = fmt.Sprintf("%.0f%%", 100*res.Utilization)
		}
		handoffs, hp50, hp99 := "-", "-", "-"
		if res.Ops > 0 {
			handoffs = fmt.Sprintf("%.0f%%", 100*float64(res.Handoff.N)/float64(res.Ops))
		}
		if res.Handoff.N > 0 {
			hp50, hp99 = ms(res.Handoff.P50), ms(res.Handoff.P99)
		}
		wp50, wp99, wmax := "-", "-", "-"
		if res.Wait.N > 0 {
			wp50, wp99, wmax = ms(res.Wait.P50), ms(res.Wait.P99), ms(res.Wait.Max)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f×/%.2f×\t%d\t%d\n",
			res.Workload, res.Impl, res.OpsPerSec, util, wp50, wp99, wmax, handoffs, hp50, hp99,
			res.ShareMin, res.ShareMax, res.Failures, res.Violations)
	}
	tw.Flush() // writes to a bytes.Buffer cannot fail

	notes := false
	note := func(format string, args ...any) {
		if !notes {
			fmt.Fprintln(w, "\nnotes:")
			notes = true
		}
		fmt.Fprintf(w, "  "+format+"\n", args...)
	}
	for _, res := range r.Results {
		if len(res.RoundOpsPerSec) > 1 {
			rounds := make([]string, len(res.RoundOpsPerSec))
			for i, v := range res.RoundOpsPerSec {
				rounds[i] = fmt.Sprintf("%.0f", v)
			}
			note("%s/%s: ops/s by round %s", res.Workload, res.Impl, strings.Join(rounds, " "))
		}
		if res.Failures > 0 {
			note("%s/%s: %d failures, first: %s", res.Workload, res.Impl, res.Failures, res.FailureSample)
		}
		if res.ReleaseErrors > 0 {
			note("%s/%s: %d release errors, first: %s", res.Workload, res.Impl, res.ReleaseErrors, res.ReleaseErrorSample)
		}
		for _, v := range res.ViolationSamples {
			note("%s/%s: VIOLATION %v", res.Workload, res.Impl, v)
		}
		if more := res.Violations - len(res.ViolationSamples); more > 0 {
			note("%s/%s: … and %d more violations", res.Workload, res.Impl, more)
		}
	}
	_, err := w.WriteTo(out)
	return err
}

// ms formats d in milliseconds with about three significant digits, or in
// seconds from 10 s.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	switch {
	case m < 1:
		return fmt.Sprintf("%.3fms", m)
	case m < 10:
		return fmt.Sprintf("%.2fms", m)
	case m < 100:
		return fmt.Sprintf("%.1fms", m)
	case m < 10000:
		return fmt.Sprintf("%.0fms", m)
	default:
		return fmt.Sprintf("%.1fs", m/1000)
	}
}
