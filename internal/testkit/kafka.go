package testkit

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka is a Kafka cluster in the test's own process: franz-go's kfake,
// which speaks the Kafka protocol on loopback ports and keeps its topics
// in memory. No Kafka broker can be installed from the package sources
// the project reaches, so it stands in for one; a client cannot tell it
// from a broker on the wire, which is what kcat checks. Its topics are
// lost on Close. All methods are safe for concurrent use.
type Kafka struct {
	c *kfake.Cluster
	// refusing is true while the cluster answers every produce request with
	// an error (RefuseWrites).
	refusing atomic.Bool
	once     sync.Once
}

// KafkaOptions configure StartKafka. A nil *KafkaOptions uses the
// defaults.
type KafkaOptions struct {
	// Brokers is how many brokers the cluster has; partitions' leaders
	// are spread over them.
	// Default: 3.
	Brokers int
}

// StartKafka starts a kfake cluster on free loopback ports. Topics are
// not created on a client's first use: the code under test creates them.
// The caller must Close it.
func StartKafka(opts *KafkaOptions) (*Kafka, error) {
	var o KafkaOptions
	if opts != nil {
		o = *opts
	}
	if o.Brokers <= 0 {
		o.Brokers = 3
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(o.Brokers))
	if err != nil {
		return nil, fmt.Errorf("start kafka: %w", err)
	}
	k := &Kafka{c: c}
	// One control function for the life of the cluster, which refuses
	// produce requests while RefuseWrites says so and lets the cluster
	// handle them otherwise.
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !k.refusing.Load() {
			return nil, nil, false
		}
		return refuseProduce(req.(*kmsg.ProduceRequest)), nil, true
	})
	return k, nil
}

// NewKafka starts a Kafka cluster private to the test, closed when the
// test ends.
func NewKafka(t testing.TB, opts *KafkaOptions) *Kafka {
	t.Helper()
	k, err := StartKafka(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return k
}

// refuseProduce answers req as a broker that is not the leader of any of
// its partitions: a retryable error, so a client refreshes its metadata
// and tries again, as it does while a real cluster elects leaders.
func refuseProduce(req *kmsg.ProduceRequest) *kmsg.ProduceResponse {
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.ErrorCode = 6 // NOT_LEADER_FOR_PARTITION
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// Addrs returns the brokers' addresses, "127.0.0.1:port".
func (k *Kafka) Addrs() []string { return k.c.ListenAddrs() }

// Seeds returns the brokers' addresses separated by commas, as kcat's -b
// takes them.
func (k *Kafka) Seeds() string { return strings.Join(k.Addrs(), ",") }

// URL returns the brokers as stockade serve's -events takes them,
// "kafka://127.0.0.1:port,127.0.0.1:port,…".
func (k *Kafka) URL() string { return "kafka://" + k.Seeds() }

// Cluster returns the kfake cluster, for a test that controls requests
// itself (kfake.Cluster.ControlKey).
func (k *Kafka) Cluster() *kfake.Cluster { return k.c }

// RefuseWrites makes the cluster answer every produce request with a
// retryable error (the partition has no leader) while refuse is true:
// the writes of clients fail, and are retried, until it is set false
// again. Reads and group requests go on.
func (k *Kafka) RefuseWrites(refuse bool) { k.refusing.Store(refuse) }

// Version names the stand-in, as the versions of real servers are
// printed.
func (k *Kafka) Version() string { return "kfake (franz-go)" }

// Close shuts the cluster down. It may be called more than once.
func (k *Kafka) Close() { k.once.Do(k.c.Close) }

// Kcat returns the path of kcat, the Kafka client built on librdkafka
// (Debian's package kcat), with which a test checks the wire from a
// client the project did not write. It skips the test when kcat is
// missing; see the package documentation.
func Kcat(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		skipOrFail(t, notInstalled("kcat", "kcat"))
	}
	return path
}
