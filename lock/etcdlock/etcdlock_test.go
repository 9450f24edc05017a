package etcdlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// newClient returns a client of endpoint, closed when the test ends. Its
// log is silenced: the tests provoke the errors it warns about.
func newClient(t testing.TB, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// revokeHolder revokes the etcd lease of the first key in the queue under
// prefix, as an operator would, and fails the test if there is none.
func revokeHolder(t *testing.T, c *clientv3.Client, prefix string) {
	t.Helper()
	resp, err := c.Get(t.Context(), prefix, clientv3.WithFirstCreate()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		t.Fatalf("no holder under %s", prefix)
	}
	if _, err := c.Revoke(t.Context(), clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
}

// queue returns the etcd keys under prefix, oldest first.
func queue(t *testing.T, c *clientv3.Client, prefix string) []*etcdKV {
	t.Helper()
	resp, err := c.Get(t.Context(), prefix, clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		t.Fatal(err)
	}
	var kvs []*etcdKV
	for _, kv := range resp.Kvs {
		kvs = append(kvs, &etcdKV{Key: string(kv.Key), CreateRevision: kv.CreateRevision, Lease: clientv3.LeaseID(kv.Lease)})
	}
	return kvs
}

// waitQueued waits (bounded) until the queue under prefix has n keys.
func waitQueued(t *testing.T, c *clientv3.Client, prefix string, n int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); len(queue(t, c, prefix)) < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("fewer than %d keys under %s", n, prefix)
		}
	}
}

type etcdKV struct {
	Key            string
	CreateRevision int64
	Lease          clientv3.LeaseID
}

// ownerTxn runs a put guarded by cmp and reports whether it was applied.
func ownerTxn(t *testing.T, c *clientv3.Client, cmp clientv3.Cmp) bool {
	t.Helper()
	resp, err := c.Txn(t.Context()).If(cmp).Then(clientv3.OpPut(t.Name()+"/fenced", "x")).Commit()
	if err != nil {
		t.Fatal(err)
	}
	return resp.Succeeded
}

// TestKeyLayout checks the etcd side of a lock: one key per contender,
// named after its etcd lease, with the lock key escaped so that nested
// names do not share a queue; and nothing left after release.
func TestKeyLayout(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedEtcd(t).Endpoint())
	prefix := "/" + t.Name() + "/"
	l := etcdlock.New(c, &etcdlock.Options{Prefix: prefix})
	ctx := t.Context()

	outer, err := l.TryAcquire(ctx, "sku/42%")
	if err != nil {
		t.Fatal(err)
	}
	inner, err := l.TryAcquire(ctx, "sku/42%/x") // not inside the queue of "sku/42%"
	if err != nil {
		t.Fatalf("a key nested in a held one: %v", err)
	}
	kvs := queue(t, c, prefix)
	if len(kvs) != 2 {
		t.Fatalf("keys = %v, want 2", kvs)
	}
	want := fmt.Sprintf("%ssku%%2F42%%25/%x", prefix, int64(kvs[0].Lease))
	if kvs[0].Key != want {
		t.Errorf("key = %q, want %q", kvs[0].Key, want)
	}
	if uint64(kvs[0].CreateRevision) != outer.Token() {
		t.Errorf("token %d, create revision %d", outer.Token(), kvs[0].CreateRevision)
	}
	if got := etcdlock.QueuePrefix(&etcdlock.Options{Prefix: prefix}, "sku/42%"); !strings.HasPrefix(kvs[0].Key, got) {
		t.Errorf("QueuePrefix = %q", got)
	}

	for _, le := range []lock.Lease{outer, inner} {
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if kvs := queue(t, c, prefix); len(kvs) != 0 {
		t.Errorf("keys after release: %v", kvs)
	}
	ttl, err := c.TimeToLive(ctx, kvs[0].Lease, clientv3.WithAttachedKeys())
	if err != nil {
		t.Fatal(err)
	}
	if len(ttl.Keys) != 0 {
		t.Errorf("etcd lease of a released lock still has keys: %q", ttl.Keys)
	}

	// The next acquisition reuses the idle etcd lease: the same key name,
	// a new key.
	again, err := l.Acquire(ctx, "sku/42%")
	if err != nil {
		t.Fatal(err)
	}
	if kv := queue(t, c, prefix)[0]; kv.Lease != kvs[0].Lease && kv.Lease != kvs[1].Lease || again.Token() <= inner.Token() {
		t.Errorf("second acquisition: etcd lease %x (idle were %x, %x), token %d", kv.Lease, kvs[0].Lease, kvs[1].Lease, again.Token())
	}
	if err := again.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestIdleLeaseRevoked revokes the etcd leases a Locker keeps for reuse and
// checks that its next acquisitions, waiting or not, still work.
func TestIdleLeaseRevoked(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedEtcd(t).Endpoint())
	prefix := "/" + t.Name() + "/"
	l := etcdlock.New(c, &etcdlock.Options{Prefix: prefix})
	ctx := t.Context()
	for _, acquire := range []func(context.Context, string, ...lock.Option) (lock.Lease, error){l.TryAcquire, l.Acquire} {
		le, err := acquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		id := queue(t, c, prefix)[0].Lease
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
		le, err = acquire(ctx, "k")
		if err != nil {
			t.Fatalf("acquisition after the idle etcd lease was revoked: %v", err)
		}
		if kvs := queue(t, c, prefix); len(kvs) != 1 || kvs[0].Lease == id {
			t.Errorf("keys %v; want one, with a new etcd lease", kvs)
		}
		if err := le.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTTLRoundsUp checks how a lock's TTL maps onto etcd leases: rounded up
// to whole seconds, and moved to a new etcd lease when a refresh asks for
// more, keeping the token.
func TestTTLRoundsUp(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedEtcd(t).Endpoint())
	prefix := "/" + t.Name() + "/"
	l := etcdlock.New(c, &etcdlock.Options{Prefix: prefix})
	ctx := t.Context()

	granted := func() (clientv3.LeaseID, int64) {
		t.Helper()
		kvs := queue(t, c, prefix)
		if len(kvs) != 1 {
			t.Fatalf("keys = %v", kvs)
		}
		ttl, err := c.TimeToLive(ctx, kvs[0].Lease)
		if err != nil {
			t.Fatal(err)
		}
		return kvs[0].Lease, ttl.GrantedTTL
	}

	le, err := l.Acquire(ctx, "k", lock.WithTTL(1500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	first, secs := granted()
	if secs != 2 {
		t.Errorf("TTL 1.5s: etcd lease of %ds, want 2s", secs)
	}
	if err := le.Refresh(ctx, 4*time.Second); err != nil {
		t.Fatal(err)
	}
	moved, secs := granted()
	if moved == first || secs != 4 {
		t.Errorf("Refresh(4s): etcd lease %x of %ds, want a new lease of 4s", moved, secs)
	}
	if ttl, _ := c.TimeToLive(ctx, first); ttl.TTL != -1 {
		t.Errorf("the old etcd lease is still alive")
	}
	if kvs := queue(t, c, prefix); uint64(kvs[0].CreateRevision) != le.Token() {
		t.Errorf("token %d, create revision %d after the move", le.Token(), kvs[0].CreateRevision)
	}
	if err := le.Refresh(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	if id, secs := granted(); id != moved || secs != 4 {
		t.Errorf("Refresh(1s): etcd lease %x of %ds, want %x of 4s kept", id, secs, moved)
	}
	if err := le.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseGuardedByRevision checks that the delete of a release is
// guarded by the key's create revision: a release sent again after a newer
// holder took the key, or a stale holder's release of a key that was
// re-created under the same name, deletes nothing (etcd issue 22082).
func TestReleaseGuardedByRevision(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	c := newClient(t, endpoint)
	opts := &etcdlock.Options{Prefix: "/" + t.Name() + "/"}
	a, b, other := etcdlock.New(newClient(t, endpoint), opts), etcdlock.New(newClient(t, endpoint), opts), etcdlock.New(c, opts)
	ctx := t.Context()

	t.Run("RetryAfterNewerHolder", func(t *testing.T) {
		first, err := a.Acquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		idle := queue(t, c, etcdlock.QueuePrefix(opts, "k"))[0].Lease
		if err := first.Release(ctx); err != nil {
			t.Fatal(err)
		}
		second, err := b.Acquire(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		defer second.Release(ctx)
		if err := etcdlock.ReleaseAgain(ctx, first); !errors.Is(err, lock.ErrLost) {
			t.Errorf("release sent again = %v, want ErrLost", err)
		}
		if _, err := other.TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrNotAcquired) {
			t.Fatalf("TryAcquire after the repeated release = %v; the newer holder's key was deleted", err)
		}
		if second.Err() != nil || !ownerTxn(t, c, second.(*etcdlock.Lease).IsOwner()) {
			t.Errorf("the newer holder lost its key")
		}
		// The first etcd lease went back to a's pool: the stale release
		// must not have revoked it.
		if ttl, err := c.TimeToLive(ctx, idle); err != nil || ttl.TTL <= 0 {
			t.Errorf("idle etcd lease after the repeated release: TTL %v, %v", ttl, err)
		}
	})

	t.Run("SameNameRecreated", func(t *testing.T) {
		stale, err := a.Acquire(ctx, "k2")
		if err != nil {
			t.Fatal(err)
		}
		kv := queue(t, c, etcdlock.QueuePrefix(opts, "k2"))[0]
		// The key is deleted behind the holder's back and a key of the
		// same name created again, with a lease of its own.
		if _, err := c.Delete(ctx, kv.Key); err != nil {
			t.Fatal(err)
		}
		g, err := c.Grant(ctx, 30)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Revoke(context.WithoutCancel(ctx), g.ID)
		if _, err := c.Put(ctx, kv.Key, "", clientv3.WithLease(g.ID)); err != nil {
			t.Fatal(err)
		}
		if err := stale.Release(ctx); !errors.Is(err, lock.ErrLost) {
			t.Errorf("stale Release = %v, want ErrLost", err)
		}
		if kvs := queue(t, c, etcdlock.QueuePrefix(opts, "k2")); len(kvs) != 1 || kvs[0].CreateRevision == kv.CreateRevision {
			t.Errorf("the re-created key was deleted by the stale release: %v", kvs)
		}
	})
}

// TestWaiterIsNotOwner checks that a contender queued behind the holder is
// not an owner in any sense (etcd issue 12017): it has no lease, no
// Acquired event, the holder's IsOwner still passes, and the key is refused
// to others. Once the holder is gone the waiter owns it, and the old
// holder's IsOwner fails.
func TestWaiterIsNotOwner(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	c := newClient(t, endpoint)
	opts := &etcdlock.Options{Prefix: "/" + t.Name() + "/"}
	holder, waiter, other := etcdlock.New(newClient(t, endpoint), opts), etcdlock.New(newClient(t, endpoint), opts), etcdlock.New(c, opts)
	ctx := t.Context()
	prefix := etcdlock.QueuePrefix(opts, "k")

	h, err := holder.Acquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []lock.Event
	obs := lock.ObserverFunc(func(e lock.Event) { mu.Lock(); events = append(events, e); mu.Unlock() })
	got := make(chan lock.Lease, 1)
	go func() {
		le, err := waiter.Acquire(ctx, "k", lock.WithObserver(obs))
		if err != nil {
			t.Error(err)
		}
		got <- le
	}()
	waitQueued(t, c, prefix, 2)

	select {
	case le := <-got:
		t.Fatalf("the waiter returned %v while the key was held", le)
	case <-time.After(100 * time.Millisecond):
	}
	mu.Lock()
	if len(events) != 0 {
		t.Errorf("events while waiting: %v", events)
	}
	mu.Unlock()
	if _, err := other.TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrNotAcquired) {
		t.Errorf("TryAcquire with a holder and a waiter = %v", err)
	}
	if !ownerTxn(t, c, h.(*etcdlock.Lease).IsOwner()) {
		t.Errorf("the holder's IsOwner failed while a waiter was queued")
	}

	revokeHolder(t, c, prefix)
	w := <-got
	if w == nil {
		t.FailNow()
	}
	defer w.Release(ctx)
	if w.Token() <= h.Token() {
		t.Errorf("waiter's token %d not above the holder's %d", w.Token(), h.Token())
	}
	if !ownerTxn(t, c, w.(*etcdlock.Lease).IsOwner()) {
		t.Errorf("the new holder's IsOwner failed")
	}
	if ownerTxn(t, c, h.(*etcdlock.Lease).IsOwner()) {
		t.Errorf("the revoked holder's IsOwner passed")
	}
	select {
	case <-h.Done():
		if !errors.Is(h.Err(), lock.ErrLost) {
			t.Errorf("revoked holder's Err = %v", h.Err())
		}
	case <-time.After(5 * time.Second):
		t.Errorf("revoked holder's Done not closed")
	}
}

// TestKeyGoneBehindHolder deletes a holder's etcd key, or revokes its etcd
// lease, by hand and checks that the holder learns of it: at once through
// its watch (also when the deletion comes before the watch starts), through
// Refresh, and for a waiter, whose Acquire gives up.
func TestKeyGoneBehindHolder(t *testing.T) {
	t.Parallel()
	c := newClient(t, testkit.SharedEtcd(t).Endpoint())
	opts := &etcdlock.Options{Prefix: "/" + t.Name() + "/"}
	l := etcdlock.New(c, opts)
	ctx := t.Context()
	first := func(t *testing.T, key string) *etcdKV {
		t.Helper()
		kvs := queue(t, c, etcdlock.QueuePrefix(opts, key))
		if len(kvs) == 0 {
			t.Fatalf("no key for %q", key)
		}
		return kvs[0]
	}
	deleteKey := func(t *testing.T, key string) {
		t.Helper()
		if _, err := c.Delete(ctx, first(t, key).Key); err != nil {
			t.Fatal(err)
		}
	}
	revokeLease := func(t *testing.T, key string) {
		t.Helper()
		if _, err := c.Revoke(ctx, first(t, key).Lease); err != nil {
			t.Fatal(err)
		}
	}

	for _, gone := range []struct {
		name string
		do   func(t *testing.T, key string)
	}{{"KeyDeleted", deleteKey}, {"LeaseRevoked", revokeLease}} {
		t.Run(gone.name+"/Watch", func(t *testing.T) {
			le, err := l.Acquire(ctx, "watch")
			if err != nil {
				t.Fatal(err)
			}
			gone.do(t, le.Key()) // before the holder's watch starts
			select {
			case <-le.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("Done not closed")
			}
			if err := le.Release(ctx); !errors.Is(err, lock.ErrLost) || !errors.Is(le.Err(), lock.ErrLost) {
				t.Errorf("Release = %v, Err = %v; want ErrLost", err, le.Err())
			}
		})
		t.Run(gone.name+"/Refresh", func(t *testing.T) {
			le, err := l.Acquire(ctx, "refresh")
			if err != nil {
				t.Fatal(err)
			}
			defer le.Release(ctx)
			gone.do(t, le.Key())
			if err := le.Refresh(ctx, lock.DefaultTTL); !errors.Is(err, lock.ErrLost) {
				t.Errorf("Refresh = %v, want ErrLost", err)
			}
		})
		t.Run(gone.name+"/Waiter", func(t *testing.T) {
			holder, err := l.Acquire(ctx, "wait")
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Release(ctx)
			waiter := etcdlock.New(newClient(t, c.Endpoints()[0]), opts)
			waited := make(chan error, 1)
			go func() {
				le, err := waiter.Acquire(ctx, "wait")
				if err == nil {
					le.Release(ctx)
				}
				waited <- err
			}()
			prefix := etcdlock.QueuePrefix(opts, "wait")
			waitQueued(t, c, prefix, 2)
			kv := queue(t, c, prefix)[1]
			if gone.name == "KeyDeleted" {
				_, err = c.Delete(ctx, kv.Key)
			} else {
				_, err = c.Revoke(ctx, kv.Lease)
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-waited:
				if !errors.Is(err, lock.ErrNotAcquired) || errors.Is(err, context.Canceled) {
					t.Errorf("waiter whose key is gone: Acquire = %v, want ErrNotAcquired", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the waiter whose key is gone is still waiting")
			}
			if holder.Err() != nil {
				t.Errorf("holder: %v", holder.Err())
			}
		})
	}
}
