package redislock_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock/redislock"
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

// testMain starts the Redis server of the examples, which read its address
// from STOCKADE_REDIS_ADDR, and runs the tests and examples. An example
// cannot skip itself: when redis-server is missing they are left out, as
// the tests are skipped, unless STOCKADE_REQUIRE_SERVERS=1.
func testMain(m *testing.M) int {
	flag.Parse()
	srv, err := testkit.StartRedis(nil)
	switch {
	case err == nil:
		defer srv.Close()
		os.Setenv("STOCKADE_REDIS_ADDR", srv.Addr())
	case errors.Is(err, testkit.ErrNotInstalled) && os.Getenv("STOCKADE_REQUIRE_SERVERS") != "1":
		fmt.Println("redislock: examples not run:", err)
		skip := "^Example"
		if old := flag.Lookup("test.skip").Value.String(); old != "" {
			skip = old + "|" + skip
		}
		flag.Set("test.skip", skip)
	default:
		fmt.Fprintln(os.Stderr, "redislock: the examples' server:", err)
		return 1
	}
	return testkit.Main(m)
}

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
