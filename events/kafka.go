package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/stockade/stockade"
)

// The headers of the records the relay writes to Kafka.
const (
	HeaderEventID   = "Stockade-Event-Id"   // the event's id, "evt_…": consumers drop a second copy by it
	HeaderEventType = "Stockade-Event-Type" // the event's type, "reservation.held"
)

// KafkaOptions configures a relay to Kafka. A nil *KafkaOptions means all
// defaults.
type KafkaOptions struct {
	// Name names the relay's checkpoint in the store: one per broker and
	// topic it publishes to.
	// Default: "kafka".
	Name string

	// Topic is the topic the relay writes to. Run creates it if it is
	// missing (unless NoCreate), with Partitions partitions and
	// Replicas replicas; a topic that exists is used as it is.
	// Default: "stockade.events".
	Topic string

	// Partitions is how many partitions a topic that Run creates has.
	// The events of one aggregate go to one partition, chosen by the
	// record key, and keep their order there.
	// Default: 1.
	Partitions int

	// Replicas is the replication factor of a topic that Run creates.
	// With 3, and the topic's min.insync.replicas at 2, the topic stays
	// writable, and loses nothing it acknowledged, while one broker is
	// down.
	// Default: 1.
	Replicas int

	// NoCreate, if true, forbids Run to create a missing topic: where
	// the shop's operators create topics themselves, a missing one is a
	// failure that Run logs and tries again.
	// Default: false.
	NoCreate bool

	// Batch is the most events one turn publishes.
	// Default: 512.
	Batch int

	// AckWait is how long a batch's records wait for their
	// acknowledgements before the client gives up those it safely can
	// (not sent yet, or refused by the broker); the turn then fails, and
	// the batch is published again. A record whose request the broker
	// may have written is waited for until the broker answers, so that
	// it is never written twice.
	// Default: 10s.
	AckWait time.Duration

	// Poll is how often an idle relay looks for events that Wake did not
	// announce: those of other instances.
	// Default: 1s.
	Poll time.Duration

	// Wake, if set, returns a channel that closes when events may have
	// been written (engine.Engine.Written): the relay then looks at once.
	Wake func() <-chan struct{}

	// Logger receives the relay's failures.
	// Default: slog.Default().
	Logger *slog.Logger
}

func (o *KafkaOptions) withDefaults() KafkaOptions {
	var out KafkaOptions
	if o != nil {
		out = *o
	}
	if out.Name == "" {
		out.Name = "kafka"
	}
	if out.Topic == "" {
		out.Topic = "stockade.events"
	}
	if out.Partitions <= 0 {
		out.Partitions = 1
	}
	if out.Replicas <= 0 {
		out.Replicas = 1
	}
	if out.AckWait <= 0 {
		out.AckWait = 10 * time.Second
	}
	return out
}

// NewKafka returns a relay of store's events to a Kafka topic through
// client, whose producer must be idempotent and wait for all in-sync
// replicas: franz-go's defaults (kgo.RequiredAcks(kgo.AllISRAcks()),
// idempotent writes enabled), which the relay does not change. Each turn
// flushes the client once its batch is produced, so it does not wait
// for the producer's linger; the relay is best given a client of its
// own, as a flush waits for every record the client holds.
//
// Each event is a record keyed by its aggregate id, so that the events
// of one aggregate go to one partition and keep their order there, with
// the event's id and type in the headers Stockade-Event-Id and
// Stockade-Event-Type, and the event itself, with its cursor in the
// service's feed, as the JSON value. The relay's checkpoint moves past a
// batch only once the broker has acknowledged every record of it; so a
// broker that is down, or a process that dies first, leaves the batch in
// the outbox, and the next turn writes it again, in order.
//
// The idempotent producer drops the copies that its own retries of a
// request would write, so a broker that refuses writes for a while, or
// loses a response, writes each record once; a turn waits for every
// record that the client could not give up at AckWait, and a turn that
// sends a failed batch again leaves out the records the brokers
// acknowledged in the earlier try. Across processes there is no such
// memory: a batch that a new process sends again (the last one died
// between the brokers' acknowledgement and the checkpoint's move) is
// written again, as Kafka has no duplicate window like JetStream's. A
// consumer drops such a copy by its Stockade-Event-Id; in each
// partition, the first copy of every event comes in outbox order.
func NewKafka(store stockade.Store, client *kgo.Client, opts *KafkaOptions) *Relay {
	k := opts.withDefaults()
	o := (&Options{Name: k.Name, Batch: k.Batch, AckWait: k.AckWait, Poll: k.Poll, Wake: k.Wake, Logger: k.Logger}).withDefaults()
	return &Relay{store: store, pub: &kafkaPublisher{client: client, opts: k}, opts: o}
}

var _ publisher = (*kafkaPublisher)(nil)

// kafkaPublisher writes a relay's events to a Kafka topic.
type kafkaPublisher struct {
	client *kgo.Client
	opts   KafkaOptions
	// acked holds the ids of the events of the last batch that the
	// brokers acknowledged: a turn that sends them again, because the
	// batch failed in part or the checkpoint did not move, skips them.
	// The next batch keeps only its own, so it holds a batch at most.
	acked map[string]bool
}

// ensure creates the topic if it is missing and the relay may.
func (p *kafkaPublisher) ensure(ctx context.Context) error {
	return ensureTopics(ctx, p.client, !p.opts.NoCreate, p.opts.Partitions, p.opts.Replicas, p.opts.Topic)
}

// ensureTopics creates those of topics that are missing, if create, with
// partitions partitions and replicas replicas each; if not, a missing one
// is an error.
func ensureTopics(ctx context.Context, client *kgo.Client, create bool, partitions, replicas int, topics ...string) error {
	adm := kadm.NewClient(client)
	details, err := adm.ListTopics(ctx, topics...)
	if err != nil {
		return fmt.Errorf("events: list topics %v: %w", topics, err)
	}
	for _, topic := range topics {
		d, ok := details[topic]
		if ok && d.Err == nil {
			continue
		}
		if ok && !errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("events: topic %s: %w", topic, d.Err)
		}
		if !create {
			return fmt.Errorf("events: topic %s is missing, and may not be created", topic)
		}
		_, err := adm.CreateTopic(ctx, int32(partitions), int16(replicas), nil, topic)
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("events: create topic %s: %w", topic, err)
		}
	}
	return nil
}

// publish writes evs in order and waits for every acknowledgement. A
// record that fails makes the client fail those after it in the same
// partition too, so none lands ahead of one that was lost, and the
// records that did land in a partition are the first of the batch's
// there. A batch that failed part way, or whose checkpoint did not move,
// is sent again by the next turn without them (acked), so the
// partitions that took their part of it do not get it twice, and each
// partition still gets its events in order.
func (p *kafkaPublisher) publish(ctx context.Context, evs []stockade.DomainEvent) error {
	acked := map[string]bool{} // of evs: those of p.acked that are past the checkpoint
	var recs []*kgo.Record
	for _, ev := range evs {
		if p.acked[ev.ID] {
			acked[ev.ID] = true
			continue
		}
		data, err := json.Marshal(message{ev, ev.Position.Cursor()})
		if err != nil {
			return fmt.Errorf("events: encode %s: %w", ev.ID, err)
		}
		recs = append(recs, &kgo.Record{Topic: p.opts.Topic, Key: []byte(ev.AggregateID), Value: data, Headers: []kgo.RecordHeader{
			{Key: HeaderEventID, Value: []byte(ev.ID)},
			{Key: HeaderEventType, Value: []byte(ev.Type)},
		}})
	}
	p.acked = acked
	// The records give up at AckWait where the client may drop them
	// safely: not sent yet, or refused by the broker. One whose request
	// the broker may have written is not dropped, and the turn waits for
	// it: the idempotent producer retries it until the broker answers,
	// and a retry is never a copy. So the records of a turn are all
	// written or failed before the next turn sends them again, which
	// would otherwise queue copies behind them.
	rctx, cancel := context.WithTimeout(ctx, p.opts.AckWait)
	defer cancel()
	type result struct {
		id  string // the event's
		err error
	}
	done := make(chan result, len(recs))
	for _, rec := range recs {
		p.client.Produce(rctx, rec, func(r *kgo.Record, err error) { done <- result{header(r, HeaderEventID), err} })
	}
	// The batch is whole: send it now rather than after the client's
	// linger. Flush's own result is that of the records, read below.
	p.client.Flush(rctx)
	var first error
	for range recs {
		select {
		case res := <-done:
			err := res.err
			if err == nil {
				p.acked[res.id] = true
			}
			switch {
			case err == nil || first != nil:
			case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
				first = fmt.Errorf("events: publish to %s: no acknowledgement within %s: %w", p.opts.Topic, p.opts.AckWait, err)
			default:
				first = fmt.Errorf("events: publish to %s: %w", p.opts.Topic, err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return first
}
