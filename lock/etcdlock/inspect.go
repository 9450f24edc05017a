package etcdlock

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/lock"
)

var (
	_ lock.Inspector = (*Locker)(nil)
	_ lock.Breaker   = (*Locker)(nil)
)

// Inspect implements lock.Inspector. It reads the queues of every kind
// under Options.Prefix whose keys start with prefix, in one range read,
// and applies the grant rule to tell holders from waiters. A holder's
// expiry is its etcd lease's time to live, asked of etcd per holder; when
// it was granted is not kept, so AcquiredAt is zero. Waiters are named by
// their etcd key's last element, the id of their etcd lease in hex.
func (l *Locker) Inspect(ctx context.Context, prefix string) ([]lock.KeyState, error) {
	var out []lock.KeyState
	for _, sp := range []space{locks, semaphores, rwLocks} {
		from := l.opts.Prefix + string(sp) + keyEscaper.Replace(prefix)
		resp, err := call(ctx, l, func(ctx context.Context) (*clientv3.GetResponse, error) {
			return l.client.Get(ctx, from, clientv3.WithPrefix())
		})
		if err != nil {
			return nil, fmt.Errorf("etcdlock: inspect %q: %w", prefix, err)
		}
		states, err := l.states(ctx, sp, resp.Kvs)
		if err != nil {
			return nil, err
		}
		out = append(out, states...)
	}
	return out, nil
}

// InspectKey implements lock.Inspector.
func (l *Locker) InspectKey(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	var out []lock.KeyState
	for _, sp := range []space{locks, semaphores, rwLocks} {
		st, ok, err := l.inspectQueue(ctx, sp, key)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, st)
		}
	}
	return out, nil
}

func (l *Locker) inspectQueue(ctx context.Context, sp space, key string) (lock.KeyState, bool, error) {
	resp, err := call(ctx, l, func(ctx context.Context) (*clientv3.GetResponse, error) {
		return l.client.Get(ctx, l.queuePrefix(sp, key), clientv3.WithPrefix())
	})
	if err != nil {
		return lock.KeyState{}, false, fmt.Errorf("etcdlock: inspect %q: %w", key, err)
	}
	states, err := l.states(ctx, sp, resp.Kvs)
	if err != nil || len(states) == 0 {
		return lock.KeyState{}, false, err
	}
	return states[0], true, nil
}

// Break implements lock.Breaker: it deletes the etcd keys of key's
// holders, in every kind, so that its waiters are granted it. Each
// holder learns of it from its watch and its lease is lost. The next
// holder's token is the create revision of its own key, put after every
// broken holder's.
func (l *Locker) Break(ctx context.Context, key string) ([]lock.KeyState, error) {
	if err := lock.CheckKey(key); err != nil {
		return nil, err
	}
	var broken []lock.KeyState
	for _, sp := range []space{locks, semaphores, rwLocks} {
		st, ok, err := l.inspectQueue(ctx, sp, key)
		if err != nil {
			return broken, err
		}
		if !ok {
			continue
		}
		ops := make([]clientv3.Op, 0, len(st.Holders))
		for _, h := range st.Holders {
			ops = append(ops, clientv3.OpDelete(l.queuePrefix(sp, key)+h.ID))
		}
		if _, err := call(ctx, l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
			return l.client.Txn(ctx).Then(ops...).Commit()
		}); err != nil {
			return broken, fmt.Errorf("etcdlock: break %q: %w", key, err)
		}
		broken = append(broken, st)
	}
	return broken, nil
}

// states groups kvs, keys of space sp, by queue and applies the grant
// rule to each, in key order.
func (l *Locker) states(ctx context.Context, sp space, kvs []*mvccpb.KeyValue) ([]lock.KeyState, error) {
	base := l.opts.Prefix + string(sp)
	queues := map[string][]*mvccpb.KeyValue{}
	for _, kv := range kvs {
		rest, ok := strings.CutPrefix(string(kv.Key), base)
		escaped, id, found := strings.Cut(rest, "/")
		if !ok || !found || strings.Contains(id, "/") {
			continue // another space's entry, under the locks' base: "%sem/<key>/<id>"
		}
		queues[escaped] = append(queues[escaped], kv)
	}
	var out []lock.KeyState
	for _, escaped := range slices.Sorted(maps.Keys(queues)) {
		st, err := l.state(ctx, sp, keyUnescaper.Replace(escaped), queues[escaped])
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// state applies the grant rule to the entries of one queue.
func (l *Locker) state(ctx context.Context, sp space, key string, kvs []*mvccpb.KeyValue) (lock.KeyState, error) {
	slices.SortFunc(kvs, func(a, b *mvccpb.KeyValue) int { return cmp.Compare(a.CreateRevision, b.CreateRevision) })
	st := lock.KeyState{Key: key, Kind: lock.KindLock}
	switch sp {
	case semaphores:
		st.Kind = lock.KindSemaphore
	case rwLocks:
		st.Kind = lock.KindRWLock
	}
	sum, blocked := 0, false
	for _, kv := range kvs {
		p, err := parsePermits(kv.Value)
		if err != nil {
			return st, fmt.Errorf("%w: etcd key %s: %w", lock.ErrInvalid, kv.Key, err)
		}
		if sp == semaphores {
			st.Limit = p.limit
		}
		id := string(kv.Key[strings.LastIndexByte(string(kv.Key), '/')+1:])
		if blocked || sum+p.n > p.limit {
			blocked = true // first come, first served: nobody passes a waiter
			st.Waiters++
			st.WaiterIDs = append(st.WaiterIDs, id)
			continue
		}
		sum += p.n
		h := lock.Holder{ID: id}
		switch {
		case sp == semaphores:
			h.Permits = p.n
		case sp == rwLocks && p.n < p.limit:
			h.Shared = true
		default:
			h.Token = uint64(kv.CreateRevision)
		}
		if kv.Lease != 0 {
			ttl, err := call(ctx, l, func(ctx context.Context) (*clientv3.LeaseTimeToLiveResponse, error) {
				return l.client.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
			})
			if err != nil {
				return st, fmt.Errorf("etcdlock: inspect %q: time to live of lease %x: %w", key, kv.Lease, err)
			}
			if ttl.TTL > 0 {
				h.ExpiresAt = time.Now().Add(time.Duration(ttl.TTL) * time.Second)
			}
		}
		st.Holders = append(st.Holders, h)
	}
	return st, nil
}

// keyUnescaper undoes keyEscaper.
var keyUnescaper = strings.NewReplacer("%25", "%", "%2F", "/")
