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
	"github.com/stockade/stockade/events"
)

// BenchmarkRelay is the relay's throughput: b.N events in the outbox,
// then turns until the broker has acknowledged every one, on each store.
// It reports events/s.
//
//	go test -run '^$' -bench Relay -benchtime 20000x ./events/
func BenchmarkRelay(b *testing.B) {
	for _, store := range []struct {
		name string
		open func(t testing.TB) stockade.Store
	}{{"postgres", openPostgres}, {"sqlite", openSQLite}} {
		b.Run(store.name, func(b *testing.B) {
			st := store.open(b)
			_, js := broker(b)
			if _, err := js.CreateStream(b.Context(), jetstream.StreamConfig{Name: "STOCKADE_EVENTS",
				Subjects: []string{"stockade.events.>"}, Storage: jetstream.FileStorage}); err != nil {
				b.Fatal(err)
			}
			relay := events.New(st, js, nil)
			at := time.Now()
			const per = 1000 // events per transaction
			for i := 0; i < b.N; i += per {
				evs := make([]stockade.DomainEvent, min(per, b.N-i))
				for j := range evs {
					evs[j] = stockade.DomainEvent{ID: fmt.Sprintf("evt_%d", i+j), Type: stockade.EventStockSet,
						Aggregate: stockade.AggregateLevel, AggregateID: "sku@east", Version: int64(i + j + 1), At: at,
						Payload: []byte(`{"sku":"sku","location":"east","on_hand":1,"reserved":0,"committed":0,"version":1,"available":1}`)}
				}
				if err := st.Update(b.Context(), func(tx stockade.Tx) error { return tx.AppendEvents(b.Context(), evs...) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for relay.Published() < int64(b.N) {
				if _, err := relay.Once(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkRelayLag is the time from an event's writing (its At, taken in
// its transaction) to its arrival at a subscriber of the stream's
// subjects, while the engine writes about 2,000 events a second on
// PostgreSQL and the relay runs as serve runs it. It reports the p50 and
// p99; b.N is the number of changes.
//
//	go test -run '^$' -bench RelayLag -benchtime 10000x ./events/
func BenchmarkRelayLag(b *testing.B) {
	st := openPostgres(b)
	_, js := broker(b)
	eng := shop(b, st, 20)
	sub := make(chan time.Duration, b.N*4)
	s, err := js.Conn().Subscribe("stockade.events.>", func(m *nats.Msg) {
		var ev stockade.DomainEvent
		if json.Unmarshal(m.Data, &ev) == nil && ev.Type == stockade.EventStockAdjusted {
			sub <- time.Since(ev.At)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Unsubscribe()
	ctx, stop := context.WithCancel(b.Context())
	defer stop()
	relay := events.New(st, js, &events.Options{Wake: eng.Written})
	go relay.Run(ctx)

	const rate = 2000 // changes a second, spread over the writers
	const writers = 8
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			tick := time.NewTicker(time.Second * writers / rate)
			defer tick.Stop()
			for i := w; i < b.N; i += writers {
				<-tick.C
				if _, err := eng.AdjustStock(ctx, stockade.Key{SKU: fmt.Sprintf("sku-%d", i%20), Location: "east"}, 1, "bench", nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	lags := make([]time.Duration, 0, b.N)
	for len(lags) < b.N {
		select {
		case d := <-sub:
			lags = append(lags, d)
		case <-time.After(30 * time.Second):
			b.Fatalf("%d of %d events arrived", len(lags), b.N)
		}
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds())/1000, "p99-ms")
}
