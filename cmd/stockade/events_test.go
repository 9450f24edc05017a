package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// TestEventsTailAggregates: "events tail -h" lists, for -aggregate,
// every kind of aggregate that the root package declares a constant for,
// and events tail accepts each.
func TestEventsTailAggregates(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if d, ok := d.(*ast.GenDecl); ok && d.Tok == token.CONST {
				for _, spec := range d.Specs {
					spec := spec.(*ast.ValueSpec)
					for i, id := range spec.Names {
						if !strings.HasPrefix(id.Name, "Aggregate") || i >= len(spec.Values) {
							continue
						}
						if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							declared = append(declared, v)
						}
					}
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatalf("no Aggregate constant in %s", files)
	}
	if !slices.Equal(stockade.Aggregates, declared) {
		t.Errorf("stockade.Aggregates = %q; the root package declares %q", stockade.Aggregates, declared)
	}

	help, _, err := runCmd(t, nil, "events", "tail", "-h")
	if err != nil {
		t.Fatal(err)
	}
	_, text, _ := strings.Cut(help, "  -aggregate ")
	text, _, _ = strings.Cut(text, "\n  -")
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
	for _, a := range declared {
		if !slices.Contains(words, a) {
			t.Errorf("-aggregate's help does not list %q:\n%s", a, text)
		}
		if err := (stockade.DomainEventQuery{Aggregate: a}).Validate(); err != nil {
			t.Errorf("aggregate %q: %v", a, err)
		}
	}
}

// lines is a writer whose complete lines a test can wait for.
type lines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{} // signalled at each write
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.more <- struct{}{}:
	default:
	}
	return l.buf.Write(p)
}

// wait returns the first n lines once they are written.
func (l *lines) wait(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		got := strings.SplitAfter(l.buf.String(), "\n")
		l.mu.Unlock()
		if len(got) > n { // the last item is what follows the last newline
			return got[:n]
		}
		select {
		case <-l.more:
		case <-deadline:
			t.Fatalf("%d lines written, want %d:\n%s", len(got)-1, n, strings.Join(got, ""))
		}
	}
}

// TestEventsTail: "stockade events tail" prints the events there are,
// then each new one as it commits, as JSON lines, and stops with its
// context.
func TestEventsTail(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "events.db"))
	c := httpapi.NewClient("http://"+s.addr, nil)
	ctx := t.Context()
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, 3, nil, nil); err != nil {
		t.Fatal(err)
	}

	tctx, stop := context.WithCancel(ctx)
	out := &lines{more: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		done <- run(tctx, []string{"stockade", "events", "tail", "-url", "http://" + s.addr, "-type", "stock.set,reservation.held"},
			func(string) string { return "" }, out, &bytes.Buffer{})
	}()
	first := out.wait(t, 1)
	r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := out.wait(t, 2)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("events tail: %v", err)
	}
	var evs []struct {
		stockade.DomainEvent
		Cursor string `json:"cursor"`
	}
	for _, line := range got {
		var ev struct {
			stockade.DomainEvent
			Cursor string `json:"cursor"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	if first[0] != got[0] || evs[0].Type != stockade.EventStockSet || evs[1].Type != stockade.EventReservationHeld ||
		evs[1].AggregateID != r.ID || evs[1].Cursor == "" || evs[0].Cursor == evs[1].Cursor {
		t.Errorf("events tail printed:\n%s", strings.Join(got, ""))
	}

	for _, bad := range [][]string{{"events"}, {"events", "head"}, {"events", "tail", "-type", "stock.sold"}, {"events", "tail", "-url", "localhost"}} {
		if err := run(ctx, append([]string{"stockade"}, bad...), func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("stockade %q: no error", bad)
		}
	}
}

// TestServeRelaysEvents: serve -events publishes the outbox to JetStream.
// Events committed by a process that never published them (it ran
// without -events, and was killed) are published once by the next.
func TestServeRelaysEvents(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	n := testkit.NewNATS(t)
	store := "sqlite:" + filepath.Join(t.TempDir(), "relay.db")
	p := startProcess(t, "-store", store)
	c := httpapi.NewClient("http://"+p.addr, nil)
	ctx := t.Context()
	if _, err := c.PutLocation(ctx, stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, 3, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()

	p = startProcess(t, "-store", store, "-events", n.URL())
	c = httpapi.NewClient("http://"+p.addr, nil)
	if _, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{stockade.EventStockSet, stockade.EventBackInStock, stockade.EventReservationHeld}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := js.Stream(ctx, "STOCKADE_EVENTS")
		if err == nil {
			if info, err := s.Info(ctx); err == nil && info.State.Msgs >= uint64(len(want)) {
				var got []string
				for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
					msg, err := s.GetMsg(ctx, seq)
					if err != nil {
						t.Fatal(err)
					}
					var ev stockade.DomainEvent
					if err := json.Unmarshal(msg.Data, &ev); err != nil {
						t.Fatal(err)
					}
					got = append(got, ev.Type)
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("the stream holds %v, want %v", got, want)
				}
				// The relay counts a batch once its checkpoint has moved,
				// after the broker acknowledged it: the stream may hold
				// the events a moment before the metrics count them.
				for {
					code, body := get(t, "http://"+p.addr+"/metrics")
					if code == 200 && strings.Contains(body, "stockade_events_published_total 3") && strings.Contains(body, "stockade_events_relay_lag_seconds") {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("metrics: %d, without the relay's 3 events after 30 s:\n%s", code, body)
					}
					time.Sleep(50 * time.Millisecond) // the relay's counter, polled
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream did not get %d events within 30 s", len(want))
		}
		time.Sleep(50 * time.Millisecond) // the broker's state, polled
	}
}
