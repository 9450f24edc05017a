package lock

import "time"

// EventKind says what happened to a lease.
type EventKind int

const (
	// Acquired: a lease was granted. Wait is the time spent waiting;
	// Contended is true if the key was held or queued for when asked.
	Acquired EventKind = iota + 1
	// NotAcquired: an Acquire or TryAcquire gave up. Wait and Err are set.
	NotAcquired
	// Released: the holder released the lease. Held is the hold time.
	Released
	// RenewFailed: an automatic renewal failed but the lease may still be
	// held; it will be retried. Err is set.
	RenewFailed
	// Lost: the lease ended without Release. Held and Err are set.
	Lost
)

func (k EventKind) String() string {
	switch k {
	case Acquired:
		return "acquired"
	case NotAcquired:
		return "not_acquired"
	case Released:
		return "released"
	case RenewFailed:
		return "renew_failed"
	case Lost:
		return "lost"
	}
	return "unknown"
}

// Event is one observation of a lease's life.
type Event struct {
	Kind      EventKind
	Key       string
	Token     uint64        // set once a lease exists
	Wait      time.Duration // Acquired, NotAcquired
	Held      time.Duration // Released, Lost
	Contended bool          // Acquired, NotAcquired
	Err       error         // NotAcquired, RenewFailed, Lost
}

// Observer receives lease events. Observe is called synchronously from the
// locker's goroutines, so it must be quick and safe for concurrent use.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// Notify sends e to o if o is not nil. Backends use it to report events.
func Notify(o Observer, e Event) {
	if o != nil {
		o.Observe(e)
	}
}
