package memlock

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stockade/stockade/lock"
)

var (
	_ lock.Inspector = (*Locker)(nil)
	_ lock.Breaker   = (*Locker)(nil)
)

// Inspect implements lock.Inspector: the locks, then the semaphores, then
// the read-write locks whose keys start with prefix, each kind in key
// order. Waiters have no ids in memory.
func (l *Locker) Inspect(_ context.Context, prefix string) ([]lock.KeyState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []lock.KeyState
	for name, e := range l.weighted {
		if strings.HasPrefix(name.key, prefix) {
			out = append(out, e.state(name))
		}
	}
	slices.SortFunc(out, func(a, b lock.KeyState) int {
		return cmp.Or(cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), strings.Compare(a.Key, b.Key))
	})
	return out, nil
}

// InspectKey implements lock.Inspector.
func (l *Locker) InspectKey(_ context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []lock.KeyState
	for _, sp := range spaces {
		if e := l.weighted[wname{sp, key}]; e != nil {
			out = append(out, e.state(wname{sp, key}))
		}
	}
	return out, nil
}

// spaces are the kinds of key, in the order Inspect lists them.
var spaces = []space{locks, semaphores, rwLocks}

// Break implements lock.Breaker: every lease on key, of every kind, is
// lost as if it had expired, and the key goes to its waiters. The tokens
// of one Locker only grow, so the next holder's is larger than any
// broken one's.
func (l *Locker) Break(ctx context.Context, key string) ([]lock.KeyState, error) {
	broken, err := l.InspectKey(ctx, key)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	var (
		lost    []lostLease
		granted []wgrant
	)
	for _, sp := range spaces {
		e := l.weighted[wname{sp, key}]
		if e == nil {
			continue
		}
		// The holds now: ending one grants waiters new ones, which stay.
		for _, h := range slices.Collect(maps.Keys(e.holds)) {
			lost = append(lost, lostLease{h.lease, h.token})
			granted = append(granted, h.end(e)...)
		}
	}
	l.mu.Unlock()
	for _, b := range lost {
		if b.lease != nil {
			b.lease.Lose(fmt.Errorf("memlock: %q was broken by an operator (token %d): %w", key, b.token, lock.ErrLost))
		}
	}
	deliverAll(granted)
	return broken, nil
}

// lostLease is a lease that Break ends once l.mu is unlocked.
type lostLease struct {
	lease interface{ Lose(error) }
	token uint64
}

func kindOrder(k lock.KeyKind) int {
	return slices.Index([]lock.KeyKind{lock.KindLock, lock.KindSemaphore, lock.KindRWLock}, k)
}

// state is e's state. l.mu must be held.
func (e *wentry) state(name wname) lock.KeyState {
	st := lock.KeyState{Key: name.key, Kind: lock.KindSemaphore, Limit: e.limit, Waiters: e.waiters.Len()}
	switch name.space {
	case locks:
		st.Kind, st.Limit = lock.KindLock, 0
	case rwLocks:
		st.Kind, st.Limit = lock.KindRWLock, 0
	}
	for h := range e.holds {
		hd := lock.Holder{Token: h.token, AcquiredAt: h.at, ExpiresAt: h.deadline}
		switch {
		case name.space == semaphores:
			hd.Permits = h.n
		case name.space == rwLocks && h.n < rwLimit:
			hd.Shared = true
		}
		st.Holders = append(st.Holders, hd)
	}
	slices.SortFunc(st.Holders, func(a, b lock.Holder) int { return a.AcquiredAt.Compare(b.AcquiredAt) })
	return st
}
