package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
)

// ConsumerOptions configures a Consumer. A nil *ConsumerOptions means all
// defaults.
type ConsumerOptions struct {
	// Stream holds the commands. Run creates it if it is missing, on the
	// subjects Subject.>, kept on disk.
	// Default: "STOCKADE_COMMANDS".
	Stream string

	// Replicas is how many servers of a JetStream cluster keep a copy of
	// the streams that Run creates, the commands' and the dead letters'
	// (at most 5); the durable consumer has as many. Streams that exist
	// keep their own.
	// Default: 1.
	Replicas int

	// Subject is the commands' prefix: a command goes to
	// Subject.<command>, such as stockade.commands.reservation.confirm.
	// Default: "stockade.commands".
	Subject string

	// Durable names the consumer on the stream. The instances of the
	// service share it, so each message goes to one of them at a time.
	// Default: "stockade".
	Durable string

	// MaxDeliver is how many times a message that fails for a reason
	// that may pass (the database is down) is delivered before it goes to
	// the dead letters.
	// Default: 5.
	MaxDeliver int

	// AckWait is how long the broker waits for an acknowledgement before
	// it delivers the message again.
	// Default: 30s.
	AckWait time.Duration

	// DeadLetter is the subject prefix of the messages that can never
	// apply: Run creates a stream on DeadLetter.> if it is missing, and
	// each goes to DeadLetter.<command> with the headers Stockade-Code
	// and Stockade-Reason (why), Stockade-Subject and Nats-Msg-Id (as it
	// came).
	// Default: "stockade.deadletter".
	DeadLetter string

	// Workers is how many messages the consumer handles at once. Each
	// waits for its transaction and then for the broker to confirm its
	// acknowledgement, so it takes many to keep a payment system's pace,
	// and under the engine's batch strategy the outcomes that wait
	// together are applied in one transaction (BenchmarkSaga: 8 workers
	// fell behind at 900 outcomes a second; 128 apply 1,200 a second in
	// batches of about 30). Each command takes the row locks it needs, so
	// commands of one reservation or payment handled at once queue in
	// the database.
	// Default: 128.
	Workers int

	// PullExpiry is how long each of the consumer's pull requests lasts
	// on the broker, which sends a heartbeat every half of it while the
	// request waits. A pull request dies with the server that leads the
	// consumer; the consumer notices when two heartbeats are missed and
	// asks the new leader, so a shorter expiry finds a lost leader sooner,
	// for a request to the broker every PullExpiry while idle. At least 1s.
	// Default: 5s (nats.go's own default is 30s: 30 s to notice).
	PullExpiry time.Duration

	// Logger receives what went to the dead letters, and failures.
	// Default: slog.Default().
	Logger *slog.Logger
}

func (o *ConsumerOptions) withDefaults() ConsumerOptions {
	var out ConsumerOptions
	if o != nil {
		out = *o
	}
	if out.Stream == "" {
		out.Stream = "STOCKADE_COMMANDS"
	}
	if out.Replicas <= 0 {
		out.Replicas = 1
	}
	if out.Subject == "" {
		out.Subject = "stockade.commands"
	}
	if out.Durable == "" {
		out.Durable = "stockade"
	}
	if out.MaxDeliver <= 0 {
		out.MaxDeliver = 5
	}
	if out.AckWait <= 0 {
		out.AckWait = 30 * time.Second
	}
	if out.DeadLetter == "" {
		out.DeadLetter = "stockade.deadletter"
	}
	if out.Workers <= 0 {
		out.Workers = 128
	}
	if out.PullExpiry <= 0 {
		out.PullExpiry = 5 * time.Second
	}
	out.PullExpiry = max(out.PullExpiry, time.Second)
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	return out
}

// Consumer applies the commands that arrive on a JetStream stream, each
// once however often it is delivered.
//
// A command is applied under an idempotency key made of its message id
// (the Nats-Msg-Id header, or the stream sequence when it has none): the
// service stores the key's record in the transaction of the effect
// (stockade.Idempotency), so the record is the command's inbox row. A
// second delivery, whether the broker's (the first acknowledgement was
// lost, or the instance died between the commit and the ack) or a
// producer's duplicate, finds the record and changes nothing. The message
// is acknowledged, and the consumer waits for the broker to confirm it
// (AckSync), only once the effect has committed.
//
// A payment outcome is applied once by its own id, the event_id the
// payment system gave it, whatever message carries it: the payment
// service keeps the inbox (stockade.PaymentService.ApplyOutcome). Its
// deliveries all count as applied. Outcomes are applied only where the
// service is also a stockade.PaymentService, as the engine is; elsewhere
// they go to the dead letters.
type Consumer struct {
	cmds *commands
	js   jetstream.JetStream
	opts ConsumerOptions
}

// NewConsumer returns a consumer that applies commands to svc.
func NewConsumer(svc stockade.StockService, js jetstream.JetStream, opts *ConsumerOptions) *Consumer {
	o := opts.withDefaults()
	return &Consumer{cmds: newCommands(svc, "jetstream", o.MaxDeliver, o.Logger), js: js, opts: o}
}

// Counts returns how many commands the consumer applied, found applied
// already (duplicates), sent to the dead letters, and asked to have
// delivered again.
func (c *Consumer) Counts() (applied, duplicates, deadLetters, retries int64) {
	return c.cmds.counts()
}

// Run consumes until ctx ends, and then returns nil. Until the broker
// answers, it tries again every few seconds.
func (c *Consumer) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.consume(ctx)
		if err == nil || ctx.Err() != nil {
			break
		}
		c.opts.Logger.Warn("events: command consumer failed; trying again", "err", err, "retry_in", backoff)
		sleep(ctx, backoff, nil)
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

// consume sets up the streams and the consumer and handles messages until
// ctx ends or the subscription fails.
func (c *Consumer) consume(ctx context.Context) error {
	for _, s := range []jetstream.StreamConfig{
		{Name: c.opts.Stream, Subjects: []string{c.opts.Subject + ".>"}, Storage: jetstream.FileStorage, Replicas: c.opts.Replicas},
		{Name: c.opts.Stream + "_DEADLETTER", Subjects: []string{c.opts.DeadLetter + ".>"}, Storage: jetstream.FileStorage, Replicas: c.opts.Replicas},
	} {
		if _, err := c.js.Stream(ctx, s.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			_, err = c.js.CreateStream(ctx, s)
			if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return fmt.Errorf("events: stream %s: %w", s.Name, err)
			}
		} else if err != nil {
			return fmt.Errorf("events: stream %s: %w", s.Name, err)
		}
	}
	cons, err := c.js.CreateOrUpdateConsumer(ctx, c.opts.Stream, jetstream.ConsumerConfig{
		Durable:       c.opts.Durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.opts.AckWait,
		MaxDeliver:    c.opts.MaxDeliver,
		FilterSubject: c.opts.Subject + ".>",
	})
	if err != nil {
		return fmt.Errorf("events: consumer %s: %w", c.opts.Durable, err)
	}
	// The broker counts AckWait from delivery, so a message must not wait
	// long in the client's buffer: nats.go buffers 500 by default, which a
	// slow database takes longer than AckWait to work through, and each
	// late one is delivered and handled twice. Twice the workers (at least
	// 16) keeps them fed between pulls, and each buffered message reaches
	// a worker within about two handlings' time.
	it, err := cons.Messages(jetstream.PullExpiry(c.opts.PullExpiry), jetstream.PullMaxMessages(max(2*c.opts.Workers, 16)))
	if err != nil {
		return fmt.Errorf("events: consumer %s: %w", c.opts.Durable, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	msgs := make(chan jetstream.Msg)
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() {
			for msg := range msgs {
				c.handle(ctx, msg)
			}
		})
	}
	defer wg.Wait()
	defer close(msgs)
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("events: consumer %s: %w", c.opts.Durable, err) // Run sets it up again
		}
		msgs <- msg
	}
}

// handle applies one message, then acknowledges it, sends it to the dead
// letters, or asks for it again.
func (c *Consumer) handle(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		c.opts.Logger.Error("events: a message without metadata", "subject", msg.Subject(), "err", err)
		return // the broker delivers it again after AckWait
	}
	id := msg.Headers().Get(jetstream.MsgIDHeader)
	if id == "" {
		id = fmt.Sprintf("seq-%d", meta.Sequence.Stream)
	}
	name, ok := strings.CutPrefix(msg.Subject(), c.opts.Subject+".")
	if !ok {
		name = msg.Subject()
	}
	v := c.cmds.handle(ctx, inbound{
		name: name, from: msg.Subject(), data: msg.Data(),
		key: "nats:" + id, keyField: "Nats-Msg-Id", fingerprint: msg.Subject(),
		deliveries: int(meta.NumDelivered),
	})
	switch {
	case v.deadLetter:
		c.deadLetter(ctx, msg, v.code, v.reason)
	case v.retry:
		c.cmds.retries.Add(1)
		delay := time.Duration(meta.NumDelivered) * time.Second
		if err := msg.NakWithDelay(delay); err != nil {
			c.opts.Logger.Warn("events: ask for a command again", "subject", msg.Subject(), "err", err)
		}
	default:
		if err := msg.DoubleAck(ctx); err != nil {
			// Delivered again after AckWait, and answered from the
			// idempotency record then.
			c.opts.Logger.Warn("events: acknowledge a command", "subject", msg.Subject(), "err", err)
		}
	}
}

// deadLetter sends msg, which cannot apply (code and reason say why), to
// the dead letters, and acknowledges it once the broker has the dead
// letter.
func (c *Consumer) deadLetter(ctx context.Context, msg jetstream.Msg, code, reason string) {
	name := strings.TrimPrefix(msg.Subject(), c.opts.Subject+".")
	dl := &nats.Msg{Subject: c.opts.DeadLetter + "." + name, Data: msg.Data(), Header: nats.Header{}}
	dl.Header.Set("Stockade-Reason", reason)
	dl.Header.Set("Stockade-Code", code)
	dl.Header.Set("Stockade-Subject", msg.Subject())
	if id := msg.Headers().Get(jetstream.MsgIDHeader); id != "" {
		dl.Header.Set(jetstream.MsgIDHeader, id)
	}
	if _, err := c.js.PublishMsg(ctx, dl); err != nil {
		c.opts.Logger.Warn("events: send a command to the dead letters", "subject", msg.Subject(), "err", err)
		msg.Nak() // delivered again, and dead-lettered then
		return
	}
	c.cmds.deadLetters.Add(1)
	c.opts.Logger.Warn("events: a command went to the dead letters", "subject", msg.Subject(), "code", code, "reason", reason)
	if err := msg.DoubleAck(ctx); err != nil {
		c.opts.Logger.Warn("events: acknowledge a dead letter", "subject", msg.Subject(), "err", err)
	}
}
