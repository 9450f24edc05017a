package postgres

import (
	"context"
	_ "embed"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	//go:embed queries/listen_events.sql
	listenEventsSQL string
	//go:embed queries/notify_events.sql
	notifyEventsSQL string
)

// Announcing events
//
// A store announces that events committed with a NOTIFY of its own, sent
// after the commit from a connection of the pool, rather than inside the
// transaction: PostgreSQL serialises the commits of every transaction that
// notifies on one lock, which would cap the commits of unrelated SKUs
// together. One announcement is in flight at a time; an idle store's goes
// at once, and a busy store's are spaced by notifyEvery, so it sends few
// however many events it writes. A process that dies between a commit and its announcement
// leaves the readers of other instances to find the events at their next
// poll.
//
// Each store listens on a connection of its own, outside the pool, from
// the first call of EventsCommitted until Close, and reconnects with a
// backoff when the connection breaks; after reconnecting it signals at
// once, for whatever committed while it was not listening.

const (
	// notifyEvery is the least time between the starts of two
	// announcements of a busy store: one whose commits kick while an
	// announcement is being sent.
	notifyEvery = 5 * time.Millisecond
	// notifyTimeout bounds one announcement.
	notifyTimeout = 5 * time.Second
	// listenMinBackoff and listenMaxBackoff bound the pause before the
	// listener reconnects.
	listenMinBackoff, listenMaxBackoff = 100 * time.Millisecond, 5 * time.Second
	// listenerName is the listening connection's application_name, as
	// pg_stat_activity shows it.
	listenerName = "stockade events listener"
)

// signal announces the commits of a store's transactions that appended
// events, and hears those of every store on the database.
type signal struct {
	pool   *pgxpool.Pool
	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	kick   chan struct{} // a commit to announce; capacity 1

	mu        sync.Mutex
	ch        chan struct{} // closed at the next notification heard
	sending   bool          // the sender runs
	listening bool          // the listener runs
	closed    bool
}

func newSignal(pool *pgxpool.Pool) *signal {
	ctx, cancel := context.WithCancel(context.Background())
	return &signal{pool: pool, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1)}
}

// announce has a notification sent soon: events committed.
func (g *signal) announce() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	if !g.sending {
		g.sending = true
		g.wg.Add(1)
		go g.send()
	}
	g.mu.Unlock()
	select {
	case g.kick <- struct{}{}:
	default: // one is pending already: it covers this commit too
	}
}

// send sends a notification for each kick, one at a time. A kick that
// came while one was being sent (the store is busy) waits until
// notifyEvery after that one's start; a kick of an idle store goes at
// once. A notification that fails is dropped: readers poll.
func (g *signal) send() {
	defer g.wg.Done()
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-g.kick:
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(g.ctx, notifyTimeout)
		_, _ = g.pool.Exec(ctx, notifyEventsSQL)
		cancel()
		if len(g.kick) > 0 && !sleep(g.ctx, time.Until(start.Add(notifyEvery))) {
			return
		}
	}
}

// events returns a channel that closes at the next notification heard,
// starting the listener at the first call.
func (g *signal) events() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return closedChan
	}
	if !g.listening {
		g.listening = true
		g.wg.Add(1)
		go g.listen()
	}
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	return g.ch
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// fire wakes everyone waiting on the channel of the moment.
func (g *signal) fire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
}

// listen listens until close, reconnecting with a backoff that starts
// again at its least after each connection that got to listen.
func (g *signal) listen() {
	defer g.wg.Done()
	backoff := listenMinBackoff
	for {
		if g.listenOnce() {
			backoff = listenMinBackoff
		}
		if !sleep(g.ctx, backoff) {
			return
		}
		backoff = min(2*backoff, listenMaxBackoff)
	}
}

// listenOnce connects, listens and fires at each notification until the
// connection fails or the store closes. It reports whether it got to
// listen.
func (g *signal) listenOnce() bool {
	cfg := g.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(g.ctx, cfg)
	if err != nil {
		return false
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		defer cancel()
		_ = conn.Close(ctx)
	}()
	if _, err := conn.Exec(g.ctx, listenEventsSQL); err != nil {
		return false
	}
	g.fire() // for what committed while nobody listened
	for {
		if _, err := conn.WaitForNotification(g.ctx); err != nil {
			return true
		}
		g.fire()
	}
}

// close stops the sender and the listener, and closes the channel of the
// moment for good.
func (g *signal) close() {
	g.mu.Lock()
	g.closed = true
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
	g.mu.Unlock()
	g.cancel()
	g.wg.Wait()
}

// sleep waits for d, or until ctx ends: it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
