package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade migrate [flags]

Brings the store's schema up to date and exits. It is safe to run again,
and from several instances at once; serve does it on start as well.

flags:
`)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	store := env.String("store", "STOCKADE_STORE", "sqlite:stockade.db", storeUsage)
	if err := env.Parse(args); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	spec, err := parseStore(*store)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	st, err := openStore(ctx, spec, false)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(stdout, "%s: schema up to date\n", spec)
	return nil
}
