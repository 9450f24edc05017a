package redisq_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock/internal/redisq"
)

// TestPipeBatchKeepsEachCallsError sends one batch of acquires, one of
// which fails, and checks that each call gets its own outcome: the failing
// call its error, the others their grants.
func TestPipeBatchKeepsEachCallsError(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	ctx := t.Context()
	// The first MaxBatches calls fill the Pipe's batches on the wire; the
	// eight after them, the bad one among them, queue as one batch.
	const calls, bad = redisq.MaxBatches + 8, redisq.MaxBatches + 2
	locks := make([]redisq.Lock, calls)
	for i := range locks {
		locks[i] = newLock(fmt.Sprint("k", i), fmt.Sprint("owner", i))
	}
	// The bad call queues behind another owner, into a queue key that is
	// not a sorted set: its ZADD fails.
	if err := c.Set(ctx, locks[bad].Keys.Lock, "other:1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, locks[bad].Keys.Queue, "not a sorted set", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}

	// The first MaxBatches calls occupy the Pipe's batches on the wire,
	// one each, held at the hook until every later call has queued
	// behind them; those then go out as one batch.
	var entered, longest atomic.Int32
	gate := make(chan struct{})
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	t.Cleanup(release) // a failed test must not leave batches stuck
	c.AddHook(delayHook(func(cmds int) {
		if int32(cmds) > longest.Load() {
			longest.Store(int32(cmds))
		}
		if entered.Add(1) <= redisq.MaxBatches {
			<-gate
		}
	}))
	p := redisq.NewPipe(c)
	var started []*redisq.Call
	for i := range locks {
		started = append(started, locks[i].GoAcquire(ctx, p, nil, time.Minute, true, 0))
		if i < redisq.MaxBatches {
			// Let this call reach the hook alone before the next one
			// is started, or the two would share a batch.
			awaitAtLeast(t, &entered, int32(i+1))
		}
	}
	release()
	for _, call := range started {
		<-call.Done()
	}
	if got := longest.Load(); got != calls-redisq.MaxBatches {
		t.Fatalf("longest pipeline %d calls, want the %d queued behind the first %d: the test proves nothing", got, calls-redisq.MaxBatches, redisq.MaxBatches)
	}
	for i, call := range started {
		res, err := redisq.AcquireResult(call)
		switch {
		case i == bad:
			if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
				t.Errorf("call %d, into a queue of the wrong type: %+v, %v; want WRONGTYPE", i, res, err)
			}
		case err != nil || !res.Granted:
			t.Errorf("call %d, batched with a failing call: %+v, %v; want granted", i, res, err)
		default:
			if v := c.Get(ctx, locks[i].Keys.Lock).Val(); v != fmt.Sprintf("owner%d:%d", i, res.Token) {
				t.Errorf("call %d granted token %d, but the lock holds %q", i, res.Token, v)
			}
		}
	}
}

// awaitAtLeast waits until n reaches want, failing the test if it has
// not within a few seconds.
func awaitAtLeast(t *testing.T, n *atomic.Int32, want int32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("counter at %d after 5s, want %d", n.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}
