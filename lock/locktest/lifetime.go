package locktest

import (
	"errors"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// lossBound is how long a test waits for a lease that should end to say so.
// Backends end it at its TTL or sooner; the bound only catches hangs.
func (s *suite) lossBound() time.Duration { return 10*s.ttl + 5*time.Second }

// testExpiry checks that a key whose holder vanished (never released, never
// renewed) is taken by the next waiter after its TTL, and that the old
// lease reports the loss.
func (s *suite) testExpiry(t *testing.T) {
	ls := s.lockers(t, 2)
	key := s.key(t)
	a := s.acquire(t, ls[0], key, lock.WithTTL(s.ttl))
	b := s.acquire(t, ls[1], key) // waits for the expiry
	if b.Token() <= a.Token() {
		t.Errorf("token after expiry %d not larger than the expired holder's %d", b.Token(), a.Token())
	}
	mustBeLost(t, a, s.lossBound())
	mustBeLive(t, b)
	s.release(t, b)
}

// testStaleHolder checks that a holder whose lease expired and was taken
// by another can neither release nor refresh it.
func (s *suite) testStaleHolder(t *testing.T) {
	ls := s.lockers(t, 3)
	key := s.key(t)
	a := s.acquire(t, ls[0], key, lock.WithTTL(s.ttl))
	b := s.acquire(t, ls[1], key)
	mustBeLost(t, a, s.lossBound())

	if err := a.Release(s.ctx(t)); !errors.Is(err, lock.ErrLost) {
		t.Errorf("stale holder's Release = %v; want ErrLost", err)
	}
	s.mustBeHeld(t, ls[2], key)
	if err := a.Refresh(s.ctx(t), time.Minute); !errors.Is(err, lock.ErrLost) {
		t.Errorf("stale holder's Refresh = %v; want ErrLost", err)
	}
	s.mustBeHeld(t, ls[2], key)
	mustBeLive(t, b)
	s.release(t, b)
	s.mustBeFree(t, ls[2], key)
}

// testRevokedHolder checks, with a lease deleted on the server while its
// holder still believes in it, that the backend's own Refresh and Release
// refuse to act on the new holder's lease.
func (s *suite) testRevokedHolder(t *testing.T) {
	if s.revoke == nil {
		t.Skip("needs locktest.WithRevoke")
	}
	ls := s.lockers(t, 3)
	key := s.key(t)
	a := s.acquire(t, ls[0], key)
	s.revoke(t, key)
	b := s.acquire(t, ls[1], key)
	if b.Token() <= a.Token() {
		t.Errorf("token after revoke %d not larger than the revoked holder's %d", b.Token(), a.Token())
	}

	if err := a.Release(s.ctx(t)); !errors.Is(err, lock.ErrLost) {
		t.Errorf("revoked holder's Release = %v; want ErrLost", err)
	}
	mustBeLost(t, a, s.lossBound())
	s.mustBeHeld(t, ls[2], key)

	a2 := s.acquire(t, ls[0], s.key(t)) // a second revoked lease, to try Refresh first
	s.revoke(t, a2.Key())
	b2 := s.acquire(t, ls[1], a2.Key())
	if err := a2.Refresh(s.ctx(t), time.Minute); !errors.Is(err, lock.ErrLost) {
		t.Errorf("revoked holder's Refresh = %v; want ErrLost", err)
	}
	mustBeLost(t, a2, s.lossBound())
	s.mustBeHeld(t, ls[2], a2.Key())

	for _, l := range []lock.Lease{b, b2} {
		mustBeLive(t, l)
		if err := l.Refresh(s.ctx(t), time.Minute); err != nil {
			t.Errorf("new holder's Refresh = %v", err)
		}
		s.release(t, l)
		s.mustBeFree(t, ls[2], l.Key())
	}
}

// testReleaseRetry checks that Release ends the lease, is safe to retry,
// and that a late retry never frees the next holder.
func (s *suite) testReleaseRetry(t *testing.T) {
	ls := s.lockers(t, 3)
	key := s.key(t)
	a := s.acquire(t, ls[0], key)
	mustBeLive(t, a)
	s.release(t, a)
	if !isClosed(a) {
		t.Errorf("Done not closed when Release returned")
	}
	if err := a.Err(); !errors.Is(err, lock.ErrReleased) {
		t.Errorf("Err() after Release = %v; want ErrReleased", err)
	}
	if err := a.Release(s.ctx(t)); err != nil {
		t.Errorf("second Release = %v; want nil", err)
	}
	if err := a.Refresh(s.ctx(t), time.Minute); !errors.Is(err, lock.ErrReleased) {
		t.Errorf("Refresh after Release = %v; want ErrReleased", err)
	}

	b := s.acquire(t, ls[1], key)
	if err := a.Release(s.ctx(t)); err != nil {
		t.Errorf("late Release retry = %v; want nil", err)
	}
	s.mustBeHeld(t, ls[2], key)
	mustBeLive(t, b)
	s.release(t, b)
}

// testRefresh checks that Refresh extends a lease past its original TTL.
// The original TTL is long enough that the Refresh cannot come too late.
func (s *suite) testRefresh(t *testing.T) {
	ls := s.lockers(t, 2)
	key := s.key(t)
	ttl := max(s.ttl, steadyTTL)
	a := s.acquire(t, ls[0], key, lock.WithTTL(ttl))
	if err := a.Refresh(s.ctx(t), 10*ttl); err != nil {
		t.Fatalf("Refresh = %v", err)
	}
	time.Sleep(ttl) // past the original TTL, which ran from before Acquire returned
	mustBeLive(t, a)
	s.mustBeHeld(t, ls[1], key)
	s.release(t, a)
	s.mustBeFree(t, ls[1], key)
}

// testAutoRenew checks that WithAutoRenew keeps a lease alive for two
// TTLs, during which nobody else can take the key. The TTL is long enough
// that a renewal delayed by a stalled goroutine still comes in time.
func (s *suite) testAutoRenew(t *testing.T) {
	ls := s.lockers(t, 2)
	key := s.key(t)
	ttl := max(s.ttl, steadyTTL)
	a := s.acquire(t, ls[0], key, lock.WithTTL(ttl), lock.WithAutoRenew())
	for range 4 { // two TTLs
		time.Sleep(ttl / 2)
		mustBeLive(t, a)
		s.mustBeHeld(t, ls[1], key)
	}
	s.release(t, a)
	if err := a.Err(); !errors.Is(err, lock.ErrReleased) {
		t.Errorf("Err() after Release = %v; want ErrReleased", err)
	}
	s.mustBeFree(t, ls[1], key)
}

// testAutoRenewRevoked checks that the watchdog notices a lease deleted
// behind its back: Done closes with ErrLost.
func (s *suite) testAutoRenewRevoked(t *testing.T) {
	if s.revoke == nil {
		t.Skip("needs locktest.WithRevoke")
	}
	ls := s.lockers(t, 2)
	key := s.key(t)
	a := s.acquire(t, ls[0], key, lock.WithTTL(s.ttl), lock.WithAutoRenew())
	s.revoke(t, key)
	mustBeLost(t, a, s.lossBound())
	if err := a.Release(s.ctx(t)); !errors.Is(err, lock.ErrLost) {
		t.Errorf("Release after loss = %v; want ErrLost", err)
	}
	b := s.acquire(t, ls[1], key)
	mustBeLive(t, b)
	s.release(t, b)
}
