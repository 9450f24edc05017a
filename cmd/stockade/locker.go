package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/redlock"
)

// lockerUsage describes the -locker flag.
const lockerUsage = "locker for the lock strategy: memory, redis://HOST:PORT[/DB], redlock://HOST:PORT,HOST:PORT,…, " +
	"postgres (the store's database) or etcd://HOST:PORT[,HOST:PORT…]"

// connectTimeout bounds the check that a lock server answers at start.
const connectTimeout = 5 * time.Second

// pgLockConns is the size of the pool the postgres locker has to itself:
// every lease held and every Acquire waiting pins one connection.
const pgLockConns = 64

// lockerSpec is a parsed -locker value.
type lockerSpec struct {
	kind  string   // memory, redis, redlock, postgres, etcd
	url   string   // redis: the URL
	addrs []string // redlock: the nodes; etcd: the endpoints
}

func parseLocker(spec string) (lockerSpec, error) {
	bad := func(why string) (lockerSpec, error) {
		return lockerSpec{}, fmt.Errorf("-locker %q: %s", redact(spec), why)
	}
	switch {
	case spec == "memory" || spec == "postgres":
		return lockerSpec{kind: spec}, nil
	case strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://"):
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

// openLocker connects the locker of spec and checks that its servers
// answer. close releases what it opened. The postgres locker uses the
// database of st, with a pool of its own.
func openLocker(ctx context.Context, spec lockerSpec, st storeSpec, log *slog.Logger) (l lock.Locker, close func() error, err error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	switch spec.kind {
	case "memory":
		return memlock.New(nil), func() error { return nil }, nil

	case "redis":
		opt, err := redis.ParseURL(spec.url)
		if err != nil {
			return nil, nil, fmt.Errorf("locker: %w", redactURLError(err))
		}
		client := redis.NewClient(opt)
		if err := client.Ping(cctx).Err(); err != nil {
			client.Close()
			return nil, nil, fmt.Errorf("locker: redis at %s: %w", opt.Addr, err)
		}
		rl := redislock.New(client, nil)
		return rl, func() error { return errors.Join(rl.Close(), client.Close()) }, nil

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
		pings := make([]error, len(spec.addrs))
		var wg sync.WaitGroup
		for i, addr := range spec.addrs {
			c := redis.NewClient(&redis.Options{Addr: addr})
			clients = append(clients, c)
			wg.Go(func() { pings[i] = c.Ping(cctx).Err() })
		}
		wg.Wait()
		var down []error
		for i, err := range pings {
			if err != nil {
				down = append(down, fmt.Errorf("node %s: %w", spec.addrs[i], err))
			}
		}
		if len(down) > len(spec.addrs)-(len(spec.addrs)/2+1) {
			closeAll()
			return nil, nil, fmt.Errorf("locker: redlock: no majority of %d nodes answers: %w", len(spec.addrs), errors.Join(down...))
		}
		for _, err := range down {
			log.Warn("redlock node does not answer", "err", err)
		}
		rl, err := redlock.New(clients, nil)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("locker: %w", err)
		}
		return rl, func() error { return errors.Join(rl.Close(), closeAll()) }, nil

	case "postgres":
		if st.kind != "postgres" {
			return nil, nil, fmt.Errorf("-locker postgres takes its locks in the store's PostgreSQL database, and -store is %s", st)
		}
		cfg, err := pgxpool.ParseConfig(st.url)
		if err != nil {
			return nil, nil, fmt.Errorf("locker: %w", err)
		}
		cfg.MaxConns = pgLockConns
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("locker: %w", err)
		}
		if err := pool.Ping(cctx); err != nil {
			pool.Close()
			return nil, nil, fmt.Errorf("locker: postgres: %w", err)
		}
		return pglock.New(pool, nil), func() error { pool.Close(); return nil }, nil

	case "etcd":
		where := strings.Join(spec.addrs, ",")
		client, err := clientv3.New(clientv3.Config{
			Endpoints:   spec.addrs,
			DialTimeout: connectTimeout,
			Logger:      zap.NewNop(), // failures reach us as errors
		})
		if err != nil {
			return nil, nil, fmt.Errorf("locker: etcd at %s: %w", where, err)
		}
		// A linearizable read needs a quorum: the cluster can grant locks.
		if _, err := client.Get(cctx, "/stockade/lock/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
			client.Close()
			return nil, nil, fmt.Errorf("locker: etcd at %s: %w", where, err)
		}
		return etcdlock.New(client, nil), client.Close, nil
	}
	return nil, nil, fmt.Errorf("unsupported locker kind %q", spec.kind)
}
