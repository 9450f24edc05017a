package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
)

const eventsUsage = `usage: stockade events tail [flags]

Prints the events of a running service (GET /v1/events), one JSON object
per line, oldest first, and waits for more until interrupted. Each line
holds the event and its cursor: start again after it with -after.

"stockade events tail -h" lists the flags.
`

func eventsCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "tail" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(stdout, eventsUsage)
			return nil
		}
		fmt.Fprint(stderr, eventsUsage)
		if len(args) == 0 {
			return errors.New("events: no command given")
		}
		return fmt.Errorf("events: unknown command %q", args[0])
	}
	fs := flag.NewFlagSet("events tail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), eventsUsage+"\nflags:\n")
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	base := env.String("url", "STOCKADE_URL", "http://127.0.0.1:8080", "the service's base `URL`")
	key := env.String("key", "STOCKADE_KEY", "", "an admin's or a reader's API `key`; none for a server started with -open")
	after := fs.String("after", "", "print the events after this `cursor`, or latest for only those that commit from now on (default: from the oldest event kept)")
	types := fs.String("type", "", "comma-separated event `types` to print (default: all)")
	aggregate := fs.String("aggregate", "", "print the events of this `kind` of aggregate only: "+
		strings.Join(stockade.Aggregates, ", ")+" (an "+stockade.AggregateShow+" is a show)")
	aggregateID := fs.String("aggregate-id", "", "with -aggregate: of this one only, such as widget@east or a reservation id")
	if err := env.Parse(args[1:]); err != nil {
		return fmt.Errorf("events tail: %w", err)
	}
	if u, err := url.Parse(*base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("events tail: -url %q: want http://HOST:PORT", redact(*base))
	}
	q := stockade.DomainEventQuery{Cursor: *after, Aggregate: *aggregate, AggregateID: *aggregateID,
		Limit: stockade.MaxEventLimit, Wait: 30 * time.Second}
	if *types != "" {
		q.Types = splitList(*types)
	}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("events tail: %w", err)
	}
	c := httpapi.NewClient(*base, &http.Client{}).WithKey(*key) // each call ends with its wait
	enc := json.NewEncoder(stdout)
	for {
		page, err := c.Events(ctx, q)
		switch {
		case ctx.Err() != nil:
			return nil // interrupted
		case err != nil:
			return fmt.Errorf("events tail: %w", err)
		}
		for _, ev := range page.Events {
			line := struct {
				stockade.DomainEvent
				Cursor string `json:"cursor"`
			}{ev, ev.Position.Cursor()}
			if err := enc.Encode(line); err != nil {
				return fmt.Errorf("events tail: %w", err)
			}
		}
		q.Cursor = page.Next
	}
}
