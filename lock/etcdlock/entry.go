package etcdlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/internal/lease"
)

// entry is one acquisition: an etcd key in the queue of a lock key,
// attached to an etcd lease that no other acquisition uses at the same
// time. It implements lease.Backend for the lease it becomes.
type entry struct {
	l     *Locker
	name  string  // the lock key
	queue string  // prefix of the lock key's queue
	ask   permits // what our key asks for: the only permit of one, for a lock
	value string  // what our key holds: ask.String(), or nothing for a lock

	// Set while acquiring, read-only once held.
	key    string       // our etcd key: queue + the ID of the etcd lease it was put with, in hex
	rev    int64        // create revision of key: place in the queue and fencing token; 0 until put
	reused bool         // the etcd lease came from the pool
	clean  bool         // no key of ours can exist: none was put, or ours was deleted
	lease  *lease.Lease // the held lease

	opMu sync.Mutex // serializes Refresh and Release: Refresh may move key to another etcd lease

	mu        sync.Mutex
	el        etcdLease // the etcd lease key is attached to
	releasing bool      // a Release is under way: it decides how the lease ended
	deleted   bool      // key was seen deleted
	retired   bool      // the etcd lease was revoked or returned to the pool
}

// setLease makes el the etcd lease our key will be put with.
func (e *entry) setLease(el etcdLease, reused bool, err error) error {
	if err != nil {
		return err
	}
	e.el, e.reused, e.rev, e.clean = el, reused, 0, false
	e.key = fmt.Sprintf("%s%x", e.queue, int64(el.id))
	return nil
}

// take puts our key in the queue and returns once it is first. Without
// wait (TryAcquire) it puts the key only if the queue is empty. contended
// reports whether anyone was ahead; w is the queue watch a waiter ends
// with, which the holder goes on reading.
func (e *entry) take(ctx context.Context, wait bool) (contended bool, w *watcher, err error) {
	contended, w, err = e.take1(ctx, wait)
	if e.reused && errors.Is(err, rpctypes.ErrLeaseNotFound) || errors.Is(err, errNameTaken) {
		// The pooled etcd lease expired or was revoked behind our back,
		// or (never seen) a key of our name exists: nothing was put.
		// Start again with a new etcd lease, leaving the old one to its
		// TTL.
		el, gerr := e.l.grant(ctx, e.el.secs)
		if err := e.setLease(el, false, gerr); err != nil {
			return false, nil, err
		}
		return e.take1(ctx, wait)
	}
	return contended, w, err
}

func (e *entry) take1(ctx context.Context, wait bool) (contended bool, w *watcher, err error) {
	if !wait {
		granted, err := e.putIfGranted(ctx)
		if err == nil && !granted {
			return true, nil, fmt.Errorf("%w: %q is held", lock.ErrNotAcquired, e.name)
		}
		return false, nil, err
	}
	ahead, rev, err := e.enqueue(ctx)
	if err != nil || e.ask.fits(ahead) {
		return false, nil, err
	}
	w, err = e.waitTurn(ctx, ahead, rev)
	return true, w, err
}

// putIfGranted puts our key if the grant rule lets it through at once,
// and reports whether it did. The first transaction puts it if the queue
// is empty and reads the queue otherwise; while the queue it read would
// let our key through, it tries again, on the condition that no key in the
// queue was written since that read. A refusal leaves no trace in the
// queue.
func (e *entry) putIfGranted(ctx context.Context) (bool, error) {
	var read int64 // the revision the queue was read at; 0: not read, taken to be empty
	for {
		resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
			return e.l.client.Txn(ctx).
				If(clientv3.Compare(clientv3.ModRevision(e.queue), "<", read+1).WithPrefix()).
				Then(clientv3.OpPut(e.key, e.value, clientv3.WithLease(e.el.id))).
				Else(clientv3.OpGet(e.queue, clientv3.WithPrefix())).
				Commit()
		})
		if err != nil {
			return false, err
		}
		if resp.Succeeded {
			e.rev = resp.Header.Revision
			return true, nil
		}
		// Nothing was put: every key in the queue is ahead of ours.
		ahead, err := e.keysAhead(resp.Responses[0].GetResponseRange().Kvs)
		if err != nil || !e.ask.fits(ahead) {
			e.clean = true
			return false, err
		}
		read = resp.Header.Revision
	}
}

// errNameTaken means a key of our key's name exists already. Key names
// are unique (see moveLease), so it never happens; enqueue checks anyway,
// as overwriting the key would share it between two acquisitions.
var errNameTaken = errors.New("etcd key exists already")

// enqueue puts our key at the tail of the queue and returns the keys ahead
// of it as of revision rev, with the permits each asks for, all in one
// transaction.
func (e *entry) enqueue(ctx context.Context) (ahead map[string]int, rev int64, err error) {
	resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
		return e.l.client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", 0)).
			Then(
				clientv3.OpPut(e.key, e.value, clientv3.WithLease(e.el.id)),
				clientv3.OpGet(e.queue, clientv3.WithPrefix()),
			).Commit()
	})
	if err != nil {
		return nil, 0, err
	}
	if !resp.Succeeded {
		return nil, 0, fmt.Errorf("%s: %w", e.key, errNameTaken)
	}
	// Our key is new, so its create revision is the transaction's, and
	// every other key in the queue is older.
	e.rev = resp.Header.Revision
	ahead, err = e.keysAhead(resp.Responses[1].GetResponseRange().Kvs)
	return ahead, e.rev, err
}

// ahead reads the keys ahead of ours in the queue, with the permits each
// asks for, checking in the same transaction that ours is still there.
func (e *entry) ahead(ctx context.Context) (map[string]int, error) {
	resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
		return e.l.client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", e.rev)).
			Then(clientv3.OpGet(e.queue, clientv3.WithPrefix(), clientv3.WithMaxCreateRev(e.rev-1))).
			Commit()
	})
	if err != nil {
		return nil, err
	}
	if !resp.Succeeded {
		return nil, e.placeLost()
	}
	return e.keysAhead(resp.Responses[0].GetResponseRange().Kvs)
}

// keysAhead returns the keys of kvs, keys of our queue, that are ahead of
// ours, with the permits each asks for: those created before ours, or all
// of them while ours is not put. A key of our name that is not ours is
// errNameTaken, and one that counts another limit than ours
// lock.ErrInvalid.
func (e *entry) keysAhead(kvs []*mvccpb.KeyValue) (map[string]int, error) {
	ahead := make(map[string]int, len(kvs))
	for _, kv := range kvs {
		switch {
		case e.rev != 0 && kv.CreateRevision >= e.rev:
			continue
		case string(kv.Key) == e.key:
			return nil, fmt.Errorf("%s: %w", e.key, errNameTaken)
		}
		p, err := parsePermits(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: etcd key %s: %w", lock.ErrInvalid, kv.Key, err)
		}
		if p.limit != e.ask.limit {
			return nil, fmt.Errorf("%w: %q has a limit of %d, asked with %d", lock.ErrInvalid, e.name, p.limit, e.ask.limit)
		}
		ahead[string(kv.Key)] = p.n
	}
	return ahead, nil
}

func (e *entry) placeLost() error {
	return fmt.Errorf("%w: %q: our place in the queue is gone (its etcd lease expired or was revoked)", lock.ErrNotAcquired, e.name)
}

// waitTurn waits until the keys ahead of ours that are left let ours
// through (see permits.fits). ahead are those keys as of revision rev. It
// returns the queue watch, whose later events the holder goes on reading.
func (e *entry) waitTurn(ctx context.Context, ahead map[string]int, rev int64) (*watcher, error) {
	// Keep our place however long the wait: the client renews the etcd
	// lease every TTL/3 until the wait ends.
	kaCtx, stopKeepAlive := context.WithCancel(ctx)
	defer stopKeepAlive()
	ka, err := e.l.client.KeepAlive(kaCtx, e.el.id)
	if err != nil {
		return nil, err
	}
	go func() {
		for range ka { // drained, or the client logs every dropped response
		}
	}()

	w, created, err := e.watchQueue(ctx)
	if err != nil {
		return nil, err
	}
	if created > rev {
		// Something was written between our read of the queue and the
		// start of the watch, which reports only what comes after it.
		if ahead, err = e.ahead(ctx); err != nil {
			w.stop()
			return nil, err
		}
	}
	for !e.ask.fits(ahead) {
		ev, err := w.next(ctx.Done())
		switch {
		case errors.Is(err, errStopped):
			w.stop()
			return nil, ctx.Err()
		case err != nil:
			// The watch ended (compaction, lost leader): start again from
			// a fresh read.
			w.stop()
			if w, _, err = e.watchQueue(ctx); err != nil {
				return nil, err
			}
			if ahead, err = e.ahead(ctx); err != nil {
				w.stop()
				return nil, err
			}
		case ev.Type != clientv3.EventTypeDelete:
		case string(ev.Kv.Key) == e.key:
			w.stop()
			return nil, e.placeLost()
		default:
			delete(ahead, string(ev.Kv.Key))
		}
	}
	return w, nil
}

// watchQueue watches the deletions in the queue from the current revision
// on, and returns once etcd has started the watch, with that revision.
//
// It does not start at the revision of our last read: etcd serves a watch
// that starts in the past from a catch-up loop that runs every 100ms until
// the watch has caught up, so a deletion could reach us up to 100ms late
// whenever anything at all was written to the cluster in between. A watch
// from the current revision gets each event as it is committed; waitTurn
// reads the queue again if the watch started later than that read.
func (e *entry) watchQueue(ctx context.Context) (*watcher, int64, error) {
	sctx, cancel := context.WithTimeoutCause(ctx, e.l.opts.RequestTimeout, errNoAnswer)
	defer cancel()
	w := e.watch(sctx, e.queue, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	select {
	case resp, ok := <-w.ch:
		err := errWatchEnded
		if ok {
			err = resp.Err()
		}
		if err == nil {
			return w, resp.Header.Revision, nil
		}
		w.stop()
		if sctx.Err() == nil {
			return nil, 0, err
		}
		// The watch ended because its start was cut short.
	case <-sctx.Done():
		w.stop()
	}
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	return nil, 0, fmt.Errorf("watch: %w within %v", errNoAnswer, e.l.opts.RequestTimeout)
}

// watch watches the deletions of key (or, with clientv3.WithPrefix, under
// it) until stopped. ctx bounds only the start: the client's Watch returns
// once etcd has created the watch, which it does not while etcd is
// unreachable or silent, nor while the client reopens the stream that all
// of a Locker's watches share. If ctx ends before Watch returns, the watch
// ends at once (its channel closes); once started, it lasts whatever
// becomes of ctx. The watch ends if the etcd member loses its leader, so
// that a partitioned member cannot leave it silent.
func (e *entry) watch(ctx context.Context, key string, opts ...clientv3.OpOption) *watcher {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(context.WithoutCancel(ctx)))
	opts = append(opts, clientv3.WithFilterPut())
	starting := context.AfterFunc(ctx, cancel)
	ch := e.l.client.Watch(wctx, key, opts...)
	starting()
	return &watcher{ch: ch, cancel: cancel}
}

// validUntil returns the earliest time the etcd lease may expire: the held
// lease's local deadline. A waiter's etcd lease was renewed while it
// waited, at times only the client knows, and a pooled one some time ago;
// unless it was granted or renewed within the last tenth of its TTL, it is
// renewed once more, so that a new holder gets nearly all of its TTL.
func (e *entry) validUntil(ctx context.Context) (time.Time, error) {
	if time.Since(e.el.renewed) > e.el.life()/10 {
		sent := time.Now()
		_, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.LeaseKeepAliveResponse, error) {
			return e.l.client.KeepAliveOnce(ctx, e.el.id)
		})
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			return time.Time{}, e.placeLost()
		case err != nil:
			return time.Time{}, err
		}
		e.el.renewed = sent
	}
	return e.el.renewed.Add(e.el.life()), nil
}

// leave takes an acquisition that failed or gave up out of the queue: it
// deletes our key, if it was put, guarded by its revision. It returns the
// etcd lease to the pool if no key of ours can be left, and revokes it
// otherwise, which deletes the key. It runs even when the caller's context
// is done.
func (e *entry) leave() {
	if !e.clean && e.rev != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), e.l.opts.RequestTimeout)
		held, err := e.remove(ctx)
		cancel()
		e.clean = err == nil && held
	}
	e.retire(e.clean)
}

// remove deletes our key if it is still the one we created, and reports
// whether it was. The revision guard is what keeps a retried or late
// delete from removing a newer holder's key of the same name.
func (e *entry) remove(ctx context.Context) (bool, error) {
	resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
		return e.l.client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", e.rev)).
			Then(clientv3.OpDelete(e.key)).
			Commit()
	})
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
}

// retire gives the etcd lease up once: back to the pool if reuse is set
// (no key may be attached to it then), else revoked, which deletes only the
// keys attached to it, so never another acquisition's key.
func (e *entry) retire(reuse bool) {
	e.mu.Lock()
	if e.retired {
		e.mu.Unlock()
		return
	}
	e.retired = true
	el := e.el
	e.mu.Unlock()
	if reuse {
		e.l.recycle(el)
	} else {
		e.l.revoke(el)
	}
}

// Refresh implements lease.Backend. It renews the etcd lease and checks
// that our key is still there. etcd cannot change a lease's TTL: a longer
// ttl moves the key to a new etcd lease.
func (e *entry) Refresh(ctx context.Context, ttl time.Duration) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	e.mu.Lock()
	el := e.el
	e.mu.Unlock()
	if secs := ttlSeconds(ttl); secs > el.ttl {
		return e.moveLease(ctx, el, secs)
	}
	sent := time.Now()
	_, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.LeaseKeepAliveResponse, error) {
		return e.l.client.KeepAliveOnce(ctx, el.id)
	})
	switch {
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("%w: %q: its etcd lease is gone", lock.ErrLost, e.name)
	case err != nil:
		return err
	}
	e.mu.Lock()
	e.el.renewed = sent
	e.mu.Unlock()
	resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.GetResponse, error) {
		return e.l.client.Get(ctx, e.key, clientv3.WithKeysOnly())
	})
	if err != nil {
		return err
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != e.rev {
		return fmt.Errorf("%w: %q: its etcd key is gone", lock.ErrLost, e.name)
	}
	return nil
}

// moveLease attaches our key to a new etcd lease of secs seconds and
// revokes the old one. A put keeps the key's create revision, so the token
// and the place in the queue stay the same. The old lease, now without a
// key, is not reused: our key keeps its name, which is the old lease's ID,
// and a key named after a lease must only ever be that lease's.
func (e *entry) moveLease(ctx context.Context, old etcdLease, secs int64) error {
	el, err := e.l.grant(ctx, secs)
	if err != nil {
		return err
	}
	resp, err := call(ctx, e.l, func(ctx context.Context) (*clientv3.TxnResponse, error) {
		return e.l.client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", e.rev)).
			Then(clientv3.OpPut(e.key, e.value, clientv3.WithLease(el.id))).
			Commit()
	})
	if err != nil || !resp.Succeeded {
		// Had the put been applied after all, this deletes our key, and
		// guard reports the loss.
		e.l.revoke(el)
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: %q: its etcd key is gone", lock.ErrLost, e.name)
	}
	e.mu.Lock()
	e.el = el
	e.mu.Unlock()
	e.l.revoke(old)
	return nil
}

// Release implements lease.Backend: it deletes our key if it is still the
// one we created, and returns the etcd lease to the pool.
func (e *entry) Release(ctx context.Context) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	e.mu.Lock()
	e.releasing = true
	e.mu.Unlock()
	held, err := e.remove(ctx)
	if err != nil {
		e.mu.Lock()
		e.releasing = false
		gone := e.deleted
		e.mu.Unlock()
		if gone {
			// Our key was deleted, by this attempt or by someone else:
			// either way it is not held any more.
			e.lease.Lose(fmt.Errorf("%w: %q: etcd key deleted while its release failed: %w", lock.ErrLost, e.name, err))
		}
		return err
	}
	if !held {
		e.retire(false)
		return fmt.Errorf("%w: %q was no longer held", lock.ErrLost, e.name)
	}
	e.retire(true)
	return nil
}

// watchDelay is how long a lock taken without waiting is held before
// guard watches its key. Most locks are held for milliseconds, and a watch
// per lock would cost more than the lock itself.
const watchDelay = 100 * time.Millisecond

// guard watches our key while the lease is held, and ends the lease as
// lost as soon as the key is deleted behind its back: its etcd lease was
// revoked or expired, or someone deleted it. w is the queue watch a waiter
// ended with; without one, guard starts watching after watchDelay, from
// our key's create revision on, so nothing that happened meanwhile is
// missed. When the lease ends lost otherwise (its local deadline passed, a
// refresh found it gone), guard revokes the etcd lease so that the key is
// free at once rather than when its TTL runs out.
func (e *entry) guard(w *watcher) {
	done := e.lease.Done()
	if w == nil {
		t := time.NewTimer(watchDelay)
		select {
		case <-done:
		case <-t.C:
			w = e.watch(context.Background(), e.key, clientv3.WithRev(e.rev+1))
		}
		t.Stop()
	}
	if w != nil {
		e.follow(w, done)
	}
	<-done
	e.mu.Lock()
	gone := e.deleted
	e.mu.Unlock()
	if !gone && errors.Is(e.lease.Err(), lock.ErrLost) {
		e.retire(false)
	}
}

// follow reads w until the lease ends or our key is deleted, and watches
// again when the watch ends (compaction, lost leader, closed client).
func (e *entry) follow(w *watcher, done <-chan struct{}) {
	defer func() { w.stop() }()
	for w != nil {
		ev, err := w.next(done)
		switch {
		case errors.Is(err, errStopped):
			return
		case err != nil:
			w.stop()
			w = e.rewatch(done)
		case ev.Type == clientv3.EventTypeDelete && string(ev.Kv.Key) == e.key:
			e.keyDeleted(ev.Kv.ModRevision)
			return
		}
	}
}

// rewatch reads our key and watches it from there, retrying until the
// lease ends. It returns nil when the lease ended or the key is gone.
func (e *entry) rewatch(done <-chan struct{}) *watcher {
	backoff := 50 * time.Millisecond
	for {
		resp, err := call(context.Background(), e.l, func(ctx context.Context) (*clientv3.GetResponse, error) {
			return e.l.client.Get(ctx, e.key, clientv3.WithKeysOnly())
		})
		switch {
		case err == nil && (len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != e.rev):
			e.keyDeleted(resp.Header.Revision)
			return nil
		case err == nil:
			return e.watch(context.Background(), e.key, clientv3.WithRev(resp.Header.Revision+1))
		}
		t := time.NewTimer(backoff)
		select {
		case <-done:
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// keyDeleted reports that our key was deleted, at or before revision rev.
// The lease is lost, unless a Release is under way: then the deletion may
// be its own, and Release decides.
func (e *entry) keyDeleted(rev int64) {
	e.mu.Lock()
	releasing := e.releasing
	e.deleted = true
	e.mu.Unlock()
	if !releasing {
		e.lease.Lose(fmt.Errorf("%w: %q: etcd key %s deleted by revision %d (etcd lease revoked or expired, or key deleted)", lock.ErrLost, e.name, e.key, rev))
	}
}

var (
	errStopped    = errors.New("stopped")
	errWatchEnded = errors.New("etcd watch ended")
)

// watcher is an etcd watch and the events it received that are not yet
// handed out.
type watcher struct {
	ch      clientv3.WatchChan
	cancel  context.CancelFunc
	pending []*clientv3.Event
}

// next returns the watch's next event. It returns errStopped once stop is
// closed, and another error when the watch ended.
func (w *watcher) next(stop <-chan struct{}) (*clientv3.Event, error) {
	for len(w.pending) == 0 {
		select {
		case <-stop:
			return nil, errStopped
		case resp, ok := <-w.ch:
			if !ok {
				return nil, errWatchEnded
			}
			if err := resp.Err(); err != nil {
				return nil, err
			}
			w.pending = resp.Events
		}
	}
	ev := w.pending[0]
	w.pending = w.pending[1:]
	return ev, nil
}

// stop ends the watch. It may be called on a nil watcher.
func (w *watcher) stop() {
	if w != nil {
		w.cancel()
	}
}
