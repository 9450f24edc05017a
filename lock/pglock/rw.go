package pglock

import (
	"context"
	_ "embed"

	"github.com/stockade/stockade/lock"
)

var (
	//go:embed try_acquire_shared.sql
	tryAcquireSharedSQL string
	//go:embed acquire_shared.sql
	acquireSharedSQL string
	//go:embed release_shared.sql
	releaseSharedSQL string
)

// RWLockID returns the advisory lock id of the read-write lock on key with
// opts: the first 8 bytes of the SHA-256 of "rw\x00"+Prefix+key, read as a
// big-endian int64. It is apart from LockID(key), so that the read-write
// lock on a key and the lock on the same key do not exclude each other;
// pg_locks shows it as it shows a lock's id, with mode ShareLock for a
// reader and ExclusiveLock for a writer.
func RWLockID(key string, opts *Options) int64 {
	o := opts.withDefaults()
	return rwLockID(o.Prefix, key)
}

func rwLockID(prefix, key string) int64 {
	return lockID("rw\x00"+prefix, key)
}

// advisoryID is the advisory lock id of key of kind: lock.KindLock (see
// LockID) or lock.KindRWLock (see RWLockID).
func (l *Locker) advisoryID(kind lock.KeyKind, key string) int64 {
	if kind == lock.KindRWLock {
		return rwLockID(l.opts.Prefix, key)
	}
	return lockID(l.opts.Prefix, key)
}

// AcquireShared implements lock.RWLockers with pg_advisory_lock_shared,
// which waits in PostgreSQL's lock queue behind any writer queued earlier.
// It waits, and is cancelled, as Acquire is.
func (l *Locker) AcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindRWLock, shared, true, opts)
}

// TryAcquireShared implements lock.RWLockers with
// pg_try_advisory_lock_shared, which PostgreSQL refuses while a writer
// holds or waits for the key.
func (l *Locker) TryAcquireShared(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindRWLock, shared, false, opts)
}

// AcquireExclusive implements lock.RWLockers with pg_advisory_lock: the
// lease carries a fencing token, as Acquire's does.
func (l *Locker) AcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindRWLock, exclusive, true, opts)
}

// TryAcquireExclusive implements lock.RWLockers with
// pg_try_advisory_lock.
func (l *Locker) TryAcquireExclusive(ctx context.Context, key string, opts ...lock.Option) (lock.Lease, error) {
	return l.acquire(ctx, key, lock.KindRWLock, exclusive, false, opts)
}
