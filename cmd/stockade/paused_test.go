package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
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

// pausedHolderTTL is the lock strategy's lease TTL in TestPausedLockHolder.
const pausedHolderTTL = 3 * time.Second

// TestPausedLockHolder: two instances sell one SKU under the lock
// strategy on one database. Instance A, eight buyers queued on the SKU's
// key, is paused (SIGSTOP) while it holds the key; instance B's first
// sale after the pause began must come within the lease's TTL and the
// backend's margin, not when A runs again. Then A resumes, and the sale
// is whole: the ledger balances. For every backend that crosses
// processes.
func TestPausedLockHolder(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, tc := range []struct {
		name   string
		locker func(t *testing.T) string
		// margin is what the backend adds to the TTL before a stopped
		// holder's key is free (see the README's backend table).
		margin time.Duration
	}{
		{"postgres", func(*testing.T) string { return "postgres" }, time.Second},
		{"redis", func(t *testing.T) string { return "redis://" + testkit.NewRedis(t).Addr() }, time.Second},
		{"redlock", func(t *testing.T) string {
			var addrs []string
			for range 3 {
				addrs = append(addrs, testkit.NewRedis(t).Addr())
			}
			return "redlock://" + strings.Join(addrs, ",")
		}, time.Second},
		// etcd counts a lease's TTL in whole seconds, and its leader
		// checks for expired leases every 500 ms.
		{"etcd", func(t *testing.T) string { return "etcd://" + testkit.SharedEtcd(t).Endpoint() }, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.Heavy(t)
			store := newDatabase(t)
			args := []string{"-store", store, "-strategy", engine.Lock, "-locker", tc.locker(t), "-lock-ttl", pausedHolderTTL.String()}
			a, b := startProcess(t, args...), startProcess(t, args...)
			ca, cb := httpapi.NewClient("http://"+a.addr, httpClient), httpapi.NewClient("http://"+b.addr, httpClient)
			stockUp(t, ca, "hot", 1_000_000)
			buy := func(ctx context.Context, c *httpapi.Client) error {
				_, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "hot", Quantity: 1}}}, nil)
				return err
			}

			// What a sale on B takes when nothing else wants the key.
			start := time.Now()
			if err := buy(t.Context(), cb); err != nil {
				t.Fatal(err)
			}
			alone := time.Since(start)

			ctx, stop := context.WithCancel(t.Context())
			var sold atomic.Int64
			var buyers sync.WaitGroup
			defer func() { stop(); buyers.Wait() }()
			for range 8 {
				buyers.Go(func() {
					for ctx.Err() == nil {
						if buy(ctx, ca) == nil {
							sold.Add(1)
						}
					}
				})
			}
			for deadline := time.Now().Add(time.Minute); sold.Load() < 20; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("A sold %d in a minute, want 20 before it is paused", sold.Load())
				}
			}

			// Paused while it holds the key, which B's inspector shows
			// (held by A: B has not asked for it since).
			var paused time.Time
			for try := 1; ; try++ {
				sendSignal(t, a, syscall.SIGSTOP)
				paused = time.Now()
				held, known := keyHeld(t, b.addr, "stockade:sku:hot")
				if held || !known {
					if !known {
						t.Log("the backend has no inspector: A is taken to hold the key, as its buyers queue for it")
					}
					break
				}
				if try == 20 {
					t.Fatal("A never held the key when paused, in 20 tries")
				}
				sendSignal(t, a, syscall.SIGCONT)
				time.Sleep(20 * time.Millisecond)
			}
			resumed := false
			resume := func() {
				if !resumed {
					sendSignal(t, a, syscall.SIGCONT)
					resumed = true
				}
			}
			defer resume()

			// B buys until it sells; an attempt that its deadline ends
			// (503) is tried again, as a client would.
			var first time.Duration
			for give := paused.Add(4*pausedHolderTTL + 30*time.Second); ; {
				err := buy(t.Context(), cb)
				if err == nil {
					first = time.Since(paused)
					break
				}
				if stockade.ErrorCode(err) != stockade.EUnavailable || time.Now().After(give) {
					t.Fatalf("B's sale %v after A was paused: %v", time.Since(paused), err)
				}
			}
			resume()
			// The sale itself, once the key is B's: four times what one
			// took alone, and a second for a machine busy with the rest
			// of the suite.
			bound := pausedHolderTTL + tc.margin + 4*alone + time.Second
			t.Logf("%s: B's first sale %v after A was paused holding the key (TTL %v, bound %v; a sale alone took %v)", tc.name, first, pausedHolderTTL, bound, alone)
			if first > bound {
				t.Errorf("B's first sale came %v after A was paused holding the key, past the TTL %v + the backend's margin %v + the sale's own time (%v)",
					first, pausedHolderTTL, tc.margin, bound-pausedHolderTTL-tc.margin)
			}
			stop()
			buyers.Wait()
			reconcileClean(t, store)
		})
	}
}

// sendSignal sends sig to p's process.
func sendSignal(t *testing.T, p *process, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%v to serve: %v", sig, err)
	}
}

// keyHeld asks the lock inspector of the service at addr whether key has
// a holder; known is false when the service's locker has no inspector.
func keyHeld(t *testing.T, addr, key string) (held, known bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/v1/locks?prefix="+url.QueryEscape(key), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusConflict { // no inspector
		return false, false
	}
	var page struct {
		Locks []struct {
			Key     string            `json:"key"`
			Holders []json.RawMessage `json:"holders"`
		} `json:"locks"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/locks: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(fmt.Errorf("GET /v1/locks: %w", err))
	}
	for _, l := range page.Locks {
		if l.Key == key && len(l.Holders) > 0 {
			return true, true
		}
	}
	return false, true
}
