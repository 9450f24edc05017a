// Package redisq is the Redis side of the fair, notified lock that
// redislock runs on one server and redlock runs on each of its nodes: the
// Lua scripts and the pub/sub notifier.
//
// A lock is a string "owner:token" with an expiry; waiters queue in a sorted
// set ordered by arrival; release hands the lock to the first live waiter
// inside the script and publishes that waiter's id, and the waiter claims it
// with one more acquire call. See the .lua files for the details.
package redisq

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed common.lua
	commonLua string
	//go:embed acquire.lua
	acquireLua string
	//go:embed release.lua
	releaseLua string
	//go:embed refresh.lua
	refreshLua string

	acquireScript = redis.NewScript(commonLua + acquireLua)
	releaseScript = redis.NewScript(commonLua + releaseLua)
	refreshScript = redis.NewScript(refreshLua)
)

// minFenceKeep is the shortest time the fence key outlives a grant.
const minFenceKeep = time.Minute

// Keys are the Redis names of one lock; they share a hash tag, so they live
// on one Redis Cluster slot.
type Keys struct {
	Lock, Queue, Waiters, Fence, Channel string
}

// KeysFor returns the names for key under prefix: prefix + "{" + key + "}"
// and that plus ":q", ":w", ":f" and ":c".
func KeysFor(prefix, key string) Keys {
	base := prefix + "{" + key + "}"
	return Keys{
		Lock:    base,
		Queue:   base + ":q",
		Waiters: base + ":w",
		Fence:   base + ":f",
		Channel: base + ":c",
	}
}

// Lock is one owner's handle on one lock on one server.
type Lock struct {
	Keys Keys
	// ID is the owner id: random, known only to its holder.
	ID string
	// WaiterTimeout is how long a queued waiter keeps its place without
	// re-announcing itself, and how long a handed-off lock waits to be
	// claimed.
	WaiterTimeout time.Duration
}

// Result is the outcome of one Acquire call.
type Result struct {
	Granted bool
	Token   uint64
	// Expires is how long the current holder's lease has left when the
	// lock was not granted, or 0 if unknown.
	Expires time.Duration
	// Queued is true when this call put the owner in the queue.
	Queued bool
}

// Acquire takes the lock for ttl if it is free and nobody is queued ahead,
// or claims it if a release handed it over. Otherwise, with wait, it queues
// (or re-announces) the owner; score orders the queue (arrival time in µs,
// or 0 to use the server's clock).
func (l *Lock) Acquire(ctx context.Context, c redis.Scripter, ttl time.Duration, wait bool, score int64) (Result, error) {
	waitArg, scoreArg := "0", ""
	if wait {
		waitArg = "1"
	}
	if score > 0 {
		scoreArg = strconv.FormatInt(score, 10)
	}
	k := l.Keys
	res, err := acquireScript.Run(ctx, c,
		[]string{k.Lock, k.Queue, k.Waiters, k.Fence},
		l.ID, millis(ttl), waitArg, millis(l.WaiterTimeout), fenceKeep(ttl), k.Channel, scoreArg,
	).Int64Slice()
	if err != nil {
		return Result{}, err
	}
	if len(res) != 4 {
		return Result{}, fmt.Errorf("acquire script returned %v", res)
	}
	return Result{
		Granted: res[0] == 1,
		Token:   uint64(res[1]),
		Expires: time.Duration(res[2]) * time.Millisecond,
		Queued:  res[3] == 1,
	}, nil
}

// Release releases the lock if the owner holds it, handing it to the first
// live waiter, and otherwise takes the owner out of the queue. It reports
// whether the owner held the lock.
func (l *Lock) Release(ctx context.Context, c redis.Scripter) (bool, error) {
	res, err := l.release(ctx, c, "", 0)
	return res == 1, err
}

// Yield puts the owner back in the queue at score and passes the lock to
// whoever is then first in line. It reports whether that is the owner
// itself, which then keeps the lock. A waiter that does not hold the lock
// keeps its place.
func (l *Lock) Yield(ctx context.Context, c redis.Scripter, score int64, ttl time.Duration) (kept bool, err error) {
	res, err := l.release(ctx, c, strconv.FormatInt(score, 10), ttl)
	return res == 2, err
}

func (l *Lock) release(ctx context.Context, c redis.Scripter, score string, ttl time.Duration) (int, error) {
	k := l.Keys
	return releaseScript.Run(ctx, c,
		[]string{k.Lock, k.Queue, k.Waiters, k.Fence},
		l.ID, fenceKeep(0), k.Channel, millis(l.WaiterTimeout), score, millis(l.WaiterTimeout), millis(ttl),
	).Int()
}

// Refresh extends the lock to ttl if the owner holds it and reports whether
// it does. With reseed, a missing lock key (a server that restarted empty)
// is re-created for the owner with token.
func (l *Lock) Refresh(ctx context.Context, c redis.Scripter, ttl time.Duration, reseed bool, token uint64) (bool, error) {
	reseedArg := "0"
	if reseed {
		reseedArg = "1"
	}
	held, err := refreshScript.Run(ctx, c,
		[]string{l.Keys.Lock, l.Keys.Fence},
		l.ID, millis(ttl), fenceKeep(ttl), reseedArg, strconv.FormatUint(token, 10),
	).Int()
	return held == 1, err
}

// fenceKeep is how long the fence key outlives a grant: long enough that a
// small backwards step of the server clock cannot lower a token.
func fenceKeep(ttl time.Duration) string { return millis(max(2*ttl, minFenceKeep)) }

// millis rounds d up to whole milliseconds, Redis's resolution.
func millis(d time.Duration) string {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(ms), 10)
}
