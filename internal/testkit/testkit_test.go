package testkit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// lifecycle is the method set the handles share.
type lifecycle interface {
	Version() string
	Stop() error
	Kill() error
	Pause() error
	Resume() error
	Restart() error
	Close() error
}

// backend drives one kind of server through clients that share no code
// with the package: RESP by hand, psql, etcd's JSON gateway, and the NATS
// protocol by hand.
type backend struct {
	name       string
	private    func(testing.TB) lifecycle
	shared     func(testing.TB) lifecycle
	addr       func(lifecycle) string // host:port
	persistent bool                   // data survives Restart
	// ping fails unless the server answers within timeout.
	ping func(t *testing.T, srv lifecycle, timeout time.Duration) error
	set  func(t *testing.T, srv lifecycle, key, value string) error
	// get returns "" for a missing key.
	get func(t *testing.T, srv lifecycle, key string) (string, error)
}

var backends = []backend{
	{
		name:    "redis",
		private: func(t testing.TB) lifecycle { return NewRedis(t) },
		shared:  func(t testing.TB) lifecycle { return SharedRedis(t) },
		addr:    func(srv lifecycle) string { return srv.(*Redis).Addr() },
		ping: func(t *testing.T, srv lifecycle, timeout time.Duration) error {
			got, err := redisDo(srv.(*Redis).Addr(), timeout, "PING")
			if err == nil && got != "PONG" {
				err = fmt.Errorf("PING = %q, want PONG", got)
			}
			return err
		},
		set: func(t *testing.T, srv lifecycle, key, value string) error {
			got, err := redisDo(srv.(*Redis).Addr(), 5*time.Second, "SET", key, value)
			if err == nil && got != "OK" {
				err = fmt.Errorf("SET = %q, want OK", got)
			}
			return err
		},
		get: func(t *testing.T, srv lifecycle, key string) (string, error) {
			return redisDo(srv.(*Redis).Addr(), 5*time.Second, "GET", key)
		},
	},
	{
		name:       "postgres",
		private:    func(t testing.TB) lifecycle { return NewPostgres(t) },
		shared:     func(t testing.TB) lifecycle { return SharedPostgres(t) },
		addr:       func(srv lifecycle) string { return srv.(*Postgres).Addr() },
		persistent: true,
		ping: func(t *testing.T, srv lifecycle, timeout time.Duration) error {
			pg := srv.(*Postgres)
			got, err := psql(t, pg, pg.URL(), timeout, "select 1")
			if err == nil && got != "1" {
				err = fmt.Errorf("select 1 = %q", got)
			}
			return err
		},
		set: func(t *testing.T, srv lifecycle, key, value string) error {
			pg := srv.(*Postgres)
			_, err := psql(t, pg, pg.URL(), 10*time.Second, fmt.Sprintf(`
				create table if not exists kv (k text primary key, v text not null);
				insert into kv values ('%s', '%s') on conflict (k) do update set v = excluded.v`,
				key, value))
			return err
		},
		get: func(t *testing.T, srv lifecycle, key string) (string, error) {
			pg := srv.(*Postgres)
			return psql(t, pg, pg.URL(), 10*time.Second, fmt.Sprintf("select v from kv where k = '%s'", key))
		},
	},
	{
		name:       "etcd",
		private:    func(t testing.TB) lifecycle { return NewEtcd(t) },
		shared:     func(t testing.TB) lifecycle { return SharedEtcd(t) },
		addr:       func(srv lifecycle) string { return strings.TrimPrefix(srv.(*Etcd).Endpoint(), "http://") },
		persistent: true,
		ping: func(t *testing.T, srv lifecycle, timeout time.Duration) error {
			var health struct{ Health string }
			err := etcdJSON(srv.(*Etcd).Endpoint()+"/health", timeout, nil, &health)
			if err == nil && health.Health != "true" {
				err = fmt.Errorf("health = %q", health.Health)
			}
			return err
		},
		set: func(t *testing.T, srv lifecycle, key, value string) error {
			req := map[string]string{"key": b64(key), "value": b64(value)}
			return etcdJSON(srv.(*Etcd).Endpoint()+"/v3/kv/put", 5*time.Second, req, &struct{}{})
		},
		get: func(t *testing.T, srv lifecycle, key string) (string, error) {
			var resp struct {
				KVs []struct{ Value string }
			}
			req := map[string]string{"key": b64(key)}
			if err := etcdJSON(srv.(*Etcd).Endpoint()+"/v3/kv/range", 5*time.Second, req, &resp); err != nil {
				return "", err
			}
			if len(resp.KVs) == 0 {
				return "", nil
			}
			v, err := base64.StdEncoding.DecodeString(resp.KVs[0].Value)
			return string(v), err
		},
	},
	{
		name:       "nats",
		private:    func(t testing.TB) lifecycle { return NewNATS(t) },
		shared:     func(t testing.TB) lifecycle { return SharedNATS(t) },
		addr:       func(srv lifecycle) string { return srv.(*NATS).Addr() },
		persistent: true,
		ping: func(t *testing.T, srv lifecycle, timeout time.Duration) error {
			c, err := natsDial(srv.(*NATS).Addr(), timeout)
			if err != nil {
				return err
			}
			defer c.Close()
			return c.ping()
		},
		// A key is a stream of its own in file storage, with one subject;
		// the value is the last message on it.
		set: func(t *testing.T, srv lifecycle, key, value string) error {
			c, err := natsDial(srv.(*NATS).Addr(), 5*time.Second)
			if err != nil {
				return err
			}
			defer c.Close()
			config := fmt.Sprintf(`{"name":%q,"subjects":[%q],"storage":"file"}`, key, "kv."+key)
			if err := c.jsRequest("$JS.API.STREAM.CREATE."+key, config, nil); err != nil {
				return err
			}
			return c.jsRequest("kv."+key, value, nil)
		},
		get: func(t *testing.T, srv lifecycle, key string) (string, error) {
			c, err := natsDial(srv.(*NATS).Addr(), 5*time.Second)
			if err != nil {
				return "", err
			}
			defer c.Close()
			var resp struct {
				Message struct{ Data []byte }
			}
			err = c.jsRequest("$JS.API.STREAM.MSG.GET."+key, fmt.Sprintf(`{"last_by_subj":%q}`, "kv."+key), &resp)
			var apiErr *jsError
			if errors.As(err, &apiErr) && (apiErr.ErrCode == jsStreamNotFound || apiErr.ErrCode == jsNoMessageFound) {
				return "", nil
			}
			return string(resp.Message.Data), err
		},
	},
}

func TestFaults(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			srv := b.private(t)
			t.Logf("%s %s at %s", b.name, srv.Version(), b.addr(srv))
			addr := b.addr(srv)

			tests := []struct {
				name string
				down func() error // nil: Restart a running server
				gone bool         // the port refuses connections after down
			}{
				{name: "stop", down: srv.Stop, gone: true},
				{name: "kill", down: srv.Kill, gone: true},
				{name: "pause then kill", down: func() error { return errors.Join(srv.Pause(), srv.Kill()) }, gone: true},
				{name: "pause then stop", down: func() error { return errors.Join(srv.Pause(), srv.Stop()) }, gone: true},
				{name: "pause then restart", down: srv.Pause},
				{name: "restart while running"},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					key := strings.ReplaceAll(tc.name, " ", "-")
					if err := b.set(t, srv, key, "value-"+key); err != nil {
						t.Fatalf("set: %v", err)
					}
					if tc.down != nil {
						if err := tc.down(); err != nil {
							t.Fatalf("%s: %v", tc.name, err)
						}
					}
					if tc.gone {
						conn, err := net.DialTimeout("tcp", addr, time.Second)
						if err == nil {
							conn.Close()
						}
						if !errors.Is(err, syscall.ECONNREFUSED) {
							t.Fatalf("dial after %s: %v, want connection refused", tc.name, err)
						}
					}
					if err := srv.Restart(); err != nil {
						t.Fatalf("Restart: %v", err)
					}
					if got := b.addr(srv); got != addr {
						t.Errorf("address after Restart = %s, want %s", got, addr)
					}
					if err := b.ping(t, srv, 5*time.Second); err != nil {
						t.Fatalf("ping after Restart: %v", err)
					}
					want := ""
					if b.persistent {
						want = "value-" + key
					}
					if got, err := b.get(t, srv, key); err != nil || got != want {
						t.Errorf("get after Restart = %q, %v; want %q", got, err, want)
					}
				})
			}

			t.Run("pause and resume", func(t *testing.T) {
				if err := srv.Pause(); err != nil {
					t.Fatalf("Pause: %v", err)
				}
				if err := b.ping(t, srv, 500*time.Millisecond); err == nil {
					t.Errorf("paused server answered")
				}
				if err := srv.Resume(); err != nil {
					t.Fatalf("Resume: %v", err)
				}
				eventually(t, func() error { return b.ping(t, srv, 2*time.Second) })
			})
		})
	}
}

// TestPostgresChildren checks that Pause and Kill reach the backend of an
// open connection: PostgreSQL moves each backend into a session of its own,
// out of the postmaster's process group.
func TestPostgresChildren(t *testing.T) {
	t.Parallel()
	pg := NewPostgres(t)
	s := startPsql(t, pg, pg.URL())
	s.send("select pg_backend_pid();")
	out, err := s.next(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	backend, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("pg_backend_pid() = %q", out)
	}

	if err := pg.Pause(); err != nil {
		t.Fatal(err)
	}
	s.send("select 2;")
	if out, err := s.next(500 * time.Millisecond); err == nil {
		t.Errorf("open connection answered %q while paused", out)
	}
	if err := pg.Resume(); err != nil {
		t.Fatal(err)
	}
	if out, err := s.next(10 * time.Second); err != nil || out != "2" {
		t.Errorf("after Resume: %q, %v; want 2", out, err)
	}

	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", backend)); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
		t.Errorf("backend %d survived Kill: %s", backend, stat)
	}
}

func TestShared(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			srv := b.shared(t)
			if again := b.shared(t); again != srv {
				t.Errorf("second call returned another server")
			}
			if err := b.ping(t, srv, 5*time.Second); err != nil {
				t.Fatalf("ping: %v", err)
			}
			methods := map[string]func() error{
				"Stop": srv.Stop, "Kill": srv.Kill, "Pause": srv.Pause,
				"Resume": srv.Resume, "Restart": srv.Restart, "Close": srv.Close,
			}
			for name, fn := range methods {
				if err := fn(); !errors.Is(err, ErrShared) {
					t.Errorf("%s = %v, want ErrShared", name, err)
				}
			}
			if err := b.ping(t, srv, 5*time.Second); err != nil {
				t.Fatalf("ping after refused faults: %v", err)
			}
		})
	}
}

var databaseSeq atomic.Int64

func TestCreateDatabase(t *testing.T) {
	t.Parallel()
	pg := SharedPostgres(t)
	if want := "postgres://postgres@" + pg.Addr() + "/postgres?sslmode=disable"; pg.URL() != want {
		t.Errorf("URL = %q, want %q", pg.URL(), want)
	}
	for _, name := range []string{"plain", "Mixed Case", `with"quote`} {
		t.Run(name, func(t *testing.T) {
			// Unique per run: -count=2 reuses the shared server.
			name := fmt.Sprintf("%s_%d", name, databaseSeq.Add(1))
			u, err := pg.CreateDatabase(name)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := psql(t, pg, u, 10*time.Second, "select current_database()"); err != nil || got != name {
				t.Fatalf("current_database() = %q, %v; want %q", got, err, name)
			}
			if _, err := psql(t, pg, u, 10*time.Second, "create table only_here (x int); insert into only_here values (42)"); err != nil {
				t.Fatal(err)
			}
			if got, err := psql(t, pg, u, 10*time.Second, "select x from only_here"); err != nil || got != "42" {
				t.Errorf("select = %q, %v; want 42", got, err)
			}
			if got, err := psql(t, pg, pg.URL(), 10*time.Second, "select count(*) from pg_tables where tablename = 'only_here'"); err != nil || got != "0" {
				t.Errorf("table visible in database postgres: %q, %v", got, err)
			}
			_, err = pg.CreateDatabase(name)
			if err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Errorf("second CreateDatabase = %v, want already exists", err)
			}
			if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "42P04" {
				t.Errorf("second CreateDatabase = %v, want a *pgconn.PgError with SQLSTATE 42P04", err)
			}
		})
	}
}

func TestLifecycleErrors(t *testing.T) {
	t.Parallel()
	r := NewRedis(t)
	steps := []struct {
		name string
		fn   func() error
		want error
	}{
		{"Stop", r.Stop, nil},
		{"Stop again", r.Stop, nil},
		{"Kill stopped", r.Kill, nil},
		{"Pause stopped", r.Pause, ErrNotRunning},
		{"Resume stopped", r.Resume, ErrNotRunning},
		{"Restart", r.Restart, nil},
		{"Kill", r.Kill, nil},
		{"Kill again", r.Kill, nil},
		{"Close", r.Close, nil},
		{"Close again", r.Close, nil},
		{"Stop closed", r.Stop, nil},
		{"Restart closed", r.Restart, ErrClosed},
		{"Pause closed", r.Pause, ErrClosed},
	}
	for _, s := range steps {
		if err := s.fn(); !errors.Is(err, s.want) {
			t.Fatalf("%s = %v, want %v", s.name, err, s.want)
		}
	}
}

// TestRedisTLS checks that a server started with TLS answers on its TLS
// port to a client trusting TLSConfig's authority, before and after a
// restart, and that a client trusting only the system's authorities
// refuses its certificate.
func TestRedisTLS(t *testing.T) {
	t.Parallel()
	r := NewRedisWith(t, &RedisOptions{TLS: true})
	if r.TLSAddr() == "" || r.TLSAddr() == r.Addr() {
		t.Fatalf("TLSAddr %q, Addr %q: want a second port", r.TLSAddr(), r.Addr())
	}
	ping := func(cfg *tls.Config) (string, error) {
		d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: cfg}
		conn, err := d.Dial("tcp", r.TLSAddr())
		if err != nil {
			return "", err
		}
		return redisDoConn(conn, 5*time.Second, "PING")
	}
	for _, step := range []string{"started", "restarted"} {
		if got, err := ping(r.TLSConfig()); err != nil || got != "PONG" {
			t.Fatalf("%s: PING over TLS = %q, %v; want PONG", step, got, err)
		}
		if step == "started" {
			if err := r.Restart(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var unknown x509.UnknownAuthorityError
	if _, err := ping(&tls.Config{ServerName: "127.0.0.1"}); !errors.As(err, &unknown) {
		t.Errorf("PING trusting the system's authorities: %v, want an unknown authority", err)
	}
	if plain, _ := StartRedis(nil); plain != nil {
		defer plain.Close()
		if plain.TLSAddr() != "" || plain.TLSConfig() != nil {
			t.Errorf("server without TLS: TLSAddr %q, TLSConfig %v; want none", plain.TLSAddr(), plain.TLSConfig())
		}
	}
}

// TestNATS checks the URL, that JetStream keeps its streams in the server's
// store directory, and that readiness tells the server from another one
// on the same port.
func TestNATS(t *testing.T) {
	t.Parallel()
	n := NewNATS(t)
	if want := "nats://" + n.Addr(); n.URL() != want {
		t.Errorf("URL = %q, want %q", n.URL(), want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := natsReady(ctx, n.Addr(), "another-server"); err == nil || !strings.Contains(err.Error(), "not another-server") {
		t.Errorf("natsReady for another name = %v, want an error", err)
	}

	c, err := natsDial(n.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.info.JetStream || c.info.Port == 0 || !strings.HasSuffix(n.Addr(), ":"+strconv.Itoa(c.info.Port)) {
		t.Errorf("INFO = %+v, want JetStream on the port of %s", c.info, n.Addr())
	}
	if err := c.jsRequest("$JS.API.STREAM.CREATE.stored", `{"name":"stored","subjects":["stored"],"storage":"file"}`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.storeDir, "jetstream", "$G", "streams", "stored")); err != nil {
		t.Errorf("stream not in the store directory: %v", err)
	}
}

func TestCloseRemovesDirectory(t *testing.T) {
	t.Parallel()
	r, err := StartRedis(nil)
	if err != nil {
		skipOrFail(t, err)
	}
	if _, err := os.Stat(r.p.dir); err != nil {
		t.Fatalf("directory missing while running: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.p.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory after Close: %v, want not exist", err)
	}
}

func TestNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	tests := []struct {
		name  string
		start func() error
		want  string
	}{
		{"redis", func() error { _, err := StartRedis(nil); return err }, "apt-get install redis-server"},
		{"etcd", func() error { _, err := StartEtcd(nil); return err }, "apt-get install etcd-server"},
		{"nats", func() error { _, err := StartNATS(nil); return err }, "apt-get install nats-server"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.start()
			if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrNotInstalled naming %q", err, tc.want)
			}
		})
	}
}

// fakeTB records what skipOrFail does instead of stopping the goroutine.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
}

func (f *fakeTB) Fatal(args ...any) { f.failed, f.msg = true, fmt.Sprint(args...) }

func TestSkipOrFail(t *testing.T) {
	missing := notInstalled("redis-server", "redis-server")
	tests := []struct {
		name        string
		require     string
		err         error
		wantSkipped bool
	}{
		{"missing binary skips", "", missing, true},
		{"missing binary fails when required", "1", missing, false},
		{"other errors fail", "", errors.New("boom"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(requireEnv, tc.require)
			var f fakeTB
			skipOrFail(&f, tc.err)
			if f.skipped != tc.wantSkipped || f.failed == tc.wantSkipped {
				t.Fatalf("skipped=%v failed=%v, want skipped=%v", f.skipped, f.failed, tc.wantSkipped)
			}
			if tc.err == missing && !strings.Contains(f.msg, "apt-get install redis-server") {
				t.Errorf("message %q does not say how to install", f.msg)
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"15", "9.6", 1},
		{"9.6", "10", -1},
		{"16", "16", 0},
		{"12", "12.1", -1},
	}
	for _, tc := range tests {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// redisDo sends one command and returns the reply: the text of a simple
// string or integer, the value of a bulk string, "" for a nil bulk string.
func redisDo(addr string, timeout time.Duration, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	return redisDoConn(conn, timeout, args...)
}

// redisDoConn is redisDo on a connection of the caller's, which it closes.
func redisDoConn(conn net.Conn, timeout time.Duration, args ...string) (string, error) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		return "", err
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch {
	case strings.HasPrefix(line, "+"), strings.HasPrefix(line, ":"):
		return line[1:], nil
	case strings.HasPrefix(line, "-"):
		return "", errors.New(line[1:])
	case strings.HasPrefix(line, "$"):
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// psql runs sql with the psql next to the server's binaries and returns its
// unaligned, tuples-only output.
func psql(t *testing.T, pg *Postgres, dbURL string, timeout time.Duration, sql string) (string, error) {
	t.Helper()
	bin := filepath.Join(pg.binDir, "psql")
	if !isExecutable(bin) {
		skipOrFail(t, notInstalled(bin, "postgresql-client"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancel()
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	// libpq rounds connect timeouts below 2s up to 2s.
	q.Set("connect_timeout", strconv.Itoa(max(2, int(timeout.Seconds()))))
	u.RawQuery = q.Encode()
	cmd := exec.CommandContext(ctx, bin, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", u.String(), "-c", sql)
	cmd.Env = environ("PG")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql %q: %w: %s", sql, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// psqlSession is a psql process holding one connection open.
type psqlSession struct {
	stdin io.Writer
	lines chan string
}

func startPsql(t *testing.T, pg *Postgres, dbURL string) *psqlSession {
	t.Helper()
	bin := filepath.Join(pg.binDir, "psql")
	if !isExecutable(bin) {
		skipOrFail(t, notInstalled(bin, "postgresql-client"))
	}
	cmd := exec.Command(bin, "-X", "-q", "-A", "-t", "-d", dbURL)
	cmd.Env = environ("PG")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &psqlSession{stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *psqlSession) send(sql string) { io.WriteString(s.stdin, sql+"\n") }

// next returns the next line psql prints.
func (s *psqlSession) next(timeout time.Duration) (string, error) {
	select {
	case line, ok := <-s.lines:
		if !ok {
			return "", errors.New("psql exited")
		}
		return line, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("no answer within %v", timeout)
	}
}

// etcdJSON posts req as JSON, or gets when req is nil, and decodes the
// response into resp.
func etcdJSON(url string, timeout time.Duration, req, resp any) error {
	client := http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	method, body := http.MethodGet, []byte(nil)
	if req != nil {
		var err error
		if body, err = json.Marshal(req); err != nil {
			return err
		}
		method = http.MethodPost
	}
	hreq, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	r, err := client.Do(hreq)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(r.Body)
		return fmt.Errorf("%s: %s: %s", url, r.Status, b)
	}
	return json.NewDecoder(r.Body).Decode(resp)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// natsConn is a client connection speaking the NATS text protocol.
type natsConn struct {
	net.Conn
	br   *bufio.Reader
	info struct {
		JetStream bool `json:"jetstream"`
		Port      int  `json:"port"`
	}
	inbox int
}

// natsDial connects, reads the server's INFO and sends CONNECT. Every
// later read and write must end within timeout of the dial.
func natsDial(addr string, timeout time.Duration) (*natsConn, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(timeout))
	c := &natsConn{Conn: conn, br: bufio.NewReader(conn)}
	line, err := c.br.ReadString('\n')
	if err != nil {
		conn.Close()
		return nil, err
	}
	info, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r\n"), "INFO ")
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("greeting %q, want INFO", line)
	}
	if err := json.Unmarshal([]byte(info), &c.info); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := io.WriteString(conn, `CONNECT {"verbose":false,"pedantic":false}`+"\r\n"); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// ping sends PING and waits for PONG, which also confirms CONNECT.
func (c *natsConn) ping() error {
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return err
	}
	line, err := c.readLine()
	if err == nil && line != "PONG" {
		err = fmt.Errorf("PING = %q, want PONG", line)
	}
	return err
}

// readLine returns the next protocol line, answering the server's PINGs.
func (c *natsConn) readLine() (string, error) {
	for {
		line, err := c.br.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimSuffix(line, "\r\n")
		switch {
		case line == "PING":
			if _, err := io.WriteString(c, "PONG\r\n"); err != nil {
				return "", err
			}
		case strings.HasPrefix(line, "-ERR"):
			return "", errors.New(line)
		default:
			return line, nil
		}
	}
}

// request publishes payload to subject with a fresh reply subject and
// returns the first reply.
func (c *natsConn) request(subject, payload string) ([]byte, error) {
	c.inbox++
	inbox := fmt.Sprintf("_INBOX.testkit.%d", c.inbox)
	if _, err := fmt.Fprintf(c, "SUB %s %d\r\nPUB %s %s %d\r\n%s\r\n", inbox, c.inbox, subject, inbox, len(payload), payload); err != nil {
		return nil, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		// MSG <subject> <sid> [reply-to] <#bytes>
		fields := strings.Fields(line)
		if len(fields) < 4 || fields[0] != "MSG" {
			continue // PONG, +OK
		}
		n, err := strconv.Atoi(fields[len(fields)-1])
		if err != nil {
			return nil, fmt.Errorf("bad MSG line %q", line)
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.br, b); err != nil {
			return nil, err
		}
		if fields[1] == inbox {
			return b[:n], nil
		}
	}
}

// JetStream API error codes that the tests expect.
const (
	jsStreamNotFound = 10059
	jsNoMessageFound = 10037
)

// jsError is the error a JetStream API reply or publish acknowledgement
// carries.
type jsError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

func (e *jsError) Error() string {
	return fmt.Sprintf("JetStream: %s (%d, %d)", e.Description, e.Code, e.ErrCode)
}

// jsRequest sends a JetStream API request, or a message to a stream's
// subject, and decodes the reply into out unless it carries an error.
func (c *natsConn) jsRequest(subject, payload string, out any) error {
	reply, err := c.request(subject, payload)
	if err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	var status struct {
		Error *jsError `json:"error"`
	}
	if err := json.Unmarshal(reply, &status); err != nil {
		return fmt.Errorf("%s: reply %q: %w", subject, reply, err)
	}
	if status.Error != nil {
		return fmt.Errorf("%s: %w", subject, status.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply, out)
}

// eventually retries fn for up to 10s.
func eventually(t *testing.T, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
