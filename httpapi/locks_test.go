package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/lock/pglock"
)

// lockTTL is the TTL of the leases the tests hold: far longer than any
// test, so that none expires under a -race stall.
const lockTTL = 10 * time.Minute

// locksAPI is a keyed server whose Options.Locks is l.
func locksAPI(t *testing.T, l lock.Inspector) (*api, keys) {
	t.Helper()
	a := newAPI(t, &apiOptions{keyed: true, server: &Options{Locks: l}})
	return a, a.makeKeys()
}

// hold takes key on l, of one kind, until the test ends.
func hold(t *testing.T, acquire func(ctx context.Context) (lock.Lease, error)) lock.Lease {
	t.Helper()
	le, err := acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { le.Release(context.WithoutCancel(t.Context())) })
	return le
}

// queue makes a caller wait for the lock key on l until the test ends, and
// returns once l shows it waiting.
func queue(t *testing.T, l *memlock.Locker, key string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		if le, err := l.Acquire(ctx, key, lock.WithTTL(lockTTL)); err == nil {
			le.Release(context.WithoutCancel(ctx))
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := l.InspectKey(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) == 1 && st[0].Waiters == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no waiter on %s: %+v", key, st)
		}
		time.Sleep(time.Millisecond)
	}
}

// locksPage decodes the answer of GET /v1/locks strictly.
func locksPage(t *testing.T, r response) locksJSON {
	t.Helper()
	var page locksJSON
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&page); err != nil {
		t.Fatalf("not a page of locks: %v: %s", err, r.body)
	}
	return page
}

// placesOf lists the keys and kinds of states, as "key/kind".
func placesOf(states []lockStateJSON) []string {
	out := make([]string, len(states))
	for i, st := range states {
		out[i] = st.Key + "/" + st.Kind
	}
	return out
}

// TestLocks: GET /v1/locks lists what a memlock Locker holds, by key and
// kind, with holders and waiters; ?prefix= keeps some keys; ?limit= and
// next_cursor page through them, every key once; readers may call it,
// storefront keys may not.
func TestLocks(t *testing.T) {
	t.Parallel()
	l := memlock.New(nil)
	a, ks := locksAPI(t, l)
	reader, admin := bearerOf(ks.reader), bearerOf(ks.admin)

	widget := hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.Acquire(ctx, "stockade:sku:widget", lock.WithTTL(lockTTL))
	})
	queue(t, l, "stockade:sku:widget")
	gadget := hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.Acquire(ctx, "stockade:sku:gadget", lock.WithTTL(lockTTL))
	})
	hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.AcquirePermits(ctx, "stockade:sku:gadget", 3, 2, lock.WithTTL(lockTTL))
	})
	hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.AcquireShared(ctx, "stockade:event:gala", lock.WithTTL(lockTTL))
	})
	hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.Acquire(ctx, "batch/nightly", lock.WithTTL(lockTTL))
	})
	all := []string{
		"batch/nightly/lock",
		"stockade:event:gala/rwlock",
		"stockade:sku:gadget/lock",
		"stockade:sku:gadget/semaphore",
		"stockade:sku:widget/lock",
	}

	page := locksPage(t, a.must(200, "GET", "/v1/locks", nil, reader))
	if got := placesOf(page.Locks); strings.Join(got, " ") != strings.Join(all, " ") || page.NextCursor != "" {
		t.Fatalf("GET /v1/locks: %v, next_cursor %q; want %v on one page", got, page.NextCursor, all)
	}
	byPlace := map[string]lockStateJSON{}
	for _, st := range page.Locks {
		byPlace[st.Key+"/"+st.Kind] = st
	}
	w := byPlace["stockade:sku:widget/lock"]
	if len(w.Holders) != 1 || w.Holders[0].Token != widget.Token() || w.Waiters != 1 {
		t.Errorf("widget: %+v; want held by token %d, one waiter", w, widget.Token())
	} else if h := w.Holders[0]; h.ExpiresAt.Before(time.Now().Add(lockTTL/2)) || h.AcquiredAt.IsZero() || h.ExpiresAt.Location() != time.UTC {
		t.Errorf("widget's holder: %+v; want acquired now, expiring in about %v, in UTC", h, lockTTL)
	}
	if g := byPlace["stockade:sku:gadget/lock"]; len(g.Holders) != 1 || g.Holders[0].Token != gadget.Token() || g.Waiters != 0 {
		t.Errorf("gadget's lock: %+v; want held by token %d, no waiter", g, gadget.Token())
	}
	if s := byPlace["stockade:sku:gadget/semaphore"]; s.Limit != 3 || len(s.Holders) != 1 || s.Holders[0].Permits != 2 || s.Holders[0].Token != 0 {
		t.Errorf("gadget's semaphore: %+v; want 2 of 3 permits held", s)
	}
	if g := byPlace["stockade:event:gala/rwlock"]; len(g.Holders) != 1 || !g.Holders[0].Shared {
		t.Errorf("gala: %+v; want one shared holder", g)
	}
	// The JSON is what "stockade locks ls -json" prints of the same
	// states, times aside.
	if want := `{"key":"stockade:sku:widget","kind":"lock","holders":[{"token":`; !strings.Contains(string(a.must(200, "GET", "/v1/locks?prefix=stockade:sku:w", nil, admin).body), want) {
		t.Errorf("the widget's state is not spelled as lock.KeyState: want it to contain %s", want)
	}

	t.Run("prefix", func(t *testing.T) {
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{"stockade:sku:", all[2:]},
			{"stockade:", all[1:]},
			{"stockade:sku:gadget", all[2:4]},
			{"nothing/", nil},
		} {
			page := locksPage(t, a.must(200, "GET", "/v1/locks?prefix="+url.QueryEscape(tc.prefix), nil, reader))
			if got := placesOf(page.Locks); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("prefix %q: %v, want %v", tc.prefix, got, tc.want)
			}
		}
	})

	t.Run("pages", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"", all},
			{"prefix=stockade:", all[1:]},
			{"prefix=stockade:sku:gadget", all[2:4]},
		} {
			for limit := 1; limit <= len(tc.want)+1; limit++ {
				var got []string
				path := "/v1/locks?" + tc.query + "&limit=" + strconv.Itoa(limit)
				for pages := 0; ; pages++ {
					if pages > len(all) {
						t.Fatalf("%s: more pages than keys", path)
					}
					page := locksPage(t, a.must(200, "GET", path, nil, reader))
					if len(page.Locks) > limit || (page.NextCursor != "" && len(page.Locks) != limit) {
						t.Fatalf("%s: %d locks, next_cursor %q", path, len(page.Locks), page.NextCursor)
					}
					got = append(got, placesOf(page.Locks)...)
					if page.NextCursor == "" {
						break
					}
					path = "/v1/locks?" + tc.query + "&limit=" + strconv.Itoa(limit) + "&cursor=" + url.QueryEscape(page.NextCursor)
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("%s, limit %d: the pages list %v, want %v", tc.query, limit, got, tc.want)
				}
			}
		}
	})

	t.Run("a key released between pages", func(t *testing.T) {
		first := locksPage(t, a.must(200, "GET", "/v1/locks?limit=2", nil, reader))
		le := hold(t, func(ctx context.Context) (lock.Lease, error) {
			return l.Acquire(ctx, "batch/zz", lock.WithTTL(lockTTL))
		})
		if err := le.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		rest := locksPage(t, a.must(200, "GET", "/v1/locks?limit=10&cursor="+url.QueryEscape(first.NextCursor), nil, reader))
		if got := placesOf(rest.Locks); strings.Join(got, " ") != strings.Join(all[2:], " ") {
			t.Errorf("after the first page: %v, want %v", got, all[2:])
		}
	})

	t.Run("access", func(t *testing.T) {
		a.must(200, "GET", "/v1/locks", nil, admin)
		p := a.must(403, "GET", "/v1/locks", nil, bearerOf(ks.storefront)).problem(t)
		if p.Code != stockade.EForbidden {
			t.Errorf("storefront: %+v", p)
		}
		a.must(401, "GET", "/v1/locks", nil)
	})

	t.Run("bad queries", func(t *testing.T) {
		for _, tc := range []struct{ query, detail string }{
			{"limit=0", "limit: want an integer between 1 and 1000"},
			{"limit=1001", "limit: want an integer between 1 and 1000"},
			{"limit=all", "limit: want an integer"},
			{"limit=1&limit=2", "limit given 2 times"},
			{"prefix=", "prefix: must not be empty"},
			{"cursor=", "cursor: must not be empty"},
			{"cursor=2", "cursor: malformed"},
			{"cursor=" + lockCursors.EncodeToString([]byte("swidget")), "cursor: malformed"},     // GET /v1/stock's
			{"cursor=" + lockCursors.EncodeToString([]byte("klockwidget")), "cursor: malformed"}, // no NUL
			{"key=widget", `unknown parameter "key"`},
		} {
			p := a.must(400, "GET", "/v1/locks?"+tc.query, nil, reader).problem(t)
			if p.Code != stockade.EInvalid || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("%s: %+v, want invalid saying %q", tc.query, p, tc.detail)
			}
		}
	})
}

// TestLocksWithoutInspector: a server without Options.Locks refuses GET
// /v1/locks with 409 invalid_state, saying why, and changes nothing.
func TestLocksWithoutInspector(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	a.seed()
	before := a.snapshot()
	p := a.must(409, "GET", "/v1/locks", nil).problem(t)
	if p.Code != stockade.EInvalidState || !strings.Contains(p.Detail, "no lock inspector") {
		t.Errorf("%+v, want invalid_state saying there is no lock inspector", p)
	}
	a.must(400, "GET", "/v1/locks?limit=0", nil) // bad input first
	if after := a.snapshot(); after != before {
		t.Errorf("the refusal changed the store:\n%s\n%s", before, after)
	}
}

// TestLocksUnavailable: with the lock servers down (pglock's PostgreSQL,
// killed), GET /v1/locks is 503 unavailable, logged with its cause and
// not as an internal error.
func TestLocksUnavailable(t *testing.T) {
	t.Parallel()
	pg := testkit.NewPostgres(t)
	dbURL, err := pg.CreateDatabase("locks")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	l := pglock.New(pool, nil)
	t.Cleanup(func() { l.Close() })
	a, ks := locksAPI(t, l)
	reader := bearerOf(ks.reader)

	le := hold(t, func(ctx context.Context) (lock.Lease, error) {
		return l.Acquire(ctx, "stockade:sku:widget", lock.WithTTL(lockTTL))
	})
	page := locksPage(t, a.must(200, "GET", "/v1/locks", nil, reader))
	if got := placesOf(page.Locks); len(got) != 1 || got[0] != "stockade:sku:widget/lock" || page.Locks[0].Holders[0].Token != le.Token() {
		t.Fatalf("pglock: %+v, want stockade:sku:widget held by token %d", page.Locks, le.Token())
	}

	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	p := a.must(503, "GET", "/v1/locks", nil, reader).problem(t)
	if p.Code != stockade.EUnavailable || p.Detail != "the lock servers cannot be read; try again" {
		t.Errorf("%+v, want unavailable", p)
	}
	if logs := a.logs.String(); !strings.Contains(logs, "lock inspector failed") || strings.Contains(logs, "internal error") {
		t.Errorf("the failure is not logged as the lock servers':\n%s", logs)
	}
}

// FuzzLockQuery: the query of GET /v1/locks is accepted with a limit in
// range, or refused as invalid; a cursor it accepts is one that
// lockCursor makes of the place it holds.
func FuzzLockQuery(f *testing.F) {
	for _, s := range []string{
		"", "prefix=stockade:sku:", "limit=10", "limit=0", "limit=1001", "prefix=", "cursor=", "x=1",
		"cursor=" + lockCursor(lockPlace{"stockade:sku:widget", lock.KindLock}), "cursor=a2xvY2sAYQ", "cursor=%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/locks", nil)
		r.URL.RawQuery = raw
		q, err := readLockQuery(r)
		if err != nil {
			refused(t, err)
			return
		}
		if q.limit < 1 || q.limit > maxLockLimit {
			t.Fatalf("%q: accepted limit %d", raw, q.limit)
		}
		if q.after != nil {
			back, err := parseLockCursor(lockCursor(*q.after))
			if err != nil || *back != *q.after {
				t.Fatalf("%q: cursor of %+v reads back as %+v, %v", raw, *q.after, back, err)
			}
		}
	})
}
