package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/stockade/stockade"
)

// The OpenAPI document (openapi.json) is checked three ways, so that it
// cannot drift from the code:
//
//   - checkOpenAPI stands in front of the server of every api test
//     (newAPI): each request and each response is validated against the
//     document, in strict mode (no undocumented query parameter, header
//     or response field);
//   - TestGoldenFilesMatchOpenAPI validates every testdata/*.golden, the
//     request it records and the response it holds;
//   - TestOpenAPIDocument checks that the document is valid OpenAPI 3.1,
//     that it has exactly the routes of routeTable, with their roles and
//     the status of every problem code, and that it says what DESIGN.md
//     promises of every operation.
//
// TestOpenAPIAccess makes the requests that only a server with keys
// answers, so that they are checked too.

// openAPISpec is the parsed document and its validators.
type openAPISpec struct {
	doc   libopenapi.Document
	model *v3.Document
	// full validates requests, and responses with their bodies.
	full validator.Validator
	// noBody validates responses without their bodies: those to HEAD.
	noBody validator.Validator
	// schemas validates a body against one schema of the document.
	schemas schema_validation.SchemaValidator

	// mu makes the validations take turns: in strict mode a validator
	// renders the schemas it compiles, and rendering writes to the
	// model that every validator shares (DynamicValue's inline state,
	// libopenapi v0.41.8, validator v0.16.2 and v0.16.3 alike), which the
	// race detector reports once two tests validate at once.
	mu sync.Mutex
}

// theOpenAPI parses the document once for the whole test binary. Its
// validators serve one request at a time (openAPISpec.mu).
var theOpenAPI = sync.OnceValues(func() (*openAPISpec, error) {
	doc, err := libopenapi.NewDocument(openAPIDocument)
	if err != nil {
		return nil, fmt.Errorf("parse openapi.json: %w", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("build the model of openapi.json: %w", err)
	}
	opts := []config.Option{
		config.WithStrictMode(),
		config.WithFormatAssertions(),
		// Sent on every answer, and of no interest to a client.
		config.WithStrictIgnoredHeadersExtra("X-Content-Type-Options", "Content-Encoding"),
		// The inside of the answer of GET /openapi.json, which its schema
		// does not spell out: no other body has these fields.
		config.WithStrictIgnorePaths("$.body.info", "$.body.paths", "$.body.components", "$.body.security", "$.body.tags",
			// The lists' metadata filter, a deepObject parameter, arrives
			// as metadata[KEY]: strict mode checks query parameters by
			// name only, and knows no deepObject (the base validation
			// checks it against its schema).
			"$.query['metadata[**"),
	}
	spec := &openAPISpec{doc: doc, model: &m.Model, schemas: schema_validation.NewSchemaValidatorWithLogger(slog.New(slog.DiscardHandler), opts...)}
	spec.full = validator.NewValidatorFromV3Model(&m.Model, opts...)
	spec.full.SetDocument(doc)
	spec.noBody = validator.NewValidatorFromV3Model(&m.Model, append(opts, config.WithoutResponseBodyValidation())...)
	return spec, nil
})

func openAPIFor(t testing.TB) *openAPISpec {
	t.Helper()
	spec, err := theOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// checkOpenAPI returns s behind a check of every request it serves, and
// of the answer, against the OpenAPI document. A mismatch fails t.
func checkOpenAPI(t *testing.T, s *Server) http.Handler {
	spec := openAPIFor(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStream(r.URL.Path) {
			// A stream does not end by itself, so it cannot be held
			// until it does: it is served as it goes, unchecked here
			// (TestEventStream reads it).
			s.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("OpenAPI check: read the body of %s %s: %v", r.Method, r.URL, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		resp := rec.Result()
		for name, vs := range resp.Header {
			w.Header()[name] = vs
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(rec.Body.Bytes())

		for _, f := range spec.check(r, body, resp, rec.Body.Bytes(), checkOptions{open: !requiresKeys(s)}) {
			t.Errorf("OpenAPI: %s %s → %d: %s", r.Method, r.URL.RequestURI(), resp.StatusCode, f)
		}
	})
}

// requiresKeys reports whether s refuses /v1 requests without an API key.
// An open server (Options.Open) serves them as the service's own calls,
// so the document's security requirement is not checked on it.
func requiresKeys(s *Server) bool { return !s.opts.Open }

// checkOptions says what check cannot know from the exchange itself.
type checkOptions struct {
	// open: the server serves requests without an API key (Options.Open).
	open bool
	// noHeaders: the response's headers were not kept (a golden file
	// keeps its Content-Type only), so missing ones are not reported.
	noHeaders bool
}

// check validates a request (its body given apart) and the response it
// got, and returns what does not agree with the document:
//
//   - a response the operation does not document (status, headers,
//     media type, body), whatever the request;
//   - a request the document refuses, answered other than 4xx;
//   - a request without a valid Authorization, answered other than 401,
//     unless the server is open;
//   - a request that matches no operation, answered other than 404 (no
//     such path) or 405 (no such method), with a problem document.
//
// A HEAD request is checked as the GET it mirrors, without the body of
// its response.
func (spec *openAPISpec) check(r *http.Request, reqBody []byte, resp *http.Response, respBody []byte, o checkOptions) []string {
	req := r.Clone(context.Background())
	v := spec.full
	if req.Method == http.MethodHead {
		req.Method = http.MethodGet
		v = spec.noBody
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	var refused, unauthenticated []string
	spec.mu.Lock()
	defer spec.mu.Unlock()
	_, errs := v.ValidateHttpRequest(req)
	for _, e := range errs {
		switch e.ValidationType {
		case helpers.PathValidation:
			return spec.checkUnrouted(r, e, resp, respBody)
		case helpers.SecurityValidation:
			unauthenticated = append(unauthenticated, describe(e))
		default:
			refused = append(refused, describe(e))
		}
	}
	var fails []string
	switch {
	case len(refused) > 0 && resp.StatusCode/100 != 4:
		fails = append(fails, fmt.Sprintf("the document refuses the request, the server did not: %s", strings.Join(refused, "; ")))
	case len(refused) == 0 && len(unauthenticated) > 0 && !o.open && resp.StatusCode != http.StatusUnauthorized:
		fails = append(fails, fmt.Sprintf("the document wants an API key, the server did not: %s", strings.Join(unauthenticated, "; ")))
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	_, errs = v.ValidateHttpResponse(req, resp)
	for _, e := range errs {
		if o.noHeaders && e.ValidationSubType == helpers.ParameterValidationHeader && strings.HasPrefix(e.Message, "Missing required header") {
			continue
		}
		fails = append(fails, "response: "+describe(e))
	}
	return fails
}

// checkUnrouted checks the answer to a request that no operation of the
// document matches: the server must have no route for it either.
func (spec *openAPISpec) checkUnrouted(r *http.Request, e *valerrors.ValidationError, resp *http.Response, body []byte) []string {
	want, name := http.StatusNotFound, "NotFound"
	if e.ValidationSubType == helpers.ValidationMissingOperation {
		want, name = http.StatusMethodNotAllowed, "MethodNotAllowed"
	}
	if resp.StatusCode != want {
		return []string{fmt.Sprintf("no operation of the document matches (%s), yet the server answered %d, not %d", e.Message, resp.StatusCode, want)}
	}
	doc := spec.model.Components.Responses.GetOrZero(name)
	var fails []string
	for h, hd := range doc.Headers.FromOldest() {
		if hd.Required && resp.Header.Get(h) == "" {
			fails = append(fails, fmt.Sprintf("%d without the header %s", want, h))
		}
	}
	if ct := resp.Header.Get("Content-Type"); ct != contentProblem {
		fails = append(fails, fmt.Sprintf("%d with Content-Type %q, want %s", want, ct, contentProblem))
	}
	if r.Method == http.MethodHead {
		return fails
	}
	schema := doc.Content.GetOrZero(contentProblem).Schema.Schema()
	if _, errs := spec.schemas.ValidateSchemaBytes(schema, body); len(errs) > 0 {
		for _, e := range errs {
			fails = append(fails, fmt.Sprintf("%d body: %s", want, describe(e)))
		}
	}
	return fails
}

// describe says what a validation error found, with the failures of the
// schema it names.
func describe(e *valerrors.ValidationError) string {
	s := e.Message
	if e.Reason != "" && e.Reason != e.Message {
		s += ": " + e.Reason
	}
	for _, f := range e.SchemaValidationErrors {
		s += " [" + f.Reason
		if f.FieldPath != "" {
			s += " at " + f.FieldPath
		}
		if f.KeywordLocation != "" {
			s += " (" + f.KeywordLocation + ")"
		}
		s += "]"
	}
	return s
}

// TestGoldenFilesMatchOpenAPI validates every golden file against the
// document: the request it records on its first line (method, path and
// query, and the body if any) and the response it holds (status, media
// type and body). Every golden file must belong to an operation.
func TestGoldenFilesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	spec := openAPIFor(t)
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".golden"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// As golden writes it: "METHOD /path?query[ body]", "STATUS
			// Content-Type", a blank line, the body. What follows the path
			// is a note if it is in parentheses ("(a revoked key)").
			parts := strings.SplitN(string(data), "\n", 4)
			if len(parts) != 4 || parts[2] != "" {
				t.Fatalf("not a golden file of a response:\n%s", data)
			}
			method, rest, _ := strings.Cut(parts[0], " ")
			target, reqBody, _ := strings.Cut(rest, " ")
			if strings.HasPrefix(reqBody, "(") {
				reqBody = ""
			}
			code, ct, _ := strings.Cut(parts[1], " ")
			status, err := strconv.Atoi(code)
			if err != nil {
				t.Fatalf("status line %q: %v", parts[1], err)
			}
			req := httptest.NewRequest(method, target, strings.NewReader(reqBody))
			if reqBody != "" {
				req.Header.Set("Content-Type", contentJSON)
			}
			// Golden files keep no headers but the media type; the live
			// check (checkOpenAPI) sees the rest.
			resp := &http.Response{StatusCode: status, Header: http.Header{
				"Content-Type": {ct}, requestIDHeader: {"golden"},
			}}
			for _, f := range spec.check(req, []byte(reqBody), resp, []byte(parts[3]), checkOptions{open: true, noHeaders: true}) {
				t.Errorf("%s: %s", file, f)
			}
		})
	}
}

// TestOpenAPIDocument: the document is valid OpenAPI 3.1, has exactly the
// routes of routes.go with the roles it allows, documents every problem
// code with its status, and says of every operation what the API
// promises of it.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	spec := openAPIFor(t)
	if !strings.HasPrefix(spec.model.Version, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", spec.model.Version)
	}
	if ok, errs := spec.full.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("not valid OpenAPI: %s", describe(e))
		}
	}

	t.Run("routes", func(t *testing.T) {
		// The same routes, and the roles that routeTable lets call each
		// are those the operation's description names.
		documented := map[string]*v3.Operation{}
		for path, item := range spec.model.Paths.PathItems.FromOldest() {
			for method, op := range item.GetOperations().FromOldest() {
				documented[strings.ToUpper(method)+" "+path] = op
			}
		}
		routed := map[string]bool{}
		for _, rt := range routeTable {
			routed[rt.pattern] = true
			op, ok := documented[rt.pattern]
			if !ok {
				t.Errorf("routes.go serves %s; openapi.json does not document it", rt.pattern)
				continue
			}
			if got, want := documentedRoles(op), allowedRoles(rt.access); got != want {
				t.Errorf("%s: the document lets %s call it, routes.go %s", rt.pattern, got, want)
			}
		}
		for p := range documented {
			if !routed[p] {
				t.Errorf("openapi.json documents %s; routes.go does not serve it", p)
			}
		}
	})

	t.Run("problem codes", func(t *testing.T) {
		// Every code of the status table is documented with its status:
		// the problem responses refer to schemas that pin both.
		var doc struct {
			Components struct {
				Responses map[string]struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						}
					}
				}
				Schemas map[string]struct {
					Properties struct {
						Status struct{ Const any }
						Code   struct {
							Const any
							Enum  []string
						}
					}
				}
			}
		}
		if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
			t.Fatal(err)
		}
		byStatus := map[int][]string{}
		for _, r := range doc.Components.Responses {
			ref, ok := strings.CutPrefix(r.Content[contentProblem].Schema.Ref, "#/components/schemas/")
			if !ok {
				continue
			}
			p := doc.Components.Schemas[ref].Properties
			status, _ := p.Status.Const.(float64)
			codes := p.Code.Enum
			if c, ok := p.Code.Const.(string); ok {
				codes = append(codes, c)
			}
			byStatus[int(status)] = append(byStatus[int(status)], codes...)
		}
		for code, status := range statusOf {
			if !slices.Contains(byStatus[status], code) {
				t.Errorf("code %s is answered %d; no problem response of the document says so", code, status)
			}
		}
	})

	t.Run("operations", func(t *testing.T) {
		for path, item := range spec.model.Paths.PathItems.FromOldest() {
			for method, op := range item.GetOperations().FromOldest() {
				checkOperation(t, strings.ToUpper(method)+" "+path, op)
			}
		}
	})
}

// Mutating operations that store nothing under an Idempotency-Key, and
// so never answer with Idempotent-Replayed nor 422.
var notReplayed = map[string]string{
	"POST /v1/keys":                                                   "refuses an Idempotency-Key: replaying would mean keeping the secret",
	"DELETE /v1/keys/{id}":                                            "checks the Idempotency-Key, but revoking is idempotent by itself",
	"POST /v1/payments/{id}/outcomes":                                 "checks the Idempotency-Key, but the event id makes an outcome idempotent",
	"POST /v1/payments/webhook":                                       "checks the Idempotency-Key, but the event id makes an outcome idempotent",
	"POST /v1/rooms/{id}/visitors":                                    "checks the Idempotency-Key, but a visitor has one place, which a repeat answers again",
	"POST /v1/rooms/{id}/visitors/{visitor}/leave":                    "checks the Idempotency-Key, but leaving again changes nothing and answers the same ticket",
	"POST /v1/webhook-endpoints":                                      "refuses an Idempotency-Key: replaying would mean keeping the secret",
	"POST /v1/webhook-endpoints/{id}/rotate-secret":                   "refuses an Idempotency-Key: replaying would mean keeping the secret",
	"PATCH /v1/webhook-endpoints/{id}":                                "checks the Idempotency-Key, but a change sets a state, which a repeat sets again",
	"DELETE /v1/webhook-endpoints/{id}":                               "checks the Idempotency-Key, but a repeat finds nothing to delete (404)",
	"POST /v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver": "checks the Idempotency-Key, but a repeat finds the delivery pending (409)",
}

// refusesKey are the mutating operations that refuse an Idempotency-Key
// (400): their answers hold a secret shown once.
var refusesKey = []string{"POST /v1/keys", "POST /v1/webhook-endpoints", "POST /v1/webhook-endpoints/{id}/rotate-secret"}

// signedBy names the security scheme of the operations that need no API
// key because their body is signed: the payment webhook.
const signedBy = "webhookSignature"

// needsKey reports whether op needs an API key: it has the document's
// default security (the bearer scheme), or names it.
func needsKey(op *v3.Operation) bool {
	if op.Security == nil {
		return true
	}
	for _, req := range op.Security {
		if has(req, "bearer") {
			return true
		}
	}
	return false
}

// has reports whether req names the security scheme name.
func has(req *base.SecurityRequirement, name string) bool {
	return req.Requirements != nil && slices.Contains(slices.Collect(req.Requirements.KeysFromOldest()), name)
}

// signed reports whether op is authenticated by a signature of its body.
func signed(op *v3.Operation) bool {
	for _, req := range op.Security {
		if has(req, signedBy) {
			return true
		}
	}
	return false
}

// checkOperation checks the promises that hold for every operation:
// request ids both ways, Idempotency-Key on every POST, PUT and DELETE,
// the roles in the description and the key on /v1 (or, on the webhook,
// the signature), the problems of access and of bodies, and the problems
// every request may get.
func checkOperation(t *testing.T, name string, op *v3.Operation) {
	t.Helper()
	params := map[string]bool{}
	for _, p := range op.Parameters {
		params[p.In+" "+p.Name] = true
	}
	mutating := !strings.HasPrefix(name, "GET ")
	_, once := notReplayed[name]
	replayed := mutating && !once
	if !params["header X-Request-Id"] {
		t.Errorf("%s: no X-Request-Id request header", name)
	}
	if takesKey := mutating && !slices.Contains(refusesKey, name); params["header Idempotency-Key"] != takesKey {
		t.Errorf("%s: Idempotency-Key documented %v, want %v", name, params["header Idempotency-Key"], takesKey)
	}
	v1 := strings.Contains(name, " /v1/")
	switch {
	case v1 && !needsKey(op) && !signed(op):
		t.Errorf("%s: security %v: a /v1 operation needs an API key or a signature", name, op.Security)
	case !v1 && (op.Security == nil || len(op.Security) != 0):
		t.Errorf("%s: security %v, want public", name, op.Security)
	}
	want := []int{500, 503}
	switch {
	case needsKey(op):
		want = append(want, 400, 401, 429)
	case signed(op):
		want = append(want, 400, 401, 404)
	}
	if op.RequestBody != nil {
		want = append(want, 413, 415)
	}
	if replayed {
		want = append(want, 422)
	}
	for _, status := range want {
		if op.Responses.Codes.GetOrZero(strconv.Itoa(status)) == nil {
			t.Errorf("%s: no %d response", name, status)
		}
	}
	if !replayed && op.Responses.Codes.GetOrZero("422") != nil {
		t.Errorf("%s: a 422 response, but nothing is stored under an Idempotency-Key", name)
	}
	for code, r := range op.Responses.Codes.FromOldest() {
		if r.Headers.GetOrZero(requestIDHeader) == nil {
			t.Errorf("%s: the %s response has no X-Request-Id", name, code)
		}
		if documented := r.Headers.GetOrZero(headerReplayed) != nil; code[0] == '2' && documented != replayed {
			t.Errorf("%s: %s documented on the %s response: %v, want %v", name, headerReplayed, code, documented, replayed)
		}
	}
}

// rolesLine is how an operation's description names the roles that may
// call it.
var rolesLine = regexp.MustCompile(`(?m)^Roles: ([a-z, ]+)\.`)

// documentedRoles returns the roles that op's description names, "admin,
// reader", or "public" for an operation that needs no key.
func documentedRoles(op *v3.Operation) string {
	if !needsKey(op) {
		return "public"
	}
	if m := rolesLine.FindStringSubmatch(op.Description); m != nil {
		return m[1]
	}
	return "no roles"
}

// allowedRoles returns the roles a allows, as documentedRoles says them.
func allowedRoles(a access) string {
	if a == public {
		return "public"
	}
	var names []string
	for _, r := range stockade.Roles {
		if a.allows(r) {
			names = append(names, string(r))
		}
	}
	return strings.Join(names, ", ")
}

// TestOpenAPIHandler: GET /openapi.json serves the document as JSON, with
// an ETag that a later request revalidates to 304, all as the document
// describes.
func TestOpenAPIHandler(t *testing.T) {
	t.Parallel()
	spec := openAPIFor(t)
	s := NewServer(nil, slog.New(slog.DiscardHandler), nil)
	serve := func(header ...string) (*http.Response, []byte) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
		for _, h := range header {
			name, value, _ := strings.Cut(h, ": ")
			r.Header.Set(name, value)
		}
		rec := httptest.NewRecorder()
		rec.Header().Set(requestIDHeader, "test") // set by ServeHTTP
		s.openAPI(rec, r)
		resp := rec.Result()
		for _, f := range spec.check(r, nil, resp, rec.Body.Bytes(), checkOptions{open: true}) {
			t.Errorf("OpenAPI: %s", f)
		}
		return resp, rec.Body.Bytes()
	}

	resp, body := serve()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != contentJSON || !bytes.Equal(body, openAPIDocument) {
		t.Fatalf("GET /openapi.json: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	if !json.Valid(body) {
		t.Error("the document is not JSON")
	}
	etag := resp.Header.Get("ETag")
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if resp, body := serve("If-None-Match: " + inm); resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, ETag %q, %d bytes", inm, resp.StatusCode, resp.Header.Get("ETag"), len(body))
		}
	}
	if resp, _ := serve(`If-None-Match: "other"`); resp.StatusCode != 200 {
		t.Errorf("If-None-Match of another version: %d", resp.StatusCode)
	}
}

// TestOpenAPIAccess makes the requests that only a server with keys
// answers, through checkOpenAPI: 401, 403 and 429, the keys' routes, the
// lists of reservations and orders, owners and actors, and the document
// itself, so that the document's account of them is validated too.
func TestOpenAPIAccess(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{keyed: true})
	key := func(name string, role stockade.Role, rate float64) string {
		t.Helper()
		_, secret, err := a.eng.CreateKey(sys(t), stockade.NewKeyRequest{Name: name, Role: role, RateLimit: rate})
		if err != nil {
			t.Fatal(err)
		}
		return "Authorization: Bearer " + secret
	}
	admin := key("ops", stockade.RoleAdmin, 0)
	shop := key("till-1", stockade.RoleStorefront, 0)
	reader := key("audit", stockade.RoleReader, 0)
	slow := key("slow", stockade.RoleReader, 0.001)

	a.must(401, "GET", "/v1/stock", nil)
	a.must(401, "GET", "/v1/stock", nil, "Authorization: Bearer stk_nope")
	a.must(401, "GET", "/v1/stock", nil, "Authorization: Basic b3BzOm9wcw==")
	a.must(403, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`, shop)
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`, admin)
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`, admin)
	res := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":2}]}`, shop, "Idempotency-Key: cart-1").id(t)
	a.must(200, "POST", "/v1/reservations/"+res+"/confirm", nil, shop)
	a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, shop)
	a.must(404, "GET", "/v1/reservations/"+a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, admin).id(t), nil, shop)
	if r := a.must(200, "GET", "/v1/reservations?status=confirmed&created_after=2030-01-01T00:00:00Z&limit=10", nil, shop); !strings.Contains(string(r.body), `"owner":`) {
		t.Errorf("a storefront's reservation without its owner: %s", r)
	}
	a.must(200, "GET", "/v1/orders?status=committed&created_before=2031-01-01T00:00:00Z", nil, reader)
	a.must(400, "GET", "/v1/orders?status=held", nil, admin)
	a.must(403, "GET", "/v1/movements", nil, shop)
	if r := a.must(200, "GET", "/v1/movements?limit=5", nil, reader); !strings.Contains(string(r.body), `"actor":"ops"`) {
		t.Errorf("the ledger without the actor: %s", r)
	}

	id := a.must(201, "POST", "/v1/keys", `{"name":"till-2","role":"storefront","rate_limit":5}`, admin).id(t)
	a.must(400, "POST", "/v1/keys", `{"name":"till-3","role":"storefront"}`, admin, "Idempotency-Key: k-1")
	a.must(400, "POST", "/v1/keys", `{"name":"till-3","role":"owner"}`, admin)
	a.must(409, "POST", "/v1/keys", `{"name":"till-2","role":"reader"}`, admin)
	a.must(403, "GET", "/v1/keys", nil, reader)
	a.must(200, "DELETE", "/v1/keys/"+id, nil, admin, "Idempotency-Key: revoke-1")
	if r := a.must(200, "GET", "/v1/keys?limit=10", nil, admin); !strings.Contains(string(r.body), `"revoked_at":`) {
		t.Errorf("the keys without the revoked one: %s", r)
	}
	a.must(404, "DELETE", "/v1/keys/key_none", nil, admin)

	a.must(200, "GET", "/v1/stock", nil, slow)
	if r := a.must(429, "GET", "/v1/stock", nil, slow); r.header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", r.header)
	}

	etag := a.must(200, "GET", "/openapi.json", nil).header.Get("ETag")
	a.must(304, "GET", "/openapi.json", nil, "If-None-Match: "+etag)
	a.must(200, "HEAD", "/openapi.json", nil)
	a.must(405, "POST", "/openapi.json", nil)
}
