package lockbench

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// failurePause is how long a goroutine waits after a failed acquisition
	// before it tries again, so that an unreachable server does not turn
	// into a busy loop.
	failurePause = 10 * time.Millisecond

	// releaseTimeout bounds one release. Releases do not use the run's
	// context, so that a holder at the end of the run still lets go.
	releaseTimeout = 10 * time.Second

	// maxViolationSamples is how many violations a Result keeps.
	maxViolationSamples = 10
)

// section is one critical section, with times since the cell's start.
type section struct {
	key      int
	call     time.Duration // acquire called
	acquired time.Duration // acquire returned the lock
	released time.Duration // release called
}

// worker is what one goroutine records. Only it writes it until the cell ends.
type worker struct {
	sections      []section
	failures      int
	failure       error
	releaseErrors int
	releaseError  error
}

// keyState is the overlap detector of one key.
type keyState struct {
	inside atomic.Int32 // holders inside the critical section
	holder atomic.Int64 // goroutine number + 1 of the last to enter
}

// cell runs one implementation on one workload.
type cell struct {
	w      Workload
	l      locker
	keys   []string
	states []keyState
	start  time.Time

	mu         sync.Mutex
	violations []Violation
	nviolation int
}

func runCell(ctx context.Context, o Options, w Workload, im impl, prefix string) (Result, error) {
	// The implementation's connections are dialled before the clock starts.
	l, err := im.open(ctx, o, w, prefix)
	if err != nil {
		return Result{}, err
	}
	defer l.close()
	res := measure(ctx, l, w, o.Duration)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res.Impl = im.name
	return res, nil
}

// measure runs workload w on l for d and computes its Result.
func measure(ctx context.Context, l locker, w Workload, d time.Duration) Result {
	c := &cell{w: w, l: l, keys: make([]string, w.Keys), states: make([]keyState, w.Keys)}
	for i := range c.keys {
		c.keys[i] = fmt.Sprintf("k%d", i)
	}
	workers := make([]worker, w.Goroutines)
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()

	var wg sync.WaitGroup
	c.start = time.Now()
	for g := range workers {
		wg.Go(func() { c.loop(runCtx, g, &workers[g]) })
	}
	wg.Wait()
	return c.result(workers, time.Since(c.start))
}

// loop is one goroutine: acquire → hold → release until ctx ends.
func (c *cell) loop(ctx context.Context, g int, wk *worker) {
	k := g % len(c.keys)
	st := &c.states[k]
	me := int64(g) + 1
	for ctx.Err() == nil {
		call := time.Since(c.start)
		release, err := c.l.acquire(ctx, c.keys[k])
		acquired := time.Since(c.start)
		if err != nil {
			if over(ctx) {
				return // cut off by the end of the run: not a failure
			}
			wk.failures++
			if wk.failure == nil {
				wk.failure = err
			}
			time.Sleep(failurePause)
			continue
		}

		prev := st.holder.Swap(me)
		if st.inside.Add(1) != 1 {
			c.violation(Violation{Key: c.keys[k], Goroutine: g, Holder: int(prev) - 1, At: acquired})
		}
		if c.w.Hold > 0 {
			hold(c.w.Hold)
		}
		st.holder.CompareAndSwap(me, 0)
		st.inside.Add(-1)

		released := time.Since(c.start)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		err = release(rctx)
		cancel()
		if err != nil {
			wk.releaseErrors++
			if wk.releaseError == nil {
				wk.releaseError = err
			}
		}
		wk.sections = append(wk.sections, section{key: k, call: call, acquired: acquired, released: released})
	}
}

// over reports whether the run whose context is ctx has ended: ctx is
// done, or its deadline has passed and the timer that ends it has yet to
// run. An acquisition that an implementation cut short at the deadline, on
// a timer of its own, is the end of the run, not a failure.
func over(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(d)
}

func (c *cell) violation(v Violation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nviolation++
	if len(c.violations) < maxViolationSamples {
		c.violations = append(c.violations, v)
	}
}

// result computes the statistics of a finished cell.
func (c *cell) result(workers []worker, elapsed time.Duration) Result {
	r := Result{Workload: c.w.Name, Elapsed: elapsed, Violations: c.nviolation, ViolationSamples: c.violations}

	perKey := make([][]section, len(c.keys))
	var waits []time.Duration
	counts := make([]int, len(workers))
	for g, wk := range workers {
		counts[g] = len(wk.sections)
		r.Ops += len(wk.sections)
		for _, s := range wk.sections {
			perKey[s.key] = append(perKey[s.key], s)
			waits = append(waits, s.acquired-s.call)
		}
		r.Failures += wk.failures
		if r.FailureSample == "" && wk.failure != nil {
			r.FailureSample = wk.failure.Error()
		}
		r.ReleaseErrors += wk.releaseErrors
		if r.ReleaseErrorSample == "" && wk.releaseError != nil {
			r.ReleaseErrorSample = wk.releaseError.Error()
		}
	}
	r.OpsPerSec = float64(r.Ops) / elapsed.Seconds()
	r.Wait = summarize(waits)

	var handoffs []time.Duration
	var util float64
	for _, ss := range perKey {
		slices.SortFunc(ss, func(a, b section) int { return cmp.Compare(a.acquired, b.acquired) })
		var held time.Duration
		for i, s := range ss {
			held += s.released - s.acquired
			if i == 0 {
				continue
			}
			// Pair the acquisition with the release just before it; it
			// is a hand-off if the acquirer was already waiting then.
			prev := ss[i-1]
			if s.call <= prev.released && s.acquired >= prev.released {
				handoffs = append(handoffs, s.acquired-prev.released)
			}
		}
		util += held.Seconds() / elapsed.Seconds()
	}
	r.Utilization = util / float64(len(perKey))
	r.Handoff = summarize(handoffs)
	r.ShareMin, r.ShareMax = shares(counts)
	return r
}

// summarize returns the count, nearest-rank p50 and p99, and maximum of ds.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(ds)))) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return Latency{N: len(ds), P50: rank(0.50), P99: rank(0.99), Max: ds[len(ds)-1]}
}

// shares returns the smallest and largest count relative to their mean.
func shares(counts []int) (lo, hi float64) {
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0, 0
	}
	mean := float64(total) / float64(len(counts))
	return float64(slices.Min(counts)) / mean, float64(slices.Max(counts)) / mean
}
