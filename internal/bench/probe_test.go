package bench_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stockade/stockade/internal/bench"
	"github.com/stockade/stockade/internal/testkit"
)

// TestPGWaits: a session blocked on another's row lock, and the holder
// idle in its transaction, are what the probe reports, in shares that sum
// to one; a second run starts from nothing.
func TestPGWaits(t *testing.T) {
	t.Parallel()
	url, err := testkit.SharedPostgres(t).CreateDatabase("bench_waits_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	holder, waiter := connect(), connect()
	if _, err := holder.Exec(ctx, `CREATE TABLE t (id int PRIMARY KEY, n int); INSERT INTO t VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE t SET n = n + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, `UPDATE t SET n = n + 1 WHERE id = 1`)
		blocked <- err
	}()

	// The store's URL as serve takes it, with its pool's settings: the
	// probe leaves them out of its own connection.
	p := &bench.PGWaits{DSN: url + "&pool_max_conns=16", Interval: 5 * time.Millisecond}
	defer p.Close(context.Background())
	// Wait until the waiter waits.
	for deadline := time.Now().Add(10 * time.Second); ; {
		res := watch(t, p, 100*time.Millisecond)
		if share(res.DBWaits, "Lock:transactionid") > 0 || time.Now().After(deadline) {
			break
		}
	}
	w := watch(t, p, 200*time.Millisecond).DBWaits
	if w == nil || w.Samples < 5 {
		t.Fatalf("waits %+v: want at least 5 samples in 200ms at 5ms", w)
	}
	// Two sessions busy in every sample: one waiting for the row, one
	// idle inside its transaction.
	if w.Busy < 1.9 || w.Busy > 2.1 {
		t.Errorf("busy %.2f, want 2 (the holder and the waiter): %+v", w.Busy, w.Events)
	}
	if got := share(w, "Lock:transactionid"); got < 0.45 {
		t.Errorf("Lock:transactionid share %.2f, want about half: %+v", got, w.Events)
	}
	if got := share(w, "Client:ClientRead (in transaction)"); got < 0.45 {
		t.Errorf("the holder idle in its transaction: share %.2f, want about half: %+v", got, w.Events)
	}
	var sum float64
	for _, e := range w.Events {
		sum += e.Share
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("shares sum to %v, want 1: %+v", sum, w.Events)
	}

	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	// Nothing busy now: a new run does not carry the old counts.
	if w := watch(t, p, 50*time.Millisecond).DBWaits; w.Busy != 0 || len(w.Events) != 0 {
		t.Errorf("after the commit: %+v, want nothing busy", w)
	}

	// Ending a run while a sample is in flight leaves the connection for
	// the next run: many short runs in a row, sampled all the time.
	fast := &bench.PGWaits{DSN: url, Interval: time.Microsecond}
	defer fast.Close(context.Background())
	for i := range 50 {
		watch(t, fast, time.Duration(i%5)*time.Millisecond)
	}

	bad := &bench.PGWaits{DSN: url[:strings.LastIndex(url, "/")+1] + "no_such_database"}
	if err := bad.Begin(ctx); err == nil || !strings.Contains(err.Error(), "database waits") {
		t.Errorf("Begin on a missing database: %v, want an error naming the probe", err)
	}
}

// watch runs probe over a run of d, and returns what it recorded.
func watch(t *testing.T, probe bench.Probe, d time.Duration) bench.Result {
	t.Helper()
	if err := probe.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	var res bench.Result
	if err := probe.End(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func share(w *bench.DBWaits, event string) float64 {
	if w == nil {
		return 0
	}
	for _, e := range w.Events {
		if e.Event == event {
			return e.Share
		}
	}
	return 0
}

// TestCPUCost: a process that spins, this process spinning, and a query
// that makes PostgreSQL count show up as the CPU of their kind, per
// successful request, within the machine's whole.
func TestCPUCost(t *testing.T) {
	t.Parallel()
	url, err := testkit.SharedPostgres(t).CreateDatabase("bench_cpu_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		spin.Process.Kill()
		spin.Wait()
	}()

	p := &bench.CPUCost{Serve: []int{spin.Process.Pid}, Postgres: url + "&pool_max_conns=16"}
	if err := p.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for x := 0; time.Since(start) < 300*time.Millisecond; x++ { // this process's CPU
		_ = x * x
	}
	if _, err := conn.Exec(t.Context(), `SELECT count(*) FROM generate_series(1, 2000000)`); err != nil {
		t.Fatal(err)
	}
	res := bench.Result{Successes: 1000}
	if err := p.End(&res); err != nil {
		t.Fatal(err)
	}
	use := map[string]bench.CPUUse{}
	for _, u := range res.CPU {
		use[u.Process] = u
	}
	if len(res.CPU) != 4 {
		t.Fatalf("CPU %+v: want bench, serve, postgres and machine", res.CPU)
	}
	// A process that spins gets its share of the machine, and one that
	// only waited would get none. On two cores busy with the rest of the
	// suite the share has been as low as 0.09 core; a few hundredths is
	// what no waiting process reaches.
	for _, name := range []string{"bench", "serve"} {
		if use[name].Cores < 0.02 {
			t.Errorf("%s: %.2f cores, want above 0.02 (it spun): %+v", name, use[name].Cores, res.CPU)
		}
	}
	if use["postgres"].MicrosPerOK <= 0 {
		t.Errorf("postgres: %.0f µs per request after counting 2,000,000 rows, want > 0", use["postgres"].MicrosPerOK)
	}
	parts := use["bench"].Cores + use["serve"].Cores + use["postgres"].Cores
	if m := use["machine"].Cores; m < parts*0.9 {
		t.Errorf("machine %.2f cores, below its parts' %.2f: %+v", m, parts, res.CPU)
	}
	// µs per request = cores × the probe's wall time / 1000 requests, the
	// same wall time for every kind, and at least the 300ms spun.
	wallMs := use["bench"].MicrosPerOK / use["bench"].Cores
	if wallMs < 300 {
		t.Errorf("bench: %v µs per request at %v cores: a wall time of %vms, want ≥ 300", use["bench"].MicrosPerOK, use["bench"].Cores, wallMs)
	}
	for _, u := range res.CPU {
		if got := u.MicrosPerOK / u.Cores; got < wallMs*0.999 || got > wallMs*1.001 {
			t.Errorf("%s: %v µs per request at %v cores: a wall time of %vms, not bench's %vms", u.Process, u.MicrosPerOK, u.Cores, got, wallMs)
		}
	}

	if err := (&bench.CPUCost{}).End(&res); err == nil {
		t.Error("End without Begin: no error")
	}
}

// TestCPUCostOtherPostgres: another PostgreSQL on the machine, which
// worked before the run and stops during it, is not the store's: its
// time, counted at Begin and gone at End, must not make the store's
// PostgreSQL's CPU come out negative.
func TestCPUCostOtherPostgres(t *testing.T) {
	t.Parallel()
	url, err := testkit.SharedPostgres(t).CreateDatabase("bench_cpu_" + strings.ToLower(rand.Text()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	other, err := testkit.StartPostgres(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := pgx.Connect(t.Context(), other.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `SELECT count(*) FROM generate_series(1, 5000000)`); err != nil {
		t.Fatal(err)
	}

	p := &bench.CPUCost{Postgres: url}
	if err := p.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	res := bench.Result{Successes: 1000}
	if err := p.End(&res); err != nil {
		t.Fatal(err)
	}
	for _, u := range res.CPU {
		if u.Process == "postgres" && u.Cores < 0 {
			t.Errorf("postgres: %.2f cores, %.0f µs per request: another server's stop was counted", u.Cores, u.MicrosPerOK)
		}
	}

	nowhere := &bench.CPUCost{Postgres: url[:strings.LastIndex(url, "/")+1] + "no_such_database"}
	if err := nowhere.Begin(t.Context()); err == nil || !strings.Contains(err.Error(), "no_such_database") {
		t.Errorf("Begin on a database that does not exist: %v, want its error", err)
	}
}

// recorder is a Probe that counts its calls and marks each result.
type recorder struct {
	begins, ends int
	failBegin    error
}

func (r *recorder) Begin(context.Context) error {
	if r.failBegin != nil {
		return r.failBegin
	}
	r.begins++
	return nil
}

func (r *recorder) End(res *bench.Result) error {
	r.ends++
	res.CPU = append(res.CPU, bench.CPUUse{Process: "recorded", MicrosPerOK: float64(res.Successes)})
	return nil
}

// TestRunProbes: every probe begins and ends once per run and sees the
// run's successes; a probe that cannot begin fails the run, and the
// probes begun before it are ended.
func TestRunProbes(t *testing.T) {
	t.Parallel()
	first, second := &recorder{}, &recorder{}
	rep, err := bench.Run(t.Context(), &bench.Options{Store: newStore(t), Strategies: []string{"atomic", "batch"},
		Requests: 50, Clients: 4, Probes: []bench.Probe{first, second}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*recorder{first, second} {
		if r.begins != 2 || r.ends != 2 {
			t.Errorf("probe began %d and ended %d times, want 2 each (one per strategy)", r.begins, r.ends)
		}
	}
	for _, res := range rep.Results {
		if len(res.CPU) != 2 || res.CPU[0].MicrosPerOK != float64(res.Successes) || res.Successes == 0 {
			t.Errorf("%s: probes recorded %+v, want two marks of its %d successes", res.Strategy, res.CPU, res.Successes)
		}
	}

	ok, refused := &recorder{}, &recorder{failBegin: errors.New("no such thing")}
	_, err = bench.Run(t.Context(), &bench.Options{Store: newStore(t), Strategies: []string{"atomic"},
		Requests: 10, Probes: []bench.Probe{ok, refused}})
	if err == nil || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("a probe that cannot begin: %v, want its error", err)
	}
	if ok.begins != 1 || ok.ends != 1 {
		t.Errorf("the probe begun before: began %d, ended %d; want 1 and 1", ok.begins, ok.ends)
	}
}
