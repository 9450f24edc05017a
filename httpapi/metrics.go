package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a Prometheus registry holding the Go runtime and
// process collectors (go_goroutines, go_memstats_*, process_cpu_seconds_total,
// process_open_fds, …), ready for a Server's own metrics and any others.
// Each Server gets a registry of its own, never the global default one, so
// that several servers in one process (tests, for one) do not collide.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// LatencyBuckets are the upper bounds, in seconds, of the server's latency
// histograms, from 1 ms to 10 s. The binary uses them for the engine's.
var LatencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// serverMetrics are the metrics the server records itself.
type serverMetrics struct {
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	inFlight     prometheus.Gauge
	reservations outcomes
	handler      http.Handler // serves the registry at /metrics
}

// newServerMetrics registers the server's metrics in reg, which must hold
// none of them yet.
func newServerMetrics(reg *prometheus.Registry, log *slog.Logger) serverMetrics {
	f := promauto.With(reg)
	return serverMetrics{
		requests: f.NewCounterVec(prometheus.CounterOpts{
			Name: "stockade_http_requests_total",
			Help: "HTTP requests answered, by method, route and status.",
		}, []string{"method", "route", "status"}),
		duration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "stockade_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route.",
			Buckets: LatencyBuckets,
		}, []string{"method", "route"}),
		inFlight: f.NewGauge(prometheus.GaugeOpts{
			Name: "stockade_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		}),
		reservations: outcomes{f.NewCounterVec(prometheus.CounterOpts{
			Name: "stockade_reservations_total",
			Help: `Reservations (op "reserve") and direct checkouts (op "checkout"), by outcome: ok, replayed, or the refusal's code.`,
		}, []string{"op", "outcome"})},
		handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError),
			Registry: reg, // promhttp_metric_handler_errors_total
		}),
	}
}

// outcomes counts calls by op and outcome.
type outcomes struct{ v *prometheus.CounterVec }

// Inc counts one call of op that ended with outcome.
func (o outcomes) Inc(op, outcome string) { o.v.WithLabelValues(op, outcome).Inc() }

// methodLabel is the method of a request as a metric label: one of the
// standard methods, or "other", so that a client cannot make up series.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// metrics serves the registry in the format the scraper asks for (the
// Prometheus text format by default).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	s.m.handler.ServeHTTP(w, r)
}
