package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

// outbox returns the events after pos, and the last position.
func (en *env) outbox(after stockade.EventPosition) ([]stockade.DomainEvent, stockade.EventPosition) {
	en.t.Helper()
	var evs []stockade.DomainEvent
	err := en.store.View(en.t.Context(), func(tx stockade.Tx) (err error) {
		evs, err = tx.EventList(en.t.Context(), stockade.DomainEventFilter{After: after, Limit: 10000})
		return err
	})
	if err != nil {
		en.t.Fatal(err)
	}
	if len(evs) > 0 {
		after = evs[len(evs)-1].Position
	}
	return evs, after
}

// outboxAtLeast is outbox once at least n events after after are
// readable, or with what is readable after bound. On PostgreSQL an event
// is read once every transaction of the server older than its own has
// ended (see Tx.EventList), and other tests' transactions run on the same
// server: the events a test committed may be late, never lost.
func (en *env) outboxAtLeast(after stockade.EventPosition, n int) ([]stockade.DomainEvent, stockade.EventPosition) {
	en.t.Helper()
	var evs []stockade.DomainEvent
	deadline := time.Now().Add(bound)
	for {
		var more []stockade.DomainEvent
		more, after = en.outbox(after)
		evs = append(evs, more...)
		if len(evs) >= n || time.Now().After(deadline) {
			return evs, after
		}
		time.Sleep(10 * time.Millisecond) // the outbox, polled
	}
}

// TestEvents: each flow writes the events of its change, and only those,
// in the transaction of the change; a refused call writes none.
func TestEvents(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch, engine.Optimistic}, func(t *testing.T, en *env) {
		ctx := sys(t)
		en.location("east", 40.71, -74.01)
		var pos stockade.EventPosition
		step := func(what string, want ...string) {
			t.Helper()
			var evs []stockade.DomainEvent
			evs, pos = en.outboxAtLeast(pos, len(want))
			var got []string
			for _, ev := range evs {
				got = append(got, fmt.Sprintf("%s %s/%d", ev.Type, ev.Aggregate, ev.Version))
				var payload map[string]any
				if err := json.Unmarshal(ev.Payload, &payload); err != nil || !strings.HasPrefix(ev.ID, "evt_") || ev.At.IsZero() {
					t.Errorf("%s: event %+v: payload %v", what, ev, err)
				}
				if id, _ := payload["id"].(string); ev.Aggregate != stockade.AggregateLevel && id != ev.AggregateID {
					t.Errorf("%s: %s of %s carries %s", what, ev.Type, ev.AggregateID, ev.Payload)
				}
			}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("%s: events\n got %v\nwant %v", what, got, want)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		k := stockade.Key{SKU: "widget", Location: "east"}
		two := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}}
		one := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}

		_, err := en.eng.SetStock(ctx, k, 2, nil, nil)
		must(err)
		step("set", "stock.set level/1", "stock.in level/1")
		r, err := en.eng.Reserve(ctx, two, nil)
		must(err)
		step("reserve all", "reservation.held reservation/1", "stock.out level/2")
		_, err = en.eng.Reserve(ctx, one, nil)
		wantCode(t, err, stockade.EInsufficientStock)
		step("refused")
		_, err = en.eng.Release(ctx, r.ID, nil)
		must(err)
		step("release", "stock.in level/3", "reservation.released reservation/2")
		r, err = en.eng.Reserve(ctx, one, nil)
		must(err)
		step("reserve one", "reservation.held reservation/1")
		o, err := en.eng.Confirm(ctx, r.ID, nil)
		must(err)
		step("confirm", "reservation.confirmed reservation/2", "order.committed order/1")
		_, err = en.eng.CancelOrder(ctx, o.ID, nil, nil)
		must(err)
		step("cancel", "order.cancelled order/2")
		o, err = en.eng.Checkout(ctx, two, nil)
		must(err)
		step("checkout all", "order.committed order/1", "stock.out level/7")
		_, err = en.eng.FulfillOrder(ctx, o.ID, nil, nil)
		must(err)
		step("fulfill", "order.shipped order/2", "order.fulfilled order/2")
		_, err = en.eng.AdjustStock(ctx, k, 3, "found", nil)
		must(err)
		step("adjust", "stock.adjusted level/9", "stock.in level/9")
		_, err = en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: two.Lines, TTL: time.Minute}, nil)
		must(err)
		step("reserve to lapse", "reservation.held reservation/1")
		en.clock.Advance(2 * time.Minute)
		n, err := en.eng.Sweep(ctx)
		if err != nil || n != 1 {
			t.Fatalf("Sweep = %d, %v", n, err)
		}
		step("expire", "reservation.expired reservation/2")
		_, err = en.eng.SetStock(ctx, k, 0, nil, nil)
		must(err)
		step("set to zero", "stock.set level/12", "stock.out level/12")
	})
}

// TestEventsPruned: the sweeper prunes events older than the retention,
// in batches, and keeps the others.
func TestEventsPruned(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Atomic, func(o *engine.Options) {
		o.EventRetention = time.Hour
		o.SweepBatch = 2
	})
	ctx := sys(t)
	en.location("east", 40.71, -74.01)
	for i := range 5 {
		if _, err := en.eng.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, int64(i+1), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	en.clock.Advance(2 * time.Hour)
	if _, err := en.eng.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, 10, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := en.eng.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	evs, _ := en.outboxAtLeast(stockade.EventPosition{}, 1)
	if len(evs) != 1 || evs[0].Type != stockade.EventStockSet || evs[0].Version != 6 {
		t.Errorf("after the sweep: %+v, want the last set alone", evs)
	}
}

// TestEventsFromAnotherInstance: a reader waiting on one engine hears of
// the events another engine commits on the same PostgreSQL database at
// once, through the store's signal, not at its next poll: with polls an
// hour apart, each of these events would otherwise wait out the reader's
// 30 s wait, three times as long as the test gives it. The server is the
// test's own: an event is readable only once every older write
// transaction of the server has ended, and other tests' transactions on a
// shared server would hold the events back for as long as they run.
func TestEventsFromAnotherInstance(t *testing.T) {
	t.Parallel()
	stores := openPostgresNOn(t, testkit.NewPostgres(t), 2)
	hourly := func(o *engine.Options) { o.EventPoll = time.Hour }
	reader, writer := newEnvOn(t, stores[0], engine.Atomic, hourly), newEnvOn(t, stores[1], engine.Atomic, hourly)
	writer.location("east", 0, 0)

	ctx, cancel := context.WithTimeout(sys(t), bound)
	defer cancel()
	_, start := reader.outbox(stockade.EventPosition{})
	got := make(chan stockade.DomainEvent)
	go func() {
		cursor := start.Cursor()
		for ctx.Err() == nil {
			page, err := reader.eng.Events(ctx, stockade.DomainEventQuery{Cursor: cursor, Wait: 30 * time.Second})
			if err != nil {
				return
			}
			for _, ev := range page.Events {
				select {
				case got <- ev:
				case <-ctx.Done():
					return
				}
			}
			cursor = page.Next
		}
	}()
	const writes = 20
	for i := range writes {
		lvl, err := writer.eng.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, int64(100+i), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Each write waits for the reader to see the one before, so
		// that the reader is waiting when it commits.
		late := time.NewTimer(10 * time.Second)
		for {
			select {
			case ev := <-got:
				if ev.Type != stockade.EventStockSet || ev.Version != lvl.Version {
					continue // the stock.in of the first write
				}
			case <-late.C:
				t.Fatalf("write %d of %d: the reader did not see its event", i+1, writes)
			}
			break
		}
		late.Stop()
	}
}

// BenchmarkEventLatencyAcrossInstances is how soon a reader waiting on one
// instance gets an event that another instance commits on the same
// PostgreSQL database: from the start of the writing call (an upper bound
// of the time from its commit) to the event in the reader's hands, one
// change at a time. The reader's poll is an hour, so only the store's
// signal wakes it. It reports the p50 and p99 of those times.
//
//	go test -run '^$' -bench EventLatencyAcrossInstances -benchtime 2000x ./engine/
func BenchmarkEventLatencyAcrossInstances(b *testing.B) {
	url := teststore.PostgresURL(b)
	var engines [2]*engine.Engine
	for i := range engines {
		s, err := postgres.Open(sys(b), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		if err := s.Migrate(sys(b)); err != nil {
			b.Fatal(err)
		}
		if engines[i], err = engine.New(s, &engine.Options{EventPoll: time.Hour}); err != nil {
			b.Fatal(err)
		}
	}
	reader, writer := engines[0], engines[1]
	ctx := sys(b)
	if _, err := writer.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		b.Fatal(err)
	}
	k := stockade.Key{SKU: "widget", Location: "east"}
	if _, err := writer.SetStock(ctx, k, 1, nil, nil); err != nil {
		b.Fatal(err)
	}
	page, err := reader.Events(ctx, stockade.DomainEventQuery{Limit: stockade.MaxEventLimit})
	if err != nil {
		b.Fatal(err)
	}
	cursor := page.Next
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := writer.AdjustStock(ctx, k, 1, "bench", nil)
			done <- err
		}()
		page, err := reader.Events(ctx, stockade.DomainEventQuery{Cursor: cursor, Types: []string{stockade.EventStockAdjusted}, Wait: 10 * time.Second})
		if err != nil || len(page.Events) != 1 {
			b.Fatalf("read %d events: %v", len(page.Events), err)
		}
		took = append(took, time.Since(start))
		cursor = page.Next
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}
