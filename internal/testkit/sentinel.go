package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinels is the number of sentinels of a RedisSentinel; two of them
// make a quorum.
const sentinels = 3

// RedisSentinel is a Redis primary, one replica and three Sentinels that
// watch them, each a redis-server process of its own (a *Redis) on
// loopback ports. The replica replicates through a Proxy (ReplicaLink), so
// that a test can hold back what the primary sends it and then fail the
// primary over: the writes held back are lost, as asynchronous replication
// loses them. All methods are safe for concurrent use.
//
// The data nodes run without persistence, like any testkit Redis: a
// restarted node comes back empty, and the Sentinels make it a replica of
// the primary of the moment.
type RedisSentinel struct {
	nodes     []*Redis // the primary at the start, then the replica
	sentinels []*Redis
	link      *Proxy
	master    string
	timeout   time.Duration // RedisSentinelOptions.StartTimeout
}

// RedisSentinelOptions configure StartRedisSentinel. A nil
// *RedisSentinelOptions uses the defaults.
type RedisSentinelOptions struct {
	// StartTimeout bounds the start of each process, the wait for the
	// Sentinels to know each other and the replica, and each wait for a
	// new primary (WaitPrimary).
	// Default: 30s.
	StartTimeout time.Duration
	// DownAfter is the Sentinels' down-after-milliseconds: how long the
	// primary may not answer before a Sentinel considers it down. A
	// failover starts once two of them do.
	// Default: 500ms.
	DownAfter time.Duration
	// MasterName is the name the Sentinels know the primary by.
	// Default: "stockade".
	MasterName string
}

func (o *RedisSentinelOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
	if o.DownAfter <= 0 {
		o.DownAfter = 500 * time.Millisecond
	}
	if o.MasterName == "" {
		o.MasterName = "stockade"
	}
}

// StartRedisSentinel starts a primary, a replica of it that replicates
// through a Proxy, and three Sentinels that monitor the primary with a
// quorum of two, and waits until the replica is in sync and every
// Sentinel knows the replica and the two other Sentinels. The caller must
// Close it. The error wraps ErrNotInstalled when redis-server is missing.
func StartRedisSentinel(opts *RedisSentinelOptions) (*RedisSentinel, error) {
	var o RedisSentinelOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	s := &RedisSentinel{master: o.MasterName, timeout: o.StartTimeout}
	primary, err := startRedis(RedisOptions{StartTimeout: o.StartTimeout}, nil)
	if err != nil {
		return nil, err
	}
	s.nodes = append(s.nodes, primary)
	if s.link, err = StartProxy(primary.addr); err != nil {
		s.close()
		return nil, err
	}
	host, port, _ := net.SplitHostPort(s.link.Addr())
	replica, err := startRedis(RedisOptions{StartTimeout: o.StartTimeout, Args: []string{"--replicaof", host, port}}, nil)
	if err != nil {
		s.close()
		return nil, err
	}
	s.nodes = append(s.nodes, replica)
	if err := s.waitInSync(); err != nil {
		s.close()
		return nil, fmt.Errorf("start redis sentinel: %w", err)
	}
	for range sentinels {
		r, err := startSentinel(o, primary)
		if err != nil {
			s.close()
			return nil, err
		}
		s.sentinels = append(s.sentinels, r)
	}
	if err := s.waitWatching(); err != nil {
		s.close()
		return nil, fmt.Errorf("start redis sentinel: %w", err)
	}
	return s, nil
}

// startSentinel starts redis-server in Sentinel mode, monitoring primary,
// with a configuration file of its own (Sentinel rewrites it).
func startSentinel(o RedisSentinelOptions, primary *Redis) (*Redis, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, notInstalled("redis-server", "redis-server")
	}
	dir, err := os.MkdirTemp("", "testkit-sentinel-*")
	if err != nil {
		return nil, fmt.Errorf("start redis sentinel: %w", err)
	}
	r := &Redis{}
	r.p = &process{
		name:    "redis-sentinel",
		path:    path,
		dir:     dir,
		logPath: filepath.Join(dir, "sentinel.log"),
		env:     os.Environ(),
		stopSig: syscall.SIGTERM,
		timeout: o.StartTimeout,
		ready: func(ctx context.Context, pid int) error {
			return redisReady(ctx, r.addr, pid)
		},
	}
	r.version = binaryVersion(path, nil)
	conf := filepath.Join(dir, "sentinel.conf")
	var confErr error
	err = r.p.startFresh(1, func(ports []int) []string {
		port := strconv.Itoa(ports[0])
		r.addr = net.JoinHostPort("127.0.0.1", port)
		name := o.MasterName
		// The failover timeout also spaces a Sentinel's attempts: keep it
		// short, so that a failover that found no leader is tried again
		// soon.
		lines := []string{
			"port " + port,
			"bind 127.0.0.1",
			"dir " + dir,
			"daemonize no",
			"loglevel notice",
			fmt.Sprintf("sentinel monitor %s 127.0.0.1 %s 2", name, primary.port()),
			fmt.Sprintf("sentinel down-after-milliseconds %s %d", name, o.DownAfter.Milliseconds()),
			fmt.Sprintf("sentinel failover-timeout %s %d", name, max(2*o.DownAfter, time.Second).Milliseconds()),
			fmt.Sprintf("sentinel parallel-syncs %s 1", name),
		}
		confErr = os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		return []string{conf, "--sentinel"}
	})
	if err == nil {
		err = confErr
	}
	if err != nil {
		r.p.close()
		return nil, err
	}
	return r, nil
}

// waitInSync waits until the replica reports its link to the primary up.
func (s *RedisSentinel) waitInSync() error {
	return s.poll(func(ctx context.Context) error {
		c := newNodeClient(s.nodes[1])
		defer c.Close()
		info, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "master_link_status:up") {
			return errors.New("the replica's link to the primary is not up")
		}
		return nil
	})
}

// waitWatching waits until every Sentinel knows the primary, its replica
// and the other Sentinels, so that a failover can start.
func (s *RedisSentinel) waitWatching() error {
	return s.poll(func(ctx context.Context) error {
		for _, r := range s.sentinels {
			c := redis.NewSentinelClient(&redis.Options{Addr: r.addr, DisableIdentity: true, MaxRetries: -1})
			m, err := c.Master(ctx, s.master).Result()
			c.Close()
			if err != nil {
				return fmt.Errorf("sentinel %s: %w", r.addr, err)
			}
			if m["num-slaves"] != "1" || m["num-other-sentinels"] != strconv.Itoa(sentinels-1) || m["flags"] != "master" {
				return fmt.Errorf("sentinel %s: flags %s, %s replicas and %s other sentinels known",
					r.addr, m["flags"], m["num-slaves"], m["num-other-sentinels"])
			}
		}
		return nil
	})
}

// poll runs check until it returns nil, for at most the start timeout.
func (s *RedisSentinel) poll(check func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	for {
		probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
		err := check(probe)
		cancelProbe()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v: %w", s.timeout, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// SentinelAddrs returns the Sentinels' addresses, "127.0.0.1:port". They
// stay the same across Restart.
func (s *RedisSentinel) SentinelAddrs() []string {
	addrs := make([]string, len(s.sentinels))
	for i, r := range s.sentinels {
		addrs[i] = r.addr
	}
	return addrs
}

// MasterName returns the name the Sentinels know the primary by.
func (s *RedisSentinel) MasterName() string { return s.master }

// Nodes returns the data nodes: the primary at the start, then its
// replica. A test may stop, kill, pause and restart them.
func (s *RedisSentinel) Nodes() []*Redis { return append([]*Redis(nil), s.nodes...) }

// Sentinels returns the Sentinel processes.
func (s *RedisSentinel) Sentinels() []*Redis { return append([]*Redis(nil), s.sentinels...) }

// ReplicaLink returns the proxy the replica replicates through while the
// first primary leads. Blackhole it to hold back the writes the primary
// sends the replica; a failover then loses them.
func (s *RedisSentinel) ReplicaLink() *Proxy { return s.link }

// Primary returns the data node that the first Sentinel that answers
// names as the primary.
func (s *RedisSentinel) Primary(ctx context.Context) (*Redis, error) {
	var errs []error
	for _, r := range s.sentinels {
		addr, err := s.masterAddr(ctx, r)
		if err == nil {
			return s.node(addr)
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no sentinel names the primary: %w", errors.Join(errs...))
}

// WaitPrimary waits until a majority of the Sentinels name a data node
// other than old as the primary, and that node says it is one, and
// returns it. It gives up after the start timeout.
func (s *RedisSentinel) WaitPrimary(old *Redis) (*Redis, error) {
	var primary *Redis
	err := s.poll(func(ctx context.Context) error {
		votes := map[string]int{}
		for _, r := range s.sentinels {
			if addr, err := s.masterAddr(ctx, r); err == nil {
				votes[addr]++
			}
		}
		for addr, n := range votes {
			if addr == old.addr || n < sentinels/2+1 {
				continue
			}
			r, err := s.node(addr)
			if err != nil {
				return err
			}
			c := newNodeClient(r)
			defer c.Close()
			info, err := c.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "role:master") {
				return fmt.Errorf("the sentinels name %s, which is not a master yet", addr)
			}
			primary = r
			return nil
		}
		return fmt.Errorf("the sentinels name %v", votes)
	})
	if err != nil {
		return nil, fmt.Errorf("wait for a new primary: %w", err)
	}
	return primary, nil
}

// masterAddr asks Sentinel r for the primary's address.
func (s *RedisSentinel) masterAddr(ctx context.Context, r *Redis) (string, error) {
	c := redis.NewSentinelClient(&redis.Options{Addr: r.addr, DisableIdentity: true, MaxRetries: -1})
	defer c.Close()
	hp, err := c.GetMasterAddrByName(ctx, s.master).Result()
	if err != nil {
		return "", fmt.Errorf("sentinel %s: %w", r.addr, err)
	}
	if len(hp) != 2 {
		return "", fmt.Errorf("sentinel %s: primary address %q", r.addr, hp)
	}
	return net.JoinHostPort(hp[0], hp[1]), nil
}

// node returns the data node at addr.
func (s *RedisSentinel) node(addr string) (*Redis, error) {
	for _, r := range s.nodes {
		if r.addr == addr {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no data node at %s", addr)
}

// Version returns the servers' version number as their binary reports
// it, such as "7.0.15", for logging.
func (s *RedisSentinel) Version() string { return s.nodes[0].Version() }

// Close stops every process and the proxy, and removes their
// directories. Closing twice returns nil.
func (s *RedisSentinel) Close() error { return s.close() }

func (s *RedisSentinel) close() error {
	var errs []error
	for _, r := range s.sentinels {
		errs = append(errs, r.p.close())
	}
	for _, r := range s.nodes {
		errs = append(errs, r.p.close())
	}
	if s.link != nil {
		errs = append(errs, s.link.Close())
	}
	return errors.Join(errs...)
}

func (s *RedisSentinel) procs() []*process {
	var ps []*process
	for _, r := range append(s.Nodes(), s.sentinels...) {
		ps = append(ps, r.p)
	}
	return ps
}
