package redislock_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/redislock"
)

func TestInspector(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	opts := &redislock.Options{Prefix: t.Name() + ":"}
	w := watchers{channel: opts.Prefix + "broken", subscribers: numSub(newClient(t, addr))}
	locktest.RunInspector(t, func(t *testing.T) lock.Locker { return w.ready(t, newLocker(t, addr, opts)) })
}

func TestClusterInspector(t *testing.T) {
	t.Parallel()
	c := testkit.SharedRedisCluster(t)
	opts := &redislock.Options{Prefix: t.Name() + ":"}
	admin := newClusterClient(t, c)
	w := watchers{channel: opts.Prefix + "broken", subscribers: func(ctx context.Context, channel string) (int64, error) {
		// A subscriber is on one node of the cluster, any one.
		var total atomic.Int64
		err := admin.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error {
			n, err := c.PubSubNumSub(ctx, channel).Result()
			total.Add(n[channel])
			return err
		})
		return total.Load(), err
	}}
	locktest.RunInspector(t, func(t *testing.T) lock.Locker { return w.ready(t, newClusterLocker(t, c, opts)) })
}

// numSub counts the subscribers of a channel on c.
func numSub(c *redis.Client) func(ctx context.Context, channel string) (int64, error) {
	return func(ctx context.Context, channel string) (int64, error) {
		n, err := c.PubSubNumSub(ctx, channel).Result()
		return n[channel], err
	}
}

// watchers makes Lockers ready for a Break: a Locker watches for breaks
// from its first grant, but does not wait for its subscription, and a
// break published before it is confirmed would reach a holder only at
// its next Refresh or at its TTL.
type watchers struct {
	channel     string
	subscribers func(ctx context.Context, channel string) (int64, error)
	made        atomic.Int64 // Lockers made ready
}

// ready makes l watch for breaks, with a grant, and waits until the
// server counts its subscription. Lockers made ready share the channel
// until the test ends, so the server counts every one of them.
func (w *watchers) ready(t *testing.T, l *redislock.Locker) *redislock.Locker {
	ctx := t.Context()
	le, err := l.TryAcquire(ctx, "warm-up/"+rand.Text())
	if err == nil {
		err = le.Release(ctx)
	}
	if err != nil {
		t.Errorf("warm-up: %v", err) // not Fatal: RunInspector calls this from its goroutines too
		return l
	}
	want := w.made.Add(1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := w.subscribers(ctx, w.channel)
		switch {
		case err != nil:
			t.Errorf("PUBSUB NUMSUB %s: %v", w.channel, err)
			return l
		case n >= want:
			return l
		case time.Now().After(deadline):
			t.Errorf("%d subscribers of %s, want %d", n, w.channel, want)
			return l
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestInspectPages holds more locks than one SCAN returns, under a
// prefix and keys with glob characters and braces, and inspects a prefix
// of them: Inspect must page through them all and match the prefix
// literally.
func TestInspectPages(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	l := newLocker(t, addr, &redislock.Options{Prefix: t.Name() + `:[*?\]:`})
	ctx := t.Context()
	const n = 1200 // more than two SCAN batches
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("a*[}:q/%04d", i))
	}
	// Keys that a glob "a*[}:q/*" would match, and one with the same name
	// as a lock's queue.
	decoys := []string{"ab[}:q/1", "a*[}:q", "a*[}:q}:q"}
	for _, key := range slices.Concat(want, decoys) {
		le, err := l.TryAcquire(ctx, key, lock.WithTTL(time.Minute))
		if err != nil {
			t.Fatalf("TryAcquire(%q) = %v", key, err)
		}
		t.Cleanup(func() { le.Release(ctx) })
	}

	states, err := l.Inspect(ctx, "a*[}:q/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range states {
		if st.Kind != lock.KindLock || len(st.Holders) != 1 || st.Holders[0].Token == 0 {
			t.Errorf("%q: %+v; want a lock with one holder", st.Key, st)
		}
		got = append(got, st.Key)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Inspect found %d keys, want %d in order; first %q", len(got), len(want), got[:min(3, len(got))])
	}

	for _, key := range decoys {
		states, err := l.InspectKey(ctx, key)
		if err != nil || len(states) != 1 || states[0].Key != key {
			t.Errorf("InspectKey(%q) = %+v, %v; want the lock", key, states, err)
		}
	}
}

// TestBreakWeighted breaks a semaphore and a read-write lock held by one
// Locker with a waiter of another: each holder's lease is lost, each
// waiter granted, and the writer's token is larger than the broken one's.
func TestBreakWeighted(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	opts := &redislock.Options{Prefix: t.Name() + ":", WaiterTimeout: time.Minute}
	w := watchers{channel: opts.Prefix + "broken", subscribers: numSub(newClient(t, addr))}
	holder, waiter := w.ready(t, newLocker(t, addr, opts)), newLocker(t, addr, opts)
	ctx := t.Context()
	hold := []lock.Option{lock.WithTTL(time.Minute), lock.WithWait(time.Minute)}
	cases := []struct {
		name string
		kind lock.KeyKind
		take func(l *redislock.Locker) (lock.Lease, error)
	}{
		{"semaphore", lock.KindSemaphore, func(l *redislock.Locker) (lock.Lease, error) {
			return l.AcquirePermits(ctx, "sem", 2, 2, hold...)
		}},
		{"rwlock", lock.KindRWLock, func(l *redislock.Locker) (lock.Lease, error) {
			return l.AcquireExclusive(ctx, "rw", hold...)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.take(holder)
			if err != nil {
				t.Fatal(err)
			}
			next := make(chan lock.Lease, 1)
			go func() {
				le, err := tc.take(waiter)
				if err != nil {
					t.Error(err)
				}
				next <- le
			}()
			awaitInspected(t, holder, first.Key(), func(st lock.KeyState) bool { return st.Kind == tc.kind && st.Waiters == 1 })

			broken, err := holder.Break(ctx, first.Key())
			if err != nil || len(broken) != 1 || broken[0].Kind != tc.kind || len(broken[0].Holders) != 1 || broken[0].Holders[0].Token != first.Token() {
				t.Fatalf("Break = %+v, %v; want the %s with its one holder", broken, err, tc.kind)
			}
			select {
			case <-first.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("the broken holder's Done is not closed")
			}
			le := <-next
			if le == nil {
				return
			}
			defer le.Release(ctx)
			if tc.kind == lock.KindRWLock && le.Token() <= first.Token() {
				t.Errorf("the next writer's token %d is not larger than the broken one's %d", le.Token(), first.Token())
			}
			if err := first.Release(ctx); !errors.Is(err, lock.ErrLost) {
				t.Errorf("the broken holder's Release = %v; want ErrLost", err)
			}
		})
	}
}

// awaitInspected waits until InspectKey shows key in a state that ok
// accepts.
func awaitInspected(t *testing.T, l *redislock.Locker, key string, ok func(lock.KeyState) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		states, err := l.InspectKey(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(states, ok) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("InspectKey(%q) = %+v; never in the state awaited", key, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
