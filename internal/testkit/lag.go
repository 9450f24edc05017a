package testkit

import (
	"sync/atomic"
	"testing"
	"time"
)

// lagTick is how often a Lag's goroutine asks to wake.
const lagTick = 10 * time.Millisecond

// Lag measures how late this process's goroutines run on a busy machine:
// a goroutine asks to wake every 10 ms and keeps the largest delay past
// that. A test that times an answer on the client's side adds Max to its
// bound, since a client that runs late reads the answer late however soon
// it came: the bound then holds for the service, not for the machine.
// When the machine is calm Max is a few milliseconds, and the bound is as
// tight as written.
type Lag struct {
	max atomic.Int64 // nanoseconds
}

// WatchLag starts measuring, until t ends.
func WatchLag(t testing.TB) *Lag {
	l := &Lag{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTimer(lagTick)
		defer tick.Stop()
		for {
			asked := time.Now()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if late := time.Since(asked) - lagTick; late > time.Duration(l.max.Load()) {
				l.max.Store(int64(late))
			}
			tick.Reset(lagTick)
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
	return l
}

// Max returns the largest delay seen so far.
func (l *Lag) Max() time.Duration { return time.Duration(l.max.Load()) }
