package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// The service's fault suite. Each scenario runs `stockade serve` under
// load, injects a fault into one of its dependencies — PostgreSQL killed,
// restarted, cut off or silenced through a proxy; the locker's Redis,
// Redlock nodes or etcd killed or paused — heals it, and checks what the
// service promises: no oversell, every acknowledged order present, one
// order per Idempotency-Key, the ledger balanced, every answer within the
// request timeout plus answerMargin, and orders again soon after the
// dependency returns (the time is logged against a target of one second).
//
// Each scenario injects its fault once in `./scripts/test`. With
// STOCKADE_FAULTS_DURATION set (a Go duration), each runs that long,
// injecting its fault over and over:
//
//	cd cmd/stockade && STOCKADE_FAULTS_DURATION=5m go test -race -timeout 0 -run 'Faults|KilledMidLoad' -v .

// requestTimeout is serve's -request-timeout in the fault scenarios, and
// answerMargin how much longer than it an answer may take, whatever the
// dependencies do. The clients time the answers, so the bound also allows
// for how late this process's goroutines ran (testkit.Lag): a client that
// ran late read its answer late.
const (
	requestTimeout = 2 * time.Second
	answerMargin   = time.Second
)

// recoveryBound is how long after a dependency returns the service may
// take to order again and to be ready, generous so that a busy machine
// cannot fail the test: the measured time goes to the log, against a
// target of one second. A full suite run has measured 6.6 s.
const recoveryBound = 20 * time.Second

// faultsDuration is how long each scenario runs: zero for one fault.
func faultsDuration(t *testing.T) time.Duration {
	s := os.Getenv("STOCKADE_FAULTS_DURATION")
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("STOCKADE_FAULTS_DURATION=%q: want a positive Go duration", s)
	}
	return d
}

// storeFault is a fault of the service's PostgreSQL, which the service
// reaches through a proxy: inject starts it, and heal, outage later, ends
// it (nil: the fault ends by itself).
type storeFault struct {
	name   string
	inject func(*testkit.Postgres, *testkit.Proxy) error
	heal   func(*testkit.Postgres, *testkit.Proxy) error
	outage time.Duration
}

var storeFaults = []storeFault{
	{name: "restart", inject: func(pg *testkit.Postgres, _ *testkit.Proxy) error { return pg.Restart() }},
	{
		name:   "kill",
		inject: func(pg *testkit.Postgres, _ *testkit.Proxy) error { return pg.Kill() },
		heal:   func(pg *testkit.Postgres, _ *testkit.Proxy) error { return pg.Restart() },
		outage: 1500 * time.Millisecond,
	},
	{
		name:   "cut",
		inject: func(_ *testkit.Postgres, p *testkit.Proxy) error { p.Cut(); return nil },
		heal:   func(_ *testkit.Postgres, p *testkit.Proxy) error { p.Heal(); return nil },
		outage: 1500 * time.Millisecond,
	},
	{
		// Silent past the request timeout: packets held, nothing reset.
		name:   "blackhole",
		inject: func(_ *testkit.Postgres, p *testkit.Proxy) error { p.Blackhole(); return nil },
		heal:   func(_ *testkit.Postgres, p *testkit.Proxy) error { p.Heal(); return nil },
		outage: requestTimeout + time.Second,
	},
}

// TestStoreFaults injects every PostgreSQL fault under every strategy,
// the lock strategy with the postgres locker (whose leases live on the
// same server), while 16 clients check out with keys of their own. It
// replaces the earlier restart-only test and covers PostgreSQL killed
// rather than shut down.
func TestStoreFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	strategies := [][]string{
		{"-strategy", engine.Atomic},
		{"-strategy", engine.RowLock},
		{"-strategy", engine.Optimistic},
		{"-strategy", engine.Batch},
		{"-strategy", engine.Lock, "-locker", "postgres"},
	}
	for _, f := range storeFaults {
		for _, args := range strategies {
			name := "postgres-" + f.name + "/" + strings.Join(args[1:], "-")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				storeFaultRun(t, f, args)
			})
		}
	}
}

func storeFaultRun(t *testing.T, f storeFault, args []string) {
	release := testkit.Heavy(t)
	pg := testkit.NewPostgres(t)
	direct, err := pg.CreateDatabase("stockade_faults")
	if err != nil {
		t.Fatal(err)
	}
	proxy := testkit.NewProxy(t, pg.Addr())
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = proxy.Addr()
	store := u.String()
	p := startProcess(t, append([]string{"-store", store, "-request-timeout", requestTimeout.String()}, args...)...)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	const stock = 1_000_000
	stockUp(t, c, "steady", stock)

	load := startSteadyLoad(t, c)
	defer load.stop()
	end := time.Now().Add(faultsDuration(t))
	for round := 1; ; round++ {
		load.waitAcked(t, 100, 20*time.Second, "before the fault")
		if err := f.inject(pg, proxy); err != nil {
			t.Fatal(err)
		}
		if f.heal != nil {
			time.Sleep(f.outage / 2)
			notReady(t, c)
			time.Sleep(f.outage / 2)
			if err := f.heal(pg, proxy); err != nil {
				t.Fatal(err)
			}
		}
		load.rec.returned()
		ready := waitReady(t, c)
		ordering := load.rec.wait(t)
		t.Logf("round %d: ordering %.2f s after PostgreSQL returned; /readyz 200 after %.2f s", round, ordering.Seconds(), ready.Seconds())
		load.waitAcked(t, 100, 10*time.Second, "after the fault")
		if time.Now().After(end) {
			break
		}
	}
	load.stop()
	release() // the load is over: settling and reconciling bound no wait
	load.check(t)
	settleOrders(t, c, stock, load.acked, load.open, "the "+f.name)
	reconcileClean(t, direct)
}

// steadyLoad is clients ordering 1–3 units of "steady" at a time, each
// order with a key of its own, until stopped. It keeps the acknowledged
// orders, those without a definite answer, definite refusals (there should
// be none: the stock is plentiful), the service's internal errors (there
// should be none either: a failing dependency is a 503) and the slowest
// answer.
type steadyLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	rec    recovery
	lag    *testkit.Lag

	mu        sync.Mutex
	acked     []stockade.Order
	ackedKeys []keyedOrder // the key and quantity of each of acked
	open      []keyedOrder
	refusals  []string
	internal  []string
	slowest   time.Duration
}

// startSteadyLoad starts 16 clients.
func startSteadyLoad(t *testing.T, c *httpapi.Client) *steadyLoad {
	return startLoad(t, c, 16)
}

func startLoad(t *testing.T, c *httpapi.Client, clients int) *steadyLoad {
	l := &steadyLoad{lag: testkit.WatchLag(t)}
	ctx, cancel := context.WithCancel(t.Context())
	l.cancel = cancel
	for g := range clients {
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				q := int64(1 + (g+i)%3)
				key := fmt.Sprintf("buyer-%d-%d", g, i)
				// Far beyond the bound, to see an answer that breaks it.
				rctx, rcancel := context.WithTimeout(context.Background(), 4*requestTimeout)
				start := time.Now()
				o, err := c.Checkout(rctx, stockade.ReserveRequest{
					Lines: []stockade.Line{{SKU: "steady", Quantity: q}},
				}, &stockade.Idempotency{Key: key})
				took := time.Since(start)
				rcancel()
				l.mu.Lock()
				l.slowest = max(l.slowest, took)
				switch {
				case err == nil:
					l.acked = append(l.acked, o)
					l.ackedKeys = append(l.ackedKeys, keyedOrder{key, q})
				case unresolved(err):
					l.open = append(l.open, keyedOrder{key, q})
					if answered500(err) {
						l.internal = append(l.internal, err.Error())
					}
				default:
					l.refusals = append(l.refusals, err.Error())
				}
				l.mu.Unlock()
				if err == nil {
					l.rec.acked(start.Add(took))
				} else {
					// Back off as a client would while the service is
					// unavailable.
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	return l
}

// stop ends the load and waits for its clients; it may be called twice.
func (l *steadyLoad) stop() {
	l.cancel()
	l.wg.Wait()
}

func (l *steadyLoad) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// waitAcked waits until n more orders are acknowledged, failing the test
// after within; when names the moment for the message.
func (l *steadyLoad) waitAcked(t *testing.T, n int, within time.Duration, when string) {
	t.Helper()
	want := l.ackedCount() + n
	for deadline := time.Now().Add(within); l.ackedCount() < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d orders acknowledged within %v %s", l.ackedCount()-want+n, n, within, when)
		}
	}
}

// check fails the test on a refusal or on an answer slower than the
// bound; call it after stop.
func (l *steadyLoad) check(t *testing.T) {
	t.Helper()
	if len(l.refusals) != 0 {
		t.Fatalf("%d orders refused with plenty of stock, the first: %s", len(l.refusals), l.refusals[0])
	}
	if len(l.internal) != 0 {
		t.Fatalf("%d orders answered 500, the first: %s", len(l.internal), l.internal[0])
	}
	lag := l.lag.Max()
	t.Logf("slowest answer %.2f s (request timeout %v; the clients ran up to %v late)", l.slowest.Seconds(), requestTimeout, lag.Round(time.Millisecond))
	if l.slowest > requestTimeout+answerMargin+lag {
		t.Fatalf("an answer took %v, beyond the request timeout %v plus %v and the clients' lag %v", l.slowest, requestTimeout, answerMargin, lag)
	}
}

// lockerFault is a fault of the lock strategy's locker: start starts its
// servers and returns serve's -locker value; inject starts the fault and
// heal, outage later, ends it.
type lockerFault struct {
	name   string
	start  func(t *testing.T) (locker string, inject, heal func() error)
	outage time.Duration
}

var lockerFaults = []lockerFault{
	{
		// Killed, and replaced by an empty server on the same port: the
		// locks it held are gone.
		name: "redis-replaced",
		start: func(t *testing.T) (string, func() error, func() error) {
			r := testkit.NewRedis(t)
			return "redis://" + r.Addr(), r.Kill, r.Restart
		},
		outage: 1500 * time.Millisecond,
	},
	{
		// Paused: connections open, nothing answers.
		name: "redis-paused",
		start: func(t *testing.T) (string, func() error, func() error) {
			r := testkit.NewRedis(t)
			return "redis://" + r.Addr(), r.Pause, r.Resume
		},
		outage: requestTimeout + time.Second,
	},
	{
		// Two of three nodes paused: no majority.
		name: "redlock-majority-paused",
		start: func(t *testing.T) (string, func() error, func() error) {
			var addrs []string
			var nodes []*testkit.Redis
			for range 3 {
				r := testkit.NewRedis(t)
				nodes = append(nodes, r)
				addrs = append(addrs, r.Addr())
			}
			both := func(do func(*testkit.Redis) error) func() error {
				return func() error {
					var wg sync.WaitGroup
					errs := make([]error, 2)
					for i, n := range nodes[:2] {
						wg.Go(func() { errs[i] = do(n) })
					}
					wg.Wait()
					return errors.Join(errs...)
				}
			}
			return "redlock://" + strings.Join(addrs, ","),
				both((*testkit.Redis).Pause), both((*testkit.Redis).Resume)
		},
		outage: requestTimeout + time.Second,
	},
	{
		// Killed and restarted on its data: the sessions' leases live on.
		name: "etcd-killed",
		start: func(t *testing.T) (string, func() error, func() error) {
			e := testkit.NewEtcd(t)
			return "etcd://" + e.Endpoint(), e.Kill, e.Restart
		},
		outage: 1500 * time.Millisecond,
	},
}

// TestLockerFaults: 400 buyers, 16 at a time, compete for 100 units under
// the lock strategy while the locker fails. A buyer without a definite
// answer retries with its key until it gets one, so every buyer ends with
// an order or insufficient_stock: exactly 100 orders, refusals for stock
// only once the stock is gone, and the ledger balances. The store is
// SQLite, so that the locker is the only thing that fails.
func TestLockerFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, f := range lockerFaults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			release := testkit.Heavy(t)
			locker, inject, heal := f.start(t)
			store := newStore(t, "sqlite")
			// At debug, serve logs each request with its duration.
			p := startProcess(t, "-store", store, "-strategy", engine.Lock, "-locker", locker,
				"-request-timeout", requestTimeout.String(), "-log-level", "debug")
			t.Cleanup(func() { logSlowRequests(t, p, requestTimeout) })
			// The clients' side of the slowest request, to set beside serve's.
			tr := newTracer(httpClient.Transport)
			t.Cleanup(func() {
				if t.Failed() {
					t.Log("the slowest request, as the client saw it:", tr.Slowest())
				}
			})
			c := httpapi.NewClient("http://"+p.addr, &http.Client{Transport: tr})
			end := time.Now().Add(faultsDuration(t))
			for round := 1; ; round++ {
				scarceRound(t, c, fmt.Sprintf("hot-%d", round), round, inject, heal, f.outage)
				if time.Now().After(end) {
					break
				}
			}
			release()
			reconcileClean(t, store)
		})
	}
}

// logSlowRequests logs, if t failed, the lines of p's log about requests
// that took longer than over, and every line above debug: where a slow
// answer spent its time. The warnings of requests past their deadlines,
// with the stacks they waited in, come first.
func logSlowRequests(t *testing.T, p *process, over time.Duration) {
	if !t.Failed() {
		return
	}
	const overdue = "request past its deadline"
	log := p.log.String()
	for line := range strings.Lines(log) {
		if strings.Contains(line, overdue) {
			t.Log(strings.TrimSpace(line))
		}
	}
	for line := range strings.Lines(log) {
		if strings.Contains(line, overdue) {
			continue
		}
		if !strings.Contains(line, "level=DEBUG") {
			t.Log(strings.TrimSpace(line))
			continue
		}
		_, rest, ok := strings.Cut(line, " duration=")
		if !ok {
			continue
		}
		if d, err := time.ParseDuration(strings.Fields(rest)[0]); err == nil && d > over {
			t.Log("slow:", strings.TrimSpace(line))
		}
	}
}

// scarceRound sells 100 units of sku to 400 buyers and injects the fault
// once a fifth of the units are sold.
func scarceRound(t *testing.T, c *httpapi.Client, sku string, round int, inject, heal func() error, outage time.Duration) {
	const stock, buyers = 100, 400
	stockUp(t, c, sku, stock)
	lag := testkit.WatchLag(t)

	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		orders   []stockade.Order
		retries  int
		slowest  time.Duration
		next     int
		rec      recovery
		sold     = make(chan struct{}, buyers)
	)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				mu.Lock()
				b := next
				next++
				mu.Unlock()
				if b >= buyers {
					return
				}
				idem := &stockade.Idempotency{Key: fmt.Sprintf("%s-buyer-%d", sku, b)}
				for {
					rctx, rcancel := context.WithTimeout(t.Context(), 4*requestTimeout)
					start := time.Now()
					o, err := c.Checkout(rctx, stockade.ReserveRequest{
						Lines: []stockade.Line{{SKU: sku, Quantity: 1}},
					}, idem)
					took := time.Since(start)
					rcancel()
					mu.Lock()
					slowest = max(slowest, took)
					mu.Unlock()
					if err != nil && unresolved(err) && t.Context().Err() == nil {
						mu.Lock()
						retries++
						mu.Unlock()
						time.Sleep(20 * time.Millisecond)
						continue
					}
					outcome := "ok"
					if err != nil {
						outcome = stockade.ErrorCode(err)
					}
					mu.Lock()
					outcomes[outcome]++
					if err == nil {
						orders = append(orders, o)
					}
					mu.Unlock()
					if err == nil {
						rec.acked(start.Add(took))
						sold <- struct{}{}
					}
					break
				}
			}
		})
	}
	defer wg.Wait()
	for range stock / 5 {
		select {
		case <-sold:
		case <-time.After(20 * time.Second):
			t.Fatal("orders stopped before the fault")
		}
	}
	if err := inject(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(outage / 2)
	notReady(t, c)
	time.Sleep(outage / 2)
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	rec.returned()
	ready := waitReady(t, c)
	ordering := rec.wait(t)
	wg.Wait()

	want := map[string]int{"ok": stock, stockade.EInsufficientStock: buyers - stock}
	if fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	for _, o := range orders {
		got, err := c.Order(t.Context(), o.ID)
		if err != nil {
			t.Fatalf("acknowledged order %s lost: %v", o.ID, err)
		}
		if got.Status != stockade.Committed {
			t.Fatalf("acknowledged order %s is %s", o.ID, got.Status)
		}
	}
	checkTotals(t, c, sku, stock, stock)
	t.Logf("round %d: ordering %.2f s after the locker returned; /readyz 200 after %.2f s; %d attempts retried without a definite answer; slowest answer %.2f s; the clients ran up to %v late",
		round, ordering.Seconds(), ready.Seconds(), retries, slowest.Seconds(), lag.Max().Round(time.Millisecond))
	if slowest > requestTimeout+answerMargin+lag.Max() {
		t.Fatalf("an answer took %v, beyond the request timeout %v plus %v and the clients' lag %v", slowest, requestTimeout, answerMargin, lag.Max())
	}
}

// recovery records when the service acknowledges orders, to find the
// first acknowledgement after a dependency came back.
type recovery struct {
	mu    sync.Mutex
	back  time.Time // when the dependency answered again; zero before
	first time.Time // the first acknowledgement after back
}

// acked notes an order acknowledged at now.
func (r *recovery) acked(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.back.IsZero() && r.first.IsZero() && now.After(r.back) {
		r.first = now
	}
}

// returned notes that the dependency answers again, and starts waiting
// for the first acknowledgement after it.
func (r *recovery) returned() {
	r.mu.Lock()
	r.back, r.first = time.Now(), time.Time{}
	r.mu.Unlock()
}

// wait waits until an order was acknowledged after the dependency
// returned and reports how long after; it fails the test past
// recoveryBound.
func (r *recovery) wait(t *testing.T) time.Duration {
	t.Helper()
	for {
		r.mu.Lock()
		back, first := r.back, r.first
		r.mu.Unlock()
		if !first.IsZero() {
			return first.Sub(back)
		}
		if time.Since(back) > recoveryBound {
			t.Fatalf("no order acknowledged within %v of the dependency's return", recoveryBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ready reports whether the service behind c answers /readyz with 200;
// it fails the test on an answer other than 200 or 503.
func ready(t *testing.T, c *httpapi.Client) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	err := c.Ready(ctx)
	switch code := stockade.ErrorCode(err); {
	case err == nil:
		return true
	case code == stockade.EUnavailable, code == stockade.EInternal && !isProblem(err):
		return false
	default:
		t.Fatalf("/readyz: %v", err)
		return false
	}
}

// notReady fails the test unless /readyz says the service is not ready:
// called while a dependency is down.
func notReady(t *testing.T, c *httpapi.Client) {
	t.Helper()
	if ready(t, c) {
		t.Fatal("/readyz 200 while a dependency is down")
	}
}

// waitReady polls /readyz from now until it answers 200 and returns how
// long that took; it fails the test past recoveryBound.
func waitReady(t *testing.T, c *httpapi.Client) time.Duration {
	t.Helper()
	start := time.Now()
	for !ready(t, c) {
		if time.Since(start) > recoveryBound {
			t.Fatalf("/readyz not 200 within %v of the dependency's return", recoveryBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// answered500 reports whether err is the service's answer to an internal
// error, as opposed to a failed connection.
func answered500(err error) bool {
	e, ok := errors.AsType[*stockade.Error](err)
	return ok && e.Code == stockade.EInternal
}

// unresolved reports whether err leaves a checkout's outcome unknown, so
// that its key must be retried: the service was unavailable or the
// connection failed. Any other error is a definite refusal.
func unresolved(err error) bool {
	code := stockade.ErrorCode(err)
	return code == stockade.EUnavailable || code == stockade.EInternal
}
