package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// errUnbalanced is returned by reconcile when the ledger and the levels
// disagree; the report says where.
var errUnbalanced = errors.New("the stock levels do not match the movement ledger or the reservation and order records")

func reconcile(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reconcile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade reconcile [flags]

Recomputes every stock level's on-hand, reserved and committed quantities
from the movement ledger, in one consistent snapshot, and compares them
with the levels. It prints one line per level that does not balance and
exits non-zero if there is any.

It only reads: it does not create a missing SQLite file, and it refuses,
with a non-zero exit, a database that "stockade migrate" has not brought
to this version's schema.

flags:
`)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	store := env.String("store", "STOCKADE_STORE", "sqlite:stockade.db", storeUsage)
	if err := env.Parse(args); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	spec, err := parseStore(*store)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	st, err := openStore(ctx, spec, true)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	defer st.Close()
	eng, err := engine.New(st, nil)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	ctx = stockade.WithActor(ctx, stockade.System) // the command line is the service itself
	rep, err := eng.Reconcile(ctx)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if rep.OK {
		fmt.Fprintf(stdout, "%s: %d levels, all match the ledger and the records; %d shows, all match their seat history\n", spec, rep.Levels, rep.Shows)
		return nil
	}
	if len(rep.Mismatches) > 0 {
		fmt.Fprintf(stdout, "%s: %d of %d levels do not match the ledger or the records\n\n", spec, len(rep.Mismatches), rep.Levels)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SKU\tLOCATION\tON HAND\tRESERVED\tCOMMITTED\tLEDGER ON HAND\tLEDGER RESERVED\tLEDGER COMMITTED\tHELD BY RESERVATIONS\tCOMMITTED BY ORDERS\t")
		for _, m := range rep.Mismatches {
			c := fmt.Sprintf("%d\t%d\t%d", m.Counters.OnHand, m.Counters.Reserved, m.Counters.Committed)
			if m.Missing {
				c = "(no level)\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", m.SKU, m.Location, c,
				m.Ledger.OnHand, m.Ledger.Reserved, m.Ledger.Committed, m.Records.Reserved, m.Records.Committed)
		}
		tw.Flush()
	}
	if len(rep.ShowMismatches) > 0 {
		if len(rep.Mismatches) > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s: %d seats or areas of %d shows do not match their seat history\n\n", spec, len(rep.ShowMismatches), rep.Shows)
		for _, m := range rep.ShowMismatches {
			fmt.Fprintln(stdout, m)
		}
	}
	what := fmt.Sprintf("%d of %d levels", len(rep.Mismatches), rep.Levels)
	if len(rep.ShowMismatches) > 0 {
		what += fmt.Sprintf(", %d seats or areas of %d shows", len(rep.ShowMismatches), rep.Shows)
	}
	return fmt.Errorf("reconcile: %w (%s)", errUnbalanced, what)
}
