package events

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/stockade/stockade"
)

// The headers of the command records a KafkaConsumer reads, and of the
// dead letters it writes.
const (
	// HeaderCommand names a record's command: CommandConfirm,
	// CommandRelease or CommandPaymentOutcome.
	HeaderCommand = "Stockade-Command"
	// HeaderMsgID, if the producer sets it, is the command's id: a
	// second record with the same id is a duplicate, and changes
	// nothing. Without it, a command is known by its topic, partition
	// and offset, which dedupes the broker's redeliveries only.
	HeaderMsgID = "Stockade-Msg-Id"

	// The headers that a dead letter has besides those it came with:
	// why it can never apply, and where it came from.
	HeaderDeadCode      = "Stockade-Code"
	HeaderDeadReason    = "Stockade-Reason"
	HeaderDeadTopic     = "Stockade-Topic"
	HeaderDeadPartition = "Stockade-Partition"
	HeaderDeadOffset    = "Stockade-Offset"
)

// KafkaConsumerOptions configures a KafkaConsumer. A nil
// *KafkaConsumerOptions means all defaults.
type KafkaConsumerOptions struct {
	// Topic holds the commands. Run creates it if it is missing (unless
	// NoCreate), with Partitions partitions and Replicas replicas.
	// Default: "stockade.commands".
	Topic string

	// Group is the consumer group. The instances of the service share
	// it, so each partition is read by one of them at a time.
	// Default: "stockade".
	Group string

	// DeadLetter is the topic of the commands that can never apply: each
	// goes there with its key, value and headers, and the headers
	// Stockade-Code and Stockade-Reason (why), Stockade-Topic,
	// Stockade-Partition and Stockade-Offset (where it came from). Run
	// creates it as it creates Topic.
	// Default: "stockade.deadletter".
	DeadLetter string

	// Partitions and Replicas shape the topics that Run creates; topics
	// that exist keep their own.
	// Default: 1 and 1.
	Partitions, Replicas int

	// NoCreate, if true, forbids Run to create missing topics.
	// Default: false.
	NoCreate bool

	// MaxDeliver is how many times a command that fails for a reason
	// that may pass (the database is down) is tried, a second more
	// apart each time, before it goes to the dead letters. Kafka
	// delivers a partition in order, so the consumer tries it again in
	// place rather than have it delivered again.
	// Default: 5.
	MaxDeliver int

	// Workers is how many commands the consumer handles at once: those
	// of one poll, their keys' records in order, different keys at once.
	// It is also the most records one poll takes.
	// Default: 128.
	Workers int

	// Logger receives what went to the dead letters, and failures.
	// Default: slog.Default().
	Logger *slog.Logger
}

func (o *KafkaConsumerOptions) withDefaults() KafkaConsumerOptions {
	var out KafkaConsumerOptions
	if o != nil {
		out = *o
	}
	if out.Topic == "" {
		out.Topic = "stockade.commands"
	}
	if out.Group == "" {
		out.Group = "stockade"
	}
	if out.DeadLetter == "" {
		out.DeadLetter = "stockade.deadletter"
	}
	if out.Partitions <= 0 {
		out.Partitions = 1
	}
	if out.Replicas <= 0 {
		out.Replicas = 1
	}
	if out.MaxDeliver <= 0 {
		out.MaxDeliver = 5
	}
	if out.Workers <= 0 {
		out.Workers = 128
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	return out
}

// KafkaConsumer applies the commands that arrive on a Kafka topic, each
// once however often it is delivered, as a Consumer does those of
// JetStream: the same commands, the same bodies, the same decisions.
//
// A command is applied under an idempotency key made of its
// Stockade-Msg-Id header, or its topic, partition and offset when it has
// none, whose record the service writes in the transaction of the
// effect. A poll's records are handled, and their offsets committed only
// once every one of them has committed its effect or gone to the dead
// letters. A process that dies first leaves the offsets where they were,
// and the records are delivered again, to it or to another instance, and
// change nothing.
//
// The group does not rebalance while a poll's records are handled
// (kgo.BlockRebalanceOnPoll): an instance that joins, or leaves, waits
// until the one that has the partitions has committed its batch, so a
// rebalance in the middle of a batch neither hands its records to a
// second instance nor loses a commit. An instance that takes longer than
// the group's rebalance timeout is put out of the group; its commit then
// fails, and the instance that gets its partitions delivers the records
// again, which change nothing.
type KafkaConsumer struct {
	cmds   *commands
	client []kgo.Opt
	opts   KafkaConsumerOptions
}

// NewKafkaConsumer returns a consumer that applies commands to svc. client
// are the options of the client it makes to reach the brokers
// (kgo.SeedBrokers, TLS, SASL); it adds those of its group.
func NewKafkaConsumer(svc stockade.StockService, client []kgo.Opt, opts *KafkaConsumerOptions) *KafkaConsumer {
	o := opts.withDefaults()
	return &KafkaConsumer{cmds: newCommands(svc, "kafka", o.MaxDeliver, o.Logger), client: slices.Clone(client), opts: o}
}

// Counts returns how many commands the consumer applied, found applied
// already (duplicates), sent to the dead letters, and tried again.
func (c *KafkaConsumer) Counts() (applied, duplicates, deadLetters, retries int64) {
	return c.cmds.counts()
}

// Run consumes until ctx ends, and then returns nil. Until the brokers
// answer, it tries again every few seconds.
func (c *KafkaConsumer) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.consume(ctx)
		if err == nil || ctx.Err() != nil {
			break
		}
		c.opts.Logger.Warn("events: kafka command consumer failed; trying again", "err", err, "retry_in", backoff)
		sleep(ctx, backoff, nil)
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

// consume joins the group and handles records until ctx ends.
func (c *KafkaConsumer) consume(ctx context.Context) error {
	cl, err := kgo.NewClient(append(slices.Clone(c.client),
		kgo.ConsumerGroup(c.opts.Group),
		kgo.ConsumeTopics(c.opts.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
	)...)
	if err != nil {
		return fmt.Errorf("events: kafka client: %w", err)
	}
	defer func() {
		// Leave the group, so that its partitions go to the other
		// instances at once rather than after the session's timeout,
		// but wait no longer than a few seconds for brokers that do not
		// answer: shutdown goes on.
		cl.AllowRebalance()
		leave, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		cl.LeaveGroupContext(leave)
		cl.Close()
	}()
	if err := ensureTopics(ctx, cl, !c.opts.NoCreate, c.opts.Partitions, c.opts.Replicas, c.opts.Topic, c.opts.DeadLetter); err != nil {
		return err
	}
	for {
		fetches := cl.PollRecords(ctx, c.opts.Workers)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return nil
		}
		fetches.EachError(func(topic string, partition int32, err error) {
			c.opts.Logger.Warn("events: fetch commands", "topic", topic, "partition", partition, "err", err)
		})
		recs := fetches.Records()
		if len(recs) == 0 && len(fetches.Errors()) > 0 {
			sleep(ctx, time.Second, nil) // an error that lasts is logged once a second, not in a loop
		}
		if !c.handleAll(ctx, cl, recs) {
			return nil // ctx ended: the batch is delivered again
		}
		if len(recs) > 0 {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				// Out of the group, or the coordinator moved: whoever
				// reads the partitions next delivers the records again,
				// and they change nothing.
				c.opts.Logger.Warn("events: commit the offsets of commands", "group", c.opts.Group, "err", err)
			}
		}
		cl.AllowRebalance()
	}
}

// handleAll handles recs, those of one key in order and different keys
// at once, at most Workers at a time. It reports whether every one is
// done with: false if ctx ended first.
func (c *KafkaConsumer) handleAll(ctx context.Context, cl *kgo.Client, recs []*kgo.Record) bool {
	type key struct {
		partition int32
		topic     string
		key       string
	}
	var order []key
	byKey := map[key][]*kgo.Record{}
	for _, r := range recs {
		k := key{r.Partition, r.Topic, string(r.Key)}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	var (
		wg      sync.WaitGroup
		undone  atomic.Bool
		workers = make(chan struct{}, c.opts.Workers)
	)
	for _, k := range order {
		workers <- struct{}{}
		wg.Go(func() {
			defer func() { <-workers }()
			for _, r := range byKey[k] {
				if !c.handle(ctx, cl, r) {
					undone.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return !undone.Load()
}

// handle applies one record, and tries it again while it fails for a
// reason that may pass, or sends it to the dead letters. It reports
// whether the record is done with: false if ctx ended first.
func (c *KafkaConsumer) handle(ctx context.Context, cl *kgo.Client, r *kgo.Record) bool {
	from := fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)
	in := inbound{name: header(r, HeaderCommand), from: from, data: r.Value,
		key: "kafka:" + from, keyField: HeaderMsgID}
	if id := header(r, HeaderMsgID); id != "" {
		in.key = "kafka:" + id
	}
	in.fingerprint = in.name
	for in.deliveries = 1; ; in.deliveries++ {
		v := c.cmds.handle(ctx, in)
		if ctx.Err() != nil {
			return false // whatever it did, it is delivered again
		}
		switch {
		case v.deadLetter:
			return c.deadLetter(ctx, cl, r, v.code, v.reason)
		case v.retry:
			c.cmds.retries.Add(1)
			sleep(ctx, time.Duration(in.deliveries)*time.Second, nil)
		default:
			return true
		}
	}
}

// header returns the value of r's header key, or "".
func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// deadLetter writes r, which cannot apply (code and reason say why), to
// the dead-letter topic, trying again until the broker has it or ctx
// ends. It reports whether the broker has it.
func (c *KafkaConsumer) deadLetter(ctx context.Context, cl *kgo.Client, r *kgo.Record, code, reason string) bool {
	dl := &kgo.Record{Topic: c.opts.DeadLetter, Key: r.Key, Value: r.Value, Headers: append(slices.Clone(r.Headers),
		kgo.RecordHeader{Key: HeaderDeadCode, Value: []byte(code)},
		kgo.RecordHeader{Key: HeaderDeadReason, Value: []byte(reason)},
		kgo.RecordHeader{Key: HeaderDeadTopic, Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: HeaderDeadPartition, Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: HeaderDeadOffset, Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)}
	backoff := 100 * time.Millisecond
	for {
		err := cl.ProduceSync(ctx, dl).FirstErr()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		c.opts.Logger.Warn("events: send a command to the dead letters", "from", r.Topic, "offset", r.Offset, "err", err, "retry_in", backoff)
		sleep(ctx, backoff, nil)
		backoff = min(2*backoff, 5*time.Second)
	}
	c.cmds.deadLetters.Add(1)
	c.opts.Logger.Warn("events: a command went to the dead letters", "topic", r.Topic, "partition", r.Partition,
		"offset", r.Offset, "code", code, "reason", reason)
	return true
}
