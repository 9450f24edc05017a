package redisq_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock/internal/redisq"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func newClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: testkit.NewRedis(t).Addr(), PoolSize: 64})
	t.Cleanup(func() { c.Close() })
	return c
}

func newLock(key, id string) redisq.Lock {
	return redisq.NewLock(redisq.KeysFor("test:", key), id, time.Second)
}

// goAcquireAll starts an acquire of every lock at once, so that all but
// the first calls queue and go out in pipelines, and returns the outcomes.
func goAcquireAll(ctx context.Context, p *redisq.Pipe, locks []redisq.Lock) ([]redisq.Result, []error) {
	calls := make([]*redisq.Call, len(locks))
	for i := range locks {
		calls[i] = locks[i].GoAcquire(ctx, p, nil, time.Minute, false, 0)
	}
	res := make([]redisq.Result, len(locks))
	errs := make([]error, len(locks))
	for i, c := range calls {
		<-c.Done()
		res[i], errs[i] = redisq.AcquireResult(c)
	}
	return res, errs
}

func TestPipeBatchesKeepEachCallsOutcome(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	p := redisq.NewPipe(c)
	ctx := t.Context()

	locks := make([]redisq.Lock, 50)
	for i := range locks {
		locks[i] = newLock(fmt.Sprint("k", i%25), fmt.Sprint("owner", i))
	}
	res, errs := goAcquireAll(ctx, p, locks)
	granted := map[string]int{}
	for i, r := range res {
		if errs[i] != nil {
			t.Fatalf("acquire %d: %v", i, errs[i])
		}
		if r.Granted {
			granted[locks[i].Keys.Lock]++
			if owner, _ := c.Get(ctx, locks[i].Keys.Lock).Result(); owner != fmt.Sprintf("%s:%d", locks[i].ID, r.Token) {
				t.Errorf("%s holds %q, want the owner granted it, %s", locks[i].Keys.Lock, owner, locks[i].ID)
			}
		}
	}
	if len(granted) != 25 {
		t.Errorf("%d keys granted, want all 25", len(granted))
	}
	for k, n := range granted {
		if n != 1 {
			t.Errorf("%s granted %d times", k, n)
		}
	}
}

func TestPipeReloadsFlushedScripts(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	p := redisq.NewPipe(c)
	ctx := t.Context()

	for round := range 3 {
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		locks := make([]redisq.Lock, 20)
		for i := range locks {
			locks[i] = newLock(fmt.Sprint("k", round, "-", i), "owner")
		}
		res, errs := goAcquireAll(ctx, p, locks)
		for i, r := range res {
			if errs[i] != nil || !r.Granted {
				t.Fatalf("round %d, acquire %d after SCRIPT FLUSH: %+v, %v", round, i, r, errs[i])
			}
		}
		var wg sync.WaitGroup
		for i := range locks {
			wg.Go(func() {
				if r, err := locks[i].Release(ctx, p); err != nil || !r.Held {
					t.Errorf("release %d: %+v, %v", i, r, err)
				}
			})
		}
		wg.Wait()
	}
}

func TestPipeSkipsCallsWhoseContextEnded(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	p := redisq.NewPipe(c)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	l := newLock("k", "owner")
	if _, err := l.Acquire(ctx, p, time.Minute, false, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire with an ended context = %v, want context.Canceled", err)
	}
	c1 := l.GoAcquire(ctx, p, nil, time.Minute, false, 0)
	<-c1.Done()
	if _, err := redisq.AcquireResult(c1); !errors.Is(err, context.Canceled) {
		t.Errorf("GoAcquire with an ended context = %v, want context.Canceled", err)
	}
	if n, err := c.Exists(t.Context(), l.Keys.Lock).Result(); err != nil || n != 0 {
		t.Errorf("a call whose context had ended reached the server: %d keys, %v", n, err)
	}
}

// delayHook is a client hook that calls itself, with the number of
// commands, before every command and pipeline the client sends.
type delayHook func(cmds int)

func (h delayHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h delayHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h(1)
		return next(ctx, cmd)
	}
}

func (h delayHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h(len(cmds))
		return next(ctx, cmds)
	}
}

// TestPipeSurvivesCallersGivingUp has many callers give up at random
// moments: queued, handed a place on the wire, or with their call sent.
// Each place on the wire must come back to the Pipe, or the Pipe stalls
// once maxBatches of them are lost.
func TestPipeSurvivesCallersGivingUp(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	// Up to a millisecond more per batch, so that calls pile up.
	c.AddHook(delayHook(func(int) { time.Sleep(rand.N(time.Millisecond)) }))
	p := redisq.NewPipe(c)

	var wg sync.WaitGroup
	var gaveUp, done atomic.Int64
	for g := range 32 {
		wg.Go(func() {
			l := newLock(fmt.Sprint("k", g), fmt.Sprint("owner", g))
			for range 100 {
				ctx, cancel := context.WithTimeout(t.Context(), rand.N(2*time.Millisecond))
				_, err := l.Acquire(ctx, p, time.Minute, false, 0)
				cancel()
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					gaveUp.Add(1)
				case err != nil:
					t.Errorf("acquire: %v", err)
					return
				default:
					done.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls done, %d given up", done.Load(), gaveUp.Load())
	if gaveUp.Load() == 0 || done.Load() == 0 {
		t.Fatalf("%d calls done, %d given up: want both, or the test proves nothing", done.Load(), gaveUp.Load())
	}

	// Every place on the wire is back: a call goes out at once and is
	// answered.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	deadline := time.Now().Add(5 * time.Second)
	for p.Running() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // a batch still on the wire or being handed on
	}
	if n := p.Running(); n != 0 {
		t.Fatalf("%d places on the wire still taken with every caller gone", n)
	}
	l := newLock("after", "owner")
	if res, err := l.Acquire(ctx, p, time.Minute, false, 0); err != nil || !res.Granted {
		t.Fatalf("acquire after the storm: %+v, %v", res, err)
	}
}

// TestPipeUnreachable: a Pipe says a server is unreachable once a batch
// failed on the connection (killed), not for an error the server replied
// with nor for a batch that ran out of time (paused: a slow server is not
// a dead one), and no longer once the server answers again.
func TestPipeUnreachable(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedis(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	p := redisq.NewPipe(c)
	l := newLock("k", "owner")
	acquire := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		defer cancel()
		_, err := l.Acquire(ctx, p, time.Minute, false, 0)
		return err
	}
	if err := acquire(5 * time.Second); err != nil || p.Unreachable() {
		t.Fatalf("up: acquire = %v, unreachable = %v", err, p.Unreachable())
	}
	// An error reply is an answer.
	bad := redisq.NewScript("return redis.error_reply('refused by the script')")
	if _, err := p.Run(t.Context(), bad, []any{0}, nil); err == nil || p.Unreachable() {
		t.Fatalf("error reply: err = %v, unreachable = %v", err, p.Unreachable())
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	err := acquire(200 * time.Millisecond)
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if err == nil || p.Unreachable() {
		t.Fatalf("paused: acquire = %v, unreachable = %v; want an error, and not unreachable", err, p.Unreachable())
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := acquire(5 * time.Second); err == nil || !p.Unreachable() {
		t.Fatalf("killed: acquire = %v, unreachable = %v", err, p.Unreachable())
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := acquire(5 * time.Second); err != nil || p.Unreachable() {
		t.Fatalf("restarted: acquire = %v, unreachable = %v", err, p.Unreachable())
	}
}
