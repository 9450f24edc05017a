package testkit

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisSentinel checks that a write to the primary reaches the
// replica, that the Sentinels name the primary, and that once the primary
// is killed they promote the replica, which then takes writes; and that a
// write held back on the replica link is lost in the failover.
func TestRedisSentinel(t *testing.T) {
	t.Parallel()
	s := NewRedisSentinel(t, nil)
	ctx := t.Context()
	if len(s.SentinelAddrs()) != 3 || len(s.Nodes()) != 2 || s.MasterName() == "" {
		t.Fatalf("%d sentinels, %d data nodes, master name %q", len(s.SentinelAddrs()), len(s.Nodes()), s.MasterName())
	}
	old, replica := s.Nodes()[0], s.Nodes()[1]
	if p, err := s.Primary(ctx); err != nil || p != old {
		t.Fatalf("Primary() = %v, %v; want the first node %s", p, err, old.Addr())
	}
	client := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    s.MasterName(),
		SentinelAddrs: s.SentinelAddrs(),
	})
	defer client.Close()
	if err := client.Set(ctx, "kept", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// WAIT: the replica has it.
	if n, err := client.Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 = %d, %v; want the replica's ack", n, err)
	}
	s.ReplicaLink().Blackhole()
	if err := client.Set(ctx, "lost", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}

	stopped := time.Now()
	if err := old.Kill(); err != nil {
		t.Fatal(err)
	}
	p, err := s.WaitPrimary(old)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("new primary %s named %v after the kill", p.Addr(), time.Since(stopped).Round(time.Millisecond))
	if p != replica {
		t.Fatalf("new primary %s, want the replica %s", p.Addr(), replica.Addr())
	}
	if got, err := client.Get(ctx, "kept").Result(); err != nil || got != "1" {
		t.Errorf("GET kept = %q, %v after the failover; want the replicated write", got, err)
	}
	if err := client.Get(ctx, "lost").Err(); err != redis.Nil {
		t.Errorf("GET lost: %v; want no such key: the write held back was lost", err)
	}
	if err := client.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Errorf("SET on the new primary: %v", err)
	}
	pc := newNodeClient(p)
	defer pc.Close()
	info, err := pc.Info(ctx, "replication").Result()
	if err != nil || !strings.Contains(info, "role:master") {
		t.Errorf("INFO replication of the new primary: %q, %v", info, err)
	}
}
