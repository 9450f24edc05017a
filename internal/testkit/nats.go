package testkit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NATS is a nats-server process with JetStream enabled, listening on a
// loopback port, with its own temporary directory that holds the JetStream
// store. Streams and their messages survive Stop, Kill and Restart. All
// methods are safe for concurrent use.
type NATS struct {
	server
	addr     string
	storeDir string
	name     string // --server_name
}

// NATSOptions configure StartNATS. A nil *NATSOptions uses the defaults.
type NATSOptions struct {
	// StartTimeout bounds the wait for the server to answer, on start and
	// on every Restart.
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra nats-server options appended to the command line,
	// such as "--max_payload", "65536".
	// Default: none.
	Args []string
}

func (o *NATSOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
}

// StartNATS starts nats-server, found on PATH, with JetStream on a free
// loopback port and waits until it answers. The caller must Close it. The
// error wraps ErrNotInstalled when nats-server is missing.
func StartNATS(opts *NATSOptions) (*NATS, error) {
	var o NATSOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	path, err := exec.LookPath("nats-server")
	if err != nil {
		return nil, notInstalled("nats-server", "nats-server")
	}
	return startNATS(path, o, nil)
}

// startNATS starts nats-server at path with o's options, and the extra
// arguments of more (nil for none) after the server's own.
func startNATS(path string, o NATSOptions, more []string) (*NATS, error) {
	dir, err := os.MkdirTemp("", "testkit-nats-*")
	if err != nil {
		return nil, fmt.Errorf("start nats-server: %w", err)
	}
	n := &NATS{storeDir: filepath.Join(dir, "store"), name: filepath.Base(dir)} // unique; tells our server from others
	n.p = &process{
		name:    "nats-server",
		path:    path,
		dir:     dir,
		logPath: filepath.Join(dir, "nats.log"),
		env:     os.Environ(),
		stopSig: syscall.SIGTERM,
		timeout: o.StartTimeout,
		ready: func(ctx context.Context, _ int) error {
			return natsReady(ctx, n.addr, n.name)
		},
	}
	n.version = binaryVersion(path, nil)
	err = n.p.startFresh(1, func(ports []int) []string {
		port := strconv.Itoa(ports[0])
		n.addr = net.JoinHostPort("127.0.0.1", port)
		args := []string{
			"--addr", "127.0.0.1",
			"--port", port,
			"--server_name", n.name,
			"--jetstream",
			"--store_dir", n.storeDir,
		}
		args = append(args, more...)
		return append(args, o.Args...)
	})
	if err != nil {
		n.p.close()
		return nil, err
	}
	return n, nil
}

// Addr returns the server's address, "127.0.0.1:port". It stays the same
// across Restart.
func (n *NATS) Addr() string { return n.addr }

// URL returns the client URL, "nats://127.0.0.1:port". It stays the same
// across Restart.
func (n *NATS) URL() string { return "nats://" + n.addr }

// Name returns the server's name (its --server_name), which JetStream
// uses to name the leaders and replicas of streams in a cluster.
func (n *NATS) Name() string { return n.name }

// natsReady checks that the server at addr greets a new connection with
// its INFO line, has JetStream enabled, and is the server called name, not
// another one that won the race for the port. nats-server recovers its
// streams before it accepts clients, so a server that greets has them.
func natsReady(ctx context.Context, addr, name string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	payload, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "INFO ")
	if !ok {
		return fmt.Errorf("greeting: unexpected line %q", line)
	}
	var info struct {
		ServerName string `json:"server_name"`
		JetStream  bool   `json:"jetstream"`
	}
	if err := json.Unmarshal([]byte(payload), &info); err != nil {
		return fmt.Errorf("INFO: %w", err)
	}
	if info.ServerName != name {
		return fmt.Errorf("server at %s is %q, not %s", addr, info.ServerName, name)
	}
	if !info.JetStream {
		return fmt.Errorf("server at %s: JetStream not enabled", addr)
	}
	return nil
}
