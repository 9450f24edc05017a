package httpapi

import (
	"encoding/json"
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
	stockade.EIdempotencyInFlight: http.StatusConflict,
	stockade.EReservationExpired:  http.StatusGone,
	stockade.EIdempotencyMismatch: http.StatusUnprocessableEntity,
	stockade.EUnavailable:         http.StatusServiceUnavailable,
	stockade.EInternal:            http.StatusInternalServerError,
}

// problem is an RFC 9457 problem document with stockade's stable code.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// writeError answers with err as a problem document. A *stockade.Error
// keeps its code and message; anything else is logged with its cause and
// served as a bare 500 "internal error".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := stockade.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok || code == stockade.EInternal {
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		writeProblem(w, http.StatusInternalServerError, stockade.EInternal, "internal error")
		return
	}
	writeProblem(w, status, code, stockade.ErrorMessage(err))
}

func writeProblem(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(problem{
		Type:   "urn:stockade:problem:" + code,
		Title:  http.StatusText(status),
		Status: status,
		Code:   code,
		Detail: detail,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
