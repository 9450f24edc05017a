//go:build !linux

package lockbench

import "time"

// hold stands for a critical section's work of d. Elsewhere than on Linux
// it is time.Sleep, which can overrun d by up to a millisecond when other
// events wake the process during it (see hold_linux.go).
func hold(d time.Duration) { time.Sleep(d) }
