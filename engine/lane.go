package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// Lanes: direct is a batch of one
//
// Every write that the Batch strategy groups — Reserve, Checkout and
// Confirm; HoldSeats and ConfirmHold; ApplyOutcome — has one body: a
// function that decides a batch of calls in one transaction (decideStock,
// decideHolds, decideConfirms, decideOutcomes). A lane carries calls to
// it. New chooses the lane once, from the strategy: under Batch a group
// lane, which queues the calls that arrive while a transaction runs and
// decides them together in the next; under every other strategy a direct
// lane, which decides each call alone, as a batch of one, in the caller's
// goroutine and under the caller's deadline. The same decide function
// serves both, so what a call meets does not depend on its lane.

// lane carries write calls of one kind, j, to the transaction that
// decides them, and returns once j is decided: j's own fields then hold
// its result, and the error is j's refusal or the transaction's failure.
type lane[J job] interface {
	apply(ctx context.Context, j J) error
}

// job is a write call in a lane: it gives the lane its part of the call.
type job interface{ base() *slot }

// slot is what a lane keeps of each call: the call, its place in a
// group's queue, and what its transaction made of it. A decide function
// sets replayed and err (and the call's own result) on each attempt; the
// lane sets the rest.
type slot struct {
	c *call

	// Guarded by the group's mu.
	taken     bool // a batch holds it
	withdrawn bool // its caller gave up before a batch took it

	done     chan struct{} // closed once the fields below are set
	attempts int           // the transaction's attempts
	// replayed: the call's idempotency key had a stored result, which the
	// call's result is.
	replayed bool
	err      error // the call's refusal, or its transaction's failure
}

func (s *slot) base() *slot { return s }

// reset clears what an earlier attempt of a transaction decided of s.
func (s *slot) reset() { s.replayed, s.err = false, nil }

// txn runs the transaction, retried whole on conflicts, that decides the
// calls of batch (one under a direct lane), calls of one kind and one
// queue key. c is the call the transaction is counted on: the caller's
// under a direct lane, the batch's under a group lane.
type txn[J job] func(ctx context.Context, c *call, batch []J) error

// direct decides each call alone, in the caller's goroutine.
type direct[J job] struct{ run txn[J] }

func (d direct[J]) apply(ctx context.Context, j J) error {
	s := j.base()
	if err := d.run(ctx, s.c, []J{j}); err != nil {
		return err
	}
	s.c.replayed = s.replayed
	return s.err
}

// group queues the calls that arrive while a transaction of their queue
// runs; the next transaction takes every queued call, up to
// Options.MaxBatch, in arrival order. Nothing lingers: a call that finds
// its queue idle starts a batch of its own at once, so a lone call costs
// one transaction, as under a direct lane, and under load the batches
// grow by themselves.
//
// Each queue has one goroutine while it has calls, which exits when it is
// empty, so an idle engine holds no goroutine and needs no Close.
type group[J job] struct {
	e    *Engine
	run  txn[J]
	what string // what a batch is of, for errors: "calls", "payment outcomes"
	// key names the queue of a call: calls of different queues are decided
	// in different transactions. Nil: one queue.
	key func(J) string
	// unknown tells a caller whose call was in a batch when its context
	// ended how to learn the outcome.
	unknown string

	mu     sync.Mutex
	queues map[string]*queue[J] // while they have calls
}

type queue[J job] struct {
	calls []J // arrival order
}

func newGroup[J job](e *Engine, run txn[J], what string, key func(J) string, unknown string) *group[J] {
	return &group[J]{e: e, run: run, what: what, key: key, unknown: unknown, queues: map[string]*queue[J]{}}
}

// apply queues j and waits for the batch that decides it. A caller whose
// ctx ends while its call is still queued withdraws it, which changes
// nothing. One whose ctx ends once a batch holds its call does not wait
// for the batch either: it gets EUnavailable saying that the outcome is
// unknown, and the batch goes on under its own deadline (Options.Timeout)
// and commits or rolls back the call with the others, its outcome
// dropped. The call's idempotency key, whose record commits with the
// batch, tells a retry which it was: the stored result, or a fresh run.
func (g *group[J]) apply(ctx context.Context, j J) error {
	s := j.base()
	c := s.c
	if c.idem != nil {
		idem := *c.idem // the batch may read it after the caller has left
		c.idem = &idem
	}
	key := ""
	if g.key != nil {
		key = g.key(j)
	}
	s.done = make(chan struct{})
	g.mu.Lock()
	q, ok := g.queues[key]
	if !ok {
		q = &queue[J]{}
		g.queues[key] = q
		go g.drain(key, q)
	}
	q.calls = append(q.calls, j)
	g.mu.Unlock()

	select {
	case <-s.done:
	case <-ctx.Done():
		g.mu.Lock()
		s.withdrawn = !s.taken
		g.mu.Unlock()
		if s.withdrawn {
			return fmt.Errorf("engine: %s: queued for a batch: %w", c.op, ctx.Err())
		}
		select {
		case <-s.done: // decided meanwhile: that is the answer
		default:
			err := fmt.Errorf("engine: %s: in a batch: %w: %w", c.op, stockade.Errorf(stockade.EUnavailable,
				"the request did not finish before its deadline and its outcome is unknown; "+g.unknown), ctx.Err())
			logGaveUp(ctx, c.e.log, "engine: call left its batch undecided", "op", c.op, "err", err)
			return err
		}
	}
	c.attempts += s.attempts
	c.replayed = s.replayed
	return s.err
}

// drain runs the batches of one queue until it is empty, and then
// forgets the queue.
func (g *group[J]) drain(key string, q *queue[J]) {
	for {
		g.mu.Lock()
		var batch []J
		n := 0
		for ; n < len(q.calls) && len(batch) < g.e.opts.MaxBatch; n++ {
			if j := q.calls[n]; !j.base().withdrawn {
				j.base().taken = true
				batch = append(batch, j)
			}
		}
		clear(q.calls[:n]) // let the taken calls be collected
		q.calls = q.calls[n:]
		if len(batch) == 0 {
			delete(g.queues, key)
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.decide(batch)
	}
}

// decide decides every call of batch in one write transaction, retried
// whole on conflicts, and hands each call its outcome once the
// transaction has ended. Nothing of a batch whose transaction failed was
// committed, so every call of it gets the failure. The transaction runs
// under a context of its own, bounded by Options.Timeout: no caller's
// cancellation may abort a transaction that decides other calls too.
func (g *group[J]) decide(batch []J) {
	e := g.e
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.Timeout)
	defer cancel()
	c := &call{e: e, op: "batch", start: time.Now()}
	err := g.run(ctx, c, batch)
	if err != nil {
		err = fmt.Errorf("engine: batch of %d %s: %w", len(batch), g.what, err)
	}
	if obs := e.opts.Observer; obs != nil {
		obs(CallReport{Op: "batch", Code: stockade.ErrorCode(err), Attempts: c.attempts, Retries: c.retries, Duration: time.Since(c.start), Calls: len(batch)})
	}
	for _, j := range batch {
		s := j.base()
		s.attempts = c.attempts
		if err != nil {
			s.replayed, s.err = false, err
		}
		close(s.done)
	}
}

// queued returns how many calls wait in g for a batch to take them.
func (g *group[J]) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, q := range g.queues {
		for _, j := range q.calls {
			if !j.base().withdrawn {
				n++
			}
		}
	}
	return n
}
