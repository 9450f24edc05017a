package engine

import (
	"regexp"
	"testing"
	"time"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	format := regexp.MustCompile(`^res_[2-7a-z]{26}$`)
	seen := map[string]bool{}
	prev := ""
	for i := range 2000 {
		id := newID("res")
		if !format.MatchString(id) {
			t.Fatalf("id %q does not match %s", id, format)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		if i%500 == 0 {
			// Ids made a few milliseconds apart sort in the order made.
			time.Sleep(2 * time.Millisecond)
			if prev != "" && id <= prev {
				t.Errorf("id %q made after %q sorts before it", id, prev)
			}
			prev = id
		}
	}
	// The first ten characters are the time in milliseconds.
	before := time.Now().UnixMilli()
	id := newID("ord")[4:14]
	var ms int64
	for _, c := range []byte(id) {
		ms = ms<<5 | int64(indexOf(c))
	}
	if after := time.Now().UnixMilli(); ms < before || ms > after {
		t.Errorf("time part %q is %d ms, want between %d and %d", id, ms, before, after)
	}
}

func indexOf(c byte) int {
	for i := range len(idAlphabet) {
		if idAlphabet[i] == c {
			return i
		}
	}
	return -1
}
