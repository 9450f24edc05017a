package stockade

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Metadata is a shop's own data on a reservation, an order, a hold, a
// booking or a payment: a flat map of strings, set when it is made and
// merged into by an update (UpdateRequest), returned in every view and
// event of it, and usable to filter lists (ListQuery.Metadata). It ties a reservation
// to a shop's cart or customer without a table of the shop's own. Its
// limits are Stripe's: at most MaxMetadataKeys keys, each at most
// MaxMetadataKeyLength bytes, each value at most MaxMetadataValueLength.
type Metadata map[string]string

// The limits of Metadata.
const (
	MaxMetadataKeys        = 50
	MaxMetadataKeyLength   = 40
	MaxMetadataValueLength = 500
)

// Validate refuses metadata over the limits, a key that is empty or holds
// anything but printable ASCII other than the quote, backslash and square
// brackets (a list filter names a key as metadata[key]), or a value that
// is not valid text. field names it in the error ("metadata").
func (m Metadata) Validate(field string) error {
	if len(m) > MaxMetadataKeys {
		return invalidf("%s: at most %d keys, got %d", field, MaxMetadataKeys, len(m))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := validateMetadataKey(field, k); err != nil {
			return err
		}
		v := m[k]
		if len(v) > MaxMetadataValueLength {
			return invalidf("%s[%s]: longer than %d bytes, got %d", field, k, MaxMetadataValueLength, len(v))
		}
		if err := validateChars(field+"["+k+"]", v); err != nil {
			return err
		}
	}
	return nil
}

// validateMetadataKey refuses a key that Metadata.Validate would.
func validateMetadataKey(field, k string) error {
	switch {
	case k == "":
		return invalidf("%s: a key must not be empty", field)
	case len(k) > MaxMetadataKeyLength:
		return invalidf("%s: key %q… longer than %d bytes, got %d", field, k[:MaxMetadataKeyLength], MaxMetadataKeyLength, len(k))
	case !utf8.ValidString(k) || strings.ContainsFunc(k, func(r rune) bool { return r < 0x21 || r > 0x7e || strings.ContainsRune(`"\[]`, r) }):
		return invalidf("%s: key %q: want printable ASCII without spaces, quotes, backslashes or square brackets", field, k)
	}
	return nil
}

// Matches reports whether m holds every key of want with its value.
func (m Metadata) Matches(want Metadata) bool {
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// UpdateRequest is the body of an update of a reservation, an order, a
// hold, a booking or a payment: today, its metadata only.
type UpdateRequest struct {
	// Metadata is merged into the aggregate's: a key with a value sets
	// it, a key with the empty value removes it, and keys the request
	// does not name stay as they are.
	Metadata Metadata `json:"metadata"`
}

// Validate refuses an update that names no key, or whose metadata is
// over the limits of Metadata.
func (r UpdateRequest) Validate() error {
	if len(r.Metadata) == 0 {
		return invalidf("metadata: name at least one key to set, or to remove with the empty value")
	}
	return r.Metadata.Validate("metadata")
}

// Merge returns m with patch applied as UpdateRequest.Metadata says, or
// EInvalid if the result would hold more than MaxMetadataKeys keys. It
// changes neither m nor patch; the result is nil when no key is left.
func (m Metadata) Merge(patch Metadata) (Metadata, error) {
	out := maps.Clone(m)
	for k, v := range patch {
		if v == "" {
			delete(out, k)
			continue
		}
		if out == nil {
			out = Metadata{}
		}
		out[k] = v
	}
	if len(out) > MaxMetadataKeys {
		return nil, invalidf("metadata: the update would leave %d keys, at most %d", len(out), MaxMetadataKeys)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
