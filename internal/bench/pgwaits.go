package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PGWaits is a Probe that samples PostgreSQL's pg_stat_activity while a
// run's clients run, and records in Result.DBWaits what the database's
// sessions were doing: running, or waiting, and on what. It is how a
// curve's bend is explained from the database's side: a strategy that
// queues on a row lock shows Lock:transactionid, one that waits on
// commits shows the log's waits.
//
// It reads with a connection of its own, every Interval, which costs the
// database one small query each time.
type PGWaits struct {
	// DSN is the database to watch (its sessions only), as pgx takes it.
	DSN string
	// Interval is the time between samples.
	// Default: 10ms.
	Interval time.Duration
	// Top is how many events to name; the rest are summed as "other".
	// Default: 6.
	Top int

	conn    *pgx.Conn
	stop    chan struct{} // closed by End
	done    chan struct{} // closed when the sampler has stopped
	mu      sync.Mutex
	counts  map[string]int
	samples int
	busy    int
	err     error
}

// waitsQuery reads what each of the database's other client sessions is
// doing, if it is inside a statement or a transaction.
const waitsQuery = `
SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
       || CASE WHEN state = 'active' THEN '' ELSE ' (in transaction)' END
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid()
  AND backend_type = 'client backend'
  AND state IN ('active', 'idle in transaction')`

// Begin connects, or connects again if the connection was lost, and
// starts sampling.
func (p *PGWaits) Begin(ctx context.Context) error {
	if p.conn == nil || p.conn.IsClosed() {
		conn, err := connectPostgres(ctx, p.DSN)
		if err != nil {
			return fmt.Errorf("bench: database waits: %w", err)
		}
		p.conn = conn
	}
	p.counts, p.samples, p.busy, p.err = map[string]int{}, 0, 0, nil
	interval := cmp.Or(p.Interval, 10*time.Millisecond)
	// One sample now, so that a query the database refuses fails Begin.
	if err := p.sample(ctx); err != nil {
		return fmt.Errorf("bench: database waits: %w", err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	p.stop, p.done = stop, done
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if err := p.sample(ctx); err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				return
			}
		}
	}()
	return nil
}

// sample reads pg_stat_activity once. End lets a sample in flight finish
// rather than cancel it, since pgx closes a connection whose query is
// cancelled; ctx is the run's, which ends only if the bench is stopped.
func (p *PGWaits) sample(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := p.conn.Query(ctx, waitsQuery)
	if err != nil {
		return err
	}
	events, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.samples++
	p.busy += len(events)
	for _, e := range events {
		p.counts[e]++
	}
	return nil
}

// End stops sampling and records the shares in res.DBWaits.
func (p *PGWaits) End(res *Result) error {
	if p.stop == nil {
		return errors.New("bench: database waits: End without Begin")
	}
	close(p.stop)
	<-p.done
	p.stop = nil
	if p.err != nil {
		return fmt.Errorf("bench: database waits: %w", p.err)
	}
	res.DBWaits = p.summary()
	return nil
}

// Close closes the probe's connection.
func (p *PGWaits) Close(ctx context.Context) error {
	if p.conn == nil {
		return nil
	}
	err := p.conn.Close(ctx)
	p.conn = nil
	return err
}

// summary shares the samples out by event, the Top most first.
func (p *PGWaits) summary() *DBWaits {
	w := &DBWaits{Samples: p.samples, Events: []WaitShare{}}
	if p.samples > 0 {
		w.Busy = float64(p.busy) / float64(p.samples)
	}
	for e, n := range p.counts {
		w.Events = append(w.Events, WaitShare{Event: e, Share: float64(n) / float64(p.busy)})
	}
	slices.SortFunc(w.Events, func(a, b WaitShare) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), cmp.Compare(a.Event, b.Event))
	})
	if top := cmp.Or(p.Top, 6); len(w.Events) > top+1 {
		rest := WaitShare{Event: "other"}
		for _, e := range w.Events[top:] {
			rest.Share += e.Share
		}
		w.Events = append(w.Events[:top], rest)
	}
	return w
}

// connectPostgres opens one connection to the PostgreSQL of dsn, a URL
// as the store takes it. The store's pool settings in it (pool_max_conns
// and the rest of pgxpool's) are the pool's, not the server's: they are
// left out, where pgx.Connect would send them to the server, which
// refuses them.
func connectPostgres(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg.ConnConfig)
}
