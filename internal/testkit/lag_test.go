package testkit

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestLag: with many more busy goroutines than the process has CPUs, the
// watcher's goroutine wakes late, and Lag says so. Not parallel: it
// measures, and slows, the whole process.
func TestLag(t *testing.T) {
	l := WatchLag(t)
	time.Sleep(5 * lagTick)
	calm := l.Max()
	busy := 25 * runtime.GOMAXPROCS(0)
	stop := time.Now().Add(500 * time.Millisecond)
	var wg sync.WaitGroup
	for range busy {
		wg.Go(func() {
			for time.Now().Before(stop) {
			}
		})
	}
	wg.Wait()
	// Each of busy goroutines gets its turn of about 10 ms before the
	// watcher's comes round again.
	if got := l.Max(); got < 50*time.Millisecond {
		t.Errorf("lag %v with %d goroutines spinning on %d CPUs (%v before), want 50ms or more", got, busy, runtime.GOMAXPROCS(0), calm)
	}
	t.Logf("lag %v before, %v with %d goroutines spinning", calm, l.Max(), busy)
}
