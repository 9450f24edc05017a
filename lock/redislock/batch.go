package redislock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBatches is how many batches a batcher has on the wire at once, as
// many as the lock's scripts have (see redisq.Pipe).
const maxBatches = 8

// batcher runs the scripts of semaphores and read-write locks that a
// Locker's goroutines send at the same time in pipelines. A call that
// finds fewer than maxBatches batches on the wire goes out at once, in a
// batch of its own and of the calls queued meanwhile; the others queue,
// and go out together when a batch returns. Every call that shares a
// pipeline saves the client and the server a read and a write.
type batcher struct {
	client redis.UniversalClient

	mu      sync.Mutex
	queue   []*scriptCall
	running int // batches on the wire, or being sent
}

// scriptCall is one script run through a batcher.
type scriptCall struct {
	ctx    context.Context
	script *redis.Script
	keys   []string
	args   []any
	cmd    *redis.Cmd
	done   chan struct{} // closed once cmd has its reply or error
}

// run runs s with keys and args and returns its reply. If ctx ends while
// the call is queued, it is never sent; if it ends once the call is on
// the wire, run returns ctx's error without waiting for the reply, and
// the caller must take the script as perhaps run, as after a lost reply.
func (b *batcher) run(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	c := &scriptCall{ctx: ctx, script: s, keys: keys, args: args, cmd: evalSha(ctx, s, keys, args), done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	if b.running < maxBatches {
		// Send the queue, our call among it, then hand our place on the
		// wire on to a goroutine of its own if calls queued meanwhile.
		b.running++
		batch := b.take()
		b.mu.Unlock()
		b.send(batch)
		b.mu.Lock()
		if len(b.queue) > 0 {
			go b.drain()
		} else {
			b.running--
		}
	}
	b.mu.Unlock()
	select {
	case <-c.done:
		return c.cmd
	case <-ctx.Done():
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(ctx.Err())
		return cmd
	}
}

// drain sends the queue, batch after batch, until it is empty.
func (b *batcher) drain() {
	b.mu.Lock()
	for len(b.queue) > 0 {
		batch := b.take()
		b.mu.Unlock()
		b.send(batch)
		b.mu.Lock()
	}
	b.running--
	b.mu.Unlock()
}

// take empties the queue into a batch, and completes at once the calls
// whose context has ended: those are never sent. b.mu must be held.
func (b *batcher) take() []*scriptCall {
	batch := b.queue
	b.queue = nil
	n := 0
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.cmd.SetErr(err)
			close(c.done)
			continue
		}
		batch[n] = c
		n++
	}
	return batch[:n]
}

// send runs a batch in one pipeline and completes its calls. The server
// loads a script it does not have (it restarted, or its cache was
// flushed) when the call is sent again in full.
func (b *batcher) send(batch []*scriptCall) {
	switch len(batch) {
	case 0:
		return
	case 1:
		c := batch[0]
		b.client.Process(c.ctx, c.cmd)
		c.finish(c.ctx, b.client)
		return
	}
	ctx, cancel := batchContext(batch)
	defer cancel()
	pipe := b.client.Pipeline()
	for _, c := range batch {
		pipe.Process(ctx, c.cmd)
	}
	pipe.Exec(ctx) // each command carries its own error
	for _, c := range batch {
		c.finish(ctx, b.client)
	}
}

// finish completes c, first sending its script in full if the server
// did not have it.
func (c *scriptCall) finish(ctx context.Context, client redis.Scripter) {
	if redis.HasErrorPrefix(c.cmd.Err(), "NOSCRIPT") {
		c.cmd = c.script.Eval(ctx, client, c.keys, c.args...)
	}
	close(c.done)
}

// evalSha is the EVALSHA command that runs s, routed by its first key.
func evalSha(ctx context.Context, s *redis.Script, keys []string, args []any) *redis.Cmd {
	argv := make([]any, 0, 3+len(keys)+len(args))
	argv = append(argv, "evalsha", s.Hash(), len(keys))
	for _, k := range keys {
		argv = append(argv, k)
	}
	argv = append(argv, args...)
	cmd := redis.NewCmd(ctx, argv...)
	cmd.SetFirstKeyPos(3)
	return cmd
}

// batchContext is the context a batch is sent with: the values of its
// first call's, and the latest of their deadlines (none if one call has
// none), so that no call is cut short by another's deadline or
// cancellation.
func batchContext(batch []*scriptCall) (context.Context, context.CancelFunc) {
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
