package lockbench

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	bsmlock "github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/redlock"
)

// locker is what the bench needs of an implementation.
type locker interface {
	// acquire waits for key (as the implementation waits) and returns the
	// function that releases it.
	acquire(ctx context.Context, key string) (release func(context.Context) error, err error)

	// close frees what the implementation opened for the cell, its
	// connections included.
	close() error
}

// server is the kind of server an implementation runs on.
type server int

const (
	onRedis    server = iota // Options.Addr
	onRedlock                // Options.RedlockAddrs
	onPostgres               // Options.PostgresURL
	onEtcd                   // Options.EtcdEndpoints
)

// impl is one implementation: its name, its server, and how to open it for
// one cell with its connections dialled, every key it uses starting with
// prefix.
type impl struct {
	name   string
	server server
	open   func(ctx context.Context, o Options, w Workload, prefix string) (locker, error)
}

// impls are the implementations in the order they run.
var impls = []impl{
	{"stockade", onRedis, onOneRedis(newStockade)},
	{"redsync", onRedis, onOneRedis(newRedsync)},
	{"bsm", onRedis, onOneRedis(newBSM)},
	{"setnx", onRedis, onOneRedis(newSetNX)},
	{"redlock", onRedlock, openRedlock},
	{"redsync5", onRedlock, openRedsync5},
	{"pglock", onPostgres, openPGLock},
	{"etcdlock", onEtcd, openEtcdLock},
}

func findImpl(name string) (impl, bool) {
	for _, im := range impls {
		if im.name == name {
			return im, true
		}
	}
	return impl{}, false
}

// onOneRedis opens a Redis implementation on a client of its own, with a
// pool as large as the crowd, so that no implementation queues for
// connections.
func onOneRedis(newLocker func(c *redis.Client, prefix string, o Options) locker) func(context.Context, Options, Workload, string) (locker, error) {
	return func(ctx context.Context, o Options, w Workload, prefix string) (locker, error) {
		client := redis.NewClient(&redis.Options{Addr: o.Addr, PoolSize: w.Goroutines + 8})
		if err := warmRedis(ctx, client, w.Goroutines); err != nil {
			client.Close()
			return nil, err
		}
		return withConns{newLocker(client, prefix, o), client.Close}, nil
	}
}

// withConns adds the closing of a locker's connections to its close.
type withConns struct {
	locker
	closeConns func() error
}

func (w withConns) close() error { return errors.Join(w.locker.close(), w.closeConns()) }

// ourLocker is one of our lock.Locker backends, waiting with Acquire (in
// its fair queue) until ctx ends.
type ourLocker struct {
	l       lock.Locker
	ttl     time.Duration
	closeFn func() error // closes l and its connections
}

func (s *ourLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	lease, err := s.l.Acquire(ctx, key, lock.WithTTL(s.ttl))
	if err != nil {
		return nil, err
	}
	return lease.Release, nil
}

func (s *ourLocker) close() error { return s.closeFn() }

// stockade: our lock/redislock.
func newStockade(c *redis.Client, prefix string, o Options) locker {
	l := redislock.New(c, &redislock.Options{Prefix: prefix})
	return &ourLocker{l: l, ttl: o.TTL, closeFn: l.Close}
}

// redlock: our lock/redlock over the RedlockAddrs nodes.
func openRedlock(ctx context.Context, o Options, w Workload, prefix string) (locker, error) {
	clients, closeAll, err := dialRedlockNodes(ctx, o, w)
	if err != nil {
		return nil, err
	}
	universal := make([]redis.UniversalClient, len(clients))
	for i, c := range clients {
		universal[i] = c
	}
	l, err := redlock.New(universal, &redlock.Options{Prefix: prefix})
	if err != nil {
		closeAll()
		return nil, err
	}
	return &ourLocker{l: l, ttl: o.TTL, closeFn: func() error { return errors.Join(l.Close(), closeAll()) }}, nil
}

// redsync5: go-redsync/redsync over the RedlockAddrs nodes, a pool each,
// with every option at its default, as redsync on one Redis.
func openRedsync5(ctx context.Context, o Options, w Workload, prefix string) (locker, error) {
	clients, closeAll, err := dialRedlockNodes(ctx, o, w)
	if err != nil {
		return nil, err
	}
	pools := make([]redsyncredis.Pool, len(clients))
	for i, c := range clients {
		pools[i] = goredis.NewPool(c)
	}
	return withConns{&redsyncLocker{rs: redsync.New(pools...), prefix: prefix}, closeAll}, nil
}

// dialRedlockNodes opens a client of each RedlockAddrs node, with its pool
// warmed and as large as the crowd, and returns them with the function
// that closes them all. ContextTimeoutEnabled lets a per-node timeout (each
// Redlock implementation has one) cut a call to a node that stopped
// answering.
func dialRedlockNodes(ctx context.Context, o Options, w Workload) ([]*redis.Client, func() error, error) {
	var clients []*redis.Client
	closeAll := func() error {
		var errs []error
		for _, c := range clients {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	for _, addr := range o.RedlockAddrs {
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: w.Goroutines + 8, ContextTimeoutEnabled: true})
		clients = append(clients, c)
		if err := warmRedis(ctx, c, w.Goroutines); err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("redlock node %s: %w", addr, err)
		}
	}
	return clients, closeAll, nil
}

// pglock: our lock/pglock on a pool of its own. Every waiting and every
// holding goroutine pins a connection, so the pool has one per goroutine
// and a few to spare. Closing the pool ends the sessions, and with them
// any advisory lock left.
func openPGLock(ctx context.Context, o Options, w Workload, prefix string) (locker, error) {
	cfg, err := pgxpool.ParseConfig(o.PostgresURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(w.Goroutines + 4)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := warmPool(ctx, pool, w.Goroutines); err != nil {
		pool.Close()
		return nil, err
	}
	l := pglock.New(pool, &pglock.Options{Prefix: prefix})
	return &ourLocker{l: l, ttl: o.TTL, closeFn: func() error { pool.Close(); return nil }}, nil
}

// etcdlock: our lock/etcdlock on a client of its own.
func openEtcdLock(ctx context.Context, o Options, _ Workload, prefix string) (locker, error) {
	client, err := newEtcdClient(ctx, o.EtcdEndpoints)
	if err != nil {
		return nil, err
	}
	l := etcdlock.New(client, &etcdlock.Options{Prefix: prefix})
	return &ourLocker{l: l, ttl: o.TTL, closeFn: client.Close}, nil
}

// warmRedis opens n connections of client's pool.
func warmRedis(ctx context.Context, client *redis.Client, n int) error {
	errs := make(chan error, n)
	for range n {
		go func() { errs <- client.Ping(ctx).Err() }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// warmPool opens n connections of pool, holding them all at once so that
// none is reused before the n-th is dialled.
func warmPool(ctx context.Context, pool *pgxpool.Pool, n int) error {
	conns := make([]*pgxpool.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = pool.Acquire(ctx) })
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.Release()
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// redsync and redsync5: every option at its default (8s expiry, 32 tries,
// 50–250 ms random delay between tries). One Mutex per acquisition, as its
// value is per acquisition.
type redsyncLocker struct {
	rs     *redsync.Redsync
	prefix string
}

func newRedsync(c *redis.Client, prefix string, _ Options) locker {
	return &redsyncLocker{rs: redsync.New(goredis.NewPool(c)), prefix: prefix}
}

func (r *redsyncLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	m := r.rs.NewMutex(r.prefix + key)
	if err := m.LockContext(ctx); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		ok, err := m.UnlockContext(ctx)
		if err == nil && !ok {
			err = errNotHeld
		}
		return err
	}, nil
}

func (r *redsyncLocker) close() error { return nil }

// bsm: bsm/redislock retrying every 50 ms until the wait's deadline.
type bsmLocker struct {
	c         *bsmlock.Client
	prefix    string
	ttl, wait time.Duration
}

var bsmRetry = &bsmlock.Options{RetryStrategy: bsmlock.LinearBackoff(50 * time.Millisecond)}

func newBSM(c *redis.Client, prefix string, o Options) locker {
	return &bsmLocker{c: bsmlock.New(c), prefix: prefix, ttl: o.TTL, wait: o.BSMWait}
}

func (b *bsmLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	wctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	l, err := b.c.Obtain(wctx, b.prefix+key, b.ttl, bsmRetry)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// Obtain returns the context's error when the wait runs out.
			err = fmt.Errorf("bsm: gave up after %v: %w", b.wait, err)
		}
		return nil, err
	}
	return l.Release, nil
}

func (b *bsmLocker) close() error { return nil }

// setnx: the hand-written loop. SET key token NX PX ttl; when the key is
// taken, sleep setnxRetry and try again, until ctx ends. Release is a Lua
// compare-and-DEL.
type setnxLocker struct {
	c      *redis.Client
	prefix string
	ttl    string // milliseconds
}

// setnxRetry is the loop's fixed sleep between tries: no jitter, no backoff.
const setnxRetry = 50 * time.Millisecond

var (
	//go:embed setnx_release.lua
	setnxReleaseLua string
	setnxRelease    = redis.NewScript(setnxReleaseLua)
)

var errNotHeld = errors.New("lockbench: release found the lock no longer held")

func newSetNX(c *redis.Client, prefix string, o Options) locker {
	return &setnxLocker{c: c, prefix: prefix, ttl: strconv.FormatInt(o.TTL.Milliseconds(), 10)}
}

func (s *setnxLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	key = s.prefix + key
	token := rand.Text()
	var t *time.Timer
	for {
		err := s.c.Do(ctx, "SET", key, token, "NX", "PX", s.ttl).Err()
		if err == nil {
			break
		}
		if !errors.Is(err, redis.Nil) {
			return nil, err
		}
		if t == nil {
			t = time.NewTimer(setnxRetry)
			defer t.Stop()
		} else {
			t.Reset(setnxRetry)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return func(ctx context.Context) error {
		n, err := setnxRelease.Run(ctx, s.c, []string{key}, token).Int()
		if err == nil && n == 0 {
			err = errNotHeld
		}
		return err
	}, nil
}

func (s *setnxLocker) close() error { return nil }
