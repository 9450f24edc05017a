// Package locktest is the conformance suite for lock.Locker backends. Every
// backend runs it from its own tests, against a real server, so that all
// backends keep the same contract: exclusion, expiry, fencing tokens,
// cancellation, loss reporting, fairness and AcquireAll.
//
// # Using it
//
// Call Run from a test with a function that returns a new Locker on the
// shared state, as a separate process on the same server would:
//
//	func TestConformance(t *testing.T) {
//		srv := testkit.SharedRedis(t) // a real server, shared by the tests
//		locktest.Run(t, func(t *testing.T) lock.Locker {
//			client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
//			t.Cleanup(func() { client.Close() })
//			return redislock.New(client, nil)
//		}, locktest.WithRevoke(func(t *testing.T, key string) {
//			// delete the key's current lease on the server
//		}), locktest.WithWaiters(func(t *testing.T, key string) int {
//			// return how many acquirers are queued for key on the server
//		}))
//	}
//
// newLocker is called several times per test with the subtest's t, so it
// registers its clean-up there. The suite plays several processes with the
// Lockers it gets, and uses keys of its own ("locktest/<test name>/<random>")
// so the server can be shared with other tests. An in-process backend
// returns the same Locker each time.
//
// Options supply what only the backend can do:
//
//   - WithRevoke deletes a key's current lease behind its holder's back, as
//     an operator or a server restart would. It enables the tests of what a
//     holder does when its lease vanished: the backend's Refresh and Release
//     must refuse to touch the new holder's lease, and the auto-renew
//     watchdog must report the loss. Without it those tests are skipped.
//   - WithWaiters counts the acquirers queued for a key on the server. The
//     fairness test starts each waiter once the one before it shows in the
//     queue, so that arrival order is the order the server saw; it fails
//     without it, so every backend must supply it.
//   - WithShortTTL sets the TTL of the tests that wait for expiry (300ms
//     by default) for backends that cannot honour short leases.
//
// ServerDown is a check of its own, for a backend whose test can stop its
// server for good (the test kit's Kill): a held, auto-renewed lease reports
// ErrLost, and TryAcquire fails with ErrUnavailable on the backend's own
// timeouts.
//
// # What it checks
//
// One subtest each, so `go test -run 'Conformance/Fairness'` runs one:
// mutual exclusion under load (64 goroutines over 4 lockers, with an overlap
// detector), fencing tokens, TryAcquire on a held key, expiry of a vanished
// holder's lease, that a stale or revoked holder can neither release nor
// refresh, Release retries, cancellation and the WithWait bound, Refresh and
// auto-renewal (also after a revoke), AcquireAll under contention and its
// all-or-nothing rule, first-come first-served fairness, Observer events and
// invalid input.
//
// # Timing
//
// The suite runs in a few seconds against an in-memory backend and well
// under half a minute against a server. Speed is never a pass/fail
// criterion: every wait is bounded only to turn a hang into a failure, and
// the load tests do fewer rounds on a slow backend instead of taking longer.
// A short TTL is used only where its lapse is what a test waits for; a lease
// that must outlive the test's own work (a Refresh to send, auto-renewals
// every TTL/3) gets a TTL of seconds, so that a goroutine stalled by the
// race detector cannot fail the test. Run it with -race.
package locktest
