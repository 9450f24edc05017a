package redisq

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBatches is how many batches a Pipe has on the wire at once. Fewer make
// larger batches, each saving the client and the server a read and a
// write per call; more keep both busy while a batch's replies are being
// handed out. With 16 goroutines locking free keys on a 2-core machine,
// two batches averaged 4.7 calls each but left the CPUs idle a third of
// the time; four averaged 2.9 calls and ran about 15% more locks a second.
// Three to six measured alike.
const maxBatches = 4

// Pipe runs the scripts of concurrent callers on one server in pipelines.
// A call that finds fewer than maxBatches batches on the wire goes out at
// once; calls that arrive meanwhile queue up and go out together in one
// pipeline when a batch returns. Every call that shares a pipeline saves
// the client and the server a read and a write: most of what an
// uncontended lock costs them when many goroutines lock at once.
type Pipe struct {
	client redis.UniversalClient

	mu      sync.Mutex
	queue   []*Call
	running int // batches on the wire, or being taken from the queue
}

// NewPipe returns a Pipe on client.
func NewPipe(client redis.UniversalClient) *Pipe { return &Pipe{client: client} }

// Call is one script run through a Pipe.
type Call struct {
	ctx    context.Context
	script *script
	cmd    *redis.Cmd
	onDone func(*Call) // called once done, if not nil

	sent bool          // guarded by Pipe.mu: taken into a batch
	done chan struct{} // closed once val and err are set; nil for a call run by its caller
	val  any
	err  error
}

// Done is closed when the call has its result.
func (c *Call) Done() <-chan struct{} { return c.done }

// Result returns the script's reply, once Done is closed.
func (c *Call) Result() (any, error) { return c.val, c.err }

// Run runs s with keys (the key count, then the keys) and args and
// returns its reply. If ctx ends while
// the call is still queued, it is never sent and Run returns ctx's error;
// once sent, Run waits for the reply, as a plain command does.
func (p *Pipe) Run(ctx context.Context, s *script, keys, args []any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &Call{ctx: ctx, script: s, cmd: s.cmd(ctx, keys, args)}
	p.mu.Lock()
	if p.running < maxBatches {
		// Send it ourselves, with whatever else is queued, and leave any
		// later arrivals to a goroutine of their own.
		p.running++
		batch, skipped := p.take()
		batch = append(batch, c)
		c.sent = true
		p.mu.Unlock()
		finishSkipped(skipped)
		p.send(batch)
		p.mu.Lock()
		more := len(p.queue) > 0
		if !more {
			p.running--
		}
		p.mu.Unlock()
		if more {
			go p.drain()
		}
		return c.val, c.err
	}
	c.done = make(chan struct{})
	p.queue = append(p.queue, c)
	p.mu.Unlock()
	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
	}
	p.mu.Lock()
	sent := c.sent
	p.mu.Unlock()
	if !sent {
		return nil, ctx.Err() // the batch that takes it skips it
	}
	<-c.done
	return c.val, c.err
}

// Go starts s with keys and args without waiting for it. The call is sent
// with the next batch unless ctx has ended by then. When it is done, Done
// is closed and onDone, if not nil, is called with it; onDone must not
// block.
func (p *Pipe) Go(ctx context.Context, onDone func(*Call), s *script, keys, args []any) *Call {
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
		if c.ctx.Err() != nil {
			skipped = append(skipped, c)
			continue
		}
		c.sent = true
		batch[n] = c
		n++
	}
	return batch[:n], skipped
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
