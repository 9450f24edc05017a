package httpapi

import (
	"time"
)

// The JSON documents of the API, in the file of their aggregate. The
// server encodes them and Client decodes them; they are spelled out,
// rather than taken from the domain types, so that the wire format
// changes only on purpose. Here, what they share.

// wireTime is how times go out: UTC, to the microsecond, the precision
// both stores keep, so that a reservation reads the same in the response
// that created it and in every later GET.
func wireTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// each returns f of every item of in, in order: a page's items in the
// other form. It is never nil, so that an empty list is [] in JSON.
func each[S, D any](in []S, f func(S) D) []D {
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// orNone returns the items of in in the other form, or nil if there are
// none.
func orNone[S, D any](in []S, f func(S) D) []D {
	if len(in) == 0 {
		return nil
	}
	return each(in, f)
}
