package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/redlock"
)

// lockerUsage describes the -locker flag.
const lockerUsage = "locker for the lock strategy: memory, redis://HOST:PORT[/DB], " +
	"redis://SENTINEL:PORT/?master_name=NAME&addr=SENTINEL:PORT… (Redis Sentinel), redlock://HOST:PORT,HOST:PORT,…, " +
	"postgres (the store's database) or etcd://HOST:PORT[,HOST:PORT…]"

// connectTimeout bounds the check that a lock server answers at start.
const connectTimeout = 5 * time.Second

// pgLockConns is the size of the pool the postgres locker has to itself:
// every lease held and every Acquire waiting pins one connection.
const pgLockConns = 64

// lockCancelGrace is how long the postgres locker's statements may go on
// after their context ends before their connection is cut.
const lockCancelGrace = 300 * time.Millisecond

// lockerSpec is a parsed -locker value.
type lockerSpec struct {
	kind string // memory, redis, redlock, postgres, etcd
	url  string // redis: the URL
	// sentinel is set for a redis URL with a master_name: url names the
	// Sentinels that watch the primary of that name.
	sentinel bool
	addrs    []string // redlock: the nodes; etcd: the endpoints
	// namespace is the backend's Options.Prefix, the namespace of its
	// keys; "" for the backend's default, which the service uses.
	namespace string
}

func parseLocker(spec string) (lockerSpec, error) {
	bad := func(why string) (lockerSpec, error) {
		return lockerSpec{}, fmt.Errorf("-locker %q: %s", redact(spec), why)
	}
	switch {
	case spec == "memory" || spec == "postgres":
		return lockerSpec{kind: spec}, nil
	case strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://"):
		if isSentinelURL(spec) {
			if _, err := redis.ParseFailoverURL(spec); err != nil {
				return bad(redactURLError(err).Error())
			}
			return lockerSpec{kind: "redis", url: spec, sentinel: true}, nil
		}
		if _, err := redis.ParseURL(spec); err != nil {
			return bad(redactURLError(err).Error())
		}
		return lockerSpec{kind: "redis", url: spec}, nil
	case strings.HasPrefix(spec, "redlock://"):
		addrs := splitList(strings.TrimPrefix(spec, "redlock://"))
		if len(addrs) == 0 {
			return bad("no nodes given, want redlock://HOST:PORT,HOST:PORT,…")
		}
		for _, a := range addrs {
			if !strings.Contains(a, ":") || strings.Contains(a, "@") {
				return bad(fmt.Sprintf("node %q: want HOST:PORT", redact(a)))
			}
		}
		return lockerSpec{kind: "redlock", addrs: addrs}, nil
	case strings.HasPrefix(spec, "etcd://"):
		eps := splitList(strings.TrimPrefix(spec, "etcd://"))
		if len(eps) == 0 {
			return bad("no endpoints given, want etcd://HOST:PORT[,HOST:PORT…]")
		}
		for _, ep := range eps {
			// The client takes no password in an endpoint, and would
			// print it in its errors.
			if strings.Contains(ep, "@") {
				return bad(fmt.Sprintf("endpoint %q: want HOST:PORT, without a user or password", redact(ep)))
			}
		}
		return lockerSpec{kind: "etcd", addrs: eps}, nil
	}
	return bad("unsupported, want memory, redis://HOST:PORT[/DB], redlock://HOST:PORT,…, postgres or etcd://HOST:PORT[,…]")
}

// String describes the locker for logs and messages, its secrets masked.
func (l lockerSpec) String() string {
	switch l.kind {
	case "redis":
		return redact(l.url)
	case "redlock", "etcd":
		return redact(l.kind + "://" + strings.Join(l.addrs, ","))
	}
	return l.kind
}

// openedLocker is a connected locker with what serve needs beside it.
type openedLocker struct {
	lock.Locker
	// ping reports whether the servers can grant locks now, for /readyz;
	// nil for the in-process locker.
	ping  func(ctx context.Context) error
	close func() error
}

// Ping implements httpapi.Pinger.
func (l openedLocker) Ping(ctx context.Context) error {
	if l.ping == nil {
		return nil
	}
	if err := l.ping(ctx); err != nil {
		return fmt.Errorf("locker: %w", err)
	}
	return nil
}

// openLocker connects the locker of spec and checks that its servers
// answer. The postgres locker uses the database of st, with a pool of its
// own.
func openLocker(ctx context.Context, spec lockerSpec, st storeSpec, log *slog.Logger) (openedLocker, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	switch spec.kind {
	case "memory":
		return openedLocker{Locker: memlock.New(nil), close: func() error { return nil }}, nil

	case "redis":
		client, where, err := newRedisClient(spec)
		if err != nil {
			return openedLocker{}, fmt.Errorf("locker: %w", redactURLError(err))
		}
		if err := client.Ping(cctx).Err(); err != nil {
			client.Close()
			return openedLocker{}, fmt.Errorf("locker: redis at %s: %w", where, err)
		}
		rl := redislock.New(client, &redislock.Options{Prefix: spec.namespace})
		ping := func(ctx context.Context) error {
			if err := client.Ping(ctx).Err(); err != nil {
				return fmt.Errorf("redis at %s: %w", where, err)
			}
			return nil
		}
		return openedLocker{rl, ping, func() error { return errors.Join(rl.Close(), client.Close()) }}, nil

	case "redlock":
		var clients []redis.UniversalClient
		closeAll := func() error {
			var errs []error
			for _, c := range clients {
				errs = append(errs, c.Close())
			}
			return errors.Join(errs...)
		}
		// Redlock is meant to outlive a minority of its nodes: start when
		// a majority answers, and say which do not.
		for _, addr := range spec.addrs {
			clients = append(clients, redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true}))
		}
		down := pingNodes(cctx, spec.addrs, clients)
		if !majority(len(spec.addrs), down) {
			closeAll()
			return openedLocker{}, fmt.Errorf("locker: redlock: no majority of %d nodes answers: %w", len(spec.addrs), errors.Join(down...))
		}
		for _, err := range down {
			log.Warn("redlock node does not answer", "err", err)
		}
		// 2% of the engine's 10 s lease is 200 ms per node and call: a
		// paused node counts as failed quickly, and an acquisition that
		// meets a majority of them answers soon after its deadline.
		rl, err := redlock.New(clients, &redlock.Options{NodeTimeout: 0.02, Prefix: spec.namespace})
		if err != nil {
			closeAll()
			return openedLocker{}, fmt.Errorf("locker: %w", err)
		}
		ping := func(ctx context.Context) error {
			if down := pingNodes(ctx, spec.addrs, clients); !majority(len(spec.addrs), down) {
				return fmt.Errorf("redlock: no majority of %d nodes answers: %w", len(spec.addrs), errors.Join(down...))
			}
			return nil
		}
		return openedLocker{rl, ping, func() error { return errors.Join(rl.Close(), closeAll()) }}, nil

	case "postgres":
		if st.kind != "postgres" {
			return openedLocker{}, fmt.Errorf("-locker postgres takes its locks in the store's PostgreSQL database, and -store is %s", st)
		}
		cfg, err := pgxpool.ParseConfig(st.url)
		if err != nil {
			return openedLocker{}, fmt.Errorf("locker: %w", err)
		}
		cfg.MaxConns = pgLockConns
		// As the store does (postgres.Options.CancelGrace): a statement
		// whose context ended gets a cancel request at once, and its
		// connection is cut lockCancelGrace later if the server is silent.
		cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: lockCancelGrace}
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return openedLocker{}, fmt.Errorf("locker: %w", err)
		}
		if err := pool.Ping(cctx); err != nil {
			pool.Close()
			return openedLocker{}, fmt.Errorf("locker: postgres: %w", err)
		}
		ping := func(ctx context.Context) error {
			if err := pool.Ping(ctx); err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			return nil
		}
		pl := pglock.New(pool, &pglock.Options{Prefix: spec.namespace})
		return openedLocker{pl, ping, func() error { err := pl.Close(); pool.Close(); return err }}, nil

	case "etcd":
		where := strings.Join(spec.addrs, ",")
		client, err := clientv3.New(clientv3.Config{
			Endpoints:   spec.addrs,
			DialTimeout: connectTimeout,
			Logger:      zap.NewNop(), // failures reach us as errors
			// gRPC's default back-off waits a second before the first
			// reconnection: begin at 100 ms, so that locks are granted
			// again soon after etcd returns.
			DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 3 * time.Second},
				MinConnectTimeout: connectTimeout,
			})},
		})
		if err != nil {
			return openedLocker{}, fmt.Errorf("locker: etcd at %s: %w", where, err)
		}
		// A linearizable read needs a quorum: the cluster can grant locks.
		ping := func(ctx context.Context) error {
			if _, err := client.Get(ctx, "/stockade/lock/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
				return fmt.Errorf("etcd at %s: %w", where, err)
			}
			return nil
		}
		if err := ping(cctx); err != nil {
			client.Close()
			return openedLocker{}, fmt.Errorf("locker: %w", err)
		}
		el := etcdlock.New(client, &etcdlock.Options{Prefix: spec.namespace})
		return openedLocker{el, ping, func() error { return errors.Join(el.Close(), client.Close()) }}, nil
	}
	return openedLocker{}, fmt.Errorf("unsupported locker kind %q", spec.kind)
}

// isSentinelURL reports whether a redis URL names Sentinels: go-redis's
// failover URL, whose master_name parameter names the primary they watch.
func isSentinelURL(spec string) bool {
	u, err := url.Parse(spec)
	return err == nil && u.Query().Has("master_name")
}

// newRedisClient returns the client of a redis locker's URL: of one server,
// or of the primary that the Sentinels of a failover URL name, followed
// across failovers. where says what it talks to, for messages.
func newRedisClient(spec lockerSpec) (client *redis.Client, where string, err error) {
	if spec.sentinel {
		opt, err := redis.ParseFailoverURL(spec.url)
		if err != nil {
			return nil, "", err
		}
		// A request's deadline, not the client's 3 s read timeout, bounds
		// a call to a server that stopped answering.
		opt.ContextTimeoutEnabled = true
		where = fmt.Sprintf("primary %q of sentinels %s", opt.MasterName, strings.Join(opt.SentinelAddrs, ","))
		return redis.NewFailoverClient(opt), where, nil
	}
	opt, err := redis.ParseURL(spec.url)
	if err != nil {
		return nil, "", err
	}
	opt.ContextTimeoutEnabled = true
	return redis.NewClient(opt), opt.Addr, nil
}

// pingNodes pings every Redlock node at once and returns an error for
// each that does not answer.
func pingNodes(ctx context.Context, addrs []string, clients []redis.UniversalClient) []error {
	pings := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { pings[i] = c.Ping(ctx).Err() })
	}
	wg.Wait()
	var down []error
	for i, err := range pings {
		if err != nil {
			down = append(down, fmt.Errorf("node %s: %w", addrs[i], err))
		}
	}
	return down
}

// majority reports whether a majority of n Redlock nodes answered, down
// being the errors of those that did not.
func majority(n int, down []error) bool { return n-len(down) >= n/2+1 }
