package redisq_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock/internal/redisq"
)

// TestNotifierChurn has waiters come and go on one channel, one at a time,
// each waking by a message published right after it listens: the way a
// key's waiter count keeps falling to zero and rising again. Every message
// must arrive; a subscription that an unsubscription overtook would leave
// the channel deaf.
func TestNotifierChurn(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	n := redisq.NewNotifier(c, &redisq.NotifierOptions{IdleUnsubscribe: time.Millisecond})
	t.Cleanup(func() { n.Close() })
	ctx := t.Context()

	for i := range 300 {
		wake := make(chan uint64, 1)
		stop := n.Listen(ctx, "churn", "w", wake)
		if err := c.Publish(ctx, "churn", "w:7").Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case tok := <-wake:
			if tok != 7 {
				t.Fatalf("round %d: token %d, want 7", i, tok)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the notification never arrived", i)
		}
		stop()
		if i%10 == 0 {
			// Let an idle sweep drop the channel, so that the next round
			// subscribes it again from scratch.
			awaitSubscribers(t, c, "churn", 0)
		}
	}
}

// awaitSubscribers waits until channel has want subscribers on the server,
// and fails the test if it has not within 5s.
func awaitSubscribers(t *testing.T, c *redis.Client, channel string, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		counts, err := c.PubSubNumSub(t.Context(), channel).Result()
		if err != nil {
			t.Fatal(err)
		}
		if counts[channel] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("channel %s has %d subscribers 5s on, want %d", channel, counts[channel], want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestNotifierUnsubscribesIdleChannels checks that a channel is dropped
// once it has had no waiter for the idle time, and kept while it has one.
func TestNotifierUnsubscribesIdleChannels(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	n := redisq.NewNotifier(c, &redisq.NotifierOptions{IdleUnsubscribe: 50 * time.Millisecond})
	t.Cleanup(func() { n.Close() })
	ctx := t.Context()

	subscribers := func(ch string) int64 {
		t.Helper()
		counts, err := c.PubSubNumSub(ctx, ch).Result()
		if err != nil {
			t.Fatal(err)
		}
		return counts[ch]
	}

	stopA := n.Listen(ctx, "a", "wa", make(chan uint64, 1))
	stopB := n.Listen(ctx, "b", "wb", make(chan uint64, 1))
	if subscribers("a") != 1 || subscribers("b") != 1 {
		t.Fatalf("subscribers while listening: a %d, b %d, want 1 each", subscribers("a"), subscribers("b"))
	}
	stopA()
	awaitSubscribers(t, c, "a", 0)
	if got := subscribers("b"); got != 1 {
		t.Fatalf("channel b, which still has a waiter, has %d subscribers", got)
	}
	stopB()
}

// TestHandOffDeliveredOnce wakes a waiter with a hand-off both through
// Handed, as a releaser in its process does, and by the release's message:
// the waiter must see the token once. Plain wake-ups (token 0) always pass.
func TestHandOffDeliveredOnce(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	n := redisq.NewNotifier(c, nil)
	t.Cleanup(func() { n.Close() })
	ctx := t.Context()

	wake := make(chan uint64, 4)
	defer n.Listen(ctx, "once", "w", wake)()
	next := func() uint64 {
		t.Helper()
		select {
		case tok := <-wake:
			return tok
		case <-time.After(5 * time.Second):
			t.Fatal("no wake-up within 5s")
			return 0
		}
	}

	if !n.Handed(redisq.Released{Held: true, To: "w", Token: 7}) {
		t.Fatal("Handed did not wake the waiter it names")
	}
	if n.Handed(redisq.Released{Held: true, To: "other", Token: 7}) || n.Handed(redisq.Released{Held: true}) {
		t.Fatal("Handed reported waking a waiter that does not listen here")
	}
	if tok := next(); tok != 7 {
		t.Fatalf("token %d, want 7", tok)
	}
	// The release's own message comes after: it must be dropped. Messages
	// on a channel arrive in order, so the next wake-up shows whether it was.
	for _, m := range []string{"w:7", "w", "w:8"} {
		if err := c.Publish(ctx, "once", m).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if tok := next(); tok != 0 {
		t.Fatalf("woken with %d after the plain wake-up was sent, want 0: the hand-off of 7 came twice", tok)
	}
	if tok := next(); tok != 8 {
		t.Fatalf("token %d, want 8", tok)
	}
	if n.Handed(redisq.Released{Held: true, To: "w", Token: 8}) {
		t.Fatal("the hand-off of 8 was delivered again through Handed")
	}
}

// TestNotifierCloseWaits checks that Close returns only once the
// goroutines that read and manage the notification connection have: none
// of them may outlive it, and the client it uses may be closed next. It is
// not parallel: it counts the notifier goroutines of the whole process.
func TestNotifierCloseWaits(t *testing.T) {
	c := newClient(t)
	running := func() int {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		return strings.Count(stacks, "redisq.(*Notifier).receive(") + strings.Count(stacks, "redisq.(*Notifier).manage(")
	}
	before := running()
	n := redisq.NewNotifier(c, nil)
	n.Listen(t.Context(), "close", "w", make(chan uint64, 1))()
	if got := running() - before; got != 2 {
		t.Fatalf("%d notifier goroutines while listening, want 2", got)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if got := running() - before; got != 0 {
		t.Fatalf("%d notifier goroutines still running after Close", got)
	}
}
