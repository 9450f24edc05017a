package stockade

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Metadata is a shop's own data on a reservation or an order: a flat map
// of strings, set when it is made, returned in every view and event of it,
// and usable to filter lists (ListQuery.Metadata). It ties a reservation
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
