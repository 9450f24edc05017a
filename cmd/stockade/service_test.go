package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
)

// lockedBuffer collects a server's log while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a running "stockade serve".
type server struct {
	addr string
	log  *lockedBuffer
	stop func() error // cancels run and returns its error
}

// startServe runs "stockade serve args…" with env until the test ends or
// stop is called.
func startServe(t *testing.T, env map[string]string, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		// The log first: it holds the listening line by the time the
		// reader of the pipe has seen it.
		err := run(ctx, append([]string{"stockade", "serve", "-addr", "127.0.0.1:0", "-open"}, args...),
			func(k string) string { return env[k] }, io.Discard, io.MultiWriter(log, pw))
		pw.Close()
		done <- err
	}()
	s := &server{log: log}
	var once sync.Once
	var stopErr error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(30 * time.Second):
				stopErr = fmt.Errorf("run did not return within 30s of cancel")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { s.stop() })
	found := make(chan string, 1)
	go func() {
		defer io.Copy(io.Discard, pr)
		buf := make([]byte, 0, 4096)
		tmp := make([]byte, 512)
		for {
			n, err := pr.Read(tmp)
			buf = append(buf, tmp[:n]...)
			if m := listenLine.FindSubmatch(buf); m != nil {
				found <- string(m[1])
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case s.addr = <-found:
	case err := <-done:
		t.Fatalf("serve exited: %v\nlog:\n%s", err, log)
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not report its address; log:\n%s", log)
	}
	return s
}

// shop runs a small flow through the API: a location, stock, a reservation
// confirmed into an order, and a direct checkout.
func shop(t *testing.T, c *httpapi.Client, sku string) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East", Point: &stockade.Point{Lat: 40.7, Lon: -74}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(ctx, stockade.Key{SKU: sku, Location: "east"}, 5, nil, nil); err != nil {
		t.Fatal(err)
	}
	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: sku, Quantity: 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Confirm(ctx, r.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: sku, Quantity: 3}}}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: sku, Quantity: 1}}}, nil)
	if stockade.ErrorCode(err) != stockade.EInsufficientStock {
		t.Fatalf("reserve past the stock: %v, want %s", err, stockade.EInsufficientStock)
	}
	st, err := c.Stock(ctx, sku)
	if err != nil {
		t.Fatal(err)
	}
	if st.Totals != (stockade.Totals{OnHand: 5, Committed: 5}) {
		t.Fatalf("totals %+v, want 5 on hand, 5 committed", st.Totals)
	}
}

// TestServeStrategiesAndLockers runs the shop flow on every strategy and
// every locker, and checks that the start-up line says what runs.
func TestServeStrategiesAndLockers(t *testing.T) {
	t.Parallel()
	sqlitePath := func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "s.db") }
	pgStore := func(t *testing.T) string { return newDatabase(t) }
	redlockNodes := func(t *testing.T) string {
		var nodes []string
		for range 3 {
			nodes = append(nodes, testkit.NewRedis(t).Addr())
		}
		return "redlock://" + strings.Join(nodes, ",")
	}
	tests := []struct {
		name         string
		store        func(*testing.T) string
		strategy     string
		locker       func(*testing.T) string
		wantStrategy string // a prefix of the logged strategy
		wantLocker   string // a prefix of the logged locker
	}{
		{"sqlite atomic", sqlitePath, "atomic", nil, "strategy=atomic ", `locker="none (strategy atomic takes no locks)"`},
		{"sqlite optimistic", sqlitePath, "optimistic", nil, "strategy=optimistic ", "locker="},
		{"sqlite rowlock falls back", sqlitePath, "rowlock", nil, `strategy="rowlock (fallback: `, "locker="},
		{"sqlite advisory falls back", sqlitePath, "advisory", nil, `strategy="advisory (fallback: `, "locker="},
		{"sqlite lock memory", sqlitePath, "lock", nil, "strategy=lock ", "locker=memory"},
		{"sqlite lock redis", sqlitePath, "lock", func(t *testing.T) string { return "redis://" + testkit.SharedRedis(t).Addr() + "/0" }, "strategy=lock ", "locker=redis://"},
		{"sqlite lock redlock", sqlitePath, "lock", redlockNodes, "strategy=lock ", "locker=redlock://"},
		{"sqlite lock etcd", sqlitePath, "lock", func(t *testing.T) string { return "etcd://" + testkit.SharedEtcd(t).Endpoint() }, "strategy=lock ", "locker=etcd://"},
		{"postgres atomic", pgStore, "atomic", nil, "strategy=atomic ", "locker="},
		{"postgres rowlock", pgStore, "rowlock", nil, "strategy=rowlock ", "locker="},
		{"postgres advisory", pgStore, "advisory", nil, "strategy=advisory ", "locker="},
		{"postgres lock postgres", pgStore, "lock", func(*testing.T) string { return "postgres" }, "strategy=lock ", "locker=postgres"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"STOCKADE_STORE": tc.store(t), "STOCKADE_STRATEGY": tc.strategy}
			if tc.locker != nil {
				env["STOCKADE_LOCKER"] = tc.locker(t)
			}
			s := startServe(t, env)
			line := regexp.MustCompile(`(?m)^.*msg=listening .*$`).FindString(s.log.String())
			if !strings.Contains(line, tc.wantStrategy) || !strings.Contains(line, tc.wantLocker) {
				t.Errorf("start-up line %q does not say %q and %q", line, tc.wantStrategy, tc.wantLocker)
			}
			if strings.Contains(line, "password") {
				t.Errorf("start-up line shows a password: %q", line)
			}
			shop(t, httpapi.NewClient("http://"+s.addr, nil), "sku-1")
			if err := s.stop(); err != nil {
				t.Fatalf("stop: %v\nlog:\n%s", err, s.log)
			}
		})
	}
}

// TestServeLockMemoryAfterRestart: the in-memory locker starts its
// fencing tokens above those the store has seen, so a restarted service
// can still write the levels its previous run fenced.
func TestServeLockMemoryAfterRestart(t *testing.T) {
	t.Parallel()
	store := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	for i := range 2 {
		s := startServe(t, nil, "-store", store, "-strategy", "lock")
		c := httpapi.NewClient("http://"+s.addr, nil)
		if i == 0 {
			shop(t, c, "sku-1")
		}
		if _, err := c.AdjustStock(t.Context(), stockade.Key{SKU: "sku-1", Location: "east"}, 1, "restock", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "sku-1", Quantity: 1}}}, nil); err != nil {
			t.Fatalf("run %d: reserve: %v", i+1, err)
		}
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeSweepsAndServesMetrics: a lapsed reservation is expired by the
// sweeper, and /metrics shows the requests, the engine and the sweeper.
func TestServeSweepsAndServesMetrics(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "s.db"),
		"-sweep-interval", "50ms", "-default-ttl", "1s", "-log-level", "debug")
	c := httpapi.NewClient("http://"+s.addr, nil)
	ctx := t.Context()
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(ctx, stockade.Key{SKU: "a", Location: "east"}, 3, nil, nil); err != nil {
		t.Fatal(err)
	}
	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "a", Quantity: 3}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := c.Stock(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if st.Totals.Reserved == 0 {
			// Logged, not asserted: how long after its expiry the
			// sweeper (every 50ms) gave the stock back.
			t.Logf("hold expired at %s, stock back %v later", r.ExpiresAt.Format(time.StampMilli), time.Since(r.ExpiresAt).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reservation %s not expired by the sweeper: %+v", r.ID, st.Totals)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := c.Confirm(ctx, r.ID, nil); stockade.ErrorCode(err) != stockade.EReservationExpired {
		t.Fatalf("confirm of an expired hold: %v, want %s", err, stockade.EReservationExpired)
	}
	// The sweep records its metrics once its transaction has committed,
	// a moment after the stock is back: read them until they are there.
	wants := []string{
		`stockade_http_requests_total{method="POST",route="/v1/reservations",status="201"} 1`,
		`stockade_reservations_total{op="reserve",outcome="ok"} 1`,
		`stockade_engine_calls_total{op="reserve",outcome="ok"} 1`,
		`stockade_reservations_expired_total 1`,
		`stockade_engine_call_duration_seconds_count{op="sweep"}`,
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, body := get(t, "http://"+s.addr+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("GET /metrics = %d", code)
		}
		var missing []string
		for _, want := range wants {
			if !strings.Contains(body, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics has no %q", missing)
		}
	}
	if !strings.Contains(s.log.String(), "msg=request method=POST route=/v1/reservations") {
		t.Errorf("-log-level debug: no request line in\n%s", s.log)
	}
}

// TestServeBatchMetrics: under the batch strategy /metrics counts the
// batch transactions and how many calls each decided.
func TestServeBatchMetrics(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "b.db"), "-strategy", "batch", "-max-batch", "8")
	c := httpapi.NewClient("http://"+s.addr, nil)
	ctx := t.Context()
	stockUp(t, c, "a", 3)
	for range 2 {
		if _, err := c.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "a", Quantity: 1}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, body := get(t, "http://"+s.addr+"/metrics")
	if !strings.Contains(s.log.String(), "strategy=batch locker=\"none (strategy batch takes no locks)\" max_batch=8") {
		t.Errorf("start-up line does not give the strategy and -max-batch:\n%s", s.log)
	}
	for _, want := range []string{
		`stockade_engine_batches_total{outcome="ok"} 2`,
		`stockade_engine_batch_calls_count 2`,
		`stockade_engine_batch_calls_sum 2`,
		`stockade_engine_calls_total{op="checkout",outcome="ok"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
}

func TestServeRefusesBadConfig(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown strategy", []string{"-strategy", "yolo"}, nil, `unknown -strategy "yolo" (want one of atomic, rowlock, optimistic, lock, advisory, batch)`},
		{"unknown strategy in env", nil, map[string]string{"STOCKADE_STRATEGY": "batchy"}, `unknown -strategy "batchy"`},
		{"empty sqlite path", []string{"-store", "sqlite:"}, nil, `-store "sqlite:": no file given`},
		{"unknown store", []string{"-store", "mysql://root:hunter2@db/x"}, nil, "unsupported -store"},
		{"unknown locker", []string{"-locker", "zookeeper://zk:2181"}, nil, `-locker "zookeeper://zk:2181": unsupported`},
		{"redlock without nodes", []string{"-locker", "redlock://"}, nil, "no nodes given"},
		{"redlock node without port", []string{"-locker", "redlock://a:1,b"}, nil, `node "b": want HOST:PORT`},
		{"etcd without endpoints", []string{"-locker", "etcd://"}, nil, "no endpoints given"},
		{"bad redis URL", []string{"-locker", "redis://host:port:extra/x"}, nil, "-locker"},
		{"postgres locker on sqlite", []string{"-store", db, "-locker", "postgres"}, nil, "-locker postgres takes its locks in the store's PostgreSQL database, and -store is sqlite:"},
		{"bad duration", []string{"-sweep-interval", "often"}, nil, `invalid value "often" for flag -sweep-interval`},
		{"bad duration in env", nil, map[string]string{"STOCKADE_DEFAULT_TTL": "forever"}, "STOCKADE_DEFAULT_TTL (for -default-ttl)"},
		{"zero ttl", []string{"-default-ttl", "0s"}, nil, "-default-ttl must be positive, got 0s"},
		{"negative sweep", []string{"-sweep-interval", "-1s"}, nil, "-sweep-interval must be positive"},
		{"bad log level", []string{"-log-level", "loud"}, nil, `-log-level "loud": want debug, info, warn or error`},
		{"zero max batch", []string{"-max-batch", "0"}, nil, "-max-batch must be between 1 and 100000, got 0"},
		{"bad max batch in env", nil, map[string]string{"STOCKADE_MAX_BATCH": "lots"}, "STOCKADE_MAX_BATCH (for -max-batch)"},
		{"unreachable redis", []string{"-store", db, "-strategy", "lock", "-locker", "redis://127.0.0.1:1"}, nil, "locker: redis at 127.0.0.1:1"},
		{"unreachable redlock", []string{"-store", db, "-strategy", "lock", "-locker", "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"}, nil, "no majority of 3 nodes answers"},
		{"unreachable postgres", []string{"-store", "postgres://u:hunter2@127.0.0.1:1/db"}, nil, "store postgres://u:xxxxx@127.0.0.1:1/db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			args := append([]string{"stockade", "serve", "-addr", "127.0.0.1:0"}, tc.args...)
			err := run(t.Context(), args, func(k string) string { return tc.env[k] }, io.Discard, &stderr)
			if err == nil {
				t.Fatal("run succeeded")
			}
			if !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Fatalf("error %q (stderr %q) does not say %q", err, stderr.String(), tc.want)
			}
			if strings.Contains(err.Error()+stderr.String(), "hunter2") {
				t.Errorf("a password reached the output: %v %s", err, stderr.String())
			}
		})
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	stores := map[string]func(*testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "m.db") },
		"postgres": func(t *testing.T) string { return emptyDatabase(t) },
	}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			spec := store(t)
			for i := range 2 { // the second run finds nothing to do
				var stdout, stderr strings.Builder
				if err := run(t.Context(), []string{"stockade", "migrate", "-store", spec}, getenvNone, &stdout, &stderr); err != nil {
					t.Fatalf("migrate #%d: %v\n%s", i+1, err, stderr.String())
				}
				if !strings.HasSuffix(stdout.String(), ": schema up to date\n") {
					t.Errorf("migrate #%d said %q", i+1, stdout.String())
				}
			}
			var stdout strings.Builder
			if err := run(t.Context(), []string{"stockade", "reconcile", "-store", spec}, getenvNone, &stdout, io.Discard); err != nil {
				t.Fatalf("reconcile on a fresh store: %v", err)
			}
			if !strings.HasSuffix(stdout.String(), ": 0 levels, all match the ledger and the records; 0 shows, all match their seat history\n") {
				t.Errorf("reconcile on a fresh store said %q", stdout.String())
			}
		})
	}
}

func getenvNone(string) string { return "" }

// newDatabase creates a database of its own for the test on the shared
// PostgreSQL server, migrated (a copy of a template migrated once), and
// returns its URL.
func newDatabase(t testing.TB) string {
	t.Helper()
	return teststore.PostgresURL(t)
}

// emptyDatabase creates a database of its own for the test on the shared
// PostgreSQL server, without the schema, and returns its URL.
func emptyDatabase(t testing.TB) string {
	t.Helper()
	url, err := testkit.SharedPostgres(t).CreateDatabase("empty_" + strings.ToLower(rand.Text()))
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// TestReconcile: clean after real traffic; after a level is changed behind
// the ledger's back, or an order behind the level's, a report naming the
// level and a non-zero exit.
func TestReconcile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.db")
	s := startServe(t, nil, "-store", "sqlite:"+path)
	shop(t, httpapi.NewClient("http://"+s.addr, nil), "sku-1")
	shop(t, httpapi.NewClient("http://"+s.addr, nil), "sku-2")
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	reconcile := func() (string, error) {
		var stdout strings.Builder
		err := run(t.Context(), []string{"stockade", "reconcile"}, func(k string) string {
			return map[string]string{"STOCKADE_STORE": "sqlite:" + path}[k]
		}, &stdout, io.Discard)
		return stdout.String(), err
	}
	out, err := reconcile()
	if err != nil || !strings.HasSuffix(out, ": 2 levels, all match the ledger and the records; 0 shows, all match their seat history\n") {
		t.Fatalf("reconcile after traffic: %v\n%s", err, out)
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE levels SET on_hand = on_hand + 7 WHERE sku = 'sku-2'`); err != nil {
		t.Fatal(err)
	}
	out, err = reconcile()
	if err == nil || !strings.Contains(err.Error(), "do not match the movement ledger or the reservation and order records (1 of 2 levels)") {
		t.Fatalf("reconcile after tampering: err %v", err)
	}
	row := regexp.MustCompile(`(?m)^sku-2\s+east\s+12\s+0\s+5\s+5\s+0\s+5\s+0\s+5\s*$`)
	if !strings.Contains(out, "1 of 2 levels do not match the ledger or the records") || !row.MatchString(out) {
		t.Errorf("report does not show sku-2 at east with 12 on hand against 5 in the ledger:\n%s", out)
	}

	// sku-1's checkout order cancelled without giving its 3 units back.
	if _, err := db.Exec(`UPDATE orders SET status = 'cancelled' WHERE reservation_id = '' AND allocations LIKE '%"sku-1"%'`); err != nil {
		t.Fatal(err)
	}
	out, err = reconcile()
	if err == nil || !strings.Contains(out, "2 of 2 levels do not match") {
		t.Fatalf("reconcile after cancelling an order behind the level's back: err %v\n%s", err, out)
	}
	row = regexp.MustCompile(`(?m)^sku-1\s+east\s+5\s+0\s+5\s+5\s+0\s+5\s+0\s+2\s*$`)
	if !row.MatchString(out) {
		t.Errorf("report does not show sku-1 with 5 committed against 2 committed by orders:\n%s", out)
	}
}

func TestReconcileRefusesMissingStore(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "typo.db")
	err := run(t.Context(), []string{"stockade", "reconcile", "-store", "sqlite:" + missing}, getenvNone, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("reconcile of a missing file: %v", err)
	}
}
