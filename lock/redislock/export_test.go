package redislock

import (
	"github.com/redis/go-redis/v9"

	"github.com/stockade/stockade/lock/internal/redisq"
)

// NewDeaf returns a Locker that runs its commands through client but
// listens for hand-off messages through listen: with a client of another
// server, no message ever reaches its waiters.
func NewDeaf(client, listen redis.UniversalClient, opts *Options) *Locker {
	l := New(client, opts)
	l.notes = redisq.NewNotifier(listen, nil)
	return l
}
