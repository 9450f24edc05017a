package redisq_test

import (
	"testing"
	"time"

	"github.com/stockade/stockade/lock/internal/redisq"
)

// TestNotifierChurn has waiters come and go on one channel, one at a time,
// each waking by a message published right after it listens: the way a
// key's waiter count keeps falling to zero and rising again. Every message
// must arrive; a subscription that an unsubscription overtook would leave
// the channel deaf.
func TestNotifierChurn(t *testing.T) {
	c := newClient(t)
	defer redisq.SetIdleUnsubscribe(time.Millisecond)()
	n := redisq.NewNotifier(c)
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
			time.Sleep(2 * time.Millisecond) // let an idle sweep run
		}
	}
}

// TestNotifierUnsubscribesIdleChannels checks that a channel is dropped
// once it has had no waiter for the idle time, and kept while it has one.
func TestNotifierUnsubscribesIdleChannels(t *testing.T) {
	c := newClient(t)
	defer redisq.SetIdleUnsubscribe(50 * time.Millisecond)()
	n := redisq.NewNotifier(c)
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
	deadline := time.Now().Add(5 * time.Second)
	for subscribers("a") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("channel a is still subscribed 5s after its last waiter left")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := subscribers("b"); got != 1 {
		t.Fatalf("channel b, which still has a waiter, has %d subscribers", got)
	}
	stopB()
}
