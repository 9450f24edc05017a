package lockbench_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/stockade/stockade/cmd/stockade/internal/lockbench"
	"github.com/stockade/stockade/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// small are the standard workloads with fewer goroutines, to keep the test
// short under the race detector.
var small = []lockbench.Workload{
	{Name: "a", Goroutines: 4, Keys: 4},
	{Name: "b", Goroutines: 8, Keys: 1, Hold: time.Millisecond},
	{Name: "c", Goroutines: 3, Keys: 1, Hold: 5 * time.Millisecond},
}

// redisImpls are the implementations that need only Options.Addr, and run
// by default.
var redisImpls = []string{"stockade", "redsync", "bsm", "setnx"}

func TestRunEveryImplementation(t *testing.T) {
	srv := testkit.SharedRedis(t)
	var progress bytes.Buffer
	// With no other server given, the default is the Redis implementations.
	rep, err := lockbench.Run(t.Context(), &lockbench.Options{
		Addr:      srv.Addr(),
		Duration:  300 * time.Millisecond,
		Workloads: small,
		Progress:  &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, rep, redisImpls)
	if rep.Addr != srv.Addr() || rep.RedlockAddrs != nil || rep.Postgres != "" || rep.Etcd != nil {
		t.Errorf("report names servers %q, %q, %q, %q; want only redis %s", rep.Addr, rep.RedlockAddrs, rep.Postgres, rep.Etcd, srv.Addr())
	}

	for _, impl := range redisImpls {
		if !strings.Contains(progress.String(), impl) {
			t.Errorf("progress does not mention %s:\n%s", impl, progress.String())
		}
	}
	checkNoRedisKeys(t, srv.Addr())
}

// TestRunRounds runs two implementations three rounds each, taking turns,
// and checks that each Result is its median round.
func TestRunRounds(t *testing.T) {
	srv := testkit.SharedRedis(t)
	var progress bytes.Buffer
	rep, err := lockbench.Run(t.Context(), &lockbench.Options{
		Addr:      srv.Addr(),
		Duration:  100 * time.Millisecond,
		Rounds:    3,
		Workloads: small[:1],
		Impls:     []string{"stockade", "setnx"},
		Progress:  &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rounds != 3 || len(rep.Results) != 2 {
		t.Fatalf("report: %d rounds, %d results; want 3 rounds, 2 results", rep.Rounds, len(rep.Results))
	}
	for _, r := range rep.Results {
		if len(r.RoundOpsPerSec) != 3 {
			t.Fatalf("%s: %d rounds recorded, want 3", r.Impl, len(r.RoundOpsPerSec))
		}
		sorted := slices.Sorted(slices.Values(r.RoundOpsPerSec))
		if r.OpsPerSec != sorted[1] {
			t.Errorf("%s: ops/s %.0f, want the median of %v", r.Impl, r.OpsPerSec, r.RoundOpsPerSec)
		}
		if r.Ops == 0 || r.Violations != 0 {
			t.Errorf("%s: %d ops, %d violations", r.Impl, r.Ops, r.Violations)
		}
	}
	// The implementations take turns, each round starting one later.
	var order []string
	for _, line := range strings.Split(progress.String(), "\n") {
		if _, rest, ok := strings.Cut(line, "): "); ok {
			order = append(order, strings.Fields(rest)[0])
		}
	}
	if want := []string{"stockade", "setnx", "setnx", "stockade", "stockade", "setnx"}; !slices.Equal(order, want) {
		t.Errorf("ran in order %q, want %q", order, want)
	}
	checkNoRedisKeys(t, srv.Addr())
}

// TestRunOwnServers runs each implementation that needs a server of its
// own, against real servers, and checks that it left nothing behind.
func TestRunOwnServers(t *testing.T) {
	redlockNodes := func(t *testing.T, o *lockbench.Options) func(*testing.T) {
		for range 5 {
			o.RedlockAddrs = append(o.RedlockAddrs, testkit.NewRedis(t).Addr())
		}
		return func(t *testing.T) {
			for _, addr := range o.RedlockAddrs {
				checkNoRedisKeys(t, addr)
			}
		}
	}
	tests := []struct {
		impl string
		// setup starts the servers, sets them in o and returns the
		// check that the run left nothing behind.
		setup func(t *testing.T, o *lockbench.Options) (leftNothing func(t *testing.T))
	}{
		{"redlock", redlockNodes},
		{"redsync5", redlockNodes},
		{"pglock", func(t *testing.T, o *lockbench.Options) func(*testing.T) {
			url, err := testkit.SharedPostgres(t).CreateDatabase(fmt.Sprintf("lockbench_%d", databases.Add(1)))
			if err != nil {
				t.Fatal(err)
			}
			o.PostgresURL = url
			return func(t *testing.T) { checkNoAdvisoryLocks(t, url) }
		}},
		{"etcdlock", func(t *testing.T, o *lockbench.Options) func(*testing.T) {
			o.EtcdEndpoints = []string{testkit.SharedEtcd(t).Endpoint()}
			return func(t *testing.T) { checkNoEtcdKeys(t, o.EtcdEndpoints) }
		}},
	}
	for _, tc := range tests {
		t.Run(tc.impl, func(t *testing.T) {
			o := &lockbench.Options{
				Addr:      "127.0.0.1:1", // never dialled: no Redis implementation runs
				Duration:  time.Second,
				Workloads: small,
				Impls:     []string{tc.impl},
			}
			leftNothing := tc.setup(t, o)
			// A window in which some workload finished no section (eight
			// redlock contenders on five nodes, on a machine busy with the
			// rest of the suite, have finished none in 1 s) is run again,
			// twice as long, up to 8 s: a cell needs sections to be
			// checked at all.
			var rep *lockbench.Report
			for {
				var err error
				if rep, err = lockbench.Run(t.Context(), o); err != nil {
					t.Fatal(err)
				}
				idle := slices.ContainsFunc(rep.Results, func(r lockbench.Result) bool { return r.Ops == 0 })
				if !idle || o.Duration >= 8*time.Second {
					break
				}
				t.Logf("a workload finished no section in %v; running again for %v", o.Duration, 2*o.Duration)
				o.Duration *= 2
			}
			checkResults(t, rep, []string{tc.impl})
			if rep.Addr != "" {
				t.Errorf("report names redis %s, which no implementation used", rep.Addr)
			}
			leftNothing(t)
		})
	}
}

var databases atomic.Int64

// checkResults checks that rep has a valid result for each workload of
// small and each of impls, in run order.
func checkResults(t *testing.T, rep *lockbench.Report, impls []string) {
	t.Helper()
	if got, want := len(rep.Results), len(small)*len(impls); got != want {
		t.Fatalf("%d results, want %d", got, want)
	}
	i := 0
	for _, w := range small {
		for _, impl := range impls {
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
}

// checkNoRedisKeys checks that the Redis server at addr has no key of any
// run.
func checkNoRedisKeys(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	keys, err := c.Keys(t.Context(), "lockbench:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 0 {
		t.Errorf("keys left behind on %s: %q", addr, keys)
	}
}

// checkNoEtcdKeys checks that the etcd cluster has no key of any run.
func checkNoEtcdKeys(t *testing.T, endpoints []string) {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(t.Context(), "lockbench:", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		t.Errorf("key left behind: %q", kv.Key)
	}
}

// checkNoAdvisoryLocks checks that no session holds or waits for an
// advisory lock in the database at url once the run's sessions have ended,
// which the server notices shortly after their connections close.
func checkNoAdvisoryLocks(t *testing.T, url string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	const q = `SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := conn.QueryRow(t.Context(), q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d advisory locks left 10s after the run", n)
		}
		time.Sleep(50 * time.Millisecond)
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
		{"negative rounds", lockbench.Options{Rounds: -1}, "rounds must be positive"},
		{"no goroutines", lockbench.Options{Workloads: []lockbench.Workload{{Name: "x", Keys: 1}}}, "invalid workload"},
		{"no keys", lockbench.Options{Workloads: []lockbench.Workload{{Name: "x", Goroutines: 1}}}, "invalid workload"},
		{"empty workloads", lockbench.Options{Workloads: []lockbench.Workload{}}, "no workloads"},
		{"redlock without nodes", lockbench.Options{Impls: []string{"stockade", "redlock"}}, `implementation "redlock" needs the addresses of its Redis servers (RedlockAddrs)`},
		{"redsync5 without nodes", lockbench.Options{Impls: []string{"redsync5"}}, `implementation "redsync5" needs the addresses of its Redis servers (RedlockAddrs)`},
		{"pglock without database", lockbench.Options{Impls: []string{"pglock"}}, `implementation "pglock" needs a PostgreSQL database (PostgresURL)`},
		{"etcdlock without cluster", lockbench.Options{Impls: []string{"etcdlock"}}, `implementation "etcdlock" needs an etcd cluster (EtcdEndpoints)`},
		{"repeated redlock node", lockbench.Options{RedlockAddrs: []string{"127.0.0.1:2", "127.0.0.1:2"}}, "want distinct, non-empty addresses"},
		{"empty etcd endpoint", lockbench.Options{EtcdEndpoints: []string{""}}, "want non-empty endpoints"},
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

func TestRunUnreachableServer(t *testing.T) {
	tests := []struct {
		name string
		opts lockbench.Options
		want string
	}{
		{"redis", lockbench.Options{Addr: "127.0.0.1:1"}, "redis at 127.0.0.1:1"},
		{"redlock", lockbench.Options{RedlockAddrs: []string{"127.0.0.1:1"}, Impls: []string{"redlock"}}, "redlock node 127.0.0.1:1"},
		{"redsync5", lockbench.Options{RedlockAddrs: []string{"127.0.0.1:1"}, Impls: []string{"redsync5"}}, "redlock node 127.0.0.1:1"},
		{"postgres", lockbench.Options{PostgresURL: "postgres://nobody:secret@127.0.0.1:1/db", Impls: []string{"pglock"}}, "postgres at 127.0.0.1:1/db"},
		{"etcd", lockbench.Options{EtcdEndpoints: []string{"http://127.0.0.1:1"}, Impls: []string{"etcdlock"}}, "etcd at http://127.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // etcd's takes the whole check timeout
			tc.opts.Duration = time.Millisecond
			_, err := lockbench.Run(t.Context(), &tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming the address (%q)", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("err = %v shows the password", err)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestWriteText(t *testing.T) {
	results := []lockbench.Result{
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
	}
	tests := []struct {
		name, golden string
		rep          *lockbench.Report
	}{
		{"redis", "text.golden", &lockbench.Report{
			Addr:      "redis:6379",
			Duration:  time.Second,
			Workloads: lockbench.Workloads()[:2],
			Results:   results,
		}},
		{"rounds", "text_rounds.golden", &lockbench.Report{
			Addr:      "redis:6379",
			Duration:  time.Second,
			Rounds:    3,
			Workloads: lockbench.Workloads()[:1],
			Results: []lockbench.Result{{
				Workload: "a", Impl: "stockade", Ops: 2000, OpsPerSec: 2000, RoundOpsPerSec: []float64{2100, 1500, 2000},
				Wait:     lockbench.Latency{N: 2000, P50: 400 * time.Microsecond, P99: time.Millisecond, Max: 5 * time.Millisecond},
				ShareMin: 0.99, ShareMax: 1.01,
			}},
		}},
		{"every server", "text_servers.golden", &lockbench.Report{
			Addr:         "redis:6379",
			RedlockAddrs: []string{"r1:6379", "r2:6379", "r3:6379"},
			Postgres:     "pg:5432/bench",
			Etcd:         []string{"http://etcd:2379"},
			Duration:     time.Second,
			Workloads:    lockbench.Workloads()[2:],
			Results: []lockbench.Result{{
				Workload: "c", Impl: "pglock", Ops: 190, OpsPerSec: 190, Utilization: 0.95,
				Wait:     lockbench.Latency{N: 190, P50: 35 * time.Millisecond, P99: 40 * time.Millisecond, Max: 41 * time.Millisecond},
				Handoff:  lockbench.Latency{N: 189, P50: 150 * time.Microsecond, P99: 900 * time.Microsecond, Max: 2 * time.Millisecond},
				ShareMin: 0.98, ShareMax: 1.02,
			}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.rep.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.golden)
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
		})
	}
}
