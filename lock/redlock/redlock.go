package redlock

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
	"github.com/stockade/stockade/lock/internal/redisq"
)

// Options configures a Locker. A nil *Options means all defaults.
type Options struct {
	// Prefix is put before every key this Locker touches on every node.
	// Default: "lock:".
	Prefix string

	// DriftFactor is the share of the TTL subtracted from a lease's
	// validity for clock drift between the nodes and this process (plus
	// 2 ms for clock resolution).
	// Default: 0.01.
	DriftFactor float64

	// NodeTimeout is the share of the TTL that one node may take to answer
	// one command; a node slower than that counts as failed for that call,
	// so a dead node cannot eat the lease's validity.
	// Default: 0.1 (at least 5 ms).
	NodeTimeout float64

	// WaiterTimeout is how long a queued waiter keeps its place on a node
	// without re-announcing itself (see redislock.Options).
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
	if out.DriftFactor <= 0 {
		out.DriftFactor = 0.01
	}
	if out.NodeTimeout <= 0 {
		out.NodeTimeout = 0.1
	}
	if out.WaiterTimeout <= 0 {
		out.WaiterTimeout = 3 * time.Second
	}
	return out
}

// maxUnreachable is how many attempts in a row that cannot reach a
// majority a waiting Acquire makes before it returns ErrUnavailable.
const maxUnreachable = 3

// minNodeTimeout is the floor of the per-node timeout.
const minNodeTimeout = 5 * time.Millisecond

// Locker is a lock.Locker over independent Redis masters (the Redlock
// algorithm): a lease is granted when a majority of the nodes grant it
// within its validity. It is safe for concurrent use; Close it to free
// its notification connections.
type Locker struct {
	nodes  []node
	quorum int
	opts   Options

	cleanups lease.Cleanups // of abandoned acquisitions
}

type node struct {
	pipe  *redisq.Pipe
	notes *redisq.Notifier
}

var _ lock.Locker = (*Locker)(nil)

// New returns a Locker over clients, one per independent Redis master (not
// replicas of one another: a failover would hand a lock to a second
// holder). Five nodes survive two failures. It returns an error for an
// empty or nil client list.
func New(clients []redis.UniversalClient, opts *Options) (*Locker, error) {
	if len(clients) == 0 {
		return nil, fmt.Errorf("%w: redlock needs at least one node", lock.ErrInvalid)
	}
	l := &Locker{quorum: len(clients)/2 + 1, opts: opts.withDefaults()}
	for i, c := range clients {
		if c == nil {
			return nil, fmt.Errorf("%w: redlock node %d is nil", lock.ErrInvalid, i)
		}
		l.nodes = append(l.nodes, node{pipe: redisq.NewPipe(c), notes: redisq.NewNotifier(c, nil)})
	}
	return l, nil
}

// Close stops the Locker's notification connections and waits for the
// clean-ups of abandoned acquisitions that outlived their callers, each
// bounded by twice the per-node timeout. Close it before the clients.
func (l *Locker) Close() error {
	var errs []error
	for _, n := range l.nodes {
		errs = append(errs, n.notes.Close())
	}
	l.cleanups.Close()
	return errors.Join(errs...)
}

// Acquire implements lock.Locker.
func (l *Locker) Acquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, true, opts)
}

// TryAcquire implements lock.Locker.
func (l *Locker) TryAcquire(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, false, opts)
}

// NodeError is one node's failure in a call.
type NodeError struct {
	Node int // index in the client list given to New
	Err  error
}

func (e *NodeError) Error() string { return fmt.Sprintf("redlock node %d: %v", e.Node, e.Err) }
func (e *NodeError) Unwrap() error { return e.Err }

// QuorumError says a call could not reach a majority of the nodes. It
// wraps lock.ErrUnavailable and every NodeError, so errors.As finds them.
type QuorumError struct {
	Op     string // "acquire", "refresh" or "release"
	Key    string
	Total  int // nodes in the Locker
	Quorum int // nodes that must agree
	Nodes  []*NodeError
}

func (e *QuorumError) Error() string {
	parts := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		parts[i] = n.Error()
	}
	return fmt.Sprintf("%v: %s %q: %d of %d nodes failed, quorum is %d: %s",
		lock.ErrUnavailable, e.Op, e.Key, len(e.Nodes), e.Total, e.Quorum, strings.Join(parts, "; "))
}

// Unwrap returns lock.ErrUnavailable and the node errors.
func (e *QuorumError) Unwrap() []error {
	errs := []error{lock.ErrUnavailable}
	for _, n := range e.Nodes {
		errs = append(errs, n)
	}
	return errs
}

func (l *Locker) acquire(ctx context.Context, key string, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	cfg := a.Config
	b := &backend{
		locker: l,
		q:      redisq.NewLock(redisq.KeysFor(l.opts.Prefix, key), rand.Text(), l.opts.WaiterTimeout),
		key:    key,
		ttl:    cfg.TTL,
	}
	b.q.ClockTokens = true // Token is the largest of a majority's
	// Every node orders its queue by this process's arrival time, so the
	// nodes agree on who is next and hand the lock to the same waiter.
	score := a.Start.UnixMicro()

	// try makes one attempt, queueing on the nodes if queue is set; it
	// returns the lease, or nil and the outcome (a refusal error, or nil
	// to keep waiting) with the number of nodes the caller still holds. A
	// waiting caller forgives a couple of attempts in a row that could not
	// reach a majority, since one slow answer is enough for that when some
	// nodes are down; then it gives up rather than wait out its context.
	// Only TryAcquire's attempt is final: every attempt of Acquire is
	// followed by another, or by leave.
	unreachable := 0
	try := func(queue bool) (le lock.Lease, expires time.Duration, kept int, err error) {
		sent := time.Now()
		token, expires, err := b.attempt(ctx, cfg.TTL, queue, score)
		validity := cfg.TTL - time.Since(sent) - l.drift(cfg.TTL)
		switch {
		case err == nil && validity > 0:
			a.Granted(token)
			return lease.New(key, token, sent.Add(validity), cfg, b), 0, 0, nil
		case err == nil: // granted, but too late to be of use
			return nil, 0, b.giveBack(queue, !wait, score, cfg.TTL), nil
		case errors.Is(err, lock.ErrUnavailable):
			if unreachable++; queue && unreachable < maxUnreachable {
				return nil, 0, b.giveBack(true, false, score, cfg.TTL), nil
			}
			l.cleanups.Run(b.leave)
			return nil, 0, 0, a.Refuse(ctx, err)
		}
		unreachable = 0
		return nil, expires, b.giveBack(queue, !wait, score, cfg.TTL), nil
	}

	// A free key costs one attempt: no subscriptions, no queues.
	le, _, _, err := try(false)
	if le != nil || err != nil {
		return le, err
	}
	a.Contended = true
	if !wait {
		return nil, a.Refuse(ctx, nil)
	}

	// Held: subscribe on every node, and queue.
	wake := make(chan uint64, len(l.nodes))
	subscribed, stopListening := l.listen(ctx, b.q.Keys.Channel, b.q.ID, wake)
	defer stopListening()
	for {
		if ctx.Err() != nil {
			l.cleanups.Run(b.leave)
			return nil, a.Refuse(ctx, nil)
		}
		// Once the subscriptions are in place before an attempt, no
		// hand-off after it can be missed: stop watching for them.
		select {
		case <-subscribed:
			subscribed = nil
		default:
		}
		drain(wake) // notifications before this attempt are stale after it
		le, expires, kept, err := try(true)
		if le != nil || err != nil {
			return le, err
		}
		// A release hands the lock to us on every node and each node
		// notifies us: wait until a majority has, or re-check on a timer
		// (the holder's expiry, or often enough to keep our place), or as
		// soon as the subscriptions are in place.
		recheck := l.opts.WaiterTimeout / 3
		if expires > 0 && expires < recheck {
			recheck = expires
		}
		if !l.awaitHandoff(ctx, wake, subscribed, l.quorum-kept, recheck) {
			l.cleanups.Run(b.leave)
			return nil, a.Refuse(ctx, nil)
		}
	}
}

// listen registers waiter id on channel on every node, for wake. It does
// not wait for subscriptions the nodes have yet to confirm: waiting would
// keep the caller out of the queues for as long as the slowest node takes
// (a node that is down: a second), while callers that are not held up take
// the key again and again past the empty queues. A hand-off published
// before its node confirmed would then be missed, so subscribed closes
// once every node that answers has confirmed (or been given up on), for
// the caller to look again; it is nil when all were in place. stop
// unregisters everywhere.
func (l *Locker) listen(ctx context.Context, channel, id string, wake chan<- uint64) (subscribed <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	stops := make([]func(), len(l.nodes))
	var confirming, rest sync.WaitGroup
	unconfirmed := 0
	for i, n := range l.nodes {
		switch {
		case n.notes.Ready(channel):
			stops[i] = n.notes.Listen(ctx, channel, id, wake) // returns at once
		case n.pipe.Unreachable(): // nothing to hear from it meanwhile
			rest.Go(func() { stops[i] = n.notes.Listen(ctx, channel, id, wake) })
		default:
			unconfirmed++
			confirming.Go(func() { stops[i] = n.notes.Listen(ctx, channel, id, wake) })
		}
	}
	if unconfirmed > 0 {
		done := make(chan struct{})
		go func() {
			confirming.Wait()
			close(done)
		}()
		subscribed = done
	}
	return subscribed, func() {
		cancel() // a Listen still waiting returns now
		confirming.Wait()
		rest.Wait()
		for _, stop := range stops {
			stop()
		}
	}
}

func drain(c <-chan uint64) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// awaitHandoff waits for need notifications, the recheck timer, subscribed
// to close, or ctx. It returns false if ctx ended the wait.
func (l *Locker) awaitHandoff(ctx context.Context, wake <-chan uint64, subscribed <-chan struct{}, need int, recheck time.Duration) bool {
	t := time.NewTimer(recheck)
	defer t.Stop()
	for got := 0; got < need; {
		select {
		case <-wake:
			got++
		case <-t.C:
			return true
		case <-subscribed:
			return true
		case <-ctx.Done():
			return false
		}
	}
	return true
}

func (l *Locker) quorumError(op, key string, failed []*NodeError) *QuorumError {
	return &QuorumError{Op: op, Key: key, Total: len(l.nodes), Quorum: l.quorum, Nodes: failed}
}

func (l *Locker) drift(ttl time.Duration) time.Duration {
	return time.Duration(float64(ttl)*l.opts.DriftFactor) + 2*time.Millisecond
}

func (l *Locker) nodeTimeout(ttl time.Duration) time.Duration {
	return max(time.Duration(float64(ttl)*l.opts.NodeTimeout), minNodeTimeout)
}

// backend is one acquisition on every node; it implements lease.Backend.
type backend struct {
	locker *Locker
	q      redisq.Lock
	key    string
	ttl    time.Duration // of the acquisition, for per-node timeouts

	mu       sync.Mutex
	granted  []bool            // nodes that granted the last attempt
	unsure   []bool            // nodes that did not answer the last attempt: they may have granted it
	settled  []<-chan struct{} // settled[i] is closed when the last attempt's call to node i has returned
	then     []func()          // then[i] runs once the last attempt's call to node i has returned
	token    uint64            // the lease's token, once granted
	released []bool            // nodes whose release has been answered
	held     int               // nodes that confirmed they held the lock at release
}

// errNoAnswer marks a node that had not answered when eachNode returned.
var errNoAnswer = errors.New("no answer in time")

// eachNode runs fn on every node in parallel and returns each node's
// result and error. It waits for no node longer than timeout: a node that
// has not answered by then (paused, partitioned) counts as failed. With
// enough, it returns as soon as enough(vals, errs) says the outcome is
// decided; nodes yet to answer then carry errNoAnswer, and their calls go
// on, bounded by timeout. settled[i] is closed once node i's call has
// returned.
func eachNode[T any](l *Locker, ctx context.Context, timeout time.Duration, fn func(ctx context.Context, i int, n node) (T, error), enough func(vals []T, errs []error) bool) (vals []T, errs []error, settled []<-chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	results := make(chan answer[T], len(l.nodes))
	settled = make([]<-chan struct{}, len(l.nodes))
	var wg sync.WaitGroup
	for i, n := range l.nodes {
		s := make(chan struct{})
		settled[i] = s
		wg.Go(func() {
			v, err := fn(ctx, i, n)
			close(s)
			results <- answer[T]{i, v, err}
		})
	}
	go func() {
		wg.Wait()
		cancel()
	}()
	vals = make([]T, len(l.nodes))
	errs = make([]error, len(l.nodes))
	for i := range errs {
		errs[i] = errNoAnswer
	}
	// The context also ends when the last call has returned.
	gather(ctx, results, len(l.nodes), vals, errs, enough)
	return vals, errs, settled
}

// answer is node i's result.
type answer[T any] struct {
	i   int
	v   T
	err error
}

// gather records up to pending answers in vals and errs, until enough
// says the outcome is decided or ctx ends; the answers already in by then
// still count.
func gather[T any](ctx context.Context, results <-chan answer[T], pending int, vals []T, errs []error, enough func(vals []T, errs []error) bool) {
	for ; pending > 0; pending-- {
		var r answer[T]
		select {
		case r = <-results:
		case <-ctx.Done():
			select {
			case r = <-results:
			default:
				return
			}
		}
		vals[r.i], errs[r.i] = r.v, r.err
		if enough != nil && enough(vals, errs) {
			return
		}
	}
}

// callNodes is eachNode for one script call per node, started through the
// node's pipe rather than on a goroutine of its own: start starts node i's
// call, handing it done, or returns false to leave the node out (its
// result is then the zero value and a nil error); parse reads a call's
// outcome.
func callNodes[T any](l *Locker, ctx context.Context, timeout time.Duration, start func(ctx context.Context, i int, n node, done func(*redisq.Call)) bool, parse func(*redisq.Call) (T, error), enough func(vals []T, errs []error) bool) (vals []T, errs []error) {
	// The calls' context is cancelled by the last of them to return, which
	// may be after callNodes has: every call returns by itself, a queued
	// one skipped once its context ends, a sent one with its round trip.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	var out atomic.Int32
	out.Store(int32(len(l.nodes)))
	returned := func() {
		if out.Add(-1) == 0 {
			cancel()
		}
	}
	results := make(chan answer[T], len(l.nodes))
	vals = make([]T, len(l.nodes))
	errs = make([]error, len(l.nodes))
	pending := 0
	for i, n := range l.nodes {
		started := start(ctx, i, n, func(c *redisq.Call) {
			v, err := parse(c)
			results <- answer[T]{i, v, err}
			returned()
		})
		if !started {
			returned()
			continue
		}
		errs[i] = errNoAnswer
		pending++
	}
	gather(ctx, results, pending, vals, errs, enough)
	return vals, errs
}

// beyondReach reports whether an attempt that refused nodes refused can no
// longer win a majority, counting as lost the nodes that failed, while the
// only nodes yet to answer are ones whose connection failed on their last
// call (refused or dropped: down). Waiting for those would decide nothing,
// and the nodes the attempt won would stay out of everyone's reach
// meanwhile: a node that has just gone down takes the client its dial
// retries, about half a second, to refuse each call until its pool gives
// up on it. A node that is only slow to answer is waited for, up to the
// per-node timeout, as ever.
func (l *Locker) beyondReach(refused int, errs []error) bool {
	lost := refused
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, errNoAnswer) && !l.nodes[i].pipe.Unreachable():
			return false // a node that is up has yet to answer
		default:
			lost++
		}
	}
	return lost > len(l.nodes)-l.quorum
}

// count returns how many nodes answered without error and satisfy ok.
func count[T any](vals []T, errs []error, ok func(T) bool) int {
	n := 0
	for i, v := range vals {
		if errs[i] == nil && ok(v) {
			n++
		}
	}
	return n
}

// attempt asks every node for the lock once, queueing the caller on them
// if queue is set. It returns the token (the largest of the granting
// nodes' tokens) when a majority granted, else ErrNotAcquired, or a
// *QuorumError when too many nodes failed to answer for a majority ever to
// be reached. It returns as soon as the outcome is decided: once a
// majority granted, or once so many refused that no majority can, without
// waiting for nodes that are down to time out. The nodes that granted it,
// and those that did not answer, are left to giveBack.
func (b *backend) attempt(ctx context.Context, ttl time.Duration, queue bool, score int64) (token uint64, expires time.Duration, err error) {
	n, quorum := len(b.locker.nodes), b.locker.quorum
	settled := make([]<-chan struct{}, n)
	then := make([]func(), n)
	res, errs := callNodes(b.locker, ctx, b.locker.nodeTimeout(ttl), func(ctx context.Context, i int, nd node, done func(*redisq.Call)) bool {
		settled[i] = b.q.GoAcquire(ctx, nd.pipe, func(c *redisq.Call) {
			done(c)
			b.mu.Lock()
			next := then[i]
			then[i] = nil
			b.mu.Unlock()
			if next != nil {
				next()
			}
		}, ttl, queue, score).Done()
		return true
	}, redisq.AcquireResult, func(res []redisq.Result, errs []error) bool {
		granted := count(res, errs, func(r redisq.Result) bool { return r.Granted })
		refused := count(res, errs, func(r redisq.Result) bool { return !r.Granted })
		return granted >= quorum || refused > n-quorum || b.locker.beyondReach(refused, errs)
	})
	granted := make([]bool, n)
	unsure := make([]bool, n)
	var ok int
	var failed []*NodeError
	for i := range n {
		switch {
		case errs[i] != nil:
			failed = append(failed, &NodeError{Node: i, Err: errs[i]})
			unsure[i] = true // it may have granted before the reply was lost
		case res[i].Granted:
			granted[i] = true
			ok++
			token = max(token, res[i].Token)
		default:
			expires = max(expires, res[i].Expires)
		}
	}
	b.mu.Lock()
	b.granted, b.unsure, b.settled, b.then = granted, unsure, settled, then
	if ok >= quorum {
		b.token = token
	}
	b.mu.Unlock()
	switch {
	case ok >= quorum:
		return token, 0, nil
	case len(failed) > n-quorum:
		return 0, 0, b.locker.quorumError("acquire", b.key, failed)
	default:
		return 0, expires, lock.ErrNotAcquired
	}
}

// thenNode runs fn once the last acquire attempt's call to node i has
// returned: now if it has (or there was none), else from that call's
// completion, so that a call fn sends cannot overtake it.
func (b *backend) thenNode(i int, fn func()) {
	b.mu.Lock()
	if b.settled != nil {
		select {
		case <-b.settled[i]:
		default:
			b.then[i] = fn
			b.mu.Unlock()
			return
		}
	}
	b.mu.Unlock()
	fn()
}

// afterAttempt waits, for at most the per-node timeout, until the last
// acquire attempt's call to node i has returned, so that a release sent
// now cannot overtake a grant still on its way to that node.
func (b *backend) afterAttempt(i int) {
	b.mu.Lock()
	settled := b.settled
	b.mu.Unlock()
	if settled == nil {
		return
	}
	t := time.NewTimer(b.locker.nodeTimeout(b.ttl))
	defer t.Stop()
	select {
	case <-settled[i]:
	case <-t.C:
	}
}

// giveBack returns the nodes that granted the last attempt, and after a
// final attempt also those that did not answer it. A waiter (queue) yields
// them: each goes to the first in that node's queue, which is the waiter
// itself (it keeps the node) unless someone queued earlier. That keeps
// every node serving the earliest waiter, so no two waiters end up holding
// a minority each. A caller that is not queued releases them. It returns
// the number of nodes kept.
//
// After an attempt that is not final, the nodes that did not answer are
// left alone: the next attempt asks them again, and claims or gives back
// whatever they hold for the caller then. Waiting here for nodes that are
// down would keep the caller away from the queues of the others, where a
// caller that just released the key would take it again meanwhile.
func (b *backend) giveBack(queue, final bool, score int64, ttl time.Duration) int {
	b.mu.Lock()
	granted, unsure := b.granted, b.unsure
	b.mu.Unlock()
	kept, _, _ := eachNode(b.locker, context.Background(), 2*b.locker.nodeTimeout(ttl), func(ctx context.Context, i int, n node) (bool, error) {
		if !granted[i] && !(final && unsure[i]) {
			return false, nil
		}
		b.afterAttempt(i)
		switch {
		case queue:
			r, err := b.q.Yield(ctx, n.pipe, score, ttl)
			n.notes.Handed(r)
			return r.Kept, err
		default:
			_, err := b.releaseNode(ctx, n) // an unreleased node frees itself at expiry
			return false, err
		}
	}, nil)
	var n int
	for _, k := range kept {
		if k {
			n++
		}
	}
	return n
}

// leave takes an abandoned acquisition off every node: out of the queues,
// and any lock handed to it passed on.
func (b *backend) leave() {
	eachNode(b.locker, context.Background(), 2*b.locker.nodeTimeout(b.ttl), func(ctx context.Context, i int, n node) (bool, error) {
		b.afterAttempt(i)
		r, err := b.releaseNode(ctx, n) // best effort: a waiter not cleaned up drops out after WaiterTimeout
		return r.Held, err
	}, nil)
}

// releaseNode releases the lock on node n, and wakes the waiter of this
// Locker that it handed the node to, if any, without waiting for the
// message.
func (b *backend) releaseNode(ctx context.Context, n node) (redisq.Released, error) {
	r, err := b.q.Release(ctx, n.pipe)
	n.notes.Handed(r)
	return r, err
}

// Refresh implements lease.Backend: it extends the lock on every node that
// still holds it, and succeeds if a majority do. Then, and only then, it
// re-creates the lock on nodes that lost it (a node that restarted empty),
// so the lease keeps a full majority behind it.
func (b *backend) Refresh(ctx context.Context, ttl time.Duration) error {
	held, errs, _ := eachNode(b.locker, ctx, b.locker.nodeTimeout(ttl), func(ctx context.Context, _ int, n node) (bool, error) {
		return b.q.Refresh(ctx, n.pipe, ttl, false, 0)
	}, nil)
	var ok int
	var failed []*NodeError
	for i, err := range errs {
		switch {
		case err != nil:
			failed = append(failed, &NodeError{Node: i, Err: err})
		case held[i]:
			ok++
		}
	}
	switch {
	case ok+len(failed) < b.locker.quorum:
		return fmt.Errorf("%w: %q is no longer held on a majority of nodes", lock.ErrLost, b.key)
	case ok < b.locker.quorum:
		return b.locker.quorumError("refresh", b.key, failed)
	case ok < len(b.locker.nodes):
		b.mu.Lock()
		token := b.token
		b.mu.Unlock()
		eachNode(b.locker, ctx, b.locker.nodeTimeout(ttl), func(ctx context.Context, i int, n node) (bool, error) {
			if errs[i] != nil || held[i] {
				return false, nil
			}
			return b.q.Refresh(ctx, n.pipe, ttl, true, token) // best effort: the majority holds
		}, nil)
	}
	return nil
}

// Release implements lease.Backend: it releases the lock on every node. It
// succeeds once a majority confirm they held the lock, and returns
// lock.ErrLost once so many have answered that they did not that a majority
// never held it: a lease left on a minority (the rest expired, or were
// taken from it) is lost, and its holder must hear so. Until one of the two
// is decided it waits for more nodes, which a healthy lease never does. A
// retry after a partial failure contacts only the nodes that did not
// answer.
func (b *backend) Release(ctx context.Context) error {
	n, quorum := len(b.locker.nodes), b.locker.quorum
	b.mu.Lock()
	if b.released == nil {
		b.released = make([]bool, n)
	}
	released := slices.Clone(b.released)
	// Nodes answered by an earlier call are not asked again; they count as
	// they answered then.
	heldBefore, freeBefore := b.held, -b.held
	for _, r := range released {
		if r {
			freeBefore++
		}
	}
	b.mu.Unlock()
	// The calls left running once the outcome is decided must not be cut
	// off by the caller cancelling ctx after Release returns.
	rel, errs := callNodes(b.locker, context.WithoutCancel(ctx), 2*b.locker.nodeTimeout(b.ttl), func(ctx context.Context, i int, n node, done func(*redisq.Call)) bool {
		if released[i] {
			return false
		}
		b.thenNode(i, func() { b.q.GoRelease(ctx, n.pipe, done) })
		return true
	}, redisq.ReleaseResult, func(rel []redisq.Released, errs []error) bool {
		held, free := heldBefore, freeBefore
		for i, r := range rel {
			switch {
			case released[i] || errs[i] != nil:
			case r.Held:
				held++
			default:
				free++
			}
		}
		return held >= quorum || n-free < quorum
	})
	var failed []*NodeError
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, err := range errs {
		if err != nil {
			failed = append(failed, &NodeError{Node: i, Err: err})
			continue
		}
		b.released[i] = true
		if rel[i].Held {
			b.held++
		}
		// A waiter of this Locker needs the hand-off of a majority, and has
		// it once a majority held the lock: the nodes still out notify it
		// by message.
		b.locker.nodes[i].notes.Handed(rel[i])
	}
	// Once the outcome is decided, nobody can hold a majority on our
	// behalf: the nodes that did not answer free themselves at expiry.
	switch {
	case b.held >= quorum:
		return nil
	case b.held+len(failed) < quorum:
		return fmt.Errorf("%w: %q was held on %d of %d nodes at release, short of a majority", lock.ErrLost, b.key, b.held, n)
	default:
		return b.locker.quorumError("release", b.key, failed)
	}
}
