package pglock_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/locktest"
	"github.com/stockade/stockade/lock/pglock"
)

func TestInspector(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	opts := &pglock.Options{Prefix: "locktest:"}
	locktest.RunInspector(t, func(t *testing.T) lock.Locker {
		// A pool of its own per locker, as in TestConformance: a holder, a
		// waiter or two and the inspection's own statements.
		return pglock.New(newPool(t, url, 8), opts)
	})
}

// TestInspectKeyNames checks that a key that a session's name escapes
// shows as it is in Inspect, and a key too long for the name shows cut
// short; and that InspectKey shows either whole, with its holder's token.
func TestInspectKeyNames(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	l := pglock.New(newPool(t, url, 4), &pglock.Options{Prefix: "names:"})
	tests := []struct {
		name, key string
		// shown is how many bytes of the key Inspect shows, given the
		// holder's token; all of them if it returns -1.
		shown func(token uint64) int
	}{
		{"escaped", "escaped/café 100%\t", func(uint64) int { return -1 }},
		{"long", "long/" + strings.Repeat("x", 100), func(token uint64) int {
			// lock:lock:<token>:<key>, in the 63 bytes pg_stat_activity keeps.
			return 63 - len(fmt.Sprintf("lock:lock:%d:", token))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, err := l.Acquire(t.Context(), tc.key, lock.WithTTL(bound))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = le.Release(context.Background()) })
			want := tc.key
			if n := tc.shown(le.Token()); n >= 0 {
				want = tc.key[:n]
			}
			prefix, _, _ := strings.Cut(tc.key, "/")
			got, err := l.Inspect(t.Context(), prefix+"/")
			if err != nil || len(got) != 1 || got[0].Key != want || len(got[0].Holders) != 1 || got[0].Holders[0].Token != le.Token() {
				t.Errorf("Inspect = %+v, %v; want %q held with token %d", got, err, want, le.Token())
			}
			got, err = l.InspectKey(t.Context(), tc.key)
			if err != nil || len(got) != 1 || got[0].Key != tc.key || len(got[0].Holders) != 1 || got[0].Holders[0].Token != le.Token() {
				t.Errorf("InspectKey = %+v, %v; want %q held with token %d", got, err, tc.key, le.Token())
			}
		})
	}
}

// TestInspectOtherPrefix checks that a Locker does not show the locks of
// another Locker's Prefix.
func TestInspectOtherPrefix(t *testing.T) {
	t.Parallel()
	url := newDatabase(t, testkit.SharedPostgres(t))
	pool := newPool(t, url, 4)
	holdKey(t, pglock.New(pool, &pglock.Options{Prefix: "a:"}), "k")
	other := pglock.New(pool, &pglock.Options{Prefix: "b:"})
	if got, err := other.Inspect(t.Context(), ""); err != nil || len(got) != 0 {
		t.Errorf("Inspect with another Prefix = %+v, %v; want nothing", got, err)
	}
	if got, err := other.InspectKey(t.Context(), "k"); err != nil || len(got) != 0 {
		t.Errorf("InspectKey with another Prefix = %+v, %v; want nothing", got, err)
	}
}

// TestSessionNameReset checks that a connection goes back to the pool with
// the application_name it was opened with, however the Locker used it,
// and that while a lease or a wait pins it, pg_stat_activity shows what
// it holds or waits for.
func TestSessionNameReset(t *testing.T) {
	t.Parallel()
	dbURL := newDatabase(t, testkit.SharedPostgres(t))
	admin := newPool(t, dbURL, 2)
	opts := &pglock.Options{Prefix: "name:"}
	other := pglock.New(newPool(t, dbURL, 2), opts)

	tests := []struct {
		name string
		// use has l, whose pool has one connection, that of session pid,
		// take key and give it back.
		use func(t *testing.T, l *pglock.Locker, pid int, key string)
	}{
		{"lock released", func(t *testing.T, l *pglock.Locker, pid int, key string) {
			le, err := l.Acquire(t.Context(), key, lock.WithTTL(bound))
			if err != nil {
				t.Fatal(err)
			}
			checkSessionName(t, admin, pid, fmt.Sprintf("lock:lock:%d:%s", le.Token(), key))
			if err := le.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}},
		{"reader released", func(t *testing.T, l *pglock.Locker, pid int, key string) {
			le, err := l.AcquireShared(t.Context(), key, lock.WithTTL(bound))
			if err != nil {
				t.Fatal(err)
			}
			checkSessionName(t, admin, pid, "lock:rwlock:0:"+key)
			if err := le.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}},
		{"try refused", func(t *testing.T, l *pglock.Locker, pid int, key string) {
			holdKey(t, other, key)
			if le, err := l.TryAcquire(t.Context(), key); !errors.Is(err, lock.ErrNotAcquired) {
				t.Fatalf("TryAcquire of a held key = %v, %v; want ErrNotAcquired", le, err)
			}
		}},
		{"wait cancelled", func(t *testing.T, l *pglock.Locker, pid int, key string) {
			holdKey(t, other, key)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := l.Acquire(ctx, key)
				done <- err
			}()
			eventually(t, "the waiter is not queued", func() bool {
				return lockCount(t, admin, pglock.LockID(key, opts), false) == 1
			})
			checkSessionName(t, admin, pid, "lock:lock:0:"+key)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Acquire = %v; want context.Canceled", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pool := newPool(t, withParam(t, dbURL, "application_name", "app"), 1)
			l := pglock.New(pool, opts)
			t.Cleanup(func() { l.Close() })
			pid := sessionOf(t, pool)
			tc.use(t, l, pid, t.Name())
			// The one connection: this waits for the Locker to give it back.
			var name string
			if err := pool.QueryRow(t.Context(), `SELECT current_setting('application_name')`).Scan(&name); err != nil {
				t.Fatal(err)
			}
			if got := sessionOf(t, pool); got != pid {
				t.Fatalf("the pool's session is %d, not %d: the Locker discarded its connection", got, pid)
			}
			if name != "app" {
				t.Errorf("application_name back in the pool = %q; want %q", name, "app")
			}
		})
	}
}

// holdKey acquires key with l until the test ends.
func holdKey(t *testing.T, l *pglock.Locker, key string) {
	t.Helper()
	le, err := l.Acquire(t.Context(), key, lock.WithTTL(bound))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = le.Release(context.Background()) })
}

// sessionOf returns the pid of the session of a connection from pool.
func sessionOf(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var pid int
	if err := pool.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// checkSessionName fails the test unless pg_stat_activity shows session
// pid named want.
func checkSessionName(t *testing.T, admin *pgxpool.Pool, pid int, want string) {
	t.Helper()
	var got string
	if err := admin.QueryRow(t.Context(), `SELECT application_name FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("session %d is named %q; want %q", pid, got, want)
	}
}

// withParam returns the connection URL u with query parameter name set.
func withParam(t *testing.T, u, name, value string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := parsed.Query()
	q.Set(name, value)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}
