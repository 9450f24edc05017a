package testkit

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// requireEnv names the environment variable that, set to 1, turns skips for
// missing binaries into failures, so that CI cannot pass by skipping.
const requireEnv = "STOCKADE_REQUIRE_SERVERS"

var (
	mainRunning atomic.Bool

	sharedRedis, sharedRedisCluster, sharedPostgres, sharedEtcd, sharedNATS lazy

	closersMu sync.Mutex
	closers   []func() error
)

// lazy is a shared server, started at most once per test binary. A failed
// start is remembered, so later callers fail fast.
type lazy struct {
	once sync.Once
	srv  any
	err  error
}

// Main runs the tests and then closes every shared server. Use it from
// TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
//
// It returns m.Run's exit code, or 1 if the tests passed but a shared
// server could not be closed cleanly.
func Main(m *testing.M) int {
	mainRunning.Store(true)
	code := m.Run()
	mainRunning.Store(false)
	closersMu.Lock()
	fns := closers
	closers = nil
	closersMu.Unlock()
	for _, fn := range fns {
		if err := fn(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// SharedRedis returns the Redis server shared by every test in the binary,
// starting it on first use. Tests must not stop, kill or pause it (those
// methods return ErrShared) and should use distinct keys or databases. It
// skips the test when redis-server is missing; see the package
// documentation.
func SharedRedis(t testing.TB) *Redis {
	t.Helper()
	return shared(t, "SharedRedis", &sharedRedis, func() (*Redis, error) { return StartRedis(nil) })
}

// SharedRedisCluster returns the Redis Cluster shared by every test in the
// binary, started with the default options on first use. Tests must not
// stop, kill or pause its nodes (those methods return ErrShared) and
// should use distinct keys. It skips the test when redis-server is
// missing; see the package documentation.
func SharedRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	return shared(t, "SharedRedisCluster", &sharedRedisCluster, func() (*RedisCluster, error) { return StartRedisCluster(nil) })
}

// SharedPostgres returns the PostgreSQL server shared by every test in the
// binary, starting it on first use. Tests must not stop, kill or pause it
// (those methods return ErrShared); use CreateDatabase for isolation. It
// skips the test when PostgreSQL is missing; see the package documentation.
func SharedPostgres(t testing.TB) *Postgres {
	t.Helper()
	return shared(t, "SharedPostgres", &sharedPostgres, func() (*Postgres, error) { return StartPostgres(nil) })
}

// SharedEtcd returns the etcd member shared by every test in the binary,
// starting it on first use. Tests must not stop, kill or pause it (those
// methods return ErrShared) and should use distinct key prefixes. It skips
// the test when etcd is missing; see the package documentation.
func SharedEtcd(t testing.TB) *Etcd {
	t.Helper()
	return shared(t, "SharedEtcd", &sharedEtcd, func() (*Etcd, error) { return StartEtcd(nil) })
}

// SharedNATS returns the NATS server shared by every test in the binary,
// starting it on first use. Tests must not stop, kill or pause it (those
// methods return ErrShared) and should use distinct subjects and stream
// names. It skips the test when nats-server is missing; see the package
// documentation.
func SharedNATS(t testing.TB) *NATS {
	t.Helper()
	return shared(t, "SharedNATS", &sharedNATS, func() (*NATS, error) { return StartNATS(nil) })
}

// NewRedis starts a Redis server private to the test, which may stop, kill,
// pause and restart it. It is closed when the test ends. It skips the test
// when redis-server is missing; see the package documentation.
func NewRedis(t testing.TB) *Redis {
	t.Helper()
	return private(t, func() (*Redis, error) { return StartRedis(nil) })
}

// NewRedisWith is NewRedis with options, such as RedisOptions.TLS.
func NewRedisWith(t testing.TB, opts *RedisOptions) *Redis {
	t.Helper()
	return private(t, func() (*Redis, error) { return StartRedis(opts) })
}

// NewRedisCluster starts a Redis Cluster private to the test, whose nodes
// it may stop, kill, pause and restart. It is closed when the test ends.
// It skips the test when redis-server is missing; see the package
// documentation.
func NewRedisCluster(t testing.TB, opts *RedisClusterOptions) *RedisCluster {
	t.Helper()
	return private(t, func() (*RedisCluster, error) { return StartRedisCluster(opts) })
}

// NewRedisSentinel starts a Redis primary, its replica and three
// Sentinels private to the test, which may stop, kill and pause any of
// them. They are closed when the test ends. It skips the test when
// redis-server is missing; see the package documentation.
func NewRedisSentinel(t testing.TB, opts *RedisSentinelOptions) *RedisSentinel {
	t.Helper()
	return private(t, func() (*RedisSentinel, error) { return StartRedisSentinel(opts) })
}

// NewPostgres starts a PostgreSQL server private to the test, which may
// stop, kill, pause and restart it. It is closed when the test ends. It
// takes seconds (initdb), so prefer SharedPostgres with CreateDatabase
// unless the test injects faults. It skips the test when PostgreSQL is
// missing; see the package documentation.
func NewPostgres(t testing.TB) *Postgres {
	t.Helper()
	return private(t, func() (*Postgres, error) { return StartPostgres(nil) })
}

// NewStandby starts a standby of primary, a private server, as
// StartStandby does, and closes it when the test ends. It skips the test
// when PostgreSQL is missing; see the package documentation.
func NewStandby(t testing.TB, primary *Postgres, opts *StandbyOptions) *Postgres {
	t.Helper()
	return private(t, func() (*Postgres, error) { return primary.StartStandby(opts) })
}

// NewEtcd starts an etcd member private to the test, which may stop, kill,
// pause and restart it. It is closed when the test ends. It skips the test
// when etcd is missing; see the package documentation.
func NewEtcd(t testing.TB) *Etcd {
	t.Helper()
	return private(t, func() (*Etcd, error) { return StartEtcd(nil) })
}

// NewNATS starts a NATS server with JetStream private to the test, which
// may stop, kill, pause and restart it. It is closed when the test ends. It
// skips the test when nats-server is missing; see the package
// documentation.
func NewNATS(t testing.TB) *NATS {
	t.Helper()
	return private(t, func() (*NATS, error) { return StartNATS(nil) })
}

// NewNATSCluster starts a JetStream cluster of three NATS servers private
// to the test, whose nodes it may stop, kill, pause and restart. It is
// closed when the test ends. It skips the test when nats-server is
// missing; see the package documentation.
func NewNATSCluster(t testing.TB, opts *NATSClusterOptions) *NATSCluster {
	t.Helper()
	return private(t, func() (*NATSCluster, error) { return StartNATSCluster(opts) })
}

// handle is what Redis, RedisCluster, Postgres, Etcd, NATS and NATSCluster have in
// common.
type handle interface {
	procs() []*process
	Version() string
	Close() error
}

// announce prints which server a test started, so a test log shows which
// tests ran against real servers (go test -v passes it through).
func announce(t testing.TB, h handle, kind string) {
	ps := h.procs()
	what := ps[0].name
	if len(ps) > 1 {
		what = fmt.Sprintf("cluster of %d %s", len(ps), what)
	}
	fmt.Printf("testkit: %s %s %s started for %s\n", kind, what, h.Version(), t.Name())
}

func (s *server) procs() []*process { return []*process{s.p} }

func shared[T handle](t testing.TB, fn string, l *lazy, start func() (T, error)) T {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatalf("testkit: %s needs TestMain to return testkit.Main(m), which closes shared servers after the tests", fn)
	}
	l.once.Do(func() {
		srv, err := start()
		if err != nil {
			l.err = err
			return
		}
		closersMu.Lock()
		for _, p := range srv.procs() {
			p.shared = true
			closers = append(closers, p.close)
		}
		closersMu.Unlock()
		l.srv = srv
		announce(t, srv, "shared")
	})
	if l.err != nil {
		skipOrFail(t, l.err)
	}
	return l.srv.(T)
}

func private[T handle](t testing.TB, start func() (T, error)) T {
	t.Helper()
	srv, err := start()
	if err != nil {
		skipOrFail(t, err)
	}
	announce(t, srv, "private")
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// skipOrFail skips the test when a binary is missing, unless requireEnv is
// set, and fails it on any other error.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	switch {
	case !errors.Is(err, ErrNotInstalled):
		t.Fatal(err)
	case os.Getenv(requireEnv) == "1":
		t.Fatalf("%v (%s=1)", err, requireEnv)
	default:
		t.Skipf("%v (set %s=1 to fail instead)", err, requireEnv)
	}
}
