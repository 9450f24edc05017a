// Package redisq is the Redis side of the fair, notified lock that
// redislock runs on one server and redlock runs on each of its nodes: the
// Lua scripts, the pipe that sends them, and the pub/sub notifier.
//
// A lock is a string "owner:token" with an expiry, marked ":q" while
// waiters may be queued; once released it is ":token" for a while, and the
// next grant's token is one more. Waiters queue in a sorted set ordered by
// arrival. Release hands the lock to the first live waiter inside the
// script, publishes that waiter's id and token and returns them, and the
// waiter holds the lock once the message arrives, or the reply if the
// releaser shares its Notifier (Notifier.Handed). See the .lua files for
// the details.
package redisq

import (
	"context"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed common.lua
	commonLua string
	//go:embed queue.lua
	queueLua string
	//go:embed acquire.lua
	acquireLua string
	//go:embed release.lua
	releaseLua string
	//go:embed refresh.lua
	refreshLua string
	//go:embed break.lua
	breakLua string

	refreshScript = NewScript(refreshLua)
	// The break script grants as counted tokens do; a clocked key's next
	// token is still larger than the broken holder's.
	breakScript = NewScript("local clocked = false\n" + include(breakLua))

	// The acquire and release scripts, for counted tokens and for clocked
	// ones (Lock.ClockTokens).
	counted = scriptsFor(false)
	clocked = scriptsFor(true)
)

// scripts are the acquire and release scripts of one way of issuing tokens.
type scripts struct{ acquire, release *Script }

func scriptsFor(clocked bool) scripts {
	// The scripts read the choice from a local set before them.
	head := "local clocked = " + strconv.FormatBool(clocked) + "\n"
	return scripts{
		acquire: NewScript(head + include(acquireLua)),
		release: NewScript(head + include(releaseLua)),
	}
}

// include puts common.lua and queue.lua in place of the lines
// "--#include common.lua" and "--#include queue.lua" of src. The scripts
// place them after their fast paths: Lua builds a script's local functions
// as it runs their definitions, and a call that returns early never pays
// for the ones it does not use.
func include(src string) string {
	for _, inc := range [...]struct{ name, body string }{{"common.lua", commonLua}, {"queue.lua", queueLua}} {
		line := "--#include " + inc.name + "\n"
		if !strings.Contains(src, line) {
			panic("redisq: script without " + line)
		}
		src = strings.Replace(src, line, inc.body, 1)
	}
	return src
}

// releasedKeep is how long a released lock's key keeps its last token for
// the next grant.
const releasedKeep = time.Minute

// Script is a Lua script, run by its hash (EVALSHA) and sent in full only
// when the server does not have it. Run it through a Pipe.
type Script struct {
	src  string
	hash any // hex SHA-1 of src, boxed once for every command
}

// NewScript returns the script of source src.
func NewScript(src string) *Script {
	h := sha1.Sum([]byte(src))
	return &Script{src: src, hash: hex.EncodeToString(h[:])}
}

// cmd returns the EVALSHA command that runs s with keys (the key count
// first, then the keys) and args.
func (s *Script) cmd(ctx context.Context, keys, args []any) *redis.Cmd {
	argv := make([]any, 0, 2+len(keys)+len(args))
	argv = append(argv, "evalsha", s.hash)
	argv = append(argv, keys...)
	argv = append(argv, args...)
	cmd := redis.NewCmd(ctx, argv...)
	cmd.SetFirstKeyPos(3)
	return cmd
}

// eval returns the EVAL command that sends s in full in place of by, an
// EVALSHA command of s; the server loads s again as it runs it.
func (s *Script) eval(ctx context.Context, by *redis.Cmd) *redis.Cmd {
	argv := append([]any{"eval", s.src}, by.Args()[2:]...)
	cmd := redis.NewCmd(ctx, argv...)
	cmd.SetFirstKeyPos(3)
	return cmd
}

// Keys are the Redis names of one lock; they share a hash tag, so they live
// on one Redis Cluster slot.
type Keys struct {
	Lock, Queue, Waiters, Channel string

	script []any // the key count and the keys the scripts take, in their order
}

// KeysFor returns the names for key under prefix: prefix + "{" + Tag(key)
// + "}" and that plus ":q", ":w" and ":c".
func KeysFor(prefix, key string) Keys {
	key = Tag(key)
	// All four names are slices of one string: one allocation, not four.
	var b strings.Builder
	base := len(prefix) + len(key) + 2
	b.Grow(4*base + 6)
	for _, suffix := range []string{"", ":q", ":w", ":c"} {
		b.WriteString(prefix)
		b.WriteByte('{')
		b.WriteString(key)
		b.WriteByte('}')
		b.WriteString(suffix)
	}
	all := b.String()
	k := Keys{
		Lock:    all[:base],
		Queue:   all[base : 2*base+2],
		Waiters: all[2*base+2 : 3*base+4],
		Channel: all[3*base+4:],
	}
	k.script = []any{3, k.Lock, k.Queue, k.Waiters}
	return k
}

// Tag returns key as it goes between the braces of its Redis keys' names,
// the hash tag that keeps them in one slot of a Redis Cluster. Redis takes
// the tag from the first '{' to the first '}' after it and hashes a name
// whole when the tag is empty, as it would be for a key that starts with
// '}': such a key, and one that starts with the escape '\', gets a '\'
// in front. Every other key is its own tag.
func Tag(key string) string {
	if strings.HasPrefix(key, "}") || strings.HasPrefix(key, `\`) {
		return `\` + key
	}
	return key
}

// Untag is the inverse of Tag.
func Untag(tag string) string { return strings.TrimPrefix(tag, `\`) }

// Lock is one owner's handle on one lock on one server. Make one with
// NewLock.
type Lock struct {
	Keys Keys
	// ID is the owner id: random, known only to its holder.
	ID string
	// WaiterTimeout is how long a queued waiter keeps its place without
	// re-announcing itself, and how long a handed-off lock waits to be
	// claimed.
	WaiterTimeout time.Duration
	// ClockTokens makes each token at least the server's time in µs,
	// max(time, last token + 1), rather than the last token + 1: tokens of
	// different servers then rise together, and Redlock can take the
	// largest of a majority's. It costs a TIME call per grant.
	ClockTokens bool

	id, channel any // ID and Keys.Channel, boxed once for every command
}

func (l *Lock) scripts() scripts {
	if l.ClockTokens {
		return clocked
	}
	return counted
}

// NewLock returns the handle of owner id on the lock named by keys.
func NewLock(keys Keys, id string, waiterTimeout time.Duration) Lock {
	return Lock{Keys: keys, ID: id, WaiterTimeout: waiterTimeout, id: id, channel: keys.Channel}
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
func (l *Lock) Acquire(ctx context.Context, p *Pipe, ttl time.Duration, wait bool, score int64) (Result, error) {
	return acquireResult(p.Run(ctx, l.scripts().acquire, l.Keys.script, l.acquireArgs(ctx, ttl, wait, score)))
}

// GoAcquire starts Acquire without waiting for it (see Pipe.Go); read its
// outcome with AcquireResult.
func (l *Lock) GoAcquire(ctx context.Context, p *Pipe, onDone func(*Call), ttl time.Duration, wait bool, score int64) *Call {
	return p.Go(ctx, onDone, l.scripts().acquire, l.Keys.script, l.acquireArgs(ctx, ttl, wait, score))
}

// AcquireResult is the outcome of a call started by GoAcquire.
func AcquireResult(c *Call) (Result, error) { return acquireResult(c.Result()) }

// acquireArgs are the acquire script's arguments. ctx's deadline goes
// with them: the script does nothing once it has passed by the server's
// clock, so that a call executed after its caller left (a server paused
// past the deadline runs what was sent before) grants nobody the lock.
// The deadline is read on the client's clock, so the two clocks must
// agree as closely as they must for TTLs.
func (l *Lock) acquireArgs(ctx context.Context, ttl time.Duration, wait bool, score int64) []any {
	deadline := ""
	if d, ok := ctx.Deadline(); ok {
		deadline = strconv.FormatInt(d.UnixMilli(), 10)
	}
	if !wait {
		return []any{l.id, millisArg(ttl), l.channel, "", "", "", deadline}
	}
	scoreArg := ""
	if score > 0 {
		scoreArg = strconv.FormatInt(score, 10)
	}
	return []any{l.id, millisArg(ttl), l.channel, "1", millisArg(l.WaiterTimeout), scoreArg, deadline}
}

// acquireResult reads the acquire script's reply: the token, a string of
// digits, when granted, else {ms until the lock expires, 1 if queued}.
func acquireResult(val any, err error) (Result, error) {
	if err != nil {
		return Result{}, err
	}
	switch v := val.(type) {
	case string:
		if token, err := strconv.ParseUint(v, 10, 64); err == nil && token > 0 {
			return Result{Granted: true, Token: token}, nil
		}
	case []any:
		if len(v) != 2 {
			break
		}
		expires, ok1 := v[0].(int64)
		queued, ok2 := v[1].(int64)
		if ok1 && ok2 {
			return Result{Expires: time.Duration(expires) * time.Millisecond, Queued: queued == 1}, nil
		}
	}
	return Result{}, fmt.Errorf("acquire script returned %v", val)
}

// Released is what a Release or Yield call did.
type Released struct {
	// Held is true when the owner held the lock.
	Held bool
	// Kept is true when a yielding owner was first in line and kept it.
	Kept bool
	// To is the waiter the lock was handed to, "" if none, and Token the
	// token it was handed with. The release published them to To; a
	// Notifier that hosts To can wake it sooner (Notifier.Handed).
	To    string
	Token uint64
}

// Release releases the lock if the owner holds it, handing it to the first
// live waiter, and otherwise takes the owner out of the queue.
func (l *Lock) Release(ctx context.Context, p *Pipe) (Released, error) {
	return releaseResult(p.Run(ctx, l.scripts().release, l.Keys.script, l.releaseArgs()))
}

// GoRelease starts Release without waiting for it (see Pipe.Go); read its
// outcome with ReleaseResult.
func (l *Lock) GoRelease(ctx context.Context, p *Pipe, onDone func(*Call)) *Call {
	return p.Go(ctx, onDone, l.scripts().release, l.Keys.script, l.releaseArgs())
}

// ReleaseResult is the outcome of a call started by GoRelease.
func ReleaseResult(c *Call) (Released, error) { return releaseResult(c.Result()) }

func (l *Lock) releaseArgs() []any {
	return []any{l.id, millisArg(releasedKeep), l.channel, millisArg(l.WaiterTimeout)}
}

// Yield puts the owner back in the queue at score and passes the lock to
// whoever is then first in line; if that is the owner itself, it keeps the
// lock (Released.Kept). A waiter that does not hold the lock keeps its
// place.
func (l *Lock) Yield(ctx context.Context, p *Pipe, score int64, ttl time.Duration) (Released, error) {
	args := append(l.releaseArgs(), strconv.FormatInt(score, 10), millisArg(l.WaiterTimeout), millisArg(ttl))
	return releaseResult(p.Run(ctx, l.scripts().release, l.Keys.script, args))
}

// releaseResult reads the release script's reply: 0, 1 or 2, or {1, new
// owner, token} for a hand-off.
func releaseResult(val any, err error) (Released, error) {
	if err != nil {
		return Released{}, err
	}
	switch v := val.(type) {
	case int64:
		if v >= 0 && v <= 2 {
			return Released{Held: v != 0, Kept: v == 2}, nil
		}
	case []any:
		if len(v) != 3 {
			break
		}
		to, ok := v[1].(string)
		tok, _ := v[2].(string)
		token, err := strconv.ParseUint(tok, 10, 64)
		if !ok || to == "" || err != nil || token == 0 {
			break
		}
		return Released{Held: true, To: to, Token: token}, nil
	}
	return Released{}, fmt.Errorf("release script returned %v", val)
}

// Refresh extends the lock to ttl if the owner holds it and reports whether
// it does. With reseed, a missing lock key (a server that restarted empty)
// is re-created for the owner with token.
func (l *Lock) Refresh(ctx context.Context, p *Pipe, ttl time.Duration, reseed bool, token uint64) (bool, error) {
	reseedArg := "0"
	if reseed {
		reseedArg = "1"
	}
	held, err := intResult(p.Run(ctx, refreshScript,
		[]any{1, l.Keys.Lock},
		[]any{l.id, millisArg(ttl), reseedArg, strconv.FormatUint(token, 10)},
	))
	return held == 1, err
}

// Broken is what Break did.
type Broken struct {
	// Holder is the handle (see Handle) of the owner whose lease was
	// broken, "" if nobody held the lock; Token is its token and Left what
	// its lease had left.
	Holder string
	Token  uint64
	Left   time.Duration
	// Waiters are the handles of the live waiters before the break, first
	// in line first.
	Waiters []string
	// Handed is the hand-off to the first of them, as Release reports it.
	Handed Released
}

// Break drops the holder of the lock named by keys, whoever it is, and
// hands the lock on as a release does: the next grant's token is larger
// than the broken holder's. The broken holder's Locker is told
// "<holder handle>:<keys.Lock>" on the channel notices. It is for an
// operator freeing a stuck key.
func Break(ctx context.Context, p *Pipe, keys Keys, notices string, waiterTimeout time.Duration) (Broken, error) {
	val, err := p.Run(ctx, breakScript, keys.script, []any{millisArg(releasedKeep), keys.Channel, millisArg(waiterTimeout), notices})
	if err != nil {
		return Broken{}, err
	}
	v, _ := val.([]any)
	if len(v) == 0 {
		return Broken{}, nil // nobody held it
	}
	var b Broken
	if len(v) >= 5 {
		tok, _ := v[1].(string)
		left, _ := v[2].(int64)
		handed, _ := v[4].(string)
		b.Holder, _ = v[0].(string)
		b.Token, err = strconv.ParseUint(tok, 10, 64)
		b.Left = time.Duration(left) * time.Millisecond
		if b.Handed.To, _ = v[3].(string); b.Handed.To != "" && err == nil {
			b.Handed.Held = true
			b.Handed.Token, err = strconv.ParseUint(handed, 10, 64)
		}
	}
	if len(v) < 5 || b.Holder == "" || err != nil {
		return Broken{}, fmt.Errorf("break script returned %v", val)
	}
	for _, w := range v[5:] {
		h, _ := w.(string)
		b.Waiters = append(b.Waiters, h)
	}
	return b, nil
}

// Handle names owner id without revealing it, as the scripts name holders
// and waiters to an operator: the first 16 hex digits of its SHA-1.
func Handle(id string) string {
	h := sha1.Sum([]byte(id))
	return hex.EncodeToString(h[:8])
}

func intResult(val any, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n, ok := val.(int64)
	if !ok {
		return 0, fmt.Errorf("script returned %v, want an integer", val)
	}
	return n, nil
}

// millis rounds d up to whole milliseconds, Redis's resolution.
func millis(d time.Duration) string {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(ms), 10)
}

// millisArg is millis(d) as a command argument. The few durations a
// program locks with are formatted once: the last one seen in each of a
// small table's slots is kept.
func millisArg(d time.Duration) any {
	slot := &millisArgs[uint64(d/time.Millisecond)%uint64(len(millisArgs))]
	if e := slot.Load(); e != nil && e.d == d {
		return e.arg
	}
	e := &millisEntry{d: d, arg: millis(d)}
	slot.Store(e)
	return e.arg
}

type millisEntry struct {
	d   time.Duration
	arg any
}

var millisArgs [64]atomic.Pointer[millisEntry]
