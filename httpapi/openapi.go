package httpapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"strings"
)

// openAPIDocument is the OpenAPI 3.1 document of the API: every route,
// parameter, body, answer and problem code. It is written by hand, and
// openapi_test.go validates every request and response of the tests, and
// every golden file, against it, so that it cannot drift from the code;
// openapi_params_test.go holds its formats of ids, cursors and limits to
// the service's. scripts/test runs a linter and Go and TypeScript
// generators on it (openapi-tools/), so that generators take it as it is.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag is the document's entity tag: a hash of its bytes.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}()

// openAPI serves the OpenAPI document. Clients may cache it but must
// revalidate it (it changes with the server's version): a request whose
// If-None-Match holds the current ETag is answered 304 with no body.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", openAPIETag)
	h.Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, openAPIDocument)
}

// etagMatches reports whether an If-None-Match header value names etag,
// compared weakly (RFC 9110 13.1.2), or is "*".
func etagMatches(ifNoneMatch, etag string) bool {
	for t := range strings.SplitSeq(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
