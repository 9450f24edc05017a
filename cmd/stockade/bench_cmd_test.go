package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/bench"
)

// benchRow is the part of a -json object the tests read.
type benchRow struct {
	Strategy     string         `json:"strategy"`
	Throughput   float64        `json:"throughput"`
	P50Ms        float64        `json:"p50_ms"`
	P99Ms        float64        `json:"p99_ms"`
	MaxMs        float64        `json:"max_ms"`
	Requests     int            `json:"requests"`
	Outcomes     map[string]int `json:"outcomes"`
	InvariantsOK bool           `json:"invariants_ok"`
}

// runBench runs "stockade bench args…" with env and returns its stdout.
func runBench(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), append([]string{"stockade", "bench"}, args...),
		func(k string) string { return env[k] }, &stdout, &stderr)
	if err != nil {
		t.Logf("stderr:\n%s", stderr.String())
	}
	return stdout.String(), err
}

// checkBenchJSON parses -json output and checks each row's numbers.
func checkBenchJSON(t *testing.T, out string, requests int, strategies ...string) {
	t.Helper()
	var rows []benchRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out)
	}
	if len(rows) != len(strategies) {
		t.Fatalf("%d rows, want %d (%s):\n%s", len(rows), len(strategies), strategies, out)
	}
	for i, r := range rows {
		if r.Strategy != strategies[i] {
			t.Errorf("row %d is %q, want %q", i, r.Strategy, strategies[i])
		}
		sum := 0
		for _, n := range r.Outcomes {
			sum += n
		}
		if r.Requests != requests || sum != requests {
			t.Errorf("%s: %d requests, outcomes %v: want %d of each", r.Strategy, r.Requests, r.Outcomes, requests)
		}
		if !(0 < r.P50Ms && r.P50Ms <= r.P99Ms && r.P99Ms <= r.MaxMs) || r.Throughput <= 0 {
			t.Errorf("%s: throughput %v, p50 %v, p99 %v, max %v", r.Strategy, r.Throughput, r.P50Ms, r.P99Ms, r.MaxMs)
		}
		if !r.InvariantsOK {
			t.Errorf("%s: invariants broken", r.Strategy)
		}
	}
}

func TestBenchWorkloadsSQLite(t *testing.T) {
	t.Parallel()
	for _, workload := range []string{"flash-sale", "carts", "booking"} {
		t.Run(workload, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			chart := filepath.Join(dir, "chart.svg")
			// The store comes from the environment, as in production.
			env := map[string]string{"STOCKADE_STORE": "sqlite:" + filepath.Join(dir, "bench.db")}
			out, err := runBench(t, env, "-workload", workload, "-requests", "200", "-clients", "8",
				"-strategies", "atomic,optimistic", "-json", "-chart", chart)
			if err != nil {
				t.Fatal(err)
			}
			checkBenchJSON(t, out, 200, "atomic", "optimistic")
			svg, err := os.ReadFile(chart)
			if err != nil {
				t.Fatal(err)
			}
			checkXML(t, svg, workload, "8 clients", "atomic", "optimistic")
		})
	}
}

func TestBenchOnSaleSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	chart, prof := filepath.Join(dir, "chart.svg"), filepath.Join(dir, "cpu.pprof")
	out, err := runBench(t, nil, "-workload", "onsale", "-store", "sqlite:"+filepath.Join(dir, "bench.db"),
		"-stock", "300", "-requests", "100", "-clients", "4", "-hold-ttl", "1s", "-strategies", "atomic,lock", "-json", "-chart", chart,
		"-cpuprofile", prof)
	if err != nil {
		t.Fatal(err)
	}
	// A profile is gzipped protocol buffers.
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("-cpuprofile wrote %d bytes (%v), want a gzipped profile", len(b), err)
	}
	checkBenchJSON(t, out, 100, "atomic", "lock")
	var rows []struct {
		OnSale struct {
			Seats       int            `json:"seats"`
			Holds       int            `json:"holds"`
			HoldsPerSec float64        `json:"holds_per_sec"`
			SeatsPerSec float64        `json:"seats_per_sec"`
			SeatsLeft   map[string]int `json:"seats_left"`
			Orphans     *int           `json:"orphans"`
		} `json:"onsale"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		on := r.OnSale
		if on.Seats != 300 || on.Holds == 0 || on.HoldsPerSec <= 0 || on.SeatsPerSec <= 0 || on.Orphans == nil ||
			on.SeatsLeft["free"]+on.SeatsLeft["booked"] != 300 {
			t.Errorf("onsale %+v, want 300 seats, holds and seats per second, orphans and the seats left", on)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	checkXML(t, svg, "onsale", "300 seats", "atomic", "lock")
}

// TestBenchWaitingRoomSQLite runs the waiting-room workload with its
// flags: a small crowd in front of a small event, whose room counts one
// seat per visitor so that it sells out, without the baseline.
func TestBenchWaitingRoomSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := runBench(t, nil, "-workload", "waiting-room", "-store", "sqlite:"+filepath.Join(dir, "bench.db"), "-strategies", "batch",
		"-stock", "60", "-visitors", "200", "-ramp", "500ms", "-room-active", "20", "-room-rate", "1200", "-room-per-visitor", "1",
		"-room-ttl", "2s", "-room-baseline=false", "-hold-ttl", "1s", "-duration", "2m", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []bench.Result
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(rows) != 1 || rows[0].Room == nil || rows[0].OnSale == nil {
		t.Fatalf("rows %+v: want one with the room's and the event's figures", rows)
	}
	r, rm := rows[0], rows[0].Room
	if !r.InvariantsOK || rm.Visitors != 200 || rm.Joined+rm.TurnedAway != 200 || rm.JoinsPerSec <= 0 || rm.Holds == 0 ||
		rm.HoldP99Ms <= 0 || rm.End != bench.RoomEndSoldOut || rm.SellOutSec <= 0 || rm.Baseline != nil || r.OnSale.Seats != 60 {
		t.Errorf("result %+v, room %+v: want 200 visitors, their joins and holds, the event of 60 seats sold out, no baseline, invariants ok", r, rm)
	}
}

// TestBenchURLOnSale sells an event of a running service's over HTTP,
// its own sweeper freeing the holds left to expire.
func TestBenchURLOnSale(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "serve.db"), "-sweep-interval", "200ms")
	out, err := runBench(t, nil, "-url", "http://"+s.addr, "-workload", "onsale", "-stock", "200", "-requests", "100",
		"-clients", "4", "-hold-ttl", "1s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"workload onsale", "200 seats", "\nservice at http://" + s.addr, "checked the seats through Seats and Event only", "seats left:"} {
		if !strings.Contains(out, want) {
			t.Errorf("table does not say %q:\n%s", want, out)
		}
	}
}

// checkXML checks that data is well-formed XML whose text says each of
// want.
func checkXML(t *testing.T, data []byte, want ...string) {
	t.Helper()
	var text strings.Builder
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not valid XML: %v\n%s", err, data)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	for _, w := range want {
		if !strings.Contains(text.String(), w) {
			t.Errorf("chart does not say %q:\n%s", w, text.String())
		}
	}
}

func TestBenchDefaultStoreTable(t *testing.T) {
	t.Parallel()
	out, err := runBench(t, nil, "-requests", "100", "-clients", "4", "-strategies", "lock,advisory")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"workload flash-sale", "sqlite (temporary file)", "p99 ms", "\nlock ", "\nadvisory ",
		"advisory: runs as (fallback: serialized write transactions", "reconcile ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("table does not say %q:\n%s", want, out)
		}
	}
}

func TestBenchPostgresAllStrategies(t *testing.T) {
	t.Parallel()
	out, err := runBench(t, nil, "-store", newDatabase(t), "-requests", "100", "-clients", "8", "-json")
	if err != nil {
		t.Fatal(err)
	}
	checkBenchJSON(t, out, 100, engine.Strategies()...)
}

// TestBenchProbes: -cpu-cost and -db-waits add each run's CPU per
// request and the database's waits, to the JSON and to the table's notes.
func TestBenchProbes(t *testing.T) {
	t.Parallel()
	store := newDatabase(t)
	out, err := runBench(t, nil, "-store", store, "-strategies", "atomic,batch", "-requests", "400", "-clients", "8", "-json", "-cpu-cost", "-db-waits")
	if err != nil {
		t.Fatal(err)
	}
	checkProbed(t, out, "bench", "postgres", "machine")
	out, err = runBench(t, nil, "-store", store, "-strategies", "rowlock", "-requests", "200", "-clients", "8", "-cpu-cost", "-db-waits")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rowlock: CPU per successful request: bench ", "rowlock: database sessions busy "} {
		if !strings.Contains(out, want) {
			t.Errorf("table's notes lack %q:\n%s", want, out)
		}
	}
}

func TestBenchURL(t *testing.T) {
	t.Parallel()
	store := "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
	s := startServe(t, nil, "-open=false", "-store", store)
	if _, err := runBench(t, nil, "-url", "http://"+s.addr, "-workload", "carts", "-requests", "10"); err == nil ||
		!strings.Contains(err.Error(), stockade.EUnauthenticated) {
		t.Fatalf("bench without a key: %v, want %s", err, stockade.EUnauthenticated)
	}
	secret, _, err := keysRun(t, "create", "-store", store, "-role", "admin", "-name", "bench", "-rate-limit", "100000")
	if err != nil {
		t.Fatal(err)
	}
	out, err := runBench(t, map[string]string{"STOCKADE_KEY": strings.TrimSpace(secret)}, "-url", "http://"+s.addr, "-workload", "carts", "-requests", "100", "-clients", "4")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"service at http://" + s.addr, "not available over HTTP", "\nservice at "} {
		if !strings.Contains(out, want) {
			t.Errorf("table does not say %q:\n%s", want, out)
		}
	}
}

func TestBenchRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"workload", []string{"-workload", "auction"}, nil, `unknown -workload "auction"`},
		{"strategy", []string{"-strategies", "atomic,magic"}, nil, `unknown strategy "magic"`},
		{"no strategies", []string{"-strategies", ","}, nil, "-strategies: none given"},
		{"clients", []string{"-clients", "0"}, nil, "-clients must be at least 1"},
		{"duration", []string{"-duration", "-1s"}, nil, "-duration must be positive"},
		{"requests", []string{"-requests", "0"}, nil, "-requests must be positive"},
		{"both", []string{"-requests", "10", "-duration", "1s"}, nil, "not both"},
		{"store", []string{"-store", "mysql://x"}, nil, "unsupported -store"},
		{"store env", nil, map[string]string{"STOCKADE_STORE": "redis://x"}, "unsupported -store"},
		{"url", []string{"-url", "localhost:8080"}, nil, "want http://HOST:PORT"},
		{"url strategies", []string{"-url", "http://127.0.0.1:1", "-strategies", "atomic"}, nil, "-strategies does not apply with -url"},
		{"url store", []string{"-url", "http://127.0.0.1:1", "-store", "sqlite:x.db"}, nil, "-store does not apply with -url"},
		{"key without url", []string{"-key", "stk_x"}, nil, "-key goes with -url"},
		{"ttl", []string{"-hold-ttl", "1500ms"}, nil, "-hold-ttl must be whole seconds"},
		{"onsale seats", []string{"-workload", "onsale", "-stock", "1"}, nil, "-stock is onsale's seats"},
		{"onsale too many seats", []string{"-workload", "onsale", "-stock", "100001"}, nil, "-stock is onsale's seats"},
		{"waiting-room seats", []string{"-workload", "waiting-room", "-stock", "1"}, nil, "-stock is waiting-room's seats"},
		{"visitors workload", []string{"-visitors", "10"}, nil, "-visitors is the waiting-room workload's"},
		{"ramp workload", []string{"-workload", "onsale", "-ramp", "1s"}, nil, "-ramp is the waiting-room workload's"},
		{"room-active workload", []string{"-workload", "carts", "-room-active", "10"}, nil, "-room-active is the waiting-room workload's"},
		{"room-rate workload", []string{"-room-rate", "10"}, nil, "-room-rate is the waiting-room workload's"},
		{"room-per-visitor workload", []string{"-room-per-visitor", "2"}, nil, "-room-per-visitor is the waiting-room workload's"},
		{"room-ttl workload", []string{"-room-ttl", "2s"}, nil, "-room-ttl is the waiting-room workload's"},
		{"room-baseline workload", []string{"-workload", "onsale", "-room-baseline=false"}, nil, "-room-baseline is the waiting-room workload's"},
		{"waiting-room url", []string{"-workload", "waiting-room", "-url", "http://127.0.0.1:1"}, nil, "-url does not apply to waiting-room"},
		{"waiting-room instances", []string{"-workload", "waiting-room", "-instances", "2", "-store", "postgres://x"}, nil, "-instances does not apply to waiting-room"},
		{"waiting-room clients", []string{"-workload", "waiting-room", "-clients", "8"}, nil, "-clients does not apply to waiting-room"},
		{"waiting-room requests", []string{"-workload", "waiting-room", "-requests", "8"}, nil, "-requests does not apply to waiting-room"},
		{"waiting-room stages", []string{"-workload", "waiting-room", "-stages", "1s:5"}, nil, "-stages does not apply to waiting-room"},
		{"waiting-room rate", []string{"-workload", "waiting-room", "-rate", "5"}, nil, "-rate does not apply to waiting-room"},
		{"visitors range", []string{"-workload", "waiting-room", "-visitors", "0"}, nil, "-visitors must be between 1 and 1000000"},
		{"ramp range", []string{"-workload", "waiting-room", "-ramp", "0s"}, nil, "-ramp must be positive"},
		{"ramp and duration", []string{"-workload", "waiting-room", "-ramp", "10s", "-duration", "5s"}, nil, "-ramp (10s) must be shorter than -duration (5s)"},
		{"room-active range", []string{"-workload", "waiting-room", "-room-active", "0"}, nil, "-room-active must be between 1 and"},
		{"room-rate range", []string{"-workload", "waiting-room", "-room-rate", "1000001"}, nil, "-room-rate must be between 1 and"},
		{"room-per-visitor range", []string{"-workload", "waiting-room", "-room-per-visitor", "101"}, nil, "-room-per-visitor must be between 1 and"},
		{"room-ttl seconds", []string{"-workload", "waiting-room", "-room-ttl", "1500ms"}, nil, "-room-ttl must be whole seconds"},
		{"cpuprofile", []string{"-cpuprofile", filepath.Join("no", "such", "dir", "cpu.pprof")}, nil, "bench: -cpuprofile:"},
		{"stages syntax", []string{"-stages", "10s"}, nil, "-stages: stage \"10s\": want DURATION:TARGET"},
		{"stages and duration", []string{"-stages", "1s:5", "-duration", "1s"}, nil, "give no -duration or -requests"},
		{"stages and rate", []string{"-stages", "1s:5", "-rate", "10"}, nil, "give -rate or -stages, not both"},
		{"stages and clients", []string{"-stages", "1s:5", "-clients", "8"}, nil, "-clients does not apply with -stages"},
		{"arrival without stages", []string{"-arrival-rate"}, nil, "-arrival-rate goes with -stages"},
		{"rate", []string{"-rate", "0"}, nil, "-rate must be above 0"},
		{"rate and requests", []string{"-rate", "10", "-requests", "5"}, nil, "give no -requests with it"},
		{"threshold", []string{"-threshold", "p95<fast"}, nil, "not a duration"},
		{"threshold metric", []string{"-threshold", "speed>5"}, nil, "unknown metric \"speed\""},
		{"clients list", []string{"-clients", "1,x"}, nil, `-clients: "x" is not a whole number`},
		{"clients in list", []string{"-clients", "4,0"}, nil, "-clients must be at least 1, got 0"},
		{"skus workload", []string{"-skus", "10"}, nil, "-skus is the carts workload's"},
		{"skus range", []string{"-workload", "carts", "-skus", "100001"}, nil, "-skus must be at most 100000"},
		{"two sweeps", []string{"-workload", "carts", "-skus", "1,2", "-clients", "1,2"}, nil, "sweep -clients or -skus, not both"},
		{"sweep timeline", []string{"-clients", "1,2", "-timeline-chart", "x.svg"}, nil, "-timeline-chart draws one run"},
		{"instances store", []string{"-instances", "2"}, nil, "-instances needs -store postgres://"},
		{"instances url", []string{"-instances", "2", "-url", "http://127.0.0.1:1"}, nil, "-instances starts its own services"},
		{"instances sweep", []string{"-instances", "1,2", "-clients", "1,2", "-store", "postgres://x"}, nil, "sweep -instances or -clients, not both"},
		{"serve-bin alone", []string{"-serve-bin", "x"}, nil, "-serve-bin and -locker go with -instances"},
		{"db-waits sqlite", []string{"-db-waits", "-store", "sqlite:x.db"}, nil, "-db-waits reads PostgreSQL's pg_stat_activity"},
		{"db-waits url", []string{"-db-waits", "-url", "http://127.0.0.1:1"}, nil, "-db-waits reads PostgreSQL's pg_stat_activity"},
		{"url list", []string{"-url", "http://127.0.0.1:1,localhost:2"}, nil, `-url "localhost:2": want http://HOST:PORT`},
		{"argument", []string{"extra"}, nil, "unexpected arguments"},
		{"flag", []string{"-nope"}, nil, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), append([]string{"stockade", "bench"}, tc.args...),
				func(k string) string { return tc.env[k] }, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestBenchStagesAndThresholds: a staged run prints its timeline and its
// thresholds; a missed one makes the command fail, naming it, after the
// results are printed.
func TestBenchStagesAndThresholds(t *testing.T) {
	t.Parallel()
	out, err := runBench(t, nil, "-strategies", "atomic", "-stages", "1s:2,1s:4", "-threshold", "errors<1%", "-threshold", "throughput>1e12")
	if err == nil || !strings.Contains(err.Error(), "threshold missed: atomic: throughput>1e12") {
		t.Fatalf("err %v: want the missed threshold named", err)
	}
	for _, want := range []string{"4 clients, stages of clients 1s:2,1s:4 each", "atomic, second by second:", "second  clients  req/s",
		"ok     atomic: errors<1%, was 0.00%", "MISSED atomic: throughput>1e12, was "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runBench(t, nil, "-strategies", "atomic", "-rate", "100", "-clients", "2", "-duration", "1s", "-json", "-threshold", "p99<1h")
	if err != nil {
		t.Fatal(err)
	}
	var results []bench.Result
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(results) != 1 || len(results[0].Timeline) == 0 || len(results[0].Thresholds) != 1 || !results[0].Thresholds[0].OK {
		t.Fatalf("results %+v: want a timeline and the threshold kept", results)
	}
}

// checkSweepRows checks a sweep's -json output: every row kept its
// invariants and sent requests requests, and the rows are, in order,
// want: "<swept value> <strategy>" each, comma-separated, the value from
// the field named swept.
func checkSweepRows(t *testing.T, out, swept string, requests int, want string) {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, r := range rows {
		if r["invariants_ok"] != true || r["requests"] != float64(requests) {
			t.Errorf("row %s %v: invariants_ok %v, requests %v; want true and %d", r["strategy"], r[swept], r["invariants_ok"], r["requests"], requests)
		}
		got = append(got, fmt.Sprintf("%v %v", r[swept], r["strategy"]))
	}
	if strings.Join(got, ", ") != want {
		t.Errorf("rows %s, want %s", strings.Join(got, ", "), want)
	}
}

// checkProbed checks that every row of a -json output has the CPU of
// each of processes, in that order, some of it spent, and the database's
// waits, sampled.
func checkProbed(t *testing.T, out string, processes ...string) {
	t.Helper()
	var rows []bench.Result
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	for _, r := range rows {
		var got []string
		for _, u := range r.CPU {
			got = append(got, u.Process)
			if u.Cores <= 0 || u.MicrosPerOK <= 0 {
				t.Errorf("%s: %s used %v cores, %v µs per request; want some", r.Strategy, u.Process, u.Cores, u.MicrosPerOK)
			}
		}
		if strings.Join(got, ",") != strings.Join(processes, ",") {
			t.Errorf("%s: CPU of %v, want %v", r.Strategy, got, processes)
		}
		if r.DBWaits == nil || r.DBWaits.Samples == 0 || r.DBWaits.Busy <= 0 {
			t.Errorf("%s: database waits %+v, want samples with sessions busy", r.Strategy, r.DBWaits)
		}
	}
}

// TestBenchSweep: -clients with a list runs every point and writes one
// JSON object per point and strategy, and the sweep's chart.
func TestBenchSweep(t *testing.T) {
	t.Parallel()
	chart := filepath.Join(t.TempDir(), "sweep.svg")
	out, err := runBench(t, nil, "-strategies", "atomic,batch", "-clients", "1,3", "-requests", "60", "-json", "-chart", chart)
	if err != nil {
		t.Fatal(err)
	}
	checkSweepRows(t, out, "clients", 60, "1 atomic, 1 batch, 3 atomic, 3 batch")
	data, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	checkXML(t, data, "throughput and p99 by clients", "atomic", "batch")
}

// TestBenchInstances: -instances starts serve processes on one
// PostgreSQL for each strategy, drives them together, and stops them;
// each point keeps its invariants. The lock strategy is refused without a
// locker the processes share.
func TestBenchInstances(t *testing.T) {
	t.Parallel()
	store := newDatabase(t)
	out, err := runBench(t, nil, "-store", store, "-serve-bin", binary(t), "-instances", "1,2", "-strategies", "atomic,batch",
		"-workload", "carts", "-requests", "300", "-clients", "8", "-json", "-cpu-cost", "-db-waits")
	if err != nil {
		t.Fatal(err)
	}
	checkSweepRows(t, out, "instances", 300, "1 atomic, 1 batch, 2 atomic, 2 batch")
	checkProbed(t, out, "bench", "serve", "postgres", "machine")
	reconcileClean(t, store)

	_, err = runBench(t, nil, "-store", store, "-serve-bin", binary(t), "-instances", "2", "-strategies", "lock", "-requests", "10")
	if err == nil || !strings.Contains(err.Error(), "needs a -locker the instances share") {
		t.Errorf("lock without a shared locker: %v", err)
	}
}
