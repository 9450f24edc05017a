package lockbench

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	bsmlock "github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/redislock"
)

// locker is what the bench needs of an implementation.
type locker interface {
	// acquire waits for key (as the implementation waits) and returns the
	// function that releases it.
	acquire(ctx context.Context, key string) (release func(context.Context) error, err error)
	close() error
}

// factories builds each implementation over a client; every Redis key it
// uses starts with prefix.
var factories = map[string]func(c *redis.Client, prefix string, o Options) locker{
	"stockade": newStockade,
	"redsync":  newRedsync,
	"bsm":      newBSM,
	"setnx":    newSetNX,
}

// stockade: our lock/redislock, waiting in its FIFO queue until ctx ends.
type stockadeLocker struct {
	l   *redislock.Locker
	ttl time.Duration
}

func newStockade(c *redis.Client, prefix string, o Options) locker {
	return &stockadeLocker{l: redislock.New(c, &redislock.Options{Prefix: prefix}), ttl: o.TTL}
}

func (s *stockadeLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	lease, err := s.l.Acquire(ctx, key, lock.WithTTL(s.ttl))
	if err != nil {
		return nil, err
	}
	return lease.Release, nil
}

func (s *stockadeLocker) close() error { return s.l.Close() }

// redsync: every option at its default (8s expiry, 32 tries, 50–250 ms
// random delay between tries). One Mutex per acquisition, as its value is
// per acquisition.
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
