package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
)

// Options configures a Relay. A nil *Options means all defaults.
type Options struct {
	// Name names the relay's checkpoint in the store: one per broker and
	// stream it publishes to.
	// Default: "nats".
	Name string

	// Stream is the JetStream stream the relay publishes to. Run creates
	// it if it is missing, on the subjects Subject.>, kept on disk, with
	// JetStream's duplicate window (2 minutes); a stream that exists is
	// used as it is.
	// Default: "STOCKADE_EVENTS".
	Stream string

	// Replicas is how many servers of a JetStream cluster keep a copy of
	// the stream that Run creates (at most 5): with 3, the stream stays
	// writable, and loses nothing it acknowledged, while one server is
	// down. A stream that exists keeps its own.
	// Default: 1.
	Replicas int

	// Subject is the subjects' prefix: an event goes to
	// Subject.<aggregate>.<type>, such as
	// stockade.events.reservation.reservation.held.
	// Default: "stockade.events".
	Subject string

	// Batch is the most events one turn publishes.
	// Default: 512.
	Batch int

	// AckWait bounds the wait for a batch's acknowledgements; past it the
	// turn fails, and the batch is published again.
	// Default: 5s.
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

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Name == "" {
		out.Name = "nats"
	}
	if out.Stream == "" {
		out.Stream = "STOCKADE_EVENTS"
	}
	if out.Replicas <= 0 {
		out.Replicas = 1
	}
	if out.Subject == "" {
		out.Subject = "stockade.events"
	}
	if out.Batch <= 0 {
		out.Batch = 512
	}
	if out.AckWait <= 0 {
		out.AckWait = 5 * time.Second
	}
	if out.Poll <= 0 {
		out.Poll = time.Second
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	return out
}

// Relay publishes the outbox's events to a JetStream stream, in position
// order, each once as far as consumers can tell.
type Relay struct {
	store stockade.Store
	pub   publisher
	opts  Options
	// published counts the events acknowledged by the broker.
	published atomic.Int64
	// oldest is the At, in Unix nanoseconds, of the oldest event the
	// last turn found unpublished; 0 if it found none.
	oldest atomic.Int64
}

// publisher is what a relay needs of a broker: that its destination
// exists, and that a batch of events is written in order and
// acknowledged. The relay's loop, its turns and its checkpoint are the
// same for every broker.
type publisher interface {
	// ensure creates the destination if it is missing.
	ensure(ctx context.Context) error
	// publish writes evs in order and returns once the broker has
	// acknowledged every one, or with the error that stopped it.
	publish(ctx context.Context, evs []stockade.DomainEvent) error
}

// New returns a relay of store's events to js.
func New(store stockade.Store, js jetstream.JetStream, opts *Options) *Relay {
	o := opts.withDefaults()
	return &Relay{store: store, pub: &jetStreamPublisher{js: js, opts: o}, opts: o}
}

var _ publisher = (*jetStreamPublisher)(nil)

// jetStreamPublisher publishes a relay's events to a JetStream stream.
type jetStreamPublisher struct {
	js   jetstream.JetStream
	opts Options
}

// Published returns how many events the relay has had acknowledged since
// it was made.
func (r *Relay) Published() int64 { return r.published.Load() }

// Lag returns the age of the oldest event that the relay's last turn
// found still to publish, or 0 if that turn found none: how far the
// broker's copy is behind the outbox. A relay whose turns fail (the
// broker is down) keeps the age of the last one that read, which grows
// with the outage.
func (r *Relay) Lag() time.Duration {
	ns := r.oldest.Load()
	if ns == 0 {
		return 0
	}
	return time.Since(time.Unix(0, ns))
}

// Subject returns the subject that ev is published to by a relay to
// JetStream.
func (r *Relay) Subject(ev stockade.DomainEvent) string { return subject(r.opts, ev) }

func subject(o Options, ev stockade.DomainEvent) string {
	return o.Subject + "." + ev.Aggregate + "." + ev.Type
}

// Run relays until ctx ends, and then returns nil. A failure (the broker
// down, the store unreachable) is logged, and the turn is tried again
// after a backoff that grows to 5 s: the service goes on meanwhile, and
// its events wait in the outbox. A full batch is followed at once by the
// next.
func (r *Relay) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	ready := false
	for ctx.Err() == nil {
		var wake <-chan struct{}
		if r.opts.Wake != nil {
			wake = r.opts.Wake() // before the turn: a commit after it wakes us
		}
		n, err := 0, error(nil)
		if !ready {
			err = r.pub.ensure(ctx)
			ready = err == nil
		}
		if err == nil {
			n, err = r.Once(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			r.opts.Logger.Warn("events: relay turn failed; the events wait in the outbox", "relay", r.opts.Name, "err", err, "retry_in", backoff)
			sleep(ctx, backoff/2+rand.N(backoff/2+1), nil)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if n < r.opts.Batch {
			sleep(ctx, r.opts.Poll, wake)
		}
	}
	return nil
}

// sleep waits for d, wake, or the end of ctx.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
	}
}

// ensure creates the relay's stream if it is missing.
func (r *jetStreamPublisher) ensure(ctx context.Context) error {
	_, err := r.js.Stream(ctx, r.opts.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = r.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:     r.opts.Stream,
			Subjects: []string{r.opts.Subject + ".>"},
			Storage:  jetstream.FileStorage,
			Replicas: r.opts.Replicas,
		})
	}
	if err != nil {
		return fmt.Errorf("events: stream %s: %w", r.opts.Stream, err)
	}
	return nil
}

// errBusy ends a turn that another instance has.
var errBusy = errors.New("events: another instance has the relay's turn")

// Once takes one turn: it publishes the next batch of events after the
// relay's checkpoint, waits until the broker has acknowledged each, and
// moves the checkpoint past them. It returns how many it published: 0
// when there were none, or another instance has the turn.
//
// To JetStream, each message carries the event's id as its Nats-Msg-Id, so a batch
// published again (the process died after the broker had it and before
// the checkpoint moved, or an acknowledgement was lost) is dropped by the
// broker as a duplicate, within the stream's duplicate window. Each but
// the turn's first also carries the id of the event before it as the
// stream's expected last message id, so the broker stores an event only
// right after the one before it: a message that was lost (the broker
// stopped part way through a batch, or was not ready when it came back)
// makes every later one of its batch fail, never land ahead of it, and
// a turn's leftovers that arrive late (retried by the client, or sent
// from its reconnect buffer) are duplicates or land in order. The stream
// holds the outbox in position order. To Kafka, see NewKafka.
//
// Where the store runs one write transaction at a time (SQLite), the turn
// does not hold the store while it waits for the broker: it reads, then
// publishes, then moves the checkpoint, and a second instance on the same
// file would publish duplicates, which the broker drops.
func (r *Relay) Once(ctx context.Context) (int, error) {
	if !r.store.Features().RowLocks {
		return r.onceSerial(ctx)
	}
	n := 0
	err := r.store.Update(ctx, func(tx stockade.Tx) error {
		n = 0
		pos, ok, err := tx.RelayLock(ctx, r.opts.Name)
		if err != nil {
			return err
		}
		if !ok {
			return errBusy
		}
		evs, err := tx.EventList(ctx, stockade.DomainEventFilter{After: pos, Limit: r.opts.Batch})
		if err != nil {
			return err
		}
		r.noteOldest(evs)
		if len(evs) == 0 {
			return nil
		}
		if err := r.pub.publish(ctx, evs); err != nil {
			return err
		}
		n = len(evs)
		return tx.RelaySetPosition(ctx, r.opts.Name, evs[len(evs)-1].Position)
	})
	if errors.Is(err, errBusy) {
		return 0, nil
	}
	r.published.Add(int64(n))
	if err == nil && n < r.opts.Batch {
		r.oldest.Store(0) // it published all there was
	}
	return n, err
}

// onceSerial is Once on a store with one writer at a time.
func (r *Relay) onceSerial(ctx context.Context) (int, error) {
	var evs []stockade.DomainEvent
	err := r.store.View(ctx, func(tx stockade.Tx) error {
		pos, _, err := tx.RelayLock(ctx, r.opts.Name)
		if err != nil {
			return err
		}
		evs, err = tx.EventList(ctx, stockade.DomainEventFilter{After: pos, Limit: r.opts.Batch})
		return err
	})
	if err != nil {
		return 0, err
	}
	r.noteOldest(evs)
	if len(evs) == 0 {
		return 0, nil
	}
	if err := r.pub.publish(ctx, evs); err != nil {
		return 0, err
	}
	last := evs[len(evs)-1].Position
	err = r.store.Update(ctx, func(tx stockade.Tx) error {
		pos, _, err := tx.RelayLock(ctx, r.opts.Name)
		if err != nil || !pos.Less(last) {
			return err // another instance went further meanwhile
		}
		return tx.RelaySetPosition(ctx, r.opts.Name, last)
	})
	if err != nil {
		return 0, err
	}
	r.published.Add(int64(len(evs)))
	if len(evs) < r.opts.Batch {
		r.oldest.Store(0) // it published all there was
	}
	return len(evs), nil
}

// noteOldest records the age of evs, a turn's events, for Lag.
func (r *Relay) noteOldest(evs []stockade.DomainEvent) {
	if len(evs) == 0 {
		r.oldest.Store(0)
		return
	}
	r.oldest.Store(evs[0].At.UnixNano())
}

// message is an event as the relay publishes it: the event, and its
// cursor in the service's feed (GET /v1/events?after=).
type message struct {
	stockade.DomainEvent
	Cursor string `json:"cursor"`
}

// publish sends evs in order and waits for every acknowledgement.
func (r *jetStreamPublisher) publish(ctx context.Context, evs []stockade.DomainEvent) error {
	acks := make([]jetstream.PubAckFuture, 0, len(evs))
	for i, ev := range evs {
		data, err := json.Marshal(message{ev, ev.Position.Cursor()})
		if err != nil {
			return fmt.Errorf("events: encode %s: %w", ev.ID, err)
		}
		msg := &nats.Msg{Subject: subject(r.opts, ev), Data: data, Header: nats.Header{}}
		msg.Header.Set(jetstream.MsgIDHeader, ev.ID)
		if i > 0 {
			msg.Header.Set(jetstream.ExpectedLastMsgIDHeader, evs[i-1].ID)
		}
		ack, err := r.js.PublishMsgAsync(msg)
		if err != nil {
			return fmt.Errorf("events: publish %s: %w", ev.ID, err)
		}
		acks = append(acks, ack)
	}
	wait := time.NewTimer(r.opts.AckWait)
	defer wait.Stop()
	for i, ack := range acks {
		select {
		case <-ack.Ok():
		case err := <-ack.Err():
			return fmt.Errorf("events: publish %s: %w", evs[i].ID, err)
		case <-wait.C:
			return fmt.Errorf("events: publish %s: no acknowledgement within %s", evs[i].ID, r.opts.AckWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
