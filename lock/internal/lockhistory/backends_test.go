package lockhistory

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/redislock"
	"github.com/stockade/stockade/lock/redlock"
)

const clients = 4

// Holder goroutines of one process share a memlock; some sleep past their
// TTL in the critical section and must find Done closed when they wake,
// the key meanwhile granted to another.
func TestMemlock(t *testing.T) {
	t.Parallel()
	l := memlock.New(nil)
	ttl := 300 * time.Millisecond
	var ls []lock.Locker
	for range clients {
		ls = append(ls, l)
	}
	workload{
		lockers:   ls,
		opts:      []lock.Option{lock.WithTTL(ttl)},
		ttl:       ttl,
		tokens:    true,
		pause:     0.05,
		minGrants: 50,
		minLost:   1,
	}.run(t, duration(t, 5*time.Second))
}

func redisClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
}

// One redis-server, paused with SIGSTOP past the TTL and resumed, and
// killed and restarted empty once the TTL has passed. A restart that loses
// the data while a lease is still valid can grant the key twice; the
// package documents that limit, and this history does not inject it.
func TestRedislock(t *testing.T) {
	t.Parallel()
	srv := testkit.NewRedis(t)
	ttl := time.Second
	var ls []lock.Locker
	for range clients {
		c := redisClient(srv.Addr())
		l := redislock.New(c, nil)
		t.Cleanup(func() { l.Close(); c.Close() })
		ls = append(ls, l)
	}
	workload{
		lockers:   ls,
		opts:      []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()},
		ttl:       ttl,
		tokens:    true,
		minGrants: 30,
		minLost:   1,
		faults: func(ctx context.Context, t *testing.T, r *Recorder) {
			cycle(ctx, func() bool {
				if !sleep(ctx, time.Second) {
					return false
				}
				if !bitePaused(ctx, t, r, ttl+2*time.Second, srv) {
					return false
				}
				if !sleep(ctx, time.Second) {
					return false
				}
				must(t, srv.Kill())
				time.Sleep(ttl + 2*time.Second)
				must(t, srv.Restart())
				return true
			})
		},
	}.run(t, duration(t, 10*time.Second))
}

// Five redis-servers: three (a majority) paused together past the TTL, then
// two paused together, then one killed and restarted empty after the TTL. Redlock survives a minority failing; it cannot
// survive nodes that restart empty while their grants are still valid
// (see the redlock package), which is not injected. Its tokens are not
// safe fencing tokens, so only exclusion is checked.
func TestRedlock(t *testing.T) {
	t.Parallel()
	var srvs []*testkit.Redis
	for range 5 {
		srvs = append(srvs, testkit.NewRedis(t))
	}
	ttl := time.Second
	var ls []lock.Locker
	for range clients {
		var cs []redis.UniversalClient
		for _, s := range srvs {
			c := redisClient(s.Addr())
			t.Cleanup(func() { c.Close() })
			cs = append(cs, c)
		}
		l, err := redlock.New(cs, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		ls = append(ls, l)
	}
	workload{
		lockers: ls,
		opts:    []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()},
		ttl:     ttl,
		// Holdings long beside a release's round trip, so that the
		// majority, paused while a client holds, catches it holding.
		gap:       20 * time.Millisecond,
		minGrants: 30,
		minLost:   1,
		faults: func(ctx context.Context, t *testing.T, r *Recorder) {
			n := 0
			cycle(ctx, func() bool {
				if !sleep(ctx, time.Second) {
					return false
				}
				// A majority paused: no grants, and every lease lost.
				if !bitePaused(ctx, t, r, ttl+time.Second, srvs[:3]...) {
					return false
				}
				if !sleep(ctx, time.Second) {
					return false
				}
				a, b := srvs[n%5], srvs[(n+2)%5]
				n++
				pauseAll(t, a, b)
				time.Sleep(ttl + time.Second)
				resumeAll(t, a, b)
				if !sleep(ctx, time.Second) {
					return false
				}
				must(t, a.Kill())
				time.Sleep(ttl + time.Second)
				must(t, a.Restart())
				return true
			})
		},
	}.run(t, duration(t, 10*time.Second))
}

// pauser is a server the tests pause with SIGSTOP and resume.
type pauser interface {
	Pause() error
	Resume() error
}

// pauseAll pauses srvs at once, and resumeAll resumes them: one after the
// other would spread the pause over the time each takes to find a
// server's processes, and a release in between could reach them all.
func pauseAll[S pauser](t *testing.T, srvs ...S) { each(srvs, func(s S) { must(t, s.Pause()) }) }

func resumeAll[S pauser](t *testing.T, srvs ...S) { each(srvs, func(s S) { must(t, s.Resume()) }) }

// each runs fn on every server at once and waits for them all.
func each[S any](srvs []S, fn func(S)) {
	var wg sync.WaitGroup
	for _, s := range srvs {
		wg.Go(func() { fn(s) })
	}
	wg.Wait()
}

// bitePaused is bite with srvs paused for d as the fault.
func bitePaused[S pauser](ctx context.Context, t *testing.T, r *Recorder, d time.Duration, srvs ...S) bool {
	return bite(ctx, r, d, func() { pauseAll(t, srvs...) }, func() { resumeAll(t, srvs...) })
}

func pglockers(t *testing.T, srv *testkit.Postgres, opts *pglock.Options) []lock.Locker {
	var ls []lock.Locker
	for range clients {
		cfg, err := pgxpool.ParseConfig(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = 4
		pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		ls = append(ls, pglock.New(pool, opts))
	}
	return ls
}

// PostgreSQL paused with SIGSTOP, for less than the leases' check timeout
// and then for longer: leases survive a short pause or are declared lost,
// and the key passes on only once the server runs again.
func TestPglockPause(t *testing.T) {
	t.Parallel()
	srv := testkit.NewPostgres(t)
	ttl := time.Second
	opts := &pglock.Options{CheckInterval: 200 * time.Millisecond, CheckTimeout: time.Second}
	workload{
		lockers:   pglockers(t, srv, opts),
		opts:      []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()},
		ttl:       ttl,
		tokens:    true,
		minGrants: 30,
		minLost:   1,
		faults: func(ctx context.Context, t *testing.T, r *Recorder) {
			cycle(ctx, func() bool {
				if !sleep(ctx, time.Second) {
					return false
				}
				if !bitePaused(ctx, t, r, ttl+time.Second, srv) {
					return false
				}
				if !sleep(ctx, time.Second) {
					return false
				}
				must(t, srv.Pause())
				time.Sleep(ttl / 2)
				must(t, srv.Resume())
				return true
			})
		},
	}.run(t, duration(t, 10*time.Second))
}

// PostgreSQL restarted: every session ends and its locks are freed at
// once, while each holder learns of it only at its next connection check,
// within about CheckInterval (the pglock package documents this). A waiter
// whose session outlives the holder's during the shutdown can be granted
// the key meanwhile, so the history is checked with a lag of twice
// CheckInterval plus scheduling slack: a lost lease may have ended that
// long before its holder last saw it held, no earlier. Tokens must still
// rise with every grant, which is what lets a resource refuse the late
// holder's writes.
func TestPglockRestart(t *testing.T) {
	t.Parallel()
	srv := testkit.NewPostgres(t)
	ttl := time.Second
	check := 200 * time.Millisecond
	opts := &pglock.Options{CheckInterval: check, CheckTimeout: time.Second}
	workload{
		lockers: pglockers(t, srv, opts),
		opts:    []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()},
		ttl:     ttl,
		tokens:  true,
		lag:     2*check + 500*time.Millisecond,
		// Holdings longer than the lag, so that a holder acting on a
		// lost lease for longer than it would show.
		acts:      15,
		gap:       150 * time.Millisecond,
		minGrants: 5,
		minLost:   1,
		faults: func(ctx context.Context, t *testing.T, r *Recorder) {
			cycle(ctx, func() bool {
				if !sleep(ctx, time.Second) {
					return false
				}
				must(t, srv.Restart())
				return true
			})
		},
	}.run(t, duration(t, 10*time.Second))
}

// A single etcd member paused past the TTL and resumed, then restarted.
func TestEtcdlock(t *testing.T) {
	t.Parallel()
	srv := testkit.NewEtcd(t)
	ttl := 2 * time.Second
	var ls []lock.Locker
	for range clients {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ls = append(ls, etcdlock.New(c, &etcdlock.Options{RequestTimeout: 2 * time.Second}))
	}
	workload{
		lockers:   ls,
		opts:      []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()},
		ttl:       ttl,
		tokens:    true,
		minGrants: 30,
		minLost:   1,
		faults: func(ctx context.Context, t *testing.T, r *Recorder) {
			cycle(ctx, func() bool {
				if !sleep(ctx, time.Second) {
					return false
				}
				if !bitePaused(ctx, t, r, ttl+time.Second, srv) {
					return false
				}
				if !sleep(ctx, time.Second) {
					return false
				}
				must(t, srv.Restart())
				return true
			})
		},
	}.run(t, duration(t, 10*time.Second))
}

// A pglock holder in a process of its own, paused with SIGSTOP while it
// holds the key: the server ends its idle session and frees the key
// without its help, within TTL + 2s, and the other clients take the key
// meanwhile. Once resumed, the holder may act before its own timers close
// Done; those stale acts are counted, and each must carry a token smaller
// than one already granted, which a fencing resource refuses. The holder's
// holding up to the pause and everyone else's are checked by porcupine.
func TestPglockPausedHolder(t *testing.T) {
	if url := os.Getenv("LOCKHISTORY_CHILD_PG"); url != "" {
		pausedHolderChild(t, url)
		return
	}
	t.Parallel()
	srv := testkit.NewPostgres(t)
	ttl := time.Second
	opts := &pglock.Options{CheckInterval: 200 * time.Millisecond}
	key := "lockhistory/paused-holder"

	child := exec.Command(os.Args[0], "-test.run=^TestPglockPausedHolder$", "-test.count=1")
	child.Env = append(os.Environ(), "LOCKHISTORY_CHILD_PG="+srv.URL(), "LOCKHISTORY_CHILD_KEY="+key)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		child.Process.Signal(syscall.SIGCONT)
		child.Process.Kill()
		child.Wait()
	})
	lines := make(chan []string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 0 && strings.HasPrefix(f[0], "lh:") {
				lines <- f
			}
		}
	}()
	r := NewRecorder()
	base := r.start.UnixNano()
	at := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		return n - base
	}
	next := func() []string {
		select {
		case f, ok := <-lines:
			if !ok {
				t.Fatal("the holder process ended early")
			}
			return f
		case <-time.After(20 * time.Second):
			t.Fatal("no word from the holder process")
		}
		return nil
	}

	// The child holds the key and reports it held.
	f := next()
	if f[0] != "lh:acq" {
		t.Fatalf("child: %v", f)
	}
	const childID = clients
	childToken, _ := strconv.ParseUint(f[3], 10, 64)
	r.add(porcupine.Operation{ClientId: childID, Input: Input{Client: childID}, Call: at(f[1]), Output: Output{Token: childToken}, Return: at(f[2])})
	lastHeld := at(f[2])
	for range 3 {
		if f = next(); f[0] != "lh:held" {
			t.Fatalf("child: %v", f)
		}
		lastHeld = at(f[1])
	}

	must(t, child.Process.Signal(syscall.SIGSTOP))
	stopped := r.now()
	// Drain what the child wrote before it stopped.
	for drained := false; !drained; {
		select {
		case f := <-lines:
			if f[0] == "lh:held" {
				lastHeld = at(f[1])
			}
		case <-time.After(100 * time.Millisecond):
			drained = true
		}
	}

	// The other clients take the key while the holder is stopped.
	ls := pglockers(t, srv, opts)
	ctx, cancel := context.WithTimeout(t.Context(), ttl+3*time.Second)
	h, err := r.Acquire(ctx, ls[0], 0, key, lock.WithTTL(ttl), lock.WithAutoRenew())
	cancel()
	if err != nil {
		t.Fatalf("key not freed from the paused holder: %v", err)
	}
	freed := time.Duration(r.now() - stopped)
	t.Logf("key granted to another client %v after the holder was paused", freed.Round(time.Millisecond))
	if freed > ttl+2*time.Second {
		t.Errorf("key freed %v after the pause, want at most TTL + 2s = %v", freed, ttl+2*time.Second)
	}
	maxOther := h.Lease.Token()
	must(t, h.Release(t.Context(), 10*time.Second))
	w := workload{lockers: ls, opts: []lock.Option{lock.WithTTL(ttl), lock.WithAutoRenew()}, ttl: ttl}
	w.recordInto(t, r, key, duration(t, time.Second))

	// Resumed, the holder runs until it sees its lease lost.
	must(t, child.Process.Signal(syscall.SIGCONT))
	stale := 0
	for {
		f := next()
		if f[0] == "lh:held" {
			if at(f[1]) <= stopped {
				lastHeld = at(f[1])
			} else {
				stale++
			}
			continue
		}
		if f[0] != "lh:lost" {
			t.Fatalf("child: %v", f)
		}
		r.add(porcupine.Operation{ClientId: childID, Input: Input{Release: true, Client: childID}, Call: lastHeld, Return: at(f[1])})
		break
	}
	t.Logf("after resuming, the holder acted %d times before it saw Done closed", stale)
	if stale > 0 && childToken >= maxOther {
		t.Errorf("stale holder's token %d is not below the later grant's %d: fencing would not refuse it", childToken, maxOther)
	}
	if err := Check(r.Operations(), true, time.Minute); err != nil {
		t.Fatalf("porcupine: %v", err)
	}
}

// pausedHolderChild is the holder process of TestPglockPausedHolder: it
// takes the key, then reports every 20ms whether it still holds it, with
// wall-clock timestamps, until it sees the lease lost.
func pausedHolderChild(t *testing.T, url string) {
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	l := pglock.New(pool, &pglock.Options{CheckInterval: 200 * time.Millisecond})
	call := time.Now().UnixNano()
	le, err := l.Acquire(t.Context(), os.Getenv("LOCKHISTORY_CHILD_KEY"), lock.WithTTL(time.Second), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("lh:acq %d %d %d\n", call, time.Now().UnixNano(), le.Token())
	for {
		now := time.Now().UnixNano()
		select {
		case <-le.Done():
			fmt.Printf("lh:lost %d\n", time.Now().UnixNano())
			return
		default:
			fmt.Printf("lh:held %d\n", now)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
