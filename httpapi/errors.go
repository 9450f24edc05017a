package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/stockade/stockade"
)

// statusOf maps each stockade error code to its HTTP status. A code missing
// here is a bug and is served as 500.
var statusOf = map[string]int{
	stockade.EInvalid:             http.StatusBadRequest,
	stockade.ENotFound:            http.StatusNotFound,
	stockade.EInsufficientStock:   http.StatusConflict,
	stockade.EVersionConflict:     http.StatusConflict,
	stockade.EInvalidState:        http.StatusConflict,
	stockade.EReservationExpired:  http.StatusGone,
	stockade.ESeatsUnavailable:    http.StatusConflict,
	stockade.ESoldOut:             http.StatusConflict,
	stockade.EHoldExpired:         http.StatusGone,
	stockade.EPaymentExists:       http.StatusConflict,
	stockade.EPaymentInFlight:     http.StatusConflict,
	stockade.EIdempotencyMismatch: http.StatusUnprocessableEntity,
	stockade.EUnavailable:         http.StatusServiceUnavailable,
	stockade.EUnauthenticated:     http.StatusUnauthorized,
	stockade.EForbidden:           http.StatusForbidden,
	stockade.ERateLimited:         http.StatusTooManyRequests,
	stockade.EAdmissionRequired:   http.StatusForbidden,
	stockade.EAdmissionInvalid:    http.StatusForbidden,
	stockade.EInternal:            http.StatusInternalServerError,
}

// Media types of the responses.
const (
	contentJSON    = "application/json"
	contentProblem = "application/problem+json"
)

// problem is an RFC 9457 problem document with stockade's stable code.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// problemOf renders err as a problem document: a *stockade.Error keeps its
// code and message; a request that ran out of time or was abandoned is
// 503 "unavailable"; anything else is a bare 500 "internal error". It does
// not log: it also renders the responses that idempotent calls store.
func problemOf(err error) (status int, body []byte) {
	code := stockade.ErrorCode(err)
	status, ok := statusOf[code]
	switch {
	case code == stockade.EInternal && errors.Is(err, context.DeadlineExceeded):
		return problemBody(http.StatusServiceUnavailable, stockade.EUnavailable, "the request did not finish in time")
	case code == stockade.EInternal && errors.Is(err, context.Canceled):
		return problemBody(http.StatusServiceUnavailable, stockade.EUnavailable, "the request was cancelled")
	case !ok || code == stockade.EInternal:
		return problemBody(http.StatusInternalServerError, stockade.EInternal, "internal error")
	}
	return problemBody(status, code, stockade.ErrorMessage(err))
}

// logFailure logs err once, at the edge, if problemOf hides its cause:
// internal errors at Error, timeouts at Warn, abandoned requests at Debug.
// A request is abandoned when its client went away: err wraps the
// cancellation, or the request's context was cancelled and err is what
// the cancellation caused (a driver's "interrupted"); nobody reads the
// answer, and nothing failed. Refusals with a code of their own are the
// caller's business, not logged.
func (s *Server) logFailure(r *http.Request, err error) {
	code := stockade.ErrorCode(err)
	if _, ok := statusOf[code]; ok && code != stockade.EInternal {
		return
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "request_id", requestIDOf(r), "client", r.RemoteAddr, "err", err}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("request timed out", attrs...)
	case errors.Is(err, context.Canceled), errors.Is(r.Context().Err(), context.Canceled):
		s.log.Debug("request cancelled", attrs...)
	default:
		s.log.Error("internal error", attrs...)
	}
}

// writeError answers with err as a problem document, logging the cause of
// an internal error.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.logFailure(r, err)
	status, body := problemOf(err)
	writeBody(w, status, body)
}

// writeProblem answers with a problem document.
func writeProblem(w http.ResponseWriter, status int, code, detail string) {
	status, body := problemBody(status, code, detail)
	writeBody(w, status, body)
}

func problemBody(status int, code, detail string) (int, []byte) {
	return encode(status, problem{
		Type:   "urn:stockade:problem:" + code,
		Title:  http.StatusText(status),
		Status: status,
		Code:   code,
		Detail: detail,
	})
}

// encode renders v as a JSON body, followed by a newline. A value that
// does not encode (a NaN) is a 500.
func encode(status int, v any) (int, []byte) {
	b, err := json.Marshal(v)
	if err != nil {
		return problemOf(fmt.Errorf("encode response: %w", err))
	}
	return status, append(b, '\n')
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	status, body := encode(status, v)
	writeBody(w, status, body)
}

// writeBody sends a rendered response. Its media type follows from the
// status alone, a problem document from 400 up, so that a response
// replayed from its stored status and body goes out exactly as the first.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	ct := contentJSON
	if status >= 400 {
		ct = contentProblem
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}
