package etcdlock

import (
	"context"

	"github.com/stockade/stockade/lock"
)

// QueuePrefix returns the prefix of the etcd keys of key's queue for a
// Locker with opts.
func QueuePrefix(opts *Options, key string) string { return New(nil, opts).queuePrefix(key) }

// ReleaseAgain sends le's release to etcd again, as a retry after an
// attempt whose outcome was unknown would. (A retry after a successful
// Release never gets this far: the lease answers it itself.)
func ReleaseAgain(ctx context.Context, le lock.Lease) error { return le.(*Lease).e.Release(ctx) }
