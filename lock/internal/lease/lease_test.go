package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade/lock"
)

// slowRelease frees the lease on the "server" at once but answers Release
// only when told to, holding open the window in which a refresh runs.
type slowRelease struct {
	mu       sync.Mutex
	freed    bool
	released chan struct{}
	answer   chan struct{}
}

func (b *slowRelease) Refresh(context.Context, time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return fmt.Errorf("gone: %w", lock.ErrLost)
	}
	return nil
}

func (b *slowRelease) Release(context.Context) error {
	b.mu.Lock()
	b.freed = true
	b.mu.Unlock()
	close(b.released)
	<-b.answer
	return nil
}

func TestReleaseRacingRefresh(t *testing.T) {
	t.Parallel()
	b := &slowRelease{released: make(chan struct{}), answer: make(chan struct{})}
	cfg, _ := lock.NewConfig()
	var events []lock.EventKind
	cfg.Observer = lock.ObserverFunc(func(e lock.Event) { events = append(events, e.Kind) })
	l := New("k", 1, time.Now().Add(time.Minute), cfg, b)
	errc := make(chan error, 1)
	go func() { errc <- l.Release(context.Background()) }()
	<-b.released
	if err := l.Refresh(context.Background(), time.Minute); err == nil {
		t.Errorf("Refresh during Release = nil; want an error")
	}
	close(b.answer)
	if err := <-errc; err != nil {
		t.Errorf("Release = %v; want nil", err)
	}
	if err := l.Err(); !errors.Is(err, lock.ErrReleased) {
		t.Errorf("Err() = %v; want ErrReleased", err)
	}
	t.Logf("events: %v", events)
}

// lateTimer is a context whose deadline has passed but whose timer has not
// yet ended it.
type lateTimer struct{ context.Context }

func (lateTimer) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestRefuseAtThePassedDeadline(t *testing.T) {
	t.Parallel()
	a, _, err := Begin(context.Background(), "k", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A call failed on a context of the same deadline, whose timer ran
	// first: the wait ended, the backend did not fail.
	err = a.Refuse(lateTimer{context.Background()}, fmt.Errorf("redis: %w", context.DeadlineExceeded))
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lock.ErrUnavailable) {
		t.Errorf("Refuse at a passed deadline = %v; want ErrNotAcquired joined with context.DeadlineExceeded", err)
	}
	// Before the deadline, the same cause is the backend's failure.
	err = a.Refuse(context.Background(), fmt.Errorf("redis: %w", context.DeadlineExceeded))
	if !errors.Is(err, lock.ErrUnavailable) {
		t.Errorf("Refuse before any deadline = %v; want ErrUnavailable", err)
	}
}
