package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stockade/stockade/internal/lockbench"
	"github.com/stockade/stockade/internal/testserver"
)

func TestMain(m *testing.M) { os.Exit(testserver.Main(m)) }

func TestLocksBenchPrintsTable(t *testing.T) {
	srv := testserver.SharedRedis(t)
	// The address comes from the environment, as in production.
	env := map[string]string{"STOCKADE_REDIS_ADDR": srv.Addr()}
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"stockade", "locks", "bench", "-duration", "100ms", "-workloads", "a,c"},
		func(k string) string { return env[k] }, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}

	out := stdout.String()
	if !strings.Contains(out, "redis "+srv.Addr()) {
		t.Errorf("table does not name the Redis server %s:\n%s", srv.Addr(), out)
	}
	for _, w := range []string{"a", "c"} {
		for _, impl := range lockbench.Impls() {
			row := regexp.MustCompile(`(?m)^` + w + `\s+` + impl + `\s+\d+\s+\S+(\s+\S+){6}\s+\S+×/\S+×\s+\d+\s+0$`)
			if !row.MatchString(out) {
				t.Errorf("no row for workload %s, %s with 0 violations:\n%s", w, impl, out)
			}
		}
	}
	if strings.Contains(out, "\nb ") {
		t.Errorf("workload b ran though not asked for:\n%s", out)
	}
	for _, impl := range lockbench.Impls() {
		if !strings.Contains(stderr.String(), ": "+impl+" for 100ms") {
			t.Errorf("no progress line for %s on stderr:\n%s", impl, stderr.String())
		}
	}
}

func TestLocksBenchJSON(t *testing.T) {
	srv := testserver.SharedRedis(t)
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"stockade", "locks", "bench", "-redis", srv.Addr(), "-duration", "100ms",
		"-workloads", "c", "-impls", "setnx,stockade", "-json"},
		func(string) string { return "" }, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep lockbench.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
	}
	var cells []string
	for _, r := range rep.Results {
		cells = append(cells, r.Workload+"/"+r.Impl)
		if r.Ops == 0 || r.Violations != 0 {
			t.Errorf("%s/%s: %d ops, %d violations", r.Workload, r.Impl, r.Ops, r.Violations)
		}
	}
	if got, want := strings.Join(cells, " "), "c/setnx c/stockade"; got != want {
		t.Errorf("cells %q, want %q", got, want)
	}
}

func TestLocksRefusesBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"locks"}, "locks: no subcommand given"},
		{"unknown subcommand", []string{"locks", "frob"}, `locks: unknown subcommand "frob"`},
		{"unknown flag", []string{"locks", "bench", "-nope"}, "flag provided but not defined: -nope"},
		{"bad duration", []string{"locks", "bench", "-duration", "soon"}, `invalid value "soon" for flag -duration`},
		{"zero duration", []string{"locks", "bench", "-duration", "0s"}, "-duration must be positive, got 0s"},
		{"unknown workload", []string{"locks", "bench", "-workloads", "a,d"}, `-workloads: unknown workload "d" (want some of a,b,c)`},
		{"no workload", []string{"locks", "bench", "-workloads", ","}, "-workloads: no workload given"},
		{"repeated impl", []string{"locks", "bench", "-impls", "bsm,bsm"}, `-impls: implementation "bsm" given twice`},
		{"unknown impl", []string{"locks", "bench", "-impls", "etcd"}, `-impls: unknown implementation "etcd" (want some of stockade,redsync,bsm,setnx)`},
		{"extra argument", []string{"locks", "bench", "now"}, `unexpected arguments ["now"]`},
		{"unreachable redis", []string{"locks", "bench", "-redis", "127.0.0.1:1", "-duration", "1ms"}, "redis at 127.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), append([]string{"stockade"}, tc.args...), func(string) string { return "" }, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Fatalf("err = %v, stderr %q; want %q", err, stderr.String(), tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout not empty: %q", stdout.String())
			}
		})
	}
}
