package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/lock/testserver"
)

// recoveryBound is how long after a dependency returns the service may
// take to order again and to be ready, generous so that a busy machine
// cannot fail the test: the measured time goes to the log, against a
// target of one second.
const recoveryBound = 5 * time.Second

// TestDependencyRestart restarts the service's dependencies under load,
// with the service left running: PostgreSQL restarted under the atomic
// and batch strategies, and Redis, the lock strategy's locker, killed and
// replaced by an empty one. Each run checks that no unit is oversold,
// every acknowledged order is present, one order commits per
// Idempotency-Key and the ledger balances, and logs how long after the
// dependency returned the service ordered again.
func TestDependencyRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, strategy := range []string{engine.Atomic, engine.Batch} {
		t.Run("postgres/"+strategy, func(t *testing.T) { postgresRestart(t, strategy) })
	}
	t.Run("redis/lock", redisReplaced)
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

// returned notes that the dependency answers again.
func (r *recovery) returned() {
	r.mu.Lock()
	r.back = time.Now()
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

// waitReady polls addr's /readyz from now until it answers 200 and
// returns how long that took; it fails the test past recoveryBound.
func waitReady(t *testing.T, addr string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/readyz", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := httpClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return time.Since(start)
		}
		if time.Since(start) > recoveryBound {
			t.Fatalf("/readyz not 200 within %v of the dependency's return", recoveryBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// unresolved reports whether err leaves a checkout's outcome unknown, so
// that its key must be retried: the service was unavailable or the
// connection failed. Any other error is a definite refusal.
func unresolved(err error) bool {
	code := stockade.ErrorCode(err)
	return code == stockade.EUnavailable || code == stockade.EInternal
}

// postgresRestart: 16 clients check out with keys of their own while the
// service's PostgreSQL server is restarted; orders resume soon after, every
// acknowledged order is present, and every order that got no definite
// answer, retried with its key, commits exactly once.
func postgresRestart(t *testing.T, strategy string) {
	pg := testserver.NewPostgres(t)
	store, err := pg.CreateDatabase("stockade_restart")
	if err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, "-store", store, "-strategy", strategy, "-request-timeout", "3s")
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	const stock = 100000
	stockUp(t, c, "steady", stock)

	var (
		mu       sync.Mutex
		acked    []stockade.Order
		open     []keyedOrder // orders without a definite answer
		refusals []string
		rec      recovery
	)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				q := int64(1 + (g+i)%3)
				key := fmt.Sprintf("buyer-%d-%d", g, i)
				rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
				o, err := c.Checkout(rctx, stockade.ReserveRequest{
					Lines: []stockade.Line{{SKU: "steady", Quantity: q}},
				}, &stockade.Idempotency{Key: key})
				rcancel()
				now := time.Now()
				mu.Lock()
				switch {
				case err == nil:
					acked = append(acked, o)
				case unresolved(err):
					open = append(open, keyedOrder{key, q})
				default:
					refusals = append(refusals, err.Error())
				}
				mu.Unlock()
				if err == nil {
					rec.acked(now)
				} else {
					// Back off as a client would while the service is
					// unavailable.
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	stopLoad := func() {
		cancel()
		wg.Wait()
	}
	defer stopLoad()
	ackedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	for deadline := time.Now().Add(20 * time.Second); ackedCount() < 200; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d orders acknowledged before the restart", ackedCount())
		}
	}
	before := ackedCount()
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	rec.returned()
	ready := waitReady(t, p.addr)
	ordering := rec.wait(t)
	t.Logf("recovered %.2f s after postgres restart (first order acknowledged; /readyz 200 after %.2f s)",
		ordering.Seconds(), ready.Seconds())
	// Let orders flow after the recovery before stopping the load.
	for deadline := time.Now().Add(10 * time.Second); ackedCount() < before+200; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d orders acknowledged after the restart", ackedCount()-before)
		}
	}
	stopLoad()
	if len(refusals) != 0 {
		t.Fatalf("%d orders refused with plenty of stock, the first: %s", len(refusals), refusals[0])
	}

	settleOrders(t, c, stock, acked, open, "the restart")
	reconcileClean(t, store)
}

// redisReplaced: 400 buyers, 16 at a time, compete for 100 units under the
// lock strategy while the locker's Redis is killed and replaced by an
// empty one on the same port. A buyer without a definite answer retries
// with its key until it gets one, so every buyer ends with an order or
// insufficient_stock: exactly 100 orders, and the ledger balances.
func redisReplaced(t *testing.T) {
	r := testserver.NewRedis(t)
	store := newStore(t, "sqlite")
	p := startProcess(t, "-store", store, "-strategy", engine.Lock, "-locker", "redis://"+r.Addr(),
		"-request-timeout", "1s")
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	const stock, buyers = 100, 400
	stockUp(t, c, "hot", stock)

	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		orders   []stockade.Order
		retries  int
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
				idem := &stockade.Idempotency{Key: fmt.Sprintf("buyer-%d", b)}
				for attempt := 0; ; attempt++ {
					rctx, rcancel := context.WithTimeout(t.Context(), 10*time.Second)
					o, err := c.Checkout(rctx, stockade.ReserveRequest{
						Lines: []stockade.Line{{SKU: "hot", Quantity: 1}},
					}, idem)
					rcancel()
					now := time.Now()
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
						rec.acked(now)
						sold <- struct{}{}
					}
					break
				}
			}
		})
	}
	// Kill Redis once a fifth of the stock is sold, leave it down longer
	// than the request timeout, so that buyers get 503 and retry, then
	// start an empty one on the same port.
	for range stock / 5 {
		select {
		case <-sold:
		case <-time.After(20 * time.Second):
			t.Fatal("orders stopped before Redis was killed")
		}
	}
	if err := r.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := r.Restart(); err != nil {
		t.Fatal(err)
	}
	rec.returned()
	ordering := rec.wait(t)
	mu.Lock()
	soldDown := outcomes["ok"] - stock/5 // acknowledged between the kill and the return
	mu.Unlock()
	t.Logf("recovered %.2f s after redis was replaced by an empty one (first order acknowledged)", ordering.Seconds())
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
	checkTotals(t, c, "hot", stock, stock)
	t.Logf("%d buyers: %s; %d units sold before the kill, %d while Redis was down or just back; %d attempts retried without a definite answer",
		buyers, strings.TrimPrefix(fmt.Sprint(outcomes), "map"), stock/5, soldDown, retries)
	reconcileClean(t, store)
}
