package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/internal/testkit"
)

// TestClusterLeaderLoss: the relay and the command consumer against a
// JetStream cluster of three nodes, their streams on three replicas. Under
// a steady load of writes and of payment outcomes sent on the commands'
// stream, the node that leads the events' stream is killed, and once the
// relay has caught up it is started again; then the same for the node
// that leads the durable consumer. The stream holds every event of the
// outbox once, in order (the duplicate window dropped what was sent again
// across the change of leader), each outcome is applied once (one
// confirmation per payment in the ledger), and the relay's lag is back to
// zero. It logs the relay's lag at its peak, how long after the kill it
// was back to zero, and how long the outcomes took to apply through it.
//
// It runs on PostgreSQL alone: a broker cluster serves instances on
// several machines, which share a PostgreSQL store, and the relay and
// the consumer meet the broker the same way over either store (the
// single-node tests run both).
func TestClusterLeaderLoss(t *testing.T) {
	t.Parallel()
	testLeaderLoss(t, openPostgres(t))
}

func testLeaderLoss(t *testing.T, st stockade.Store) {
	c := testkit.NewNATSCluster(t, nil)
	nc, err := nats.Connect(c.URLs(), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	eng := shop(t, st, 6) // sku-0…4 for the writers, sku-5 for the payments
	const payments = 250
	pays := make([]stockade.Payment, payments)
	for i := range pays {
		r, err := eng.Reserve(sys(t), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "sku-5", Quantity: 1}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pays[i], err = eng.CreatePayment(sys(t), stockade.NewPaymentRequest{
			Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID}, Amount: 990, Currency: "EUR"}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}

	ctx, stop := context.WithCancel(sys(t))
	defer stop()
	var running sync.WaitGroup
	relay := events.New(st, js, &events.Options{Wake: eng.Written, Replicas: 3})
	svc := &timedPayments{Engine: eng, done: map[string]time.Time{}}
	consumer := events.NewConsumer(svc, js, &events.ConsumerOptions{Replicas: 3})
	running.Go(func() { relay.Run(ctx) })
	running.Go(func() { consumer.Run(ctx) })
	lags := sampleLag(ctx, relay, &running)

	// The load: writes at a steady pace, and an outcome every 100 ms.
	load, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	writes := steady(load, eng, 200, 5)
	var (
		sentMu sync.Mutex
		sent   = map[string]time.Time{} // payment id → when its outcome was first sent
	)
	outcomes := make(chan error, 1)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for _, p := range pays {
			select {
			case <-load.Done():
				outcomes <- nil
				return
			case <-tick.C:
			}
			body, _ := json.Marshal(stockade.PaymentOutcome{EventID: "psp-" + p.ID, PaymentID: p.ID, Status: stockade.PaymentSucceeded})
			msg := &nats.Msg{Subject: "stockade.commands." + events.CommandPaymentOutcome, Data: body, Header: nats.Header{}}
			msg.Header.Set(jetstream.MsgIDHeader, "out-"+p.ID)
			sentMu.Lock()
			sent[p.ID] = time.Now()
			sentMu.Unlock()
			// Sent again, under the same message id, until the stream
			// has it, as a payment system does while the stream elects a
			// leader.
			for {
				pub, cancel := context.WithTimeout(ctx, 2*time.Second)
				_, err := js.PublishMsg(pub, msg)
				cancel()
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					outcomes <- err
					return
				}
				time.Sleep(50 * time.Millisecond) // the stream elects a leader
			}
		}
		outcomes <- nil // all sent
	}()

	until(t, "the relay under way and outcomes applied", func() bool { return relay.Published() > 0 && svc.applied() > 10 })
	type round struct {
		what         string
		node         *testkit.NATS
		killed, back time.Time
	}
	var rounds []round
	for _, what := range []string{"the events' stream", "the commands' consumer"} {
		time.Sleep(500 * time.Millisecond) // load before the loss
		var node *testkit.NATS
		if what == "the events' stream" {
			node, err = c.StreamLeader(ctx, "STOCKADE_EVENTS")
		} else {
			node, err = consumerLeader(ctx, c, js)
		}
		if err != nil {
			t.Fatal(err)
		}
		r := round{what: what, node: node}
		before := streamMsgs(ctx, js, "STOCKADE_EVENTS")
		if err := node.Kill(); err != nil {
			t.Fatal(err)
		}
		r.killed = time.Now()
		// Caught up: the stream takes events again, and the relay is
		// no further behind than a busy turn leaves it. JetStream's
		// replicas wait some seconds before they elect a new leader,
		// and the relay's backoff has grown meanwhile.
		deadline := time.Now().Add(60 * time.Second)
		for streamMsgs(ctx, js, "STOCKADE_EVENTS") <= before || relay.Lag() > caughtUp {
			if time.Now().After(deadline) {
				t.Fatalf("the relay has not caught up 60 s after the kill of %s; its lag is %v", node.Name(), relay.Lag())
			}
			time.Sleep(20 * time.Millisecond) // the stream's state, polled
		}
		time.Sleep(500 * time.Millisecond) // load with the node down
		if err := node.Restart(); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitJetStream(); err != nil {
			t.Fatal(err)
		}
		r.back = time.Now()
		rounds = append(rounds, r)
		t.Logf("%s: the leader of %s killed, caught up, and restarted in %v", t.Name(), what, r.back.Sub(r.killed).Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond) // load with every node back
	stopLoad()
	if err := writes(); err != nil {
		t.Fatal(err)
	}
	if err := <-outcomes; err != nil {
		t.Fatal(err)
	}

	// Every event once, in order; every outcome applied once; the lag at
	// zero.
	drained(t, st, js)
	until(t, "the relay's lag back to zero", func() bool { return relay.Lag() == 0 })
	sentMu.Lock()
	defer sentMu.Unlock()
	until(t, "every outcome sent applied", func() bool { return svc.applied() == len(sent) })
	for id := range sent {
		p, err := eng.Payment(sys(t), id)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := eng.PaymentHistory(sys(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != stockade.PaymentSucceeded || p.Resolution != stockade.ResolvedConfirmed || len(hist) != 1 {
			t.Errorf("payment %s: %s/%s, history %+v; want succeeded once, its reservation confirmed", id, p.Status, p.Resolution, hist)
		}
	}
	rep, err := eng.Reconcile(sys(t))
	if err != nil || !rep.OK {
		t.Fatalf("reconcile: %+v, %v", rep, err)
	}
	page, err := eng.Movements(sys(t), stockade.MovementQuery{SKU: "sku-5", Limit: stockade.MaxMovementLimit})
	if err != nil {
		t.Fatal(err)
	}
	confirms := 0
	for _, m := range page.Movements {
		if m.Kind == stockade.MoveConfirm {
			confirms++
		}
	}
	if confirms != len(sent) {
		t.Errorf("%d confirmations of sku-5 in the ledger for %d outcomes; want one each", confirms, len(sent))
	}
	stop()
	running.Wait()

	// What it took, to quote.
	all := make([]time.Duration, 0, len(sent))
	for id, at := range sent {
		all = append(all, svc.done[id].Sub(at))
	}
	slices.Sort(all)
	t.Logf("%s: %d events relayed, %d outcomes applied; an outcome's delay from its first send to its commit: p50 %v, p99 %v, max %v",
		t.Name(), relay.Published(), len(sent), all[len(all)/2].Round(time.Millisecond), all[len(all)*99/100].Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))
	for _, r := range rounds {
		peak, zero := lags.between(r.killed, r.back)
		var worst time.Duration
		for id, at := range sent {
			if !at.Before(r.killed.Add(-time.Second)) && at.Before(r.back) {
				worst = max(worst, svc.done[id].Sub(at))
			}
		}
		t.Logf("%s: the leader of %s (%s) killed: the relay's lag peaked at %v and was under %v again %v after the kill; node back after %v; the slowest outcome sent around the loss took %v",
			t.Name(), r.what, r.node.Name(), peak.Round(time.Millisecond), caughtUp, zero.Round(time.Millisecond), r.back.Sub(r.killed).Round(time.Millisecond), worst.Round(time.Millisecond))
	}
}

// caughtUp is the relay's lag under the test's load when nothing is
// wrong: that of events written during a turn, and waiting for the next.
const caughtUp = 200 * time.Millisecond

func (p *timedPayments) applied() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.done)
}

// lagSamples is the relay's lag, sampled every 10 ms.
type lagSamples struct {
	mu  sync.Mutex
	at  []time.Time
	lag []time.Duration
}

// sampleLag samples relay's lag until ctx ends.
func sampleLag(ctx context.Context, relay *events.Relay, wg *sync.WaitGroup) *lagSamples {
	s := &lagSamples{}
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				s.mu.Lock()
				s.at, s.lag = append(s.at, now), append(s.lag, relay.Lag())
				s.mu.Unlock()
			}
		}
	})
	return s
}

// between returns the peak of the lag from from to to, and how long after
// from the first sample at most caughtUp that follows the peak came.
func (s *lagSamples) between(from, to time.Time) (peak, zero time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.at, func(at time.Time) bool { return !at.Before(from) })
	if i < 0 {
		return 0, 0
	}
	top := i
	for j := i; j < len(s.lag) && s.at[j].Before(to); j++ {
		if s.lag[j] > s.lag[top] {
			top = j
		}
	}
	for j := top; j < len(s.lag); j++ {
		if s.lag[j] <= caughtUp {
			return s.lag[top], s.at[j].Sub(from)
		}
	}
	return s.lag[top], -1
}

// steady makes perSecond writes a second on the SKUs sku-0…skus-1 of eng,
// half of them reservations that it releases, until ctx ends, and returns
// a wait that reports the first failed call.
func steady(ctx context.Context, eng *engine.Engine, perSecond, skus int) func() error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	wg.Go(func() {
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		defer tick.Stop()
		slots := make(chan struct{}, 8) // at most 8 calls at once
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				r, err := eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: fmt.Sprintf("sku-%d", i%skus), Quantity: 1}}}, nil)
				if err == nil && i%2 == 0 {
					_, err = eng.Release(ctx, r.ID, nil)
				}
				if err != nil && ctx.Err() == nil {
					mu.Lock()
					first = cmp(first, err)
					mu.Unlock()
				}
			})
		}
	})
	return func() error {
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return first
	}
}

// cmp returns a if it is set, else b.
func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// streamMsgs returns how many messages the stream holds, or 0 while it
// does not answer.
func streamMsgs(ctx context.Context, js jetstream.JetStream, name string) uint64 {
	info, err := js.Stream(ctx, name)
	if err != nil {
		return 0
	}
	return info.CachedInfo().State.Msgs
}

// consumerLeader returns the node that leads the command consumer's
// replicas.
func consumerLeader(ctx context.Context, c *testkit.NATSCluster, js jetstream.JetStream) (*testkit.NATS, error) {
	for {
		cons, err := js.Consumer(ctx, "STOCKADE_COMMANDS", "stockade")
		if err == nil && cons.CachedInfo().Cluster != nil {
			for _, n := range c.Nodes() {
				if n.Name() == cons.CachedInfo().Cluster.Leader {
					return n, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the leader of the command consumer: %w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond): // it elects one
		}
	}
}
