package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Etcd is a single-member etcd cluster listening on loopback ports, with
// its own temporary data directory. Data survives Stop, Kill and Restart.
// All methods are safe for concurrent use.
type Etcd struct {
	server
	endpoint string
}

// EtcdOptions configure StartEtcd. A nil *EtcdOptions uses the defaults.
type EtcdOptions struct {
	// StartTimeout bounds the wait for the member to be healthy, on start
	// and on every Restart.
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra etcd flags appended to the command line, such as
	// "--auto-compaction-retention=1".
	// Default: none.
	Args []string
}

func (o *EtcdOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
}

// StartEtcd starts etcd, found on PATH, as a single-member cluster on free
// loopback client and peer ports and waits until it is healthy. The caller
// must Close it. The error wraps ErrNotInstalled when etcd is missing.
func StartEtcd(opts *EtcdOptions) (*Etcd, error) {
	var o EtcdOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	path, err := exec.LookPath("etcd")
	if err != nil {
		return nil, notInstalled("etcd", "etcd-server")
	}
	dir, err := os.MkdirTemp("", "testkit-etcd-*")
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	e := &Etcd{}
	name := filepath.Base(dir) // unique; tells our member from others
	e.p = &process{
		name:    "etcd",
		path:    path,
		dir:     dir,
		logPath: filepath.Join(dir, "etcd.log"),
		// etcd reads every flag from ETCD_* too, and refuses to start
		// when both are set.
		env:     environ("ETCD_"),
		stopSig: syscall.SIGTERM,
		timeout: o.StartTimeout,
		ready: func(ctx context.Context, _ int) error {
			return etcdReady(ctx, e.endpoint, name)
		},
	}
	e.version = binaryVersion(path, nil)
	err = e.p.startFresh(2, func(ports []int) []string {
		e.endpoint = "http://127.0.0.1:" + strconv.Itoa(ports[0])
		peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
		// The initial-cluster flags only matter for the first start;
		// later starts find the member in the data directory.
		args := []string{
			"--name", name,
			"--data-dir", filepath.Join(dir, "data"),
			"--listen-client-urls", e.endpoint,
			"--advertise-client-urls", e.endpoint,
			"--listen-peer-urls", peer,
			"--initial-advertise-peer-urls", peer,
			"--initial-cluster", name + "=" + peer,
			"--initial-cluster-token", name,
			// A lone member has nobody to lose an election to; short
			// timeouts make it lead within ~0.3s of a restart instead of
			// ~1.5s, and allow leases down to 1s.
			"--heartbeat-interval", "20",
			"--election-timeout", "200",
			"--logger", "zap",
			"--log-level", "error",
		}
		return append(args, o.Args...)
	})
	if err != nil {
		e.p.close()
		return nil, err
	}
	return e, nil
}

// Endpoint returns the client URL, "http://127.0.0.1:port". It stays the
// same across Restart.
func (e *Etcd) Endpoint() string { return e.endpoint }

// etcdReady checks that the member at endpoint reports itself healthy and
// is the member called name, not another server that won the race for the
// port.
func etcdReady(ctx context.Context, endpoint, name string) error {
	var health struct {
		Health string `json:"health"`
	}
	if err := etcdCall(ctx, http.MethodGet, endpoint+"/health", &health); err != nil {
		return err
	}
	if health.Health != "true" {
		return fmt.Errorf("%s/health: health is %q", endpoint, health.Health)
	}
	var list struct {
		Members []struct {
			Name string `json:"name"`
		} `json:"members"`
	}
	if err := etcdCall(ctx, http.MethodPost, endpoint+"/v3/cluster/member/list", &list); err != nil {
		return err
	}
	if len(list.Members) != 1 || list.Members[0].Name != name {
		return fmt.Errorf("server at %s is not member %s: %+v", endpoint, name, list.Members)
	}
	return nil
}

// etcdClient keeps no idle connections: they would outlive the server.
var etcdClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// etcdCall sends a request, with an empty JSON object as the body of a
// POST, and decodes the JSON response into out.
func etcdCall(ctx context.Context, method, url string, out any) error {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := etcdClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
