package httpapi

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckPinger is a dependency check that ignores its context: it answers
// when release is closed.
type stuckPinger struct{ release <-chan struct{} }

func (p stuckPinger) Ping(context.Context) error {
	<-p.release
	return nil
}

// otherWait blocks until release is closed, in a goroutine labelled as
// another request's.
func otherWait(release <-chan struct{}) { <-release }

// TestOverdueRequestLogsItsStacks: a request still running a second past
// its deadline, held by something that ignores its context, is logged with
// the stacks of its own goroutines and no other request's.
func TestOverdueRequestLogsItsStacks(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var log syncBuffer
	s := NewServer(nil, slog.New(slog.NewTextHandler(&log, nil)), &Options{RequestTimeout: 50 * time.Millisecond}, stuckPinger{release})

	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(release)
	wg.Go(func() {
		pprof.Do(context.Background(), pprof.Labels(requestLabel, "another"), func(context.Context) { otherWait(release) })
	})
	wg.Go(func() {
		req := httptest.NewRequest("GET", "/readyz", nil)
		req.Header.Set(requestIDHeader, "stuck-1")
		s.ServeHTTP(httptest.NewRecorder(), req)
	})

	// The warning comes overdueAfter past the deadline; the bound is for
	// a busy machine.
	var line string
	for deadline := time.Now().Add(30 * time.Second); line == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no warning logged within 30s; the log:\n%s", log.String())
		}
		for l := range strings.Lines(log.String()) {
			if strings.Contains(l, `msg="request past its deadline"`) {
				line = l
			}
		}
	}
	for _, want := range []string{"request_id=stuck-1", "path=/readyz", "stuckPinger.Ping", "(*Server).readyz"} {
		if !strings.Contains(line, want) {
			t.Errorf("the warning lacks %q: %s", want, line)
		}
	}
	if strings.Contains(line, "otherWait") {
		t.Errorf("the warning shows another request's goroutine: %s", line)
	}
}

// TestRequestLabelIsTakenOff: the goroutine that served a request does not
// carry its label into the connection's next request.
func TestRequestLabelIsTakenOff(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, unlabel := labelRequest(context.Background(), "gone-1")
		unlabel()
		if stacks := requestStacks("gone-1"); !strings.HasPrefix(stacks, "no goroutine") {
			t.Errorf("label still on after unlabel:\n%s", stacks)
		}
	}()
	<-done
}

// BenchmarkRequestWatch is what each request pays for the overdue
// warning: its pprof label on and off, and the timer set and stopped.
// Set its ns/op beside BenchmarkAccess's:
//
//	go test -run '^$' -bench 'BenchmarkRequestWatch|BenchmarkAccess' ./httpapi/
func BenchmarkRequestWatch(b *testing.B) {
	s := NewServer(nil, slog.New(slog.DiscardHandler), nil)
	req := httptest.NewRequest("GET", "/v1/orders", nil)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		_, unlabel := labelRequest(req.Context(), "bench-1")
		stop := s.watchOverdue(req, "bench-1", start, time.Minute)
		stop()
		unlabel()
	}
}
