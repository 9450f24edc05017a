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
