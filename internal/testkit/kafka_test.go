package testkit

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafka checks that the cluster has three brokers that kcat lists,
// that RefuseWrites makes writes fail while it is on, and that a write
// goes through once it is off.
func TestKafka(t *testing.T) {
	t.Parallel()
	k := NewKafka(t, nil)
	if len(k.Addrs()) != 3 || k.URL() != "kafka://"+k.Seeds() {
		t.Fatalf("addresses %v, URL %s; want three brokers", k.Addrs(), k.URL())
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(t.Context(), 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), Kcat(t), "-L", "-b", k.Seeds()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 brokers:") || !strings.Contains(string(out), `topic "t"`) {
		t.Fatalf("kcat -L: %v\n%s", err, out)
	}

	k.RefuseWrites(true)
	// The record gives up at its context's end, which is safe to do
	// while the broker has refused it.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("refused")}).FirstErr(); err == nil {
		t.Fatal("a write while the cluster refuses writes went through")
	}
	k.RefuseWrites(false)
	if err := cl.ProduceSync(t.Context(), &kgo.Record{Topic: "t", Value: []byte("taken")}).FirstErr(); err != nil {
		t.Fatalf("a write once the cluster takes them again: %v", err)
	}
}
