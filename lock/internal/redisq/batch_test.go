package redisq_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/lock/internal/redisq"
)

// TestPipeBatchKeepsEachCallsError sends one batch of acquires, one of
// which fails, and checks that each call gets its own outcome: the failing
// call its error, the others their grants.
func TestPipeBatchKeepsEachCallsError(t *testing.T) {
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

	// The first calls occupy the Pipe's batches on the wire, held up by
	// the hook; the rest queue behind them and go out as one batch.
	var held, longest atomic.Int32
	c.AddHook(delayHook(func(cmds int) {
		if int32(cmds) > longest.Load() {
			longest.Store(int32(cmds))
		}
		if held.Add(1) <= redisq.MaxBatches {
			time.Sleep(100 * time.Millisecond)
		}
	}))
	p := redisq.NewPipe(c)
	var started []*redisq.Call
	for i := range locks {
		started = append(started, locks[i].GoAcquire(ctx, p, nil, time.Minute, true, 0))
		if i < redisq.MaxBatches {
			time.Sleep(20 * time.Millisecond) // let it reach the hook
		}
	}
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
