package redisq

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// subscribeWait bounds how long a waiter waits for its channel
	// subscription to be confirmed before it queues; past it, the waiter's
	// timed re-checks still find a hand-off, only later. It also bounds
	// each SUBSCRIBE and UNSUBSCRIBE call.
	subscribeWait = time.Second

	// idlePing is how long the notification connection may stay silent
	// before it is pinged.
	idlePing = 3 * time.Second

	// reconnectPause spaces out reads of a connection that keeps failing.
	reconnectPause = 100 * time.Millisecond
)

// NotifierOptions configures a Notifier. A nil *NotifierOptions means all
// defaults.
type NotifierOptions struct {
	// IdleUnsubscribe is how long a channel stays subscribed after its
	// last waiter left. A key that is contended again soon finds its
	// channel ready, and a key whose waiters come and go does not subscribe
	// and unsubscribe each time.
	// Default: 10s.
	IdleUnsubscribe time.Duration
}

func (o *NotifierOptions) withDefaults() NotifierOptions {
	var out NotifierOptions
	if o != nil {
		out = *o
	}
	if out.IdleUnsubscribe <= 0 {
		out.IdleUnsubscribe = 10 * time.Second
	}
	return out
}

// Notifier shares one pub/sub connection to a server among all the waiters
// of a Locker.
// Release scripts publish the id of the waiter they handed the lock to on
// the key's channel; the notifier wakes that waiter. A channel is
// subscribed when its first waiter arrives and unsubscribed once it has had
// none for the idle time.
//
// One goroutine sends every SUBSCRIBE and UNSUBSCRIBE, so they reach the
// server in the order the notifier decided them: an unsubscription can
// never overtake a later subscription of the same channel and leave its
// waiters deaf.
type Notifier struct {
	client redis.UniversalClient
	idle   time.Duration // NotifierOptions.IdleUnsubscribe

	mu       sync.Mutex
	ps       *redis.PubSub
	channels map[string]*channelState
	waiters  map[string]*waiter              // by waiter id
	watches  map[string]func(payload string) // by channel, for Watch
	pending  []string                        // channels to subscribe
	closed   bool
	degraded bool // a subscription went unconfirmed; cleared by the next confirmation

	kick chan struct{}  // wakes manage: pending is not empty
	stop chan struct{}  // closed by Close
	done sync.WaitGroup // receive and manage, which Close waits for
}

// waiter is one Listen call's registration.
type waiter struct {
	wake chan<- uint64
	// token is the last hand-off delivered: a hand-off reaches a waiter
	// both as a message and, when its releaser shares the Notifier, through
	// Deliver, and only the first of the two is passed on.
	token uint64
}

type channelState struct {
	refs      int
	idleSince time.Time     // when refs last fell to 0
	sent      bool          // SUBSCRIBE has been sent
	ready     chan struct{} // closed when the subscription is confirmed
}

// confirmed reports whether the server has confirmed the subscription.
func (st *channelState) confirmed() bool {
	select {
	case <-st.ready:
		return true
	default:
		return false
	}
}

// NewNotifier returns a Notifier on client; it connects on first use.
func NewNotifier(client redis.UniversalClient, opts *NotifierOptions) *Notifier {
	return &Notifier{
		client:   client,
		idle:     opts.withDefaults().IdleUnsubscribe,
		channels: make(map[string]*channelState),
		waiters:  make(map[string]*waiter),
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
	}
}

// Ready reports whether channel's subscription is confirmed: a waiter
// that Listens on it can queue at once, without waiting for the server.
func (n *Notifier) Ready(channel string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	st := n.channels[channel]
	return !n.closed && st != nil && st.confirmed()
}

// Listen registers waiter id on channel: each notification for id sends on
// wake without blocking (give wake a buffer): the token of the lock handed
// to id, or 0 for a plain wake-up. It returns a func that unregisters,
// once the subscription is confirmed, ctx is done, or subscribeWait has
// passed.
func (n *Notifier) Listen(ctx context.Context, channel, id string, wake chan<- uint64) (stop func()) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return func() {}
	}
	n.waiters[id] = &waiter{wake: wake}
	st := n.subscribe(channel)
	st.refs++
	degraded := n.degraded
	n.mu.Unlock()

	stop = func() {
		n.mu.Lock()
		delete(n.waiters, id)
		if st.refs--; st.refs == 0 {
			st.idleSince = time.Now()
		}
		n.mu.Unlock()
	}
	if st.confirmed() {
		return stop
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

// Watch subscribes channel for as long as the Notifier is open, and passes
// each message on it to fn, which must not block. It does not wait for
// the subscription: messages published before it is confirmed are missed.
func (n *Notifier) Watch(channel string, fn func(payload string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	if n.watches == nil {
		n.watches = make(map[string]func(string))
	}
	n.watches[channel] = fn
	n.subscribe(channel).refs++ // never released: never idle
}

// subscribe returns channel's state, asking manage to subscribe it if it
// is new, and connects on first use. n.mu must be held.
func (n *Notifier) subscribe(channel string) *channelState {
	if n.ps == nil {
		n.ps = n.client.Subscribe(context.Background())
		ps := n.ps
		n.done.Go(func() { n.receive(ps) })
		n.done.Go(func() { n.manage(ps) })
	}
	st := n.channels[channel]
	if st == nil {
		st = &channelState{ready: make(chan struct{})}
		n.channels[channel] = st
		n.pending = append(n.pending, channel)
		select {
		case n.kick <- struct{}{}:
		default:
		}
	}
	return st
}

// manage sends the subscriptions Listen asks for and, every n.idle,
// unsubscribes the channels idle for that long. A failed call is not
// retried: go-redis subscribes again to every channel it was asked for
// when it reconnects, and waiters re-check on their timers meanwhile.
func (n *Notifier) manage(ps *redis.PubSub) {
	sweep := time.NewTicker(n.idle)
	defer sweep.Stop()
	for {
		var sub, unsub []string
		select {
		case <-n.stop:
			return
		case <-n.kick:
			n.mu.Lock()
			sub, n.pending = n.pending, nil
			for _, ch := range sub {
				n.channels[ch].sent = true
			}
			n.mu.Unlock()
		case now := <-sweep.C:
			n.mu.Lock()
			for ch, st := range n.channels {
				if st.sent && st.refs == 0 && now.Sub(st.idleSince) >= n.idle {
					delete(n.channels, ch)
					unsub = append(unsub, ch)
				}
			}
			n.mu.Unlock()
		}
		// On a server that is stopped these calls can block for the
		// client's own timeouts, whatever the context says; only this
		// goroutine waits for them.
		if len(sub) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), subscribeWait)
			ps.Subscribe(ctx, sub...)
			cancel()
		}
		if len(unsub) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), subscribeWait)
			ps.Unsubscribe(ctx, unsub...)
			cancel()
		}
	}
}

// receive reads ps until it is closed. It reads the connection itself
// rather than through go-redis's message channel, which would put one more
// goroutine between a release and the waiter it wakes. After idlePing
// without a message it pings, which keeps the connection checked; on a
// broken connection go-redis reconnects and subscribes again on the next
// read.
func (n *Notifier) receive(ps *redis.PubSub) {
	ctx := context.Background()
	failures := 0
	for {
		m, err := ps.ReceiveTimeout(ctx, idlePing)
		if err != nil {
			if errors.Is(err, redis.ErrClosed) || n.stopped(0) {
				return
			}
			if isTimeout(err) {
				ps.Ping(ctx) // its answer is read as a message; a failure shows on the next read
				continue
			}
			if failures++; failures > 1 && n.stopped(reconnectPause) { // don't spin on a server that is down
				return
			}
			continue
		}
		failures = 0
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			n.mu.Lock()
			n.degraded = false
			if st := n.channels[m.Channel]; st != nil && st.sent && !st.confirmed() {
				close(st.ready)
			}
			n.mu.Unlock()
		case *redis.Message:
			n.mu.Lock()
			watch := n.watches[m.Channel]
			n.mu.Unlock()
			if watch != nil {
				watch(m.Payload)
				continue
			}
			// "id:token" for a hand-off, "id" for a wake-up.
			id, tok, _ := strings.Cut(m.Payload, ":")
			token, _ := strconv.ParseUint(tok, 10, 64)
			n.Deliver(id, token)
		}
	}
}

// Handed wakes the waiter that release r handed the lock to, if it Listens
// here, and reports whether it did. The releaser's reply and the message
// reach the process about together, and whichever is read first wakes the
// waiter: a hand-off within the process does not wait for the message to
// be read off the notification connection.
func (n *Notifier) Handed(r Released) bool {
	return r.To != "" && n.Deliver(r.To, r.Token)
}

// Deliver wakes waiter id, if it Listens here, with the token of the lock
// handed to it, or 0 for a plain wake-up. The receiver calls it for each
// message, and Handed for a releaser's reply. A hand-off's token is passed
// on once, whichever comes first. It reports whether it woke the waiter.
func (n *Notifier) Deliver(id string, token uint64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	w := n.waiters[id]
	if w == nil || (token != 0 && token == w.token) {
		return false
	}
	if token != 0 {
		w.token = token
	}
	select {
	case w.wake <- token:
		return true
	default:
		return false
	}
}

// stopped waits up to d for Close and reports whether it was called.
func (n *Notifier) stopped(d time.Duration) bool {
	select {
	case <-n.stop:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-n.stop:
		return true
	case <-t.C:
		return false
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Close closes the pub/sub connection and waits for the goroutines that
// read and manage it to return. Listen keeps working but never delivers a
// notification.
func (n *Notifier) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.stop)
	var err error
	if n.ps != nil {
		err = n.ps.Close()
	}
	n.mu.Unlock()
	n.done.Wait()
	return err
}
