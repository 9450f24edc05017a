package lockbench_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/lockbench"
	"github.com/stockade/stockade/internal/testserver"
)

func TestMain(m *testing.M) { os.Exit(testserver.Main(m)) }

// small are the standard workloads with fewer goroutines, to keep the test
// short under the race detector.
var small = []lockbench.Workload{
	{Name: "a", Goroutines: 4, Keys: 4},
	{Name: "b", Goroutines: 8, Keys: 1, Hold: time.Millisecond},
	{Name: "c", Goroutines: 3, Keys: 1, Hold: 5 * time.Millisecond},
}

func TestRunEveryImplementation(t *testing.T) {
	srv := testserver.SharedRedis(t)
	var progress bytes.Buffer
	rep, err := lockbench.Run(t.Context(), &lockbench.Options{
		Addr:      srv.Addr(),
		Duration:  300 * time.Millisecond,
		Workloads: small,
		Progress:  &progress,
	})
	if err != nil {
		t.Fatal(err)
	}

	if got, want := len(rep.Results), len(small)*len(lockbench.Impls()); got != want {
		t.Fatalf("%d results, want %d", got, want)
	}
	i := 0
	for _, w := range small {
		for _, impl := range lockbench.Impls() {
			r := rep.Results[i]
			i++
			t.Run(w.Name+"/"+impl, func(t *testing.T) {
				if r.Workload != w.Name || r.Impl != impl {
					t.Fatalf("result %s/%s, want %s/%s", r.Workload, r.Impl, w.Name, impl)
				}
				checkResult(t, w, r)
			})
		}
	}

	for _, impl := range lockbench.Impls() {
		if !strings.Contains(progress.String(), impl) {
			t.Errorf("progress does not mention %s:\n%s", impl, progress.String())
		}
	}

	// Every key the run made is gone.
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	keys, err := c.Keys(t.Context(), "lockbench:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 0 {
		t.Errorf("keys left behind: %q", keys)
	}
}

// checkResult checks the invariants of one cell, none of them about speed.
func checkResult(t *testing.T, w lockbench.Workload, r lockbench.Result) {
	t.Helper()
	if r.Ops <= 0 {
		t.Errorf("no completed critical sections")
	}
	if r.Violations != 0 {
		t.Errorf("%d overlap violations: %v", r.Violations, r.ViolationSamples)
	}
	if r.ReleaseErrors != 0 {
		t.Errorf("%d release errors, first: %s", r.ReleaseErrors, r.ReleaseErrorSample)
	}
	if r.OpsPerSec <= 0 || r.Elapsed <= 0 {
		t.Errorf("ops/s %v over %v", r.OpsPerSec, r.Elapsed)
	}
	if r.Utilization < 0 || r.Utilization > 1 {
		t.Errorf("utilization %v outside [0, 1]", r.Utilization)
	}
	if w.Hold > 0 {
		// Every section sleeps Hold, so the lock was held at least that
		// long in total.
		if floor := float64(r.Ops) * w.Hold.Seconds() / r.Elapsed.Seconds() / float64(w.Keys); r.Utilization < floor*0.999 {
			t.Errorf("utilization %v below %d sections × %v / %v", r.Utilization, r.Ops, w.Hold, r.Elapsed)
		}
	}
	checkLatency(t, "acquire wait", r.Wait)
	if r.Wait.N != r.Ops {
		t.Errorf("%d waits for %d sections", r.Wait.N, r.Ops)
	}
	checkLatency(t, "hand-off", r.Handoff)
	if r.Handoff.N >= r.Ops {
		t.Errorf("%d hand-offs for %d sections: the first section of a key cannot be one", r.Handoff.N, r.Ops)
	}
	if w.Keys == w.Goroutines && r.Handoff.N != 0 {
		t.Errorf("%d hand-offs with one goroutine per key", r.Handoff.N)
	}
	if !(r.ShareMin <= 1 && 1 <= r.ShareMax) || r.ShareMin < 0 {
		t.Errorf("shares %v/%v do not bracket 1", r.ShareMin, r.ShareMax)
	}
	if r.Failures > 0 && r.FailureSample == "" {
		t.Errorf("%d failures without a sample error", r.Failures)
	}
}

func checkLatency(t *testing.T, name string, l lockbench.Latency) {
	t.Helper()
	if l.N < 0 || l.P50 < 0 || !(l.P50 <= l.P99 && l.P99 <= l.Max) {
		t.Errorf("%s: want 0 ≤ p50 ≤ p99 ≤ max, got %+v", name, l)
	}
	if l.N == 0 && l.Max != 0 {
		t.Errorf("%s: no samples but max %v", name, l.Max)
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts lockbench.Options
		want string
	}{
		{"unknown impl", lockbench.Options{Impls: []string{"zookeeper"}}, `unknown implementation "zookeeper"`},
		{"negative duration", lockbench.Options{Duration: -time.Second}, "duration must be positive"},
		{"no goroutines", lockbench.Options{Workloads: []lockbench.Workload{{Name: "x", Keys: 1}}}, "invalid workload"},
		{"no keys", lockbench.Options{Workloads: []lockbench.Workload{{Name: "x", Goroutines: 1}}}, "invalid workload"},
		{"empty workloads", lockbench.Options{Workloads: []lockbench.Workload{}}, "no workloads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The address is never dialled: options are checked first.
			tc.opts.Addr = "127.0.0.1:1"
			_, err := lockbench.Run(t.Context(), &tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRunUnreachableRedis(t *testing.T) {
	_, err := lockbench.Run(t.Context(), &lockbench.Options{Addr: "127.0.0.1:1", Duration: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "redis at 127.0.0.1:1") {
		t.Fatalf("err = %v, want one naming the address", err)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestWriteText(t *testing.T) {
	rep := &lockbench.Report{
		Addr:      "redis:6379",
		Duration:  time.Second,
		Workloads: lockbench.Workloads()[:2],
		Results: []lockbench.Result{
			{
				Workload: "a", Impl: "setnx", Ops: 1234, OpsPerSec: 1234,
				Wait:     lockbench.Latency{N: 3, P50: 250 * time.Microsecond, P99: 2 * time.Millisecond, Max: 3 * time.Millisecond},
				ShareMin: 0.5, ShareMax: 1.5,
			},
			{
				Workload: "b", Impl: "redsync", Ops: 99, OpsPerSec: 99, Utilization: 0.25,
				Wait:     lockbench.Latency{N: 3, P50: 40 * time.Millisecond, P99: 1500 * time.Millisecond, Max: 12 * time.Second},
				Handoff:  lockbench.Latency{N: 2, P50: 30 * time.Millisecond, P99: 90 * time.Millisecond, Max: 90 * time.Millisecond},
				ShareMin: 0, ShareMax: 3,
				Failures: 2, FailureSample: "redsync: failed to acquire lock",
				ReleaseErrors: 1, ReleaseErrorSample: "lockbench: release found the lock no longer held",
				Violations: 11, ViolationSamples: []lockbench.Violation{{Key: "k0", Goroutine: 3, Holder: 5, At: time.Second}},
			},
		},
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "text.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteText output differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", golden, got, want)
	}
}
