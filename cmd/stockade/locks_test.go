package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade/cmd/stockade/internal/lockbench"
	"github.com/stockade/stockade/internal/testkit"
)

func TestLocksBenchPrintsTable(t *testing.T) {
	t.Parallel()
	srv := testkit.SharedRedis(t)
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
		for _, impl := range redisImpls {
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
		ran := strings.Contains(stderr.String(), ": "+impl+" for 100ms")
		if want := slices.Contains(redisImpls, impl); ran != want {
			t.Errorf("%s ran: %v, want %v (no server of its own given); stderr:\n%s", impl, ran, want, stderr.String())
		}
	}
}

// redisImpls are the implementations that run by default with only a
// Redis server.
var redisImpls = []string{"stockade", "redsync", "bsm", "setnx"}

// TestLocksBenchOwnServers gives redlock, redsync5, pglock and etcdlock
// their servers through the environment: then they run by default, after
// the Redis ones.
func TestLocksBenchOwnServers(t *testing.T) {
	t.Parallel()
	var nodes []string
	for range 5 {
		nodes = append(nodes, testkit.NewRedis(t).Addr())
	}
	env := map[string]string{
		"STOCKADE_REDIS_ADDR":     testkit.SharedRedis(t).Addr(),
		"STOCKADE_REDLOCK_ADDRS":  strings.Join(nodes, ","),
		"STOCKADE_POSTGRES_URL":   testkit.SharedPostgres(t).URL(),
		"STOCKADE_ETCD_ENDPOINTS": testkit.SharedEtcd(t).Endpoint(),
	}
	var stdout, stderr bytes.Buffer
	// A second an implementation: each must finish an operation, and on a
	// machine busy with other tests pglock's first one (its connections)
	// has taken longer than a tenth of a second.
	err := run(t.Context(), []string{"stockade", "locks", "bench", "-duration", "1s", "-workloads", "c", "-json"},
		func(k string) string { return env[k] }, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep lockbench.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
	}
	var impls []string
	for _, r := range rep.Results {
		impls = append(impls, r.Impl)
		if r.Ops == 0 || r.Violations != 0 {
			t.Errorf("%s/%s: %d ops, %d violations", r.Workload, r.Impl, r.Ops, r.Violations)
		}
	}
	if !slices.Equal(impls, lockbench.Impls()) {
		t.Errorf("ran %q, want %q", impls, lockbench.Impls())
	}
	if !slices.Equal(rep.RedlockAddrs, nodes) || rep.Postgres == "" || len(rep.Etcd) != 1 {
		t.Errorf("report names redlock %q, postgres %q, etcd %q; want all three", rep.RedlockAddrs, rep.Postgres, rep.Etcd)
	}
}

func TestLocksBenchJSON(t *testing.T) {
	t.Parallel()
	srv := testkit.SharedRedis(t)
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
	t.Parallel()
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
		{"zero rounds", []string{"locks", "bench", "-rounds", "0"}, "-rounds must be at least 1, got 0"},
		{"unknown workload", []string{"locks", "bench", "-workloads", "a,d"}, `-workloads: unknown workload "d" (want some of a,b,c)`},
		{"no workload", []string{"locks", "bench", "-workloads", ","}, "-workloads: no workload given"},
		{"repeated impl", []string{"locks", "bench", "-impls", "bsm,bsm"}, `-impls: implementation "bsm" given twice`},
		{"unknown impl", []string{"locks", "bench", "-impls", "etcd"}, `-impls: unknown implementation "etcd" (want some of stockade,redsync,bsm,setnx,redlock,redsync5,pglock,etcdlock)`},
		{"redlock without servers", []string{"locks", "bench", "-impls", "setnx,redlock"}, "-impls: redlock needs its Redis servers: give -redlock ADDR,ADDR,… or set STOCKADE_REDLOCK_ADDRS"},
		{"redsync5 without servers", []string{"locks", "bench", "-impls", "redsync5"}, "-impls: redsync5 needs its Redis servers: give -redlock ADDR,ADDR,… or set STOCKADE_REDLOCK_ADDRS"},
		{"pglock without database", []string{"locks", "bench", "-impls", "pglock"}, "-impls: pglock needs a PostgreSQL database: give -postgres URL or set STOCKADE_POSTGRES_URL"},
		{"etcdlock without cluster", []string{"locks", "bench", "-impls", "etcdlock"}, "-impls: etcdlock needs an etcd cluster: give -etcd ENDPOINT,… or set STOCKADE_ETCD_ENDPOINTS"},
		{"unreachable redlock node", []string{"locks", "bench", "-redlock", "127.0.0.1:1", "-impls", "redlock", "-duration", "1ms"}, "redlock node 127.0.0.1:1"},
		{"unreachable postgres", []string{"locks", "bench", "-postgres", "postgres://127.0.0.1:1/db", "-impls", "pglock", "-duration", "1ms"}, "postgres at 127.0.0.1:1/db"},
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
