package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// The lock inspector's view: GET /v1/locks lists the keys that the lock
// servers hold or queue for, with their holders and waiters, as
// Options.Locks (a lock.Inspector) reads them and as "stockade locks ls
// -json" prints them. It is a view at one moment, read afresh for each
// page, not a lock: a key may change as soon as it is read.
//
// An Inspector answers every key under a prefix at once, so the pages are
// cut here: the keys in byte order, a key's kinds by name (lock, rwlock,
// semaphore), and a cursor that holds the last key and kind of a page.
// A key released between two pages is not listed again, and one taken
// behind the cursor is not seen until the walk starts again; a key held
// throughout the walk is listed once.

const (
	// defaultLockLimit is how many keys a page of GET /v1/locks holds
	// when ?limit= does not say.
	defaultLockLimit = 100
	// maxLockLimit is the most keys one page holds, as in the other
	// lists of a hundred by default.
	maxLockLimit = 1000
)

// noInspector is the refusal of a server without Options.Locks.
const noInspector = "this server has no lock inspector: its strategy takes no locks, or its locker cannot be inspected"

// lockStateJSON is one key of one kind, with the field names of
// lock.KeyState, so that the API and "stockade locks ls -json" agree.
type lockStateJSON struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// Limit is a semaphore's number of permits; absent for other kinds.
	Limit int `json:"limit,omitzero"`
	// Holders hold the key, in the order they were granted it.
	Holders []lockHolderJSON `json:"holders"`
	// Waiters is how many callers wait for the key.
	Waiters int `json:"waiters"`
	// WaiterIDs names the waiters, first in line first, where the
	// backend knows them.
	WaiterIDs []string `json:"waiter_ids,omitempty"`
}

// lockHolderJSON is one lease on a key, with the field names of
// lock.Holder; what the backend does not know is left out.
type lockHolderJSON struct {
	ID         string    `json:"id,omitzero"`
	Token      uint64    `json:"token,omitzero"`
	Permits    int       `json:"permits,omitzero"`
	Shared     bool      `json:"shared,omitzero"`
	AcquiredAt time.Time `json:"acquired_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at,omitzero"`
}

// locksJSON is the answer of GET /v1/locks: a page of keys, and the
// opaque cursor of the next page, given as ?cursor=; none on the last.
type locksJSON struct {
	Locks      []lockStateJSON `json:"locks"`
	NextCursor string          `json:"next_cursor,omitempty"`
}

func toLockState(st lock.KeyState) lockStateJSON {
	out := lockStateJSON{Key: st.Key, Kind: string(st.Kind), Limit: st.Limit, Waiters: st.Waiters, WaiterIDs: st.WaiterIDs}
	out.Holders = each(st.Holders, func(h lock.Holder) lockHolderJSON {
		return lockHolderJSON{ID: h.ID, Token: h.Token, Permits: h.Permits, Shared: h.Shared,
			AcquiredAt: wireTime(h.AcquiredAt), ExpiresAt: wireTime(h.ExpiresAt)} // a zero time stays zero, left out
	})
	return out
}

// lockQuery is the query of GET /v1/locks.
type lockQuery struct {
	prefix string
	// after is where the page starts: past this key and kind; none for
	// the first page.
	after *lockPlace
	limit int
}

// lockPlace is a key of one kind: where a page of locks ends.
type lockPlace struct {
	key  string
	kind lock.KeyKind
}

// compareLocks orders the states of a page: by key, then by kind.
func compareLocks(a, b lockPlace) int {
	return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(string(a.kind), string(b.kind)))
}

func placeOf(st lock.KeyState) lockPlace { return lockPlace{st.Key, st.Kind} }

// readLockQuery reads the query of GET /v1/locks: prefix, cursor and limit.
func readLockQuery(r *http.Request) (lockQuery, error) {
	q := lockQuery{limit: defaultLockLimit}
	var cursor string
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, maxLockLimit, &cursor, &q.limit); ok {
			return err
		}
		if name != "prefix" {
			return invalidf("query: unknown parameter %q (want prefix, cursor, limit)", name)
		}
		if v == "" {
			return invalidf("prefix: must not be empty; leave it out for every key")
		}
		q.prefix = v
		return nil
	})
	if err == nil && cursor != "" {
		q.after, err = parseLockCursor(cursor)
	}
	return q, err
}

// A lock cursor is the key and kind of the last state of a page: the
// byte 'k', the kind, a NUL byte and the key, in unpadded base64url, as
// the service's cursors are. A kind has no NUL; a key may, after it.
const lockCursorTag = 'k'

var lockCursors = base64.RawURLEncoding.Strict()

// lockCursor returns the cursor of the page after p.
func lockCursor(p lockPlace) string {
	b := append([]byte{lockCursorTag}, p.kind...)
	b = append(b, 0)
	return lockCursors.EncodeToString(append(b, p.key...))
}

// parseLockCursor reads a cursor that lockCursor made; anything else is
// refused with EInvalid.
func parseLockCursor(s string) (*lockPlace, error) {
	b, err := lockCursors.DecodeString(s)
	if err == nil && len(b) > 0 && b[0] == lockCursorTag {
		kind, key, ok := bytes.Cut(b[1:], []byte{0})
		if ok && len(kind) > 0 && len(key) > 0 {
			return &lockPlace{key: string(key), kind: lock.KeyKind(kind)}, nil
		}
	}
	return nil, invalidf("cursor: malformed; set cursor to the next_cursor of a previous page of this list, or leave it out for the first page")
}

// lockPage sorts states, every state under q's prefix, and cuts the page
// that q asks for out of them.
func lockPage(states []lock.KeyState, q lockQuery) locksJSON {
	slices.SortFunc(states, func(a, b lock.KeyState) int { return compareLocks(placeOf(a), placeOf(b)) })
	if q.after != nil {
		n, found := slices.BinarySearchFunc(states, *q.after, func(st lock.KeyState, p lockPlace) int {
			return compareLocks(placeOf(st), p)
		})
		if found {
			n++
		}
		states = states[n:]
	}
	var out locksJSON
	if len(states) > q.limit {
		states = states[:q.limit]
		out.NextCursor = lockCursor(placeOf(states[len(states)-1]))
	}
	out.Locks = each(states, toLockState)
	return out
}

// listLocks serves GET /v1/locks through Options.Locks.
func (s *Server) listLocks(w http.ResponseWriter, r *http.Request) {
	q, err := readLockQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.opts.Locks == nil {
		s.writeError(w, r, stockade.Errorf(stockade.EInvalidState, noInspector))
		return
	}
	states, err := s.opts.Locks.Inspect(r.Context(), q.prefix)
	if err != nil {
		s.writeError(w, r, s.inspectFailed(r, err))
		return
	}
	writeJSON(w, http.StatusOK, lockPage(states, q))
}

// inspectFailed returns the error to answer a failed Inspect with. A
// request that ran out of time or was abandoned is left as it is, for
// problemOf; anything else means the lock servers could not be read,
// 503 "unavailable", and is logged here with its cause, which the answer
// does not give.
func (s *Server) inspectFailed(r *http.Request, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	s.log.Warn("lock inspector failed", "method", r.Method, "path", r.URL.Path, "request_id", requestIDOf(r),
		"client", r.RemoteAddr, "err", err)
	return fmt.Errorf("inspect locks: %w: %w", stockade.Errorf(stockade.EUnavailable, "the lock servers cannot be read; try again"), err)
}
