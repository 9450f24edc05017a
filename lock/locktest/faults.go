package locktest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// ServerDown checks what a backend does when its server dies for good:
// kill must stop the server that l uses. A lease held with auto-renew
// (of the given ttl) closes Done with Err ErrLost once its refreshes fail
// past its deadline, and TryAcquire fails with ErrUnavailable naming the
// key, on the backend's own timeouts rather than the caller's context.
func ServerDown(t *testing.T, l lock.Locker, kill func() error, ttl time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	defer cancel()
	le, err := l.Acquire(ctx, "locktest/server-down", lock.WithTTL(ttl), lock.WithAutoRenew())
	if err != nil {
		t.Fatal(err)
	}
	if err := kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-le.Done():
		if !errors.Is(le.Err(), lock.ErrLost) {
			t.Fatalf("Err = %v, want ErrLost", le.Err())
		}
	case <-time.After(ttl + 5*time.Second):
		t.Fatal("lease not declared lost after the server died")
	}
	_, err = l.TryAcquire(ctx, "locktest/server-down")
	if !errors.Is(err, lock.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryAcquire with the server down: %v, want ErrUnavailable before the context's deadline", err)
	}
	if !strings.Contains(err.Error(), `"locktest/server-down"`) {
		t.Errorf("error %q does not name the key", err)
	}
}
