package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stockade/stockade"
)

// The formats that the document gives ids, cursors and limits are the
// service's, so that a generated client, or a tester that draws values
// from the document, sends none that can only be refused, and the
// document refuses nothing that the service takes. The bounds and
// patterns are read from the document, never written here again:
//
//   - TestOpenAPIIDFormat holds the Id schema to stockade.ValidateID,
//     character by character and at its lengths;
//   - TestOpenAPIParameterFormats sends, to every GET operation of the
//     document, ids, cursors and limits on either side of what the
//     document allows, and checks that the server refuses (400 invalid)
//     exactly those the document refuses. checkOpenAPI stands in front of
//     the server as in every api test.

// docJSON is the document as plain JSON values.
func docJSON(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// component returns the component of the document that ref ("#/components/schemas/Id") names.
func component(t *testing.T, doc map[string]any, ref string) map[string]any {
	t.Helper()
	var v any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := v.(map[string]any)
		v = m[part]
	}
	c, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("the document has no %s", ref)
	}
	return c
}

// stringFormat is what a string schema of the document allows: its
// pattern, and its bounds in characters (-1 where it has none).
type stringFormat struct {
	pattern              *regexp.Regexp
	minLength, maxLength int
	description          string
}

// formatOf reads the format of a string schema. The pattern is compiled
// with Go's regexp, as the tests' validator compiles it.
func formatOf(t *testing.T, schema map[string]any) stringFormat {
	t.Helper()
	f := stringFormat{minLength: -1, maxLength: -1}
	f.description, _ = schema["description"].(string)
	if n, ok := schema["minLength"].(float64); ok {
		f.minLength = int(n)
	}
	if n, ok := schema["maxLength"].(float64); ok {
		f.maxLength = int(n)
	}
	p, ok := schema["pattern"].(string)
	if !ok {
		t.Fatalf("a schema without a pattern: %v", schema)
	}
	f.pattern = regexp.MustCompile(p)
	return f
}

// accepts reports whether the document allows s.
func (f stringFormat) accepts(s string) bool {
	n := utf8.RuneCountInString(s)
	return f.pattern.MatchString(s) && n >= f.minLength && (f.maxLength < 0 || n <= f.maxLength)
}

// TestOpenAPIIDFormat: the document's Id schema accepts a string if and
// only if stockade.ValidateID does, for every character alone and for
// every length up to the service's limit. JSON Schema counts characters
// and the service bytes: past stockade.MaxIDLength bytes, an id of fewer
// characters passes the schema and is refused, as the schema's
// description says.
func TestOpenAPIIDFormat(t *testing.T) {
	t.Parallel()
	id := formatOf(t, component(t, docJSON(t), "#/components/schemas/Id"))
	service := func(s string) bool { return stockade.ValidateID("id", s) == nil }

	if id.maxLength != stockade.MaxIDLength {
		t.Errorf("Id: maxLength %d, the service's limit is %d bytes", id.maxLength, stockade.MaxIDLength)
	}
	for n := range stockade.MaxIDLength + 2 {
		if s := strings.Repeat("a", n); id.accepts(s) != service(s) {
			t.Errorf("an id of %d bytes: the document accepts it %v, the service %v", n, id.accepts(s), service(s))
		}
	}

	var disagree []string
	for r := range rune(unicode.MaxRune + 1) {
		if !utf8.ValidRune(r) {
			continue // a surrogate half: no string holds one
		}
		if s := string(r); id.accepts(s) != service(s) {
			disagree = append(disagree, fmt.Sprintf("%U (document %v, service %v)", r, id.accepts(s), service(s)))
		}
	}
	if len(disagree) > 0 {
		t.Errorf("%d characters alone are ids to one and not the other: %s", len(disagree), strings.Join(disagree[:min(len(disagree), 10)], ", "))
	}

	for _, r := range []rune{'é', '€', '😀'} {
		w := utf8.RuneLen(r)
		fits := strings.Repeat(string(r), stockade.MaxIDLength/w)
		if !id.accepts(fits) || !service(fits) {
			t.Errorf("%d× %c (%d bytes): the document accepts it %v, the service %v, want both", stockade.MaxIDLength/w, r, len(fits), id.accepts(fits), service(fits))
		}
		over := fits + string(r)
		if service(over) {
			t.Errorf("%d× %c (%d bytes): the service accepts it", stockade.MaxIDLength/w+1, r, len(over))
		}
		if id.accepts(over) && !strings.Contains(id.description, fmt.Sprintf("%d bytes", stockade.MaxIDLength)) {
			t.Errorf("Id's description does not say that the limit is %d bytes, which maxLength cannot: %q", stockade.MaxIDLength, id.description)
		}
	}
}

// operation is a GET operation of the document and its parameters, refs
// resolved.
type operation struct {
	path   string
	params []map[string]any
}

// getOperations returns the document's GET operations, but the event
// stream's, whose answer does not end.
func getOperations(t *testing.T, doc map[string]any) []operation {
	t.Helper()
	var ops []operation
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		get, ok := item.(map[string]any)["get"].(map[string]any)
		if !ok || isStream(path) {
			continue
		}
		op := operation{path: path}
		params, _ := get["parameters"].([]any)
		for _, p := range params {
			pm, _ := p.(map[string]any)
			if ref, ok := pm["$ref"].(string); ok {
				pm = component(t, doc, ref)
			}
			op.params = append(op.params, pm)
		}
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.path, b.path) })
	return ops
}

// schemaRef returns the $ref of a parameter's schema, "" for an inline one.
func schemaRef(p map[string]any) string {
	s, _ := p["schema"].(map[string]any)
	ref, _ := s["$ref"].(string)
	return ref
}

// target fills op's path parameters, each with "x" unless values names
// it, and adds query.
func (op operation) target(values map[string]string, query string) string {
	path := op.path
	for _, p := range op.params {
		if p["in"] != "path" {
			continue
		}
		name := p["name"].(string)
		v, ok := values[name]
		if !ok {
			v = "x"
		}
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(v), 1)
	}
	if query != "" {
		path += "?" + query
	}
	return path
}

// TestOpenAPIParameterFormats: the server refuses, 400 invalid, the ids,
// cursors and limits that the document refuses, and takes those it
// allows (the ids and limits; a cursor is taken only if the service gave
// it out).
func TestOpenAPIParameterFormats(t *testing.T) {
	t.Parallel()
	a := newAPI(t, nil)
	doc := docJSON(t)
	ops := getOperations(t, doc)

	// refused checks that the answer to GET target is 400 invalid if
	// refuse, and no 400 otherwise.
	refused := func(t *testing.T, refuse bool, target string) {
		t.Helper()
		r := a.do("GET", target, nil)
		switch {
		case refuse && r.status != 400:
			t.Errorf("GET %s: %d, want 400: the document refuses it", target, r.status)
		case refuse && r.problem(t).Code != stockade.EInvalid:
			t.Errorf("GET %s: %s, want code invalid", target, r)
		case !refuse && r.status == 400:
			t.Errorf("GET %s: %s; the document allows it", target, r)
		}
	}

	t.Run("ids", func(t *testing.T) {
		id := formatOf(t, component(t, doc, "#/components/schemas/Id"))
		// The characters where the document's or the service's
		// acceptance changes, on both sides, after an x (an empty path
		// segment is another route), and the longest id and one more.
		values := []string{strings.Repeat("a", id.maxLength), strings.Repeat("a", id.maxLength+1)}
		service := func(s string) bool { return stockade.ValidateID("id", s) == nil }
		for r := range rune(unicode.MaxRune + 1) {
			if r == 0 || !utf8.ValidRune(r) || !utf8.ValidRune(r-1) {
				continue
			}
			if s, prev := string(r), string(r-1); id.accepts(s) != id.accepts(prev) || service(s) != service(prev) {
				values = append(values, "x"+prev, "x"+s)
			}
		}
		if len(values) < 4 {
			t.Fatalf("the Id pattern refuses no character: %v", id.pattern)
		}
		n := 0
		for _, op := range ops {
			for _, p := range op.params {
				// Ids in the path; a show's id, an Id without '/',
				// takes the same values but those with a '/', and no
				// value here has one.
				if ref := schemaRef(p); p["in"] != "path" || (ref != "#/components/schemas/Id" && ref != "#/components/schemas/SeatName") {
					continue
				}
				for _, v := range values {
					refused(t, !id.accepts(v), op.target(map[string]string{p["name"].(string): v}, ""))
				}
				n++
			}
		}
		if n < 10 {
			t.Errorf("ids checked in %d operations' paths, want every GET operation with one", n)
		}
	})

	t.Run("cursors", func(t *testing.T) {
		cursor := formatOf(t, component(t, doc, "#/components/schemas/NextCursor"))
		for _, loc := range []string{"east", "west"} {
			a.must(200, "PUT", "/v1/locations/"+loc, `{"name":"x"}`)
		}
		a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":1}`)
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		for _, target := range []string{"/v1/locations?limit=1", "/v1/events?limit=1"} {
			if err := json.Unmarshal(a.must(200, "GET", target, nil).body, &page); err != nil || page.NextCursor == "" {
				t.Fatalf("GET %s: no next_cursor (%v)", target, err)
			}
			if !cursor.accepts(page.NextCursor) {
				t.Errorf("GET %s: next_cursor %q, which the document refuses", target, page.NextCursor)
			}
			issued := page.NextCursor
			// Each byte that the document refuses in a cursor, put
			// in one the service gave out.
			param := "cursor"
			if strings.HasPrefix(target, "/v1/events") {
				param = "after"
			}
			list, _, _ := strings.Cut(target, "?")
			for b := range 256 {
				v := issued[:2] + string([]byte{byte(b)}) + issued[2:]
				if !cursor.accepts(v) {
					refused(t, true, list+"?"+param+"="+url.QueryEscape(v))
				}
			}
			refused(t, false, list+"?"+param+"="+issued)
		}
		// Every list refuses a cursor of a byte the document refuses.
		const bad = "a.b"
		if cursor.accepts(bad) {
			t.Fatalf("the document takes the cursor %q", bad)
		}
		n := 0
		for _, op := range ops {
			for _, p := range op.params {
				if p["in"] == "query" && (p["name"] == "cursor" || p["name"] == "after") {
					refused(t, true, op.target(nil, p["name"].(string)+"="+bad))
					n++
				}
			}
		}
		if n < 10 {
			t.Errorf("cursors checked in %d operations, want every list", n)
		}
	})

	t.Run("limits", func(t *testing.T) {
		n := 0
		for _, op := range ops {
			for _, p := range op.params {
				if p["in"] != "query" || p["name"] != "limit" {
					continue
				}
				s, _ := p["schema"].(map[string]any)
				lo, okLo := s["minimum"].(float64)
				hi, okHi := s["maximum"].(float64)
				if !okLo || !okHi {
					t.Errorf("%s: limit without a minimum and maximum: %v", op.path, s)
					continue
				}
				for _, v := range []float64{lo - 1, lo, hi, hi + 1} {
					refused(t, v < lo || v > hi, op.target(nil, "limit="+strconv.Itoa(int(v))))
				}
				n++
			}
		}
		if n < 10 {
			t.Errorf("limits checked in %d operations, want every list", n)
		}
	})
}
