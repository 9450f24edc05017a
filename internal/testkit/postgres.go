package testkit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Postgres is a PostgreSQL server listening on a loopback port, with a
// fresh cluster in its own temporary directory. User postgres is trusted
// without a password. Data survives Stop, Kill and Restart. All methods are
// safe for concurrent use.
type Postgres struct {
	server
	addr   string
	binDir string

	// A standby's, from StartStandby.
	primary *Postgres
	cluster string // its cluster_name, which its primary's WAL sender reports as application_name

	mu     sync.Mutex
	sender int // pid of the primary's WAL sender that PauseReplication froze
}

// PostgresOptions configure StartPostgres. A nil *PostgresOptions uses the
// defaults.
type PostgresOptions struct {
	// StartTimeout bounds initdb, and the wait for the server to accept
	// queries on start and on every Restart.
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra postgres command-line arguments, such as
	// "-c", "log_statement=all".
	// Default: none.
	Args []string
}

func (o *PostgresOptions) init() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
}

// StartPostgres runs initdb into a new temporary directory, starts postgres
// on a free loopback port and waits until it accepts queries. The caller
// must Close it. The binaries come from the directory of postgres on PATH,
// else from the newest /usr/lib/postgresql/*/bin. When the test runs as
// root, which initdb and postgres refuse, they run as user postgres, or
// nobody if there is none. The error wraps ErrNotInstalled when the
// binaries are missing.
func StartPostgres(opts *PostgresOptions) (*Postgres, error) {
	var o PostgresOptions
	if opts != nil {
		o = *opts
	}
	o.init()
	pg, cluster, err := newPostgres(o.StartTimeout)
	if err != nil {
		return nil, err
	}
	if err := pg.initdb(o.StartTimeout); err != nil {
		pg.p.close()
		return nil, err
	}
	if err := pg.start(cluster, o.Args); err != nil {
		pg.p.close()
		return nil, err
	}
	return pg, nil
}

// newPostgres makes the handle of a server in a new temporary directory,
// not yet started, and returns it with its cluster name.
func newPostgres(timeout time.Duration) (*Postgres, string, error) {
	binDir, err := postgresBinDir()
	if err != nil {
		return nil, "", err
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, "", err
	}
	// Not under t.TempDir: its parents are private to the test's user.
	dir, err := os.MkdirTemp("", "testkit-postgres-*")
	if err != nil {
		return nil, "", fmt.Errorf("start postgres: %w", err)
	}
	pg := &Postgres{binDir: binDir}
	cluster := filepath.Base(dir) // unique; tells our server from others
	pg.p = &process{
		name:    "postgres",
		path:    filepath.Join(binDir, "postgres"),
		dir:     dir,
		logPath: filepath.Join(dir, "postgres.log"),
		env:     environ("PG"),
		cred:    cred,
		stopSig: syscall.SIGINT, // fast shutdown: does not wait for clients
		timeout: timeout,
		ready: func(ctx context.Context, _ int) error {
			conn, err := pg.connect(ctx)
			if err != nil {
				return err
			}
			defer conn.Close(ctx)
			var name string
			if err := conn.QueryRow(ctx, "SHOW cluster_name").Scan(&name); err != nil {
				return err
			}
			if name != cluster {
				return fmt.Errorf("server at %s is cluster %q, not %q", pg.addr, name, cluster)
			}
			return nil
		},
	}
	pg.version = binaryVersion(pg.p.path, cred)
	if err := pg.makeDirs(); err != nil {
		pg.p.close()
		return nil, "", err
	}
	return pg, cluster, nil
}

// start starts the server on the cluster in its data directory, on a free
// port, and waits until it answers as that cluster.
func (pg *Postgres) start(cluster string, extra []string) error {
	data := filepath.Join(pg.p.dir, "data")
	sockets := filepath.Join(pg.p.dir, "sockets")
	return pg.p.startFresh(1, func(ports []int) []string {
		port := strconv.Itoa(ports[0])
		pg.addr = net.JoinHostPort("127.0.0.1", port)
		args := []string{
			"-D", data,
			"-p", port,
			"-k", sockets,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "cluster_name=" + cluster,
			// Commits still reach the kernel before they return, so data
			// survives Kill; only a crash of the machine would lose it.
			// (synchronous_commit=off would lose recent commits on Kill.)
			"-c", "fsync=off",
			"-c", "full_page_writes=off",
			"-c", "max_connections=300",
			"-c", "shared_buffers=64MB",
		}
		return append(args, extra...)
	})
}

// makeDirs creates the sockets directory and hands it, and the server's
// directory, to the user the server runs as.
func (pg *Postgres) makeDirs() error {
	dir := pg.p.dir
	if err := os.Mkdir(filepath.Join(dir, "sockets"), 0o700); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	if cred := pg.p.cred; cred != nil {
		for _, d := range []string{dir, filepath.Join(dir, "sockets")} {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				return fmt.Errorf("start postgres: %w", err)
			}
		}
	}
	return nil
}

// initdb creates the cluster in the data directory, owned by the user the
// server runs as. Under Main, the first server of the test binary runs
// initdb into a template directory and every server copies it, which
// costs a tenth of initdb (a busy machine made initdb take seconds, once
// per private server); Main removes the template at the end. Elsewhere,
// each server runs initdb.
func (pg *Postgres) initdb(timeout time.Duration) error {
	data := filepath.Join(pg.p.dir, "data")
	if !mainRunning.Load() {
		return pg.runInitdb(timeout, data)
	}
	clusterTemplate.once.Do(func() {
		clusterTemplate.dir, clusterTemplate.err = pg.makeTemplate(timeout)
	})
	if clusterTemplate.err != nil {
		return clusterTemplate.err
	}
	// cp -a keeps the owner, the modes (postgres refuses a data directory
	// that others can read) and the symbolic links of the cluster.
	out, err := exec.Command("cp", "-a", filepath.Join(clusterTemplate.dir, "data"), data).CombinedOutput()
	if err != nil {
		return fmt.Errorf("copy the template cluster: %w: %s", err, out)
	}
	return nil
}

// clusterTemplate is the cluster that initdb made once for the test
// binary, which new servers copy.
var clusterTemplate struct {
	once sync.Once
	dir  string // holds data
	err  error
}

// makeTemplate runs initdb into a new temporary directory, to be copied,
// and has Main remove it.
func (pg *Postgres) makeTemplate(timeout time.Duration) (string, error) {
	dir, err := os.MkdirTemp("", "testkit-postgres-template-*")
	if err != nil {
		return "", fmt.Errorf("initdb template: %w", err)
	}
	closersMu.Lock()
	closers = append(closers, func() error { return os.RemoveAll(dir) })
	closersMu.Unlock()
	if cred := pg.p.cred; cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", fmt.Errorf("initdb template: %w", err)
		}
	}
	if err := pg.runInitdb(timeout, filepath.Join(dir, "data")); err != nil {
		return "", err
	}
	return dir, nil
}

// runInitdb creates a cluster in data, owned by the user the server runs
// as.
func (pg *Postgres) runInitdb(timeout time.Duration, data string) error {
	return pg.run(timeout, "initdb",
		"-D", data,
		"-U", "postgres",
		"--auth=trust",
		"-E", "UTF8",
		"--locale=C",
		"--no-sync",
	)
}

// run runs one of the server's tools from its binary directory, as the
// server's user, with its output in the server's log.
func (pg *Postgres) run(timeout time.Duration, tool string, args ...string) error {
	log, err := os.OpenFile(pg.p.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	defer log.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(pg.binDir, tool), args...)
	cmd.Dir = pg.p.dir
	cmd.Env = pg.p.env
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr(pg.p.cred)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w; log tail:\n%s", tool, err, pg.p.logTail())
	}
	return nil
}

// Addr returns the server's address, "127.0.0.1:port". It stays the same
// across Restart.
func (pg *Postgres) Addr() string { return pg.addr }

// URL returns the URL of database postgres as user postgres,
// "postgres://postgres@127.0.0.1:port/postgres?sslmode=disable".
func (pg *Postgres) URL() string { return pg.databaseURL("postgres") }

// CreateDatabase creates database name and returns its URL, so that a test
// can work in isolation on a shared server. The name is used as given
// (quoted); creating a database that exists is an error, which wraps the
// server's *pgconn.PgError (SQLSTATE 42P04).
func (pg *Postgres) CreateDatabase(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("create database %q: invalid name", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pg.connect(ctx)
	if err != nil {
		return "", fmt.Errorf("create database %q: %w", name, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %q: %w", name, err)
	}
	return pg.databaseURL(name), nil
}

// CloneDatabase creates database name as a copy of database template
// (CREATE DATABASE … TEMPLATE) and returns its URL: a test that needs a
// migrated schema copies one migrated once, instead of migrating afresh.
// PostgreSQL refuses to copy a database that has sessions, so a copy made
// while the template's last sessions are still ending is retried until
// they are gone or 30 seconds have passed. Copies of one template may be
// made concurrently; nothing may write to the template meanwhile.
func (pg *Postgres) CloneDatabase(name, template string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) || template == "" || strings.ContainsRune(template, 0) {
		return "", fmt.Errorf("clone database %q from %q: invalid name", name, template)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pg.connect(ctx)
	if err != nil {
		return "", fmt.Errorf("clone database %q from %q: %w", name, template, err)
	}
	defer conn.Close(ctx)
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	for {
		_, err := conn.Exec(ctx, sql)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" { // object_in_use
			if err != nil {
				return "", fmt.Errorf("clone database %q from %q: %w", name, template, err)
			}
			return pg.databaseURL(name), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("clone database %q from %q: the template still has sessions: %w", name, template, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// connect opens a connection to database postgres as user postgres, which
// the server trusts.
func (pg *Postgres) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(pg.URL())
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = "testkit"
	return pgx.ConnectConfig(ctx, cfg)
}

func (pg *Postgres) databaseURL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     pg.addr,
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// postgresBinDir finds the directory holding initdb and postgres: that of
// postgres on PATH (through symlinks), else the newest Debian-style
// /usr/lib/postgresql/<version>/bin, which is not on PATH.
func postgresBinDir() (string, error) {
	var dirs []string
	if path, err := exec.LookPath("postgres"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		dirs = append(dirs, filepath.Dir(path))
	}
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(versioned, func(a, b string) int {
		return compareVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	for _, dir := range append(dirs, versioned...) {
		if isExecutable(filepath.Join(dir, "postgres")) && isExecutable(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	return "", notInstalled("postgres and initdb (on PATH or in /usr/lib/postgresql/*/bin)", "postgresql")
}

// compareVersions orders dotted version numbers such as "9.6" and "15".
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// postgresCredential returns the user to run PostgreSQL's binaries as: nil
// (ourselves) unless we are root, else postgres, else nobody.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var errs []error
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		uid, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
		}
		gid, err := strconv.ParseUint(u.Gid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("start postgres: running as root and no unprivileged user to run it as: %w", errors.Join(errs...))
}
