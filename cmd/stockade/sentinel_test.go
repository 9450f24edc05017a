package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// sentinelURL returns the -locker URL of the primary that s's Sentinels
// watch: go-redis's failover URL.
func sentinelURL(s *testkit.RedisSentinel) string {
	addrs := s.SentinelAddrs()
	q := url.Values{"master_name": {s.MasterName()}, "addr": addrs[1:]}
	return "redis://" + addrs[0] + "/?" + q.Encode()
}

// TestSentinelFailoverUnderLoad: two instances sell one SKU under the lock
// strategy on one database, their locker a Redis primary watched by three
// Sentinels, while sixteen buyers buy one unit at a time until it sells
// out. The primary is killed mid-sale. The instances sell again once the
// Sentinels have promoted the replica and the client has followed them;
// requests answered in between are 503 (tried again, as a client would),
// never anything else; the SKU does not oversell, and the ledger
// balances. The pause is logged: the time from the kill to each
// instance's first sale, and the latencies around it.
func TestSentinelFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	testkit.Heavy(t)
	s := testkit.NewRedisSentinel(t, nil)
	store := newDatabase(t)
	args := []string{"-store", store, "-strategy", engine.Lock, "-locker", sentinelURL(s), "-lock-ttl", "3s"}
	a, b := startProcess(t, args...), startProcess(t, args...)
	clients := []*httpapi.Client{httpapi.NewClient("http://"+a.addr, httpClient), httpapi.NewClient("http://"+b.addr, httpClient)}
	const stock = 600
	stockUp(t, clients[0], "hot", stock)

	type call struct {
		instance   int
		start, end time.Time
		outcome    string // "ok" or the error code
	}
	var (
		mu    sync.Mutex
		calls []call
		sold  int
	)
	ctx, stop := context.WithTimeout(t.Context(), 90*time.Second)
	defer stop()
	var buyers sync.WaitGroup
	for i := range 16 {
		buyers.Go(func() {
			c := clients[i%2]
			for ctx.Err() == nil {
				start := time.Now()
				_, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "hot", Quantity: 1}}}, nil)
				end := time.Now()
				outcome := "ok"
				if err != nil {
					outcome = stockade.ErrorCode(err)
					if outcome == stockade.EInternal {
						outcome = err.Error()
					}
				}
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				calls = append(calls, call{i % 2, start, end, outcome})
				if outcome == "ok" {
					sold++
				}
				mu.Unlock()
				if outcome == stockade.EInsufficientStock {
					return // sold out
				}
			}
		})
	}
	soldNow := func() int { mu.Lock(); defer mu.Unlock(); return sold }
	for deadline := time.Now().Add(time.Minute); soldNow() < 100; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sold %d in a minute, want 100 before the primary fails", soldNow())
		}
	}
	old := s.Nodes()[0]
	killed := time.Now()
	if err := old.Kill(); err != nil {
		t.Fatal(err)
	}
	soldBefore := soldNow()
	promoted, err := s.WaitPrimary(old)
	if err != nil {
		t.Fatal(err)
	}
	named := time.Since(killed)
	buyers.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the sale did not sell out in 90 s: %d sold", soldNow())
	}

	// What the buyers saw.
	outcomes := map[string]int{}
	first := [2]time.Duration{-1, -1} // from the kill to each instance's first sale
	var before, around, after []time.Duration
	for _, c := range calls {
		outcomes[c.outcome]++
		d := c.end.Sub(c.start)
		switch {
		case c.end.Before(killed):
			before = append(before, d)
		case c.start.After(killed.Add(named + 2*time.Second)):
			after = append(after, d)
		default:
			around = append(around, d)
		}
		if c.outcome == "ok" && c.start.After(killed) && (first[c.instance] < 0 || c.end.Sub(killed) < first[c.instance]) {
			first[c.instance] = c.end.Sub(killed)
		}
	}
	for o, n := range outcomes {
		if o != "ok" && o != stockade.EUnavailable && o != stockade.EInsufficientStock {
			t.Errorf("%d calls answered %s", n, o)
		}
	}
	if outcomes["ok"] > stock {
		t.Errorf("%d orders of %d units: oversold", outcomes["ok"], stock)
	}
	t.Logf("primary killed after %d sales; the sentinels named %s after %v; first sale after the kill: instance A %v, B %v",
		soldBefore, promoted.Addr(), named.Round(time.Millisecond), first[0].Round(time.Millisecond), first[1].Round(time.Millisecond))
	t.Logf("outcomes %v", outcomes)
	for _, w := range []struct {
		name string
		ds   []time.Duration
	}{{"before the kill", before}, {"from the kill to 2 s after the new primary was named", around}, {"after", after}} {
		t.Logf("latency %s: %s", w.name, latencies(w.ds))
	}
	for i, d := range first {
		if d < 0 {
			t.Errorf("instance %c sold nothing after the primary was killed", 'A'+i)
		}
	}
	if outcomes["ok"] != stock {
		t.Errorf("%d orders acknowledged; want the whole stock, %d: the sale ran until it sold out", outcomes["ok"], stock)
	}
	checkTotals(t, clients[1], "hot", stock, int64(outcomes["ok"]))
	reconcileClean(t, store)
}

// latencies summarizes ds: how many, p50, p99 and max.
func latencies(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1))].Round(100 * time.Microsecond) }
	return fmt.Sprintf("n=%d p50=%v p99=%v max=%v", len(ds), q(0.5), q(0.99), ds[len(ds)-1].Round(100*time.Microsecond))
}
