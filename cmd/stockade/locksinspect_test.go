package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/etcdlock"
	"github.com/stockade/stockade/lock/pglock"
	"github.com/stockade/stockade/lock/redislock"
)

// TestLocksInspect lists, shows and breaks keys that a locker on a real
// etcd holds, as an operator would from another process.
func TestLocksInspect(t *testing.T) {
	t.Parallel()
	endpoint := testkit.SharedEtcd(t).Endpoint()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	l := etcdlock.New(client, nil) // the namespace serve's locker uses
	t.Cleanup(func() { l.Close() })
	ctx := t.Context()
	prefix := fmt.Sprintf("inspect-%x/", rand.Uint64())
	key := prefix + "sku"

	holder, err := l.Acquire(ctx, key, lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan lock.Lease, 1)
	go func() {
		le, err := l.Acquire(ctx, key)
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		next <- le
	}()
	sem, err := l.AcquirePermits(ctx, prefix+"exports", 4, 3, lock.WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer sem.Release(ctx)

	locker := "etcd://" + endpoint
	var states []lock.KeyState
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out, _, err := runCmd(t, nil, "locks", "ls", "-locker", locker, "-prefix", prefix, "-json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &states); err != nil {
			t.Fatalf("ls -json: %v\n%s", err, out)
		}
		if len(states) == 2 && states[0].Waiters == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(states) != 2 || states[0].Key != key || states[0].Kind != lock.KindLock || states[0].Waiters != 1 ||
		len(states[0].Holders) != 1 || states[0].Holders[0].Token != holder.Token() ||
		states[1].Kind != lock.KindSemaphore || states[1].Limit != 4 || states[1].Holders[0].Permits != 3 {
		t.Fatalf("ls -json = %+v; want %s held by token %d with a waiter, and a semaphore of 4 with 3 taken", states, key, holder.Token())
	}

	out, _, err := runCmd(t, nil, "locks", "ls", "-locker", locker, "-prefix", prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"KIND", key, "semaphore/4", "1 (3 permits)", fmt.Sprint(holder.Token())} {
		if !strings.Contains(out, want) {
			t.Errorf("ls prints no %q:\n%s", want, out)
		}
	}
	out, _, err = runCmd(t, nil, "locks", "show", "-locker", locker, key)
	if err != nil || !strings.Contains(out, "holder ") || !strings.Contains(out, "waiters ") {
		t.Errorf("show = %v:\n%s\nwant the holder and the waiter", err, out)
	}

	out, _, err = runCmd(t, nil, "locks", "break", "-locker", locker, key)
	if err != nil || !strings.Contains(out, "broke "+key) {
		t.Fatalf("break = %v:\n%s", err, out)
	}
	select {
	case <-holder.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the broken holder's lease did not end")
	}
	if !errors.Is(holder.Err(), lock.ErrLost) {
		t.Errorf("broken holder: Err() = %v; want ErrLost", holder.Err())
	}
	le := <-next
	if le == nil || le.Token() <= holder.Token() {
		t.Fatalf("the waiter after the break: %v; want a token above %d", le, holder.Token())
	}
	defer le.Release(ctx)

	if out, _, err := runCmd(t, nil, "locks", "show", "-locker", locker, prefix+"free"); err != nil || !strings.Contains(out, "is free") {
		t.Errorf("show of a free key = %v: %s", err, out)
	}
}

// TestLocksInspectRefuses: the commands say what is wrong before they
// touch a server.
func TestLocksInspectRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ls"}, "-locker is required"},
		{[]string{"ls", "-locker", "memory"}, "lives inside the serve process"},
		{[]string{"ls", "-locker", "postgres"}, "needs -store"},
		{[]string{"ls", "-locker", "nats://x"}, "unsupported"},
		{[]string{"ls", "-locker", "etcd://127.0.0.1:1", "extra"}, "unexpected arguments"},
		{[]string{"show", "-locker", "etcd://127.0.0.1:1"}, "want one KEY"},
		{[]string{"break", "-locker", "etcd://127.0.0.1:1", "a", "b"}, "want one KEY"},
		{[]string{"show", "-locker", "etcd://127.0.0.1:1", ""}, "empty key"},
	} {
		_, _, err := runCmd(t, nil, append([]string{"locks"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("locks %q: %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestLocksInspectNamespace: keys that a library user's Lockers took in
// a namespace of their own (Options.Prefix) are listed, shown and broken
// with -namespace, and are not in the service's namespace.
func TestLocksInspectNamespace(t *testing.T) {
	t.Parallel()
	namespace := fmt.Sprintf("jobs-%x:", rand.Uint64())
	for _, tc := range []struct {
		name string
		// locker returns a Locker in namespace and the flags that reach
		// its servers.
		locker func(t *testing.T) (lock.Locker, []string)
	}{
		{"redis", func(t *testing.T) (lock.Locker, []string) {
			r := testkit.SharedRedis(t)
			client := redis.NewClient(&redis.Options{Addr: r.Addr()})
			t.Cleanup(func() { client.Close() })
			l := redislock.New(client, &redislock.Options{Prefix: namespace})
			t.Cleanup(func() { l.Close() })
			return l, []string{"-locker", "redis://" + r.Addr()}
		}},
		{"postgres", func(t *testing.T) (lock.Locker, []string) {
			url := newDatabase(t)
			pool, err := pgxpool.New(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			l := pglock.New(pool, &pglock.Options{Prefix: namespace})
			t.Cleanup(func() { l.Close() })
			return l, []string{"-locker", "postgres", "-store", url}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, flags := tc.locker(t)
			key := fmt.Sprintf("export-%x", rand.Uint64())
			holder, err := l.Acquire(t.Context(), key, lock.WithTTL(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			inspect := func(args ...string) string {
				t.Helper()
				out, _, err := runCmd(t, nil, append(append([]string{"locks"}, args[:1]...), append(flags, args[1:]...)...)...)
				if err != nil {
					t.Fatalf("locks %v: %v\n%s", args, err, out)
				}
				return out
			}
			if out := inspect("show", key); !strings.Contains(out, "is free") {
				t.Errorf("show in the service's namespace:\n%s\nwant the key free there", out)
			}
			if out := inspect("ls", "-namespace", namespace, "-prefix", key); !strings.Contains(out, key) || !strings.Contains(out, fmt.Sprint(holder.Token())) {
				t.Errorf("ls -namespace %s:\n%s\nwant %s held by token %d", namespace, out, key, holder.Token())
			}
			if out := inspect("show", "-namespace", namespace, key); !strings.Contains(out, "holder ") {
				t.Errorf("show -namespace %s:\n%s\nwant its holder", namespace, out)
			}
			if out := inspect("break", "-namespace", namespace, key); !strings.Contains(out, "broke "+key) {
				t.Errorf("break -namespace %s:\n%s", namespace, out)
			}
			select {
			case <-holder.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("the broken holder's lease did not end")
			}
		})
	}
}
