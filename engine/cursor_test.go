package engine

import (
	"encoding/base64"
	"math"
	"testing"

	"github.com/stockade/stockade"
)

func TestMovementCursor(t *testing.T) {
	t.Parallel()
	for _, id := range []int64{1, 2, 255, 256, 1 << 40, math.MaxInt64} {
		c := movementCursor(id)
		got, err := parseMovementCursor(c)
		if err != nil || got != id {
			t.Errorf("parseMovementCursor(movementCursor(%d) = %q) = %d, %v", id, c, got, err)
		}
	}
	if id, err := parseMovementCursor(""); id != 0 || err != nil {
		t.Errorf(`parseMovementCursor("") = %d, %v, want 0, nil (the first page)`, id, err)
	}

	raw := func(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	bad := []struct{ name, cursor string }{
		{"not base64", "not a cursor!"},
		{"padded", movementCursor(1) + "="},
		{"standard alphabet", "bf/////////8"},
		{"short", raw('m', 0, 0, 0, 0, 0, 0, 1)},
		{"long", raw('m', 0, 0, 0, 0, 0, 0, 0, 1, 0)},
		{"other tag", raw('e', 0, 0, 0, 0, 0, 0, 0, 1)},
		{"zero id", raw('m', 0, 0, 0, 0, 0, 0, 0, 0)},
		{"id above MaxInt64", raw('m', 0x80, 0, 0, 0, 0, 0, 0, 0)},
		{"decimal id", "42"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			id, err := parseMovementCursor(tc.cursor)
			if stockade.ErrorCode(err) != stockade.EInvalid {
				t.Errorf("parseMovementCursor(%q) = %d, %v, want an EInvalid refusal", tc.cursor, id, err)
			}
		})
	}
}

// TestMalformedCursorSaysWhatToPass: every list refuses a cursor it did
// not hand out with a message that names the parameter and what its value
// must be.
func TestMalformedCursorSaysWhatToPass(t *testing.T) {
	t.Parallel()
	const want = "cursor: malformed; set cursor to the next_cursor of a previous page of this list, with the same filters, or leave it out for the first page"
	other := skuCursor("tee") // a cursor, of another list
	parsers := []struct {
		name  string
		parse func(string) error
	}{
		{"movements", func(s string) error { _, err := parseMovementCursor(s); return err }},
		{"locations", func(s string) error { _, err := parseLocationCursor(s); return err }},
		{"reservations", func(s string) error { _, _, err := parseListCursor(s, reservationCursorTag); return err }},
	}
	for _, p := range parsers {
		for _, cursor := range []string{"not a cursor!", other} {
			err := p.parse(cursor)
			if stockade.ErrorCode(err) != stockade.EInvalid || stockade.ErrorMessage(err) != want {
				t.Errorf("%s: cursor %q: %v, want %s: %s", p.name, cursor, err, stockade.EInvalid, want)
			}
		}
	}
}

// FuzzMovementCursor checks that a cursor is accepted only in the one
// form movementCursor gives it, so that a row id has one cursor.
func FuzzMovementCursor(f *testing.F) {
	f.Add(movementCursor(1))
	f.Add(movementCursor(math.MaxInt64))
	f.Add("bQAAAAAAAAAB")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseMovementCursor(s)
		switch {
		case err != nil:
			if stockade.ErrorCode(err) != stockade.EInvalid {
				t.Fatalf("parseMovementCursor(%q): %v, want EInvalid", s, err)
			}
		case s == "":
			if id != 0 {
				t.Fatalf(`parseMovementCursor("") = %d`, id)
			}
		case id <= 0 || movementCursor(id) != s:
			t.Fatalf("parseMovementCursor(%q) = %d, whose cursor is %q", s, id, movementCursor(id))
		}
	})
}
