package main

import (
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// tracer is an http.RoundTripper that times each request's stages on the
// client's side and keeps the slowest: where a slow answer spent its time
// before serve's handler saw it, or after.
type tracer struct {
	base http.RoundTripper

	mu      sync.Mutex
	slowest requestTrace
}

// requestTrace is what the client saw of one request; the times are from
// when it was handed to the transport.
type requestTrace struct {
	method, path string
	requestID    string // serve's X-Request-Id: its log line has the server's side
	status       int
	err          error
	total        time.Duration
	conns        int           // connections taken: more than one means the transport sent it again
	reused       bool          // the last connection was an idle one
	connect      time.Duration // a new connection: when it was dialled
	gotConn      time.Duration // when it had its (last) connection
	wrote        time.Duration // when the request was written
	firstByte    time.Duration // when the answer began
}

func (r requestTrace) String() string {
	return fmt.Sprintf("%s %s (X-Request-Id %s): status %d, error %v, %v in all; %d connection(s), the last reused %v, dialled at %v, taken at %v; request written at %v; answer began at %v",
		r.method, r.path, r.requestID, r.status, r.err, r.total, r.conns, r.reused, r.connect, r.gotConn, r.wrote, r.firstByte)
}

func newTracer(base http.RoundTripper) *tracer { return &tracer{base: base} }

func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	var (
		mu sync.Mutex // the trace's hooks may run on the transport's goroutines
		tr = requestTrace{method: req.Method, path: req.URL.Path}
	)
	since := func(d *time.Duration) func() {
		return func() {
			mu.Lock()
			*d = time.Since(start)
			mu.Unlock()
		}
	}
	ct := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			mu.Lock()
			tr.conns++
			tr.reused = info.Reused
			tr.gotConn = time.Since(start)
			mu.Unlock()
		},
		ConnectDone:          func(string, string, error) { since(&tr.connect)() },
		WroteRequest:         func(httptrace.WroteRequestInfo) { since(&tr.wrote)() },
		GotFirstResponseByte: since(&tr.firstByte),
	}
	resp, err := t.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), ct)))
	mu.Lock()
	defer mu.Unlock()
	tr.total, tr.err = time.Since(start), err
	if resp != nil {
		tr.status, tr.requestID = resp.StatusCode, resp.Header.Get("X-Request-Id")
	}
	t.mu.Lock()
	if tr.total > t.slowest.total {
		t.slowest = tr
	}
	t.mu.Unlock()
	return resp, err
}

// Slowest returns the slowest request so far.
func (t *tracer) Slowest() requestTrace {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.slowest
}
