package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestNATSCluster checks that the three nodes form one cluster that
// places a stream of three replicas, that StreamLeader names the node that
// leads it, and that with that node stopped the other two elect another
// leader and store on, and that the node catches up when it is back.
func TestNATSCluster(t *testing.T) {
	t.Parallel()
	c := NewNATSCluster(t, nil)
	nodes := c.Nodes()
	names := map[string]bool{}
	for _, n := range nodes {
		names[n.Name()] = true
		if !strings.Contains(c.URLs(), n.URL()) {
			t.Errorf("URLs() = %q, without node %s's %s", c.URLs(), n.Name(), n.URL())
		}
	}
	if len(nodes) != 3 || len(names) != 3 {
		t.Fatalf("%d nodes named %v; want three names", len(nodes), names)
	}
	nc, err := nats.Connect(c.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KIT", Subjects: []string{"kit.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	// publish stores n messages, asking again while the stream elects a
	// leader; a message stored twice would be dropped by its id.
	seq := 0
	publish := func(n int) {
		t.Helper()
		for range n {
			seq++
			msg := &nats.Msg{Subject: "kit.m", Data: []byte("x"), Header: nats.Header{}}
			msg.Header.Set(jetstream.MsgIDHeader, fmt.Sprint("m-", seq))
			for {
				_, err := js.PublishMsg(ctx, msg, jetstream.WithRetryAttempts(0))
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("message %d: %v", seq, err)
				}
				time.Sleep(50 * time.Millisecond) // the stream elects a leader
			}
		}
	}
	publish(10)
	leader, err := c.StreamLeader(ctx, "KIT")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StreamLeader(ctx, "NONE"); err == nil {
		t.Error("StreamLeader of a stream that does not exist: no error")
	}
	if err := leader.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	publish(10)
	next, err := c.StreamLeader(ctx, "KIT")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the stream stored again %v after its leader %s stopped; %s leads it now", time.Since(stopped).Round(time.Millisecond), leader.Name(), next.Name())
	if next == leader {
		t.Errorf("the stream's leader is %s, which is stopped", next.Name())
	}
	if err := c.WaitJetStream(); err != nil {
		t.Errorf("WaitJetStream with a node down: %v", err)
	}
	if err := leader.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitJetStream(); err != nil {
		t.Fatal(err)
	}
	// The node that is back catches up: its replica is current.
	for {
		s, err := js.Stream(ctx, "KIT")
		if err != nil {
			t.Fatal(err)
		}
		info := s.CachedInfo()
		current := 0
		for _, p := range info.Cluster.Replicas {
			if p.Current {
				current++
			}
		}
		if info.State.Msgs != 20 {
			t.Fatalf("the stream holds %d messages, want 20", info.State.Msgs)
		}
		if len(info.Cluster.Replicas) == 2 && current == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("replicas %+v after the node's restart", info.Cluster.Replicas)
		}
		time.Sleep(50 * time.Millisecond) // JetStream's state, polled
	}
}
