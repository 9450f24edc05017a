package testkit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedisCluster checks, through RESP by hand, that the cluster has
// formed on every node, that NodeFor names the master that serves a key
// and the others redirect to it, that the keys spread over all three
// masters, and that a killed node rejoins with its slots on Restart.
func TestRedisCluster(t *testing.T) {
	t.Parallel()
	c := NewRedisCluster(t, nil)
	nodes := c.Nodes()
	if len(nodes) != 3 || len(c.Addrs()) != 3 {
		t.Fatalf("%d nodes, %d addresses; want 3 masters", len(nodes), len(c.Addrs()))
	}
	for i, r := range nodes {
		if c.Addrs()[i] != r.Addr() {
			t.Errorf("Addrs()[%d] = %s, but node %d is at %s", i, c.Addrs()[i], i, r.Addr())
		}
		info, err := redisDo(r.Addr(), 5*time.Second, "CLUSTER", "INFO")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:3") {
			t.Errorf("node %d CLUSTER INFO:\n%s\nwant cluster_state:ok with 3 nodes known", i, info)
		}
	}

	// setOn sets key on node r, which answers OK or redirects.
	setOn := func(r *Redis, key string) error {
		got, err := redisDo(r.Addr(), 5*time.Second, "SET", key, "v")
		if err == nil && got != "OK" {
			err = fmt.Errorf("SET = %q, want OK", got)
		}
		return err
	}
	served := make(map[*Redis]int) // keys per node
	for i := range 30 {
		key := fmt.Sprint("key-", i)
		owner := c.NodeFor(key)
		served[owner]++
		if err := setOn(owner, key); err != nil {
			t.Fatalf("SET %s on NodeFor's node %s: %v", key, owner.Addr(), err)
		}
		moved := fmt.Sprintf("MOVED %d %s", keySlot(key), owner.Addr())
		for _, r := range nodes {
			if r == owner {
				continue
			}
			if err := setOn(r, key); err == nil || err.Error() != moved {
				t.Errorf("SET %s on %s, which does not serve it: %v; want %q", key, r.Addr(), err, moved)
			}
		}
	}
	if len(served) != 3 {
		t.Errorf("30 keys served by %d masters, want all 3: %v", len(served), served)
	}

	// A killed node keeps its identity and slots in its directory.
	r := nodes[1]
	key := keyOn(t, c, r)
	if err := r.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := r.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitOK(); err != nil {
		t.Fatal(err)
	}
	if err := setOn(r, key); err != nil {
		t.Fatalf("SET %s on its restarted node: %v", key, err)
	}
}

// keyOn returns a key that node r serves.
func keyOn(t *testing.T, c *RedisCluster, r *Redis) string {
	t.Helper()
	for i := range 1000 {
		if key := fmt.Sprint("key-", i); c.NodeFor(key) == r {
			return key
		}
	}
	t.Fatalf("no key of 1000 served by %s", r.Addr())
	return ""
}

// TestSharedRedisCluster checks that the shared cluster is one per binary
// and that its nodes refuse faults.
func TestSharedRedisCluster(t *testing.T) {
	t.Parallel()
	c := SharedRedisCluster(t)
	if again := SharedRedisCluster(t); again != c {
		t.Errorf("second call returned another cluster")
	}
	if err := c.Close(); !errors.Is(err, ErrShared) {
		t.Errorf("Close = %v, want ErrShared", err)
	}
	for _, r := range c.Nodes() {
		if err := r.Kill(); !errors.Is(err, ErrShared) {
			t.Errorf("Kill of node %s = %v, want ErrShared", r.Addr(), err)
		}
	}
	if err := c.WaitOK(); err != nil {
		t.Fatal(err)
	}
}

// TestClusterKeySlot checks keySlot against the specification's example
// and against the server's CLUSTER KEYSLOT, hash tags included.
func TestClusterKeySlot(t *testing.T) {
	t.Parallel()
	if got, want := keySlot("123456789"), 0x31c3; got != want {
		t.Errorf(`keySlot("123456789") = %d, want %d, the CRC16 of the specification`, got, want)
	}
	addr := SharedRedisCluster(t).Addrs()[0]
	for _, key := range []string{
		"", "a", "123456789", "lock:{sku-1}", "lock:{sku-1}:q",
		"{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{", "}{", "x{y",
	} {
		reply, err := redisDo(addr, 5*time.Second, "CLUSTER", "KEYSLOT", key)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strconv.Atoi(reply)
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %q = %q", key, reply)
		}
		if got := keySlot(key); got != want {
			t.Errorf("keySlot(%q) = %d, server says %d", key, got, want)
		}
	}
}
