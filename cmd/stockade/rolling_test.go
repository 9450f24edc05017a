package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
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

// balancer spreads requests over serve processes as a load balancer does:
// round robin over those whose /readyz answered 200 at its last check,
// which it makes every checkEvery.
type balancer struct {
	mu    sync.Mutex
	procs []*process
	ready []bool
	next  int
}

const checkEvery = 50 * time.Millisecond

// check runs the health checks until ctx ends.
func (b *balancer) check(ctx context.Context) {
	hc := &http.Client{Timeout: time.Second}
	for ctx.Err() == nil {
		b.mu.Lock()
		procs := slices.Clone(b.procs)
		b.mu.Unlock()
		for i, p := range procs {
			ok := false
			if resp, err := hc.Get("http://" + p.addr + "/readyz"); err == nil {
				ok = resp.StatusCode == http.StatusOK
				resp.Body.Close()
			}
			b.mu.Lock()
			if b.procs[i] == p {
				b.ready[i] = ok
			}
			b.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(checkEvery):
		}
	}
}

// pick returns the address of the next ready process, or "" if none is.
func (b *balancer) pick() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for range b.procs {
		i := b.next % len(b.procs)
		b.next++
		if b.ready[i] {
			return b.procs[i].addr
		}
	}
	return ""
}

// put places p in slot i (appending it if i is past the end), not ready
// until its first check.
func (b *balancer) put(i int, p *process) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i == len(b.procs) {
		b.procs, b.ready = append(b.procs, p), append(b.ready, false)
		return
	}
	b.procs[i], b.ready[i] = p, false
}

func (b *balancer) isReady(i int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ready[i]
}

// TestRollingRestart: three serve processes on one PostgreSQL database,
// under the batch strategy, behind a balancer that sends each request to
// an instance whose /readyz answered 200, take checkouts from buyers who
// retry a request that got no answer, or a 503, on another instance with
// the same Idempotency-Key, as a client may. Each instance in turn gets
// SIGTERM and is started again. While it drains, /readyz answers 503 and
// its listener still serves; it exits 0 once its requests in flight, and
// the batches they wait in, are answered. No buyer's order fails, each
// key commits once (the units committed are exactly those acknowledged),
// every acknowledged order is listed, and the ledger balances.
func TestRollingRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	testkit.Heavy(t)
	store := newDatabase(t)
	const drain = 2 * time.Second // 40 health checks: the balancer notices
	args := []string{"-store", store, "-strategy", engine.Batch, "-drain-delay", drain.String()}
	lb := &balancer{}
	for i := range 3 {
		lb.put(i, startProcess(t, args...))
	}
	checkCtx, stopChecks := context.WithCancel(t.Context())
	defer stopChecks()
	go lb.check(checkCtx)
	const stock = 1_000_000
	stockUp(t, httpapi.NewClient("http://"+lb.procs[0].addr, httpClient), "steady", stock)

	var (
		mu        sync.Mutex
		acked     = map[string]stockade.Order{} // by key
		latencies []time.Duration               // from a key's first attempt to its answer
		failed    []string
		retries   atomic.Int64
	)
	ctx, stopBuyers := context.WithCancel(t.Context())
	var buyers sync.WaitGroup
	for g := range 8 {
		buyers.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				key := fmt.Sprintf("buyer-%d-%d", g, i)
				start := time.Now()
				o, err := buyThroughRestarts(lb, key, &retries)
				mu.Lock()
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", key, err))
				} else {
					acked[key] = o
					latencies = append(latencies, time.Since(start))
				}
				mu.Unlock()
			}
		})
	}
	ackedNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}

	var stops []time.Duration
	for i := range 3 {
		before := ackedNow()
		waitFor(t, "orders flowing", func() bool { return ackedNow() >= before+100 })
		old := lb.procs[i]
		signalled := time.Now()
		if err := old.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// Draining: not ready, still serving.
		waitWithin(t, "instance "+old.addr+" not ready after SIGTERM", drain, func() bool {
			code, _ := get(t, "http://"+old.addr+"/readyz")
			return code == http.StatusServiceUnavailable
		})
		if code, _ := get(t, "http://"+old.addr+"/healthz"); code != http.StatusOK {
			t.Fatalf("instance %s while draining: GET /healthz = %d, want 200 (the listener still open)", old.addr, code)
		}
		exited := make(chan error, 1)
		go func() { exited <- old.cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("instance %s after SIGTERM: %v, want exit status 0", old.addr, err)
			}
		case <-time.After(drain + time.Minute):
			t.Fatalf("instance %s did not exit within %s of SIGTERM", old.addr, drain+time.Minute)
		}
		stops = append(stops, time.Since(signalled))
		if !strings.Contains(old.log.String(), `msg=draining`) {
			t.Errorf("instance %s logged no draining", old.addr)
		}
		lb.put(i, startProcess(t, args...))
		waitFor(t, "the restarted instance ready", func() bool { return lb.isReady(i) })
	}
	before := ackedNow()
	waitFor(t, "orders flowing after the last restart", func() bool { return ackedNow() >= before+100 })
	stopBuyers()
	buyers.Wait()
	stopChecks()

	if len(failed) > 0 {
		t.Fatalf("%d orders failed through the restarts; the first: %s", len(failed), failed[0])
	}
	c := httpapi.NewClient("http://"+lb.procs[0].addr, httpClient)
	listed := map[string]bool{}
	for q := (stockade.ListQuery{Limit: 1000}); ; {
		page, err := c.Orders(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Orders {
			listed[o.ID] = true
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for key, o := range acked {
		if !listed[o.ID] {
			t.Errorf("order %s, acknowledged to %s, is not listed", o.ID, key)
		}
	}
	if len(listed) != len(acked) {
		t.Errorf("%d orders listed, %d keys acknowledged: a key committed twice", len(listed), len(acked))
	}
	checkTotals(t, c, "steady", stock, int64(len(acked)))
	reconcileClean(t, store)

	slices.Sort(latencies)
	t.Logf("%d orders through 3 rolling restarts, %d retried attempts; latency p50 %s, p99 %s, max %s; SIGTERM to exit %v",
		len(acked), retries.Load(), latencies[len(latencies)/2], latencies[len(latencies)*99/100], latencies[len(latencies)-1], stops)
}

// buyThroughRestarts checks out one unit of "steady" under key through
// lb, trying again on another instance, with the same key, after an
// attempt that got no answer or a 503 (retries counts those), for at most
// a minute: as a client that may retry would.
func buyThroughRestarts(lb *balancer, key string, retries *atomic.Int64) (stockade.Order, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		addr := lb.pick()
		var err error
		if addr != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			var o stockade.Order
			o, err = httpapi.NewClient("http://"+addr, httpClient).Checkout(ctx, stockade.ReserveRequest{
				Lines: []stockade.Line{{SKU: "steady", Quantity: 1}},
			}, &stockade.Idempotency{Key: key})
			cancel()
			if err == nil {
				return o, nil
			}
			if isProblem(err) && stockade.ErrorCode(err) != stockade.EUnavailable {
				return o, err // a refusal: a retry would get the same
			}
		}
		if time.Now().After(deadline) {
			return stockade.Order{}, fmt.Errorf("no answer within a minute; the last attempt: %v", err)
		}
		retries.Add(1)
		time.Sleep(10 * time.Millisecond)
	}
}
