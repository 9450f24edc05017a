package redisq_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock/internal/redisq"
)

// serverMicros is the server's clock in µs.
func serverMicros(t *testing.T, c *redis.Client) uint64 {
	t.Helper()
	now, err := c.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return uint64(now.UnixMicro())
}

// TestTokens checks how grants number a key's holders: one more than the
// last token while the released key keeps it, directly and by hand-off;
// at least the server clock when the key has gone; and, clocked, at least
// the server clock always.
func TestTokens(t *testing.T) {
	t.Parallel()
	for _, clocked := range []bool{false, true} {
		t.Run(map[bool]string{false: "counted", true: "clocked"}[clocked], func(t *testing.T) {
			c := newClient(t)
			p := redisq.NewPipe(c)
			ctx := t.Context()
			owner := func(id string) redisq.Lock {
				l := newLock("k", id)
				l.ClockTokens = clocked
				return l
			}
			take := func(l redisq.Lock, wait bool) redisq.Result {
				t.Helper()
				res, err := l.Acquire(ctx, p, time.Minute, wait, 0)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			release := func(l redisq.Lock) {
				t.Helper()
				if r, err := l.Release(ctx, p); err != nil || !r.Held {
					t.Fatalf("release by %s: %+v, %v", l.ID, r, err)
				}
			}
			// next checks token follows last: by one if counted, and never
			// below the server clock read just before the grant if clocked.
			next := func(what string, last, token, clock uint64) {
				t.Helper()
				if token <= last {
					t.Fatalf("%s: token %d after %d", what, token, last)
				}
				if clocked && token < clock {
					t.Fatalf("%s: clocked token %d below the server clock %d", what, token, clock)
				}
				if !clocked && token != last+1 {
					t.Fatalf("%s: token %d after %d, want %d", what, token, last, last+1)
				}
			}

			before := serverMicros(t, c)
			a := owner("a")
			first := take(a, false)
			if !first.Granted || first.Token < before {
				t.Fatalf("first grant %+v: want a token from the server clock, at least %d", first, before)
			}
			release(a)

			b := owner("b")
			clock := serverMicros(t, c)
			direct := take(b, false)
			if !direct.Granted {
				t.Fatalf("free key not granted: %+v", direct)
			}
			next("direct grant", first.Token, direct.Token, clock)

			w := owner("w")
			if res := take(w, true); res.Granted || !res.Queued {
				t.Fatalf("waiter behind a holder: %+v, want queued", res)
			}
			clock = serverMicros(t, c)
			release(b) // hands the lock to w
			handed := take(w, true)
			if !handed.Granted {
				t.Fatalf("waiter not handed the lock: %+v", handed)
			}
			next("hand-off", direct.Token, handed.Token, clock)
			release(w)

			// The released key expires: the server clock carries on.
			if err := c.Del(ctx, w.Keys.Lock).Err(); err != nil {
				t.Fatal(err)
			}
			clock = serverMicros(t, c)
			after := take(owner("z"), false)
			if !after.Granted || after.Token <= handed.Token || after.Token < clock {
				t.Fatalf("grant after the key expired: %+v, want a token above %d and the server clock %d", after, handed.Token, clock)
			}
		})
	}
}

// TestNoBargingPastExpiredHolder expires a holder that has a waiter
// queued: the lock key is gone, and a newcomer must still not pass the
// waiter.
func TestNoBargingPastExpiredHolder(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	p := redisq.NewPipe(c)
	ctx := t.Context()
	holder, waiter, newcomer := newLock("k", "h"), newLock("k", "w"), newLock("k", "n")
	waiter.WaiterTimeout = time.Minute // it stays in line, however long the test takes

	if res, err := holder.Acquire(ctx, p, time.Minute, false, 0); err != nil || !res.Granted {
		t.Fatalf("holder: %+v, %v", res, err)
	}
	if res, err := waiter.Acquire(ctx, p, time.Minute, true, 0); err != nil || !res.Queued {
		t.Fatalf("waiter: %+v, %v", res, err)
	}
	// The holder's lease runs out now: the server expires the lock key as
	// it would at the end of its TTL.
	if err := c.PExpire(ctx, holder.Keys.Lock, time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		n, err := c.Exists(ctx, holder.Keys.Lock).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("lock key still there 5s after it was set to expire: the test proves nothing")
		}
	}
	if res, err := newcomer.Acquire(ctx, p, time.Minute, false, 0); err != nil || res.Granted {
		t.Fatalf("newcomer passed the queued waiter: %+v, %v", res, err)
	}
	if res, err := waiter.Acquire(ctx, p, time.Minute, true, 0); err != nil || !res.Granted {
		t.Fatalf("waiter, first in line, not granted: %+v, %v", res, err)
	}
}

// TestAcquireAfterDeadlineDoesNothing pauses the server while acquisitions
// are on the wire, past their callers' deadline, and resumes it: the
// server then runs what was sent before the pause, and those calls, whose
// callers have left, must neither take the lock nor queue for it. Without
// that, the key stays held by nobody until the TTL, or a ghost heads its
// queue.
func TestAcquireAfterDeadlineDoesNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedis(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	p := redisq.NewPipe(c)
	holder, free, waiter := newLock("held", "holder"), newLock("free", "ghost"), newLock("held", "ghost-waiter")
	if res, err := holder.Acquire(t.Context(), p, time.Minute, false, 0); err != nil || !res.Granted {
		t.Fatalf("holder: %+v, %v", res, err)
	}

	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	errs := make(chan error, 2)
	go func() { _, err := free.Acquire(ctx, p, time.Minute, false, 0); errs <- err }()
	go func() { _, err := waiter.Acquire(ctx, p, time.Minute, true, 0); errs <- err }()
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatal("an acquisition answered by a paused server")
		}
	}
	cancel()
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}

	// The free key is still free: another owner takes it at once.
	other := newLock("free", "other")
	if res, err := other.Acquire(t.Context(), p, time.Minute, false, 0); err != nil || !res.Granted {
		t.Fatalf("the free key after the late call: %+v, %v (granted to the caller that left)", res, err)
	}
	// And the held key's queue is empty: its release frees it.
	r, err := holder.Release(t.Context(), p)
	if err != nil || !r.Held {
		t.Fatalf("holder release: %+v, %v", r, err)
	}
	if n, err := c.ZCard(t.Context(), holder.Keys.Queue).Result(); err != nil || n != 0 {
		t.Fatalf("queue after the late call: %d waiters, %v", n, err)
	}
	next := newLock("held", "other")
	if res, err := next.Acquire(t.Context(), p, time.Minute, false, 0); err != nil || !res.Granted {
		t.Fatalf("the released key: %+v, %v (handed to the caller that left)", res, err)
	}
}

// TestTag: a key's hash tag is never empty, and tags tell keys apart.
func TestTag(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, key := range []string{"x", "}", "}x", `\`, `\}x`, `\\`, "{}", "a}b", ""} {
		tag := redisq.Tag(key)
		if key != "" && strings.HasPrefix(tag, "}") {
			t.Errorf("Tag(%q) = %q starts with '}': an empty hash tag", key, tag)
		}
		if redisq.Untag(tag) != key {
			t.Errorf("Untag(Tag(%q)) = %q", key, redisq.Untag(tag))
		}
		if other, ok := seen[tag]; ok {
			t.Errorf("keys %q and %q share the tag %q", other, key, tag)
		}
		seen[tag] = key
	}
}
