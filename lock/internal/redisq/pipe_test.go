package redisq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testserver"
	"github.com/stockade/stockade/lock/internal/redisq"
)

func TestMain(m *testing.M) { os.Exit(testserver.Main(m)) }

func newClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: testserver.NewRedis(t).Addr(), PoolSize: 64})
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
				if held, err := locks[i].Release(ctx, p); err != nil || !held {
					t.Errorf("release %d: held %v, %v", i, held, err)
				}
			})
		}
		wg.Wait()
	}
}

func TestPipeSkipsCallsWhoseContextEnded(t *testing.T) {
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
