package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

const keysUsage = `usage: stockade keys <create|list|revoke> [flags]

Manages the API keys that requests to "stockade serve" authenticate with
(Authorization: Bearer <key>). The store keeps only a hash of each key.

  create  -role admin|storefront|reader -name NAME [-rate-limit R]
          make a key and print its secret, alone on stdout; it is not
          shown again
  list    print the keys: id, name, role, rate limit, created, revoked;
          it only reads, and refuses a store that "stockade migrate"
          has not brought to this version's schema (creating no file)
  revoke  -id ID   the key authenticates nothing from then on (a running
          server that used it a moment ago may trust it a few seconds
          more: serve's key cache)

Roles: admin may do everything; storefront reads stock and locations,
makes, reads, confirms and releases its own reservations, and makes, reads
and cancels its own orders; reader reads everything and changes nothing.

"stockade keys <command> -h" lists a command's flags.
`

func keys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, keysUsage)
		return errors.New("keys: no command given")
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("keys "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: stockade keys %s [flags]\n\nflags:\n", cmd)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	store := env.String("store", "STOCKADE_STORE", "sqlite:stockade.db", storeUsage)
	var (
		role, name, id *string
		rateLimit      *float64
	)
	switch cmd {
	case "create":
		role = fs.String("role", "", "the key's `role`: admin, storefront or reader")
		name = fs.String("name", "", "the key's unique `name`, recorded in the ledger rows of its changes")
		rateLimit = fs.Float64("rate-limit", 0, "the key's requests per second; 0 for the server's -rate-limit")
	case "list":
	case "revoke":
		id = fs.String("id", "", "the `id` of the key to revoke (see keys list)")
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, keysUsage)
		return nil
	default:
		fmt.Fprint(stderr, keysUsage)
		return fmt.Errorf("keys: unknown command %q", cmd)
	}
	if err := env.Parse(rest); err != nil {
		return fmt.Errorf("keys %s: %w", cmd, err)
	}
	spec, err := parseStore(*store)
	if err != nil {
		return fmt.Errorf("keys %s: %w", cmd, err)
	}
	// list only reads: as reconcile, it creates no store and migrates
	// none, and refuses one that migrate has not brought to this schema.
	readOnly := cmd == "list"
	st, err := openStore(ctx, spec, readOnly)
	if err != nil {
		return fmt.Errorf("keys %s: %w", cmd, err)
	}
	defer st.Close()
	if !readOnly {
		if err := st.Migrate(ctx); err != nil {
			return fmt.Errorf("keys %s: %w", cmd, err)
		}
	}
	eng, err := engine.New(st, nil)
	if err != nil {
		return fmt.Errorf("keys %s: %w", cmd, err)
	}
	ctx = stockade.WithActor(ctx, stockade.System) // the command line is the service itself
	switch cmd {
	case "create":
		k, secret, err := eng.CreateKey(ctx, stockade.NewKeyRequest{Name: *name, Role: stockade.Role(*role), RateLimit: *rateLimit})
		if err != nil {
			return fmt.Errorf("keys create: %w", err)
		}
		fmt.Fprintln(stdout, secret)
		fmt.Fprintf(stderr, "created %s key %q (%s) in %s; the secret above is not shown again\n", k.Role, k.Name, k.ID, spec)
	case "list":
		return listKeys(ctx, eng, stdout)
	case "revoke":
		k, err := eng.RevokeKey(ctx, *id)
		if err != nil {
			return fmt.Errorf("keys revoke: %w", err)
		}
		fmt.Fprintf(stdout, "revoked %s key %q (%s) at %s\n", k.Role, k.Name, k.ID, k.RevokedAt.Format(time.RFC3339))
	}
	return nil
}

// listKeys prints every key, a page at a time.
func listKeys(ctx context.Context, eng *engine.Engine, stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tROLE\tRATE LIMIT\tCREATED\tREVOKED\t")
	q := stockade.KeyQuery{Limit: stockade.MaxKeyLimit}
	for {
		page, err := eng.Keys(ctx, q)
		if err != nil {
			return fmt.Errorf("keys list: %w", err)
		}
		for _, k := range page.Keys {
			rate, revoked := "default", "-"
			if k.RateLimit > 0 {
				rate = strconv.FormatFloat(k.RateLimit, 'g', -1, 64) + "/s"
			}
			if k.Revoked() {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", k.ID, k.Name, k.Role, rate, k.CreatedAt.Format(time.RFC3339), revoked)
		}
		if page.Next == "" {
			return tw.Flush()
		}
		q.Cursor = page.Next
	}
}
