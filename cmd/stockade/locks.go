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

	"github.com/stockade/stockade/cmd/stockade/internal/lockbench"
)

const locksUsage = `usage: stockade locks <subcommand> [flags]

subcommands:
  ls       list the keys held or waited for on the lock servers (-locker)
  show     show one key's holders and waiters
  break    free a stuck key: its leases are lost, its waiters get it
  bench    run lock implementations one after another on three workloads and
           print a table: four on Redis (stockade, redsync, bsm, setnx), and
           redlock, redsync5, pglock and etcdlock when their servers are given

"stockade locks SUBCOMMAND -h" lists its flags.
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
	case "ls", "show", "break":
		return locksInspect(ctx, args[0], args[1:], getenv, stdout, stderr)
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

Runs each lock implementation on each workload for -duration and prints
ops/s, lock utilization, acquire wait, hand-off latency, per-goroutine
share, failures and overlap violations. The Redis implementations share the
server of -redis; redlock and redsync5 run on the servers of -redlock,
pglock on -postgres and etcdlock on -etcd, and by default each runs when
its servers are given. Keys are prefixed "lockbench:<random>:" and deleted
afterwards; nothing is flushed.

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
  redlock   lock/redlock over the -redlock servers: a majority must grant;
            fair queue and hand-off on every node
  redsync5  go-redsync/redsync/v4 over the -redlock servers, a pool each,
            default options as redsync
  pglock    lock/pglock: PostgreSQL advisory locks, waiting in the server's
            lock queue, one pinned pool connection per goroutine
  etcdlock  lock/etcdlock: a queue of keys ordered by revision, woken by a
            watch; TTLs in whole seconds

flags:
`)
		fs.PrintDefaults()
	}
	addr := fs.String("redis", envDefault(getenv, "STOCKADE_REDIS_ADDR", "127.0.0.1:6379"),
		"Redis address (env STOCKADE_REDIS_ADDR)")
	redlockAddrs := fs.String("redlock", getenv("STOCKADE_REDLOCK_ADDRS"),
		"comma-separated `addresses` of the independent Redis servers redlock runs on (env STOCKADE_REDLOCK_ADDRS)")
	// No default from the environment here: -h would print its password.
	postgresURL := fs.String("postgres", "",
		"PostgreSQL connection `URL` pglock runs on (env STOCKADE_POSTGRES_URL)")
	etcdEndpoints := fs.String("etcd", getenv("STOCKADE_ETCD_ENDPOINTS"),
		"comma-separated etcd `endpoints` etcdlock runs on (env STOCKADE_ETCD_ENDPOINTS)")
	duration := fs.Duration("duration", 5*time.Second, "how long each implementation runs each workload, per round")
	rounds := fs.Int("rounds", 1, "how many times each implementation runs each workload, taking turns; the table shows each one's median round")
	workloads := fs.String("workloads", "a,b,c", "comma-separated workloads to run")
	impls := fs.String("impls", "", "comma-separated `implementations` to run, from "+strings.Join(lockbench.Impls(), ",")+
		"\n(default: the four Redis ones, and each of redlock, redsync5, pglock, etcdlock whose servers are given)")
	bsmWait := fs.Duration("bsm-wait", time.Second, "bound on each bsm acquisition (its context deadline)")
	asJSON := fs.Bool("json", false, "print the results as JSON instead of a table")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("locks bench: unexpected arguments %q", fs.Args())
	}
	if !isSet(fs, "postgres") {
		*postgresURL = getenv("STOCKADE_POSTGRES_URL")
	}
	if *duration <= 0 {
		return fmt.Errorf("locks bench: -duration must be positive, got %v", *duration)
	}
	if *rounds < 1 {
		return fmt.Errorf("locks bench: -rounds must be at least 1, got %d", *rounds)
	}
	if *bsmWait <= 0 {
		return fmt.Errorf("locks bench: -bsm-wait must be positive, got %v", *bsmWait)
	}
	ws, err := pickWorkloads(*workloads)
	if err != nil {
		return fmt.Errorf("locks bench: -workloads: %w", err)
	}
	servers := map[string]string{
		"redlock":  *redlockAddrs,
		"redsync5": *redlockAddrs,
		"pglock":   *postgresURL,
		"etcdlock": *etcdEndpoints,
	}
	var is []string // nil: lockbench picks those whose servers are given
	if isSet(fs, "impls") {
		if is, err = pick(*impls, lockbench.Impls(), "implementation"); err != nil {
			return fmt.Errorf("locks bench: -impls: %w", err)
		}
		for _, name := range is {
			if given, ok := servers[name]; ok && given == "" {
				return fmt.Errorf("locks bench: -impls: %s needs %s", name, serverFlag[name])
			}
		}
	}

	rep, err := lockbench.Run(ctx, &lockbench.Options{
		Addr:          *addr,
		RedlockAddrs:  splitList(*redlockAddrs),
		PostgresURL:   *postgresURL,
		EtcdEndpoints: splitList(*etcdEndpoints),
		Duration:      *duration,
		Rounds:        *rounds,
		Workloads:     ws,
		Impls:         is,
		BSMWait:       *bsmWait,
		Progress:      stderr,
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

// serverFlag says how to give the server of each implementation that needs
// one of its own.
var serverFlag = map[string]string{
	"redlock":  "its Redis servers: give -redlock ADDR,ADDR,… or set STOCKADE_REDLOCK_ADDRS",
	"redsync5": "its Redis servers: give -redlock ADDR,ADDR,… or set STOCKADE_REDLOCK_ADDRS",
	"pglock":   "a PostgreSQL database: give -postgres URL or set STOCKADE_POSTGRES_URL",
	"etcdlock": "an etcd cluster: give -etcd ENDPOINT,… or set STOCKADE_ETCD_ENDPOINTS",
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(list string) []string {
	var out []string
	for s := range strings.SplitSeq(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
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
