package lock

import (
	"context"
	"time"
)

// Inspector is what a backend tells an operator about its keys: who holds
// each one and who waits. Backends implement it where they can see their
// state (memlock directly; a server by reading its own data), and tools
// such as "stockade locks ls" print it. It is a view at one moment, not a
// lock: a key may change as soon as it is read.
type Inspector interface {
	// Inspect lists the keys whose names start with prefix that are held
	// or waited for, in key order within each kind.
	Inspect(ctx context.Context, prefix string) ([]KeyState, error)

	// InspectKey returns key's state in each kind in which it is held or
	// waited for; none if it is free.
	InspectKey(ctx context.Context, key string) ([]KeyState, error)
}

// Breaker frees a stuck key: every lease on it is dropped, as if it had
// expired, and the key's fence advances, so that a holder that carries on
// regardless writes with a token older than the next holder's.
type Breaker interface {
	// Break frees key in every kind and returns the states it broke.
	Break(ctx context.Context, key string) ([]KeyState, error)
}

// KeyKind is the kind of a key: a lock, a semaphore or a read-write lock,
// whose keys are apart.
type KeyKind string

// The kinds of key.
const (
	KindLock      KeyKind = "lock"
	KindSemaphore KeyKind = "semaphore"
	KindRWLock    KeyKind = "rwlock"
)

// KeyState is one key of one kind at the moment it was read.
type KeyState struct {
	Key  string  `json:"key"`
	Kind KeyKind `json:"kind"`
	// Limit is a semaphore's number of permits; 0 for other kinds.
	Limit int `json:"limit,omitzero"`
	// Holders hold the key, in the order they were granted it.
	Holders []Holder `json:"holders"`
	// Waiters is how many callers wait for the key.
	Waiters int `json:"waiters"`
	// WaiterIDs names the waiters, first in line first, where the backend
	// knows them; a backend that does not leaves it empty.
	WaiterIDs []string `json:"waiter_ids,omitempty"`
}

// Holder is one lease on a key.
type Holder struct {
	// ID names the lease where the backend can (never the secret that
	// proves ownership); empty if it cannot.
	ID string `json:"id,omitzero"`
	// Token is the lease's fencing token; 0 for a permit or a shared lease.
	Token uint64 `json:"token,omitzero"`
	// Permits is how many permits a semaphore's lease holds; 0 otherwise.
	Permits int `json:"permits,omitzero"`
	// Shared is true for a read-write lock's shared lease.
	Shared bool `json:"shared,omitzero"`
	// AcquiredAt is when the lease was granted, zero if unknown.
	AcquiredAt time.Time `json:"acquired_at,omitzero"`
	// ExpiresAt is when the lease ends unless refreshed, zero if the
	// backend knows no such time (a session-bound lease).
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}
