package httpapi

import (
	"bytes"
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
	"time"

	"github.com/stockade/stockade"
)

// The checks here are of the wire format only: JSON syntax, types,
// unknown, repeated or wrongly cased keys, required fields, query
// parameters. Every limit on the values (lengths, quantities, the number
// of lines, the TTL) is the domain's, checked by the stockade Validate
// functions, so that a client meets one set of limits in one wording.

const (
	// maxMovements is the most ledger rows one GET returns.
	maxMovements = 10000
)

func invalidf(format string, args ...any) error {
	return stockade.Errorf(stockade.EInvalid, fmt.Sprintf(format, args...))
}

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
	if err := checkKeys(data, reflect.TypeOf(dst), path); err != nil {
		return err
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
// struct only when case is ignored ("Lines" for "lines"). It walks the
// token stream once; malformed JSON, unknown keys and wrong types it
// leaves to the decoder, which reports them.
func checkKeys(data []byte, t reflect.Type, path string) error {
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
		fields := jsonFields(t)
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

// jsonFields maps the JSON names of the fields of t, a struct, to their
// types; it is empty for any other type.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	if t == nil || t.Kind() != reflect.Struct {
		return fields
	}
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

// checkID checks an identifier taken from the path or the query, named
// field, as the service will: stockade.ValidateID.
func checkID(field, id string) error { return stockade.ValidateID(field, id) }

// required returns the error for a field that is missing (or null).
func required(field string) error { return invalidf("%s: required", field) }

// The request bodies. Pointers tell a field that is missing from one
// given as zero; nested objects stay raw until decoded with their path.

type locationBody struct {
	Name *string  `json:"name"`
	Lat  *float64 `json:"lat"`
	Lon  *float64 `json:"lon"`
}

func (b locationBody) location(id string) (stockade.Location, error) {
	if err := checkID("id", id); err != nil {
		return stockade.Location{}, err
	}
	switch {
	case b.Name == nil:
		return stockade.Location{}, required("name")
	case b.Lat == nil:
		return stockade.Location{}, required("lat")
	case b.Lon == nil:
		return stockade.Location{}, required("lon")
	}
	return stockade.Location{ID: id, Name: *b.Name, Lat: *b.Lat, Lon: *b.Lon}, nil
}

// orderChangeBody is the optional body of a cancel or a fulfilment: the
// version the client last read the order at.
type orderChangeBody struct {
	ExpectedVersion *int64 `json:"expected_version,omitempty"`
}

// expectedVersion returns the version a change of an order expects: the
// body's expected_version, or the If-Match header's entity tag, a
// version in quotes ("2") as GET /v1/orders/{id} gives it in its ETag.
// Both may be given if they agree. nil if neither is.
func (b orderChangeBody) expectedVersion(h http.Header) (*int64, error) {
	ims := h.Values("If-Match")
	if len(ims) == 0 {
		return b.ExpectedVersion, nil
	}
	tag := strings.TrimSpace(ims[0])
	unquoted, ok := strings.CutPrefix(tag, `"`)
	if ok {
		unquoted, ok = strings.CutSuffix(unquoted, `"`)
	}
	v, err := strconv.ParseInt(unquoted, 10, 64)
	switch {
	case len(ims) > 1 || strings.Contains(tag, ","):
		return nil, stockade.Errorf(stockade.EInvalid, "If-Match: give one entity tag, the order's version in quotes, such as \"1\"")
	case !ok || err != nil || v < 1:
		return nil, stockade.Errorf(stockade.EInvalid, fmt.Sprintf("If-Match: want the order's version in quotes, such as \"1\" (its ETag), got %s", tag))
	case b.ExpectedVersion != nil && *b.ExpectedVersion != v:
		return nil, stockade.Errorf(stockade.EInvalid, fmt.Sprintf("If-Match %s and expected_version %d disagree", tag, *b.ExpectedVersion))
	}
	return &v, nil
}

type setStockBody struct {
	OnHand          *int64 `json:"on_hand"`
	ExpectedVersion *int64 `json:"expected_version"`
}

func (b setStockBody) check() error {
	switch {
	case b.OnHand == nil:
		return required("on_hand")
	}
	return nil
}

type adjustBody struct {
	Delta  *int64  `json:"delta"`
	Reason *string `json:"reason"`
}

func (b adjustBody) check() error {
	switch {
	case b.Delta == nil:
		return required("delta")
	case b.Reason == nil:
		return required("reason")
	}
	return nil
}

// reserveBody is the body of POST /v1/reservations and POST /v1/orders.
type reserveBody struct {
	Lines      []json.RawMessage `json:"lines"`
	TTLSeconds *int64            `json:"ttl_seconds"`
	ShipTo     json.RawMessage   `json:"ship_to"`
}

type lineBody struct {
	SKU      *string `json:"sku"`
	Quantity *int64  `json:"quantity"`
	Location *string `json:"location"`
}

type pointBody struct {
	Lat *float64 `json:"lat"`
	Lon *float64 `json:"lon"`
}

// maxTTLSeconds is the largest ttl_seconds that fits a time.Duration.
const maxTTLSeconds = math.MaxInt64 / int64(time.Second)

// request decodes the nested parts of b into the request the service
// validates (ReserveRequest.Validate).
func (b reserveBody) request() (stockade.ReserveRequest, error) {
	var req stockade.ReserveRequest
	if b.Lines == nil {
		return req, required("lines")
	}
	req.Lines = make([]stockade.Line, 0, len(b.Lines))
	for i, raw := range b.Lines {
		path := "lines[" + strconv.Itoa(i) + "]"
		var lb lineBody
		if isNull(raw) {
			return req, invalidf("%s: want an object, got null", path)
		}
		if err := decode(raw, &lb, path); err != nil {
			return req, err
		}
		switch {
		case lb.SKU == nil:
			return req, required(path + ".sku")
		case lb.Quantity == nil:
			return req, required(path + ".quantity")
		}
		line := stockade.Line{SKU: *lb.SKU, Quantity: *lb.Quantity}
		if lb.Location != nil {
			// A location given must name one: the empty one, in the
			// domain, means "any location".
			if err := checkID(path+".location", *lb.Location); err != nil {
				return req, err
			}
			line.Location = *lb.Location
		}
		req.Lines = append(req.Lines, line)
	}
	if b.TTLSeconds != nil {
		ttl, err := ttlOf(*b.TTLSeconds, strconv.FormatInt(int64(stockade.MaxTTL/time.Second), 10))
		if err != nil {
			return req, err
		}
		req.TTL = ttl
	}
	if len(b.ShipTo) > 0 && !isNull(b.ShipTo) {
		var p pointBody
		if err := decode(b.ShipTo, &p, "ship_to"); err != nil {
			return req, err
		}
		switch {
		case p.Lat == nil:
			return req, required("ship_to.lat")
		case p.Lon == nil:
			return req, required("ship_to.lon")
		}
		req.ShipTo = &stockade.Point{Lat: *p.Lat, Lon: *p.Lon}
	}
	return req, nil
}

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

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// movementQuery reads the query of GET /v1/movements. The cursor is
// opaque here: the service refuses one it did not give out.
func movementQuery(r *http.Request) (stockade.MovementQuery, error) {
	var f stockade.MovementQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, maxMovements, &f.Cursor, &f.Limit); ok {
			return err
		}
		switch name {
		case "sku":
			f.SKU = v
		case "location":
			f.Location = v
		case "ref":
			f.Ref = v
		default:
			return invalidf("query: unknown parameter %q (want sku, location, ref, cursor, limit)", name)
		}
		return checkID(name, v)
	})
	return f, err
}

// locationQuery reads the query of GET /v1/locations.
func locationQuery(r *http.Request) (stockade.LocationQuery, error) {
	var q stockade.LocationQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxLocationLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// skuQuery reads the query of GET /v1/stock.
func skuQuery(r *http.Request) (stockade.SKUQuery, error) {
	var q stockade.SKUQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSKULimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		if name != "prefix" {
			return invalidf("query: unknown parameter %q (want prefix, cursor, limit)", name)
		}
		q.Prefix = v
		return checkID("prefix", v)
	})
	return q, err
}

// listQuery reads the query of GET /v1/reservations and GET /v1/orders.
// The status is checked by the service, which knows each list's.
func listQuery(r *http.Request) (stockade.ListQuery, error) {
	var q stockade.ListQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxListLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			q.Status = v
			return nil
		case "created_after":
			return timeParam(name, v, &q.CreatedAfter)
		case "created_before":
			return timeParam(name, v, &q.CreatedBefore)
		}
		return invalidf("query: unknown parameter %q (want status, created_after, created_before, cursor, limit)", name)
	})
	return q, err
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

// keyQuery reads the query of GET /v1/keys.
func keyQuery(r *http.Request) (stockade.KeyQuery, error) {
	var q stockade.KeyQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxKeyLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// keyBody is the body of POST /v1/keys.
type keyBody struct {
	Name      *string  `json:"name"`
	Role      *string  `json:"role"`
	RateLimit *float64 `json:"rate_limit"`
}

func (b keyBody) request() (stockade.NewKeyRequest, error) {
	switch {
	case b.Name == nil:
		return stockade.NewKeyRequest{}, required("name")
	case b.Role == nil:
		return stockade.NewKeyRequest{}, required("role")
	}
	req := stockade.NewKeyRequest{Name: *b.Name, Role: stockade.Role(*b.Role)}
	if b.RateLimit != nil {
		req.RateLimit = *b.RateLimit
	}
	return req, req.Validate()
}

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

// noQuery refuses a query string on a route that takes none.
func noQuery(r *http.Request) error {
	if r.URL.RawQuery != "" {
		return invalidf("query: %s %s takes no query parameters", r.Method, r.URL.Path)
	}
	return nil
}

// The bodies of the shows and holds.

// showBody is the body of PUT /v1/shows/{id}: the show without its id,
// which is in the path.
type showBody struct {
	Name  *string           `json:"name"`
	Focal json.RawMessage   `json:"focal"`
	Rows  []json.RawMessage `json:"rows"`
	Areas []json.RawMessage `json:"areas"`
}

type xyBody struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}

type rowBody struct {
	Section     *string         `json:"section"`
	Row         *string         `json:"row"`
	First       *int            `json:"first"`
	Last        *int            `json:"last"`
	Category    *string         `json:"category"`
	Accessible  []*int          `json:"accessible"`
	Blocked     []*int          `json:"blocked"`
	AislesAfter []*int          `json:"aisles_after"`
	Start       json.RawMessage `json:"start"`
	Step        *float64        `json:"step"`
}

type areaBody struct {
	Name     *string `json:"name"`
	Category *string `json:"category"`
	Capacity *int64  `json:"capacity"`
}

// event decodes the nested parts of b into the event the service
// validates (stockade.Event.Validate). focal and a row's start are the
// origin when left out.
func (b showBody) event(id string) (stockade.Event, error) {
	if err := checkID("id", id); err != nil {
		return stockade.Event{}, err
	}
	if b.Name == nil {
		return stockade.Event{}, required("name")
	}
	ev := stockade.Event{ID: id, Name: *b.Name}
	var err error
	if ev.Focal, err = pointOf(b.Focal, "focal"); err != nil {
		return ev, err
	}
	if ev.Rows, err = objects("rows", b.Rows, rowBody.row); err != nil {
		return ev, err
	}
	ev.Areas, err = objects("areas", b.Areas, areaBody.area)
	return ev, err
}

func (b rowBody) row(path string) (stockade.SeatRow, error) {
	var r stockade.SeatRow
	switch {
	case b.Section == nil:
		return r, required(path + ".section")
	case b.Row == nil:
		return r, required(path + ".row")
	case b.First == nil:
		return r, required(path + ".first")
	case b.Last == nil:
		return r, required(path + ".last")
	}
	r = stockade.SeatRow{Section: *b.Section, Row: *b.Row, First: *b.First, Last: *b.Last}
	var err error
	if r.Category, err = optionalID(path+".category", b.Category); err != nil {
		return r, err
	}
	if b.Step != nil {
		r.Step = *b.Step
	}
	if r.Accessible, err = numbers(path+".accessible", b.Accessible); err != nil {
		return r, err
	}
	if r.Blocked, err = numbers(path+".blocked", b.Blocked); err != nil {
		return r, err
	}
	if r.AislesAfter, err = numbers(path+".aisles_after", b.AislesAfter); err != nil {
		return r, err
	}
	r.Start, err = pointOf(b.Start, path+".start")
	return r, err
}

func (b areaBody) area(path string) (stockade.Area, error) {
	switch {
	case b.Name == nil:
		return stockade.Area{}, required(path + ".name")
	case b.Capacity == nil:
		return stockade.Area{}, required(path + ".capacity")
	}
	category, err := optionalID(path+".category", b.Category)
	return stockade.Area{Name: *b.Name, Category: category, Capacity: *b.Capacity}, err
}

// optionalID returns an optional identifier, "" when left out. One that
// is given must name something: in the domain, "" means none.
func optionalID(path string, id *string) (string, error) {
	if id == nil {
		return "", nil
	}
	return *id, checkID(path, *id)
}

// pointOf decodes a position named path; left out or null, the origin.
func pointOf(raw json.RawMessage, path string) (stockade.SeatPoint, error) {
	if len(raw) == 0 || isNull(raw) {
		return stockade.SeatPoint{}, nil
	}
	var p xyBody
	if err := decode(raw, &p, path); err != nil {
		return stockade.SeatPoint{}, err
	}
	switch {
	case p.X == nil:
		return stockade.SeatPoint{}, required(path + ".x")
	case p.Y == nil:
		return stockade.SeatPoint{}, required(path + ".y")
	}
	return stockade.SeatPoint{X: *p.X, Y: *p.Y}, nil
}

// numbers returns a list of seat numbers named path, refusing a null in
// it; nil if it is empty.
func numbers(path string, ns []*int) ([]int, error) {
	if len(ns) == 0 {
		return nil, nil
	}
	out := make([]int, len(ns))
	for i, n := range ns {
		if n == nil {
			return nil, invalidf("%s[%d]: want an integer, got null", path, i)
		}
		out[i] = *n
	}
	return out, nil
}

// objects decodes raws, the items of the list field, each an object that
// decodes into a B with its path ("rows[2]") and that conv turns into a
// T. It returns nil for an empty list.
func objects[B, T any](field string, raws []json.RawMessage, conv func(B, string) (T, error)) ([]T, error) {
	if len(raws) == 0 {
		return nil, nil
	}
	out := make([]T, 0, len(raws))
	for i, raw := range raws {
		path := field + "[" + strconv.Itoa(i) + "]"
		if isNull(raw) {
			return nil, invalidf("%s: want an object, got null", path)
		}
		var b B
		if err := decode(raw, &b, path); err != nil {
			return nil, err
		}
		v, err := conv(b, path)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// holdBody is the body of POST /v1/shows/{id}/holds.
type holdBody struct {
	Seats      []string          `json:"seats"`
	Best       []json.RawMessage `json:"best_available"`
	Places     []json.RawMessage `json:"general_admission"`
	TTLSeconds *int64            `json:"ttl_seconds"`
}

type bestBody struct {
	Quantity   *int    `json:"quantity"`
	Category   *string `json:"category"`
	Section    *string `json:"section"`
	Accessible *bool   `json:"accessible"`
	AllowSplit *bool   `json:"allow_split"`
}

type placesBody struct {
	Area     *string `json:"area"`
	Quantity *int64  `json:"quantity"`
}

// longestHold names the ceiling of a hold's ttl_seconds, which is the
// service's (stockade.HoldRequest.Validate).
const longestHold = "the service's longest hold"

// request decodes the nested parts of b into the request for the show
// eventID that the service validates (stockade.HoldRequest.Validate).
func (b holdBody) request(eventID string) (stockade.HoldRequest, error) {
	req := stockade.HoldRequest{EventID: eventID}
	if len(b.Seats) > 0 {
		req.Seats = b.Seats
	}
	var err error
	if req.Best, err = objects("best_available", b.Best, bestBody.best); err != nil {
		return req, err
	}
	if req.Places, err = objects("general_admission", b.Places, placesBody.places); err != nil {
		return req, err
	}
	if b.TTLSeconds != nil {
		req.TTL, err = ttlOf(*b.TTLSeconds, longestHold)
	}
	return req, err
}

func (b bestBody) best(path string) (stockade.BestSeats, error) {
	if b.Quantity == nil {
		return stockade.BestSeats{}, required(path + ".quantity")
	}
	best := stockade.BestSeats{Quantity: *b.Quantity}
	var err error
	if best.Category, err = optionalID(path+".category", b.Category); err != nil {
		return best, err
	}
	if best.Section, err = optionalID(path+".section", b.Section); err != nil {
		return best, err
	}
	if b.Accessible != nil {
		best.Accessible = *b.Accessible
	}
	if b.AllowSplit != nil {
		best.AllowSplit = *b.AllowSplit
	}
	return best, nil
}

func (b placesBody) places(path string) (stockade.Places, error) {
	switch {
	case b.Area == nil:
		return stockade.Places{}, required(path + ".area")
	case b.Quantity == nil:
		return stockade.Places{}, required(path + ".quantity")
	}
	return stockade.Places{Area: *b.Area, Quantity: *b.Quantity}, nil
}

// extendBody is the body of POST /v1/holds/{id}/extend.
type extendBody struct {
	TTLSeconds *int64 `json:"ttl_seconds"`
}

func (b extendBody) ttl() (time.Duration, error) {
	if b.TTLSeconds == nil {
		return 0, required("ttl_seconds")
	}
	return ttlOf(*b.TTLSeconds, longestHold)
}

// seatQuery reads the query of GET /v1/shows/{id}/seats. The status is
// checked by the service (stockade.SeatQuery.Validate).
func seatQuery(r *http.Request) (stockade.SeatQuery, error) {
	var q stockade.SeatQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSeatLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			if v == "" {
				return invalidf("status: must not be empty; leave it out for seats of every status")
			}
			q.Status = stockade.SeatStatus(v)
			return nil
		case "section":
			q.Section = v
			return checkID("section", v)
		}
		return invalidf("query: unknown parameter %q (want status, section, cursor, limit)", name)
	})
	return q, err
}

// seatHistoryQuery reads the query of GET /v1/shows/{id}/history. A seat
// and an area together are refused by the service
// (stockade.SeatHistoryQuery.Validate).
func seatHistoryQuery(r *http.Request) (stockade.SeatHistoryQuery, error) {
	var q stockade.SeatHistoryQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSeatHistoryLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "seat":
			q.Seat = v
		case "area":
			q.Area = v
		default:
			return invalidf("query: unknown parameter %q (want seat, area, cursor, limit)", name)
		}
		return checkID(name, v)
	})
	return q, err
}

// The bodies and the query of the payments.

// paymentBody is the body of POST /v1/payments.
type paymentBody struct {
	Target   json.RawMessage `json:"target"`
	Amount   *int64          `json:"amount"`
	Currency *string         `json:"currency"`
}

type targetBody struct {
	Kind *string `json:"kind"`
	ID   *string `json:"id"`
}

// request decodes the target of b into the request the service
// validates (stockade.NewPaymentRequest.Validate).
func (b paymentBody) request() (stockade.NewPaymentRequest, error) {
	var req stockade.NewPaymentRequest
	if len(b.Target) == 0 || isNull(b.Target) {
		return req, required("target")
	}
	var t targetBody
	if err := decode(b.Target, &t, "target"); err != nil {
		return req, err
	}
	switch {
	case t.Kind == nil:
		return req, required("target.kind")
	case t.ID == nil:
		return req, required("target.id")
	case b.Amount == nil:
		return req, required("amount")
	case b.Currency == nil:
		return req, required("currency")
	}
	req.Target = stockade.PaymentTarget{Kind: stockade.PaymentTargetKind(*t.Kind), ID: *t.ID}
	req.Amount, req.Currency = *b.Amount, *b.Currency
	return req, nil
}

// cancelPaymentBody is the body of POST /v1/payments/{id}/cancel, which
// may be left out.
type cancelPaymentBody struct {
	Reason *string `json:"reason"`
}

func (b cancelPaymentBody) reason() string {
	if b.Reason == nil {
		return ""
	}
	return *b.Reason
}

// outcomeBody is the body of POST /v1/payments/{id}/outcomes: an outcome
// without its payment's id, which is in the path.
type outcomeBody struct {
	EventID *string `json:"event_id"`
	Status  *string `json:"status"`
	Reason  *string `json:"reason"`
}

// outcome returns the outcome of b for the payment id, which the service
// validates (stockade.PaymentOutcome.Validate).
func (b outcomeBody) outcome(id string) (stockade.PaymentOutcome, error) {
	switch {
	case b.EventID == nil:
		return stockade.PaymentOutcome{}, required("event_id")
	case b.Status == nil:
		return stockade.PaymentOutcome{}, required("status")
	}
	o := stockade.PaymentOutcome{EventID: *b.EventID, PaymentID: id, Status: stockade.PaymentStatus(*b.Status)}
	if b.Reason != nil {
		o.Reason = *b.Reason
	}
	return o, nil
}

// webhookBody is the body of POST /v1/payments/webhook: an outcome, as a
// payment system reports it.
type webhookBody struct {
	EventID   *string `json:"event_id"`
	PaymentID *string `json:"payment_id"`
	Status    *string `json:"status"`
	Reason    *string `json:"reason"`
}

func (b webhookBody) outcome() (stockade.PaymentOutcome, error) {
	switch {
	case b.EventID == nil:
		return stockade.PaymentOutcome{}, required("event_id")
	case b.PaymentID == nil:
		return stockade.PaymentOutcome{}, required("payment_id")
	}
	return outcomeBody{EventID: b.EventID, Status: b.Status, Reason: b.Reason}.outcome(*b.PaymentID)
}

// paymentQuery reads the query of GET /v1/payments. The status and the
// resolution are checked by the service (stockade.PaymentQuery.Validate).
func paymentQuery(r *http.Request) (stockade.PaymentQuery, error) {
	var q stockade.PaymentQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxListLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		switch name {
		case "status":
			if v == "" {
				return invalidf("status: must not be empty; leave it out for payments of every status")
			}
			q.Status = stockade.PaymentStatus(v)
			return nil
		case "resolution":
			if v == "" {
				return invalidf("resolution: must not be empty; leave it out for payments of every resolution")
			}
			q.Resolution = v
			return nil
		case "stuck":
			switch v {
			case "true":
				q.Stuck = true
			case "false":
			default:
				return invalidf("stuck: want true or false, got %q", v)
			}
			return nil
		}
		return invalidf("query: unknown parameter %q (want status, stuck, resolution, cursor, limit)", name)
	})
	return q, err
}
