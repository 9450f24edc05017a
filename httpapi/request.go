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
	"unicode"
	"unicode/utf8"

	"github.com/stockade/stockade"
)

// Bounds on what a request may say, so that absurd input never reaches
// the service. They are looser than the service's own limits, which it
// checks and explains itself.
const (
	// maxQuantity bounds a line's quantity, an on-hand quantity and the
	// size of an adjustment, so that no sum of them overflows.
	maxQuantity = 1_000_000_000_000
	// maxLines bounds the lines of a reservation or order.
	maxLines = 1000
	// maxTTL bounds a reservation's ttl_seconds, far below where it would
	// overflow a time.Duration.
	maxTTL = 366 * 24 * time.Hour
	// maxIDLen bounds identifiers: SKUs, location and record ids.
	maxIDLen = 255
	// maxTextLen bounds free text: a location's name, an adjustment's
	// reason.
	maxTextLen = 4096
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
// fields, no trailing data, the right types. Errors are EInvalid and name
// the field; path is where data sits in the body ("lines[2]"), "" for the
// whole body.
func decode(data []byte, dst any, path string) error {
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

// checkID checks an identifier (a SKU, a location or record id) taken
// from field: present, at most maxIDLen bytes of UTF-8, no control
// characters.
func checkID(field, id string) error {
	if id == "" {
		return invalidf("%s: required, must not be empty", field)
	}
	return checkText(field, id, maxIDLen)
}

// checkText checks text: at most limit bytes of UTF-8 without control
// characters.
func checkText(field, s string, limit int) error {
	if len(s) > limit {
		return invalidf("%s: longer than %d bytes", field, limit)
	}
	if !utf8.ValidString(s) {
		return invalidf("%s: not valid UTF-8", field)
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return invalidf("%s: must not contain control characters", field)
	}
	return nil
}

// checkQuantity checks that q is within 1..maxQuantity.
func checkQuantity(field string, q int64) error {
	if q < 1 || q > maxQuantity {
		return invalidf("%s: must be between 1 and %d, got %d", field, int64(maxQuantity), q)
	}
	return nil
}

func checkCoordinate(field string, v, limit float64) error {
	if math.IsNaN(v) || v < -limit || v > limit {
		return invalidf("%s: must be between %g and %g, got %g", field, -limit, limit, v)
	}
	return nil
}

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
	for _, err := range []error{
		checkText("name", *b.Name, maxTextLen),
		checkCoordinate("lat", *b.Lat, 90),
		checkCoordinate("lon", *b.Lon, 180),
	} {
		if err != nil {
			return stockade.Location{}, err
		}
	}
	return stockade.Location{ID: id, Name: *b.Name, Lat: *b.Lat, Lon: *b.Lon}, nil
}

type setStockBody struct {
	OnHand          *int64 `json:"on_hand"`
	ExpectedVersion *int64 `json:"expected_version"`
}

func (b setStockBody) check() error {
	switch {
	case b.OnHand == nil:
		return required("on_hand")
	case *b.OnHand < 0 || *b.OnHand > maxQuantity:
		return invalidf("on_hand: must be between 0 and %d, got %d", int64(maxQuantity), *b.OnHand)
	case b.ExpectedVersion != nil && *b.ExpectedVersion < 0:
		return invalidf("expected_version: must not be negative, got %d", *b.ExpectedVersion)
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
	case *b.Delta == 0:
		return invalidf("delta: must not be zero")
	case *b.Delta < -maxQuantity || *b.Delta > maxQuantity:
		return invalidf("delta: must be between -%d and %d, got %d", int64(maxQuantity), int64(maxQuantity), *b.Delta)
	case b.Reason == nil:
		return required("reason")
	}
	if *b.Reason == "" {
		return invalidf("reason: required, must not be empty")
	}
	return checkText("reason", *b.Reason, maxTextLen)
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

// request decodes the nested parts of b and checks the whole.
func (b reserveBody) request() (stockade.ReserveRequest, error) {
	var req stockade.ReserveRequest
	switch {
	case b.Lines == nil:
		return req, required("lines")
	case len(b.Lines) == 0:
		return req, invalidf("lines: must not be empty")
	case len(b.Lines) > maxLines:
		return req, invalidf("lines: at most %d, got %d", maxLines, len(b.Lines))
	}
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
		if err := checkID(path+".sku", *lb.SKU); err != nil {
			return req, err
		}
		if err := checkQuantity(path+".quantity", *lb.Quantity); err != nil {
			return req, err
		}
		line := stockade.Line{SKU: *lb.SKU, Quantity: *lb.Quantity}
		if lb.Location != nil {
			if err := checkID(path+".location", *lb.Location); err != nil {
				return req, err
			}
			line.Location = *lb.Location
		}
		req.Lines = append(req.Lines, line)
	}
	if b.TTLSeconds != nil {
		if t := *b.TTLSeconds; t < 1 || t > int64(maxTTL/time.Second) {
			return req, invalidf("ttl_seconds: must be between 1 and %d, got %d", int64(maxTTL/time.Second), t)
		}
		req.TTL = time.Duration(*b.TTLSeconds) * time.Second
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
		if err := checkCoordinate("ship_to.lat", *p.Lat, 90); err != nil {
			return req, err
		}
		if err := checkCoordinate("ship_to.lon", *p.Lon, 180); err != nil {
			return req, err
		}
		req.ShipTo = &stockade.Point{Lat: *p.Lat, Lon: *p.Lon}
	}
	return req, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// movementFilter reads the query of GET /v1/movements.
func movementFilter(r *http.Request) (stockade.MovementFilter, error) {
	var f stockade.MovementFilter
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return f, invalidf("query: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		vs := q[name]
		if len(vs) > 1 {
			return f, invalidf("query: %s given %d times", name, len(vs))
		}
		v := vs[0]
		var err error
		switch name {
		case "sku":
			f.SKU, err = v, checkID("sku", v)
		case "location":
			f.Location, err = v, checkID("location", v)
		case "ref":
			f.Ref, err = v, checkID("ref", v)
		case "after_id":
			f.AfterID, err = strconv.ParseInt(v, 10, 64)
			if err != nil || f.AfterID < 0 {
				err = invalidf("after_id: want a non-negative integer, got %q", v)
			}
		case "limit":
			f.Limit, err = strconv.Atoi(v)
			if err != nil || f.Limit < 1 || f.Limit > maxMovements {
				err = invalidf("limit: want an integer between 1 and %d, got %q", maxMovements, v)
			}
		default:
			err = invalidf("query: unknown parameter %q (want sku, location, ref, after_id, limit)", name)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// noQuery refuses a query string on a route that takes none.
func noQuery(r *http.Request) error {
	if r.URL.RawQuery != "" {
		return invalidf("query: %s %s takes no query parameters", r.Method, r.URL.Path)
	}
	return nil
}
