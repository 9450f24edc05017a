package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
)

// BenchmarkHTTPFlashSale drives one hot SKU through the HTTP API of a
// "stockade serve" process on PostgreSQL, 64 clients at a time, for each
// strategy, and reports orders per second, latency percentiles and the
// process's peak resident memory:
//
//	go test -run '^$' -bench HTTPFlashSale -benchtime 5s ./cmd/stockade/
func BenchmarkHTTPFlashSale(b *testing.B) {
	for _, strategy := range engine.Strategies() {
		b.Run(strategy, func(b *testing.B) {
			store := newDatabase(b)
			p := startProcess(b, "-store", store, "-strategy", strategy)
			c := httpapi.NewClient("http://"+p.addr, httpClient)
			stockUp(b, c, "hot", 1e9)

			const clients = 64
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					t0 := time.Now()
					_, err := c.Checkout(b.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "hot", Quantity: 1}}}, nil)
					if err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			elapsed := time.Since(start)
			b.StopTimer()
			slices.Sort(lat)
			if len(lat) == 0 {
				return
			}
			pct := func(q float64) float64 {
				return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "orders/s")
			b.ReportMetric(pct(0.50), "p50_ms")
			b.ReportMetric(pct(0.99), "p99_ms")
			if rss, err := peakRSS(p.cmd.Process.Pid); err == nil {
				b.ReportMetric(rss, "peak_rss_MiB")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// peakRSS reads a process's peak resident set (VmHWM) in MiB.
func peakRSS(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
