package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/stockade/stockade"
)

// Idempotent requests
//
// A mutating request with an Idempotency-Key header is made idempotent
// with a *stockade.Idempotency: the key, and as its fingerprint the hash
// of the request's method, path and body. The service stores the result
// of the first call that succeeds with its effect, and a later request
// with the key gets that result again, rendered as the first was: the
// same status and the same bytes, marked with the header
// Idempotent-Replayed: true. A refusal is not stored: the same key may
// be sent again once the cause is gone.

const (
	// headerIdempotencyKey names the key a client gives a request.
	headerIdempotencyKey = "Idempotency-Key"
	// headerReplayed marks a response replayed from the store.
	headerReplayed = "Idempotent-Replayed"
)

// idempotencyKey returns the request's Idempotency-Key, "" if it has
// none. A key is given once, and is 1 to stockade.MaxIDLength printable
// ASCII characters.
func idempotencyKey(r *http.Request) (string, error) {
	vs := r.Header.Values(headerIdempotencyKey)
	switch {
	case len(vs) == 0:
		return "", nil
	case len(vs) > 1:
		return "", invalidf("Idempotency-Key: given %d times, want once", len(vs))
	}
	key := vs[0]
	if err := stockade.ValidateIdempotencyKey(headerIdempotencyKey, key); err != nil {
		return "", err
	}
	return key, nil
}

// requestHash identifies a request for its key: the SHA-256 of its
// method, path and body, byte for byte.
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.EscapedPath() + "\n"))
	h.Write(body)
	if ims := r.Header.Values("If-Match"); len(ims) > 0 {
		// A precondition is part of the request: the same key with
		// another one is another request.
		h.Write([]byte("\nIf-Match: " + strings.Join(ims, ", ")))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// call runs fn, under the request's Idempotency-Key if it is a mutating
// request that carries one, and answers with fn's result rendered by view
// under status, or with fn's error as a problem document. body is the
// request's body, for the fingerprint. It returns the outcome, for the
// metrics: "ok", "replayed" or the error's code.
func call[T any](s *Server, w http.ResponseWriter, r *http.Request, body []byte, status int,
	view func(T) any, fn func(context.Context, *stockade.Idempotency) (T, error)) (outcome string) {
	var idem *stockade.Idempotency
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		key, err := idempotencyKey(r)
		if err != nil {
			s.writeError(w, r, err)
			return stockade.ErrorCode(err)
		}
		if key != "" {
			idem = &stockade.Idempotency{Key: key, Fingerprint: requestHash(r, body)}
		}
	}
	v, err := fn(r.Context(), idem)
	if err != nil {
		s.writeError(w, r, err)
		return stockade.ErrorCode(err)
	}
	outcome = "ok"
	if idem != nil && idem.Replayed {
		w.Header().Set(headerReplayed, "true")
		outcome = "replayed"
	}
	writeJSON(w, status, view(v))
	return outcome
}
