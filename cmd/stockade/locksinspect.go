package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stockade/stockade/lock"
)

// locksInspect runs "stockade locks ls", "show" and "break": what the
// lock servers hold, read through the backend's lock.Inspector, and a
// stuck key freed through its lock.Breaker.
func locksInspect(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("locks "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	synopsis := map[string]string{
		"ls": `usage: stockade locks ls [flags]

Lists the keys held or waited for on the lock servers, locks, semaphores
and read-write locks, with their holders (fencing token, permits, when
each lease ends) and how many wait.`,
		"show": `usage: stockade locks show [flags] KEY

Shows one key in every kind in which it is held or waited for: each
holder, and the waiters first in line first where the backend names
them. It takes the whole key, not a prefix: "locks ls -prefix" lists the
keys that start with one.`,
		"break": `usage: stockade locks break [flags] KEY

Frees a stuck key: every lease on it is lost, as if it had expired, and
the key goes to its waiters. The next holder's fencing token is larger
than the broken holders', so a resource that checks tokens refuses the
writes of a broken holder that carries on. It prints what it broke.`,
	}[sub]
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nEach flag falls back to the environment variable named in its text.\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	lockerFlag := env.String("locker", "STOCKADE_LOCKER", "", "the lock servers, as serve's -locker: redis://HOST:PORT[/DB], redlock://HOST:PORT,…,\npostgres (the database of -store) or etcd://HOST:PORT[,…]")
	store := env.String("store", "STOCKADE_STORE", "", "with -locker postgres: the store whose database holds the locks")
	namespace := env.String("namespace", "STOCKADE_LOCK_NAMESPACE", "",
		"the `namespace` of the keys, as the Lockers that took them were given it (their Options.Prefix):\nRedis and Redlock put it before each key (default lock:), etcd before each key path\n(default /stockade/lock/), pglock hashes it with each key into the lock id (default lock:);\nempty: the backend's default, which stockade serve uses")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	var prefix *string
	if sub == "ls" {
		prefix = fs.String("prefix", "", "only keys that start with this `prefix`")
	}
	rest, err := env.ParseArgs(args)
	if err != nil {
		return fmt.Errorf("locks %s: %w", sub, err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("locks %s: "+format, append([]any{sub}, args...)...)
	}
	var key string
	switch {
	case sub == "ls" && len(rest) > 0:
		return fail("unexpected arguments %q", rest)
	case sub != "ls" && len(rest) != 1:
		return fail("want one KEY, got %d arguments", len(rest))
	case sub != "ls":
		key = rest[0]
		if err := lock.CheckKey(key); err != nil {
			return fail("%w", err)
		}
	}
	if *lockerFlag == "" {
		return fail("-locker is required: the lock servers to read")
	}
	spec, err := parseLocker(*lockerFlag)
	if err != nil {
		return fail("%w", err)
	}
	spec.namespace = *namespace
	var st storeSpec
	switch {
	case spec.kind == "memory":
		return fail("-locker memory lives inside the serve process that uses it; give the servers of a distributed locker")
	case spec.kind == "postgres" && *store == "":
		return fail("-locker postgres needs -store postgres://…, the database that holds the locks")
	case spec.kind == "postgres":
		if st, err = parseStore(*store); err != nil {
			return fail("%w", err)
		}
	}

	ol, err := openLocker(ctx, spec, st, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return fail("%w", err)
	}
	defer ol.close()
	ins, ok := ol.Locker.(lock.Inspector)
	br, canBreak := ol.Locker.(lock.Breaker)
	if !ok || sub == "break" && !canBreak {
		if spec.kind == "redlock" {
			return fail("the redlock locker cannot be inspected: each node keeps its own copy of a key and its queue, and no node's copy is the lock (a lease is what a majority held when it was granted); see the README's lock inspector")
		}
		return fail("the %s locker cannot be inspected", spec.kind)
	}

	var states []lock.KeyState
	switch sub {
	case "ls":
		states, err = ins.Inspect(ctx, *prefix)
	case "show":
		states, err = ins.InspectKey(ctx, key)
	case "break":
		states, err = br.Break(ctx, key)
	}
	if err != nil {
		return fail("%w", err)
	}
	if *asJSON {
		if states == nil {
			states = []lock.KeyState{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(states)
	}
	if sub != "ls" && len(states) == 0 {
		fmt.Fprintf(stdout, "%s is free\n", key)
		return nil
	}
	if sub == "break" {
		fmt.Fprintf(stdout, "broke %s:\n", key)
	}
	return writeKeyStates(stdout, states, sub != "ls", time.Now())
}

// writeKeyStates prints states as a table, a key a line; with holders,
// a line per holder under each key as well.
func writeKeyStates(w io.Writer, states []lock.KeyState, holders bool, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tKEY\tHOLDERS\tWAITERS\tTOKEN\tEXPIRES IN")
	for _, st := range states {
		kind := string(st.Kind)
		if st.Kind == lock.KindSemaphore {
			kind = fmt.Sprintf("semaphore/%d", st.Limit)
		}
		token, expires := "-", "-"
		if len(st.Holders) > 0 {
			first := st.Holders[0]
			if first.Token != 0 {
				token = fmt.Sprint(first.Token)
			}
			expires = expiresIn(first.ExpiresAt, now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", kind, st.Key, holdersOf(st), st.Waiters, token, expires)
		if !holders {
			continue
		}
		for _, h := range st.Holders {
			fmt.Fprintf(tw, "\t  holder %s\t\t\t%s\t%s\n", holderName(h), tokenOf(h), expiresIn(h.ExpiresAt, now))
		}
		if len(st.WaiterIDs) > 0 {
			fmt.Fprintf(tw, "\t  waiters %s\t\t\t\t\n", strings.Join(st.WaiterIDs, ", "))
		}
	}
	return tw.Flush()
}

// holdersOf summarises who holds st: how many, and what.
func holdersOf(st lock.KeyState) string {
	switch {
	case len(st.Holders) == 0:
		return "none"
	case st.Kind == lock.KindSemaphore:
		n := 0
		for _, h := range st.Holders {
			n += h.Permits
		}
		return fmt.Sprintf("%d (%d permits)", len(st.Holders), n)
	case st.Kind == lock.KindRWLock && st.Holders[0].Shared:
		return fmt.Sprintf("%d readers", len(st.Holders))
	case st.Kind == lock.KindRWLock:
		return "1 writer"
	}
	return "1"
}

func holderName(h lock.Holder) string {
	name := h.ID
	if name == "" {
		name = "(no id)"
	}
	switch {
	case h.Permits > 0:
		return fmt.Sprintf("%s, %d permits", name, h.Permits)
	case h.Shared:
		return name + ", shared"
	}
	return name
}

func tokenOf(h lock.Holder) string {
	if h.Token == 0 {
		return "-"
	}
	return fmt.Sprint(h.Token)
}

// expiresIn is how long until t, or "-" when the backend gave no time.
func expiresIn(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := t.Sub(now).Round(100 * time.Millisecond)
	if d <= 0 {
		return "lapsed"
	}
	return d.String()
}
