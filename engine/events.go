package engine

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// The event feed
//
// Events reads the outbox that every write transaction appends to (see
// writes.go); the notifier wakes the readers that wait for more.

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
// outbox (Tx.EventLatestPosition) instead of events, which in the same
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
					f.After, err = tx.EventLatestPosition(ctx)
					return err
				}
				evs, err = tx.EventList(ctx, f)
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
