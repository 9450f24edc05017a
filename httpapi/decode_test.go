package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// reserveBodies are seeds for FuzzReserveBody: good bodies and each kind
// of wire error.
var reserveBodies = []string{
	`{"lines":[{"sku":"widget","quantity":2}]}`,
	`{"lines":[{"sku":"widget","quantity":2,"location":"east"}],"ttl_seconds":600,"ship_to":{"lat":40.0,"lon":-75.2}}`,
	`{"lines":[{"sku":"widget","quantity":1}],"ship_to":null}`,
	`{"lines":[{"sku":"widget","quantity":1}],"admission":{"visitor_id":"cart-1","token":"adm1.e30.c2ln"}}`,
	`{"lines":[{"sku":"widget","quantity":1}],"admission":{"token":"t","Visitor_id":"v"}}`,
	`{"lines":[{"sku":"widget","quantity":"2"}]}`,
	`{"lines":[{"sku":"widget","quantity":1}],"lines":[]}`,
	`{"Lines":[{"sku":"widget","quantity":1}]}`,
	`{"lines":[{"SKU":"widget","quantity":1,"sku":"x"}]}`,
	`{"lines":[null,7,{}]}`,
	`{"lines":[{"sku":"widget","quantity":1e30}],"ttl_seconds":-1}`,
	`{"lines":[{"sku":"w\u0000","quantity":1}]} {}`,
	`{"lines":[`,
	`[]`,
	`null`,
	``,
}

// FuzzReserveBody decodes arbitrary bodies of POST /v1/reservations: the
// decoder never panics, refuses only with EInvalid, and what it accepts is
// one JSON object, with no key twice and every key spelled as the API
// spells it, whose request survives a trip through the client's encoding.
func FuzzReserveBody(f *testing.F) {
	for _, b := range reserveBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in reserveBody
		err := decode(body, &in, "")
		var req stockade.ReserveRequest
		if err == nil {
			req, err = in.request()
		}
		if err != nil {
			if code := stockade.ErrorCode(err); code != stockade.EInvalid {
				t.Fatalf("refused with %q (%v), want invalid", code, err)
			}
			if msg := stockade.ErrorMessage(err); msg == "" {
				t.Fatal("refused without a message")
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if !exactKeys(body) {
			t.Fatalf("accepted a repeated or misspelled key: %q", body)
		}
		wire, err := json.Marshal(reserveBodyOf(req))
		if err != nil {
			t.Fatalf("encode %+v: %v", req, err)
		}
		var again reserveBody
		if err := decode(wire, &again, ""); err != nil {
			t.Fatalf("the client's body %s is refused: %v", wire, err)
		}
		back, err := again.request()
		if err != nil {
			t.Fatalf("the client's body %s is refused: %v", wire, err)
		}
		if len(req.Lines) == 0 && len(back.Lines) == 0 {
			back.Lines = req.Lines // empty either way
		}
		if !reflect.DeepEqual(back, req) {
			t.Fatalf("round trip of %q: %+v, then %+v", body, req, back)
		}
	})
}

// exactKeys reports whether every object in the JSON value in data has
// distinct keys, all of them names of the reservation body (lines,
// ttl_seconds, ship_to, admission, sku, quantity, location, lat, lon,
// visitor_id, token). It decodes independently of checkKeys, into generic
// values.
func exactKeys(data []byte) bool {
	names := map[string]bool{"lines": true, "ttl_seconds": true, "ship_to": true, "admission": true,
		"sku": true, "quantity": true, "location": true, "lat": true, "lon": true, "visitor_id": true, "token": true}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				key, _ := k.(string)
				if err != nil || seen[key] || !names[key] {
					return false
				}
				seen[key] = true
				if !walk() {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		case json.Delim('['):
			for dec.More() {
				if !walk() {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		}
		return true
	}
	return walk()
}

func TestCheckKeysLeavesMalformedJSONToTheDecoder(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"lines":[`, `{lines:1}`, `{"a":1,"b"`, `[1,2`, `"`} {
		if err := checkKeys([]byte(body), reflect.TypeFor[reserveBody](), ""); err != nil {
			t.Errorf("checkKeys(%q) = %v, want nil (the decoder reports it)", body, err)
		}
	}
}

// FuzzCheckKeys holds checkKeys, which scans the keys of plain bodies in
// place, to walkCheckKeys, which walks encoding/json's token stream: the
// same refusal, or none, for every body and every type of body.
func FuzzCheckKeys(f *testing.F) {
	for _, b := range reserveBodies {
		f.Add([]byte(b))
	}
	for _, b := range []string{
		`{"lines":[{"sku":"a","quantity":1}],"metadata":{"k":"v","k":"w"}}`,
		`{"lines":[{"sku":"a","quantity":1,"Quantity":2}]}`,
		`{"lines":[{"sku":"a","qu\u0061ntity":1,"quantity":2}]}`,
		`{"lines":[{"sku":"a","quantity":1}],"ship_to":{"Lat":1,"lon":2}}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"a":11}`,
		` [ { "x" : [ 1 , { "y" : true , "y" : null } ] } ] `,
		`{"lines":[{"sku":"\"quoted\"","quantity":-1.5e3}],"lines":1}`,
		`{"lineſ":[]}`,
	} {
		f.Add([]byte(b))
	}
	types := []reflect.Type{
		reflect.TypeFor[*reserveBody](), reflect.TypeFor[*lineBody](), reflect.TypeFor[*pointBody](),
		reflect.TypeFor[*updateBody](), reflect.TypeFor[*struct{}](), nil,
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range types {
			for _, path := range []string{"", "lines[3]"} {
				known, got := scanKeys(body, typ, path)
				want := walkCheckKeys(body, typ, path)
				if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
					t.Fatalf("checkKeys(%q, %v, %q) = %v, want %v", body, typ, path, got, want)
				}
				if known && typ != nil {
					sameDecoding(t, body, typ)
				}
			}
		}
	})
}

// sameDecoding checks that json.Unmarshal decodes body into a typ as a
// json.Decoder that refuses unknown fields and trailing data does, as
// decode takes for granted when scanKeys says that body's keys are
// known.
func sameDecoding(t *testing.T, body []byte, typ reflect.Type) {
	t.Helper()
	fast, strict := reflect.New(typ.Elem()), reflect.New(typ.Elem())
	errFast := json.Unmarshal(body, fast.Interface())
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	errStrict := dec.Decode(strict.Interface())
	if errStrict == nil {
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("%q: known keys, but data after the value: %v", body, err)
		}
	}
	if fmt.Sprint(errFast) != fmt.Sprint(errStrict) || !reflect.DeepEqual(fast.Interface(), strict.Interface()) {
		t.Fatalf("%q into %v: Unmarshal gives %v, %+v; the strict decoder %v, %+v",
			body, typ, errFast, fast.Elem(), errStrict, strict.Elem())
	}
}

// BenchmarkReserveBody is the cost of reading the body of a checkout:
// the keys checked, the JSON decoded, the lines decoded and checked.
func BenchmarkReserveBody(b *testing.B) {
	body := []byte(`{"lines":[{"sku":"widget","quantity":1}]}`)
	b.ReportAllocs()
	for b.Loop() {
		var in reserveBody
		if err := decode(body, &in, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := in.request(); err != nil {
			b.Fatal(err)
		}
	}
}
