package lockhistory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/stockade/stockade/lock"
)

// Input is the input of one operation of the lock model.
type Input struct {
	Release bool // false: Acquire
	Client  int
}

// Output is the output of an Acquire: the fencing token of the lease.
// Releases have no output.
type Output struct {
	Token uint64
}

// State is the state of the lock model: the client holding the key (-1
// when free) and the largest token granted so far.
type State struct {
	Holder int
	Last   uint64
}

// Model returns the porcupine model of one lock key. Acquire by a client
// is legal only when the key is free; Release only when that client holds
// it. With tokens, every grant's token must also be larger than every
// earlier grant's. A lease lost to expiry is recorded as a Release, so the
// model needs no notion of time.
func Model(tokens bool) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return State{Holder: -1} },
		Step: func(state, input, output any) (bool, any) {
			s, in := state.(State), input.(Input)
			if in.Release {
				if s.Holder != in.Client {
					return false, s
				}
				return true, State{Holder: -1, Last: s.Last}
			}
			if s.Holder != -1 {
				return false, s
			}
			tok := output.(Output).Token
			if tokens && tok <= s.Last {
				return false, s
			}
			return true, State{Holder: in.Client, Last: max(tok, s.Last)}
		},
		DescribeOperation: func(input, output any) string {
			in := input.(Input)
			if in.Release {
				return fmt.Sprintf("release(%d)", in.Client)
			}
			return fmt.Sprintf("acquire(%d) -> %d", in.Client, output.(Output).Token)
		},
		DescribeState: func(state any) string {
			s := state.(State)
			if s.Holder == -1 {
				return fmt.Sprintf("free (last token %d)", s.Last)
			}
			return fmt.Sprintf("held by %d (token %d)", s.Holder, s.Last)
		},
	}
}

// Recorder records the history of one key: each grant as an Acquire and
// each end of a holding as a Release. It is safe for concurrent use.
//
// A holder counts as holding from the return of its Acquire until the last
// moment it saw its lease still held (Hold.Held), which Release also
// checks before giving the key up. The Release operation spans from that
// moment until the holder learnt the lease was over: Release returned, or
// it observed Done closed. The lock may have ended the lease anywhere in
// that span, and nowhere else. Two holders that both saw their leases held
// at overlapping times therefore make the history non-linearizable,
// whatever order the checker tries.
//
// A backend that frees a key before its holder can know (pglock when the
// server restarts: the holder learns of it at its next connection check)
// is recorded with a lag: a lease that ended in a loss may have ended up
// to lag before its holder last saw it held, but no earlier. The check
// then proves the backend's documented bound rather than instant
// exclusion.
type Recorder struct {
	start time.Time
	lag   int64
	mu    sync.Mutex
	ops   []porcupine.Operation
	lost  int
	// holding counts the grants not yet ended.
	holding int
}

// NewRecorder returns an empty Recorder with no lag.
func NewRecorder() *Recorder { return NewLaggingRecorder(0) }

// NewLaggingRecorder returns an empty Recorder whose lost leases may have
// ended up to lag before their holders last saw them held.
func NewLaggingRecorder(lag time.Duration) *Recorder {
	return &Recorder{start: time.Now(), lag: int64(lag)}
}

// now is a monotonic timestamp shared by every goroutine of the process.
func (r *Recorder) now() int64 { return int64(time.Since(r.start)) }

func (r *Recorder) add(op porcupine.Operation) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

// Operations returns a copy of the history recorded so far.
func (r *Recorder) Operations() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]porcupine.Operation(nil), r.ops...)
}

// Lost returns how many holders learnt of the end of their lease from
// Done rather than from their own Release.
func (r *Recorder) Lost() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost
}

// Holding returns how many recorded grants have not ended yet: a fault
// injected while it is positive hits a holder.
func (r *Recorder) Holding() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding
}

// End is the metadata of a Release operation: how the holder learnt its
// holding was over, and when it last saw its lease held.
type End struct {
	How      string
	LastHeld int64
}

// WithoutLag returns ops with every Release starting when its holder last
// saw its lease held, as a Recorder with no lag records it.
func WithoutLag(ops []porcupine.Operation) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		if e, ok := op.Metadata.(End); ok {
			op.Call = e.LastHeld
		}
		out[i] = op
	}
	return out
}

// Hold is one client's lease, recorded.
type Hold struct {
	r        *Recorder
	client   int
	Lease    lock.Lease
	acquired int64 // when Acquire was called
	lastHeld int64
	ended    bool
}

// Acquire takes key through l for client and records the grant. A failed
// Acquire is not recorded: it granted nothing the caller could use.
func (r *Recorder) Acquire(ctx context.Context, l lock.Locker, client int, key string, opts ...lock.Option) (*Hold, error) {
	call := r.now()
	le, err := l.Acquire(ctx, key, opts...)
	if err != nil {
		return nil, err
	}
	ret := r.now()
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: Input{Client: client}, Call: call, Output: Output{Token: le.Token()}, Return: ret})
	r.holding++
	r.mu.Unlock()
	h := &Hold{r: r, client: client, Lease: le, acquired: call, lastHeld: call}
	h.Held()
	return h, nil
}

// Held reports whether the lease is still held, as a holder checks before
// each act. The timestamp is taken before the check: a pause between the
// two cannot stretch the recorded holding. A holder that finds Done closed
// must stop; the end of its holding is recorded then.
func (h *Hold) Held() bool {
	if h.ended {
		return false
	}
	t := h.r.now()
	select {
	case <-h.Lease.Done():
		h.end(h.r.now(), true, "saw Done closed")
		return false
	default:
		h.lastHeld = t
		return true
	}
}

func (h *Hold) end(observed int64, lost bool, how string) {
	h.ended = true
	from := h.lastHeld
	if lost && h.r.lag > 0 {
		from = max(h.acquired, min(from, observed-h.r.lag))
	}
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.ops = append(h.r.ops, porcupine.Operation{ClientId: h.client, Input: Input{Release: true, Client: h.client}, Call: from, Return: observed, Metadata: End{How: how, LastHeld: h.lastHeld}})
	h.r.holding--
	if lost {
		h.r.lost++
	}
}

// Release gives the key up and records the end of the holding. When the
// backend cannot be reached it waits, up to wait, for the lease to be
// declared lost; it returns an error if it is not.
func (h *Hold) Release(ctx context.Context, wait time.Duration) error {
	if !h.Held() {
		return nil
	}
	err := h.Lease.Release(ctx)
	if err == nil || errors.Is(err, lock.ErrReleased) {
		h.end(h.r.now(), false, "released")
		return nil
	}
	if errors.Is(err, lock.ErrLost) {
		h.end(h.r.now(), true, "release: "+err.Error())
		return nil
	}
	select {
	case <-h.Lease.Done():
		h.end(h.r.now(), true, "release: "+err.Error()+"; then saw Done closed")
		return nil
	case <-time.After(wait):
		return fmt.Errorf("release failed (%v) and the lease was not declared lost within %v", err, wait)
	}
}

// Check runs porcupine on the history and returns an error describing the
// result unless it is linearizable. Unknown (the checker timed out) is an
// error too.
func Check(ops []porcupine.Operation, tokens bool, timeout time.Duration) error {
	res := porcupine.CheckOperationsTimeout(Model(tokens), ops, timeout)
	if res != porcupine.Ok {
		return fmt.Errorf("history of %d operations: %s", len(ops), res)
	}
	return nil
}
