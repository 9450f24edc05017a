package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// sys returns tb's context carrying the service's own actor, as every
// call to the engine needs one.
func sys(tb testing.TB) context.Context { return stockade.WithActor(tb.Context(), stockade.System) }

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the responses")

// start is the engine's clock at the start of every test: the times in
// the golden files follow from it.
var start = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// clock is the engine's time, moved by the test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// syncBuffer collects log output from the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// api is a server on the real engine and a fresh SQLite store.
type api struct {
	t      *testing.T
	srv    *httptest.Server
	server *Server
	eng    *engine.Engine
	clock  *clock
	logs   *syncBuffer
	client *Client
}

type apiOptions struct {
	server *Options
	// keyed: requests without an API key are refused. Otherwise the
	// server is open (Options.Open), and requests that carry no key act
	// as the service.
	keyed bool
	// wrap, if set, stands between the server and the engine.
	wrap func(stockade.Service) stockade.Service
	// noWebhook: the server has no Options.WebhookSecrets. Otherwise,
	// unless server gives its own, it has webhookSecret.
	noWebhook bool
	// postgres: the store is PostgreSQL, a database of its own on the
	// shared server, rather than SQLite.
	postgres bool
}

// webhookSecret is the webhook secret of the test servers.
var webhookSecret = []byte("whsec_test_0123456789")

// store is what a test server needs of its store: the engine's, which
// /readyz pings, and migrations.
type store interface {
	stockade.Store
	Migrate(ctx context.Context) error
	Close() error
}

// openStore opens a fresh, migrated store: SQLite in a temporary
// directory, or with pg a database of its own on the shared PostgreSQL
// server.
func openStore(t *testing.T, pg bool) store {
	t.Helper()
	if pg {
		return teststore.OpenPostgres(t, nil)
	}
	return teststore.OpenSQLite(t, nil)
}

func newAPI(t *testing.T, o *apiOptions) *api {
	t.Helper()
	if o == nil {
		o = &apiOptions{}
	}
	st := openStore(t, o.postgres)
	clk := &clock{now: start}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	eng, err := engine.New(st, &engine.Options{Now: clk.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	var svc stockade.Service = eng
	if o.wrap != nil {
		svc = o.wrap(eng)
	}
	opts := Options{}
	if o.server != nil {
		opts = *o.server
	}
	opts.Open = !o.keyed
	if opts.WebhookSecrets == nil && !o.noWebhook {
		opts.WebhookSecrets = [][]byte{webhookSecret}
	}
	server := NewServer(svc, log, &opts, st)
	srv := httptest.NewServer(checkOpenAPI(t, server))
	t.Cleanup(srv.Close)
	t.Cleanup(server.CloseStreams) // before srv.Close, which waits for them
	return &api{t: t, srv: srv, server: server, eng: eng, clock: clk, logs: logs, client: NewClient(srv.URL, srv.Client())}
}

// response is what a request got back.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

// problem decodes a problem document, failing the test if it is not one.
func (r response) problem(t *testing.T) problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != contentProblem {
		t.Fatalf("Content-Type %q, want %s; response %s", ct, contentProblem, r)
	}
	var p problem
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("not a problem document: %v: %s", err, r.body)
	}
	if p.Status != r.status || p.Type != "urn:stockade:problem:"+p.Code || p.Title != http.StatusText(r.status) || p.Detail == "" {
		t.Errorf("problem %+v does not agree with status %d", p, r.status)
	}
	return p
}

// do sends a request with body (a string, sent as is, or nil) and the
// given header lines ("Name: value").
func (a *api) do(method, path string, body any, header ...string) response {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		a.t.Fatalf("body of type %T", body)
	}
	req, err := http.NewRequestWithContext(sys(a.t), method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	given := map[string]bool{}
	for _, h := range header { // the first of a name replaces, the next add
		name, value, _ := strings.Cut(h, ":")
		if value = strings.TrimSpace(value); given[name] {
			req.Header.Add(name, value)
		} else {
			req.Header.Set(name, value)
		}
		given[name] = true
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// must sends a request and fails the test unless it gets want.
func (a *api) must(want int, method, path string, body any, header ...string) response {
	a.t.Helper()
	r := a.do(method, path, body, header...)
	if r.status != want {
		a.t.Fatalf("%s %s: got %s, want status %d", method, path, r, want)
	}
	return r
}

// id returns the "id" field of a JSON response.
func (r response) id(t *testing.T) string {
	t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal(r.body, &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s", r)
	}
	return v.ID
}

// seed creates two locations and stock of "widget" at both: 10 in east
// (New York), 5 in west (San Francisco).
func (a *api) seed() {
	a.t.Helper()
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`)
	a.must(200, "PUT", "/v1/locations/west", `{"name":"West","lat":37.77,"lon":-122.42}`)
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`)
	a.must(200, "PUT", "/v1/stock/widget/west", `{"on_hand":5}`)
}

// snapshot is the state bad requests must not change: the stock of
// widget and the whole ledger.
func (a *api) snapshot() string {
	a.t.Helper()
	stock := a.must(200, "GET", "/v1/stock/widget", nil)
	ledger := a.must(200, "GET", "/v1/movements", nil)
	return string(stock.body) + string(ledger.body)
}

// ids matches the engine's random record ids and key secrets.
var ids = regexp.MustCompile(`\b(res|ord|key|hld|bkg|shp)_[a-z2-7]{26}\b|\bstk_[a-z2-7]{26}_[a-z2-7]{52}\b`)

// cursors matches the cursors of lists, in a body and in a query: some
// hold random ids.
var cursors = regexp.MustCompile(`("next_cursor":"|cursor=)([A-Za-z0-9_-]+)`)

// rename replaces the random ids in s with res_1, ord_1, … and the
// cursors with cursor_1, … in order of first appearance, using and
// extending seen.
func rename(s string, seen map[string]string) string {
	s = cursors.ReplaceAllStringFunc(s, func(m string) string {
		sub := cursors.FindStringSubmatch(m)
		if _, ok := seen[sub[2]]; !ok {
			n := 1
			for _, v := range seen {
				if strings.HasPrefix(v, "cursor_") {
					n++
				}
			}
			seen[sub[2]] = fmt.Sprintf("cursor_%d", n)
		}
		return sub[1] + seen[sub[2]]
	})
	return ids.ReplaceAllStringFunc(s, func(id string) string {
		if r, ok := seen[id]; ok {
			return r
		}
		prefix, n := id[:3], 1
		for _, v := range seen {
			if v[:3] == prefix {
				n++
			}
		}
		seen[id] = fmt.Sprintf("%s_%d", prefix, n)
		return seen[id]
	})
}

// normalize renames the ids of a JSON body and indents it.
func normalize(t *testing.T, body []byte, seen map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(rename(string(body), seen)), "", "  "); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, body)
	}
	return buf.Bytes()
}

// golden compares a response with testdata/name.golden, or rewrites the
// file with -update.
func golden(t *testing.T, name string, req string, r response, seen map[string]string) {
	t.Helper()
	got := fmt.Appendf(nil, "%s\n%d %s\n\n%s\n", rename(req, seen), r.status, r.header.Get("Content-Type"), normalize(t, r.body, seen))
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
