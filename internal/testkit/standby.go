package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// StandbyOptions configure StartStandby. A nil *StandbyOptions starts an
// asynchronous standby with the defaults.
type StandbyOptions struct {
	// Synchronous makes the primary wait for the standby at every commit:
	// the primary's synchronous_standby_names names it, and StartStandby
	// returns once the primary reports it as its synchronous standby.
	// Default: asynchronous.
	Synchronous bool
	// StartTimeout bounds the base backup, and each wait for the standby
	// to answer and to stream.
	// Default: 30s.
	StartTimeout time.Duration
	// Args are extra postgres command-line arguments for the standby.
	// Default: none.
	Args []string
}

// StartStandby copies pg's cluster with pg_basebackup -R into a new
// temporary directory and starts it as a hot standby that streams pg's
// WAL; it returns once the primary sees the standby streaming. The
// standby is a Postgres of its own, with its own port: it answers reads,
// refuses writes until Promote, and the caller must Close it. A
// synchronous standby is named in pg's synchronous_standby_names, which
// stays set until pg is closed: with the standby stopped or its
// replication paused, pg's commits wait.
func (pg *Postgres) StartStandby(opts *StandbyOptions) (*Postgres, error) {
	var o StandbyOptions
	if opts != nil {
		o = *opts
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
	sb, cluster, err := newPostgres(o.StartTimeout)
	if err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(pg.addr)
	if err != nil {
		sb.p.close()
		return nil, err
	}
	// -R writes primary_conninfo and standby.signal; the standby's
	// walreceiver names itself after its cluster_name, which is how
	// synchronous_standby_names finds it.
	if err := sb.run(o.StartTimeout, "pg_basebackup",
		"-D", filepath.Join(sb.p.dir, "data"),
		"-h", host, "-p", port, "-U", "postgres",
		"-R", "-X", "stream", "-c", "fast", "--no-sync",
	); err != nil {
		sb.p.close()
		return nil, fmt.Errorf("start standby: %w", err)
	}
	if err := sb.start(cluster, o.Args); err != nil {
		sb.p.close()
		return nil, fmt.Errorf("start standby: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.StartTimeout)
	defer cancel()
	if err := pg.follow(ctx, cluster, o.Synchronous); err != nil {
		sb.p.close()
		return nil, fmt.Errorf("start standby: %w", err)
	}
	sb.primary, sb.cluster = pg, cluster
	return sb, nil
}

// follow waits until the standby named cluster streams from pg, after
// making it pg's synchronous standby if sync is set.
func (pg *Postgres) follow(ctx context.Context, cluster string, sync bool) error {
	conn, err := pg.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	want := "async"
	if sync {
		want = "sync"
		// ALTER SYSTEM takes no parameters; the name is quoted as an
		// identifier inside the string literal.
		names := pgx.Identifier{cluster}.Sanitize()
		if _, err := conn.Exec(ctx, "ALTER SYSTEM SET synchronous_standby_names = "+quoteLiteral(names)); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
			return err
		}
	}
	for {
		var state, syncState string
		err := conn.QueryRow(ctx, `SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1`, cluster).Scan(&state, &syncState)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if state == "streaming" && syncState == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("standby %s not streaming as %s (state %q, sync_state %q): %w", cluster, want, state, syncState, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Promote ends the standby's recovery and waits until it takes writes.
// Its replication, if paused, is resumed first.
func (pg *Postgres) Promote() error {
	if err := pg.ResumeReplication(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pg.p.timeout)
	defer cancel()
	conn, err := pg.connect(ctx)
	if err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	defer conn.Close(ctx)
	var promoted bool
	if err := conn.QueryRow(ctx, "SELECT pg_promote(true, $1)", int(pg.p.timeout/time.Second)).Scan(&promoted); err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	if !promoted {
		return errors.New("promote: the standby did not leave recovery in time")
	}
	return nil
}

// PauseReplication freezes, with SIGSTOP, the primary's WAL sender that
// streams to this standby: from then on the standby receives nothing the
// primary writes (a synchronous one confirms nothing, so the primary's
// commits wait), and what the primary writes meanwhile is lost if it dies
// before ResumeReplication or Promote. (Freezing the standby's receiver
// instead would lose nothing: the kernel keeps what the sender wrote.)
// It is an error on a server that is not a standby, or paused twice.
func (pg *Postgres) PauseReplication() error {
	if pg.primary == nil {
		return errors.New("pause replication: not a standby")
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.sender != 0 {
		return errors.New("pause replication: already paused")
	}
	ctx, cancel := context.WithTimeout(context.Background(), pg.p.timeout)
	defer cancel()
	conn, err := pg.primary.connect(ctx)
	if err != nil {
		return fmt.Errorf("pause replication: %w", err)
	}
	defer conn.Close(ctx)
	var pid int
	err = conn.QueryRow(ctx, "SELECT pid FROM pg_stat_replication WHERE application_name = $1", pg.cluster).Scan(&pid)
	if err != nil {
		return fmt.Errorf("pause replication: no WAL sender for %s on %s: %w", pg.cluster, pg.primary.addr, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pause replication: %w", err)
	}
	pg.sender = pid
	return nil
}

// ResumeReplication continues the WAL sender that PauseReplication froze.
// It does nothing when replication is not paused, or when the sender is
// gone with its primary.
func (pg *Postgres) ResumeReplication() error {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.sender == 0 {
		return nil
	}
	err := syscall.Kill(pg.sender, syscall.SIGCONT)
	pg.sender = 0
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("resume replication: %w", err)
	}
	return nil
}

// Close resumes paused replication, so that the standby shuts down at
// once, stops the server and removes its directory.
func (pg *Postgres) Close() error {
	return errors.Join(pg.ResumeReplication(), pg.server.Close())
}

// MultiHostURL returns the URL of database on the servers, in order, as
// user postgres: libpq's and pgx's form for failover,
// "postgres://postgres@127.0.0.1:p1,127.0.0.1:p2/database?sslmode=disable",
// with target_session_attrs=read-write, so that a client connects to
// whichever server takes writes.
func MultiHostURL(database string, servers ...*Postgres) string {
	hosts := make([]string, len(servers))
	for i, s := range servers {
		hosts[i] = s.addr
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     strings.Join(hosts, ","),
		Path:     "/" + database,
		RawQuery: "sslmode=disable&target_session_attrs=read-write",
	}
	return u.String()
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := range len(s) {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}
