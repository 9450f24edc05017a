package lease

import (
	"sync"
	"time"
)

// CleanupWait is how long a caller waits for the clean-up of its
// abandoned acquisition (taking it out of a queue, giving back what a
// server may have granted): a healthy server answers long before, and one
// that stopped answering must not hold the caller past its deadline.
const CleanupWait = 100 * time.Millisecond

// Cleanups runs the clean-ups of a Locker's abandoned acquisitions, each
// bounded by its own timeout, in goroutines that Close waits for. The
// zero value is ready to use.
type Cleanups struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Go runs f in a goroutine of its own, or, once Close has been called, in
// the caller's.
func (c *Cleanups) Go(f func()) {
	c.start(f)
}

// Run runs f as Go does and waits for it up to CleanupWait.
func (c *Cleanups) Run(f func()) {
	done := c.start(f)
	t := time.NewTimer(CleanupWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

func (c *Cleanups) start(f func()) <-chan struct{} {
	done := make(chan struct{})
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.wg.Add(1)
	}
	c.mu.Unlock()
	if closed {
		f()
		close(done)
		return done
	}
	go func() {
		defer c.wg.Done()
		defer close(done)
		f()
	}()
	return done
}

// Close waits for the clean-ups running; later ones run in their callers'
// goroutines.
func (c *Cleanups) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}
