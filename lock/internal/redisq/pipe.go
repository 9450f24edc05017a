package redisq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBatches is how many batches a Pipe has on the wire at once: two keep
// the server busy while the next batch gathers; more would only split the
// batches.
const maxBatches = 2

// Pipe runs the scripts of concurrent callers on one server in batches.
// A call that finds fewer than maxBatches batches on the wire goes out at
// once; calls that arrive meanwhile queue up and go out together when a
// batch returns. Every call that shares a batch saves the client and the
// server a read and a write: most of what an uncontended lock costs them
// when many goroutines lock at once.
//
// On a plain or failover client (*redis.Client) a batch runs as one
// script (batch.lua), which also saves the server a script run per call.
// On a Cluster or a Ring its calls may live on different slots, and it
// goes out as a pipeline of scripts.
type Pipe struct {
	client  redis.UniversalClient
	combine bool // batches run as one script

	mu      sync.Mutex
	queue   []*Call
	running int // batches on the wire, or being taken from the queue
}

// NewPipe returns a Pipe on client.
func NewPipe(client redis.UniversalClient) *Pipe {
	_, combine := client.(*redis.Client)
	return &Pipe{client: client, combine: combine}
}

// Call is one script run through a Pipe.
type Call struct {
	ctx        context.Context
	script     *script
	keys, args []any       // keys starts with their count
	onDone     func(*Call) // called once done, if not nil

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
	c := &Call{ctx: ctx, script: s, keys: keys, args: args}
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
	c := &Call{ctx: ctx, script: s, keys: keys, args: args, onDone: onDone, done: make(chan struct{})}
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
	switch {
	case len(batch) == 0:
	case len(batch) == 1:
		c := batch[0]
		c.finish(p.process(c.ctx, c.script, c.script.cmd(c.ctx, c.keys, c.args)))
	case p.combine && oneFamily(batch):
		p.sendCombined(batch)
	default:
		p.sendPipelined(batch)
	}
}

// process runs cmd, an EVALSHA of s, and returns its reply. If the server
// lost its script cache (a restart, SCRIPT FLUSH), it sends the source,
// which loads it again.
func (p *Pipe) process(ctx context.Context, s *script, cmd *redis.Cmd) (any, error) {
	if err := p.client.Process(ctx, cmd); isNoScript(err) {
		cmd = s.eval(ctx, cmd)
		p.client.Process(ctx, cmd)
	}
	return cmd.Result()
}

// oneFamily reports whether one batch script can run every call of batch.
func oneFamily(batch []*Call) bool {
	for _, c := range batch[1:] {
		if c.script.family != batch[0].script.family {
			return false
		}
	}
	return batch[0].script.family != nil
}

// sendCombined runs batch as one call of its family's batch script.
func (p *Pipe) sendCombined(batch []*Call) {
	ctx, cancel := batchContext(batch)
	defer cancel()
	nkeys, nargs := 0, 1
	for _, c := range batch {
		nkeys += len(c.keys) - 1
		nargs += 3 + len(c.args)
	}
	f := batch[0].script.family
	argv := make([]any, 0, 3+nkeys+nargs)
	argv = append(argv, "evalsha", f.batch.hash, nkeys)
	for _, c := range batch {
		argv = append(argv, c.keys[1:]...)
	}
	argv = append(argv, len(batch))
	for _, c := range batch {
		argv = append(argv, c.script.op, len(c.keys)-1, len(c.args))
		argv = append(argv, c.args...)
	}
	cmd := redis.NewCmd(ctx, argv...)
	cmd.SetFirstKeyPos(3)
	val, err := p.process(ctx, f.batch, cmd)
	replies, ok := val.([]any)
	if err == nil && (!ok || len(replies) != len(batch)) {
		err = fmt.Errorf("batch script returned %v for %d calls", val, len(batch))
	}
	for i, c := range batch {
		if err != nil {
			c.finish(nil, err)
		} else if e, failed := replies[i].(error); failed {
			c.finish(nil, e) // this call's error; the others ran
		} else {
			c.finish(replies[i], nil)
		}
	}
}

// sendPipelined runs the calls of batch in one pipeline.
func (p *Pipe) sendPipelined(batch []*Call) {
	ctx, cancel := batchContext(batch)
	defer cancel()
	cmds := make([]*redis.Cmd, len(batch))
	pipe := p.client.Pipeline()
	for i, c := range batch {
		cmds[i] = c.script.cmd(ctx, c.keys, c.args)
		pipe.Process(ctx, cmds[i])
	}
	pipe.Exec(ctx) // each command carries its own error
	for i, c := range batch {
		cmd := cmds[i]
		if isNoScript(cmd.Err()) {
			cmd = c.script.eval(ctx, cmd)
			p.client.Process(ctx, cmd)
		}
		c.finish(cmd.Result())
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
