package pglock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/pglock"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// bound only turns a hang into a failure; no test depends on speed.
const bound = 20 * time.Second

var databases atomic.Int64

// newDatabase creates a database for the test on srv and returns its URL.
func newDatabase(t testing.TB, srv *testkit.Postgres) string {
	t.Helper()
	url, err := srv.CreateDatabase(fmt.Sprintf("pglock_%d", databases.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// newPool returns a pool of up to maxConns connections to url, closed when
// the test ends (after the leases it holds are released).
func newPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// lockRows selects the advisory locks on lock id $1 in the current
// database, as pg_locks shows a bigint advisory lock.
const lockRows = `
	FROM pg_locks
	WHERE locktype = 'advisory'
	  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	  AND classid = (($1::bigint >> 32) & 4294967295)::oid
	  AND objid = ($1::bigint & 4294967295)::oid
	  AND objsubid = 1`

// lockCount returns how many sessions hold (granted) or wait for
// (!granted) lock id.
func lockCount(t *testing.T, db *pgxpool.Pool, id int64, granted bool) int {
	t.Helper()
	var n int
	if err := db.QueryRow(t.Context(), `SELECT count(*)`+lockRows+` AND granted = $2`, id, granted).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// eventually polls cond until it holds, or fails the test after bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", bound, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// terminateHolder ends the session holding lock id with
// pg_terminate_backend, as an operator would, and returns once that
// session has freed the lock (a waiter may hold it by then).
func terminateHolder(t *testing.T, admin *pgxpool.Pool, id int64) {
	t.Helper()
	var pid int
	err := admin.QueryRow(t.Context(), `SELECT pid`+lockRows+` AND granted`, id).Scan(&pid)
	if errors.Is(err, pgx.ErrNoRows) {
		// The server ended the holder's session already: on a busy
		// machine a renewal can come later than the session's idle
		// timeout (the lease's TTL). The lock is gone behind the
		// holder's back, which is what a revoke does.
		t.Logf("no session holds lock %d: its holder's session has ended already", id)
		return
	}
	if err != nil {
		t.Fatalf("holder of lock %d: %v", id, err)
	}
	var ok bool
	if err := admin.QueryRow(t.Context(), `SELECT pg_terminate_backend($1, 5000)`, pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
	eventually(t, "the terminated holder still holds its lock", func() bool {
		var n int
		if err := admin.QueryRow(t.Context(), `SELECT count(*)`+lockRows+` AND pid = $2`, id, pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

// mustBeLost waits (bounded) for le to end and fails unless it was lost.
func mustBeLost(t *testing.T, le lock.Lease) {
	t.Helper()
	select {
	case <-le.Done():
	case <-time.After(bound):
		t.Fatalf("lease on %q not lost after %v", le.Key(), bound)
	}
	if err := le.Err(); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("lease on %q: Err() = %v; want ErrLost", le.Key(), err)
	}
}

// events records observer events.
type events chan lock.Event

func (e events) Observe(ev lock.Event) { e <- ev }

func (e events) next(t *testing.T, kind lock.EventKind) lock.Event {
	t.Helper()
	timeout := time.After(bound)
	for {
		select {
		case ev := <-e:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %v event after %v", kind, bound)
		}
	}
}

// TestTerminatedBackend terminates the backend of a lease's connection from
// another session: the lease's health check notices, Done closes with
// ErrLost carrying the server's error, and the key passes to the next
// waiter at once.
func TestTerminatedBackend(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	opts := &pglock.Options{CheckInterval: 100 * time.Millisecond}
	pool := newPool(t, url, 4)
	l := pglock.New(pool, opts)
	ctx := t.Context()

	obs := make(events, 16)
	held, err := l.Acquire(ctx, "sku-1", lock.WithTTL(time.Hour), lock.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	other := pglock.New(newPool(t, url, 2), opts)
	waiter := make(chan lock.Lease, 1)
	go func() {
		le, err := other.Acquire(ctx, "sku-1")
		if err != nil {
			t.Error(err)
		}
		waiter <- le
	}()
	id := pglock.LockID("sku-1", opts)
	eventually(t, "the waiter is not queued on the server", func() bool { return lockCount(t, admin, id, false) == 1 })

	terminateHolder(t, admin, id)
	mustBeLost(t, held)
	ev := obs.next(t, lock.Lost)
	var pgErr *pgconn.PgError
	if !errors.Is(ev.Err, lock.ErrLost) || !errors.As(ev.Err, &pgErr) || pgErr.Code != "57P01" {
		t.Errorf("Lost event Err = %v; want ErrLost wrapping the server's 57P01 admin_shutdown", ev.Err)
	}
	next := <-waiter
	if next == nil {
		t.FailNow()
	}
	if next.Token() <= held.Token() {
		t.Errorf("next holder's token %d not larger than %d", next.Token(), held.Token())
	}
	if err := held.Release(ctx); !errors.Is(err, lock.ErrLost) {
		t.Errorf("Release of the terminated lease = %v; want ErrLost", err)
	}
	if err := next.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// The dead connection left the pool; the pool works.
	le, err := l.TryAcquire(ctx, "sku-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pool.Stat().TotalConns(); n != 1 {
		t.Errorf("pool has %d connections; want 1 (the dead one discarded, the new one given back)", n)
	}
}

// TestServerRestart restarts, then kills, a private server under held
// leases: they are declared lost, acquisitions work again after the
// restart (also on a pooled connection the restart closed), fencing tokens
// keep rising across it, and a dead server gives ErrUnavailable that
// reaches pgx's error.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	srv := testkit.NewPostgres(t)
	cfg, err := pgxpool.ParseConfig(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	// Hand out idle connections unchecked, so that the first acquisition
	// after the restart meets one the server closed.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	l := pglock.New(pool, &pglock.Options{CheckInterval: 100 * time.Millisecond})
	ctx := t.Context()

	plain, err := l.Acquire(ctx, "a", lock.WithTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	renewed, err := l.Acquire(ctx, "b", lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Ping(ctx); err != nil { // leaves a third connection idle
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	mustBeLost(t, plain)
	mustBeLost(t, renewed)

	for _, old := range []lock.Lease{plain, renewed} {
		le, err := l.TryAcquire(ctx, old.Key())
		if err != nil {
			t.Fatalf("TryAcquire(%q) after the restart = %v", old.Key(), err)
		}
		if le.Token() <= max(plain.Token(), renewed.Token()) {
			t.Errorf("token %d after the restart not larger than those before (%d, %d)", le.Token(), plain.Token(), renewed.Token())
		}
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}

	held, err := l.Acquire(ctx, "a", lock.WithTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	mustBeLost(t, held)
	_, err = l.TryAcquire(ctx, "a")
	var connectErr *pgconn.ConnectError
	if !errors.Is(err, lock.ErrUnavailable) || !errors.As(err, &connectErr) {
		t.Fatalf("TryAcquire with the server down = %v; want ErrUnavailable wrapping a *pgconn.ConnectError", err)
	}
}

// TestCancelledAcquire checks that a wait ended by its context leaves the
// server's lock queue while the key is still held (no waiting lock in
// pg_locks) and gives its connection back to the pool alive: the same
// backend serves the next query.
func TestCancelledAcquire(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	ctx := t.Context()
	holder, err := pglock.New(newPool(t, url, 2), nil).Acquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	id := pglock.LockID("k", nil)

	pool := newPool(t, url, 1) // the waiter's only connection
	var pid int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	l := pglock.New(pool, nil)
	tests := []struct {
		name    string
		timeout time.Duration // 0: cancel once the waiter is queued
		want    error
	}{
		{"Deadline", 200 * time.Millisecond, context.DeadlineExceeded},
		{"Cancel", 0, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wctx, cancel := context.WithCancel(ctx)
			if tc.timeout > 0 {
				wctx, cancel = context.WithTimeout(ctx, tc.timeout)
			}
			defer cancel()
			done := make(chan error, 1)
			go func() {
				le, err := l.Acquire(wctx, "k")
				if err == nil {
					le.Release(ctx)
				}
				done <- err
			}()
			if tc.timeout == 0 {
				eventually(t, "the waiter is not queued on the server", func() bool { return lockCount(t, admin, id, false) == 1 })
				cancel()
			}
			err := <-done
			if err == nil {
				t.Fatal("Acquire of a held key succeeded")
			}
			if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, tc.want) {
				t.Fatalf("Acquire = %v; want ErrNotAcquired and %v", err, tc.want)
			}
			// The server ends the wait on the cancel request; on a busy
			// machine its answer may come after abandonWait, when Acquire
			// has returned and the clean-up goes on in the background.
			// The holder still holds the key: only the cancel can empty the
			// queue.
			eventually(t, "the cancelled wait is still queued on the server", func() bool { return lockCount(t, admin, id, false) == 0 })
			var after int
			if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&after); err != nil {
				t.Fatalf("the pool after a cancelled Acquire: %v", err)
			}
			if after != pid {
				t.Errorf("backend %d after the cancelled wait; want the same connection (%d) back in the pool", after, pid)
			}
		})
	}

	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	le, err := l.TryAcquire(ctx, "k") // no ghost waiter got it first
	if err != nil {
		t.Fatal(err)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLockIDAndPrefix checks the key mapping: the id is stable, shows up
// in pg_locks as documented while held, and lockers with different
// prefixes do not exclude each other on the same key.
func TestLockIDAndPrefix(t *testing.T) {
	t.Parallel()
	if got, want := pglock.LockID("sku-1", nil), pglock.LockID("sku-1", &pglock.Options{Prefix: "lock:"}); got != want {
		t.Fatalf("LockID with the default prefix = %d; with \"lock:\" = %d", got, want)
	}
	// The first 8 bytes of SHA-256("lock:sku-1"), big-endian.
	if got, want := pglock.LockID("sku-1", nil), int64(-0x070bbaf7878b7047); got != want {
		t.Errorf("LockID(%q) = %#x; want %#x", "sku-1", got, want)
	}

	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	ctx := t.Context()
	a := pglock.New(newPool(t, url, 2), &pglock.Options{Prefix: "app-a:"})
	b := pglock.New(newPool(t, url, 2), &pglock.Options{Prefix: "app-b:"})
	la, err := a.TryAcquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if n := lockCount(t, admin, pglock.LockID("k", &pglock.Options{Prefix: "app-a:"}), true); n != 1 {
		t.Errorf("pg_locks shows %d holders of LockID(k); want 1", n)
	}
	lb, err := b.TryAcquire(ctx, "k")
	if err != nil {
		t.Fatalf("another prefix, same key: %v", err)
	}
	if _, err := pglock.New(newPool(t, url, 2), &pglock.Options{Prefix: "app-a:"}).TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrNotAcquired) {
		t.Errorf("same prefix, same key: TryAcquire = %v; want ErrNotAcquired", err)
	}
	for _, le := range []lock.Lease{la, lb} {
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTokenSequence checks that the token sequence named by Options is
// created on first use, also by several lockers at once, and that tokens
// are drawn from it.
func TestTokenSequence(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, url, 2)
	ctx := t.Context()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA locks"); err != nil {
		t.Fatal(err)
	}
	opts := &pglock.Options{Schema: "locks", Sequence: "Tokens"}

	const n = 6
	tokens := make(chan uint64, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		l := pglock.New(newPool(t, url, 2), opts)
		wg.Go(func() {
			<-start
			le, err := l.TryAcquire(ctx, fmt.Sprint("k", i))
			if err != nil {
				t.Error(err)
				tokens <- 0
				return
			}
			tokens <- le.Token()
			if err := le.Release(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	seen := map[uint64]bool{}
	for range n {
		tok := <-tokens
		if tok < 1 || tok > n || seen[tok] {
			t.Errorf("token %d; want distinct tokens 1..%d from the new sequence", tok, n)
		}
		seen[tok] = true
	}
	wg.Wait() // the releases too, before the test ends
	var last int64
	if err := admin.QueryRow(ctx, `SELECT last_value FROM locks."Tokens"`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != n {
		t.Errorf("sequence last_value = %d; want %d", last, n)
	}
}
