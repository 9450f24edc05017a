package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stockade/stockade"
)

// Reading a request, for the handlers of every aggregate: the body and
// the query decoded and checked strictly, the path's ids checked, and
// the helpers the request bodies share.
//
// The checks here are of the wire format only: JSON syntax, types,
// unknown, repeated or wrongly cased keys, required fields, query
// parameters. Every limit on the values (lengths, quantities, the number
// of lines, the TTL) is the domain's, checked by the stockade Validate
// functions, so that a client meets one set of limits in one wording.
//
// The request bodies, in the file of their aggregate, have pointer
// fields, which tell a field that is missing from one given as zero;
// their nested objects stay raw until decoded with their path.

// The handlers: each reads and checks its input, refusing bad input with
// 4xx before anything changes, then calls the service through call.

// input checks the path values named by ids, refuses a query string, and
// decodes the body into dst; with dst nil, the body must be empty or {}.
// It returns the body, for the request hash, or answers the refusal
// itself and returns false.
func (s *Server) input(w http.ResponseWriter, r *http.Request, dst any, ids ...string) ([]byte, bool) {
	return s.readInput(w, r, dst, dst != nil, ids)
}

// optionalInput is input for a route whose body may be left out: an
// empty body leaves dst as it is.
func (s *Server) optionalInput(w http.ResponseWriter, r *http.Request, dst any, ids ...string) ([]byte, bool) {
	return s.readInput(w, r, dst, false, ids)
}

// readInput serves input and optionalInput: a body is required if
// required is set.
func (s *Server) readInput(w http.ResponseWriter, r *http.Request, dst any, required bool, ids []string) ([]byte, bool) {
	for _, name := range ids {
		if err := checkID(name, r.PathValue(name)); err != nil {
			s.writeError(w, r, err)
			return nil, false
		}
	}
	if err := noQuery(r); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeBadRequest(w, r, err)
		return nil, false
	}
	if len(body) == 0 && !required {
		return body, true
	}
	if dst == nil {
		dst = &struct{}{}
	}
	if err := decode(body, dst, ""); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return body, true
}

// byID serves a route whose only input is the path value id.
func byID[T any](s *Server, w http.ResponseWriter, r *http.Request, view func(T) any,
	fn func(context.Context, string, *stockade.Idempotency) (T, error)) {
	body, ok := s.input(w, r, nil, "id")
	if !ok {
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, view, func(ctx context.Context, idem *stockade.Idempotency) (T, error) {
		return fn(ctx, id, idem)
	})
}

// updateByID serves a PATCH of the aggregate in the path: a body of
// {"metadata": {…}} for fn, the aggregate's update.
func updateByID[T any](s *Server, w http.ResponseWriter, r *http.Request, view func(T) any,
	fn func(context.Context, string, stockade.UpdateRequest, *stockade.Idempotency) (T, error)) {
	var in updateBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusOK, view, func(ctx context.Context, idem *stockade.Idempotency) (T, error) {
		return fn(ctx, id, req, idem)
	})
}

// updateBody is the body of a PATCH: the metadata to merge, a key with
// the empty value removing it. A value is a pointer so that null, which
// encoding/json would read as "", is refused rather than taken for a
// removal.
type updateBody struct {
	Metadata map[string]*string `json:"metadata"`
}

// request is b as the service takes it, or EInvalid for a null value.
func (b updateBody) request() (stockade.UpdateRequest, error) {
	var req stockade.UpdateRequest
	for _, k := range slices.Sorted(maps.Keys(b.Metadata)) {
		v := b.Metadata[k]
		if v == nil {
			return req, invalidf("metadata[%s]: want a string, got null (remove a key with \"\")", k)
		}
		if req.Metadata == nil {
			req.Metadata = stockade.Metadata{}
		}
		req.Metadata[k] = *v
	}
	return req, nil
}

// updateBodyOf is req as the client sends it.
func updateBodyOf(req stockade.UpdateRequest) updateBody {
	b := updateBody{Metadata: map[string]*string{}}
	for k, v := range req.Metadata {
		b.Metadata[k] = &v
	}
	return b
}

// The body.

// errTooLarge marks a body over Options.MaxBodyBytes: 413, code invalid.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string { return fmt.Sprintf("body: larger than %d bytes", e.limit) }

// errMediaType marks a body that says it is not JSON: 415, code invalid.
type errMediaType struct{ got string }

func (e errMediaType) Error() string {
	return fmt.Sprintf("body: Content-Type %q, want application/json", e.got)
}

// readBody reads the whole body, at most Options.MaxBodyBytes of it, and
// checks that a non-empty body does not say it is something else than
// JSON. A missing Content-Type is taken as JSON.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, errTooLarge{mbe.Limit}
	}
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && len(body) > 0 {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, errMediaType{ct}
		}
	}
	return body, nil
}

// writeBadRequest answers a request refused before it reached the service.
func (s *Server) writeBadRequest(w http.ResponseWriter, r *http.Request, err error) {
	switch e := err.(type) {
	case errTooLarge:
		writeProblem(w, http.StatusRequestEntityTooLarge, stockade.EInvalid, e.Error())
	case errMediaType:
		writeProblem(w, http.StatusUnsupportedMediaType, stockade.EInvalid, e.Error())
	default:
		s.writeError(w, r, err)
	}
}

// decode decodes one JSON value from data into dst strictly: no unknown
// fields, no key given twice, keys spelled with their exact case, no
// trailing data, the right types. Errors are EInvalid and name the field;
// path is where data sits in the body ("lines[2]"), "" for the whole body.
func decode(data []byte, dst any, path string) error {
	known, err := scanKeys(data, reflect.TypeOf(dst), path)
	if err != nil {
		return err
	}
	if known {
		// One valid JSON value whose every key names a field: the
		// decoder below would find no unknown field and no trailing
		// data, and decode it as Unmarshal does, without its buffer.
		if err := json.Unmarshal(data, dst); err != nil {
			return decodeError(err, dst, path)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, dst, path)
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalidf("%s: unexpected data after the JSON value", orBody(path))
	}
	return nil
}

// orBody names path, or the body for "".
func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

func decodeError(err error, dst any, path string) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		where := orBody(path)
		switch {
		case te.Field != "" && path == "":
			where = te.Field
		case te.Field != "":
			where = path + "." + te.Field
		}
		return invalidf("%s: want %s, got %s", where, describeType(te.Type), te.Value)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return invalidf("%s: malformed JSON at byte %d: %v", orBody(path), se.Offset, se)
	}
	switch {
	case errors.Is(err, io.EOF):
		return invalidf("%s: empty, want a JSON %s", orBody(path), describeType(reflect.TypeOf(dst).Elem()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidf("%s: malformed JSON: it ends early", orBody(path))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalidf("%s: unknown field %s", orBody(path), f)
	}
	return invalidf("%s: %v", orBody(path), err)
}

// checkKeys refuses what encoding/json would let through in the JSON
// value in data, to be decoded into a t: an object with a key given twice
// (encoding/json keeps the last), and a key that names a field of a
// struct only when case is ignored ("Lines" for "lines"). Malformed JSON,
// unknown keys and wrong types it leaves to the decoder, which reports
// them.
//
// Valid JSON whose keys are plain ASCII, every body a client of this API
// sends, is checked by a keyScanner in place; anything else by walkKeys, over
// encoding/json's token stream, which unescapes keys as the decoder does.
// The two agree (FuzzCheckKeys).
func checkKeys(data []byte, t reflect.Type, path string) error {
	_, err := scanKeys(data, t, path)
	return err
}

// scanKeys is checkKeys, and also reports whether data is known to be
// one valid JSON value in which every key of an object decoded into a
// struct names one of its fields exactly, so that decoding it can refuse
// no unknown field.
func scanKeys(data []byte, t reflect.Type, path string) (known bool, err error) {
	if json.Valid(data) {
		s := keyScanner{data: data, path: append(make([]byte, 0, 64), path...), known: true}
		if err := s.value(t); err != errNotPlain {
			return s.known && err == nil, err
		}
	}
	return false, walkCheckKeys(data, t, path)
}

// walkCheckKeys is checkKeys over encoding/json's token stream.
func walkCheckKeys(data []byte, t reflect.Type, path string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // no number can fail to parse
	err := walkKeys(dec, t, path)
	if _, ok := errors.AsType[*stockade.Error](err); ok {
		return err
	}
	return nil
}

// walkKeys reads one JSON value from dec, checking the keys of its
// objects against t, the type it decodes into (nil when unknown).
func walkKeys(dec *json.Decoder, t reflect.Type, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('{'):
		fields := jsonFields(t).types
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			if seen[key] {
				return invalidf("%s: duplicate key %q", orBody(path), key)
			}
			seen[key] = true
			var vt reflect.Type
			switch ft, ok := fields[key]; {
			case ok:
				vt = ft
			case t != nil && t.Kind() == reflect.Map:
				vt = t.Elem()
			default:
				for name := range fields {
					if strings.EqualFold(name, key) {
						return invalidf("%s: unknown field %q (keys are case-sensitive: want %q)", orBody(path), key, name)
					}
				}
			}
			where := key
			if path != "" {
				where = path + "." + key
			}
			if err := walkKeys(dec, vt, where); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkKeys(dec, et, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

// keyScanner checks the keys of valid JSON in data, from offset i, as
// walkKeys does, without a token stream: it reads the bytes in place, and
// builds the path of a value only to name it in an error.
type keyScanner struct {
	data []byte
	i    int
	path []byte // where the value being read sits, as walkKeys names it
	// known is cleared by a key that is not a field of the struct its
	// object decodes into, or by a struct whose fields encoding/json
	// may name otherwise than jsonFields.
	known bool
}

// errNotPlain stops keyScanner at a key with an escape or a byte beyond
// ASCII, which only walkKeys unescapes and compares as the decoder does.
var errNotPlain = errors.New("httpapi: key not plain ASCII")

// value reads one JSON value, checking the keys of its objects against t,
// the type it decodes into (nil when unknown).
func (s *keyScanner) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s.space()
	switch s.data[s.i] {
	case '{':
		return s.object(t)
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		s.i++
		for n := 0; ; n++ {
			s.space()
			switch s.data[s.i] {
			case ']':
				s.i++
				return nil
			case ',':
				s.i++
			}
			parent := len(s.path)
			s.path = append(append(append(s.path, '['), strconv.Itoa(n)...), ']')
			if err := s.value(et); err != nil {
				return err
			}
			s.path = s.path[:parent]
		}
	case '"':
		s.str()
	default: // a number, true, false or null: up to what ends it
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return nil
			}
			s.i++
		}
	}
	return nil
}

// object reads a JSON object, whose '{' is at s.i.
func (s *keyScanner) object(t reflect.Type) error {
	fields := jsonFields(t)
	isStruct := t != nil && t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType)
	if isStruct && !fields.plain {
		s.known = false
	}
	var seen keySet
	s.i++
	for {
		s.space()
		switch s.data[s.i] {
		case '}':
			s.i++
			return nil
		case ',':
			s.i++
			s.space()
		}
		key, plain := s.str()
		if !plain {
			return errNotPlain
		}
		if !seen.add(key) {
			return invalidf("%s: duplicate key %q", orBody(string(s.path)), key)
		}
		var vt reflect.Type
		switch ft, ok := fields.types[string(key)]; {
		case ok:
			vt = ft
		case t != nil && t.Kind() == reflect.Map:
			vt = t.Elem()
		default:
			if isStruct {
				s.known = false
			}
			for _, name := range fields.names {
				if strings.EqualFold(name, string(key)) {
					return invalidf("%s: unknown field %q (keys are case-sensitive: want %q)", orBody(string(s.path)), key, name)
				}
			}
		}
		s.space()
		s.i++ // ':'
		parent := len(s.path)
		if parent > 0 {
			s.path = append(s.path, '.')
		}
		s.path = append(s.path, key...)
		if err := s.value(vt); err != nil {
			return err
		}
		s.path = s.path[:parent]
	}
}

// str reads a JSON string, whose opening quote is at s.i, and returns
// its contents as written, and whether they are plain: printable ASCII
// without escapes, as the string's value would be.
func (s *keyScanner) str() (raw []byte, plain bool) {
	s.i++
	start := s.i
	plain = true
	for ; s.data[s.i] != '"'; s.i++ {
		if c := s.data[s.i]; c == '\\' {
			plain = false
			s.i++ // the escaped byte, which may be a quote
		} else if c >= 0x80 {
			plain = false
		}
	}
	raw = s.data[start:s.i]
	s.i++
	return raw, plain
}

// space skips white space.
func (s *keyScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// keySet holds the keys of one object: a few in a slice, many in a map,
// so that an object of many keys costs no more than a map.
type keySet struct {
	few  [8][]byte
	n    int
	many map[string]struct{}
}

// add adds key, and reports whether it was new.
func (ks *keySet) add(key []byte) bool {
	if ks.many != nil {
		if _, ok := ks.many[string(key)]; ok {
			return false
		}
		ks.many[string(key)] = struct{}{}
		return true
	}
	for _, k := range ks.few[:ks.n] {
		if bytes.Equal(k, key) {
			return false
		}
	}
	if ks.n < len(ks.few) {
		ks.few[ks.n] = key
		ks.n++
		return true
	}
	ks.many = make(map[string]struct{}, 2*len(ks.few))
	for _, k := range ks.few {
		ks.many[string(k)] = struct{}{}
	}
	ks.many[string(key)] = struct{}{}
	return true
}

// structFields are the JSON names of the fields of a struct and their
// types.
type structFields struct {
	types map[string]reflect.Type
	names []string // sorted
	// plain is set if encoding/json names the fields as types does: no
	// field is embedded, and every name in a tag is of letters, digits,
	// '_' and '-'.
	plain bool
}

// unmarshalerType is the type of a json.Unmarshaler, which decodes
// itself.
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldCache holds the structFields of each type met, by reflect.Type.
var fieldCache sync.Map

// jsonFields returns the JSON names of the fields of t, a struct, and
// their types; none for any other type. Read it only.
func jsonFields(t reflect.Type) structFields {
	if t == nil || t.Kind() != reflect.Struct {
		return structFields{}
	}
	if f, ok := fieldCache.Load(t); ok {
		return f.(structFields)
	}
	f := structFields{types: structFieldTypes(t), plain: true}
	f.names = slices.Sorted(maps.Keys(f.types))
	for sf := range t.Fields() {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous || strings.ContainsFunc(name, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
		}) {
			f.plain = false
		}
	}
	fieldCache.Store(t, f)
	return f
}

// structFieldTypes maps the JSON names of the fields of t, a struct, to
// their types.
func structFieldTypes(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "":
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

// describeType names a Go type the way a JSON client thinks of it.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		if t == reflect.TypeFor[json.RawMessage]() {
			return "a JSON value"
		}
		return "an object"
	}
	return t.String()
}

// The fields.

func invalidf(format string, args ...any) error {
	return stockade.Errorf(stockade.EInvalid, fmt.Sprintf(format, args...))
}

// checkID checks an identifier taken from the path or the query, named
// field, as the service will: stockade.ValidateID.
func checkID(field, id string) error { return stockade.ValidateID(field, id) }

// required returns the error for a field that is missing (or null).
func required(field string) error { return invalidf("%s: required", field) }

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// maxTTLSeconds is the largest ttl_seconds that fits a time.Duration.
const maxTTLSeconds = math.MaxInt64 / int64(time.Second)

// ttlOf returns a ttl_seconds given as a duration. Zero would mean the
// service's default, which the API spells by leaving ttl_seconds out; a
// count of seconds too large for a time.Duration is beyond any ceiling
// the service can have, whose maximum, for the message, is most.
func ttlOf(secs int64, most string) (time.Duration, error) {
	switch {
	case secs < 1:
		return 0, invalidf("ttl_seconds: must be at least 1, got %d (leave it out for the default)", secs)
	case secs > maxTTLSeconds:
		return 0, invalidf("ttl_seconds: must be at most %s, got %d", most, secs)
	}
	return time.Duration(secs) * time.Second, nil
}

// The query.

// eachParam calls set with every parameter of r's query, in name order.
// It refuses a query that does not parse, or that gives a parameter more
// than once.
func eachParam(r *http.Request, set func(name, v string) error) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return invalidf("query: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if vs := q[name]; len(vs) > 1 {
			return invalidf("query: %s given %d times", name, len(vs))
		}
		if err := set(name, q[name][0]); err != nil {
			return err
		}
	}
	return nil
}

// pageParam reads a list's paging parameters: the opaque cursor, and the
// limit, 1 to most. It reports whether name is one of them.
func pageParam(name, v string, most int, cursor *string, limit *int) (bool, error) {
	switch name {
	case "cursor":
		if v == "" {
			return true, invalidf("cursor: must not be empty; leave it out for the first page")
		}
		if err := checkCursor("cursor", v); err != nil {
			return true, err
		}
		*cursor = v
	case "limit":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > most {
			return true, invalidf("limit: want an integer between 1 and %d, got %q", most, v)
		}
		*limit = n
	default:
		return false, nil
	}
	return true, nil
}

// checkCursor refuses a cursor, named field, with a byte that no cursor
// the service gives out holds: they are unpadded base64url, letters,
// digits, '-' and '_' (as openapi.json says). The service refuses any
// other cursor it did not give out, but Go's base64 decoding skips CR
// and LF, so that a cursor with one inserted would pass it.
func checkCursor(field, v string) error {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return invalidf("%s: malformed, byte %#x at %d: a cursor is unpadded base64url, as the service gives it out", field, c, i)
		}
	}
	return nil
}

// timeParam reads an RFC 3339 time.
func timeParam(name, v string, t *time.Time) error {
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return invalidf("%s: want an RFC 3339 time such as 2030-01-02T03:04:05Z, got %q", name, v)
	}
	*t = at
	return nil
}

// noQuery refuses a query string on a route that takes none.
func noQuery(r *http.Request) error {
	if r.URL.RawQuery != "" {
		return invalidf("query: %s %s takes no query parameters", r.Method, r.URL.Path)
	}
	return nil
}
