package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// A Probe watches what a run costs outside the clients' view, such as
// the database's wait events (PGWaits) or the processes' CPU (CPUCost).
// Runs are one after another, so a probe watches one run at a time.
type Probe interface {
	// Begin starts watching, just before a run's clients start.
	Begin(ctx context.Context) error
	// End stops watching, just after the clients stop, and records
	// what the probe saw in res, whose Successes and Seconds are set.
	End(res *Result) error
}

// beginProbes begins each probe in turn; if one fails, it ends those
// already begun, discarding what they saw.
func beginProbes(ctx context.Context, probes []Probe) error {
	for i, p := range probes {
		if err := p.Begin(ctx); err != nil {
			var discard Result
			for _, q := range probes[:i] {
				q.End(&discard)
			}
			return err
		}
	}
	return nil
}

// endProbes ends every probe, whatever one returns.
func endProbes(probes []Probe, res *Result) error {
	var errs []error
	for _, p := range probes {
		errs = append(errs, p.End(res))
	}
	return errors.Join(errs...)
}

// DBWaits is what the database's sessions were doing while a run's
// clients ran, sampled from PostgreSQL's pg_stat_activity (PGWaits).
type DBWaits struct {
	// Samples is how many times pg_stat_activity was read.
	Samples int `json:"samples"`
	// Busy is the mean number of sessions of the database that were
	// running a statement or were inside a transaction.
	Busy float64 `json:"busy"`
	// Events share the busy sessions' samples out by what each was
	// doing, most first: "CPU" for running, "Lock:transactionid" for
	// waiting for another transaction's row lock, "LWLock:WALWrite" or
	// "IO:WALSync" for waiting for the log to reach disk,
	// "Client:ClientRead (in transaction)" for a transaction waiting for
	// its client's next statement. Shares sum to 1.
	Events []WaitShare `json:"events"`
}

// WaitShare is the share of the busy sessions' samples spent on one
// wait event.
type WaitShare struct {
	Event string  `json:"event"`
	Share float64 `json:"share"`
}

// CPUUse is the CPU that one kind of process used during a run (CPUCost).
type CPUUse struct {
	// Process is "bench" (this process: clients and in-process
	// engines), "serve" (the service instances), "postgres" (every
	// process of the local PostgreSQL) or "machine" (every process,
	// these and all else).
	Process string `json:"process"`
	// Cores is CPU seconds per second of the run.
	Cores float64 `json:"cores"`
	// MicrosPerOK is CPU microseconds per successful request; 0 when
	// none succeeded.
	MicrosPerOK float64 `json:"us_per_ok"`
}

// probeNotes says what the probes saw of res, a line each, for the
// notes under a table.
func probeNotes(res Result) []string {
	var lines []string
	if len(res.CPU) > 0 {
		parts := make([]string, len(res.CPU))
		for i, u := range res.CPU {
			parts[i] = fmt.Sprintf("%s %.0f µs (%.2f cores)", u.Process, u.MicrosPerOK, u.Cores)
		}
		lines = append(lines, fmt.Sprintf("  %s: CPU per successful request: %s", res.Strategy, strings.Join(parts, ", ")))
	}
	if w := res.DBWaits; w != nil {
		parts := make([]string, len(w.Events))
		for i, e := range w.Events {
			parts[i] = fmt.Sprintf("%s %.0f%%", e.Event, 100*e.Share)
		}
		lines = append(lines, fmt.Sprintf("  %s: database sessions busy %.1f on average, of which (%d samples): %s",
			res.Strategy, w.Busy, w.Samples, strings.Join(parts, ", ")))
	}
	return lines
}
