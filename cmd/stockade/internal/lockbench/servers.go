package lockbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

const (
	// checkTimeout bounds the check that a server answers, before the
	// first cell.
	checkTimeout = 5 * time.Second

	// cleanupTimeout bounds the deletion of a prefix's keys on one server.
	cleanupTimeout = 30 * time.Second
)

// servers holds an administrative connection to each server a run uses:
// to check that it answers before the first cell, and to delete each
// cell's keys after it. A nil or empty field is a server the run does not
// use. PostgreSQL needs none: advisory locks end with the sessions, which
// end when the cell closes its pool.
type servers struct {
	redis    *redis.Client
	redlock  []*redis.Client // in the order of Options.RedlockAddrs
	etcd     *clientv3.Client
	postgres string // where, as host:port/database, for the report
}

// connect opens and checks an administrative connection to every server
// that one of o.Impls runs on. On error it closes what it opened.
func connect(ctx context.Context, o Options) (s *servers, err error) {
	s = &servers{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	used := make(map[server]bool)
	for _, name := range o.Impls {
		im, _ := findImpl(name) // withDefaults checked the names
		used[im.server] = true
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()

	if used[onRedis] {
		s.redis = redis.NewClient(&redis.Options{Addr: o.Addr, MaxRetries: -1})
		if err := s.redis.Ping(cctx).Err(); err != nil {
			return s, fmt.Errorf("redis at %s: %w", o.Addr, err)
		}
	}
	if used[onRedlock] {
		for _, addr := range o.RedlockAddrs {
			c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
			s.redlock = append(s.redlock, c)
			if err := c.Ping(cctx).Err(); err != nil {
				return s, fmt.Errorf("redlock node %s: %w", addr, err)
			}
		}
	}
	if used[onPostgres] {
		if s.postgres, err = checkPostgres(cctx, o.PostgresURL); err != nil {
			return s, err
		}
	}
	if used[onEtcd] {
		if s.etcd, err = newEtcdClient(cctx, o.EtcdEndpoints); err != nil {
			return s, err
		}
	}
	return s, nil
}

// checkPostgres connects to the database at url once and returns where it
// is, without the password.
func checkPostgres(ctx context.Context, url string) (string, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	cc := cfg.ConnConfig
	where := fmt.Sprintf("%s:%d/%s", cc.Host, cc.Port, cc.Database)
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return "", fmt.Errorf("postgres at %s: %w", where, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.Ping(ctx); err != nil {
		return "", fmt.Errorf("postgres at %s: %w", where, err)
	}
	return where, nil
}

// newEtcdClient returns a client of the cluster at endpoints once a
// linearizable read through it has succeeded, which needs a quorum.
func newEtcdClient(ctx context.Context, endpoints []string) (*clientv3.Client, error) {
	where := strings.Join(endpoints, ",")
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: checkTimeout,
		Logger:      zap.NewNop(), // errors reach the bench as return values
	})
	if err != nil {
		return nil, fmt.Errorf("etcd at %s: %w", where, err)
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if _, err := c.Get(cctx, "lockbench:", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
		c.Close()
		return nil, fmt.Errorf("etcd at %s: %w", where, err)
	}
	return c, nil
}

// clean deletes every key that starts with prefix on the servers that the
// implementation on srv writes to.
func (s *servers) clean(ctx context.Context, srv server, prefix string) error {
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	switch srv {
	case onRedis:
		return cleanRedis(ctx, s.redis, prefix)
	case onRedlock:
		var errs []error
		for _, c := range s.redlock {
			if err := cleanRedis(ctx, c, prefix); err != nil {
				errs = append(errs, fmt.Errorf("redlock node %s: %w", c.Options().Addr, err))
			}
		}
		return errors.Join(errs...)
	case onEtcd:
		if _, err := s.etcd.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
			return fmt.Errorf("clean up %s*: %w", prefix, err)
		}
	}
	return nil
}

// cleanAll deletes every key that starts with prefix on every server.
func (s *servers) cleanAll(ctx context.Context, prefix string) error {
	var errs []error
	if s.redis != nil {
		errs = append(errs, s.clean(ctx, onRedis, prefix))
	}
	if len(s.redlock) > 0 {
		errs = append(errs, s.clean(ctx, onRedlock, prefix))
	}
	if s.etcd != nil {
		errs = append(errs, s.clean(ctx, onEtcd, prefix))
	}
	return errors.Join(errs...)
}

func (s *servers) close() {
	if s.redis != nil {
		s.redis.Close()
	}
	for _, c := range s.redlock {
		c.Close()
	}
	if s.etcd != nil {
		s.etcd.Close()
	}
}

// cleanRedis deletes every key that starts with prefix. The prefix is made
// of characters that are not glob-special, so it can be used in MATCH as is.
func cleanRedis(ctx context.Context, c *redis.Client, prefix string) error {
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			return fmt.Errorf("clean up %s*: %w", prefix, err)
		}
		keys = slices.DeleteFunc(keys, func(k string) bool { return !strings.HasPrefix(k, prefix) })
		if len(keys) > 0 {
			if err := c.Unlink(ctx, keys...).Err(); err != nil {
				return fmt.Errorf("clean up %s*: %w", prefix, err)
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
