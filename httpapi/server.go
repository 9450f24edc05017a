package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/stockade/stockade"
)

// Pinger reports whether a dependency answers. The store is one.
type Pinger interface {
	Ping(ctx context.Context) error
}

// readyTimeout bounds the dependency checks behind /readyz.
const readyTimeout = 2 * time.Second

// Server is the stockade HTTP API as an http.Handler.
type Server struct {
	log   *slog.Logger
	ready []Pinger
	mux   *http.ServeMux
}

// NewServer returns the API. /readyz answers 200 only while every one of
// ready answers its Ping.
func NewServer(log *slog.Logger, ready ...Pinger) *Server {
	s := &Server{log: log, ready: ready, mux: http.NewServeMux()}
	s.routes()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	for _, p := range s.ready {
		if err := p.Ping(ctx); err != nil {
			s.log.Warn("not ready", "err", err)
			s.writeError(w, r, stockade.Errorf(stockade.EUnavailable, "a dependency does not answer"))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
