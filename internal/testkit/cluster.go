package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// clusterSlots is the number of hash slots of a Redis Cluster.
	clusterSlots = 16384
	// clusterMasters is the number of nodes of a RedisCluster.
	clusterMasters = 3
)

// RedisCluster is a Redis Cluster of three masters and no replicas, each a
// redis-server process of its own (a *Redis) on loopback ports. The slots
// are split into three ranges: the first node serves 0-5460, the second
// 5461-10921, the third 10922-16383. All methods are safe for concurrent
// use.
//
// A node keeps its identity and its slots across Restart (its cluster
// configuration file stays in its directory) and rejoins the cluster, but
// like any testkit Redis it comes back without data.
type RedisCluster struct {
	nodes   []*Redis
	timeout time.Duration // RedisClusterOptions.StartTimeout
}

// RedisClusterOptions configure StartRedisCluster. A nil
// *RedisClusterOptions uses the defaults.
type RedisClusterOptions struct {
	// StartTimeout bounds the start of each node, on start and on every
	// Restart, and each wait for the cluster to be ok (WaitOK).
	// Default: 30s.
	StartTimeout time.Duration
	// NodeTimeout is the nodes' cluster-node-timeout: how long a node may
	// not answer before the others consider it failing. A failed node that
	// is back is trusted again after twice as long.
	// Default: 2s.
	NodeTimeout time.Duration
	// Args are extra redis-server options appended to every node's command
	// line, such as "--cluster-require-full-coverage", "no".
	// Default: none.
	Args []string
}

func (o *RedisClusterOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = 2 * time.Second
	}
}

// StartRedisCluster starts three redis-server processes (Redis 7 or later)
// as cluster nodes, joins them, gives each a third of the slots, and waits
// until every node reports the cluster ok. The caller must Close it. The
// error wraps ErrNotInstalled when redis-server is missing.
func StartRedisCluster(opts *RedisClusterOptions) (*RedisCluster, error) {
	var o RedisClusterOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	c := &RedisCluster{timeout: o.StartTimeout}
	for range clusterMasters {
		r, err := startRedis(RedisOptions{StartTimeout: o.StartTimeout, Args: o.Args}, &o)
		if err != nil {
			c.close()
			return nil, err
		}
		c.nodes = append(c.nodes, r)
	}
	if err := c.form(); err != nil {
		c.close()
		return nil, fmt.Errorf("start redis cluster: %w", err)
	}
	return c, nil
}

// form gives each node its slots, introduces the others to the first node,
// and waits for the cluster to be ok.
func (c *RedisCluster) form() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	first := newNodeClient(c.nodes[0])
	defer first.Close()
	for i, r := range c.nodes {
		lo, hi := c.slots(i)
		client := newNodeClient(r)
		err := client.ClusterAddSlotsRange(ctx, lo, hi).Err()
		client.Close()
		if err == nil && i > 0 {
			// Gossip makes the others known to each other.
			err = first.Do(ctx, "CLUSTER", "MEET", "127.0.0.1", r.port(), r.busPort).Err()
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", r.addr, err)
		}
	}
	return c.WaitOK()
}

// slots returns the first and last slot node i serves.
func (c *RedisCluster) slots(i int) (lo, hi int) {
	n := len(c.nodes)
	return i * clusterSlots / n, (i+1)*clusterSlots/n - 1
}

// WaitOK waits until every node reports cluster_state:ok, knows every
// other node, and sees all 16384 slots served by nodes it does not
// consider failing. It gives up after the start timeout, with an error
// saying what the nodes that were not ok last reported. Call it after
// restarting a node, before using the cluster: the other nodes refuse
// commands while they still consider it failed.
func (c *RedisCluster) WaitOK() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	clients := make([]*redis.Client, len(c.nodes))
	for i, r := range c.nodes {
		clients[i] = newNodeClient(r)
		defer clients[i].Close()
	}
	want := map[string]string{
		"cluster_state":       "ok",
		"cluster_known_nodes": strconv.Itoa(len(c.nodes)),
		"cluster_slots_ok":    strconv.Itoa(clusterSlots),
	}
	for {
		var problems []string
		for i, client := range clients {
			probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
			info, err := client.ClusterInfo(probe).Result()
			cancelProbe()
			if err == nil {
				err = checkClusterInfo(info, want)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("node %s: %v", c.nodes[i].addr, err))
			}
		}
		if problems == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redis cluster not ok after %v: %s", c.timeout, strings.Join(problems, "; "))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// checkClusterInfo checks the fields of a CLUSTER INFO reply against want.
func checkClusterInfo(info string, want map[string]string) error {
	got := make(map[string]string)
	for line := range strings.Lines(info) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		got[k] = v
	}
	var wrong []string
	for k, v := range want {
		if got[k] != v {
			wrong = append(wrong, fmt.Sprintf("%s:%s, want %s", k, got[k], v))
		}
	}
	if wrong != nil {
		return errors.New(strings.Join(wrong, ", "))
	}
	return nil
}

// Addrs returns the nodes' addresses, "127.0.0.1:port", in the order of
// Nodes. They stay the same across Restart. A cluster client needs only
// one of them to find the others.
func (c *RedisCluster) Addrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, r := range c.nodes {
		addrs[i] = r.addr
	}
	return addrs
}

// Nodes returns the cluster's nodes, in the order of their slot ranges.
// A test of a private cluster may stop, kill, pause and restart them.
func (c *RedisCluster) Nodes() []*Redis { return append([]*Redis(nil), c.nodes...) }

// NodeFor returns the node that serves key's hash slot, as the slots were
// given at the start: a cluster without replicas never moves them, unless
// a test does.
func (c *RedisCluster) NodeFor(key string) *Redis {
	slot := keySlot(key)
	for i, r := range c.nodes {
		if _, hi := c.slots(i); slot <= hi {
			return r
		}
	}
	panic("unreachable: the nodes serve every slot")
}

// Version returns the nodes' version number as their binary reports it,
// such as "7.0.15", for logging.
func (c *RedisCluster) Version() string { return c.nodes[0].Version() }

// Close stops every node and removes their directories. Closing twice
// returns nil. A shared cluster is closed by Main, a private one from
// NewRedisCluster by the test's cleanup.
func (c *RedisCluster) Close() error {
	if c.nodes[0].p.shared {
		return ErrShared
	}
	return c.close()
}

func (c *RedisCluster) close() error {
	var errs []error
	for _, r := range c.nodes {
		errs = append(errs, r.p.close())
	}
	return errors.Join(errs...)
}

func (c *RedisCluster) procs() []*process {
	ps := make([]*process, len(c.nodes))
	for i, r := range c.nodes {
		ps[i] = r.p
	}
	return ps
}

// port returns the port of r's address.
func (r *Redis) port() string {
	_, port, _ := net.SplitHostPort(r.addr)
	return port
}

// newNodeClient returns a client of node r alone, which follows no
// redirection.
func newNodeClient(r *Redis) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:            r.addr,
		DisableIdentity: true,
		MaxRetries:      -1,
	})
}

// keySlot returns the hash slot of key, as Redis Cluster computes it: the
// CRC16 (XMODEM) of the key's hash tag, modulo 16384. The hash tag is what
// lies between the first "{" and the first "}" after it, if that is not
// empty, and the whole key otherwise.
func keySlot(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if n := strings.IndexByte(key[open+1:], '}'); n > 0 {
			key = key[open+1 : open+1+n]
		}
	}
	var crc uint16
	for i := range len(key) {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % clusterSlots
}
