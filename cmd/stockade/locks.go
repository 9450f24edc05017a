package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade/internal/lockbench"
)

const locksUsage = `usage: stockade locks <subcommand> [flags]

subcommands:
  bench    run four Redis lock implementations (stockade, redsync, bsm, setnx)
           one after another on three workloads and print a table

"stockade locks bench -h" lists its flags.
`

// locks runs the distributed-lock tools.
func locks(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, locksUsage)
		return errors.New("locks: no subcommand given")
	}
	switch args[0] {
	case "bench":
		return locksBench(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, locksUsage)
		return nil
	default:
		fmt.Fprint(stderr, locksUsage)
		return fmt.Errorf("locks: unknown subcommand %q", args[0])
	}
}

func locksBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("locks bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade locks bench [flags]

Runs each lock implementation on each workload for -duration against one
Redis server and prints ops/s, lock utilization, acquire wait, hand-off
latency, per-goroutine share, failures and overlap violations. Keys are
prefixed "lockbench:<random>:" and deleted afterwards; nothing is flushed.

workloads:
`)
		for _, w := range lockbench.Workloads() {
			fmt.Fprintf(fs.Output(), "  %s  %v\n", w.Name, w)
		}
		fmt.Fprint(fs.Output(), `
implementations:
  stockade  lock/redislock: FIFO queue, hand-off in the release script, pub/sub
            wake-up; waits until the run ends
  redsync   go-redsync/redsync/v4, default options: 8s expiry, 32 tries,
            random 50-250ms between tries
  bsm       bsm/redislock: retry every 50ms, each wait bounded by -bsm-wait
  setnx     SET key token NX PX ttl, sleep 50ms and retry until the run ends;
            release with a Lua compare-and-DEL

flags:
`)
		fs.PrintDefaults()
	}
	addr := fs.String("redis", envDefault(getenv, "STOCKADE_REDIS_ADDR", "127.0.0.1:6379"),
		"Redis address (env STOCKADE_REDIS_ADDR)")
	duration := fs.Duration("duration", 5*time.Second, "how long each implementation runs each workload")
	workloads := fs.String("workloads", "a,b,c", "comma-separated workloads to run")
	impls := fs.String("impls", strings.Join(lockbench.Impls(), ","), "comma-separated implementations to run")
	bsmWait := fs.Duration("bsm-wait", time.Second, "bound on each bsm acquisition (its context deadline)")
	asJSON := fs.Bool("json", false, "print the results as JSON instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("locks bench: unexpected arguments %q", fs.Args())
	}
	if *duration <= 0 {
		return fmt.Errorf("locks bench: -duration must be positive, got %v", *duration)
	}
	if *bsmWait <= 0 {
		return fmt.Errorf("locks bench: -bsm-wait must be positive, got %v", *bsmWait)
	}
	ws, err := pickWorkloads(*workloads)
	if err != nil {
		return fmt.Errorf("locks bench: -workloads: %w", err)
	}
	is, err := pick(*impls, lockbench.Impls(), "implementation")
	if err != nil {
		return fmt.Errorf("locks bench: -impls: %w", err)
	}

	rep, err := lockbench.Run(ctx, &lockbench.Options{
		Addr:      *addr,
		Duration:  *duration,
		Workloads: ws,
		Impls:     is,
		BSMWait:   *bsmWait,
		Progress:  stderr,
	})
	if err != nil {
		return fmt.Errorf("locks bench: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(stdout)
}

func pickWorkloads(list string) ([]lockbench.Workload, error) {
	all := lockbench.Workloads()
	names := make([]string, len(all))
	for i, w := range all {
		names[i] = w.Name
	}
	picked, err := pick(list, names, "workload")
	if err != nil {
		return nil, err
	}
	var ws []lockbench.Workload
	for _, name := range picked {
		ws = append(ws, all[slices.Index(names, name)])
	}
	return ws, nil
}

// pick splits a comma-separated list and checks each name against known.
func pick(list string, known []string, what string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			continue
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("unknown %s %q (want some of %s)", what, name, strings.Join(known, ","))
		case slices.Contains(out, name):
			return nil, fmt.Errorf("%s %q given twice", what, name)
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s given (want some of %s)", what, strings.Join(known, ","))
	}
	return out, nil
}
