package redisq

import "time"

// SetIdleUnsubscribe sets how long channels stay subscribed without
// waiters, for Notifiers made after it, until the returned func restores it.
func SetIdleUnsubscribe(d time.Duration) (restore func()) {
	old := idleUnsubscribe
	idleUnsubscribe = d
	return func() { idleUnsubscribe = old }
}

// MaxBatches is how many batches a Pipe has on the wire at once.
const MaxBatches = maxBatches

// Running is how many places on the wire p's batches hold.
func (p *Pipe) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}
