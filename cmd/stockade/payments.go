package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

const paymentsUsage = `usage: stockade payments <stuck|show> [flags]

Reads the payments of the store; changes nothing. As reconcile, it
creates no missing SQLite file and refuses a database that "stockade
migrate" has not brought to this version's schema.

  stuck   list the payments that need a person: those still in flight
          (processing or authorized) after their hold's grace period,
          whose hold is kept until an outcome or a person settles them,
          and those that succeeded after their hold lapsed with the stock
          or seats gone (needs_refund)
  show    -id ID   print a payment and every change of it

"stockade payments <command> -h" lists a command's flags.
`

func payments(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, paymentsUsage)
		return errors.New("payments: no command given")
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("payments "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: stockade payments %s [flags]\n\nflags:\n", cmd)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	store := env.String("store", "STOCKADE_STORE", "sqlite:stockade.db", storeUsage)
	asJSON := fs.Bool("json", false, "print JSON (one object per payment for stuck) instead of a table")
	var id *string
	switch cmd {
	case "stuck":
	case "show":
		id = fs.String("id", "", "the payment's `id`")
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, paymentsUsage)
		return nil
	default:
		fmt.Fprint(stderr, paymentsUsage)
		return fmt.Errorf("payments: unknown command %q", cmd)
	}
	if err := env.Parse(rest); err != nil {
		return fmt.Errorf("payments %s: %w", cmd, err)
	}
	spec, err := parseStore(*store)
	if err != nil {
		return fmt.Errorf("payments %s: %w", cmd, err)
	}
	st, err := openStore(ctx, spec, true)
	if err != nil {
		return fmt.Errorf("payments %s: %w", cmd, err)
	}
	defer st.Close()
	eng, err := engine.New(st, nil)
	if err != nil {
		return fmt.Errorf("payments %s: %w", cmd, err)
	}
	ctx = stockade.WithActor(ctx, stockade.System) // the command line is the service itself
	if cmd == "show" {
		return showPayment(ctx, eng, *id, *asJSON, stdout)
	}
	return stuckPayments(ctx, eng, *asJSON, stdout, stderr)
}

// stuckPayments prints the payments that need a person: the stuck ones,
// then those that need a refund, each list newest first.
func stuckPayments(ctx context.Context, eng *engine.Engine, asJSON bool, stdout, stderr io.Writer) error {
	var all []stockade.Payment
	for _, q := range []stockade.PaymentQuery{{Stuck: true}, {Resolution: string(stockade.ResolvedNeedsRefund)}} {
		q.Limit = stockade.MaxListLimit
		for {
			page, err := eng.Payments(ctx, q)
			if err != nil {
				return fmt.Errorf("payments stuck: %w", err)
			}
			all = append(all, page.Payments...)
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		for _, p := range all {
			if err := enc.Encode(p); err != nil {
				return err
			}
		}
		return nil
	}
	if len(all) == 0 {
		fmt.Fprintln(stderr, "no payment needs a person")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNEEDS\tSTATUS\tTARGET\tAMOUNT\tSINCE\t")
	for _, p := range all {
		needs, since := "an outcome or a person (stuck)", p.StuckAt
		if p.Resolution == stockade.ResolvedNeedsRefund {
			needs, since = "a refund", p.UpdatedAt
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", p.ID, needs, p.Status, p.Target, amount(p), since.Format(time.RFC3339))
	}
	return tw.Flush()
}

// showPayment prints the payment id and its history.
func showPayment(ctx context.Context, eng *engine.Engine, id string, asJSON bool, stdout io.Writer) error {
	p, err := eng.Payment(ctx, id)
	if err != nil {
		return fmt.Errorf("payments show: %w", err)
	}
	hist, err := eng.PaymentHistory(ctx, id)
	if err != nil {
		return fmt.Errorf("payments show: %w", err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			stockade.Payment
			History []stockade.PaymentChange `json:"history"`
		}{p, hist})
	}
	fmt.Fprintf(stdout, "payment %s of %s: %s, %s", p.ID, p.Target, amount(p), p.Status)
	if p.Resolution != stockade.Unresolved {
		fmt.Fprintf(stdout, ", %s", p.Resolution)
	}
	if p.Order != "" {
		fmt.Fprintf(stdout, " (order %s)", p.Order)
	}
	if p.Booking != "" {
		fmt.Fprintf(stdout, " (booking %s)", p.Booking)
	}
	if p.Stuck() {
		fmt.Fprintf(stdout, "; stuck since %s", p.StuckAt.Format(time.RFC3339))
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AT\tFROM\tTO\tRESOLUTION\tBY\tWHY\t")
	for _, c := range hist {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.At.Format(time.RFC3339), c.From, c.To, orDash(string(c.Resolution)), orDash(c.Actor), orDash(c.Reason))
	}
	return tw.Flush()
}

// amount is p's amount in its currency's minor units, as "1250 EUR".
func amount(p stockade.Payment) string { return fmt.Sprintf("%d %s", p.Amount, p.Currency) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
