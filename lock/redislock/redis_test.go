package redislock_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/redislock"
)

// TestKeysShareHashTagAndVanish checks the Redis side of a lock: every key
// carries the prefix and one hash tag, and after release nothing is left
// but the lock key, which keeps the last token and expires.
func TestKeysShareHashTagAndVanish(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	prefix := "booking:lock:" + t.Name() + ":"
	l := redislock.New(c, &redislock.Options{Prefix: prefix})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	held, err := l.Acquire(ctx, "sku-1", lock.WithTTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// A queued waiter creates the queue keys.
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	waited := make(chan error, 1)
	go func() { _, err := l.Acquire(waitCtx, "sku-1"); waited <- err }()
	awaitQueued(t, c, prefix+"{sku-1}:q", 1)

	keys, err := c.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	want := []string{prefix + "{sku-1}", prefix + "{sku-1}:q", prefix + "{sku-1}:w"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys while held with a waiter = %q, want %q", keys, want)
	}
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("%s has no expiry (PTTL %v): it would stay forever", k, ttl)
		}
	}
	cancel()
	if err := <-waited; !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter: %v, want ErrNotAcquired and context.Canceled", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	keys, _ = c.Keys(ctx, prefix+"*").Result()
	if !slices.Equal(keys, []string{prefix + "{sku-1}"}) {
		t.Fatalf("keys after release = %q, want only the lock key", keys)
	}
	if ttl := c.PTTL(ctx, keys[0]).Val(); ttl <= 0 {
		t.Errorf("the released lock key has no expiry (PTTL %v)", ttl)
	}
}

// acquireLater runs Acquire in a goroutine; the lease arrives on the
// returned channel, or nil after the error is reported to t.
func acquireLater(t *testing.T, ctx context.Context, l lock.Locker, key string, opts ...lock.Option) <-chan lock.Lease {
	got := make(chan lock.Lease, 1)
	go func() {
		le, err := l.Acquire(ctx, key, opts...)
		if err != nil {
			t.Error(err)
		}
		got <- le
	}()
	return got
}

// handOver queues an Acquire of first's key behind first, waits until c
// shows it in queue, releases first, and returns the lease handed over, or
// nil once the error is reported to t.
func handOver(t *testing.T, ctx context.Context, l lock.Locker, c *redis.Client, queue string, first lock.Lease, opts ...lock.Option) lock.Lease {
	t.Helper()
	next := acquireLater(t, ctx, l, first.Key(), opts...)
	awaitQueued(t, c, queue, 1)
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	return <-next
}

// TestReleaseHandsOverToQueuedWaiter checks that each release finds the
// waiters queued behind the holder and gives the lock to the first inside
// the release script: the lock key never goes free, and no waiter needs its
// re-check timer, which WaiterTimeout puts 20 s away.
func TestReleaseHandsOverToQueuedWaiter(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	prefix := t.Name() + ":"
	l := redislock.New(c, &redislock.Options{Prefix: prefix, WaiterTimeout: time.Minute})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	holder, err := l.Acquire(ctx, "k", lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 3
	got := make(chan lock.Lease, waiters)
	var wg sync.WaitGroup
	defer wg.Wait()
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for i := 1; i <= waiters; i++ {
		wg.Go(func() {
			le, err := l.Acquire(waitCtx, "k", lock.WithTTL(time.Minute))
			if err != nil {
				t.Error(err)
			}
			got <- le
		})
		awaitQueued(t, c, prefix+"{k}:q", i)
	}

	for i := range waiters {
		if err := holder.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, prefix+"{k}").Result(); err != nil {
			t.Fatalf("release %d left the lock free with waiters queued: GET = %q, %v", i+1, v, err)
		}
		next := <-got
		if next == nil {
			return
		}
		if next.Token() <= holder.Token() {
			t.Errorf("handed-off token %d, not above %d", next.Token(), holder.Token())
		}
		holder = next
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// awaitQueued waits until queue holds n waiters, and fails the test if it
// does not within 5 s.
func awaitQueued(t *testing.T, c *redis.Client, queue string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for c.ZCard(ctx, queue).Val() != int64(n) {
		if ctx.Err() != nil {
			t.Fatalf("%d waiters never queued on %s", n, queue)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHandOffWithinLockerNeedsNoMessage releases a lock to a waiter of the
// same Locker whose hand-off messages go to another server: the release's
// reply must wake it, long before its re-check timer, which WaiterTimeout
// and the holder's TTL put 20 s away.
func TestHandOffWithinLockerNeedsNoMessage(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	elsewhere := newClient(t, testkit.NewRedis(t).Addr())
	prefix := t.Name() + ":"
	l := redislock.NewDeaf(c, elsewhere, &redislock.Options{Prefix: prefix, WaiterTimeout: time.Minute})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	holder, err := l.Acquire(ctx, "k", lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got := make(chan lock.Lease, 1)
	go func() {
		le, err := l.Acquire(waitCtx, "k", lock.WithTTL(time.Minute))
		if err != nil {
			t.Error(err)
		}
		got <- le
	}()
	awaitQueued(t, c, prefix+"{k}:q", 1)
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case next := <-got:
		if next == nil {
			return
		}
		if next.Token() <= holder.Token() {
			t.Errorf("handed-off token %d, not above %d", next.Token(), holder.Token())
		}
		if err := next.Release(ctx); err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken by the release of its own Locker")
	}
}

// TestTokensKeepRisingAfterKeyExpires deletes the released lock key, as
// its expiry would, and checks the next token is still larger.
func TestTokensKeepRisingAfterKeyExpires(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	prefix := t.Name() + ":"
	l := redislock.New(c, &redislock.Options{Prefix: prefix})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	var last uint64
	for i := range 20 {
		le, err := l.TryAcquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if le.Token() <= last {
			t.Fatalf("round %d: token %d after %d", i, le.Token(), last)
		}
		last = le.Token()
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := c.Del(ctx, prefix+"{k}").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTokensContinueAheadOfClock leaves a released lock with a token ahead
// of the server clock, as a clock that stepped back would leave it, and
// checks that grants, direct and handed off, continue from it.
func TestTokensContinueAheadOfClock(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	prefix := t.Name() + ":"
	l := redislock.New(c, &redislock.Options{Prefix: prefix})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	ahead := uint64(time.Now().Add(time.Hour).UnixMicro())
	if err := c.Set(ctx, prefix+"{k}", fmt.Sprintf(":%d", ahead), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	first, err := l.Acquire(ctx, "k", lock.WithTTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if first.Token() != ahead+1 {
		t.Fatalf("token %d after %d, want %d", first.Token(), ahead, ahead+1)
	}
	second := handOver(t, ctx, l, c, prefix+"{k}:q", first, lock.WithTTL(5*time.Second))
	if second == nil {
		return
	}
	if second.Token() != ahead+2 {
		t.Fatalf("handed-off token %d, want %d", second.Token(), ahead+2)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// loseReplies is a go-redis hook that makes the next n script calls fail
// after the server ran them, as a connection that breaks before the reply
// arrives would. lost keeps the replies it dropped.
type loseReplies struct {
	n    atomic.Int32
	mu   sync.Mutex
	lost []any
}

var errReplyLost = errors.New("reply lost")

func (h *loseReplies) lose(cmd redis.Cmder) {
	if name := cmd.Name(); (name == "evalsha" || name == "eval") && cmd.Err() == nil && h.n.Add(-1) >= 0 {
		h.mu.Lock()
		h.lost = append(h.lost, cmd.(*redis.Cmd).Val())
		h.mu.Unlock()
		cmd.SetErr(errReplyLost)
	}
}

func (h *loseReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *loseReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := next(ctx, cmd); err != nil {
			return err
		}
		h.lose(cmd)
		return cmd.Err()
	}
}

func (h *loseReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			h.lose(cmd)
		}
		return err
	}
}

// TestLostGrantReplyFreesKey loses the reply of a first acquire call that
// the server granted: Acquire fails, and the grant it never saw must not
// hold the key until its TTL.
func TestLostGrantReplyFreesKey(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedRedis(t).Addr())
	hook := &loseReplies{}
	c.AddHook(hook)
	prefix := t.Name() + ":"
	l := redislock.New(c, &redislock.Options{Prefix: prefix})
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()

	hook.n.Store(1)
	if _, err := l.TryAcquire(ctx, "k", lock.WithTTL(time.Minute)); !errors.Is(err, errReplyLost) {
		t.Fatalf("TryAcquire with its reply lost: %v, want the loss", err)
	}
	hook.mu.Lock()
	lost := hook.lost
	hook.mu.Unlock()
	if len(lost) != 1 {
		t.Fatalf("%d replies lost, want 1", len(lost))
	}
	if token, ok := lost[0].(string); !ok || token == "" {
		t.Fatalf("lost replies %v, want one grant: the test proves nothing", lost)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		le, err := l.TryAcquire(ctx, "k")
		if err == nil {
			le.Release(ctx)
			return
		}
		if !errors.Is(err, lock.ErrNotAcquired) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the unseen grant still holds the key 5s later; its TTL is a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAuthAndDatabase runs a locker through a client with a password and a
// non-default database, and checks the keys land in that database.
func TestAuthAndDatabase(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedis(t)
	ctx := t.Context()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	if err := admin.ConfigSet(ctx, "requirepass", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	admin.Close()

	if _, err := redislock.New(redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "wrong"}), nil).
		TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrUnavailable) {
		t.Fatalf("wrong password: %v, want ErrUnavailable", err)
	}

	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "s3cret", DB: 3})
	t.Cleanup(func() { c.Close() })
	a, b := redislock.New(c, nil), redislock.New(c, nil)
	t.Cleanup(func() { a.Close(); b.Close() })

	first, err := a.Acquire(ctx, "k", lock.WithTTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := acquireLater(t, ctx, b, "k", lock.WithWait(5*time.Second))
	awaitQueued(t, c, "lock:{k}:q", 1)
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	second := <-got
	if second == nil || second.Token() <= first.Token() {
		t.Fatalf("hand-off through pub/sub with AUTH failed: %v", second)
	}
	if n := c.Exists(ctx, "lock:{k}").Val(); n != 1 {
		t.Errorf("lock key not in database 3")
	}
	second.Release(ctx)
}

// TestTLS runs lockers through clients that speak TLS to the server, and
// checks a hand-off to a waiter of another Locker, which is woken through
// its pub/sub connection, also over TLS. A client that does not trust the
// server's certificate is refused as unavailable.
func TestTLS(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedisWith(t, &testkit.RedisOptions{TLS: true})
	ctx := t.Context()
	tlsClient := func(cfg *tls.Config) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: srv.TLSAddr(), TLSConfig: cfg})
		t.Cleanup(func() { c.Close() })
		return c
	}

	untrusting := redislock.New(tlsClient(&tls.Config{ServerName: "127.0.0.1"}), nil)
	t.Cleanup(func() { untrusting.Close() })
	var unknown x509.UnknownAuthorityError
	if _, err := untrusting.TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrUnavailable) || !errors.As(err, &unknown) {
		t.Fatalf("client not trusting the server: %v, want ErrUnavailable with an unknown authority", err)
	}

	c := tlsClient(srv.TLSConfig())
	a, b := redislock.New(c, nil), redislock.New(tlsClient(srv.TLSConfig()), nil)
	t.Cleanup(func() { a.Close(); b.Close() })
	first, err := a.Acquire(ctx, "k", lock.WithTTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := acquireLater(t, ctx, b, "k", lock.WithWait(5*time.Second))
	awaitQueued(t, c, "lock:{k}:q", 1)
	// A waiter's subscription is confirmed before the call that queues
	// it, so it shows by now: its pub/sub connection works over TLS.
	if n := c.PubSubNumSub(ctx, "lock:{k}:c").Val()["lock:{k}:c"]; n != 1 {
		t.Fatalf("waiter's subscriptions to the lock's channel: %d, want 1", n)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	second := <-got
	if second == nil || second.Token() <= first.Token() {
		t.Fatalf("hand-off over TLS failed: %v", second)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestDeadWaiterDropsOut queues a waiter whose process then vanishes (its
// client is closed, so it neither re-announces itself nor leaves), and
// checks the next waiter still gets the lock once WaiterTimeout passes.
// WaiterTimeout is long enough that the dead waiter is still in line, ahead
// of the live one, when the lock is released.
func TestDeadWaiterDropsOut(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	opts := &redislock.Options{Prefix: t.Name() + ":", WaiterTimeout: 2 * time.Second}
	holder := newLocker(t, addr, opts)
	ctx := t.Context()

	held, err := holder.Acquire(ctx, "k", lock.WithTTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}

	// The doomed waiter: queued, then its connection is cut mid-wait.
	ghostClient := redis.NewClient(&redis.Options{Addr: addr})
	ghost := redislock.New(ghostClient, opts)
	ghostDone := make(chan struct{})
	go func() {
		defer close(ghostDone)
		ghost.Acquire(ctx, "k", lock.WithWait(2*time.Second))
	}()
	c := newClient(t, addr)
	awaitQueued(t, c, opts.Prefix+"{k}:q", 1)
	ghost.Close()
	ghostClient.Close()

	next := make(chan lock.Lease, 1)
	go func() {
		le, err := newLocker(t, addr, opts).Acquire(ctx, "k", lock.WithWait(10*time.Second))
		if err != nil {
			t.Error(err)
		}
		next <- le
	}()
	awaitQueued(t, c, opts.Prefix+"{k}:q", 2) // behind the ghost
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case le := <-next:
		if le == nil {
			t.Fatal("live waiter not served")
		}
		le.Release(ctx)
	case <-time.After(8 * time.Second):
		t.Fatal("a dead waiter blocked the queue")
	}
	<-ghostDone
}

// TestUnavailableWhenServerDown: a stopped server gives ErrUnavailable
// promptly, and a held lease is declared lost once its refreshes fail past
// its deadline.
func TestUnavailableWhenServerDown(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedis(t)
	locktest.ServerDown(t, newLocker(t, srv.Addr(), nil), srv.Kill, 600*time.Millisecond)
}

// TestHandedOffLeaseKeepsItsTTL hands a lock with a TTL longer than
// WaiterTimeout to a waiter: the hand-off holds it only for the claim
// window, and the lease must extend it to the full TTL in time. The
// extension is due halfway through the window, which is long enough that a
// stalled goroutine still sends it in time.
func TestHandedOffLeaseKeepsItsTTL(t *testing.T) {
	t.Parallel()
	addr := testkit.SharedRedis(t).Addr()
	const waiterTimeout, ttl = 2 * time.Second, 10 * time.Second
	l := newLocker(t, addr, &redislock.Options{Prefix: t.Name() + ":", WaiterTimeout: waiterTimeout})
	ctx := t.Context()

	first, err := l.Acquire(ctx, "k", lock.WithTTL(ttl))
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, addr)
	// Nothing extends the lease before the hand-off begins, so its full
	// TTL runs from later than this: a bound that a goroutine slow to
	// see the hand-off cannot break.
	handing := time.Now()
	second := handOver(t, ctx, l, c, t.Name()+":{k}:q", first, lock.WithTTL(ttl))
	if second == nil {
		return
	}
	// The claim window ran from when the waiter queued, before the
	// hand-off: it is over after one WaiterTimeout more.
	time.Sleep(waiterTimeout + waiterTimeout/4)
	select {
	case <-second.Done():
		t.Fatalf("handed-off lease lost after the claim window, %v into its %v TTL: %v", time.Since(handing), ttl, second.Err())
	default:
	}
	if left := c.PTTL(ctx, t.Name()+":{k}").Val(); left < ttl-time.Since(handing)-time.Second {
		t.Fatalf("lock key expires in %v; the lease's TTL is %v", left, ttl)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
}
