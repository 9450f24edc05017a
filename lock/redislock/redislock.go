package redislock

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
	"github.com/stockade/stockade/lock/internal/redisq"
)

// Options configures a Locker. A nil *Options means all defaults.
type Options struct {
	// Prefix is put before every key this Locker touches, e.g.
	// "booking:lock:". Lockers that should exclude each other must use the
	// same prefix.
	// Default: "lock:".
	Prefix string

	// WaiterTimeout is how long a queued waiter keeps its place without
	// re-announcing itself. Live waiters re-announce every WaiterTimeout/3;
	// one that crashed holds the queue up for at most this long. It also
	// bounds how long a lock handed to a waiter waits to be claimed.
	// Default: 3s.
	WaiterTimeout time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Prefix == "" {
		out.Prefix = "lock:"
	}
	if out.WaiterTimeout <= 0 {
		out.WaiterTimeout = 3 * time.Second
	}
	return out
}

// Locker is a lock.Locker on one Redis server (or a Redis Cluster, or a
// Sentinel-managed primary) through a go-redis client. It is safe for
// concurrent use. Close it to free its notification connection.
type Locker struct {
	client redis.UniversalClient
	pipe   *redisq.Pipe
	opts   Options
	notes  *redisq.Notifier
	held   holdings // for Break to end

	cleanups lease.Cleanups // leaves of abandoned acquisitions
}

var _ lock.Locker = (*Locker)(nil)

// New returns a Locker that uses client for every command. AUTH, the
// database number and TLS are whatever the client was configured with.
func New(client redis.UniversalClient, opts *Options) *Locker {
	return &Locker{
		client: client,
		pipe:   redisq.NewPipe(client),
		opts:   opts.withDefaults(),
		notes:  redisq.NewNotifier(client, nil),
	}
}

// Close stops the Locker's notification connection and waits for the
// clean-ups it runs in the background: taking a waiter whose call failed
// out of the queue, each bounded by WaiterTimeout. Close it before the
// client. Leases already granted stay valid; waiting Acquire calls fall
// back to re-checking on a timer.
func (l *Locker) Close() error {
	err := l.notes.Close()
	l.cleanups.Close()
	return err
}

// Acquire implements lock.Locker.
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, true, opts)
}

// TryAcquire implements lock.Locker.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, false, opts)
}

func (l *Locker) acquire(ctx context.Context, key string, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	ttl := a.Config.TTL
	// The owner id proves a lease is ours: rand.Text carries 128+ random bits.
	id := rand.Text()
	b := &backend{
		pipe:  l.pipe,
		notes: l.notes,
		held:  &l.held,
		q:     redisq.NewLock(redisq.KeysFor(l.opts.Prefix, key), id, l.opts.WaiterTimeout),
	}
	// Tokens from the server clock, not a count: a replica promoted
	// without the latest grants would count again from the last token it
	// saw, and give a new holder the token of a lease lost in the failover.
	b.q.ClockTokens = true
	granted := func(token uint64, validUntil time.Time) *lease.Lease {
		a.Granted(token)
		le := lease.New(key, token, validUntil, a.Config, b)
		l.hold(b.q.Keys.Lock, id, le)
		return le
	}

	// A free key costs one round trip: no subscription, no queue. So does
	// a held one whose channel is already subscribed (others wait on it):
	// listening first, the call may queue us at once.
	var wake chan uint64
	hot := wait && l.notes.Ready(b.q.Keys.Channel)
	if hot {
		wake = make(chan uint64, 1)
		defer l.notes.Listen(ctx, b.q.Keys.Channel, id, wake)()
	}
	sent := a.Start
	res, err := b.q.Acquire(ctx, l.pipe, ttl, hot, 0)
	if err == nil && !res.Granted {
		a.Contended = true
		if !wait {
			return nil, a.Refuse(ctx, nil)
		}
		if !hot {
			// Held: subscribe to hand-offs, then queue.
			wake = make(chan uint64, 1)
			defer l.notes.Listen(ctx, b.q.Keys.Channel, id, wake)()
			sent = time.Now()
			res, err = b.q.Acquire(ctx, l.pipe, ttl, true, 0)
		}
	}
	var queuedAt time.Time // when the first call that queued us was sent
	for {
		switch {
		case err != nil:
			// The server may have granted the lock before the reply was
			// lost. Give it back in the background: the server is failing.
			l.cleanups.Go(b.leave)
			return nil, a.Refuse(ctx, err)
		case res.Granted:
			return granted(res.Token, sent.Add(ttl)), nil
		}
		if res.Queued && queuedAt.IsZero() {
			queuedAt = sent
		}
		// Wait for the hand-off; re-check anyway when the holder's lease
		// would expire, and often enough to stay alive in the queue.
		recheck := l.opts.WaiterTimeout / 3
		if res.Expires > 0 && res.Expires < recheck {
			recheck = res.Expires
		}
		t := time.NewTimer(recheck)
		var token uint64
		select {
		case token = <-wake:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil {
			l.cleanups.Run(b.leave)
			return nil, a.Refuse(ctx, nil)
		}
		if token != 0 && !queuedAt.IsZero() {
			// The release that handed us the lock ran after we queued, and
			// gave it at least the claim window: until queuedAt + claim it
			// is ours without another round trip. Take it if enough of that
			// is left; with too little left, claim it with a round trip.
			claim := min(ttl, l.opts.WaiterTimeout)
			validUntil := queuedAt.Add(claim)
			if left := time.Until(validUntil); left >= claim/2 {
				le := granted(token, validUntil)
				// Extend it to the full TTL once half of what is left has
				// gone, unless it is released first: most holders are done
				// by then, and save the call.
				b.extend = time.AfterFunc(left/2, func() {
					rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Until(validUntil))
					defer cancel()
					le.Refresh(rctx, ttl) // on failure the lease ends at validUntil
				})
				return le, nil
			}
		}
		sent = time.Now()
		res, err = b.q.Acquire(ctx, l.pipe, ttl, true, 0)
	}
}

// backend is one acquisition's lock on the server; it implements
// lease.Backend for the lease it becomes.
type backend struct {
	pipe   *redisq.Pipe
	notes  *redisq.Notifier
	held   *holdings
	q      redisq.Lock
	extend *time.Timer // a handed-off lease's extension to its TTL, if pending
}

// Refresh implements lease.Backend.
func (b *backend) Refresh(ctx context.Context, ttl time.Duration) error {
	held, err := b.q.Refresh(ctx, b.pipe, ttl, false, 0)
	switch {
	case err != nil:
		return err
	case !held:
		return fmt.Errorf("%w: %q is no longer held", lock.ErrLost, b.q.Keys.Lock)
	}
	return nil
}

// Release implements lease.Backend.
func (b *backend) Release(ctx context.Context) error {
	if b.extend != nil {
		b.extend.Stop()
	}
	r, err := b.release(ctx)
	if err == nil {
		b.held.drop(b.q.Keys.Lock, b.q.ID)
	}
	switch {
	case err != nil:
		return err
	case !r.Held:
		return fmt.Errorf("%w: %q was no longer held", lock.ErrLost, b.q.Keys.Lock)
	}
	return nil
}

// release runs the release script, and wakes the waiter of this Locker
// that the lock was handed to, if any, without waiting for the message.
// It then yields the processor, as sync.Mutex does when it hands itself
// to a waiter, so that the new holder runs next rather than after the
// releaser's next call blocks.
func (b *backend) release(ctx context.Context) (redisq.Released, error) {
	r, err := b.q.Release(ctx, b.pipe)
	if b.notes.Handed(r) {
		runtime.Gosched()
	}
	return r, err
}

// leave takes an abandoned acquisition out of the queue, and passes the
// lock on if it was granted or handed to us just as we gave up. It runs
// even when the caller's context is done. A caller that gave up waits for
// it for up to lease.CleanupWait, so that no release hands the lock to a
// waiter that has left; after a failed call it runs in the background
// until the Locker is closed, so that a server that does not answer cannot
// hold the caller for WaiterTimeout more.
func (b *backend) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), b.q.WaiterTimeout)
	defer cancel()
	b.release(ctx) // best effort: a waiter not cleaned up drops out after WaiterTimeout
}
