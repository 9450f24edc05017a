// Command stockade runs the stockade inventory service and its tools.
//
//	stockade serve      run the HTTP API
//	stockade migrate    bring the store's schema up to date
//	stockade reconcile  check the stock levels against the movement ledger
//	stockade keys       create, list and revoke API keys
//	stockade events     events tail: print a running service's events as they commit
//	stockade payments   list the payments that need a person, show one
//	stockade bench      compare the strategies on a workload
//	stockade locks      lock tools: locks ls, locks show and locks break
//	                    inspect and free the keys on the lock servers;
//	                    locks bench compares lock implementations
//	stockade version    print the version, the Go version and the revision
//
// "stockade -h" lists the commands and "stockade <command> -h" the flags
// of one; both print to stdout and exit 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stockade:", err)
		os.Exit(2)
	}
}

const usage = `usage: stockade <command> [flags]

commands:
  serve      run the HTTP API (default store: sqlite:stockade.db)
  migrate    bring the store's schema up to date and exit
  reconcile  recompute the stock levels from the movement ledger and report
             any difference (exit status 2 if there is one); changes nothing
  keys       create, list and revoke the API keys requests authenticate with
  events     "events tail" prints a running service's events as they commit
  payments   "payments stuck" lists the payments that need a person;
             "payments show -id ID" prints one with its history
  bench      run a workload (flash-sale, carts, booking) on each strategy and compare
  locks      lock tools: "locks ls" lists the keys held or waited for on the
             lock servers, "locks show KEY" shows one key's holders and
             waiters, "locks break KEY" frees a stuck key; "locks bench"
             compares lock implementations side by side
  version    print the version, the Go version and the source revision
  help       show this text

"stockade <command> -h" lists a command's flags.
`

// run is the whole program: it parses args (args[0] is the program name),
// reads configuration through getenv, writes to stdout and stderr, and
// returns when the command finishes or ctx is cancelled. A command asked
// for its usage (-h, -help or --help) prints it to stdout and returns nil.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, getenv, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, rest := args[1], args[2:]
	switch cmd {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, rest, getenv, stdout, stderr)
	case "reconcile":
		return reconcile(ctx, rest, getenv, stdout, stderr)
	case "events":
		return eventsCmd(ctx, rest, getenv, stdout, stderr)
	case "keys":
		return keys(ctx, rest, getenv, stdout, stderr)
	case "payments":
		return payments(ctx, rest, getenv, stdout, stderr)
	case "locks":
		return locks(ctx, rest, getenv, stdout, stderr)
	case "bench":
		return benchCmd(ctx, rest, getenv, stdout, stderr)
	case "version":
		return version(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// envDefault returns getenv(name), or def when it is empty.
func envDefault(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
