package lockbench

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestHoldOutlastsSignals checks that a hold lasts its whole duration when
// signals keep interrupting the nanosleep under it. Go's runtime sends
// SIGURG to preempt goroutines; here the test sends it to the holding
// thread every millisecond, and each one cuts the system call short.
func TestHoldOutlastsSignals(t *testing.T) {
	const d = 50 * time.Millisecond
	tid := make(chan int)
	took := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
		start := time.Now()
		hold(d)
		took <- time.Since(start)
	}()
	pid, id := syscall.Getpid(), <-tid
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	sent := 0
	for {
		select {
		case got := <-took:
			if sent < 10 {
				t.Fatalf("only %d signals sent during the hold; the test proves nothing", sent)
			}
			if got < d {
				t.Fatalf("hold(%v) returned after %v, with %d signals sent", d, got, sent)
			}
			return
		case <-tick.C:
			if err := syscall.Tgkill(pid, id, syscall.SIGURG); err != nil {
				t.Fatal(err)
			}
			sent++
		}
	}
}
