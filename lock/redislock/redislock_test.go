package redislock_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testserver"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/redislock"
)

func TestMain(m *testing.M) { os.Exit(testserver.Main(m)) }

func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 128})
	t.Cleanup(func() { c.Close() })
	return c
}

func newLocker(t *testing.T, addr string, opts *redislock.Options) *redislock.Locker {
	t.Helper()
	l := redislock.New(newClient(t, addr), opts)
	t.Cleanup(func() { l.Close() })
	return l
}

func TestSmokeHandoff(t *testing.T) {
	srv := testserver.SharedRedis(t)
	l := newLocker(t, srv.Addr(), nil)
	ctx := t.Context()
	var inside, done atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				le, err := l.Acquire(ctx, "smoke", lock.WithTTL(time.Second))
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					t.Error("two holders")
				}
				time.Sleep(100 * time.Microsecond)
				inside.Add(-1)
				done.Add(1)
				if err := le.Release(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if done.Load() != 16*50 {
		t.Fatalf("done %d", done.Load())
	}
	_, err := l.TryAcquire(ctx, "smoke")
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = l.Acquire(ctx2, "smoke")
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
}
