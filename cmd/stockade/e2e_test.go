package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// End-to-end tests of the service through HTTP: the flash sale on every
// store and strategy, two service processes on one database, and a
// service killed mid-load.

// httpClient allows as many connections per host as the tests keep in
// flight, so no request waits for a connection.
var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 128}}

// stockUp creates location "dc" and sets sku's stock there through c.
func stockUp(t testing.TB, c *httpapi.Client, sku string, onHand int64) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "dc", Name: "DC", Point: &stockade.Point{Lat: 52.5, Lon: 13.4}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(ctx, stockade.Key{SKU: sku, Location: "dc"}, onHand, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// flashSale sends buyers checkouts of one unit of sku, inflight at a time,
// spread round-robin over the services at addrs, and counts the outcomes
// by error code ("ok" for an order).
func flashSale(t *testing.T, addrs []string, sku string, buyers, inflight int) map[string]int {
	t.Helper()
	clients := make([]*httpapi.Client, len(addrs))
	for i, a := range addrs {
		clients[i] = httpapi.NewClient("http://"+a, httpClient)
	}
	var mu sync.Mutex
	outcomes := map[string]int{}
	sem := make(chan struct{}, inflight)
	var wg sync.WaitGroup
	for i := range buyers {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, err := clients[i%len(clients)].Checkout(t.Context(), stockade.ReserveRequest{
				Lines: []stockade.Line{{SKU: sku, Quantity: 1}},
			}, nil)
			outcome := "ok"
			if err != nil {
				outcome = stockade.ErrorCode(err)
				if outcome == stockade.EInternal {
					outcome = err.Error()
				}
			}
			mu.Lock()
			outcomes[outcome]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return outcomes
}

// reconcileClean runs "stockade reconcile" on store and fails the test unless
// every level balances against the ledger.
func reconcileClean(t *testing.T, store string) {
	t.Helper()
	var out lockedBuffer
	if err := run(t.Context(), []string{"stockade", "reconcile", "-store", store}, getenvNone, &out, &out); err != nil {
		t.Fatalf("reconcile: %v\n%s", err, out.String())
	}
}

// checkTotals fails the test unless sku's totals add up and hold committed
// units.
func checkTotals(t *testing.T, c *httpapi.Client, sku string, onHand, committed int64) {
	t.Helper()
	st, err := c.Stock(t.Context(), sku)
	if err != nil {
		t.Fatal(err)
	}
	tot := st.Totals
	if tot.OnHand != tot.Available+tot.Reserved+tot.Committed || tot.Available < 0 {
		t.Fatalf("totals do not add up: %+v", tot)
	}
	if tot.OnHand != onHand || tot.Committed != committed {
		t.Fatalf("totals %+v, want on_hand %d, committed %d", tot, onHand, committed)
	}
}

// newStore returns the URL of a fresh store of kind "sqlite" (a file) or
// "postgres" (a database of its own on the shared server).
func newStore(t *testing.T, kind string) string {
	t.Helper()
	if kind == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "stockade.db")
	}
	return newDatabase(t)
}

// TestHTTPFlashSale: 100 units of one SKU and 800 concurrent buyers, 64
// in flight, over HTTP, on every store and strategy: exactly 100 orders
// and 700 insufficient_stock, nothing else, and the ledger balances.
func TestHTTPFlashSale(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("800 requests per store and strategy")
	}
	for _, storeKind := range []string{"sqlite", "postgres"} {
		for _, strategy := range engine.Strategies() {
			t.Run(storeKind+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				testkit.Heavy(t)
				store := newStore(t, storeKind)
				srv := startServe(t, nil, "-store", store, "-strategy", strategy)
				stockUp(t, httpapi.NewClient("http://"+srv.addr, httpClient), "hot", 100)

				got := flashSale(t, []string{srv.addr}, "hot", 800, 64)
				want := map[string]int{"ok": 100, stockade.EInsufficientStock: 700}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("outcomes %v, want %v", got, want)
				}
				checkTotals(t, httpapi.NewClient("http://"+srv.addr, httpClient), "hot", 100, 100)
				if err := srv.stop(); err != nil {
					t.Fatal(err)
				}
				reconcileClean(t, store)
			})
		}
	}
}

// The binary, built once per test binary for the tests that run it as a
// process: with the race detector for tests, without it for benchmarks.
// TestMain removes them after the last test.
var builds [2]struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// The build inherits the environment, so GOFLAGS set for the tests (as
// scripts/test sets it) applies to the binary too.
func binary(t testing.TB) string {
	t.Helper()
	_, bench := t.(*testing.B)
	name, flags, b := "stockade-race", []string{"-race"}, &builds[0]
	if bench {
		name, flags, b = "stockade", nil, &builds[1]
	}
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "stockade-bin-*")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, name)
		args := append(append([]string{"build"}, flags...), "-o", b.path, ".")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// removeBinaries deletes what binary built.
func removeBinaries() {
	for i := range builds {
		if builds[i].dir != "" {
			os.RemoveAll(builds[i].dir)
		}
	}
}

// process is a "stockade serve" process.
type process struct {
	addr string
	cmd  *exec.Cmd
	log  *lockedBuffer // what it wrote to stderr
}

// processLogTail is how much of a serve process's log a failed test shows.
const processLogTail = 16 << 10

// startProcess starts the binary's serve command with args on a free port
// and waits until it listens. The process is killed when the test ends;
// if the test failed, the end of its log goes to the test's.
func startProcess(t testing.TB, args ...string) *process {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "-addr", "127.0.0.1:0", "-open"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	read := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-read
		if t.Failed() {
			s := log.String()
			t.Logf("serve %v: the last %d bytes of its log:\n%s", args, min(len(s), processLogTail), s[max(0, len(s)-processLogTail):])
		}
	})
	found := make(chan string, 1)
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		listening := false
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if listening {
				continue
			}
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				listening = true
				found <- m[1]
			}
		}
	}()
	select {
	case addr := <-found:
		return &process{addr: addr, cmd: cmd, log: log}
	case <-time.After(60 * time.Second):
		t.Fatal("serve process did not report its address")
		return nil
	}
}

// TestTwoProcessesOnePostgres runs two service processes on one database
// and sells through both at once: no oversell, with the lock strategy on a
// shared Redis and with row locks.
func TestTwoProcessesOnePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	redisAddr := testkit.SharedRedis(t).Addr()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"lock-redis", []string{"-strategy", "lock", "-locker", "redis://" + redisAddr}},
		{"rowlock", []string{"-strategy", "rowlock"}},
		{"batch", []string{"-strategy", "batch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.Heavy(t)
			store := newDatabase(t)
			args := append([]string{"-store", store}, tc.args...)
			a, b := startProcess(t, args...), startProcess(t, args...)
			stockUp(t, httpapi.NewClient("http://"+a.addr, httpClient), "hot", 100)

			got := flashSale(t, []string{a.addr, b.addr}, "hot", 2000, 64)
			want := map[string]int{"ok": 100, stockade.EInsufficientStock: 1900}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("outcomes %v, want %v", got, want)
			}
			checkTotals(t, httpapi.NewClient("http://"+b.addr, httpClient), "hot", 100, 100)
			reconcileClean(t, store)
		})
	}
}

// TestKilledMidLoad kills the service with SIGKILL while orders stream in,
// each with an Idempotency-Key of its own, restarts it on the same store,
// and checks that every acknowledged order exists, that nothing beyond the
// acknowledged and the unanswered orders was committed, and that the
// ledger balances. Then it retries every unanswered order with its key:
// each must resolve at once (no key is left claimed by the dead process),
// either as a replay of what committed before the kill or as a fresh
// order, so that afterwards exactly one order per key has committed. It
// runs under atomic, one transaction per order, and under batch, whose
// acknowledgements come from transactions shared by many orders.
func TestKilledMidLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, strategy := range []string{engine.Atomic, engine.Batch} {
			t.Run(kind+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				killMidLoad(t, kind, strategy)
			})
		}
	}
}

func killMidLoad(t *testing.T, kind, strategy string) {
	testkit.Heavy(t)
	store := newStore(t, kind)
	p := startProcess(t, "-store", store, "-strategy", strategy)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	const stock = 100000
	stockUp(t, c, "steady", stock)

	var (
		mu      sync.Mutex
		acked   []stockade.Order
		lost    []keyedOrder // requests that got no answer
		refused atomic.Int64
	)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				q := int64(1 + (g+i)%3)
				key := fmt.Sprintf("buyer-%d-%d", g, i)
				o, err := c.Checkout(context.Background(), stockade.ReserveRequest{
					Lines: []stockade.Line{{SKU: "steady", Quantity: q}},
				}, &stockade.Idempotency{Key: key})
				mu.Lock()
				switch {
				case err == nil:
					acked = append(acked, o)
				case stockade.ErrorCode(err) == stockade.EInternal && !isProblem(err):
					// The connection died with the process: the
					// order may or may not have committed.
					lost = append(lost, keyedOrder{key, q})
				default:
					refused.Add(1)
				}
				mu.Unlock()
				if err != nil && !isProblem(err) {
					return
				}
			}
		})
	}
	// Let orders flow, then kill the process mid-stream.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	cancel()
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no order was acknowledged before the kill")
	}
	if refused.Load() != 0 {
		t.Fatalf("%d orders refused with plenty of stock", refused.Load())
	}

	p2 := startProcess(t, "-store", store, "-strategy", strategy)
	c2 := httpapi.NewClient("http://"+p2.addr, httpClient)
	settleOrders(t, c2, stock, acked, lost, "the kill")
	reconcileClean(t, store)
}

// keyedOrder is a checkout of q units of "steady" under an
// Idempotency-Key that got no definite answer.
type keyedOrder struct {
	key string
	q   int64
}

// settleOrders checks "steady" after a fault (what names it in the logs):
// every acknowledged order is there and committed, the totals add up to
// stock, and the committed units lie between the acknowledged ones and
// those plus the open orders'. Then it retries every open order with its
// key; each must resolve within 5 s, a replay if it had committed, else a
// fresh order, and afterwards exactly one order per key has committed.
func settleOrders(t *testing.T, c *httpapi.Client, stock int64, acked []stockade.Order, open []keyedOrder, what string) {
	t.Helper()
	var ackedUnits, openUnits int64
	for _, o := range acked {
		for _, l := range o.Lines {
			ackedUnits += l.Quantity
		}
	}
	for _, o := range open {
		openUnits += o.q
	}
	eachConcurrently(t, 8, len(acked), func(i int) error {
		got, err := c.Order(t.Context(), acked[i].ID)
		if err != nil {
			return fmt.Errorf("acknowledged order %s lost: %w", acked[i].ID, err)
		}
		if got.Status != stockade.Committed {
			return fmt.Errorf("acknowledged order %s is %s", acked[i].ID, got.Status)
		}
		return nil
	})
	st, err := c.Stock(t.Context(), "steady")
	if err != nil {
		t.Fatal(err)
	}
	tot := st.Totals
	if tot.OnHand != tot.Available+tot.Reserved+tot.Committed || tot.OnHand != stock {
		t.Fatalf("totals do not add up: %+v", tot)
	}
	if tot.Committed < ackedUnits || tot.Committed > ackedUnits+openUnits {
		t.Fatalf("committed %d units; acknowledged %d, unanswered %d", tot.Committed, ackedUnits, openUnits)
	}
	t.Logf("%d orders (%d units) acknowledged around %s, %d orders (%d units) without a definite answer, %d units committed",
		len(acked), ackedUnits, what, len(open), openUnits, tot.Committed)

	// Retried 16 at a time, as the clients would: a 503 (the request's
	// deadline passed, as it may on a busy machine when 16 buyers of one
	// SKU contend) is tried again, as its problem document says; any other
	// error fails the test, idempotency_in_flight above all, which would
	// mean that the key was left claimed.
	var replayed, again atomic.Int64
	eachConcurrently(t, 16, len(open), func(i int) error {
		o := open[i]
		idem := &stockade.Idempotency{Key: o.key}
		deadline := time.Now().Add(settleBound)
		for {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			_, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "steady", Quantity: o.q}}}, idem)
			cancel()
			if err == nil {
				break
			}
			if stockade.ErrorCode(err) != stockade.EUnavailable || time.Now().After(deadline) {
				return fmt.Errorf("retry of %s after %s: %w", o.key, what, err)
			}
			again.Add(1)
		}
		if idem.Replayed {
			replayed.Add(1)
		}
		return nil
	})
	checkTotals(t, c, "steady", stock, ackedUnits+openUnits)
	t.Logf("%d orders retried with their keys: %d replayed, %d ordered afresh; %d retries answered 503 and tried again",
		len(open), replayed.Load(), int64(len(open))-replayed.Load(), again.Load())
}

// eachConcurrently calls fn(i) for i in [0, n), width at a time, as
// clients checking or retrying many orders would, and fails the test with
// the first error and the number of others.
func eachConcurrently(t *testing.T, width, n int, fn func(i int) error) {
	t.Helper()
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		failed = make(chan error, n)
	)
	for range width {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if err := fn(int(i)); err != nil {
					failed <- err
				}
			}
		})
	}
	wg.Wait()
	close(failed)
	if err := <-failed; err != nil {
		t.Fatalf("%v (and %d more)", err, len(failed))
	}
}

// settleBound is how long settleOrders tries a key again while the
// service answers 503.
const settleBound = 30 * time.Second

// isProblem reports whether err is a problem document the service sent,
// as opposed to a failed connection.
func isProblem(err error) bool {
	var e *stockade.Error
	return errors.As(err, &e) && e.Code != stockade.EInternal
}
