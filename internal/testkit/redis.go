package testkit

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Redis is a redis-server process listening on a loopback port, with its
// own temporary directory. It runs without persistence, so Restart brings
// it back empty. All methods are safe for concurrent use.
type Redis struct {
	server
	addr    string
	tlsAddr string
	tls     *tlsFiles
	busPort int // a cluster node's bus port; 0 outside a cluster
}

// RedisOptions configure StartRedis. A nil *RedisOptions uses the defaults.
type RedisOptions struct {
	// StartTimeout bounds the wait for the server to answer, on start and
	// on every Restart.
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra redis-server options appended to the command line,
	// such as "--maxmemory", "10mb".
	// Default: none.
	Args []string
	// TLS makes the server listen for TLS too, on a second loopback port
	// (TLSAddr), with a certificate for 127.0.0.1 signed by a certificate
	// authority made for this server alone (TLSConfig trusts it). Clients
	// are not asked for certificates. The plain port stays open.
	// Default: false.
	TLS bool
}

func (o *RedisOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
}

// StartRedis starts redis-server, found on PATH, on a free loopback port
// and waits until it answers. The caller must Close it. The error wraps
// ErrNotInstalled when redis-server is missing.
func StartRedis(opts *RedisOptions) (*Redis, error) {
	var o RedisOptions
	if opts != nil {
		o = *opts
	}
	return startRedis(o, nil)
}

// startRedis starts redis-server with o, as a Redis Cluster node with the
// options of cluster unless it is nil.
func startRedis(o RedisOptions, cluster *RedisClusterOptions) (*Redis, error) {
	o.init()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, notInstalled("redis-server", "redis-server")
	}
	dir, err := os.MkdirTemp("", "testkit-redis-*")
	if err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	r := &Redis{}
	if o.TLS {
		if r.tls, err = writeTLSFiles(dir); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	r.p = &process{
		name:    "redis-server",
		path:    path,
		dir:     dir,
		logPath: filepath.Join(dir, "redis.log"),
		env:     os.Environ(),
		stopSig: syscall.SIGTERM,
		timeout: o.StartTimeout,
		ready: func(ctx context.Context, pid int) error {
			return redisReady(ctx, r.addr, pid)
		},
	}
	r.version = binaryVersion(path, nil)
	nports := 1
	if r.tls != nil {
		nports++
	}
	if cluster != nil {
		// The bus port is chosen too: the default, port+10000, may be
		// taken or beyond 65535.
		nports++
	}
	err = r.p.startFresh(nports, func(ports []int) []string {
		port := strconv.Itoa(ports[0])
		r.addr = net.JoinHostPort("127.0.0.1", port)
		args := []string{
			"--port", port,
			"--bind", "127.0.0.1",
			"--dir", dir,
			"--save", "",
			"--appendonly", "no",
			"--daemonize", "no",
			"--loglevel", "warning",
		}
		if r.tls != nil {
			tlsPort := strconv.Itoa(ports[1])
			r.tlsAddr = net.JoinHostPort("127.0.0.1", tlsPort)
			args = append(args,
				"--tls-port", tlsPort,
				"--tls-cert-file", r.tls.cert,
				"--tls-key-file", r.tls.key,
				"--tls-ca-cert-file", r.tls.ca,
				"--tls-auth-clients", "no",
			)
		}
		if cluster != nil {
			r.busPort = ports[len(ports)-1]
			args = append(args,
				"--cluster-enabled", "yes",
				"--cluster-port", strconv.Itoa(r.busPort),
				"--cluster-announce-ip", "127.0.0.1",
				"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
				"--cluster-node-timeout", strconv.FormatInt(cluster.NodeTimeout.Milliseconds(), 10),
			)
		}
		return append(args, o.Args...)
	})
	if err != nil {
		r.p.close()
		return nil, err
	}
	return r, nil
}

// Addr returns the server's address, "127.0.0.1:port". It stays the same
// across Restart.
func (r *Redis) Addr() string { return r.addr }

// TLSAddr returns the address of the server's TLS port, "127.0.0.1:port",
// or "" unless it was started with RedisOptions.TLS. It stays the same
// across Restart.
func (r *Redis) TLSAddr() string { return r.tlsAddr }

// TLSConfig returns a new client configuration for TLSAddr that trusts
// only the server's own certificate authority, or nil unless the server
// was started with RedisOptions.TLS.
func (r *Redis) TLSConfig() *tls.Config {
	if r.tls == nil {
		return nil
	}
	return r.tls.clientConfig()
}

// redisReady checks that the server at addr answers and is the process pid,
// not another server that won the race for the port.
func redisReady(ctx context.Context, addr string, pid int) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	if _, err := io.WriteString(conn, "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"); err != nil {
		return err
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "$") {
		return fmt.Errorf("INFO: unexpected reply %q", line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 {
		return fmt.Errorf("INFO: unexpected reply %q", line)
	}
	info := make([]byte, n)
	if _, err := io.ReadFull(br, info); err != nil {
		return err
	}
	want := "process_id:" + strconv.Itoa(pid)
	for l := range strings.Lines(string(info)) {
		if strings.TrimRight(l, "\r\n") == want {
			return nil
		}
	}
	return fmt.Errorf("server at %s is not process %d", addr, pid)
}
