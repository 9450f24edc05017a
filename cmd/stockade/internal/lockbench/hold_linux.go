package lockbench

import (
	"syscall"
	"time"
)

// hold stands for a critical section's work of d: it sleeps for d in a
// nanosleep system call, which ends on the kernel's high-resolution timer.
//
// time.Sleep would measure Go's timers rather than the lock. An idle Go
// process waits for its next timer in the network poller, whose timeout is
// whole milliseconds: every event that wakes the process during a 1 ms
// sleep (a reply to another goroutine, say) re-arms the wait for a full
// millisecond more. The sleep then lasts 1.1–1.3 ms, depending on how much
// the implementation under test does while the key is held, and the hold
// stops being the same for every implementation.
func hold(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var left syscall.Timespec
		err := syscall.Nanosleep(&ts, &left)
		if err != syscall.EINTR {
			return
		}
		ts = left // a signal cut it short: sleep the rest
	}
}
