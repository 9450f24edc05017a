package lockbench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chanLocker is an in-process lock per key: a channel with room for one.
type chanLocker struct {
	mu   sync.Mutex
	keys map[string]chan struct{}
}

func (l *chanLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	l.mu.Lock()
	if l.keys == nil {
		l.keys = make(map[string]chan struct{})
	}
	ch := l.keys[key]
	if ch == nil {
		ch = make(chan struct{}, 1)
		l.keys[key] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func(context.Context) error { <-ch; return nil }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *chanLocker) close() error { return nil }

// noLocker excludes nobody.
type noLocker struct{}

func (noLocker) acquire(context.Context, string) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}

func (noLocker) close() error { return nil }

// flakyLocker refuses every other acquisition.
type flakyLocker struct {
	chanLocker
	n atomic.Int64
}

var errFlaky = errors.New("flaky: refused")

func (l *flakyLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	if l.n.Add(1)%2 == 0 {
		return nil, errFlaky
	}
	return l.chanLocker.acquire(ctx, key)
}

// deadlineLocker fails every acquisition at its context's deadline, on a
// timer of its own, as a client that bounds each call by the deadline does.
type deadlineLocker struct{}

func (deadlineLocker) acquire(ctx context.Context, key string) (func(context.Context) error, error) {
	if d, ok := ctx.Deadline(); ok {
		time.Sleep(time.Until(d))
	}
	return nil, errors.New("server call timed out")
}

func (deadlineLocker) close() error { return nil }

func TestMeasureCountsWhatHappened(t *testing.T) {
	const d = 200 * time.Millisecond
	oneKey := Workload{Name: "one", Goroutines: 4, Keys: 1, Hold: time.Millisecond}
	ownKeys := Workload{Name: "own", Goroutines: 4, Keys: 4, Hold: time.Millisecond}

	t.Run("exclusive lock", func(t *testing.T) {
		r := measure(t.Context(), &chanLocker{}, oneKey, d)
		if r.Ops == 0 || r.Violations != 0 || r.Failures != 0 {
			t.Fatalf("ops %d, violations %d, failures %d; want ops, no violations, no failures", r.Ops, r.Violations, r.Failures)
		}
		if r.Handoff.N == 0 {
			t.Errorf("no hand-offs among %d goroutines on one key", oneKey.Goroutines)
		}
		if r.Utilization <= 0 || r.Utilization > 1 {
			t.Errorf("utilization %v outside (0, 1]", r.Utilization)
		}
	})
	t.Run("one goroutine per key", func(t *testing.T) {
		r := measure(t.Context(), &chanLocker{}, ownKeys, d)
		if r.Ops == 0 || r.Violations != 0 {
			t.Fatalf("ops %d, violations %d", r.Ops, r.Violations)
		}
		if r.Handoff.N != 0 {
			t.Errorf("%d hand-offs, but nobody ever waits", r.Handoff.N)
		}
	})
	t.Run("no exclusion", func(t *testing.T) {
		r := measure(t.Context(), noLocker{}, oneKey, d)
		if r.Violations == 0 {
			t.Fatalf("no violations found among %d unexcluded goroutines", oneKey.Goroutines)
		}
		if len(r.ViolationSamples) == 0 || len(r.ViolationSamples) > maxViolationSamples {
			t.Errorf("%d violation samples for %d violations", len(r.ViolationSamples), r.Violations)
		}
		if v := r.ViolationSamples[0]; v.Key != "k0" || v.Goroutine == v.Holder {
			t.Errorf("violation sample %+v", v)
		}
	})
	t.Run("failures", func(t *testing.T) {
		r := measure(t.Context(), &flakyLocker{}, oneKey, d)
		if r.Failures == 0 || r.FailureSample != errFlaky.Error() {
			t.Fatalf("failures %d, sample %q; want some, %q", r.Failures, r.FailureSample, errFlaky)
		}
		if r.Ops == 0 || r.Wait.N != r.Ops {
			t.Errorf("ops %d, waits %d", r.Ops, r.Wait.N)
		}
	})
	t.Run("timed out at the end of the run is not a failure", func(t *testing.T) {
		// Every acquisition fails on a timer of its own at the run's
		// deadline, which may fire before the run's context is ended.
		w := Workload{Name: "late", Goroutines: 16, Keys: 16}
		r := measure(t.Context(), deadlineLocker{}, w, d)
		if r.Failures != 0 || r.Ops != 0 {
			t.Fatalf("failures %d (first: %s), ops %d; want none", r.Failures, r.FailureSample, r.Ops)
		}
	})
	t.Run("end of run is not a failure", func(t *testing.T) {
		// One goroutine holds the key for the whole run; the others'
		// waits are cut off by its end.
		w := Workload{Name: "long", Goroutines: 3, Keys: 1, Hold: 2 * d}
		r := measure(t.Context(), &chanLocker{}, w, d)
		if r.Failures != 0 || r.Ops != 1 {
			t.Fatalf("failures %d, ops %d; want 0 and 1", r.Failures, r.Ops)
		}
		if r.ShareMin != 0 || r.ShareMax != 3 {
			t.Errorf("shares %v/%v, want 0/3", r.ShareMin, r.ShareMax)
		}
	})
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Latency
	}{
		{"none", nil, Latency{}},
		{"one", []time.Duration{7}, Latency{N: 1, P50: 7, P99: 7, Max: 7}},
		{"two", []time.Duration{9, 3}, Latency{N: 2, P50: 3, P99: 9, Max: 9}},
		{"hundred", ds, Latency{N: 100, P50: 50, P99: 99, Max: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarize(tc.in); got != tc.want {
				t.Errorf("summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestShares(t *testing.T) {
	tests := []struct {
		counts []int
		lo, hi float64
	}{
		{[]int{0, 0}, 0, 0},
		{[]int{5, 5, 5}, 1, 1},
		{[]int{1, 2, 3}, 0.5, 1.5},
		{[]int{0, 4}, 0, 2},
	}
	for _, tc := range tests {
		if lo, hi := shares(tc.counts); lo != tc.lo || hi != tc.hi {
			t.Errorf("shares(%v) = %v, %v; want %v, %v", tc.counts, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestMedian checks that a run of several rounds reports the median round,
// with every round's ops/s, and counts the failures and violations of all
// rounds, not only the median's.
func TestMedian(t *testing.T) {
	rounds := []Result{
		{Ops: 30, OpsPerSec: 30, Failures: 1, FailureSample: "first"},
		{Ops: 10, OpsPerSec: 10},
		{Ops: 20, OpsPerSec: 20, Violations: 2, ViolationSamples: []Violation{{Key: "k"}, {Key: "k"}}},
		{Ops: 40, OpsPerSec: 40, Failures: 2, FailureSample: "later"},
	}
	m := median(rounds)
	if m.Ops != 20 || m.OpsPerSec != 20 {
		t.Errorf("median round: %d ops, %.0f ops/s; want the lower middle, 20", m.Ops, m.OpsPerSec)
	}
	if want := []float64{30, 10, 20, 40}; !slices.Equal(m.RoundOpsPerSec, want) {
		t.Errorf("rounds %v, want %v in run order", m.RoundOpsPerSec, want)
	}
	if m.Failures != 3 || m.FailureSample != "first" {
		t.Errorf("failures %d (%q), want 3 from every round, the first one's sample", m.Failures, m.FailureSample)
	}
	if m.Violations != 2 || len(m.ViolationSamples) != 2 {
		t.Errorf("violations %d with %d samples, want 2 and 2", m.Violations, len(m.ViolationSamples))
	}
	if one := median(rounds[:1]); one.RoundOpsPerSec != nil || one.Failures != 1 {
		t.Errorf("a single round came back changed: %+v", one)
	}
}
