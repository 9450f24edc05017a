// Package lockhistory records lock histories under faults and checks them
// with porcupine (github.com/anishathalye/porcupine), a linearizability
// checker the project did not write: the proof that no two holders of a
// key overlapped comes from code independent of the lockers it judges.
//
// # What is checked
//
// One key is modelled as a lock: its state is the client holding it (or
// none) and the largest fencing token granted. Acquire by a client is legal
// only when the key is free and, for backends with fencing tokens, only
// with a token larger than every earlier grant's; Release only when that
// client holds the key. A lease lost to expiry or to a failed renewal is a
// Release done by the lock.
//
// A holder counts as holding from the return of its Acquire until the last
// moment it saw its lease still held, checking Done before each act of its
// critical section. The Release operation spans from that moment until the
// holder learnt that the lease was over: its Release returned, or it saw
// Done closed. If two holders saw their leases held at overlapping times,
// no order of the operations satisfies the model and porcupine answers
// Illegal. TestModel shows the checker refusing planted overlaps and a
// token that goes backwards; TestBrokenLockerFails records a live history
// from lockers that do not exclude each other and requires it to fail.
//
// A holder must stop acting when Done closes. What it does after that (a
// write already in flight, a process paused between its check and its
// write) is not exclusion a lease can give: that is what fencing tokens
// are for, refused by the resource when a larger token has been seen.
//
// # Histories
//
// Four clients, each with its own Locker and connections as separate
// processes would have, take the same key over and over with short
// critical sections, while the test injects faults into real servers
// started through the test kit (internal/testkit):
//
//   - memlock: holder goroutines sleep past their TTL in the critical
//     section and must find Done closed when they wake.
//   - redislock: redis-server paused with SIGSTOP past the TTL; killed and
//     restarted (empty) once the TTL has passed.
//   - redlock: five redis-servers; three (a majority) paused past the
//     TTL, two paused together, one killed and restarted empty after the
//     TTL. Redlock's tokens are not safe fencing tokens, so only exclusion
//     is checked.
//   - pglock: PostgreSQL paused with SIGSTOP, past the leases' check
//     timeout and for less; and, in a history of its own, restarted.
//   - etcdlock: the etcd member paused past the TTL, and restarted.
//
// A PostgreSQL restart frees every lock at once, and a holder learns of
// it only at its next connection check, within about CheckInterval, as
// the pglock package documents: a waiter whose session outlives the
// holder's during the shutdown can be granted the key before the holder
// sees Done close. That history is checked with a lag (NewLaggingRecorder):
// a lost lease may have ended up to twice CheckInterval plus scheduling
// slack before its holder last saw it held, no earlier, and its critical
// sections are longer than the lag so that a holder acting longer on a
// lost lease would show. The test logs the check without the lag too,
// which usually fails: between a restart and the holder's next check, two
// holders do overlap, and only the fencing token, which keeps rising
// across the restart and is checked, protects a resource from the late
// one.
//
// Each history must contain a minimum of grants and of lost leases, so a
// run in which the faults did not bite fails rather than passes.
//
// A pglock holder in a process of its own is paused with SIGSTOP while it
// holds the key: the server must free the key through idle_session_timeout
// within TTL + 2s, and the other clients take it meanwhile. Once resumed,
// the holder may act before its own timers close Done: a process pause
// outlasting a lease is the case no lease can exclude. Those stale acts
// are counted, not checked for exclusion; each must carry a token smaller
// than one granted while it was paused, so that a fencing resource refuses
// it. The holding up to the pause and every other holding go through
// porcupine.
//
// Not injected, because the backends do not claim to survive it: a Redis
// restart that loses its data while a lease on it is still valid (for
// redislock a single point of failure; for redlock safe only while no
// more than a minority of nodes forget grants that are still valid).
//
// # Running
//
// The tests need redis-server, PostgreSQL and etcd; with
// STOCKADE_REQUIRE_SERVERS=1 a missing one fails the test instead of
// skipping it:
//
//	cd lock
//	STOCKADE_REQUIRE_SERVERS=1 go test -race -count=1 ./internal/lockhistory/
//
// Each history lasts a few seconds by default. STOCKADE_LOCKHISTORY_DURATION
// (a Go duration) runs every history for that long, cycling its faults:
//
//	STOCKADE_LOCKHISTORY_DURATION=5m go test -count=1 -timeout 0 ./internal/lockhistory/
//
// The package lives in the lock module, beside the backends it checks, and
// is internal to it. porcupine is required by the lock module only for this
// package: a program importing the lock library never builds, downloads or
// lists it in its own go.mod or go.sum, as the consumer check of
// scripts/test proves.
package lockhistory
