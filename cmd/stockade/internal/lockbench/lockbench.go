package lockbench

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Workload is one contention pattern: Goroutines goroutines loop acquire →
// hold → release, goroutine i on key i mod Keys.
type Workload struct {
	// Name identifies the workload in flags and reports, e.g. "b".
	Name string `json:"name"`

	// Goroutines is the number of goroutines competing.
	Goroutines int `json:"goroutines"`

	// Keys is the number of lock keys they share.
	Keys int `json:"keys"`

	// Hold is how long each critical section lasts (a sleep; see the package
	// documentation).
	Hold time.Duration `json:"hold_ns"`
}

// String describes w in words, e.g. "64 goroutines on 1 key, hold 1ms".
func (w Workload) String() string {
	hold := "no hold"
	if w.Hold > 0 {
		hold = "hold " + w.Hold.String()
	}
	return fmt.Sprintf("%d %s on %d %s, %s",
		w.Goroutines, plural(w.Goroutines, "goroutine"), w.Keys, plural(w.Keys, "key"), hold)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Workloads returns the standard workloads a, b and c.
func Workloads() []Workload {
	return []Workload{
		{Name: "a", Goroutines: 16, Keys: 16},
		{Name: "b", Goroutines: 64, Keys: 1, Hold: time.Millisecond},
		{Name: "c", Goroutines: 8, Keys: 1, Hold: 5 * time.Millisecond},
	}
}

// Impls returns the names of every implementation, in the order they run.
// The first four run on the Redis server at Options.Addr; redlock and
// redsync5 on the servers of Options.RedlockAddrs, pglock on
// Options.PostgresURL and etcdlock on Options.EtcdEndpoints.
func Impls() []string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.name
	}
	return names
}

// Options configures a Run. A nil *Options means all defaults.
type Options struct {
	// Addr is the address of the Redis server that stockade, redsync, bsm
	// and setnx run on.
	// Default: "127.0.0.1:6379".
	Addr string

	// RedlockAddrs are the addresses of the independent Redis servers that
	// redlock and redsync5 run on, one per node: five make a quorum of
	// three. Only keys under the run's prefix are written to them.
	// Default: none (redlock and redsync5 cannot run).
	RedlockAddrs []string

	// PostgresURL is the connection string, a URL or keyword/value pairs,
	// of the PostgreSQL database that pglock runs on. pglock draws its
	// fencing tokens from its default sequence, public.lock_token_seq,
	// and creates it if it is missing.
	// Default: "" (pglock cannot run).
	PostgresURL string

	// EtcdEndpoints are the client URLs of the etcd cluster that etcdlock
	// runs on.
	// Default: none (etcdlock cannot run).
	EtcdEndpoints []string

	// Duration is how long each implementation runs each workload, per
	// round.
	// Default: 5s.
	Duration time.Duration

	// Rounds is how many times each implementation runs each workload. The
	// implementations take turns within a workload, round after round, so
	// that a machine whose speed drifts slows them alike, and each round
	// starts one implementation later than the one before. Each Result is
	// the implementation's median round by ops/s.
	// Default: 1.
	Rounds int

	// Workloads run in order; each runs every implementation.
	// Default: Workloads().
	Workloads []Workload

	// Impls names the implementations to run, from Impls(). Each must
	// have its server set.
	// Default: stockade, redsync, bsm and setnx, then each of redlock,
	// redsync5, pglock and etcdlock whose servers are set.
	Impls []string

	// TTL is the lease time-to-live for every implementation but redsync
	// and redsync5, which keep their own default expiry (8s). etcdlock rounds it up to
	// whole seconds, and etcd raises it to its minimum lease TTL (2s by
	// default).
	// Default: 10s.
	TTL time.Duration

	// BSMWait bounds each bsm acquisition: it is the deadline of the
	// context passed to Obtain. Keep it below Duration, or a give-up can
	// never happen before the run ends.
	// Default: 1s.
	BSMWait time.Duration

	// Progress receives one line as each cell starts and ends.
	// Default: nil (no progress).
	Progress io.Writer
}

func (o *Options) withDefaults() (Options, error) {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Addr == "" {
		out.Addr = "127.0.0.1:6379"
	}
	if out.Duration == 0 {
		out.Duration = 5 * time.Second
	}
	if out.Rounds == 0 {
		out.Rounds = 1
	}
	if out.Workloads == nil {
		out.Workloads = Workloads()
	}
	if out.Impls == nil {
		for _, im := range impls {
			if out.has(im.server) {
				out.Impls = append(out.Impls, im.name)
			}
		}
	}
	if out.TTL == 0 {
		out.TTL = 10 * time.Second
	}
	if out.BSMWait == 0 {
		out.BSMWait = time.Second
	}
	if out.Progress == nil {
		out.Progress = io.Discard
	}

	switch {
	case out.Duration < 0:
		return out, fmt.Errorf("lockbench: duration must be positive, got %v", out.Duration)
	case out.Rounds < 0:
		return out, fmt.Errorf("lockbench: rounds must be positive, got %d", out.Rounds)
	case out.TTL < time.Millisecond:
		return out, fmt.Errorf("lockbench: ttl must be at least 1ms, got %v", out.TTL)
	case out.BSMWait < 0:
		return out, fmt.Errorf("lockbench: bsm wait must be positive, got %v", out.BSMWait)
	case len(out.Workloads) == 0:
		return out, errors.New("lockbench: no workloads")
	case len(out.Impls) == 0:
		return out, errors.New("lockbench: no implementations")
	}
	for _, w := range out.Workloads {
		if w.Name == "" || w.Goroutines < 1 || w.Keys < 1 || w.Hold < 0 {
			return out, fmt.Errorf("lockbench: invalid workload %+v: want a name, goroutines ≥ 1, keys ≥ 1, hold ≥ 0", w)
		}
	}
	for _, name := range out.Impls {
		im, ok := findImpl(name)
		if !ok {
			return out, fmt.Errorf("lockbench: unknown implementation %q (want %s)", name, strings.Join(Impls(), ", "))
		}
		if !out.has(im.server) {
			return out, fmt.Errorf("lockbench: implementation %q needs %s", name, needs[im.server])
		}
	}
	for i, addr := range out.RedlockAddrs {
		if addr == "" || slices.Contains(out.RedlockAddrs[:i], addr) {
			return out, fmt.Errorf("lockbench: redlock addresses %q: want distinct, non-empty addresses", out.RedlockAddrs)
		}
	}
	if slices.Contains(out.EtcdEndpoints, "") {
		return out, fmt.Errorf("lockbench: etcd endpoints %q: want non-empty endpoints", out.EtcdEndpoints)
	}
	return out, nil
}

// has reports whether the server srv is set.
func (o *Options) has(srv server) bool {
	switch srv {
	case onRedlock:
		return len(o.RedlockAddrs) > 0
	case onPostgres:
		return o.PostgresURL != ""
	case onEtcd:
		return len(o.EtcdEndpoints) > 0
	default:
		return o.Addr != ""
	}
}

// needs names the option that sets each server.
var needs = map[server]string{
	onRedis:    "the address of a Redis server (Addr)",
	onRedlock:  "the addresses of its Redis servers (RedlockAddrs)",
	onPostgres: "a PostgreSQL database (PostgresURL)",
	onEtcd:     "an etcd cluster (EtcdEndpoints)",
}

// Report is the outcome of a Run. It names only the servers that the run
// used.
type Report struct {
	Addr         string        `json:"redis,omitempty"`
	RedlockAddrs []string      `json:"redlock,omitempty"`
	Postgres     string        `json:"postgres,omitempty"` // host:port/database, never the password
	Etcd         []string      `json:"etcd,omitempty"`
	Duration     time.Duration `json:"duration_ns"`
	Rounds       int           `json:"rounds"`
	TTL          time.Duration `json:"ttl_ns"`
	BSMWait      time.Duration `json:"bsm_wait_ns"`
	Workloads    []Workload    `json:"workloads"`
	Results      []Result      `json:"results"` // workload-major, in run order
}

// Result is what one implementation did on one workload.
type Result struct {
	Workload string `json:"workload"`
	Impl     string `json:"impl"`

	// Elapsed is the wall time from the start until the last goroutine
	// stopped: Duration plus the sections and waits that were in flight.
	Elapsed time.Duration `json:"elapsed_ns"`

	// RoundOpsPerSec is OpsPerSec of every round, in run order, when the
	// run had more than one. The rest of the Result is the median round's,
	// but for Failures and Violations (and their samples), which count
	// every round so that none is hidden.
	RoundOpsPerSec []float64 `json:"round_ops_per_sec,omitempty"`

	// Ops is the number of completed critical sections.
	Ops       int     `json:"ops"`
	OpsPerSec float64 `json:"ops_per_sec"`

	// Utilization is, averaged over the keys, the sum of hold times on a
	// key divided by Elapsed: in [0, 1] when there are no violations.
	Utilization float64 `json:"utilization"`

	// Wait is the time successful acquisitions took.
	Wait Latency `json:"acquire_wait"`

	// Handoff is the time from a holder starting its release to the
	// return of an acquisition that was already waiting.
	Handoff Latency `json:"handoff"`

	// ShareMin and ShareMax are the fewest and most sections completed by
	// one goroutine, relative to the mean.
	ShareMin float64 `json:"share_min"`
	ShareMax float64 `json:"share_max"`

	// Failures counts acquisitions that gave up or failed before the end
	// of the run; FailureSample is the first one's error.
	Failures      int    `json:"failures"`
	FailureSample string `json:"failure_sample,omitempty"`

	// ReleaseErrors counts releases that returned an error.
	ReleaseErrors      int    `json:"release_errors"`
	ReleaseErrorSample string `json:"release_error_sample,omitempty"`

	// Violations counts critical sections entered while another holder was
	// inside; the first few are in ViolationSamples.
	Violations       int         `json:"violations"`
	ViolationSamples []Violation `json:"violation_samples,omitempty"`
}

// Latency summarizes a set of durations.
type Latency struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

// Violation is one critical section entered while another was inside.
type Violation struct {
	Key       string        `json:"key"`
	Goroutine int           `json:"goroutine"` // the one that entered
	Holder    int           `json:"holder"`    // the one inside, -1 if unknown
	At        time.Duration `json:"at_ns"`     // since the cell started
}

func (v Violation) String() string {
	return fmt.Sprintf("key %s at %v: goroutine %d entered while goroutine %d was inside",
		v.Key, v.At.Round(time.Microsecond), v.Goroutine, v.Holder)
}

// Run runs every implementation in opts on every workload, one cell at a
// time, and returns the measurements. It fails if a server that one of the
// implementations needs cannot be reached; failures of individual
// acquisitions are counted in the Results instead. When ctx is cancelled
// it stops the running cell and returns ctx's error.
func Run(ctx context.Context, opts *Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	srvs, err := connect(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("lockbench: %w", err)
	}
	defer srvs.close()

	prefix := "lockbench:" + randomHex(8) + ":"
	defer srvs.cleanAll(context.WithoutCancel(ctx), prefix)

	rep := &Report{Duration: o.Duration, Rounds: o.Rounds, TTL: o.TTL, BSMWait: o.BSMWait, Workloads: o.Workloads, Postgres: srvs.postgres}
	if srvs.redis != nil {
		rep.Addr = o.Addr
	}
	if len(srvs.redlock) > 0 {
		rep.RedlockAddrs = o.RedlockAddrs
	}
	if srvs.etcd != nil {
		rep.Etcd = o.EtcdEndpoints
	}
	n, total := 0, len(o.Workloads)*len(o.Impls)*o.Rounds
	for _, w := range o.Workloads {
		rounds := make([][]Result, len(o.Impls))
		for r := range o.Rounds {
			for j := range o.Impls {
				// Each round starts one implementation later, so that none
				// always runs right after the same neighbour (whose
				// servers may still be busy) or first.
				i := (j + r) % len(o.Impls)
				name := o.Impls[i]
				im, _ := findImpl(name)
				n++
				round := ""
				if o.Rounds > 1 {
					round = fmt.Sprintf(", round %d/%d", r+1, o.Rounds)
				}
				fmt.Fprintf(o.Progress, "[%d/%d] workload %s (%v): %s for %v%s\n", n, total, w.Name, w, name, o.Duration, round)
				cellPrefix := fmt.Sprintf("%s%s:%s:%d:", prefix, name, w.Name, r)
				res, err := runCell(ctx, o, w, im, cellPrefix)
				if cerr := srvs.clean(context.WithoutCancel(ctx), im.server, cellPrefix); err == nil && cerr != nil {
					err = cerr
				}
				if err != nil {
					return nil, fmt.Errorf("lockbench: %s on workload %s: %w", name, w.Name, err)
				}
				fmt.Fprintf(o.Progress, "[%d/%d]   %d sections, %.0f ops/s, %d failures, %d violations\n",
					n, total, res.Ops, res.OpsPerSec, res.Failures, res.Violations)
				rounds[i] = append(rounds[i], res)
			}
		}
		for _, rs := range rounds {
			rep.Results = append(rep.Results, median(rs))
		}
	}
	return rep, nil
}

// median returns the round with the median ops/s (the lower of the middle
// two for an even count), with every round's ops/s and with the failures
// and violations of all rounds.
func median(rounds []Result) Result {
	if len(rounds) == 1 {
		return rounds[0]
	}
	sorted := slices.Clone(rounds)
	slices.SortStableFunc(sorted, func(a, b Result) int { return cmp.Compare(a.OpsPerSec, b.OpsPerSec) })
	m := sorted[(len(sorted)-1)/2]
	m.Failures, m.FailureSample = 0, ""
	m.ReleaseErrors, m.ReleaseErrorSample = 0, ""
	m.Violations, m.ViolationSamples = 0, nil
	for _, r := range rounds {
		m.RoundOpsPerSec = append(m.RoundOpsPerSec, r.OpsPerSec)
		m.Failures += r.Failures
		if m.FailureSample == "" {
			m.FailureSample = r.FailureSample
		}
		m.ReleaseErrors += r.ReleaseErrors
		if m.ReleaseErrorSample == "" {
			m.ReleaseErrorSample = r.ReleaseErrorSample
		}
		m.Violations += r.Violations
		m.ViolationSamples = append(m.ViolationSamples, r.ViolationSamples...)
	}
	if len(m.ViolationSamples) > maxViolationSamples {
		m.ViolationSamples = m.ViolationSamples[:maxViolationSamples]
	}
	return m
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
