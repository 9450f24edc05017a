package pglock

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade/lock"
)

//go:embed inspect_locks.sql
var inspectLocksSQL string

var (
	_ lock.Inspector = (*Locker)(nil)
	_ lock.Breaker   = (*Locker)(nil)
)

// Inspect implements lock.Inspector: the locks, then the semaphores, then
// the read-write locks whose keys start with prefix, each kind in key
// order. Locks and read-write locks are found in pg_locks and named by
// their sessions' application_name, so a key too long for it shows cut
// short (see Inspecting in the package documentation); semaphores are
// read from their table.
func (l *Locker) Inspect(ctx context.Context, prefix string) ([]lock.KeyState, error) {
	locks, err := l.inspectLocks(ctx, nil, prefix, false)
	if err != nil {
		return nil, fmt.Errorf("pglock: inspect %q: %w", prefix, err)
	}
	sems, err := l.inspectSemaphores(ctx, l.opts.Prefix+prefix, false)
	if err != nil {
		return nil, fmt.Errorf("pglock: inspect %q: %w", prefix, err)
	}
	return sortStates(append(locks, sems...)), nil
}

// InspectKey implements lock.Inspector. It finds key's lock and
// read-write lock in pg_locks by their ids (see LockID and RWLockID),
// whatever their sessions are named, and its semaphore in the table.
func (l *Locker) InspectKey(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	return l.inspectKey(ctx, key, false)
}

// Break implements lock.Breaker. It terminates the sessions that hold
// key's lock or read-write lock, as an operator's pg_terminate_backend
// would: the server ends them, frees their advisory locks and grants them
// to the waiters, and each holder's lease is lost within CheckInterval. A
// session that holds the key with LockTx, or any other client's, is
// terminated too. It deletes the entries that hold key's semaphore and
// notifies its waiters, as a Release does; a holder learns that its
// entry is gone at its next Refresh or Release. Tokens come from one
// sequence, so the next holder's is larger than any broken one's. The
// role must be allowed to terminate the holders' sessions: the same role,
// or a member of pg_signal_backend.
func (l *Locker) Break(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	return l.inspectKey(ctx, key, true)
}

// inspectKey returns key's states in every kind, and, with breaking,
// breaks them.
func (l *Locker) inspectKey(ctx context.Context, key string, breaking bool) ([]lock.KeyState, error) {
	verb := "inspect"
	if breaking {
		verb = "break"
	}
	ids := map[int64]lock.KeyKind{
		lockID(l.opts.Prefix, key):   lock.KindLock,
		rwLockID(l.opts.Prefix, key): lock.KindRWLock,
	}
	states, err := l.inspectLocks(ctx, ids, "", breaking)
	if err != nil {
		return nil, fmt.Errorf("pglock: %s %q: %w", verb, key, err)
	}
	for i := range states {
		states[i].Key = key // exact, where a session's name may be cut short
	}
	var sems []lock.KeyState
	if breaking {
		sems, err = l.breakSemaphore(ctx, key)
	} else {
		sems, err = l.inspectSemaphores(ctx, l.opts.Prefix+key, true)
	}
	if err != nil {
		return nil, fmt.Errorf("pglock: %s %q: %w", verb, key, err)
	}
	return sortStates(append(states, sems...)), nil
}

// advisorySession is a row of inspect_locks.sql: a session that holds or
// waits for an advisory lock.
type advisorySession struct {
	id      int64
	pid     int32
	granted bool
	shared  bool
	// What the session's application_name says, if a Locker named it:
	// lock:<kind>:<token>:<key>, the key escaped and maybe cut short.
	kind, token, key *string
}

// inspectLocks returns the states of the locks and read-write locks on ids,
// whose kinds they give, or (ids nil) on the ids that sessions named by a
// Locker hold or wait for under a key starting with prefix. With
// breaking, it terminates the holders' sessions.
func (l *Locker) inspectLocks(ctx context.Context, ids map[int64]lock.KeyKind, prefix string, breaking bool) ([]lock.KeyState, error) {
	var idList []int64 // nil: by prefix
	for id := range ids {
		idList = append(idList, id)
	}
	rows, err := l.pool.Query(ctx, inspectLocksSQL, idList, sessionKey(prefix), breaking)
	if err != nil {
		return nil, err
	}
	sessions, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (advisorySession, error) {
		var (
			s      advisorySession
			hi, lo int64
		)
		err := row.Scan(&hi, &lo, &s.pid, &s.granted, &s.shared, &s.kind, &s.token, &s.key, nil)
		s.id = int64(uint64(hi)<<32 | uint64(lo))
		return s, err
	})
	if err != nil {
		return nil, err
	}
	var states []lock.KeyState
	// The rows come grouped by id.
	for group := range chunkBy(sessions, func(s advisorySession) int64 { return s.id }) {
		st, ok := l.lockState(group, ids)
		if ok {
			states = append(states, st)
		}
	}
	return states, nil
}

// lockState is the state of one advisory lock, from the sessions on it,
// holders first. Its kind is that of its id in ids; else the kind and the
// key are what the first session that names it says. It reports false
// when none does: the sessions are another Prefix's, or nobody's.
func (l *Locker) lockState(sessions []advisorySession, ids map[int64]lock.KeyKind) (lock.KeyState, bool) {
	id := sessions[0].id
	st := lock.KeyState{Kind: ids[id]}
	if st.Kind == "" {
		i := slices.IndexFunc(sessions, func(s advisorySession) bool {
			kind, key, cut := s.named()
			// A name cut short cannot be checked; a whole one names the lock
			// if the key maps to its id, with this Locker's Prefix.
			return kind != "" && (cut || l.advisoryID(kind, key) == id)
		})
		if i < 0 {
			return st, false
		}
		st.Kind, st.Key, _ = sessions[i].named()
	}
	for _, s := range sessions {
		pid := strconv.Itoa(int(s.pid))
		if !s.granted {
			st.Waiters++
			st.WaiterIDs = append(st.WaiterIDs, pid)
			continue
		}
		h := lock.Holder{ID: pid, Shared: s.shared}
		if kind, _, _ := s.named(); !s.shared && kind == st.Kind {
			// A holder that was not named by a Locker (a LockTx) shows no
			// token: the server does not keep it.
			h.Token, _ = strconv.ParseUint(*s.token, 10, 64)
		}
		st.Holders = append(st.Holders, h)
	}
	return st, true
}

// named returns the kind and the key that s's name shows, none if a Locker
// did not name it, and whether the key may be cut short.
func (s advisorySession) named() (kind lock.KeyKind, key string, cut bool) {
	if s.kind == nil {
		return "", "", false
	}
	cut = len("lock:"+*s.kind+":"+*s.token+":"+*s.key) >= maxSessionName
	return lock.KeyKind(*s.kind), unescapeSessionKey(*s.key, cut), cut
}

// maxSessionName is how much of a session's application_name
// pg_stat_activity keeps: NAMEDATALEN-1 bytes.
const maxSessionName = 63

// sessionKey is key as a session's application_name shows it: printable
// ASCII as it is, and '%' and every other byte, which PostgreSQL would
// replace, escaped as %XX.
func sessionKey(key string) string {
	if !strings.ContainsFunc(key, func(r rune) bool { return r == '%' || r < ' ' || r > '~' }) {
		return key
	}
	var b strings.Builder
	for i := range len(key) {
		switch c := key[i]; {
		case c == '%' || c < ' ' || c > '~':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeSessionKey undoes sessionKey on s, which may be cut short, in
// the middle of an escape.
func unescapeSessionKey(s string, cut bool) string {
	if i := strings.LastIndexByte(s, '%'); cut && i >= 0 && len(s)-i < 3 {
		s = s[:i]
	}
	if key, err := url.PathUnescape(s); err == nil {
		return key
	}
	return s // not escaped by a Locker
}

// semaphoreEntry is a row of semaphore_inspect.sql.
type semaphoreEntry struct {
	name      string // Prefix+key
	arrival   int64
	n, limit  int
	expiresAt time.Time
	holds     bool
}

func scanSemaphoreEntry(row pgx.CollectableRow) (semaphoreEntry, error) {
	var e semaphoreEntry
	err := row.Scan(&e.name, &e.arrival, &e.n, &e.limit, &e.expiresAt, &e.holds)
	return e, err
}

// inspectSemaphores returns the states of the semaphores whose names
// (Prefix+key) start with namePrefix, or, if exact, of the one named so.
func (l *Locker) inspectSemaphores(ctx context.Context, namePrefix string, exact bool) ([]lock.KeyState, error) {
	var entries []semaphoreEntry
	rows, err := l.pool.Query(ctx, l.sem.inspect, namePrefix, exact)
	if err == nil {
		entries, err = pgx.CollectRows(rows, scanSemaphoreEntry)
	}
	switch {
	case isUndefinedTable(err): // no semaphore was ever used
		return nil, nil
	case err != nil:
		return nil, err
	}
	return l.semaphoreStates(entries), nil
}

// breakSemaphore deletes the entries that hold key's permits, in a batch
// under the key's lock as every statement on it, and returns the key's
// state before.
func (l *Locker) breakSemaphore(ctx context.Context, key string) ([]lock.KeyState, error) {
	k := l.semKey(key)
	var entries []semaphoreEntry
	var b pgx.Batch
	b.Queue(semaphoreLockSQL, k.id)
	b.Queue(l.sem.breakHolders, k.name, k.channel).Query(func(rows pgx.Rows) (err error) {
		entries, err = pgx.CollectRows(rows, scanSemaphoreEntry)
		return err
	})
	err := l.pool.SendBatch(ctx, &b).Close()
	if isUndefinedTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return l.semaphoreStates(entries), nil
}

// semaphoreStates groups entries, in key and arrival order, into the
// states of their keys. Holders and waiters are named by their arrival
// numbers.
func (l *Locker) semaphoreStates(entries []semaphoreEntry) []lock.KeyState {
	var states []lock.KeyState
	for group := range chunkBy(entries, func(e semaphoreEntry) string { return e.name }) {
		st := lock.KeyState{
			Key:   strings.TrimPrefix(group[0].name, l.opts.Prefix),
			Kind:  lock.KindSemaphore,
			Limit: group[0].limit,
		}
		for _, e := range group {
			id := strconv.FormatInt(e.arrival, 10)
			if !e.holds {
				st.Waiters++
				st.WaiterIDs = append(st.WaiterIDs, id)
				continue
			}
			st.Holders = append(st.Holders, lock.Holder{ID: id, Permits: e.n, ExpiresAt: e.expiresAt})
		}
		states = append(states, st)
	}
	return states
}

func isUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}

// chunkBy yields the runs of consecutive elements of s that have the same
// key.
func chunkBy[E any, K comparable](s []E, key func(E) K) func(yield func([]E) bool) {
	return func(yield func([]E) bool) {
		for start, i := 0, 1; i <= len(s); i++ {
			if i == len(s) || key(s[i]) != key(s[start]) {
				if !yield(s[start:i]) {
					return
				}
				start = i
			}
		}
	}
}

// sortStates sorts states as lock.Inspector lists them: locks, then
// semaphores, then read-write locks, each kind in key order.
func sortStates(states []lock.KeyState) []lock.KeyState {
	order := []lock.KeyKind{lock.KindLock, lock.KindSemaphore, lock.KindRWLock}
	slices.SortStableFunc(states, func(a, b lock.KeyState) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.Kind), slices.Index(order, b.Kind)), strings.Compare(a.Key, b.Key))
	})
	return states
}
