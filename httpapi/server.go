package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/cors"
	"golang.org/x/time/rate"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/lock"
)

// Pinger reports whether a dependency answers. The store is one.
type Pinger interface {
	Ping(ctx context.Context) error
}

// readyTimeout bounds the dependency checks behind /readyz.
const readyTimeout = 2 * time.Second

// Options configures a Server. A nil *Options means all defaults.
type Options struct {
	// RequestTimeout bounds each request: the service's lock waits and
	// retries end with the request's context, and a request that runs
	// out of time is answered 503 with code "unavailable".
	// Default: 10s.
	RequestTimeout time.Duration

	// MaxBodyBytes bounds a request body; a larger one is refused with
	// 413 and code "invalid".
	// Default: 1 MiB.
	MaxBodyBytes int64

	// Registry is the Prometheus registry the server registers its
	// metrics in and serves at /metrics. Share it to add metrics of your
	// own. One Server per registry: a second one would register the same
	// names, and NewServer panics.
	// Default: NewRegistry(), with the Go runtime and process collectors.
	Registry *prometheus.Registry

	// RequestLogLevel is the level of the line logged for each request.
	// Default: slog.LevelDebug.
	RequestLogLevel slog.Leveler

	// AllowedOrigins are the origins whose pages may call the API from a
	// browser (CORS), such as "https://shop.example"; "https://*.example"
	// allows every subdomain and "*" every origin. Preflight requests from
	// them are answered, and their requests may send Content-Type,
	// Idempotency-Key, Authorization and X-Request-Id and read X-Request-Id,
	// Idempotent-Replayed and Retry-After. Other origins get no CORS
	// headers, so browsers keep their pages out.
	// Default: none.
	AllowedOrigins []string

	// Locks shows the lock strategy's locks at GET /v1/locks: each key
	// held or waited for, its holders and how many wait. Pass the Locker
	// the engine locks with, if it is a lock.Inspector (memlock,
	// redislock, pglock and etcdlock are). Without Locks the route is
	// refused with 409 invalid_state, as on a server that takes no locks.
	// Default: none.
	Locks lock.Inspector

	// WebhookSecrets are the secrets shared with the payment systems that
	// post outcomes to POST /v1/payments/webhook, which takes a request
	// whose Stockade-Signature matches one of them (see SignWebhook).
	// Several let a secret be rotated: add the new one, move the payment
	// system to it, then drop the old one. Without any, the webhook
	// answers 404 not_found.
	// Default: none.
	WebhookSecrets [][]byte

	// WebhookTolerance is how far the time a webhook request was signed
	// at may be from the server's clock, either way; a request signed
	// longer ago is refused as stale, so that a captured one cannot be
	// replayed later.
	// Default: 5m.
	WebhookTolerance time.Duration

	// Open lets requests without a key through, as the service itself:
	// every route, everything visible. A request that sends a key is
	// still checked as usual. Only for a server that nothing untrusted
	// can reach; `stockade serve -open` allows it on loopback only.
	// Default: false.
	Open bool

	// KeyCacheTTL is how long a key that authenticated is trusted
	// without asking the service again. A key revoked through this server stops
	// working at once; one revoked elsewhere (the CLI, another instance)
	// within KeyCacheTTL.
	// Default: 10s.
	KeyCacheTTL time.Duration

	// RateLimit is each key's request rate, in requests per second, for
	// keys that have no rate of their own; requests over it are answered
	// 429 with Retry-After. Zero or negative: no limit, the default. A
	// shop's back end usually serves all its customers with one key, so a
	// server-wide limit per key caps the whole shop; give the keys that
	// need one a rate of their own.
	RateLimit float64

	// RateBurst is how many requests a key at RateLimit may make at once
	// (its token bucket's size). A key with a rate of its own may make
	// twice its rate.
	// Default: twice RateLimit, at least 1.
	RateBurst int
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.RequestTimeout <= 0 {
		out.RequestTimeout = 10 * time.Second
	}
	if out.MaxBodyBytes <= 0 {
		out.MaxBodyBytes = 1 << 20
	}
	if out.Registry == nil {
		out.Registry = NewRegistry()
	}
	if out.RequestLogLevel == nil {
		out.RequestLogLevel = slog.LevelDebug
	}
	if out.KeyCacheTTL <= 0 {
		out.KeyCacheTTL = 10 * time.Second
	}
	if out.WebhookTolerance <= 0 {
		out.WebhookTolerance = 5 * time.Minute
	}
	return out
}

// Server is the stockade HTTP API as an http.Handler.
type Server struct {
	svc   stockade.Service
	log   *slog.Logger
	opts  Options
	ready []Pinger
	mux   *http.ServeMux
	// handler routes a request: the mux, behind CORS when origins are
	// allowed.
	handler http.Handler
	m       serverMetrics
	keys    keyCache
	limits  rateLimits
	// streams ends with CloseStreams, and the event streams with it.
	streams      context.Context
	closeStreams context.CancelFunc
	// draining is set by Drain.
	draining atomic.Bool
}

// Drain tells the server that its process is going away: from now on
// /readyz answers 503 and every answer carries Connection: close, so that
// a load balancer stops sending requests here and a keep-alive client
// opens its next connection elsewhere, while the requests that still
// arrive are served as before. Call it on a stop signal, some time before
// http.Server.Shutdown closes the listener.
func (s *Server) Drain() { s.draining.Store(true) }

// streamPath is the path of the event stream, which runs without the
// request timeout.
const streamPath = "/v1/events/stream"

// isStream reports whether path is that of a stream, which runs without
// the request timeout: the event stream, or a visitor's tickets
// (GET /v1/rooms/{id}/visitors/{visitor}/stream).
func isStream(path string) bool {
	if path == streamPath {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/v1/rooms/")
	parts := strings.Split(rest, "/")
	return ok && len(parts) == 4 && parts[1] == "visitors" && parts[3] == "stream"
}

// NewServer returns the API over svc, the whole service: its stock,
// bookings, payments and API keys (an *engine.Engine is one). /readyz
// answers 200 only while every one of ready answers its Ping.
func NewServer(svc stockade.Service, log *slog.Logger, opts *Options, ready ...Pinger) *Server {
	s := &Server{svc: svc, log: log, opts: opts.withDefaults(), ready: ready, mux: http.NewServeMux()}
	s.m = newServerMetrics(s.opts.Registry, log)
	s.keys = keyCache{ttl: s.opts.KeyCacheTTL, m: map[string]cachedKey{}, revoked: map[string]bool{}}
	s.limits = rateLimits{m: map[string]*rate.Limiter{}}
	s.streams, s.closeStreams = context.WithCancel(context.Background())
	for _, rt := range routeTable {
		s.mux.HandleFunc(rt.pattern, s.guard(rt))
	}
	s.handler = s.mux
	if len(s.opts.AllowedOrigins) > 0 {
		s.handler = cors.New(cors.Options{
			AllowedOrigins: s.opts.AllowedOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowedHeaders: []string{"Content-Type", headerIdempotencyKey, "Authorization", requestIDHeader},
			ExposedHeaders: []string{requestIDHeader, headerReplayed, "Retry-After"},
			MaxAge:         600,
		}).Handler(s.mux)
	}
	return s
}

// ServeHTTP implements http.Handler: it gives the request an id, bounds
// its time, routes it, answers unknown routes and methods with problem
// documents, and records one log line and the metrics of each request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestID(r.Header.Get(requestIDHeader))
	w.Header().Set(requestIDHeader, id)
	if s.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	ctx, unlabel := labelRequest(context.WithValue(r.Context(), requestIDKey{}, id), id)
	defer unlabel()
	cancel := context.CancelFunc(func() {})
	if !isStream(r.URL.Path) { // a stream lasts as long as its client
		ctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
		defer s.watchOverdue(r, id, start, s.opts.RequestTimeout)()
	}
	defer cancel()
	r = r.WithContext(ctx) // the mux sets r.Pattern on this request
	rec := &recorder{ResponseWriter: w, req: r}
	s.m.inFlight.Inc()
	defer func() {
		s.m.inFlight.Dec()
		if p := recover(); p != nil {
			s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "request_id", id, "client", r.RemoteAddr,
				"panic", p, "stack", string(debug.Stack()))
			if rec.status == 0 {
				writeProblem(rec, http.StatusInternalServerError, stockade.EInternal, "internal error")
			}
		}
		route := "unmatched"
		if _, path, ok := strings.Cut(r.Pattern, " "); ok {
			route = path
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		method := methodLabel(r.Method)
		s.m.requests.WithLabelValues(method, route, strconv.Itoa(rec.status)).Inc()
		s.m.duration.WithLabelValues(method, route).Observe(d.Seconds())
		// Asked first, so that a line not logged costs no boxing of its
		// attributes.
		if level := s.opts.RequestLogLevel.Level(); s.log.Enabled(ctx, level) {
			s.log.Log(ctx, level, "request", "method", r.Method, "route", route,
				"path", r.URL.Path, "status", rec.status, "duration", d, "request_id", id, "client", r.RemoteAddr)
		}
	}()
	s.handler.ServeHTTP(rec, r)
}

// requestIDHeader carries a request's id: the server takes the client's
// if it is sane (see requestID) and makes one up otherwise, and answers
// with it in the same header. Log lines about the request carry it.
const requestIDHeader = "X-Request-Id"

// maxRequestID is the longest request id taken from a client, in bytes.
const maxRequestID = 128

// requestID returns the id a request goes by: theirs, the client's
// X-Request-Id, if it is 1 to maxRequestID bytes of printable ASCII, or
// else a new random one.
func requestID(theirs string) string {
	ok := theirs != "" && len(theirs) <= maxRequestID
	for i := 0; ok && i < len(theirs); i++ {
		ok = theirs[i] >= 0x20 && theirs[i] <= 0x7e
	}
	if ok {
		return theirs
	}
	return rand.Text()
}

type requestIDKey struct{}

// requestIDOf returns the id that ServeHTTP gave r, for log lines.
func requestIDOf(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

// recorder notes the status of a response, and replaces the plain-text
// 404 and 405 answers of the mux, for requests that match no route, with
// problem documents.
type recorder struct {
	http.ResponseWriter
	req     *http.Request
	status  int
	swallow bool // the mux's own body is dropped
}

func (rec *recorder) WriteHeader(status int) {
	if rec.status != 0 {
		return
	}
	rec.status = status
	if rec.req.Pattern == "" && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) {
		rec.swallow = true
		r := rec.req
		if status == http.StatusNotFound {
			writeProblem(rec.ResponseWriter, status, stockade.ENotFound, fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
		} else { // the mux has set Allow
			writeProblem(rec.ResponseWriter, status, stockade.EInvalid, fmt.Sprintf("method %s not allowed on %s; allowed: %s",
				r.Method, r.URL.Path, rec.Header().Get("Allow")))
		}
		return
	}
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	if rec.swallow {
		return len(b), nil
	}
	return rec.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		s.writeError(w, r, stockade.Errorf(stockade.EUnavailable, "the server is shutting down"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	for _, p := range s.ready {
		if err := p.Ping(ctx); err != nil {
			if errors.Is(r.Context().Err(), context.Canceled) {
				// The client went away: its check says nothing of the
				// dependency.
				s.log.Debug("readiness check cancelled", "request_id", requestIDOf(r), "client", r.RemoteAddr, "err", err)
			} else {
				s.log.Warn("not ready", "err", err)
			}
			s.writeError(w, r, stockade.Errorf(stockade.EUnavailable, "a dependency does not answer"))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
