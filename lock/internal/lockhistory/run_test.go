package lockhistory

import (
	"context"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
)

func TestMain(m *testing.M) {
	// The clients log every failed dial while a server is down.
	redis.SetLogger(quiet{})
	os.Exit(testkit.Main(m))
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// A live history from lockers that do not exclude each other (each client
// has its own memlock) must fail the check: the recording and the checker
// together can see an overlap when there is one.
func TestBrokenLockerFails(t *testing.T) {
	t.Parallel()
	var ls []lock.Locker
	for range 3 {
		ls = append(ls, memlock.New(nil))
	}
	ttl := time.Second
	r := workload{lockers: ls, opts: []lock.Option{lock.WithTTL(ttl)}, ttl: ttl}.record(t, 300*time.Millisecond)
	if err := Check(r.Operations(), false, time.Minute); err == nil {
		t.Fatal("a history of overlapping holders passed the check")
	}
}

// duration is how long each history runs: short by default, as long as
// STOCKADE_LOCKHISTORY_DURATION says (a Go duration, e.g. 5m) by hand.
func duration(t *testing.T, def time.Duration) time.Duration {
	s := os.Getenv("STOCKADE_LOCKHISTORY_DURATION")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("STOCKADE_LOCKHISTORY_DURATION=%q: want a positive Go duration", s)
	}
	return d
}

// workload describes one recorded history.
type workload struct {
	// lockers has one Locker per client, each with its own connections,
	// as separate processes would have.
	lockers []lock.Locker
	opts    []lock.Option
	ttl     time.Duration
	tokens  bool // fencing tokens must rise with every grant
	// acts is the most acts in one critical section, and gap the longest
	// sleep between two. Default: 4 and 5ms.
	acts int
	gap  time.Duration
	// pause is the share of holds during which the holder goroutine
	// sleeps past its TTL (only for leases without auto-renew).
	pause float64
	// faults runs while the clients do, until ctx is done; it must leave
	// the servers running when it returns.
	faults func(ctx context.Context, t *testing.T, r *Recorder)
	// lag is how long before its holder saw it held a lost lease may
	// have ended (see NewLaggingRecorder); zero for instant exclusion.
	lag time.Duration
	// minGrants is how many grants the history must hold, and minLost
	// how many of them must have ended in a loss, for the history to show
	// the faults at work.
	minGrants, minLost int
}

// run records the history of w for d and checks it.
func (w workload) run(t *testing.T, d time.Duration) {
	t.Helper()
	r := w.record(t, d)
	ops := r.Operations()
	grants := 0
	for _, op := range ops {
		if !op.Input.(Input).Release {
			grants++
		}
	}
	t.Logf("%d grants, %d leases lost, over %v", grants, r.Lost(), d)
	if grants < w.minGrants {
		t.Errorf("only %d grants, want at least %d: the history shows too little", grants, w.minGrants)
	}
	if r.Lost() < w.minLost {
		t.Errorf("only %d leases lost, want at least %d: the faults did not bite", r.Lost(), w.minLost)
	}
	start := time.Now()
	if err := Check(ops, w.tokens, time.Minute); err != nil {
		t.Fatalf("porcupine: %v", err)
	}
	t.Logf("porcupine: linearizable, checked in %v", time.Since(start).Round(time.Millisecond))
	if w.lag > 0 {
		// For the record: whether the history needed the lag.
		t.Logf("without the %v lag: %v", w.lag, Check(WithoutLag(ops), w.tokens, time.Minute))
	}
}

// record runs the clients of w, and its faults, for d.
func (w workload) record(t *testing.T, d time.Duration) *Recorder {
	t.Helper()
	return w.recordInto(t, NewLaggingRecorder(w.lag), "lockhistory/"+t.Name(), d)
}

// recordInto runs the clients of w on key, and its faults, for d,
// recording into r.
func (w workload) recordInto(t *testing.T, r *Recorder, key string, d time.Duration) *Recorder {
	t.Helper()
	if w.acts == 0 {
		w.acts = 4
	}
	if w.gap == 0 {
		w.gap = 5 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()

	var wg sync.WaitGroup
	errs := make(chan error, len(w.lockers))
	for c, l := range w.lockers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), uint64(time.Now().UnixNano())))
			for ctx.Err() == nil {
				actx, acancel := context.WithTimeout(ctx, 3*w.ttl+5*time.Second)
				h, err := r.Acquire(actx, l, c, key, w.opts...)
				acancel()
				if err != nil {
					sleep(ctx, time.Duration(rng.IntN(50))*time.Millisecond)
					continue
				}
				// The critical section: a few acts, each after a check.
				for range 1 + rng.IntN(w.acts) {
					if !h.Held() {
						break
					}
					time.Sleep(time.Duration(rng.Int64N(int64(w.gap))))
					if rng.Float64() < w.pause {
						time.Sleep(w.ttl + 100*time.Millisecond)
					}
				}
				// Release even after the test's end, not to leave a lease
				// running past the servers.
				rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				err = h.Release(rctx, w.ttl+10*time.Second)
				rcancel()
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
			}
		})
	}
	if w.faults != nil {
		w.faults(ctx, t, r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return r
}

// sleep waits for d or until ctx is done, and reports whether ctx is
// still live.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// bite injects a fault while a client holds the key, heals it after d,
// and does so again until a lease has been lost to it; it reports whether
// ctx is still live. A fault that lands just as the holder releases (the
// release reached the servers first) takes no lease, which would leave a
// short run with no loss to show.
func bite(ctx context.Context, r *Recorder, d time.Duration, inject, heal func()) bool {
	for {
		before := r.Lost()
		for r.Holding() == 0 {
			if !sleep(ctx, time.Millisecond) {
				return false
			}
		}
		inject()
		time.Sleep(d)
		heal()
		// The holder may learn of the loss only once its release is answered.
		for deadline := time.Now().Add(2 * time.Second); r.Lost() == before && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if ctx.Err() != nil {
			return false
		}
		if r.Lost() > before {
			return true
		}
	}
}

// cycle runs step over and over until ctx is done; step waits with sleep.
func cycle(ctx context.Context, step func() bool) {
	for ctx.Err() == nil && step() {
	}
}

// must fails the test on a fault injection error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}
