package events_test

import (
	"context"
	"encoding/json"
	"fmt"
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
)

// BenchmarkRelay is the relay's throughput: b.N events in the outbox,
// then turns until the broker has acknowledged every one, on each store.
// It reports events/s.
//
//	go test -run '^$' -bench Relay -benchtime 20000x ./events/
func BenchmarkRelay(b *testing.B) {
	benchRelay(b, func(b *testing.B, st stockade.Store) *events.Relay {
		_, js := broker(b)
		if _, err := js.CreateStream(sys(b), jetstream.StreamConfig{Name: "STOCKADE_EVENTS",
			Subjects: []string{"stockade.events.>"}, Storage: jetstream.FileStorage}); err != nil {
			b.Fatal(err)
		}
		return events.New(st, js, nil)
	})
}

// benchRelay is a relay's throughput on each store: b.N events written
// to the outbox, 1,000 a transaction, then the turns of the relay that
// relayTo makes for the store until the broker has acknowledged every
// one. It reports events/s.
func benchRelay(b *testing.B, relayTo func(b *testing.B, st stockade.Store) *events.Relay) {
	for _, store := range []struct {
		name string
		open func(t testing.TB) stockade.Store
	}{{"postgres", openPostgres}, {"sqlite", openSQLite}} {
		b.Run(store.name, func(b *testing.B) {
			st := store.open(b)
			relay := relayTo(b, st)
			at := time.Now()
			const per = 1000 // events per transaction
			for i := 0; i < b.N; i += per {
				evs := make([]stockade.DomainEvent, min(per, b.N-i))
				for j := range evs {
					evs[j] = stockade.DomainEvent{ID: fmt.Sprintf("evt_%d", i+j), Type: stockade.EventStockSet,
						Aggregate: stockade.AggregateLevel, AggregateID: "sku@east", Version: int64(i + j + 1), At: at,
						Payload: []byte(`{"sku":"sku","location":"east","on_hand":1,"reserved":0,"committed":0,"version":1,"available":1}`)}
				}
				if err := st.Update(b.Context(), func(tx stockade.Tx) error { return tx.EventAppend(b.Context(), evs...) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for relay.Published() < int64(b.N) {
				if _, err := relay.Once(sys(b)); err != nil {
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
	ctx, stop := context.WithCancel(sys(b))
	defer stop()
	relay := events.New(st, js, &events.Options{Wake: eng.Written})
	go relay.Run(ctx)

	measureLag(b, ctx, eng, sub)
}

// measureLag adjusts stock b.N times through eng, about 2,000 times a
// second from 8 writers, and reports the p50 and p99 of the lags that sub
// receives, one per adjustment's event.
func measureLag(b *testing.B, ctx context.Context, eng *engine.Engine, sub <-chan time.Duration) {
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

// timedPayments is the engine as the consumer sees it, noting when each
// outcome's transaction has committed (ApplyOutcome returned).
type timedPayments struct {
	*engine.Engine
	mu   sync.Mutex
	done map[string]time.Time // by payment id
}

func (p *timedPayments) ApplyOutcome(ctx context.Context, o stockade.PaymentOutcome, source string) (stockade.Payment, error) {
	pay, err := p.Engine.ApplyOutcome(ctx, o, source)
	if err == nil && pay.Resolution == stockade.ResolvedConfirmed {
		p.mu.Lock()
		if _, ok := p.done[pay.ID]; !ok {
			p.done[pay.ID] = time.Now()
		}
		p.mu.Unlock()
	}
	return pay, err
}

// BenchmarkSaga is the checkout saga end to end on PostgreSQL, the
// engine under strategy batch: 64 buyers each hold a unit (Reserve),
// create its payment, and have the payment system report it succeeded
// on the commands stream of JetStream, where the consumer, as serve
// runs it, applies the outcome (in the engine's outcome batches): the
// reservation becomes an order. It
// reports orders/s (b.N orders, from the first hold to the last
// confirmation) and the p50 and p99 from an outcome's publication to
// the commit of its confirmation.
//
//	go test -run '^$' -bench Saga -benchtime 20000x ./events/
func BenchmarkSaga(b *testing.B) {
	st := openPostgres(b)
	_, js := broker(b)
	eng, err := engine.New(st, &engine.Options{Strategy: engine.Batch})
	if err != nil {
		b.Fatal(err)
	}
	stockShop(b, eng, 100, int64(b.N))
	svc := &timedPayments{Engine: eng, done: map[string]time.Time{}}
	ctx, stop := context.WithCancel(sys(b))
	defer stop()
	consumer := events.NewConsumer(svc, js, nil)
	go consumer.Run(ctx)
	var (
		published sync.Map // payment id → time.Time
		next      atomic.Int64
		wg        sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for range 64 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				r, err := eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: fmt.Sprintf("sku-%d", i%100), Quantity: 1}}}, nil)
				if err != nil {
					b.Error(err)
					return
				}
				p, err := eng.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
					Amount: 1999, Currency: "EUR"}, nil)
				if err != nil {
					b.Error(err)
					return
				}
				body, _ := json.Marshal(stockade.PaymentOutcome{EventID: "psp-" + p.ID, PaymentID: p.ID, Status: stockade.PaymentSucceeded})
				msg := &nats.Msg{Subject: "stockade.commands." + events.CommandPaymentOutcome, Data: body, Header: nats.Header{}}
				msg.Header.Set(jetstream.MsgIDHeader, "psp-"+p.ID)
				published.Store(p.ID, time.Now())
				if _, err := js.PublishMsg(ctx, msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for {
		svc.mu.Lock()
		n := len(svc.done)
		svc.mu.Unlock()
		if n >= b.N || b.Failed() {
			break
		}
		time.Sleep(time.Millisecond) // the consumer's progress, polled
	}
	elapsed := time.Since(start)
	b.StopTimer()
	var lat []time.Duration
	svc.mu.Lock()
	for id, at := range svc.done {
		if t0, ok := published.Load(id); ok {
			lat = append(lat, at.Sub(t0.(time.Time)))
		}
	}
	svc.mu.Unlock()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "orders/s")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// stockShop gives n SKUs at location east enough stock for orders
// orders between them.
func stockShop(b *testing.B, eng *engine.Engine, n int, orders int64) {
	b.Helper()
	if _, err := eng.PutLocation(sys(b), stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := eng.SetStock(sys(b), stockade.Key{SKU: fmt.Sprintf("sku-%d", i), Location: "east"}, orders, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
