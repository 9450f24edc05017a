package etcdlock

import (
	"context"

	"github.com/stockade/stockade/lock"
)

// QueuePrefix returns the prefix of the etcd keys of lock key's queue for
// a Locker with opts; SemaphorePrefix and RWLockPrefix, those of the
// queues of semaphores and read-write locks.
func QueuePrefix(opts *Options, key string) string { return New(nil, opts).queuePrefix(locks, key) }

func SemaphorePrefix(opts *Options, key string) string {
	return New(nil, opts).queuePrefix(semaphores, key)
}

func RWLockPrefix(opts *Options, key string) string { return New(nil, opts).queuePrefix(rwLocks, key) }

// ReleaseAgain sends le's release to etcd again, as a retry after an
// attempt whose outcome was unknown would. (A retry after a successful
// Release never gets this far: the lease answers it itself.)
func ReleaseAgain(ctx context.Context, le lock.Lease) error { return le.(*Lease).e.Release(ctx) }

// StartQueueWatch starts the watch of lock key's queue that a waiter
// starts, and stops it once started. It returns the watch's error.
func StartQueueWatch(ctx context.Context, l *Locker, key string) error {
	e := &entry{l: l, name: key, queue: l.queuePrefix(locks, key)}
	w, _, err := e.watchQueue(ctx)
	w.stop()
	return err
}
