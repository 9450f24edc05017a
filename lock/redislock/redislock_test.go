package redislock_test

import (
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/testserver"
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
