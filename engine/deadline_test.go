package engine_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

// The bounds that TestDeadlineSilentDatabase checks: every call answers
// within its deadline plus margin, whatever the database does, and the
// store answers again within recovery of Heal. recovery is a liveness
// bound, not a speed: a store stuck on its dead connections would wait
// for TCP to give up, minutes; a recovery on a loaded machine has taken
// just over a second.
const (
	deadline = 2 * time.Second
	margin   = time.Second
	recovery = 5 * time.Second
	// settleBound is how long a failed key's retries may answer
	// unavailable after Heal: on a machine busy with other tests, a retry
	// right after Heal has passed its deadline too.
	settleBound = 30 * time.Second
)

// attempt is one call of a worker in TestDeadlineSilentDatabase.
type attempt struct {
	key        string
	start, end time.Time
	err        error
}

// TestDeadlineSilentDatabase runs reservations under every strategy
// against PostgreSQL through a proxy, and blackholes the proxy while they
// are in flight: the database neither answers nor resets. Every call must
// answer within its deadline plus the margin, with success or
// EUnavailable, never an internal error; every call made while the
// database is silent is EUnavailable. After Heal the store answers again
// within recovery, a retry of each failed key resolves it without
// applying any key twice, and the ledger balances.
func TestDeadlineSilentDatabase(t *testing.T) {
	t.Parallel()
	// A server of the test's own: while the proxy is silent, transactions
	// whose client is gone stay open on the server and hold back every
	// reader of events on it (its xmin), which would slow the other tests.
	pg := testkit.NewPostgres(t)
	for _, strategy := range strategies {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			dbURL := teststore.PostgresURLOn(t, pg)
			// Last of all, end what the blackhole left on the server: a
			// transaction whose client is gone holds back every reader
			// of events on the server (its xmin) until it ends.
			t.Cleanup(func() { endBackends(t, dbURL) })
			proxy := testkit.NewProxy(t, pg.Addr())
			u, err := url.Parse(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			u.Host = proxy.Addr()
			s, err := postgres.Open(sys(t), u.String(), &postgres.Options{MaxConns: 16})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.Migrate(sys(t)); err != nil {
				t.Fatal(err)
			}
			en := newEnvOn(t, s, strategy, func(o *engine.Options) { o.Timeout = deadline })
			en.location("w1", 0, 0)
			en.stock("a", "w1", 1_000_000)

			// Workers reserve one unit each per call, each call with a key
			// of its own, until stop.
			const workers = 8
			var (
				mu       sync.Mutex
				attempts []attempt
				ok       atomic.Int64
				stop     = make(chan struct{})
				wg       sync.WaitGroup
				silentAt atomic.Pointer[time.Time]
				// after counts the workers that finished a call they
				// started once the database was silent.
				after atomic.Int64
			)
			for w := range workers {
				wg.Go(func() {
					counted := false
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						a := attempt{key: fmt.Sprintf("w%d-%d", w, i), start: time.Now()}
						ctx, cancel := context.WithTimeout(sys(t), deadline)
						_, a.err = en.eng.Reserve(ctx, lines(one("a", 1)), key(a.key, "h"))
						cancel()
						a.end = time.Now()
						mu.Lock()
						attempts = append(attempts, a)
						mu.Unlock()
						if a.err == nil {
							ok.Add(1)
						}
						if at := silentAt.Load(); at != nil && a.start.After(*at) && !counted {
							counted = true
							after.Add(1)
						}
					}
				})
			}
			wait(t, "the workers are reserving", func() bool { return ok.Load() >= 2*workers })
			proxy.Blackhole()
			at := time.Now()
			silentAt.Store(&at)
			wait(t, "every worker made a call while the database was silent", func() bool { return after.Load() == workers })
			close(stop)
			wg.Wait()

			proxy.Heal()
			healed := time.Now()
			wait(t, "the store answers after Heal", func() bool {
				ctx, cancel := context.WithTimeout(sys(t), deadline)
				defer cancel()
				return s.Ping(ctx) == nil
			})
			recovered := time.Since(healed)
			t.Logf("%d calls; the store answered %v after Heal", len(attempts), recovered.Round(time.Millisecond))
			if recovered > recovery {
				t.Errorf("the store answered %v after Heal, want within %v", recovered, recovery)
			}

			var (
				keys     = map[string]bool{} // every key made, true once it succeeded
				inFlight int                 // calls caught by the blackhole
				longest  time.Duration
			)
			for _, a := range attempts {
				took := a.end.Sub(a.start)
				longest = max(longest, took)
				if took > deadline+margin {
					t.Errorf("call %s answered after %v, beyond its deadline %v plus %v: %v", a.key, took, deadline, margin, a.err)
				}
				code := stockade.ErrorCode(a.err)
				switch {
				case a.err != nil && code != stockade.EUnavailable:
					t.Errorf("call %s: %v (code %q), want success or %s", a.key, a.err, code, stockade.EUnavailable)
				case a.start.After(at) && a.err == nil:
					t.Errorf("call %s, started while the database was silent, succeeded", a.key)
				case a.start.Before(at) && a.end.After(at) && a.err != nil:
					inFlight++
				}
				keys[a.key] = a.err == nil
			}
			t.Logf("longest call %v; %d calls in flight when the database went silent", longest.Round(time.Millisecond), inFlight)
			if inFlight == 0 {
				t.Errorf("no call was in flight when the database went silent")
			}

			// Each failed key resolves on retry: the result its call
			// committed after all, or a fresh reservation. A client
			// retries an unavailable answer, as the error says to; any
			// other error fails the test.
			retries := 0
			for k, done := range keys {
				if done {
					continue
				}
				for give := time.Now().Add(settleBound); ; retries++ {
					ctx, cancel := context.WithTimeout(sys(t), deadline)
					_, err := en.eng.Reserve(ctx, lines(one("a", 1)), key(k, "h"))
					cancel()
					if err == nil {
						break
					}
					if stockade.ErrorCode(err) != stockade.EUnavailable || time.Now().After(give) {
						t.Errorf("retry of %s after Heal: %v", k, err)
						break
					}
				}
			}
			t.Logf("%d retries answered unavailable again", retries)
			if got := en.level("a", "w1").Reserved; got != int64(len(keys)) {
				t.Errorf("%d reserved, want %d: one unit per key", got, len(keys))
			}
			en.balanced()
		})
	}
}

// wait polls until cond holds, or fails the test after bound.
func wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// endBackends terminates every other session on the database at dbURL
// and waits until they are gone.
func endBackends(t *testing.T, dbURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Errorf("end the database's sessions: %v", err)
		return
	}
	defer conn.Close(ctx)
	for {
		var left int
		err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&left)
		if err != nil {
			t.Errorf("end the database's sessions: %v", err)
			return
		}
		if left == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // the server's sessions, polled
	}
}
