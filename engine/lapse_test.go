package engine

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestLapse is the rule of lapse, for every payment status: which held
// targets lapse, and which payments are stuck.
func TestLapse(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 3, 14, 15, 9, 26, 0, time.UTC)
	const grace = 10 * time.Minute
	const (
		pending    = stockade.PaymentPending
		processing = stockade.PaymentProcessing
		authorized = stockade.PaymentAuthorized
	)
	type lapseCase struct {
		name       string
		expires    time.Duration // from now
		payment    stockade.PaymentStatus
		foundStuck bool
		lapses     bool
		stuck      bool
	}
	tests := []lapseCase{
		{name: "not expired", expires: time.Minute},
		{name: "expires at now: not before it", expires: 0},
		{name: "expired a microsecond ago", expires: -time.Microsecond, lapses: true},
		{name: "expired, no payment", expires: -time.Hour, lapses: true},
		{name: "expired, pending", expires: -time.Hour, payment: pending, lapses: true},
		{name: "expired, processing: kept", expires: -time.Minute, payment: processing},
		{name: "expired, authorized: kept", expires: -time.Minute, payment: authorized},
		{name: "processing, grace not over", expires: -grace + time.Second, payment: processing},
		{name: "processing, expired grace ago exactly", expires: -grace, payment: processing},
		{name: "processing past the grace: stuck", expires: -grace - time.Microsecond, payment: processing, stuck: true},
		{name: "authorized past the grace: stuck", expires: -time.Hour, payment: authorized, stuck: true},
		{name: "found stuck already: kept, not stuck again", expires: -time.Hour, payment: processing, foundStuck: true},
		{name: "found stuck, then authorized: kept", expires: -time.Hour, payment: authorized, foundStuck: true},
		{name: "pending past the grace: lapses, never stuck", expires: -time.Hour, payment: pending, lapses: true},
		{name: "not expired, processing", expires: time.Hour, payment: processing},
	}
	for _, s := range []stockade.PaymentStatus{stockade.PaymentSucceeded, stockade.PaymentCaptured, stockade.PaymentFailed,
		stockade.PaymentCancelled, stockade.PaymentRefunded} {
		// Settled ones keep nothing (their target is no longer held once
		// they apply, but the rule does not depend on it).
		tests = append(tests, lapseCase{name: "expired, " + string(s), expires: -time.Hour, payment: s, lapses: true})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := lapse{expiresAt: now.Add(tc.expires), payment: tc.payment, foundStuck: tc.foundStuck}
			if got := l.lapses(now); got != tc.lapses {
				t.Errorf("%+v lapses(now) = %v, want %v", l, got, tc.lapses)
			}
			if got := l.stuck(now, grace); got != tc.stuck {
				t.Errorf("%+v stuck(now, %v) = %v, want %v", l, grace, got, tc.stuck)
			}
			if l.lapses(now) && l.stuck(now, grace) {
				t.Errorf("%+v both lapses and is stuck", l)
			}
		})
	}
}

// TestPageLapsed: kept candidates never use up the limit, however many
// come before a lapsed one; a short page ends the search; an error ends
// it at once.
func TestPageLapsed(t *testing.T) {
	t.Parallel()
	base := time.Date(2031, 3, 14, 15, 0, 0, 0, time.UTC)
	// Candidates by expiry, one a minute: "k" kept, "l" lapsed.
	store := func(kinds string) []candidate[string] {
		var cs []candidate[string]
		for i, k := range kinds {
			id := string([]rune{k, rune('a' + i)})
			cs = append(cs, candidate[string]{target: id, lapse: lapse{expiresAt: base.Add(time.Duration(i) * time.Minute)},
				at: stockade.LapseCursor{ExpiresAt: base.Add(time.Duration(i) * time.Minute), ID: id}})
			if k == 'k' {
				cs[i].lapse.payment = stockade.PaymentProcessing
			}
		}
		return cs
	}
	now := base.Add(time.Hour)
	tests := []struct {
		name  string
		kinds string
		limit int
		want  []string
		pages int
	}{
		{"a lapsed one behind more kept ones than the limit", "kkkkkl", 2, []string{"lf"}, 4},
		{"lapsed ones among kept ones", "klkkllk", 2, []string{"lb", "le"}, 3},
		{"the limit reached within a page", "llll", 3, []string{"la", "lb", "lc"}, 1},
		{"the limit reached at a page's end", "klkl", 2, []string{"lb", "ld"}, 2},
		{"a page of the limit, then an empty one", "kk", 2, nil, 2},
		{"only kept ones", "kkkkk", 2, nil, 3},
		{"none", "", 2, nil, 1},
		{"no limit: one page", "kklkl", 0, []string{"lc", "le"}, 1},
		{"a limit of one", "kkkl", 1, []string{"ld"}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := store(tc.kinds)
			pages := 0
			got, err := pageLapsed(tc.limit, func(after stockade.LapseCursor) ([]candidate[string], error) {
				pages++
				var out []candidate[string]
				for _, c := range all {
					if c.at.ExpiresAt.After(after.ExpiresAt) || c.at.ExpiresAt.Equal(after.ExpiresAt) && c.at.ID > after.ID {
						out = append(out, c)
					}
				}
				if tc.limit > 0 && len(out) > tc.limit {
					out = out[:tc.limit]
				}
				return out, nil
			}, func(l lapse) bool { return l.lapses(now) })
			if err != nil || !slices.Equal(got, tc.want) || pages != tc.pages {
				t.Errorf("pageLapsed = %q, %v after %d pages; want %q after %d", got, err, pages, tc.want, tc.pages)
			}
		})
	}

	errStore := errors.New("store failed")
	got, err := pageLapsed(2, func(stockade.LapseCursor) ([]candidate[string], error) { return nil, errStore },
		func(lapse) bool { return true })
	if !errors.Is(err, errStore) || got != nil {
		t.Errorf("pageLapsed on a failing store = %q, %v; want its error", got, err)
	}
}
