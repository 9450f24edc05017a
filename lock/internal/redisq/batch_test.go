package redisq_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testserver"
	"github.com/stockade/stockade/lock/internal/redisq"
)

// holdFirst delays the first n commands (or pipelines) a client sends, so
// that the calls made meanwhile queue in the Pipe and go out together.
type holdFirst struct{ n atomic.Int32 }

func (h *holdFirst) hold() {
	if h.n.Add(-1) >= 0 {
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *holdFirst) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.hold()
		return next(ctx, cmd)
	}
}

func (h *holdFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.hold()
		return next(ctx, cmds)
	}
}

// scriptRuns is how many scripts the server has run since its stats were
// reset.
func scriptRuns(t *testing.T, c redis.UniversalClient) int {
	t.Helper()
	info, err := c.Info(t.Context(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile(`cmdstat_(?:evalsha|eval):calls=(\d+)`).FindAllStringSubmatch(info, -1) {
		k, _ := strconv.Atoi(m[1])
		n += k
	}
	return n
}

// TestPipeBatches runs one batch of acquires, one of which fails, through
// a plain client, where the batch runs as one script, and through a Ring,
// where it goes out as a pipeline of scripts. Each call must get its own
// outcome either way.
func TestPipeBatches(t *testing.T) {
	addr := testserver.NewRedis(t).Addr()
	for _, tc := range []struct {
		name     string
		client   func() redis.UniversalClient
		combined bool
	}{
		{"one script", func() redis.UniversalClient { return redis.NewClient(&redis.Options{Addr: addr}) }, true},
		{"pipeline", func() redis.UniversalClient {
			return redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"one": addr}})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.client()
			t.Cleanup(func() { c.Close() })
			ctx := t.Context()
			const calls, bad = 10, 4
			prefix := t.Name() + ":"
			locks := make([]redisq.Lock, calls)
			for i := range locks {
				locks[i] = redisq.NewLock(redisq.KeysFor(prefix, fmt.Sprint("k", i)), fmt.Sprint("owner", i), time.Second)
			}
			// The bad call queues behind another owner, into a queue key
			// that is not a sorted set: its ZADD fails.
			if err := c.Set(ctx, locks[bad].Keys.Lock, "other:1", time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Set(ctx, locks[bad].Keys.Queue, "not a sorted set", time.Minute).Err(); err != nil {
				t.Fatal(err)
			}

			hook := &holdFirst{}
			c.AddHook(hook)
			p := redisq.NewPipe(c)
			// batch starts an acquire on every lock: two calls occupy the
			// Pipe's batches on the wire, held up by the hook, and the
			// rest queue behind them and go out as one batch.
			batch := func(locks []redisq.Lock) []*redisq.Call {
				hook.n.Store(2)
				var started []*redisq.Call
				for i := range locks {
					started = append(started, locks[i].GoAcquire(ctx, p, nil, time.Minute, true, 0))
					if i < 2 {
						time.Sleep(20 * time.Millisecond) // let it reach the hook
					}
				}
				for _, call := range started {
					<-call.Done()
				}
				return started
			}
			// A first batch loads the scripts.
			warm := make([]redisq.Lock, calls)
			for i := range warm {
				warm[i] = redisq.NewLock(redisq.KeysFor(prefix, fmt.Sprint("warm", i)), "owner", time.Second)
			}
			batch(warm)
			if err := c.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			started := batch(locks)
			for i, call := range started {
				res, err := redisq.AcquireResult(call)
				switch {
				case i == bad:
					if err == nil || !regexp.MustCompile(`WRONGTYPE`).MatchString(err.Error()) {
						t.Errorf("call %d, into a queue of the wrong type: %+v, %v; want WRONGTYPE", i, res, err)
					}
				case err != nil || !res.Granted:
					t.Errorf("call %d, batched with a failing call: %+v, %v; want granted", i, res, err)
				default:
					if v := c.Get(ctx, locks[i].Keys.Lock).Val(); v != fmt.Sprintf("owner%d:%d", i, res.Token) {
						t.Errorf("call %d granted token %d, but the lock holds %q", i, res.Token, v)
					}
				}
			}
			// Two scripts for the held calls, then one for the batch, or
			// one per call in the pipeline.
			want := calls
			if tc.combined {
				want = 3
			}
			if got := scriptRuns(t, c); got != want {
				t.Errorf("%d scripts run for %d calls, want %d", got, calls, want)
			}
		})
	}
}
