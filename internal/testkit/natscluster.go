package testkit

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsClusterNodes is the number of nodes of a NATSCluster: the fewest
// that keep a majority, and so a stream of three replicas writable, with
// one of them down.
const natsClusterNodes = 3

// NATSCluster is a JetStream cluster of three nats-server processes on
// loopback ports, each a *NATS of its own with its own JetStream store,
// routed to one another. A stream of three replicas has a copy on each
// node and stays writable while one node is down: the other two elect a
// new leader. All methods are safe for concurrent use.
//
// A node keeps its name, ports and store across Stop, Kill and Restart,
// and catches up with the others when it is back.
type NATSCluster struct {
	nodes   []*NATS
	timeout time.Duration // NATSClusterOptions.StartTimeout
}

// NATSClusterOptions configure StartNATSCluster. A nil *NATSClusterOptions
// uses the defaults.
type NATSClusterOptions struct {
	// StartTimeout bounds the start of each node, on start and on every
	// Restart, and each wait for JetStream (WaitJetStream).
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra nats-server options appended to every node's command
	// line.
	// Default: none.
	Args []string
}

func (o *NATSClusterOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
}

// StartNATSCluster starts three nats-server processes with JetStream,
// routed to one another in one cluster, and waits until JetStream can
// place a stream of three replicas (WaitJetStream). The caller must Close
// it. The error wraps ErrNotInstalled when nats-server is missing.
func StartNATSCluster(opts *NATSClusterOptions) (*NATSCluster, error) {
	var o NATSClusterOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	path, err := exec.LookPath("nats-server")
	if err != nil {
		return nil, notInstalled("nats-server", "nats-server")
	}
	for attempt := 1; ; attempt++ {
		c, err := startNATSCluster(path, o)
		if err == nil {
			return c, nil
		}
		// A route port is chosen for every node before any starts, so a
		// node that lost the race for it is started again with the
		// others, on new ports.
		if attempt == portAttempts || !strings.Contains(strings.ToLower(err.Error()), "address already in use") {
			return nil, fmt.Errorf("start nats cluster: %w", err)
		}
	}
}

func startNATSCluster(path string, o NATSClusterOptions) (*NATSCluster, error) {
	routePorts, err := freePorts(natsClusterNodes)
	if err != nil {
		return nil, err
	}
	routes := make([]string, len(routePorts))
	for i, port := range routePorts {
		routes[i] = "nats://127.0.0.1:" + strconv.Itoa(port)
	}
	name := fmt.Sprintf("testkit-%d", routePorts[0]) // one per cluster on the machine
	c := &NATSCluster{timeout: o.StartTimeout}
	for i := range natsClusterNodes {
		n, err := startNATS(path, NATSOptions(o), []string{
			"--cluster_name", name,
			"--cluster", routes[i],
			"--routes", strings.Join(routes, ","),
		})
		if err != nil {
			c.close()
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	if err := c.WaitJetStream(); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// probeStream is the stream WaitJetStream creates, and deletes, to see that
// JetStream places three replicas.
const probeStream = "TESTKIT_PROBE"

// WaitJetStream waits until every running node has joined the cluster
// (it has routes to the other running nodes and reaches JetStream's meta
// leader) and, when all three run, until JetStream places a stream of
// three replicas: it creates one, of no subjects, and deletes it. It gives
// up after the start timeout, with an error saying what was last missing.
// Call it after restarting a node, before a test counts on the node.
func (c *NATSCluster) WaitJetStream() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var last error
	for {
		last = c.jetStreamReady(ctx)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nats cluster: JetStream not ready after %v: %w", c.timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// jetStreamReady checks once what WaitJetStream waits for.
func (c *NATSCluster) jetStreamReady(ctx context.Context) error {
	var up []*NATS
	for _, n := range c.nodes {
		if n.p.running() {
			up = append(up, n)
		}
	}
	for _, n := range up {
		nc, err := nats.Connect(n.URL(), nats.NoReconnect(), nats.Timeout(2*time.Second))
		if err != nil {
			return fmt.Errorf("node %s: %w", n.name, err)
		}
		err = func() error {
			defer nc.Close()
			if got := len(nc.DiscoveredServers()); got != len(up)-1 {
				return fmt.Errorf("node %s is routed to %d others, want %d", n.name, got, len(up)-1)
			}
			js, err := jetstream.New(nc)
			if err != nil {
				return err
			}
			probe, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			if _, err := js.AccountInfo(probe); err != nil {
				return fmt.Errorf("node %s: JetStream: %w", n.name, err)
			}
			if len(up) < natsClusterNodes || n != up[0] {
				return nil
			}
			_, err = js.CreateStream(probe, jetstream.StreamConfig{Name: probeStream, Subjects: []string{"testkit.probe"},
				Storage: jetstream.MemoryStorage, Replicas: natsClusterNodes})
			if err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				err = js.DeleteStream(probe, probeStream)
			}
			if err != nil {
				return fmt.Errorf("a stream of %d replicas: %w", natsClusterNodes, err)
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// URLs returns the nodes' client URLs, comma-separated, as nats.Connect
// takes them: "nats://127.0.0.1:p1,nats://127.0.0.1:p2,…". A client
// connects to one and moves to another when it goes down. They stay the
// same across Restart.
func (c *NATSCluster) URLs() string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = n.URL()
	}
	return strings.Join(urls, ",")
}

// Nodes returns the cluster's three nodes. A test of a private cluster may
// stop, kill, pause and restart them.
func (c *NATSCluster) Nodes() []*NATS { return append([]*NATS(nil), c.nodes...) }

// StreamLeader returns the node that leads stream's replicas, as
// JetStream's stream info names it. While the stream has no leader (it is
// electing one) it asks again, until ctx ends.
func (c *NATSCluster) StreamLeader(ctx context.Context, stream string) (*NATS, error) {
	nc, err := nats.Connect(c.URLs(), nats.Timeout(2*time.Second))
	if err != nil {
		return nil, fmt.Errorf("nats cluster: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	for {
		var leader string
		s, err := js.Stream(ctx, stream)
		if err == nil && s.CachedInfo().Cluster != nil {
			leader = s.CachedInfo().Cluster.Leader
		}
		for _, n := range c.nodes {
			if leader != "" && n.name == leader {
				return n, nil
			}
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("nats cluster: stream %s: %w", stream, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("nats cluster: the leader of stream %s: %w (last: %v)", stream, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Version returns the nodes' version number as their binary reports it,
// such as "2.9.10", for logging.
func (c *NATSCluster) Version() string { return c.nodes[0].Version() }

// Close stops every node and removes their directories. Closing twice
// returns nil.
func (c *NATSCluster) Close() error {
	if c.nodes[0].p.shared {
		return ErrShared
	}
	return c.close()
}

func (c *NATSCluster) close() error {
	var errs []error
	for _, n := range c.nodes {
		errs = append(errs, n.p.close())
	}
	return errors.Join(errs...)
}

func (c *NATSCluster) procs() []*process {
	ps := make([]*process, len(c.nodes))
	for i, n := range c.nodes {
		ps[i] = n.p
	}
	return ps
}
