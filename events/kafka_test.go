package events_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/internal/testkit"
)

// kafkaBroker starts a private Kafka cluster of three brokers and returns
// it with a client of it, whose producer is franz-go's default:
// idempotent, acks from all in-sync replicas.
func kafkaBroker(t testing.TB) (*testkit.Kafka, *kgo.Client) {
	t.Helper()
	k := testkit.NewKafka(t, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return k, cl
}

// kafkaRecords returns every record of topic, each partition's in offset
// order, partition after partition.
func kafkaRecords(t *testing.T, k *testkit.Kafka, topic string) []*kgo.Record {
	t.Helper()
	adm, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ends, err := kadm.NewClient(adm).ListEndOffsets(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int64{}
	start := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			want[o.Partition] = o.Offset
			start[o.Partition] = kgo.NewOffset().AtStart()
		}
	})
	byPartition := map[int32][]*kgo.Record{}
	if len(want) > 0 {
		cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: start}))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		total := int64(0)
		for _, end := range want {
			total += end
		}
		for n := int64(0); n < total; {
			fs := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("topic %s: read %d records of %v within a minute", topic, n, want)
			}
			fs.EachRecord(func(r *kgo.Record) {
				if r.Offset < want[r.Partition] {
					byPartition[r.Partition] = append(byPartition[r.Partition], r)
					n++
				}
			})
		}
	}
	var all []*kgo.Record
	for _, p := range slices.Sorted(maps.Keys(byPartition)) {
		all = append(all, byPartition[p]...)
	}
	return all
}

// header returns the value of r's header key.
func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// kafkaDrained waits until the relay's topic holds every event of st,
// and checks that each record is keyed by its event's aggregate id,
// carries its id and type, that the events of one aggregate are in one
// partition, and that in each partition the first copy of every event
// comes in position order. It returns how many records are copies of an
// event that came before.
func kafkaDrained(t *testing.T, st stockade.Store, k *testkit.Kafka, topic string) (copies int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var (
		want []stockade.DomainEvent
		recs []*kgo.Record
		seen map[string]bool
	)
	for {
		want = outbox(t, st)
		recs = kafkaRecords(t, k, topic)
		seen = map[string]bool{}
		for _, r := range recs {
			seen[header(r, events.HeaderEventID)] = true
		}
		if len(seen) >= len(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the topic holds %d events, the outbox %d, after 60 s", len(seen), len(want))
		}
		time.Sleep(50 * time.Millisecond) // the broker's state, polled: it has no notification of it
	}
	index := map[string]int{}
	for i, ev := range want {
		index[ev.ID] = i
	}
	first := map[string]bool{}
	last := map[int32]int{}         // by partition: the outbox index of the last first copy
	partition := map[string]int32{} // by aggregate
	for _, r := range recs {
		var ev stockade.DomainEvent
		if err := json.Unmarshal(r.Value, &ev); err != nil {
			t.Fatalf("record %d@%d: %v", r.Partition, r.Offset, err)
		}
		if header(r, events.HeaderEventID) != ev.ID || header(r, events.HeaderEventType) != ev.Type || string(r.Key) != ev.AggregateID {
			t.Errorf("record %d@%d: key %q, headers %v; event %s %s of %s", r.Partition, r.Offset, r.Key, r.Headers, ev.ID, ev.Type, ev.AggregateID)
		}
		agg := ev.Aggregate + " " + ev.AggregateID
		if p, ok := partition[agg]; ok && p != r.Partition {
			t.Errorf("%s: events in partitions %d and %d", agg, p, r.Partition)
		}
		partition[agg] = r.Partition
		i, ok := index[ev.ID]
		if !ok {
			t.Fatalf("record %d@%d: event %s is not in the outbox", r.Partition, r.Offset, ev.ID)
		}
		if first[ev.ID] {
			copies++
			continue
		}
		first[ev.ID] = true
		if l, ok := last[r.Partition]; ok && i < l {
			t.Errorf("partition %d: event %d of the outbox after event %d", r.Partition, i, l)
		}
		last[r.Partition] = i
	}
	return copies
}

// TestKafkaRelay: many writers while two relays run on one database, to
// a topic of four partitions on three brokers; the topic gets every event
// once, in order per aggregate, and the relays took turns.
func TestKafkaRelay(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	st := openPostgres(t)
	eng := shop(t, st, 5)
	ctx, stop := context.WithCancel(sys(t))
	opts := &events.KafkaOptions{Topic: "events-relay", Partitions: 4, Replicas: 3, Wake: eng.Written, Batch: 64}
	a, b := events.NewKafka(st, cl, opts), events.NewKafka(st, cl, opts)
	var relays sync.WaitGroup
	relays.Go(func() { a.Run(ctx) })
	relays.Go(func() { b.Run(ctx) })
	wctx, stopWriters := context.WithTimeout(ctx, 3*time.Second)
	err := busy(wctx, eng, 50, 5)()
	stopWriters()
	if err != nil {
		t.Fatal(err)
	}
	if copies := kafkaDrained(t, st, k, "events-relay"); copies != 0 {
		t.Errorf("the topic holds %d copies of events", copies)
	}
	// Each relay's next turn that reads finds nothing left.
	until(t, "no lag", func() bool { return a.Lag() == 0 && b.Lag() == 0 })
	stop()
	relays.Wait()
	if n, in := a.Published()+b.Published(), len(kafkaRecords(t, k, "events-relay")); n != int64(in) {
		t.Errorf("the relays published %d+%d events, the topic holds %d: they did not take turns", a.Published(), b.Published(), in)
	}
}

// TestKafkaRelayRefused: the brokers refuse every write for a while under
// load; no request fails because of it, the relay's lag grows, and once
// the brokers take writes again the backlog drains, in order, each event
// once: the producer's retries are idempotent.
func TestKafkaRelayRefused(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	st := openPostgres(t)
	eng := shop(t, st, 5)
	ctx, stop := context.WithCancel(sys(t))
	defer stop()
	relay := events.NewKafka(st, cl, &events.KafkaOptions{Topic: "events-refused", Partitions: 3, Wake: eng.Written, AckWait: time.Second})
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	wctx, stopWriters := context.WithCancel(ctx)
	wait := busy(wctx, eng, 16, 5)
	until(t, "the relay under way", func() bool { return relay.Published() > 0 })
	k.RefuseWrites(true)
	until(t, "a lag of 3 s", func() bool { return relay.Lag() >= 3*time.Second })
	k.RefuseWrites(false)
	stopWriters()
	if err := wait(); err != nil {
		t.Fatalf("a request failed while the brokers refused writes: %v", err)
	}
	if copies := kafkaDrained(t, st, k, "events-refused"); copies != 0 {
		t.Errorf("the topic holds %d copies of events", copies)
	}
	stop()
	<-done
}

// TestKafkaRelayPublishesAgain: a relay whose checkpoint did not move
// sends nothing again that the brokers acknowledged; a batch published
// again by a new relay, as after a process that died between the
// brokers' acknowledgement and the checkpoint, is written again (Kafka
// keeps no duplicate window), and a consumer that drops copies by the
// event id sees each event once, in order.
func TestKafkaRelayPublishesAgain(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	st := openSQLite(t)
	eng := shop(t, st, 2)
	relay := events.NewKafka(st, cl, &events.KafkaOptions{Topic: "events-again", NoCreate: true})
	if _, err := relay.Once(sys(t)); err == nil {
		t.Fatal("Once before the topic exists: no error")
	}
	ctx, stop := context.WithCancel(sys(t))
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	if _, err := kadm.NewClient(cl).CreateTopic(sys(t), 2, 1, nil, "events-again"); err != nil {
		t.Fatal(err)
	}
	if copies := kafkaDrained(t, st, k, "events-again"); copies != 0 {
		t.Fatalf("the topic holds %d copies of events", copies)
	}
	stop()
	<-done
	// The checkpoint goes back to the start, as if it had not moved
	// after the last turns: the relay remembers what the brokers
	// acknowledged, and sends none of it again.
	rewind := func() {
		t.Helper()
		if err := st.Update(t.Context(), func(tx stockade.Tx) error {
			return tx.RelaySetPosition(t.Context(), "kafka", stockade.EventPosition{})
		}); err != nil {
			t.Fatal(err)
		}
	}
	rewind()
	n := len(outbox(t, st))
	if got, err := relay.Once(sys(t)); err != nil || got != n {
		t.Fatalf("Once after the rewind = %d, %v; want the %d events of the last batch", got, err, n)
	}
	if copies := kafkaDrained(t, st, k, "events-again"); copies != 0 {
		t.Errorf("the relay sent %d events again that the brokers had acknowledged", copies)
	}
	// A new relay, as in the process after one that died before its
	// checkpoint moved, sends every event again.
	rewind()
	again := events.NewKafka(st, cl, &events.KafkaOptions{Topic: "events-again", NoCreate: true})
	if got, err := again.Once(sys(t)); err != nil || got != n {
		t.Fatalf("Once of a new relay = %d, %v; want every event sent again", got, err)
	}
	if _, err := eng.AdjustStock(sys(t), stockade.Key{SKU: "sku-0", Location: "east"}, 1, "found", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Once(sys(t)); err != nil {
		t.Fatal(err)
	}
	if copies := kafkaDrained(t, st, k, "events-again"); copies != n {
		t.Errorf("the topic holds %d copies, want %d: one of each event sent again", copies, n)
	}
}
