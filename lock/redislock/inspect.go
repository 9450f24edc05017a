package redislock

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
	"github.com/stockade/stockade/lock/internal/redisq"
)

var (
	//go:embed inspect.lua
	inspectLua string
	//go:embed weighted_break.lua
	weightedBreakLua string

	inspectScript = redis.NewScript(inspectLua)
	weightedBreak = weightedScript(weightedBreakLua)
)

var (
	_ lock.Inspector = (*Locker)(nil)
	_ lock.Breaker   = (*Locker)(nil)
)

// scanCount is the COUNT of each SCAN, and how many keys' states are read
// in one pipeline.
const scanCount = 500

// suffixes are what follows the hash tag in the names of a key's Redis
// keys, in every kind. None contains "}", so a name ends in "}" and one
// of them in one way only, whatever braces the key has.
var suffixes = []string{"", ":q", ":w", ":sem", ":sem:h", ":sem:q", ":rw", ":rw:h", ":rw:q"}

// Inspect implements lock.Inspector: the locks, then the semaphores, then
// the read-write locks whose keys start with prefix, each kind in key
// order. It walks the Redis keys under Options.Prefix with SCAN, on every
// master of a Redis Cluster, and then reads each key's state in every
// kind with one read-only script, pipelined. Holders and waiters are named
// by handles, the first 16 hex digits of the SHA-1 of their owner ids;
// AcquiredAt is not kept, so it is zero, and holders come in the order
// their leases end.
func (l *Locker) Inspect(ctx context.Context, prefix string) ([]lock.KeyState, error) {
	match := globEscaper.Replace(l.opts.Prefix+"{"+redisq.Tag(prefix)) + "*"
	var (
		mu   sync.Mutex
		keys = map[string]bool{}
	)
	scan := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, match, scanCount).Iterator()
		for iter.Next(ctx) {
			if key, ok := l.keyOf(iter.Val()); ok && strings.HasPrefix(key, prefix) {
				mu.Lock()
				keys[key] = true
				mu.Unlock()
			}
		}
		return iter.Err()
	}
	var err error
	if cc, ok := l.client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	} else {
		err = scan(ctx, l.client)
	}
	if err != nil {
		return nil, fmt.Errorf("redislock: inspect %q: %w", prefix, err)
	}
	states, err := l.states(ctx, slices.Sorted(maps.Keys(keys)))
	if err != nil {
		return nil, fmt.Errorf("redislock: inspect %q: %w", prefix, err)
	}
	slices.SortStableFunc(states, func(a, b lock.KeyState) int {
		return cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind))
	})
	return states, nil
}

// InspectKey implements lock.Inspector.
func (l *Locker) InspectKey(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	states, err := l.states(ctx, []string{key})
	if err != nil {
		return nil, fmt.Errorf("redislock: inspect %q: %w", key, err)
	}
	return states, nil
}

// Break implements lock.Breaker: in every kind, a script drops key's
// holders and grants its waiters what that frees, as a release does, and
// publishes each broken holder's handle on the channel its Locker watches
// (Prefix + "broken"), whose lease then ends with lock.ErrLost. A holder
// whose Locker misses the message learns of the break at its next Refresh
// or Release. The next holder's token is larger than the broken ones':
// the key keeps its last token.
func (l *Locker) Break(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	var broken []lock.KeyState
	b, err := redisq.Break(ctx, l.pipe, redisq.KeysFor(l.opts.Prefix, key), l.breakChannel(), l.opts.WaiterTimeout)
	if err != nil {
		return nil, fmt.Errorf("redislock: break %q: %w", key, err)
	}
	if b.Holder != "" {
		l.notes.Handed(b.Handed)
		broken = append(broken, lock.KeyState{
			Key:       key,
			Kind:      lock.KindLock,
			Holders:   []lock.Holder{{ID: b.Holder, Token: b.Token, ExpiresAt: expiresAt(time.Now(), b.Left)}},
			Waiters:   len(b.Waiters),
			WaiterIDs: b.Waiters,
		})
	}
	for _, k := range []kind{semaphores, rwLocks} {
		args := []any{"", 0, l.weightedBase(k, key) + ":c", millis(l.opts.WaiterTimeout), l.breakChannel()}
		reply, err := l.pipe.Run(ctx, weightedBreak, scriptKeys(l.weightedKeys(k, key)), args)
		v, ok := reply.([]any)
		if err == nil && (!ok || len(v) > 0 && len(v) < 4) {
			err = fmt.Errorf("break script returned %v", reply)
		}
		if err != nil {
			return broken, fmt.Errorf("redislock: break %s %q: %w", k.name, key, err)
		}
		if len(v) == 0 {
			continue
		}
		st, err := kindState(key, k, v[:4], time.Now())
		if err != nil {
			return broken, fmt.Errorf("redislock: break %s %q: %w", k.name, key, err)
		}
		broken = append(broken, st)
		for i := 4; i+1 < len(v); i += 2 { // a waiter granted, and its message
			id, _ := v[i].(string)
			s, _ := v[i+1].(string)
			if handed, err := strconv.ParseUint(s, 10, 64); err == nil {
				l.notes.Deliver(id, handed)
			}
		}
	}
	return broken, nil
}

// states reads the state of keys in every kind, scanCount keys to a
// pipeline, in the order of keys.
func (l *Locker) states(ctx context.Context, keys []string) ([]lock.KeyState, error) {
	var out []lock.KeyState
	for chunk := range slices.Chunk(keys, scanCount) {
		names := make([][]string, len(chunk))
		cmds := make([]*redis.Cmd, len(chunk))
		pipe := l.client.Pipeline()
		for i, key := range chunk {
			q := redisq.KeysFor(l.opts.Prefix, key)
			names[i] = slices.Concat([]string{q.Lock, q.Queue, q.Waiters}, l.weightedKeys(semaphores, key), l.weightedKeys(rwLocks, key))
			cmds[i] = inspectScript.EvalSha(ctx, pipe, names[i])
		}
		pipe.Exec(ctx) // each command carries its own error
		now := time.Now()
		for i, key := range chunk {
			cmd := cmds[i]
			if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
				cmd = inspectScript.Eval(ctx, l.client, names[i]) // loads it again
			}
			v, err := cmd.Slice()
			if err == nil && len(v) != 3 {
				err = fmt.Errorf("inspect script returned %v", v)
			}
			if err != nil {
				return nil, err
			}
			for j, k := range []kind{locks, semaphores, rwLocks} {
				kv, _ := v[j].([]any)
				if len(kv) == 0 {
					continue
				}
				st, err := kindState(key, k, kv, now)
				if err != nil {
					return nil, err
				}
				out = append(out, st)
			}
		}
	}
	return out, nil
}

// locks is the kind of plain locks, whose Redis keys redisq names.
var locks = kind{"", "lock"}

// kindState reads key's state in kind k from a script's reply {limit,
// last token, holders, waiters} (see inspect.lua), read at now.
func kindState(key string, k kind, v []any, now time.Time) (lock.KeyState, error) {
	limit, ok1 := v[0].(int64)
	tok, ok2 := v[1].(string)
	held, ok3 := v[2].([]any)
	waiting, ok4 := v[3].([]any)
	token, err := strconv.ParseUint(tok, 10, 64)
	if !ok1 || !ok2 || !ok3 || !ok4 || err != nil || len(held)%3 != 0 {
		return lock.KeyState{}, fmt.Errorf("a script returned %v for %s %q", v, k.name, key)
	}
	st := lock.KeyState{Key: key, Waiters: len(waiting)}
	switch k {
	case locks:
		st.Kind = lock.KindLock
	case semaphores:
		st.Kind, st.Limit = lock.KindSemaphore, int(limit)
	case rwLocks:
		st.Kind = lock.KindRWLock
	}
	for i := 0; i < len(held); i += 3 {
		id, _ := held[i].(string)
		n, _ := held[i+1].(int64)
		left, _ := held[i+2].(int64)
		h := lock.Holder{ID: id, ExpiresAt: expiresAt(now, time.Duration(left)*time.Millisecond)}
		switch {
		case k == semaphores:
			h.Permits = int(n)
		case k == rwLocks && n < rwLimit:
			h.Shared = true
		default: // a lock, or an exclusive lease: the key's last token is its
			h.Token = token
		}
		st.Holders = append(st.Holders, h)
	}
	for _, w := range waiting {
		id, _ := w.(string)
		st.WaiterIDs = append(st.WaiterIDs, id)
	}
	return st, nil
}

// expiresAt is when a lease with left to live at now ends; zero if it has
// no expiry.
func expiresAt(now time.Time, left time.Duration) time.Time {
	if left <= 0 {
		return time.Time{}
	}
	return now.Add(left)
}

func kindOrder(k lock.KeyKind) int {
	return slices.Index([]lock.KeyKind{lock.KindLock, lock.KindSemaphore, lock.KindRWLock}, k)
}

// keyOf returns the key whose Redis key is name, if name is one under
// Options.Prefix.
func (l *Locker) keyOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, l.opts.Prefix+"{")
	if !ok {
		return "", false
	}
	for _, s := range suffixes {
		if tag, ok := strings.CutSuffix(rest, "}"+s); ok {
			return redisq.Untag(tag), true
		}
	}
	return "", false
}

// globEscaper escapes the characters that SCAN's MATCH gives a meaning.
var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// breakChannel is the channel on which Break tells holders' Lockers that
// their leases were broken.
func (l *Locker) breakChannel() string { return l.opts.Prefix + "broken" }

// holdings are a Locker's leases by the Redis key they hold (a lock's key,
// or a semaphore's or read-write lock's state hash), kept so that a Break
// by any process ends them at once: the Locker watches its break channel
// from its first grant, and a lease is kept from its grant to its
// release. Leases that ended otherwise are dropped as more are added.
type holdings struct {
	watch sync.Once

	mu    sync.Mutex
	byKey map[string][]holding
	n     int // leases in byKey
	sweep int // n at which add drops the leases that ended
}

type holding struct {
	id string // the owner id
	le *lease.Lease
}

// hold keeps le, of owner id, on the Redis key name.
func (l *Locker) hold(name, id string, le *lease.Lease) {
	l.held.watch.Do(func() { l.notes.Watch(l.breakChannel(), l.held.broken) })
	h := &l.held
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byKey == nil {
		h.byKey = make(map[string][]holding)
	}
	if h.n >= h.sweep {
		for name, hs := range h.byKey {
			hs = slices.DeleteFunc(hs, func(h holding) bool { return h.le.Err() != nil })
			if len(hs) == 0 {
				delete(h.byKey, name)
			} else {
				h.byKey[name] = hs
			}
		}
		h.n = 0
		for _, hs := range h.byKey {
			h.n += len(hs)
		}
		h.sweep = max(2*h.n, 64)
	}
	h.byKey[name] = append(h.byKey[name], holding{id, le})
	h.n++
}

// drop forgets the lease of owner id on the Redis key name.
func (h *holdings) drop(name, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hs := h.byKey[name]
	i := slices.IndexFunc(hs, func(h holding) bool { return h.id == id })
	if i < 0 {
		return
	}
	if len(hs) == 1 {
		delete(h.byKey, name)
	} else {
		h.byKey[name] = slices.Delete(hs, i, i+1)
	}
	h.n--
}

// broken ends the lease a break message, "<holder handle>:<Redis key>",
// names, if it is one of ours. It runs on the notifier's goroutine, so
// it leaves the lease's observer to a goroutine of its own.
func (h *holdings) broken(payload string) {
	handle, name, _ := strings.Cut(payload, ":")
	h.mu.Lock()
	var lost *lease.Lease
	for _, hd := range h.byKey[name] {
		if redisq.Handle(hd.id) == handle {
			lost = hd.le
			break
		}
	}
	h.mu.Unlock()
	if lost != nil {
		go lost.Lose(fmt.Errorf("%w: %q was broken by an operator (token %d)", lock.ErrLost, lost.Key(), lost.Token()))
	}
}
