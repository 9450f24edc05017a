package etcdlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/lock"
)

// etcdLease is an etcd lease as a Locker knows it.
type etcdLease struct {
	id      clientv3.LeaseID
	secs    int64     // the TTL asked for, in seconds
	ttl     int64     // the TTL granted, in seconds: etcd raises it to its minimum
	renewed time.Time // when it was last granted or renewed (sent): it lives ttl from then at least
}

func (el etcdLease) life() time.Duration { return time.Duration(el.ttl) * time.Second }

// maxIdle bounds the idle etcd leases a Locker keeps per TTL.
const maxIdle = 32

// leasePool keeps the etcd leases of released acquisitions for the next
// ones with the same TTL. Reusing a lease costs no write to etcd, where
// granting and revoking cost one each: with the pool, an acquisition writes
// twice (put and delete its key) instead of four times. Idle leases have no
// keys attached and are not renewed; etcd drops them when their TTL runs
// out.
type leasePool struct {
	mu   sync.Mutex
	idle map[int64][]etcdLease // by secs, most recently returned last
}

// get returns an idle lease of secs seconds with at least half its TTL
// left.
func (p *leasePool) get(secs int64) (etcdLease, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.idle[secs]
	for len(s) > 0 {
		el := s[len(s)-1]
		s = s[:len(s)-1]
		if time.Since(el.renewed) < el.life()/2 {
			p.idle[secs] = s
			return el, true
		}
	}
	delete(p.idle, secs)
	return etcdLease{}, false
}

// put keeps el for reuse and reports whether there was room.
func (p *leasePool) put(el etcdLease) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil {
		p.idle = make(map[int64][]etcdLease)
	}
	if len(p.idle[el.secs]) >= maxIdle {
		return false
	}
	p.idle[el.secs] = append(p.idle[el.secs], el)
	return true
}

// lease returns an idle lease of ttl from the pool, or grants a new one.
func (l *Locker) lease(ctx context.Context, ttl time.Duration) (el etcdLease, reused bool, err error) {
	secs := ttlSeconds(ttl)
	if el, ok := l.pool.get(secs); ok {
		return el, true, nil
	}
	el, err = l.grant(ctx, secs)
	return el, false, err
}

// grant grants a new etcd lease of secs seconds.
func (l *Locker) grant(ctx context.Context, secs int64) (etcdLease, error) {
	sent := time.Now()
	g, err := call(ctx, l, func(ctx context.Context) (*clientv3.LeaseGrantResponse, error) {
		return l.client.Grant(ctx, secs)
	})
	if err != nil {
		if errors.Is(err, rpctypes.ErrLeaseTTLTooLarge) {
			return etcdLease{}, fmt.Errorf("%w: ttl %v: %w", lock.ErrInvalid, time.Duration(secs)*time.Second, err)
		}
		return etcdLease{}, err
	}
	return etcdLease{id: g.ID, secs: secs, ttl: g.TTL, renewed: sent}, nil
}

// recycle returns el to the pool, or revokes it if the pool is full. el
// must have no key attached.
func (l *Locker) recycle(el etcdLease) {
	if !l.pool.put(el) {
		l.revoke(el)
	}
}

// revoke revokes the etcd lease el, which deletes the keys put with it,
// even when the caller's context is done. A revocation that fails (etcd
// unreachable, restarting) is tried again in the background, backing off,
// until it succeeds or el has had time to expire by itself: a queue key
// left behind would hold up every waiter behind it until then. etcd
// extends every lease by its TTL when a leader is elected, so that time
// counts from now.
func (l *Locker) revoke(el etcdLease) {
	give := time.Now().Add(el.life() + l.opts.RequestTimeout)
	if l.tryRevoke(el) {
		return
	}
	l.cleanups.Go(func() {
		for backoff := 50 * time.Millisecond; time.Now().Add(backoff).Before(give); backoff = min(2*backoff, time.Second) {
			time.Sleep(backoff)
			if l.tryRevoke(el) {
				return
			}
		}
	})
}

// tryRevoke revokes el once and reports whether it is gone.
func (l *Locker) tryRevoke(el etcdLease) bool {
	ctx, cancel := context.WithTimeout(context.Background(), l.opts.RequestTimeout)
	defer cancel()
	_, err := l.client.Revoke(ctx, el.id)
	return err == nil || errors.Is(err, rpctypes.ErrLeaseNotFound)
}

// ttlSeconds rounds ttl up to whole seconds, etcd's lease resolution.
func ttlSeconds(ttl time.Duration) int64 {
	s := int64(ttl / time.Second)
	if ttl%time.Second != 0 || s == 0 {
		s++
	}
	return s
}
