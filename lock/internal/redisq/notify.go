package redisq

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// subscribeWait bounds how long a waiter waits for its channel subscription
// to be confirmed before it queues; past it, the waiter's timed re-checks
// still find a hand-off, only later.
const subscribeWait = time.Second

// Notifier shares one pub/sub connection to a server among all the waiters
// of a Locker.
// Release scripts publish the id of the waiter they handed the lock to on
// the key's channel; the notifier wakes that waiter. Channels are
// subscribed while someone waits on them and unsubscribed after.
type Notifier struct {
	client redis.UniversalClient

	mu       sync.Mutex
	ps       *redis.PubSub
	channels map[string]*channelState
	waiters  map[string]chan<- uint64 // waiter id -> wake-up
	closed   bool
	degraded bool // a subscription went unconfirmed; cleared by the next confirmation
}

type channelState struct {
	refs  int
	ready chan struct{} // closed when the subscription is confirmed
}

// NewNotifier returns a Notifier on client; it connects on first use.
func NewNotifier(client redis.UniversalClient) *Notifier {
	return &Notifier{
		client:   client,
		channels: make(map[string]*channelState),
		waiters:  make(map[string]chan<- uint64),
	}
}

// Listen registers waiter id on channel: each notification for id sends on
// wake without blocking (give wake a buffer): the token of the lock handed
// to id, or 0 for a plain wake-up. It returns a func
// that unregisters, once the subscription is confirmed, ctx is done, or
// subscribeWait has passed.
func (n *Notifier) Listen(ctx context.Context, channel, id string, wake chan<- uint64) (stop func()) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return func() {}
	}
	n.waiters[id] = wake
	st := n.channels[channel]
	fresh := st == nil
	if fresh {
		st = &channelState{ready: make(chan struct{})}
		n.channels[channel] = st
		if n.ps == nil {
			n.ps = n.client.Subscribe(context.Background())
			go n.receive(n.ps.ChannelWithSubscriptions(redis.WithChannelSize(1024)))
		}
	}
	st.refs++
	ps, degraded := n.ps, n.degraded
	n.mu.Unlock()

	if fresh {
		// In the background: on a server that is stopped the call can block
		// for the client's own timeouts, whatever the context says. A
		// failure is a broken connection: go-redis reconnects and
		// re-subscribes, and waiters re-check on their timers meanwhile.
		go func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), subscribeWait)
			defer cancel()
			ps.Subscribe(sctx, channel)
		}()
	}
	stop = func() {
		n.mu.Lock()
		delete(n.waiters, id)
		st.refs--
		last := st.refs == 0 && n.channels[channel] == st
		if last {
			delete(n.channels, channel)
		}
		closed := n.closed
		n.mu.Unlock()
		if last && !closed {
			// Best effort and in the background, for the same reason: a
			// failure leaves an idle subscription that the next reconnect
			// drops.
			go func() {
				uctx, cancel := context.WithTimeout(context.Background(), subscribeWait)
				defer cancel()
				ps.Unsubscribe(uctx, channel)
			}()
		}
	}
	if degraded {
		// The connection has not been confirming subscriptions (a server
		// that is down or stopped): don't make every waiter wait for it.
		return stop
	}
	t := time.NewTimer(subscribeWait)
	defer t.Stop()
	select {
	case <-st.ready:
	case <-ctx.Done():
	case <-t.C:
		n.mu.Lock()
		n.degraded = true
		n.mu.Unlock()
	}
	return stop
}

func (n *Notifier) receive(ch <-chan any) {
	for m := range ch {
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			n.mu.Lock()
			n.degraded = false
			if st := n.channels[m.Channel]; st != nil {
				select {
				case <-st.ready:
				default:
					close(st.ready)
				}
			}
			n.mu.Unlock()
		case *redis.Message:
			// "id:token" for a hand-off, "id" for a wake-up.
			id, tok, _ := strings.Cut(m.Payload, ":")
			token, _ := strconv.ParseUint(tok, 10, 64)
			n.mu.Lock()
			wake := n.waiters[id]
			n.mu.Unlock()
			if wake != nil {
				select {
				case wake <- token:
				default:
				}
			}
		}
	}
}

// Close closes the pub/sub connection. Listen keeps working but never
// delivers a notification.
func (n *Notifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	if n.ps != nil {
		return n.ps.Close()
	}
	return nil
}
