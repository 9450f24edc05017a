package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// The outbox
//
// Every change a transaction makes is described by events appended in the
// same transaction (stockade.Tx.AppendEvents), so that an event exists
// exactly when its change committed. A transaction collects them in an
// outbox as it decides its writes, and flushes them with the rest.

// outbox collects the events of one transaction.
type outbox struct {
	evs []stockade.DomainEvent
	err error // the first payload that did not encode
}

// add adds an event of typ about the aggregate id, at version, whose
// payload is v in JSON.
func (o *outbox) add(typ, aggregate, id string, version int64, at time.Time, v any) {
	payload, err := json.Marshal(v)
	if err != nil {
		if o.err == nil {
			o.err = fmt.Errorf("engine: encode the payload of a %s event of %s %s: %w", typ, aggregate, id, err)
		}
		return
	}
	o.evs = append(o.evs, stockade.DomainEvent{ID: newID("evt"), Type: typ, Aggregate: aggregate, AggregateID: id,
		Version: version, At: wire(at), Payload: payload})
}

// levelPayload is a level as its events show it: with what is
// available.
type levelPayload struct {
	stockade.Level
	Available int64 `json:"available"`
}

// level adds the events of a level moved by d to after: an event of typ,
// if typ is not empty, and stock.out or stock.in if its available fell to
// 0 or rose from 0.
func (o *outbox) level(typ string, after stockade.Level, d stockade.Delta, at time.Time) {
	id, payload := after.Key().String(), levelPayload{after, after.Available()}
	if typ != "" {
		o.add(typ, stockade.AggregateLevel, id, after.Version, at, payload)
	}
	before := after.Available() - (d.OnHand - d.Reserved - d.Committed)
	switch {
	case before > 0 && after.Available() == 0:
		o.add(stockade.EventOutOfStock, stockade.AggregateLevel, id, after.Version, at, payload)
	case before <= 0 && after.Available() > 0:
		o.add(stockade.EventBackInStock, stockade.AggregateLevel, id, after.Version, at, payload)
	}
}

// wire is t as the stores keep it and the API shows it: UTC, to the
// microsecond. Payloads use it, so that an event shows the times that
// reading its aggregate later shows.
func wire(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// reservation adds an event of typ about r, as r is after the change.
func (o *outbox) reservation(typ string, r stockade.Reservation, at time.Time) {
	r.CreatedAt, r.ExpiresAt = wire(r.CreatedAt), wire(r.ExpiresAt)
	version := int64(2)
	if r.Status == stockade.Held {
		version = 1
	}
	o.add(typ, stockade.AggregateReservation, r.ID, version, at, r)
}

// order adds an event of typ about ord, as it is after the change.
func (o *outbox) order(typ string, ord stockade.Order, at time.Time) {
	ord.CreatedAt = wire(ord.CreatedAt)
	o.add(typ, stockade.AggregateOrder, ord.ID, ord.Version, at, ord)
}

// hold adds an event of typ about h, as it is after the change.
func (o *outbox) hold(typ string, h stockade.Hold, at time.Time) {
	h.CreatedAt, h.ExpiresAt = wire(h.CreatedAt), wire(h.ExpiresAt)
	o.add(typ, stockade.AggregateHold, h.ID, h.Version, at, h)
}

// booking adds an event of typ about bk, as it is after the change.
func (o *outbox) booking(typ string, bk stockade.Booking, at time.Time) {
	bk.CreatedAt = wire(bk.CreatedAt)
	version := int64(2)
	if bk.Status == stockade.BookingBooked {
		version = 1
	}
	o.add(typ, stockade.AggregateBooking, bk.ID, version, at, bk)
}

// payment adds an event of typ about p, as it is after the change.
func (o *outbox) payment(typ string, p stockade.Payment, at time.Time) {
	p.CreatedAt, p.UpdatedAt = wire(p.CreatedAt), wire(p.UpdatedAt)
	if !p.StuckAt.IsZero() {
		p.StuckAt = wire(p.StuckAt)
	}
	o.add(typ, stockade.AggregatePayment, p.ID, p.Version, at, p)
}

// flush appends the events collected so far in tx, and empties o.
func (o *outbox) flush(ctx context.Context, tx stockade.Tx) error {
	if o.err != nil {
		return o.err
	}
	if len(o.evs) == 0 {
		return nil
	}
	err := tx.AppendEvents(ctx, o.evs...)
	o.evs = nil
	return err
}

// notifier wakes the readers waiting for events when a write transaction
// of this engine commits, and, on a store that is a
// stockade.EventSignaler, when the store hears that another instance's
// events committed: each reader waits on the channel of the moment, which
// the next of those closes.
type notifier struct {
	// remote is the store's EventsCommitted, or nil.
	remote func() <-chan struct{}

	mu sync.Mutex
	ch chan struct{}
	// forwarded is the channel for which a goroutine waits on remote, to
	// close it at the store's signal. One at a time: it ends at the
	// first of the two, and the store signals this engine's own commits
	// too.
	forwarded chan struct{}
}

// wait returns a channel that closes at the next commit.
func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	if n.remote != nil && n.forwarded != n.ch {
		n.forwarded = n.ch
		go n.forward(n.ch, n.remote())
	}
	return n.ch
}

// forward closes local at the store's signal, unless a commit of this
// engine closes it first.
func (n *notifier) forward(local chan struct{}, remote <-chan struct{}) {
	select {
	case <-remote:
		n.notify()
	case <-local:
	}
}

// notify wakes the readers waiting now.
func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}

// Events implements stockade.Service. A reader with nothing to read
// waits for a commit, reading again at each, until q.Wait ends or the
// call's deadline is near: it then answers with an empty page and its
// cursor, to ask again with. The commits it hears of are this engine's,
// and those the store signals (stockade.EventSignaler); it also reads
// again every Options.EventPoll, for the commits of other instances that
// nothing signalled, and for events that a long transaction held back.
//
// With stockade.LatestEventCursor, its first read takes the head of the
// outbox (Tx.LatestEventPosition) instead of events, which in the same
// snapshot there are none after; from then on it reads after the head,
// and an empty page's Next is the head's cursor, so that the next query
// goes on from there rather than from a later head.
func (e *Engine) Events(ctx context.Context, q stockade.DomainEventQuery) (stockade.DomainEventPage, error) {
	return run(e, ctx, "events", nil, func(ctx context.Context, c *call) (stockade.DomainEventPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.DomainEventPage{}, err
		}
		latest := q.Cursor == stockade.LatestEventCursor
		var after stockade.EventPosition
		if !latest {
			var err error
			if after, err = stockade.ParseEventCursor(q.Cursor); err != nil {
				return stockade.DomainEventPage{}, err
			}
		}
		cursor := q.Cursor
		f := stockade.DomainEventFilter{After: after, Types: q.Types, Aggregate: q.Aggregate, AggregateID: q.AggregateID,
			Limit: cmp.Or(q.Limit, stockade.DefaultEventLimit)}
		until := time.Now().Add(q.Wait)
		if d, ok := ctx.Deadline(); ok && d.Add(-deadlineMargin).Before(until) {
			until = d.Add(-deadlineMargin)
		}
		for {
			woken := e.written.wait() // before the read: a commit after it wakes us
			var evs []stockade.DomainEvent
			err := c.view(ctx, func(tx stockade.Tx) (err error) {
				if latest {
					f.After, err = tx.LatestEventPosition(ctx)
					return err
				}
				evs, err = tx.Events(ctx, f)
				return err
			})
			switch {
			case err != nil:
				return stockade.DomainEventPage{}, err
			case latest:
				latest, cursor = false, f.After.Cursor()
			case len(evs) > 0:
				return stockade.DomainEventPage{Events: evs, Next: evs[len(evs)-1].Position.Cursor()}, nil
			}
			left := time.Until(until)
			if left <= 0 {
				return stockade.DomainEventPage{Next: cursor}, nil
			}
			t := time.NewTimer(min(left, e.opts.EventPoll))
			select {
			case <-woken:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return stockade.DomainEventPage{}, ctx.Err()
			}
			t.Stop()
		}
	})
}

// deadlineMargin is how long before its deadline a waiting Events call
// stops waiting, so that its empty answer arrives in time.
const deadlineMargin = 250 * time.Millisecond

// Written returns a channel that closes when the engine next commits a
// write transaction, or the store signals a commit of events: an outbox
// relay waits on it (events.Options.Wake).
func (e *Engine) Written() <-chan struct{} { return e.written.wait() }
