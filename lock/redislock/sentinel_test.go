package redislock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/redislock"
)

// The tests on a Redis primary and its replica watched by three Sentinels,
// through go-redis's failover client: the primary fails, the Sentinels
// promote the replica, and the client follows them.

// TestSentinelFailover takes locks, lets a grant reach the primary but
// not its replica (the replica link is held back, as asynchronous
// replication may hold it back at any moment), and kills the primary. The
// replica, promoted, never saw that grant: the key is free there, and
// another caller takes it while the first still believes it holds it.
// What keeps the two apart is the fencing token: the new holder's must be
// larger than the lost lease's, so that a resource that keeps the largest
// token it has seen (as the store's levels do) refuses the stale holder's
// writes once the new holder has written. The lost lease learns of its
// loss at its next Refresh; a lease granted before the link was held back
// survives the failover; and the Locker grants again once the client has
// found the new primary.
func TestSentinelFailover(t *testing.T) {
	t.Parallel()
	s := testkit.NewRedisSentinel(t, nil)
	client := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:            s.MasterName(),
		SentinelAddrs:         s.SentinelAddrs(),
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { client.Close() })
	l := redislock.New(client, &redislock.Options{Prefix: t.Name() + ":"})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()
	ttl := lock.WithTTL(time.Minute)

	// Replicated: "kept" held, "k" held and released.
	kept, err := l.Acquire(ctx, "kept", ttl)
	if err != nil {
		t.Fatal(err)
	}
	first, err := l.Acquire(ctx, "k", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := client.Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 = %d, %v; want the replica's ack", n, err)
	}

	// Not replicated: the next grant of "k", and "renewed", a lease that
	// renews itself.
	s.ReplicaLink().Blackhole()
	stale, err := l.Acquire(ctx, "k", ttl)
	if err != nil {
		t.Fatal(err)
	}
	renewed, err := l.Acquire(ctx, "renewed", lock.WithTTL(5*time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}

	old := s.Nodes()[0]
	killed := time.Now()
	if err := old.Kill(); err != nil {
		t.Fatal(err)
	}
	promoted, err := s.WaitPrimary(old)
	if err != nil {
		t.Fatal(err)
	}
	named := time.Since(killed)

	// A new holder of "k", once the client reaches the new primary.
	var next lock.Lease
	for next == nil {
		next, err = l.Acquire(ctx, "k", ttl, lock.WithWait(5*time.Second))
		switch {
		case errors.Is(err, lock.ErrUnavailable) && time.Since(killed) < 30*time.Second:
			time.Sleep(50 * time.Millisecond)
		case err != nil:
			t.Fatalf("acquire after the failover: %v", err)
		}
	}
	t.Logf("primary killed; %s named the primary after %v, %q granted again after %v",
		promoted.Addr(), named.Round(time.Millisecond), "k", time.Since(killed).Round(time.Millisecond))
	t.Logf("tokens of %q: %d released before, %d lost in the failover, %d after", "k", first.Token(), stale.Token(), next.Token())

	// The fence of a resource that the new holder writes first.
	fence := next.Token()
	if stale.Token() >= fence {
		t.Errorf("the lost lease's token %d is not below the new holder's %d: a fence that takes tokens at least its own "+
			"applies the writes of both holders", stale.Token(), fence)
	}

	// The lost lease learns it at its next Refresh.
	if err := stale.Refresh(ctx, time.Minute); !errors.Is(err, lock.ErrLost) {
		t.Errorf("Refresh of the lease lost in the failover: %v; want ErrLost", err)
	}
	select {
	case <-stale.Done():
		if !errors.Is(stale.Err(), lock.ErrLost) {
			t.Errorf("lost lease's Err = %v; want ErrLost", stale.Err())
		}
	case <-time.After(5 * time.Second):
		t.Error("the lost lease's Done is still open after its Refresh failed")
	}
	// The renewing one learns it by itself.
	select {
	case <-renewed.Done():
		if !errors.Is(renewed.Err(), lock.ErrLost) {
			t.Errorf("renewing lease's Err = %v; want ErrLost", renewed.Err())
		}
	case <-time.After(30 * time.Second):
		t.Error("a renewing lease whose grant was lost in the failover is still held")
	}

	// Granted before the link was held back: still held.
	if err := kept.Refresh(ctx, time.Minute); err != nil {
		t.Errorf("Refresh of a lease replicated before the failover: %v", err)
	}
	for _, le := range []lock.Lease{kept, next} {
		if err := le.Release(ctx); err != nil {
			t.Errorf("Release %s: %v", le.Key(), err)
		}
	}
}
