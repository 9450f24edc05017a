package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stockade/stockade"
)

// Fuzz targets for what the API reads from the network: the request
// bodies (FuzzReserveBody is in decode_test.go, FuzzShowBody and
// FuzzHoldBody in shows_test.go), the movements query,
// the Idempotency-Key header and the fingerprint of a request. Each checks more than "no panic": a refusal
// is an EInvalid error, and whatever is accepted survives a round trip
// through the client's encoding unchanged. The seeds below, and the corpus
// in testdata/fuzz, run as ordinary tests; `go test -fuzz` explores from
// them (docs/fuzzing.md says for how long, and what it found).

// refused fails the test unless err is the API's refusal of bad input.
func refused(t *testing.T, err error) {
	t.Helper()
	var e *stockade.Error
	if !errors.As(err, &e) || e.Code != stockade.EInvalid {
		t.Fatalf("refused with %T %v, want a stockade.Error with code %s", err, err, stockade.EInvalid)
	}
}

// roundTrip is the body of the fuzz tests of request bodies: body decodes
// into a B as a handler decodes it and parses into a request, or is
// refused with EInvalid and a message; a request accepted, encoded as the
// client encodes it, is accepted again and parses back into the same
// request. align, if set, first checks and makes equal in back what the
// wire spells its own way (a time's zone, of which only the offset
// travels).
func roundTrip[B, R any](t *testing.T, body []byte, parse func(B) (R, error), encode func(R) any,
	align func(t *testing.T, req R, back *R)) {
	t.Helper()
	in, err := decodeInto[B](body)
	var req R
	if err == nil {
		req, err = parse(in)
	}
	if err != nil {
		refused(t, err)
		if stockade.ErrorMessage(err) == "" {
			t.Fatal("refused without a message")
		}
		return
	}
	wire, err := json.Marshal(encode(req))
	if err != nil {
		t.Fatalf("encode %+v: %v", req, err)
	}
	again, err := decodeInto[B](wire)
	if err != nil {
		t.Fatalf("the client's body %s is refused: %v", wire, err)
	}
	back, err := parse(again)
	if err != nil {
		t.Fatalf("the client's body %s is refused: %v", wire, err)
	}
	if align != nil {
		align(t, req, &back)
	}
	if !reflect.DeepEqual(back, req) {
		t.Fatalf("round trip of %q: %+v, then %+v", body, req, back)
	}
}

// decodeInto decodes data into a new T the way a handler does.
func decodeInto[T any](data []byte) (T, error) {
	var v T
	err := decode(data, &v, "")
	return v, err
}

func FuzzLocationBody(f *testing.F) {
	for _, s := range []string{
		`{"name":"Berlin","lat":52.5,"lon":13.4}`,
		`{"name":"","lat":0,"lon":0}`,
		`{"name":"Drop-shipper"}`,
		`{"name":"x","lon":2}`,
		`{"name":"x","lat":"52"}`,
		`{"name":"x","lat":1,"lon":2,"name":"y"}`,
		`{"NAME":"x","lat":1,"lon":2}`,
	} {
		f.Add([]byte(s), "w1")
	}
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		body, err := decodeInto[locationBody](data)
		if err != nil {
			refused(t, err)
			return
		}
		loc, err := body.location(id)
		if err != nil {
			refused(t, err)
			return
		}
		again, err := json.Marshal(locationBodyOf(loc))
		if err != nil {
			t.Fatalf("encoding %+v: %v", loc, err)
		}
		body2, err := decodeInto[locationBody](again)
		if err != nil {
			t.Fatalf("refused the encoding %s of what it accepted: %v", again, err)
		}
		loc2, err := body2.location(id)
		if err != nil || !reflect.DeepEqual(loc2, loc) {
			t.Fatalf("round trip changed %+v into %+v (%v)", loc, loc2, err)
		}
	})
}

func FuzzStockBodies(f *testing.F) {
	for _, s := range []string{
		`{"on_hand":10}`,
		`{"on_hand":10,"expected_version":3}`,
		`{"delta":-2,"reason":"damaged"}`,
		`{"delta":1.5,"reason":"x"}`,
		`{"on_hand":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := decodeInto[setStockBody](data); err != nil {
			refused(t, err)
		} else if err := b.check(); err != nil {
			refused(t, err)
		}
		if b, err := decodeInto[adjustBody](data); err != nil {
			refused(t, err)
		} else if err := b.check(); err != nil {
			refused(t, err)
		}
	})
}

func FuzzMovementQuery(f *testing.F) {
	for _, s := range []string{
		"", "sku=a", "sku=a&location=w1&ref=r1&limit=10", "cursor=bQAAAAAAAAAB",
		"limit=0", "limit=10001", "sku=a&sku=b", "cursor=", "x=1", "sku=%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/movements", nil)
		r.URL.RawQuery = raw
		q, err := movementQuery(r)
		if err != nil {
			refused(t, err)
			return
		}
		if q.Limit < 0 || q.Limit > maxMovements {
			t.Fatalf("%q: accepted limit %d", raw, q.Limit)
		}
		for name, v := range map[string]string{"sku": q.SKU, "location": q.Location, "ref": q.Ref} {
			if v != "" && stockade.ValidateID(name, v) != nil {
				t.Fatalf("%q: accepted %s %q", raw, name, v)
			}
		}
	})
}

// FuzzIdempotency checks the Idempotency-Key header against the domain's
// rule, and that the fingerprint tells different requests apart.
func FuzzIdempotency(f *testing.F) {
	f.Add("order-1", []byte(`{"lines":[]}`), []byte(`{"lines": []}`))
	f.Add("", []byte(``), []byte(`{}`))
	f.Add("with space", []byte(`a`), []byte(`a`))
	f.Add("é", []byte(`x`), []byte(`y`))
	f.Fuzz(func(t *testing.T, key string, body1, body2 []byte) {
		r := httptest.NewRequest(http.MethodPost, "/v1/orders", nil)
		r.Header.Set(headerIdempotencyKey, key)
		got, err := idempotencyKey(r)
		want := stockade.ValidateIdempotencyKey(headerIdempotencyKey, key)
		switch {
		case err != nil && want == nil:
			t.Fatalf("%q refused (%v), but the domain accepts it", key, err)
		case err == nil && want != nil:
			t.Fatalf("%q accepted, but the domain refuses it: %v", key, want)
		case err != nil:
			refused(t, err)
		case got != key:
			t.Fatalf("%q read as %q", key, got)
		}
		h1, h2 := requestHash(r, body1), requestHash(r, body2)
		if h1 != requestHash(r, body1) {
			t.Fatal("the fingerprint of one request changed")
		}
		if (h1 == h2) != bytes.Equal(body1, body2) {
			t.Fatalf("fingerprints %s and %s for bodies %q and %q", h1, h2, body1, body2)
		}
	})
}

func FuzzLocationQuery(f *testing.F) {
	for _, s := range []string{"", "limit=1", "limit=1000&cursor=bGVhc3Q", "limit=0", "cursor=", "cursor=a&cursor=b", "sku=a", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/locations", nil)
		r.URL.RawQuery = raw
		q, err := locationQuery(r)
		if err != nil {
			refused(t, err)
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("%q: accepted a query the domain refuses: %v", raw, err)
		}
	})
}

func FuzzSKUQuery(f *testing.F) {
	for _, s := range []string{"", "prefix=tee", "prefix=tee&limit=10&cursor=c3RlZQ", "prefix=", "prefix=%00", "limit=1001", "sku=a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/stock", nil)
		r.URL.RawQuery = raw
		q, err := skuQuery(r)
		if err != nil {
			refused(t, err)
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("%q: accepted a query the domain refuses: %v", raw, err)
		}
	})
}

// FuzzAuthorization: the Authorization header is accepted exactly when
// it is one "Bearer <token>" (the scheme in any case) of visible ASCII,
// and the token taken is the header's, byte for byte; a secret's key id
// is found only in a secret of the right shape.
func FuzzAuthorization(f *testing.F) {
	for _, s := range []string{
		"Bearer stk_23ocd3aaaaaaaaaaaaaaaaaaaa_" + strings.Repeat("a", 52),
		"bearer abc", "Bearer  abc", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b", "Bearer \x7f",
		"Bearer stk__x", "Bearer stk_a_b", "BEARER stk_" + strings.Repeat("z", 400),
	} {
		f.Add(s, false)
	}
	f.Add("Bearer abc", true)
	f.Fuzz(func(t *testing.T, value string, twice bool) {
		h := http.Header{}
		h.Add("Authorization", value)
		if twice {
			h.Add("Authorization", value)
		}
		token, err := bearer(h)
		scheme, rest, _ := strings.Cut(value, " ")
		rest = strings.TrimLeft(rest, " ")
		visible := rest != "" && len(rest) <= maxSecretLength && !strings.ContainsFunc(rest, func(r rune) bool { return r <= ' ' || r > '~' })
		switch want := !twice && strings.EqualFold(scheme, "Bearer") && visible; {
		case want && (err != nil || token != rest):
			t.Fatalf("bearer(%q) = %q, %v; want %q", value, token, err, rest)
		case !want && err == nil:
			t.Fatalf("bearer(%q, twice %v) = %q, want a refusal", value, twice, token)
		}
		if id, ok := stockade.KeyIDOfSecret(token); ok {
			if !strings.HasPrefix(token, "stk_"+strings.TrimPrefix(id, "key_")+"_") || stockade.ValidateID("id", id) != nil {
				t.Fatalf("KeyIDOfSecret(%q) = %q", token, id)
			}
		}
	})
}

// FuzzListQuery: the query of GET /v1/reservations and GET /v1/orders.
func FuzzListQuery(f *testing.F) {
	for _, s := range []string{
		"", "status=held", "status=held&created_after=2030-01-02T03:04:05Z&limit=10",
		"created_before=2030-01-02T03:04:05.123456%2B02:00", "created_after=yesterday", "limit=0", "limit=1001",
		"cursor=", "status=held&status=held", "sku=x", "%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/reservations", nil)
		r.URL.RawQuery = raw
		q, err := listQuery(r)
		if err != nil {
			refused(t, err)
			return
		}
		if q.Limit < 0 || q.Limit > stockade.MaxListLimit {
			t.Fatalf("limit %d accepted", q.Limit)
		}
		if err := q.ValidateReservations(); err != nil {
			refused(t, err) // a status or a time range the service refuses
		}
	})
}

// FuzzKeyBody: the body of POST /v1/keys.
func FuzzKeyBody(f *testing.F) {
	for _, s := range []string{
		`{"name":"shop","role":"storefront"}`, `{"name":"shop","role":"storefront","rate_limit":2.5}`,
		`{"name":"x","role":"root"}`, `{"name":"","role":"admin"}`, `{"role":"admin"}`,
		`{"name":"x","role":"admin","rate_limit":-1}`, `{"name":"x","role":"admin","rate_limit":1e309}`,
		`{"name":"x","role":"admin","secret":"mine"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body, err := decodeInto[keyBody](data)
		if err != nil {
			refused(t, err)
			return
		}
		req, err := body.request()
		if err != nil {
			refused(t, err)
			return
		}
		if req.Validate() != nil || req.Name != *body.Name || string(req.Role) != *body.Role {
			t.Fatalf("accepted %s as %+v", data, req)
		}
	})
}
