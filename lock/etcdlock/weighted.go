package etcdlock

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/stockade/stockade/lock"
)

// Locks, semaphores and read-write locks are one mechanism (see the
// package doc): a queue of keys in arrival order, each asking for some of
// the key's permits, of which a key is granted when the permits asked by
// the keys ahead of it, and its own, are within the limit. A lock is the
// case of one permit.

// space is a namespace of queues, between Options.Prefix and the escaped
// key. A lock key's escaped form never holds a '%' but in "%25" and "%2F",
// so no lock's queue can hold a space's, nor one space's queue another's.
type space string

const (
	locks      space = ""
	semaphores space = "%sem/"
	rwLocks    space = "%rw/"
)

// request is what an acquisition asks for.
type request struct {
	space  space
	ask    permits
	fenced bool // the lease gets a fencing token: a lock's or an exclusive lease
}

var lockRequest = request{space: locks, ask: permits{n: 1, limit: 1}, fenced: true}

// permits is what a key in a queue asks for: n of the key's limit.
type permits struct{ n, limit int }

// String returns p as the value of a key of a semaphore or a read-write
// lock: "n/limit".
func (p permits) String() string { return fmt.Sprintf("%d/%d", p.n, p.limit) }

// parsePermits reads what a key's value asks for. A lock's key holds
// nothing, and asks for the only permit of one.
func parsePermits(v []byte) (permits, error) {
	if len(v) == 0 {
		return permits{1, 1}, nil
	}
	ns, ls, ok := strings.Cut(string(v), "/")
	n, nerr := strconv.Atoi(ns)
	limit, lerr := strconv.Atoi(ls)
	if !ok || nerr != nil || lerr != nil || lock.CheckPermits(limit, n) != nil {
		return permits{}, fmt.Errorf("value %q asks for no permits", v)
	}
	return permits{n, limit}, nil
}

// fits is the grant rule: it reports whether p is granted behind the keys
// ahead of it, given the permits each asks for.
func (p permits) fits(ahead map[string]int) bool {
	sum := int64(p.n)
	for _, n := range ahead {
		sum += int64(n)
	}
	return sum <= int64(p.limit)
}

// AcquirePermits implements lock.Semaphores. The lease it returns is a
// *Lease, with no fencing token.
func (l *Locker) AcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, request{space: semaphores, ask: permits{n, limit}}, true, opts)
}

// TryAcquirePermits implements lock.Semaphores. The lease it returns is a
// *Lease, with no fencing token.
func (l *Locker) TryAcquirePermits(ctx context.Context, key string, limit, n int, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, request{space: semaphores, ask: permits{n, limit}}, false, opts)
}

// A read-write lock is a key of lock.MaxPermits permits: a reader asks for
// one, a writer for all of them.
var (
	readRequest  = request{space: rwLocks, ask: permits{1, lock.MaxPermits}}
	writeRequest = request{space: rwLocks, ask: permits{lock.MaxPermits, lock.MaxPermits}, fenced: true}
)

// AcquireShared implements lock.RWLockers. The lease it returns is a
// *Lease, with no fencing token.
func (l *Locker) AcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, readRequest, true, opts)
}

// TryAcquireShared implements lock.RWLockers. The lease it returns is a
// *Lease, with no fencing token.
func (l *Locker) TryAcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, readRequest, false, opts)
}

// AcquireExclusive implements lock.RWLockers. The lease it returns is a
// *Lease, whose token is the create revision of its etcd key.
func (l *Locker) AcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, writeRequest, true, opts)
}

// TryAcquireExclusive implements lock.RWLockers. The lease it returns is a
// *Lease, whose token is the create revision of its etcd key.
func (l *Locker) TryAcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, writeRequest, false, opts)
}
