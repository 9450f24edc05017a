package redisq

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBatches is how many batches a Pipe has on the wire at once. Fewer make
// larger batches, each saving the client and the server a read and a
// write per call; more keep both busy while a batch's replies are being
// handed out, and take a fairer share of a server that other clients keep
// busy: Redis serves its connections in turn, one read each. Eight is the
// compromise that stockade locks bench found between a client alone, which
// loses to batches too small, and one that shares its Redis with a busy
// client, which gains from more turns; the README's lock benchmark has the
// numbers.
const maxBatches = 8

// Pipe runs the scripts of concurrent callers on one server in pipelines.
// A call that finds fewer than maxBatches batches on the wire goes out at
// once; calls that arrive meanwhile queue up and go out together in one
// pipeline when a batch returns. Every call that shares a pipeline saves
// the client and the server a read and a write: most of what an
// uncontended lock costs them when many goroutines lock at once.
//
// The goroutine whose batch returned hands its place on the wire to a
// caller waiting in Run, which sends the queue, its own call among it: no
// goroutine is started, and that caller gets its reply without another
// wake-up. Only calls started with Go, which have no caller waiting, are
// sent by a goroutine of their own.
type Pipe struct {
	client redis.UniversalClient

	mu      sync.Mutex
	queue   []*Call
	running int // batches on the wire, or being taken from the queue

	unreachable atomic.Bool // see Unreachable
}

// Unreachable reports whether the last batch the Pipe sent failed on the
// way to the server: the connection was refused or dropped. The next reply
// clears it. A batch that only ran out of time says nothing either way: a
// server that is up but slow (a busy machine) must not pass for one that
// is down. A caller that needs some servers' answers can stop waiting for
// an unreachable one once the others have decided the outcome.
func (p *Pipe) Unreachable() bool { return p.unreachable.Load() }

// observe records whether the server answered any call of a batch just
// sent (an error reply is an answer too), or whether the batch failed on
// the connection. Timeouts and calls their callers cancelled say nothing.
func (p *Pipe) observe(batch []*Call) {
	heard, failed := false, false
	for _, c := range batch {
		switch err := c.cmd.Err(); {
		case err == nil || isReply(err):
			heard = true
		case !isTimeout(err) && !errors.Is(err, context.DeadlineExceeded) &&
			!errors.Is(err, context.Canceled) && !errors.Is(err, redis.ErrPoolTimeout):
			failed = true
		}
	}
	switch {
	case heard:
		p.unreachable.Store(false)
	case failed:
		p.unreachable.Store(true)
	}
}

// isReply reports whether err is an error the server replied with, as
// opposed to one on the way to it.
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}

// NewPipe returns a Pipe on client.
func NewPipe(client redis.UniversalClient) *Pipe { return &Pipe{client: client} }

// Call is one script run through a Pipe.
type Call struct {
	ctx    context.Context
	script *Script
	cmd    *redis.Cmd
	onDone func(*Call) // called once done, if not nil

	// Guarded by Pipe.mu:
	sent  bool // taken into a batch
	waits bool // queued by Run, whose caller can send it
	leads bool // its caller was handed a place on the wire to send it

	// Closed once val and err are set; nil for a call its caller sent.
	// A call queued by Run receives one value first if its caller is
	// handed a place on the wire.
	done chan struct{}
	val  any
	err  error
}

// Done is closed when the call has its result.
func (c *Call) Done() <-chan struct{} { return c.done }

// Result returns the script's reply, once Done is closed.
func (c *Call) Result() (any, error) { return c.val, c.err }

// Run runs s with keys (the key count, then the keys) and args and
// returns its reply. If ctx ends while the call is still queued, it is
// never sent and Run returns ctx's error. Once sent, Run waits for the
// reply until ctx ends, and then returns ctx's error without it, even when
// the call went out in a batch with calls that may wait longer: the
// caller must take the call as perhaps run, as after a lost reply.
func (p *Pipe) Run(ctx context.Context, s *Script, keys, args []any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &Call{ctx: ctx, script: s, cmd: s.cmd(ctx, keys, args)}
	p.mu.Lock()
	if p.running < maxBatches {
		p.running++
		return p.lead(c)
	}
	c.done = make(chan struct{}, 1)
	c.waits = true
	p.queue = append(p.queue, c)
	p.mu.Unlock()
	select {
	case _, leads := <-c.done:
		if leads {
			p.mu.Lock()
			return p.lead(c)
		}
		return c.val, c.err
	case <-ctx.Done():
	}
	p.mu.Lock()
	leads, sent := c.leads, c.sent
	p.mu.Unlock()
	switch {
	case leads:
		// Handed a place on the wire just as we gave up: pass it on.
		go p.drain()
		return nil, ctx.Err()
	case !sent:
		return nil, ctx.Err() // the batch that takes it skips it
	}
	select {
	case <-c.done:
		return c.val, c.err
	default:
		return nil, ctx.Err() // its batch may wait for a later deadline
	}
}

// lead sends c, with the calls queued, as one batch, in the place on the
// wire its caller holds, and returns c's reply. p.mu must be held; lead
// releases it.
func (p *Pipe) lead(c *Call) (any, error) {
	batch, skipped := p.take()
	if c.admit() {
		batch = append(batch, c)
	} else {
		skipped = append(skipped, c)
	}
	p.mu.Unlock()
	finishSkipped(skipped)
	if !outlived(batch, c) {
		p.send(batch)
		p.mu.Lock()
		p.handOn()
		p.mu.Unlock()
		return c.val, c.err
	}
	// The batch is sent with the latest of its deadlines: send it from a
	// goroutine, so that c's caller can leave at its own.
	if c.done == nil {
		c.done = make(chan struct{})
	}
	go func() {
		p.send(batch)
		p.mu.Lock()
		p.handOn()
		p.mu.Unlock()
	}()
	select {
	case <-c.done:
		return c.val, c.err
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	}
}

// outlived reports whether a call of batch other than c may wait longer
// than c's caller: it has no deadline, or a later one, while c has one.
func outlived(batch []*Call, c *Call) bool {
	mine, ok := c.ctx.Deadline()
	if !ok {
		return false
	}
	for _, o := range batch {
		if o == c {
			continue
		}
		if d, ok := o.ctx.Deadline(); !ok || d.After(mine) {
			return true
		}
	}
	return false
}

// handOn passes on a place on the wire whose batch has returned: to a
// caller waiting in Run, which sends the queue; to a goroutine of its own
// when only calls started with Go are queued; or back to the Pipe when
// nothing is. p.mu must be held.
func (p *Pipe) handOn() {
	if len(p.queue) == 0 {
		p.running--
		return
	}
	for i, c := range p.queue {
		if c.waits && c.ctx.Err() == nil {
			p.queue = slices.Delete(p.queue, i, i+1)
			c.sent, c.leads = true, true
			c.done <- struct{}{}
			return
		}
	}
	go p.drain()
}

// Go starts s with keys and args without waiting for it. The call is sent
// with the next batch unless ctx has ended by then. When it is done, Done
// is closed and onDone, if not nil, is called with it; onDone must not
// block.
func (p *Pipe) Go(ctx context.Context, onDone func(*Call), s *Script, keys, args []any) *Call {
	c := &Call{ctx: ctx, script: s, cmd: s.cmd(ctx, keys, args), onDone: onDone, done: make(chan struct{})}
	p.mu.Lock()
	p.queue = append(p.queue, c)
	start := p.running < maxBatches
	if start {
		p.running++
	}
	p.mu.Unlock()
	if start {
		go p.drain()
	}
	return c
}

// drain sends the queued calls, batch after batch, until none is left.
func (p *Pipe) drain() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.running--
			p.mu.Unlock()
			return
		}
		batch, skipped := p.take()
		p.mu.Unlock()
		finishSkipped(skipped)
		p.send(batch)
	}
}

// take empties the queue into a batch, leaving out the calls whose
// context has ended: complete those with finishSkipped once p.mu is
// released. p.mu must be held.
func (p *Pipe) take() (batch, skipped []*Call) {
	batch = p.queue
	p.queue = nil
	n := 0
	for _, c := range batch {
		if !c.admit() {
			skipped = append(skipped, c)
			continue
		}
		batch[n] = c
		n++
	}
	return batch[:n], skipped
}

// admit marks c sent unless its context has ended, and reports whether it
// did: a call whose context has ended is skipped, never sent. Pipe.mu must
// be held.
func (c *Call) admit() bool {
	if c.ctx.Err() != nil {
		return false
	}
	c.sent = true
	return true
}

func finishSkipped(skipped []*Call) {
	for _, c := range skipped {
		c.finish(nil, c.ctx.Err())
	}
}

// send runs a batch and completes its calls.
func (p *Pipe) send(batch []*Call) {
	switch len(batch) {
	case 0:
		return
	case 1:
		c := batch[0]
		if err := p.client.Process(c.ctx, c.cmd); isNoScript(err) {
			c.cmd = c.script.eval(c.ctx, c.cmd)
			p.client.Process(c.ctx, c.cmd)
		}
		p.observe(batch)
		c.finish(c.cmd.Result())
		return
	}
	ctx, cancel := batchContext(batch)
	defer cancel()
	pipe := p.client.Pipeline()
	for _, c := range batch {
		pipe.Process(ctx, c.cmd)
	}
	pipe.Exec(ctx) // each command carries its own error
	for _, c := range batch {
		if isNoScript(c.cmd.Err()) {
			// The server lost its script cache (a restart, SCRIPT FLUSH):
			// send the source, which loads it again.
			c.cmd = c.script.eval(ctx, c.cmd)
			p.client.Process(ctx, c.cmd)
		}
	}
	p.observe(batch)
	for _, c := range batch {
		c.finish(c.cmd.Result())
	}
}

func (c *Call) finish(val any, err error) {
	c.val, c.err = val, err
	if c.done != nil {
		close(c.done)
	}
	if c.onDone != nil {
		c.onDone(c)
	}
}

// batchContext is the context a batch is sent with: the values of its
// first call's, and the latest of their deadlines (none if one call has
// none), so that no call is cut short by another's deadline.
func batchContext(batch []*Call) (context.Context, context.CancelFunc) {
	var deadline time.Time
	for _, c := range batch {
		d, ok := c.ctx.Deadline()
		if !ok {
			return context.WithoutCancel(batch[0].ctx), func() {}
		}
		if d.After(deadline) {
			deadline = d
		}
	}
	return context.WithDeadline(context.WithoutCancel(batch[0].ctx), deadline)
}

func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}
