package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/stockade/stockade"
)

// Idempotent requests
//
// A mutating request with an Idempotency-Key header runs under
// stockade.WithIdempotency. The response is rendered by one function,
// the Render of the stockade.Idempotent: the service calls it to store the
// outcome with the key, and the handler calls the same function on the
// same outcome to answer. A later request with the key gets the stored
// status and body back byte for byte (a *stockade.Replay), marked with
// the header Idempotent-Replayed: true. The media type follows from the
// status (problem+json from 400 up, JSON below), so it needs no storing.

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
	return hex.EncodeToString(h.Sum(nil))
}

// renderer returns the one function that turns the outcome of a call
// returning T into a response: status and JSON body on success, a problem
// document on error. The service may hand it a T or a *T.
func renderer[T any](status int, view func(T) any) func(v any, err error) (int, []byte) {
	return func(v any, err error) (int, []byte) {
		if err != nil {
			return problemOf(err)
		}
		switch t := v.(type) {
		case T:
			return encode(status, view(t))
		case *T:
			if t != nil {
				return encode(status, view(*t))
			}
		}
		return problemOf(errors.New("httpapi: render: unexpected result type"))
	}
}

// call runs fn, idempotently if the request carries an Idempotency-Key,
// and answers with its outcome rendered by view under status, or with the
// replay of an earlier outcome. body is the request's body, for the
// request hash. It returns fn's error (a *stockade.Replay for a replay).
func call[T any](s *Server, w http.ResponseWriter, r *http.Request, body []byte, status int,
	view func(T) any, fn func(context.Context) (T, error)) error {
	render := renderer(status, view)
	ctx := r.Context()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		key, err := idempotencyKey(r)
		if err != nil {
			s.writeError(w, r, err)
			return err
		}
		if key != "" {
			ctx = stockade.WithIdempotency(ctx, &stockade.Idempotent{
				Key:         key,
				RequestHash: requestHash(r, body),
				Render:      render,
			})
		}
	}
	v, err := fn(ctx)
	if replay, ok := errors.AsType[*stockade.Replay](err); ok {
		w.Header().Set(headerReplayed, "true")
		writeBody(w, replay.Status, replay.Body)
		return err
	}
	if err != nil {
		s.logFailure(r, err)
	}
	st, out := render(v, err)
	writeBody(w, st, out)
	return err
}
