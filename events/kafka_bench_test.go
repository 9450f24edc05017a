package events_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/events"
)

// BenchmarkKafkaRelay is BenchmarkRelay to Kafka: b.N events in the
// outbox, then turns until the brokers (a kfake cluster of three, in the
// benchmark's process) have acknowledged every one, on each store, to a
// topic of one partition. It reports events/s.
//
//	go test -run '^$' -bench KafkaRelay -benchtime 20000x ./events/
func BenchmarkKafkaRelay(b *testing.B) {
	benchRelay(b, func(b *testing.B, st stockade.Store) *events.Relay {
		_, cl := kafkaBroker(b)
		if _, err := kadm.NewClient(cl).CreateTopic(sys(b), 1, 1, nil, "stockade.events"); err != nil {
			b.Fatal(err)
		}
		return events.NewKafka(st, cl, nil)
	})
}

// BenchmarkKafkaRelayLag is BenchmarkRelayLag to Kafka: the time from an
// event's writing (its At) to its arrival at a consumer of the relay's
// topic (four partitions), while the engine writes about 2,000 events a
// second on PostgreSQL and the relay runs as serve runs it. It reports
// the p50 and p99; b.N is the number of changes.
//
//	go test -run '^$' -bench KafkaRelayLag -benchtime 10000x ./events/
func BenchmarkKafkaRelayLag(b *testing.B) {
	st := openPostgres(b)
	k, cl := kafkaBroker(b)
	if _, err := kadm.NewClient(cl).CreateTopic(sys(b), 4, 1, nil, "stockade.events"); err != nil {
		b.Fatal(err)
	}
	eng := shop(b, st, 20)
	ctx, stop := context.WithCancel(sys(b))
	defer stop()
	sub := make(chan time.Duration, b.N*4)
	warm := make(chan struct{}, 1)
	var from atomic.Int64                                 // the events written before it, of the warm-up, are not counted
	from.Store(time.Now().Add(24 * time.Hour).UnixNano()) // until the warm-up is over
	rd, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...), kgo.ConsumeTopics("stockade.events"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	go func() {
		for ctx.Err() == nil {
			rd.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				var ev stockade.DomainEvent
				if json.Unmarshal(r.Value, &ev) == nil && ev.Type == stockade.EventStockAdjusted {
					if ev.At.UnixNano() < from.Load() {
						select {
						case warm <- struct{}{}:
						default:
						}
						return
					}
					sub <- time.Since(ev.At)
				}
			})
		}
	}()
	relay := events.NewKafka(st, cl, &events.KafkaOptions{Wake: eng.Written})
	go relay.Run(ctx)
	// The consumer starts at the end of the topic: it must have found its
	// partitions' end before the first change counted, or it skips it.
	for {
		if _, err := eng.AdjustStock(ctx, stockade.Key{SKU: "sku-0", Location: "east"}, 1, "warm-up", nil); err != nil {
			b.Fatal(err)
		}
		select {
		case <-warm:
		case <-time.After(time.Second):
			continue
		}
		break
	}
	from.Store(time.Now().UnixNano())

	measureLag(b, ctx, eng, sub)
}
