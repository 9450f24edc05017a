package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// sys returns tb's context carrying the service's own actor, as every
// call to the engine needs one.
func sys(tb testing.TB) context.Context { return stockade.WithActor(tb.Context(), stockade.System) }

func openPostgres(t testing.TB) stockade.Store {
	return teststore.OpenPostgres(t, &postgres.Options{MaxConns: 32})
}

func openSQLite(t testing.TB) stockade.Store { return teststore.OpenSQLite(t, nil) }

// broker connects to a private NATS server that keeps trying while it is
// down.
func broker(t testing.TB) (*testkit.NATS, jetstream.JetStream) {
	t.Helper()
	n := testkit.NewNATS(t)
	nc, err := nats.Connect(n.URL(), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return n, js
}

// shop is an engine on st with stock of n SKUs at one location.
func shop(t testing.TB, st stockade.Store, n int) *engine.Engine {
	t.Helper()
	eng, err := engine.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := sys(t)
	if _, err := eng.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := eng.SetStock(ctx, stockade.Key{SKU: fmt.Sprintf("sku-%d", i), Location: "east"}, 1_000_000, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	return eng
}

// busy runs writers goroutines, each reserving and releasing on the SKUs
// of shop for as long as ctx lives, and returns a wait that reports the
// first failed call.
func busy(ctx context.Context, eng *engine.Engine, writers, skus int) func() error {
	var (
		wg    sync.WaitGroup
		first atomic.Pointer[error]
	)
	for w := range writers {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				sku := fmt.Sprintf("sku-%d", (w+i)%skus)
				r, err := eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: sku, Quantity: 1}}}, nil)
				if err == nil && i%2 == 0 {
					_, err = eng.Release(ctx, r.ID, nil)
				}
				if err != nil && ctx.Err() == nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	return func() error {
		wg.Wait()
		if err := first.Load(); err != nil {
			return *err
		}
		return nil
	}
}

// outbox returns every event of st, in position order.
func outbox(t *testing.T, st stockade.Store) []stockade.DomainEvent {
	t.Helper()
	var all []stockade.DomainEvent
	for after := (stockade.EventPosition{}); ; {
		var evs []stockade.DomainEvent
		err := st.View(t.Context(), func(tx stockade.Tx) (err error) {
			evs, err = tx.EventList(t.Context(), stockade.DomainEventFilter{After: after, Limit: 1000})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return all
		}
		all, after = append(all, evs...), evs[len(evs)-1].Position
	}
}

// published returns the events in the relay's stream, in stream order.
func published(t *testing.T, js jetstream.JetStream) []stockade.DomainEvent {
	t.Helper()
	s, err := js.Stream(sys(t), "STOCKADE_EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(sys(t))
	if err != nil {
		t.Fatal(err)
	}
	var evs []stockade.DomainEvent
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		msg, err := s.GetMsg(sys(t), seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		var ev stockade.DomainEvent
		if err := json.Unmarshal(msg.Data, &ev); err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		if got := msg.Header.Get(jetstream.MsgIDHeader); got != ev.ID {
			t.Errorf("message %d: Nats-Msg-Id %q, event %q", seq, got, ev.ID)
		}
		if want := "stockade.events." + ev.Aggregate + "." + ev.Type; msg.Subject != want {
			t.Errorf("message %d: subject %q, want %q", seq, msg.Subject, want)
		}
		evs = append(evs, ev)
	}
	return evs
}

// drained waits until the stream holds as many messages as st has
// events, and checks that it holds each event once, in position order.
// The outbox is read again at each poll, before the stream: a writer's
// transaction that its caller gave up on at its deadline may still
// commit after the writers have returned, and the relay publish it
// between the two reads. A stream that holds more than the outbox for
// 60 s fails.
func drained(t *testing.T, st stockade.Store, js jetstream.JetStream) {
	t.Helper()
	var want, got []stockade.DomainEvent
	deadline := time.Now().Add(60 * time.Second)
	for {
		want = outbox(t, st)
		var msgs uint64
		s, err := js.Stream(sys(t), "STOCKADE_EVENTS")
		if err == nil {
			if info, err := s.Info(sys(t)); err == nil {
				msgs = info.State.Msgs
			}
		}
		if msgs == uint64(len(want)) {
			if got = published(t, js); len(got) == len(want) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream holds %d events, the outbox %d, after 60 s", msgs, len(want))
		}
		time.Sleep(50 * time.Millisecond) // the broker's state, polled: it has no notification of it
	}
	versions := map[string]int64{}
	for i := range got {
		if got[i].ID != want[i].ID {
			t.Fatalf("message %d is event %s, the outbox's %d-th is %s", i+1, got[i].ID, i+1, want[i].ID)
		}
		agg := got[i].Aggregate + " " + got[i].AggregateID
		if got[i].Version < versions[agg] {
			t.Errorf("%s: version %d after %d", agg, got[i].Version, versions[agg])
		}
		versions[agg] = got[i].Version
	}
}

// TestRelay: many writers while two relays run on one database; the
// stream gets every event once, in position order, in order per
// aggregate, and the two relays took turns (neither published what the
// other did).
func TestRelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		open    func(t testing.TB) stockade.Store
		writers int
	}{
		{"postgres", openPostgres, 50},
		{"sqlite", openSQLite, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, js := broker(t)
			st := tc.open(t)
			eng := shop(t, st, 5)
			ctx, stop := context.WithCancel(sys(t))
			var relays sync.WaitGroup
			a := events.New(st, js, &events.Options{Wake: eng.Written, Batch: 64})
			b := events.New(st, js, &events.Options{Wake: eng.Written, Batch: 64})
			relays.Go(func() { a.Run(ctx) })
			relays.Go(func() { b.Run(ctx) })
			wctx, stopWriters := context.WithTimeout(ctx, 3*time.Second)
			err := busy(wctx, eng, tc.writers, 5)()
			stopWriters()
			if err != nil {
				t.Fatal(err)
			}
			drained(t, st, js)
			stop()
			relays.Wait()
			// Compared with the stream, which the broker keeps free of
			// duplicates, once the relays have stopped: the outbox may
			// still grow after that, by a transaction that its writer
			// gave up on at its deadline and the database committed
			// all the same.
			if n, in := a.Published()+b.Published(), len(published(t, js)); tc.name == "postgres" && n != int64(in) {
				t.Errorf("the relays published %d+%d events, the stream holds %d: they did not take turns", a.Published(), b.Published(), in)
			}
		})
	}
}

// TestRelayBrokerDown: the broker stops for 10 s under load; no request
// fails because of it, and once it is back the backlog drains, in order,
// nothing lost and nothing twice.
func TestRelayBrokerDown(t *testing.T) {
	t.Parallel()
	n, js := broker(t)
	st := openPostgres(t)
	eng := shop(t, st, 5)
	ctx, stop := context.WithCancel(sys(t))
	defer stop()
	relay := events.New(st, js, &events.Options{Wake: eng.Written})
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	wctx, stopWriters := context.WithCancel(ctx)
	wait := busy(wctx, eng, 16, 5)
	for relay.Published() == 0 {
		time.Sleep(10 * time.Millisecond) // until the relay is under way
	}
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	down := relay.Published()
	time.Sleep(10 * time.Second) // the outage
	if lag := relay.Lag(); lag < 5*time.Second {
		t.Errorf("after 10 s without the broker, the relay's lag is %v", lag)
	}
	if relay.Published() > down+512 { // at most a batch that was acknowledged as the broker stopped
		t.Errorf("the relay counted %d events published while the broker was down", relay.Published()-down)
	}
	if err := n.Restart(); err != nil {
		t.Fatal(err)
	}
	stopWriters()
	if err := wait(); err != nil {
		t.Fatalf("a request failed while the broker was down: %v", err)
	}
	drained(t, st, js)
	stop()
	<-done
}

// TestRelayGap: when the broker refuses a message in the middle of a
// batch (here, one larger than the stream allows), it stores none of the
// batch's later ones, and once the message fits, the stream holds the
// outbox in order with nothing skipped.
func TestRelayGap(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	st := openSQLite(t)
	eng := shop(t, st, 20)
	ctx := sys(t)
	// Reservations of one line, but the second of twenty: its held event
	// is the only one larger than the stream below allows.
	for _, lines := range []int{1, 20, 1, 1} {
		req := stockade.ReserveRequest{}
		for i := range lines {
			req.Lines = append(req.Lines, stockade.Line{SKU: fmt.Sprintf("sku-%d", i), Quantity: 1})
		}
		if _, err := eng.Reserve(ctx, req, nil); err != nil {
			t.Fatal(err)
		}
	}
	all := outbox(t, st)
	cfg := jetstream.StreamConfig{
		Name:       "STOCKADE_EVENTS",
		Subjects:   []string{"stockade.events.>"},
		MaxMsgSize: 1500,
	}
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	relay := events.New(st, js, nil)
	if n, err := relay.Once(ctx); err == nil {
		t.Fatalf("Once with a message the stream refuses = %d, nil; want an error", n)
	}
	got := published(t, js)
	large := slices.IndexFunc(all, func(ev stockade.DomainEvent) bool {
		return ev.Type == stockade.EventReservationHeld && len(ev.Payload) > int(cfg.MaxMsgSize)
	})
	if large < 0 || large == len(all)-1 {
		t.Fatalf("no event larger than %d bytes with events after it", cfg.MaxMsgSize)
	}
	if len(got) != large {
		t.Fatalf("the stream holds %d events, want the %d before the refused one", len(got), large)
	}
	cfg.MaxMsgSize = 0
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if n, err := relay.Once(ctx); err != nil || n != len(all) {
		t.Fatalf("Once after the stream takes it = %d, %v; want %d", n, err, len(all))
	}
	drained(t, st, js)
}

// TestRelayPublishesAgain: a batch published again, as after a process
// that died between the broker's acknowledgement and the checkpoint, is
// dropped by the broker: the stream holds each event once.
func TestRelayPublishesAgain(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	st := openSQLite(t)
	eng := shop(t, st, 2)
	relay := events.New(st, js, nil)
	if _, err := relay.Once(sys(t)); err == nil {
		t.Fatal("Once before the stream exists: no error") // Run creates the stream
	}
	ctx, stop := context.WithCancel(sys(t))
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	drained(t, st, js)
	stop()
	<-done
	// The checkpoint goes back to the start: every event is sent again.
	if err := st.Update(t.Context(), func(tx stockade.Tx) error {
		return tx.RelaySetPosition(t.Context(), "nats", stockade.EventPosition{})
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := relay.Once(sys(t)); err != nil || n != len(outbox(t, st)) {
		t.Fatalf("Once again = %d, %v; want every event sent again", n, err)
	}
	if _, err := eng.AdjustStock(sys(t), stockade.Key{SKU: "sku-0", Location: "east"}, 1, "found", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := relay.Once(sys(t)); err != nil {
		t.Fatal(err)
	}
	drained(t, st, js)
}
