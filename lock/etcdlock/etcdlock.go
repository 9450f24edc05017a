package etcdlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

// Options configures a Locker. A nil *Options means all defaults.
type Options struct {
	// Prefix is put before every etcd key this Locker writes. Lockers that
	// should exclude each other must use the same prefix; unrelated
	// Lockers should use prefixes that are not prefixes of one another.
	// Default: "/stockade/lock/".
	Prefix string

	// RequestTimeout bounds each request to etcd. The etcd client waits
	// for a connection rather than failing, so without a bound a call to
	// an unreachable cluster would last as long as its context; past
	// RequestTimeout it fails with lock.ErrUnavailable instead. It does not
	// bound how long Acquire waits for a held key.
	// Default: 5s.
	RequestTimeout time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Prefix == "" {
		out.Prefix = "/stockade/lock/"
	}
	if out.RequestTimeout <= 0 {
		out.RequestTimeout = 5 * time.Second
	}
	return out
}

// Locker is a lock.Locker, lock.Semaphores and lock.RWLockers on an etcd
// cluster. It is safe for concurrent use and holds no resources of its
// own: leases end with Release or loss, and the client stays the caller's
// to close.
type Locker struct {
	client   *clientv3.Client
	opts     Options
	pool     leasePool
	cleanups lease.Cleanups // leaves of abandoned acquisitions, revocations
}

var (
	_ lock.Locker     = (*Locker)(nil)
	_ lock.Semaphores = (*Locker)(nil)
	_ lock.RWLockers  = (*Locker)(nil)
)

// New returns a Locker that talks to etcd through client. Endpoints,
// authentication and TLS are whatever the client was configured with.
func New(client *clientv3.Client, opts *Options) *Locker {
	return &Locker{client: client, opts: opts.withDefaults()}
}

// Close waits for the clean-ups that outlived their callers: abandoned
// acquisitions taken out of their queues, each bounded by RequestTimeout,
// and etcd leases revoked, each retried until it could have expired by
// itself. It does not close the client; close that after. Leases already
// granted stay valid.
func (l *Locker) Close() error {
	l.cleanups.Close()
	return nil
}

// Acquire implements lock.Locker. The lease it returns is a *Lease.
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lockRequest, true, opts)
}

// TryAcquire implements lock.Locker. The lease it returns is a *Lease.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lockRequest, false, opts)
}

// acquire takes a place in key's queue of r's space for r's permits, and
// returns once they are granted; without wait, only if they are granted at
// once.
func (l *Locker) acquire(ctx context.Context, key string, r request, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	if err := lock.CheckPermits(r.ask.limit, r.ask.n); err != nil {
		return nil, a.Refuse(ctx, err)
	}
	if ctx.Err() != nil {
		return nil, a.Refuse(ctx, nil)
	}
	e := &entry{l: l, name: key, queue: l.queuePrefix(r.space, key), ask: r.ask}
	if r.space != locks {
		e.value = r.ask.String()
	}
	if err := e.setLease(l.lease(ctx, a.Config.TTL)); err != nil {
		return nil, a.Refuse(ctx, err)
	}

	contended, w, err := e.take(ctx, wait)
	a.Contended = contended
	var validUntil time.Time
	if err == nil {
		validUntil, err = e.validUntil(ctx)
	}
	if err != nil {
		w.stop()
		l.cleanups.Run(e.leave)
		return nil, a.Refuse(ctx, err)
	}

	var token uint64
	if r.fenced {
		token = uint64(e.rev)
	}
	le := &Lease{e: e}
	le.l = lease.New(key, token, validUntil, a.Config, e)
	e.lease = le.l
	go e.guard(w)
	a.Granted(le.Token())
	return le, nil
}

// keyEscaper makes a lock key safe to put between the prefix and the
// contender part: with '/' escaped, the queue of "a" cannot contain the
// queue of "a/b".
var keyEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

// queuePrefix returns the prefix shared by the etcd keys of key's queue in
// space sp.
func (l *Locker) queuePrefix(sp space, key string) string {
	return l.opts.Prefix + string(sp) + keyEscaper.Replace(key) + "/"
}

// errNoAnswer is the cause of a request cut short by RequestTimeout.
var errNoAnswer = errors.New("no answer from etcd")

// call runs one etcd request bounded by RequestTimeout. A request that
// runs out of that time, rather than out of ctx, fails with an error that
// says so instead of context.DeadlineExceeded.
func call[T any](ctx context.Context, l *Locker, f func(context.Context) (T, error)) (T, error) {
	rctx, cancel := context.WithTimeoutCause(ctx, l.opts.RequestTimeout, errNoAnswer)
	defer cancel()
	v, err := f(rctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(rctx), errNoAnswer) {
		err = fmt.Errorf("%w within %v", errNoAnswer, l.opts.RequestTimeout)
	}
	return v, err
}

// Lease is a lease on one key, as returned by Acquire and TryAcquire, and
// by the methods of semaphores and read-write locks. It implements
// lock.Lease, and IsOwner guards writes to etcd itself.
type Lease struct {
	l *lease.Lease
	e *entry
}

var _ lock.Lease = (*Lease)(nil)

// Key implements lock.Lease.
func (l *Lease) Key() string { return l.l.Key() }

// Token implements lock.Lease. It is the create revision of the
// lease's etcd key for a lock or an exclusive lease, and 0 for permits and
// shared leases.
func (l *Lease) Token() uint64 { return l.l.Token() }

// Done implements lock.Lease.
func (l *Lease) Done() <-chan struct{} { return l.l.Done() }

// Err implements lock.Lease.
func (l *Lease) Err() error { return l.l.Err() }

// Refresh implements lock.Lease. etcd leases count whole seconds: ttl is
// rounded up, and a ttl shorter than the etcd lease's renews the etcd lease
// to its own, longer TTL.
func (l *Lease) Refresh(ctx context.Context, ttl time.Duration) error { return l.l.Refresh(ctx, ttl) }

// Release implements lock.Lease.
func (l *Lease) Release(ctx context.Context) error { return l.l.Release(ctx) }

// IsOwner returns a comparison that holds while this lease holds its key
// (or its permits): the lease's etcd key still exists with the revision it
// was created at.
// Put it in the If of an etcd transaction to make a write to etcd
// conditional on the lock, atomically:
//
//	client.Txn(ctx).If(le.IsOwner()).Then(clientv3.OpPut(k, v)).Commit()
//
// Only a lease that holds its key exists, so unlike etcd's
// concurrency.Mutex, no waiter can pass this check.
func (l *Lease) IsOwner() clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(l.e.key), "=", l.e.rev)
}
