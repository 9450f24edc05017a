package redislock

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
	"github.com/stockade/stockade/lock/internal/redisq"
)

// Semaphores and read-write locks are one mechanism, on keys apart from
// the locks': a key with a limit of permits, its holders, and a queue of
// waiters in arrival order whose first waiter alone may be granted, when
// its permits fit. A read-write lock has rwLimit permits; a reader takes
// one and a writer all of them. weighted_common.lua describes the keys.

var (
	//go:embed weighted_common.lua
	weightedCommonLua string
	//go:embed weighted_helpers.lua
	weightedHelpersLua string
	//go:embed weighted_acquire.lua
	weightedAcquireLua string
	//go:embed weighted_release.lua
	weightedReleaseLua string
	//go:embed weighted_refresh.lua
	weightedRefreshLua string

	weightedAcquire = weightedScript(weightedAcquireLua)
	weightedRelease = weightedScript(weightedReleaseLua)
	weightedRefresh = weightedScript(weightedRefreshLua)
)

// weightedScript is src after weighted_common.lua, with
// weighted_helpers.lua in place of its line "--#include
// weighted_helpers.lua", which comes after its fast path.
func weightedScript(src string) *redisq.Script {
	const include = "--#include weighted_helpers.lua\n"
	if !strings.Contains(src, include) {
		panic("redislock: script without " + include)
	}
	return redisq.NewScript(weightedCommonLua + strings.Replace(src, include, weightedHelpersLua, 1))
}

var (
	_ lock.Semaphores = (*Locker)(nil)
	_ lock.RWLockers  = (*Locker)(nil)
)

// rwLimit is the permits of a read-write lock: more readers than can
// exist at once.
const rwLimit = lock.MaxPermits

// kind tells the keys of semaphores and read-write locks apart.
type kind struct {
	suffix string // of the kind's Redis keys, after the hash tag
	name   string
}

var (
	semaphores = kind{":sem", "semaphore"}
	rwLocks    = kind{":rw", "read-write lock"}
)

// AcquirePermits implements lock.Semaphores.
func (l *Locker) AcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, semaphores, key, limit, n, true, opts)
}

// TryAcquirePermits implements lock.Semaphores.
func (l *Locker) TryAcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, semaphores, key, limit, n, false, opts)
}

// AcquireShared implements lock.RWLockers.
func (l *Locker) AcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, rwLocks, key, rwLimit, 1, true, opts)
}

// TryAcquireShared implements lock.RWLockers.
func (l *Locker) TryAcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, rwLocks, key, rwLimit, 1, false, opts)
}

// AcquireExclusive implements lock.RWLockers.
func (l *Locker) AcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, rwLocks, key, rwLimit, rwLimit, true, opts)
}

// TryAcquireExclusive implements lock.RWLockers.
func (l *Locker) TryAcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquireWeighted(ctx, rwLocks, key, rwLimit, rwLimit, false, opts)
}

// acquireWeighted takes n of key's limit permits. A lease of all the
// permits of a read-write lock is exclusive, and carries a fencing token.
func (l *Locker) acquireWeighted(ctx context.Context, k kind, key string, limit, n int, wait bool, opts []lock.Option) (lock.Lease, error) {
	a, ctx, err := lease.Begin(ctx, key, wait, opts)
	if err != nil {
		return nil, err
	}
	defer a.End()
	if err := lock.CheckPermits(limit, n); err != nil {
		return nil, a.Refuse(ctx, err)
	}
	ttl := a.Config.TTL
	e := l.newEntry(k, key, n)
	req := request{limit: limit, exclusive: k == rwLocks && n == limit, ttl: ttl}

	// As Acquire does: a caller whose key's channel is subscribed already
	// listens first and queues in its first call; any other subscribes
	// only once it found the permits taken.
	var wake chan uint64
	hot := wait && l.notes.Ready(e.channel)
	if hot {
		wake = make(chan uint64, 1)
		defer l.notes.Listen(ctx, e.channel, e.id, wake)()
	}
	sent := a.Start
	res, err := e.acquire(ctx, req, hot)
	if err == nil && !res.granted {
		a.Contended = true
		if !wait {
			return nil, a.Refuse(ctx, nil)
		}
		if !hot {
			wake = make(chan uint64, 1)
			defer l.notes.Listen(ctx, e.channel, e.id, wake)()
			sent = time.Now()
			res, err = e.acquire(ctx, req, true)
		}
	}
	var queuedAt time.Time // when the first call that queued us was sent
	for {
		switch {
		case errors.Is(err, lock.ErrInvalid): // refused before anything was written
			return nil, a.Refuse(ctx, err)
		case err != nil:
			// The server may have granted the permits or queued us before
			// the reply was lost: leave in the background.
			l.cleanups.Go(e.leave)
			return nil, a.Refuse(ctx, err)
		case res.granted:
			a.Granted(res.token)
			le := lease.New(key, res.token, sent.Add(ttl), a.Config, e)
			l.hold(e.keys[0], e.id, le)
			return le, nil
		}
		if queuedAt.IsZero() {
			queuedAt = sent
			e.waited = true
		}
		// Wait to be handed the permits; re-check anyway when the first
		// holder's lease would end, and often enough to stay alive in the
		// queue.
		recheck := l.opts.WaiterTimeout / 3
		if res.expires > 0 && res.expires < recheck {
			recheck = res.expires
		}
		t := time.NewTimer(recheck)
		var handed uint64
		select {
		case handed = <-wake:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil {
			l.cleanups.Run(e.leave)
			return nil, a.Refuse(ctx, nil)
		}
		if handed != 0 {
			// The release that handed us the permits ran after we queued,
			// and gave them at least the claim window: until queuedAt +
			// claim they are ours without another round trip. Take them if
			// enough of that is left; with too little left, claim them
			// with a round trip.
			claim := min(ttl, l.opts.WaiterTimeout)
			validUntil := queuedAt.Add(claim)
			if left := time.Until(validUntil); left >= claim/2 {
				var token uint64
				if req.exclusive {
					token = handed
				}
				a.Granted(token)
				le := lease.New(key, token, validUntil, a.Config, e)
				l.hold(e.keys[0], e.id, le)
				e.extendLater(ctx, le, left/2, ttl, validUntil)
				return le, nil
			}
		}
		// Claim the permits handed over, or announce that we still wait.
		sent = time.Now()
		res, err = e.acquire(ctx, req, true)
	}
}

// entry is one acquisition's place on a key of a semaphore or a
// read-write lock, as a waiter and then as a holder; it implements
// lease.Backend for the lease it becomes.
type entry struct {
	pipe  *redisq.Pipe
	notes *redisq.Notifier
	held  *holdings
	kind  kind
	key   string
	keys  []string // state, holders, queue: see weighted_common.lua
	// scriptKeys are keys as the scripts take them, after their count.
	scriptKeys []any
	channel    string
	// id owns the entry: rand.Text carries 128+ random bits.
	id            string
	n             int // the permits it asks for
	waiterTimeout time.Duration

	waited bool        // it has queued: its release cleans its waiter's field
	extend *time.Timer // a handed-over lease's extension to its TTL, if pending
}

func (l *Locker) newEntry(k kind, key string, n int) *entry {
	keys := l.weightedKeys(k, key)
	return &entry{
		pipe:          l.pipe,
		notes:         l.notes,
		held:          &l.held,
		kind:          k,
		key:           key,
		keys:          keys,
		scriptKeys:    scriptKeys(keys),
		channel:       keys[0] + ":c",
		id:            rand.Text(),
		n:             n,
		waiterTimeout: l.opts.WaiterTimeout,
	}
}

// weightedBase is the name of key's state hash in kind k, which begins
// the names of its other Redis keys and of its channel.
func (l *Locker) weightedBase(k kind, key string) string {
	return l.opts.Prefix + "{" + redisq.Tag(key) + "}" + k.suffix
}

// weightedKeys are the names of key's Redis keys in kind k, as the
// scripts take them: state, holders, queue.
func (l *Locker) weightedKeys(k kind, key string) []string {
	base := l.weightedBase(k, key)
	return []string{base, base + ":h", base + ":q"}
}

// scriptKeys are keys as a script takes them through a redisq.Pipe:
// their count, then the keys.
func scriptKeys(keys []string) []any {
	v := make([]any, 0, 1+len(keys))
	v = append(v, len(keys))
	for _, k := range keys {
		v = append(v, k)
	}
	return v
}

// request is what an acquisition asks for, besides the entry's permits.
type request struct {
	limit     int
	exclusive bool
	ttl       time.Duration
}

// result is the outcome of one acquire script call.
type result struct {
	granted bool
	token   uint64
	// expires is how long the first holder's lease has left when the
	// permits were not granted, or 0 if unknown.
	expires time.Duration
}

// run runs s on the entry's keys with the four arguments every script
// takes, then more.
func (e *entry) run(ctx context.Context, s *redisq.Script, more ...any) (any, error) {
	args := append([]any{e.id, e.n, e.channel, millis(e.waiterTimeout)}, more...)
	return e.pipe.Run(ctx, s, e.scriptKeys, args)
}

// acquire runs the acquire script, queueing the entry with wait. ctx's
// deadline goes with it: the script does nothing once it has passed by
// the server's clock, as the lock's acquire script. A key whose limit is
// not r.limit refuses it with lock.ErrInvalid.
func (e *entry) acquire(ctx context.Context, r request, wait bool) (result, error) {
	deadline := ""
	if d, ok := ctx.Deadline(); ok {
		deadline = strconv.FormatInt(d.UnixMilli(), 10)
	}
	reply, err := e.run(ctx, weightedAcquire, r.limit, millis(r.ttl), flag(r.exclusive), flag(wait), deadline)
	if err != nil {
		return result{}, err
	}
	if v, _ := reply.([]any); len(v) == 2 {
		status, ok := v[0].(int64)
		switch second := v[1].(type) {
		case string: // {1, token}
			if token, err := strconv.ParseUint(second, 10, 64); ok && status == 1 && err == nil {
				return result{granted: true, token: token}, nil
			}
		case int64:
			switch {
			case ok && status == 0: // {0, ms until the first lease ends}
				return result{expires: time.Duration(second) * time.Millisecond}, nil
			case ok && status == -1: // {-1, the key's limit}
				return result{}, fmt.Errorf("%w: %s %q has a limit of %d, asked with %d", lock.ErrInvalid, e.kind.name, e.key, second, r.limit)
			}
		}
	}
	return result{}, fmt.Errorf("acquire script returned %v", reply)
}

// Refresh implements lease.Backend.
func (e *entry) Refresh(ctx context.Context, ttl time.Duration) error {
	reply, err := e.run(ctx, weightedRefresh, millis(ttl))
	if err != nil {
		return err
	}
	switch held, _ := reply.(int64); held {
	case 0:
		return e.lost()
	case 1:
		return nil
	}
	return fmt.Errorf("refresh script returned %v", reply)
}

// extendLater refreshes le, handed over valid until validUntil, to its
// full ttl after d, unless it is released first: most holders are done
// by then, and save the call. On failure the lease ends at validUntil.
func (e *entry) extendLater(ctx context.Context, le *lease.Lease, d, ttl time.Duration, validUntil time.Time) {
	e.extend = time.AfterFunc(d, func() {
		rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), validUntil)
		defer cancel()
		le.Refresh(rctx, ttl)
	})
}

// Release implements lease.Backend.
func (e *entry) Release(ctx context.Context) error {
	if e.extend != nil {
		e.extend.Stop()
	}
	held, err := e.release(ctx, e.waited)
	if err == nil {
		e.held.drop(e.keys[0], e.id)
	}
	switch {
	case err != nil:
		return err
	case !held:
		return e.lost()
	}
	return nil
}

func (e *entry) lost() error {
	return fmt.Errorf("%w: %s %q: the lease is no longer held", lock.ErrLost, e.kind.name, e.key)
}

// release runs the release script, which gives the entry's permits back,
// and, if it waited, takes it out of the queue; it reports whether the
// entry held permits. It wakes the waiters of this Locker that the
// permits went to without waiting for their messages.
func (e *entry) release(ctx context.Context, waited bool) (held bool, err error) {
	reply, err := e.run(ctx, weightedRelease, flag(waited))
	if err != nil {
		return false, err
	}
	v, _ := reply.([]any)
	if len(v)%2 != 1 {
		return false, fmt.Errorf("release script returned %v", reply)
	}
	for i := 1; i < len(v); i += 2 { // a waiter granted, and its message
		id, _ := v[i].(string)
		s, _ := v[i+1].(string)
		if handed, err := strconv.ParseUint(s, 10, 64); err == nil {
			e.notes.Deliver(id, handed)
		}
	}
	status, _ := v[0].(int64)
	return status == 1, nil
}

// leave takes an abandoned acquisition out of the queue, and passes its
// permits on if they were handed to it just as it gave up; see
// backend.leave.
func (e *entry) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), e.waiterTimeout)
	defer cancel()
	e.release(ctx, true) // best effort: a waiter not cleaned up drops out after WaiterTimeout
}

// millis rounds d up to whole milliseconds, Redis's resolution.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return ""
}
