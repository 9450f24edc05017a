// Package lockprom records the life of lock leases in Prometheus metrics: a
// lock.Observer built on prometheus/client_golang. It is a module of its
// own, so that the lock module stays free of client_golang.
//
// # The common path
//
//	obs, err := lockprom.New(prometheus.DefaultRegisterer, &lockprom.Options{
//		Prefix: "shop_lock",
//		Class:  lockprom.PrefixClass("sku:", "order:"),
//	})
//	if err != nil {
//		return err // metrics of the same names are registered already
//	}
//	lease, err := locker.Acquire(ctx, "sku:42", lock.WithObserver(obs))
//
// An Observer sees only the acquisitions it is passed to, and through
// them the releases, renewals and losses of their leases: pass it to every
// Acquire and TryAcquire (and AcquireAll, AcquirePermits…) to be counted,
// or wrap the Locker in one that adds it.
//
// # Metrics
//
// With the default Prefix "lock":
//
//   - lock_acquisitions_total{class,contended}: leases granted; contended
//     is "true" if the key was held or queued for when asked.
//   - lock_failures_total{class,reason}: acquisitions that gave up. The
//     reason comes from the event's error, matched with errors.Is in this
//     order: "unavailable" (lock.ErrUnavailable: the backend failed),
//     "invalid" (lock.ErrInvalid), "timeout" (context.DeadlineExceeded:
//     the context's deadline or the WithWait bound), "canceled"
//     (context.Canceled), "held" (lock.ErrNotAcquired alone: TryAcquire
//     found the key taken) and "other".
//   - lock_wait_seconds{class,outcome}: histogram of the time an
//     acquisition took, outcome "acquired" or "not_acquired".
//   - lock_hold_seconds{class,end}: histogram of the time a lease was
//     held, end "released" or "lost".
//   - lock_active_leases{class}: leases granted and not yet ended.
//   - lock_lost_total{class}: leases that ended without a release.
//   - lock_renew_failures_total{class}: automatic renewals that failed and
//     were to be retried; the lease may still be held.
//
// # Cardinality
//
// No metric has the key as a label: a service that locks one key per SKU
// or per order would make a series of every one. Options.Class maps each
// key to one of a few classes instead, by default the single class "all";
// PrefixClass classes keys by their prefix. The Class function must return
// few distinct values.
//
// # Active leases
//
// The gauge counts a lease from its Acquired event to its Released or Lost
// event, telling leases apart by key and fencing token. The lock backends
// report each lease's end once; the Observer still keeps the gauge right
// when a lease's Lost arrives before its Acquired (a lease that expires as
// it is granted), and an end reported twice cannot take it below zero.
// Leases that carry no token (semaphore permits, shared leases) are counted
// together per key. The Observer keeps a small entry per lease held.
package lockprom
