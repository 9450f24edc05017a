package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// TestFailover fails PostgreSQL over to its synchronous standby under
// load, with one serve instance per strategy, each on a database of its
// own on the same pair of servers and pointed at both hosts with
// target_session_attrs=read-write. The primary's WAL sender is paused for
// longer than the request timeout first, so that commits wait for the
// standby past their deadlines as the primary is killed; then the standby
// is promoted. Every acknowledged order must be on the new primary and a
// retry with its key must return it, every answer during the outage must
// be a 503 (never a 500), each instance must recover by itself, and
// reconcile must find the ledger in balance.
func TestFailover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	release := testkit.Heavy(t)
	instances, standby := failover(t, true, [][]string{
		{"-strategy", engine.Atomic},
		{"-strategy", engine.RowLock},
		{"-strategy", engine.Optimistic},
		{"-strategy", engine.Batch},
		{"-strategy", engine.Lock, "-locker", "postgres"},
	})
	release() // the checks below wait on nothing the load bounds
	for _, in := range instances {
		t.Run(in.name, func(t *testing.T) {
			in.load.check(t)
			settleOrders(t, in.c, failoverStock, in.load.acked, in.load.open, "the failover")
			replayAcked(t, in.c, in.load)
			reconcileClean(t, testkit.MultiHostURL(in.database, standby))
		})
	}
}

// TestFailoverAsync is TestFailover with an asynchronous standby, the
// configuration that docs/reliability.md warns against: the orders
// acknowledged while the standby lagged are lost with the primary. The
// service stays correct otherwise (503s, never 500; recovery by itself; a
// ledger in balance on the new primary), and the test reports the loss.
func TestFailoverAsync(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	release := testkit.Heavy(t)
	instances, standby := failover(t, false, [][]string{{"-strategy", engine.Atomic}})
	release()
	in := instances[0]
	in.load.check(t)
	var lost int
	var kept, open int64 // units
	for i, o := range in.load.acked {
		_, err := in.c.Order(t.Context(), o.ID)
		switch {
		case stockade.ErrorCode(err) == stockade.ENotFound:
			lost++
		case err != nil:
			t.Fatal(err)
		default:
			kept += in.load.ackedKeys[i].q
		}
	}
	for _, o := range in.load.open {
		open += o.q
	}
	st, err := in.c.Stock(t.Context(), "steady")
	if err != nil {
		t.Fatal(err)
	}
	if tot := st.Totals; tot.OnHand != failoverStock || tot.OnHand != tot.Available+tot.Reserved+tot.Committed ||
		tot.Committed < kept || tot.Committed > kept+open {
		t.Fatalf("totals %+v: want on_hand %d in balance, committed from %d (the acknowledged orders kept) to %d (and those unanswered)",
			tot, int64(failoverStock), kept, kept+open)
	}
	reconcileClean(t, testkit.MultiHostURL(in.database, standby))
	t.Logf("%d of %d acknowledged orders lost with the primary; %d were acknowledged in the %v the standby lagged", lost, len(in.load.acked), in.lagged, requestTimeout+answerMargin)
	if lost == 0 {
		t.Fatal("no acknowledged order lost: the standby did not lag, so the test shows nothing")
	}
}

// failoverStock is the units of "steady" that each failover instance
// sells from.
const failoverStock = 1_000_000

// failoverInstance is a serve instance of a failover test.
type failoverInstance struct {
	name     string
	database string
	c        *httpapi.Client
	load     *steadyLoad
	lagged   int // orders acknowledged while the standby lagged
}

// failover starts a primary and a standby of it (synchronous if sync), one
// serve instance per strategy on a database of its own, pointed at both
// servers, and four clients ordering from each. Once each has
// acknowledged orders, it pauses the primary's WAL sender for longer than
// the request timeout, kills the primary, checks that every instance
// reports itself not ready, promotes the standby, and waits until every
// instance is ready and ordering again. It returns the instances, their
// loads stopped, and the new primary.
func failover(t *testing.T, sync bool, strategies [][]string) ([]*failoverInstance, *testkit.Postgres) {
	primary := testkit.NewPostgres(t)
	instances := make([]*failoverInstance, len(strategies))
	for i, args := range strategies {
		instances[i] = &failoverInstance{name: strings.Join(args[1:], "-"), database: "stockade_failover_" + args[1]}
		if _, err := primary.CreateDatabase(instances[i].database); err != nil {
			t.Fatal(err)
		}
	}
	standby := testkit.NewStandby(t, primary, &testkit.StandbyOptions{Synchronous: sync})
	for i, args := range strategies {
		in := instances[i]
		store := testkit.MultiHostURL(in.database, primary, standby)
		p := startProcess(t, append([]string{"-store", store, "-request-timeout", requestTimeout.String()}, args...)...)
		in.c = httpapi.NewClient("http://"+p.addr, httpClient)
		stockUp(t, in.c, "steady", failoverStock)
	}
	// The loads start together, once every instance is up, so that each
	// runs for the same time. Four clients each: five instances share two
	// cores.
	for _, in := range instances {
		in.load = startLoad(t, in.c, 4)
		t.Cleanup(in.load.stop)
	}
	for _, in := range instances {
		in.load.waitAcked(t, 50, 20*time.Second, "before the fault ("+in.name+")")
	}

	// The standby lags: a synchronous one holds the primary's commits
	// past the request timeout, and they are cut off unanswered.
	if err := standby.PauseReplication(); err != nil {
		t.Fatal(err)
	}
	for _, in := range instances {
		in.lagged = in.load.ackedCount()
	}
	time.Sleep(requestTimeout + answerMargin)
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	// The outage counts from the primary's death: the promotion is part
	// of it.
	died := time.Now()
	for _, in := range instances {
		in.lagged = in.load.ackedCount() - in.lagged
		in.load.rec.returned()
	}
	for _, in := range instances {
		notReady(t, in.c)
	}
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	promoted := time.Since(died)
	for _, in := range instances {
		waitReady(t, in.c)
		ordering := in.load.rec.wait(t)
		t.Logf("%s: ordering again %.2f s after the primary died (the promotion took %.2f s); %d orders acknowledged while the standby lagged",
			in.name, ordering.Seconds(), promoted.Seconds(), in.lagged)
	}
	for _, in := range instances {
		in.load.waitAcked(t, 50, 10*time.Second, "after the failover ("+in.name+")")
	}
	for _, in := range instances {
		in.load.stop()
	}
	return instances, standby
}

// replayAcked retries every order that l saw acknowledged with its key,
// eight at a time, and fails the test unless each retry answers the same
// order as a replay.
func replayAcked(t *testing.T, c *httpapi.Client, l *steadyLoad) {
	t.Helper()
	eachConcurrently(t, 8, len(l.acked), func(i int) error {
		o, k := l.acked[i], l.ackedKeys[i]
		idem := &stockade.Idempotency{Key: k.key}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		got, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "steady", Quantity: k.q}}}, idem)
		switch {
		case err != nil:
			return fmt.Errorf("retry of acknowledged order %s (key %s): %w", o.ID, k.key, err)
		case got.ID != o.ID || !idem.Replayed:
			return fmt.Errorf("retry of acknowledged order %s (key %s) answered order %s, replayed %t", o.ID, k.key, got.ID, idem.Replayed)
		}
		return nil
	})
	t.Logf("%d acknowledged orders retried with their keys: each replayed", len(l.acked))
}
