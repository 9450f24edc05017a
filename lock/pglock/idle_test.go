//go:build linux

package pglock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/pglock"
)

// These tests stop a holder, or cut it off, and check that the server
// frees its key after the session's idle timeout, without the holder's help.

const (
	// holderEnv makes TestHelperHolder act as a holder: its value is the
	// database URL.
	holderEnv = "PGLOCK_TEST_HOLDER_URL"
	// waitersEnv is how many waiters the holder's process queues behind
	// its lease, on the same key.
	waitersEnv = "PGLOCK_TEST_HOLDER_WAITERS"
	// holderTTL is the TTL of the holder's lease.
	holderTTL = 3 * time.Second
	// target is the bound the server must free a stopped holder's key by:
	// its TTL plus a margin of 2 seconds. With the default CheckInterval,
	// IdleTimeout(holderTTL) is within it.
	target = holderTTL + 2*time.Second
	// reportPrefix marks the holder's reports in its output.
	reportPrefix = "holder: "
)

// TestHelperHolder is not a test of its own: started by startHolder in a
// process of its own, it holds the key "paused" with auto-renew and
// default options, reports "token N", queues as many waiters for the key
// as startHolder asked, and once the lease ends reports "lost true"
// (false if it ended otherwise).
func TestHelperHolder(t *testing.T) {
	t.Parallel()
	url := os.Getenv(holderEnv)
	if url == "" {
		t.Skip("a holder process for TestPausedHolder")
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	le, err := pglock.New(pool, nil).Acquire(ctx, "paused", lock.WithTTL(holderTTL), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%stoken %d\n", reportPrefix, le.Token())
	waiters, _ := strconv.Atoi(os.Getenv(waitersEnv))
	for range waiters {
		go func() {
			if w, err := pglock.New(pool, nil).Acquire(ctx, "paused", lock.WithTTL(holderTTL), lock.WithWait(bound)); err == nil {
				w.Release(ctx)
			}
		}()
	}
	select {
	case <-le.Done():
		fmt.Printf("%slost %v\n", reportPrefix, errors.Is(le.Err(), lock.ErrLost))
	case <-ctx.Done():
		t.Fatalf("lease still held after %v", bound)
	}
}

// holder is a TestHelperHolder process.
type holder struct {
	cmd     *exec.Cmd
	reports chan string // its reports, without the prefix; closed at its exit
}

// startHolder starts a holder process on the database at url, which
// queues waiters more waiters for the key behind its lease. It is killed
// when the test ends, and its other output logged.
func startHolder(t *testing.T, url string, waiters int) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$", "-test.v")
	cmd.Env = append(os.Environ(), holderEnv+"="+url, fmt.Sprintf("%s=%d", waitersEnv, waiters))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var other strings.Builder
	cmd.Stderr = &other
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, reports: make(chan string, 16)}
	var otherOut strings.Builder
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(h.reports)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if r, ok := strings.CutPrefix(sc.Text(), reportPrefix); ok {
				h.reports <- r
			} else {
				otherOut.WriteString(sc.Text() + "\n")
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() // also when stopped
		<-read
		cmd.Wait()
		if t.Failed() {
			t.Logf("holder process output:\n%s%s", &otherOut, &other)
		}
	})
	return h
}

// report returns the holder's next report, which must start with what.
func (h *holder) report(t *testing.T, what string) string {
	t.Helper()
	select {
	case r, ok := <-h.reports:
		if !ok {
			t.Fatalf("holder exited before reporting %q", what)
		}
		rest, ok := strings.CutPrefix(r, what+" ")
		if !ok {
			t.Fatalf("holder reported %q; want %q", r, what)
		}
		return rest
	case <-time.After(bound):
		t.Fatalf("holder did not report %q within %v", what, bound)
	}
	return ""
}

func (h *holder) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := h.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%v to the holder: %v", sig, err)
	}
}

// checkExclusion samples pg_locks until the test ends, and fails the test
// if the server ever shows two sessions granted lock id.
func checkExclusion(t *testing.T, admin *pgxpool.Pool, id int64) {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var n int
			err := admin.QueryRow(context.Background(), `SELECT count(*)`+lockRows+` AND granted`, id).Scan(&n)
			if err == nil && n > 1 {
				t.Errorf("pg_locks shows %d sessions granted lock %d", n, id)
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// TestPausedHolder stops a holder's process (SIGSTOP) while it holds a key
// with auto-renew, a waiter queued behind it, and in one case three more
// waiters of the holder's own process queued ahead of that one. Nothing in
// the stopped process can release or leave anything, but the server ends
// the holder's session once it has been idle for IdleTimeout, which frees
// the key, and the stopped waiters' turns in the queue have run out by
// then (WaitSlice): the live waiter gets the key within the TTL plus 2
// seconds of the pause, with a larger token. Resumed, the holder learns
// that its lease was lost.
func TestPausedHolder(t *testing.T) {
	t.Parallel()
	if d := pglock.IdleTimeout(holderTTL, nil); d > target {
		t.Fatalf("IdleTimeout(%v) = %v; want at most %v", holderTTL, d, target)
	}
	for _, tc := range []struct {
		name    string
		waiters int // the holder's own, stopped with it
	}{{"alone", 0}, {"with its waiters", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := newDatabase(t, testkit.SharedPostgres(t))
			admin := newPool(t, url, 2)
			id := pglock.LockID("paused", nil)
			checkExclusion(t, admin, id)

			h := startHolder(t, url, tc.waiters)
			held, err := strconv.ParseUint(h.report(t, "token"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, "the holder's waiters are not queued on the server", func() bool { return lockCount(t, admin, id, false) == tc.waiters })
			// Pause it in its stride, with checks and renewals going, not
			// just after the grant.
			time.Sleep(holderTTL / 2)
			ctx := t.Context()
			type result struct {
				le  lock.Lease
				err error
			}
			granted := make(chan result, 1)
			go func() {
				le, err := pglock.New(newPool(t, url, 2), nil).Acquire(ctx, "paused", lock.WithWait(bound))
				granted <- result{le, err}
			}()
			eventually(t, "the waiter is not queued on the server", func() bool { return lockCount(t, admin, id, false) == tc.waiters+1 })

			h.signal(t, syscall.SIGSTOP)
			paused := time.Now()
			r := <-granted
			freed := time.Since(paused)
			if r.err != nil {
				t.Fatalf("Acquire behind the paused holder = %v", r.err)
			}
			t.Logf("key free %v after the pause (IdleTimeout %v)", freed, pglock.IdleTimeout(holderTTL, nil))
			if freed > target {
				t.Errorf("key free %v after the pause; want at most %v", freed, target)
			}
			// The holder's last statement came at most a CheckInterval
			// (default 1s) before the pause, so the server waited at least
			// its TTL.
			if floor := holderTTL - time.Second; freed < floor {
				t.Errorf("key free %v after the pause; the idle timeout should not end a session before %v", freed, floor)
			}
			if r.le.Token() <= held {
				t.Errorf("waiter's token %d not larger than the paused holder's %d", r.le.Token(), held)
			}

			h.signal(t, syscall.SIGCONT)
			if lost := h.report(t, "lost"); lost != "true" {
				t.Errorf("resumed holder's lease ended with ErrLost = %s; want true", lost)
			}
			if err := r.le.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// blackhole is a TCP proxy to a server that can stop forwarding anything,
// in both directions, without closing a connection: a network partition
// as the two ends see it.
type blackhole struct {
	ln   net.Listener
	cut  atomic.Bool
	mu   sync.Mutex
	open []net.Conn
	wg   sync.WaitGroup
}

// newBlackhole returns a proxy to upstream, closed when the test ends.
func newBlackhole(t *testing.T, upstream string) *blackhole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackhole{ln: ln}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.open = append(p.open, c, u)
			p.mu.Unlock()
			p.wg.Go(func() { p.pipe(u, c) })
			p.wg.Go(func() { p.pipe(c, u) })
		}
	})
	t.Cleanup(p.close)
	return p
}

// pipe copies from src to dst until src ends, dropping what it reads once
// cut. A cut pipe does not pass the end on either.
func (p *blackhole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.cut.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			if !p.cut.Load() {
				dst.Close()
			}
			return
		}
	}
}

func (p *blackhole) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.open {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestPartitionedHolder cuts a holder off from the server without closing
// its connection. The holder first refreshed its lease from a long TTL to
// a short one, which shortens its session's idle timeout too. Its own
// deadline declares the lease lost; the server hears nothing, ends the idle
// session after IdleTimeout, and grants the key to the waiter: within the
// TTL plus 2 seconds of the cut, and only after the holder's Done closed.
func TestPartitionedHolder(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	id := pglock.LockID("cut", nil)
	checkExclusion(t, admin, id)

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	p := newBlackhole(t, net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))))
	proxyHost, proxyPort, _ := net.SplitHostPort(p.ln.Addr().String())
	port, _ := strconv.Atoi(proxyPort)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = proxyHost, uint16(port)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	t.Cleanup(p.close) // before the pool closes: a cleanup stuck behind the cut ends at once
	ctx := t.Context()

	held, err := pglock.New(pool, nil).Acquire(ctx, "cut", lock.WithTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := held.Refresh(ctx, holderTTL); err != nil {
		t.Fatal(err)
	}
	type result struct {
		le  lock.Lease
		err error
	}
	granted := make(chan result, 1)
	go func() {
		le, err := pglock.New(newPool(t, url, 2), nil).Acquire(ctx, "cut", lock.WithWait(bound))
		granted <- result{le, err}
	}()
	eventually(t, "the waiter is not queued on the server", func() bool { return lockCount(t, admin, id, false) == 1 })

	p.cut.Store(true)
	cut := time.Now()
	r := <-granted
	freed := time.Since(cut)
	if r.err != nil {
		t.Fatalf("Acquire behind the cut-off holder = %v", r.err)
	}
	t.Logf("key free %v after the cut (IdleTimeout %v)", freed, pglock.IdleTimeout(holderTTL, nil))
	if freed > target {
		t.Errorf("key free %v after the cut; want at most %v (the idle timeout of the refreshed TTL)", freed, target)
	}
	select {
	case <-held.Done():
	default:
		t.Errorf("the waiter was granted the key while the cut-off holder's lease was not yet done")
	}
	mustBeLost(t, held)
	if r.le.Token() <= held.Token() {
		t.Errorf("waiter's token %d not larger than the cut-off holder's %d", r.le.Token(), held.Token())
	}
	if err := r.le.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLiveHolderKeepsKey holds a key with auto-renew for several TTLs and
// more than twice its idle timeout: the lease's own statements keep its
// session from ever being idle that long. Its connection then goes back to
// the pool with the server's default idle_session_timeout, after a release
// and after a lease that expired.
func TestLiveHolderKeepsKey(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	pool := newPool(t, url, 1)
	ctx := t.Context()
	var before string
	if err := pool.QueryRow(ctx, "SHOW idle_session_timeout").Scan(&before); err != nil {
		t.Fatal(err)
	}
	l := pglock.New(pool, nil)
	id := pglock.LockID("live", nil)

	le, err := l.Acquire(ctx, "live", lock.WithTTL(ttl), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := admin.QueryRow(ctx, `SELECT pid`+lockRows+` AND granted`, id).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	hold := 2*pglock.IdleTimeout(ttl, nil) + 500*time.Millisecond
	start := time.Now()
	select {
	case <-le.Done():
		t.Fatalf("live lease ended after %v: %v", time.Since(start), le.Err())
	case <-time.After(hold):
	}
	var still int
	if err := admin.QueryRow(ctx, `SELECT count(*)`+lockRows+` AND granted AND pid = $2`, id, pid).Scan(&still); err != nil {
		t.Fatal(err)
	}
	if still != 1 {
		t.Fatalf("after %v the lease's session (pid %d) no longer holds the lock", hold, pid)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatal(err)
	}
	checkReset := func(after string) {
		t.Helper()
		var got string
		var gotPid int
		if err := pool.QueryRow(ctx, "SELECT current_setting('idle_session_timeout'), pg_backend_pid()").Scan(&got, &gotPid); err != nil {
			t.Fatal(err)
		}
		if got != before || gotPid != pid {
			t.Errorf("after %s: backend %d with idle_session_timeout %s in the pool; want backend %d back with %s", after, gotPid, got, pid, before)
		}
	}
	checkReset("Release")

	expired, err := l.Acquire(ctx, "live", lock.WithTTL(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	mustBeLost(t, expired)
	eventually(t, "the expired lease's connection is not back in the pool", func() bool { return pool.Stat().AcquiredConns() == 0 })
	checkReset("an expired lease")
}
