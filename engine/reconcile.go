package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/stockade/stockade"
)

// Report is the outcome of Reconcile.
type Report struct {
	// OK is true when every level's counters equal the sums of its ledger
	// rows, its reserved and committed equal what the records hold, and
	// no ledger rows or records belong to a level that does not exist.
	OK bool `json:"ok"`
	// Levels is how many levels were compared.
	Levels int `json:"levels"`
	// Mismatches lists every level that does not balance, in key order.
	Mismatches []Mismatch `json:"mismatches"`
	// Shows is how many shows were checked, and ShowMismatches what of
	// them does not agree with their seat history; OK is false if there
	// is any. (Their JSON keeps the names it had when a show was called
	// an event.)
	Shows          int            `json:"events"`
	ShowMismatches []ShowMismatch `json:"event_mismatches"`
}

// Mismatch is a level whose counters differ from its ledger's sums or
// from what the records hold.
type Mismatch struct {
	stockade.Key
	// Counters are the level's on hand, reserved and committed; zero for
	// ledger rows or records whose level does not exist.
	Counters stockade.Delta `json:"counters"`
	// Ledger are the sums of the level's ledger rows.
	Ledger stockade.Delta `json:"ledger"`
	// Records are the units the records hold at the level: Reserved by
	// held reservations, Committed by committed orders (OnHand is zero).
	Records stockade.Delta `json:"records"`
	// Missing is true when the ledger or the records name a level that
	// does not exist.
	Missing bool `json:"missing,omitempty"`
}

func (m Mismatch) String() string {
	if m.Missing {
		return fmt.Sprintf("%s: no level, ledger sums %+v, records hold %+v", m.Key, m.Ledger, m.Records)
	}
	return fmt.Sprintf("%s: counters %+v, ledger sums %+v, records hold %+v", m.Key, m.Counters, m.Ledger, m.Records)
}

// balanced reports whether counters agree with the ledger and the records.
func balanced(counters, ledger, records stockade.Delta) bool {
	return counters == ledger && counters.Reserved == records.Reserved && counters.Committed == records.Committed
}

// Reconcile checks every level, in one read transaction (one snapshot):
// its counters must equal the sums of its ledger rows, and its reserved
// and committed what the records hold (the allocations of held
// reservations and of committed orders). It then checks every event's
// seats and areas against their history (see reconcileShows). It
// reports every level and seat that does not balance, and changes
// nothing.
func (e *Engine) Reconcile(ctx context.Context) (Report, error) {
	return run(e, ctx, "reconcile", nil, func(ctx context.Context, c *call) (Report, error) {
		var (
			levels          []stockade.Level
			ledger, records map[stockade.Key]stockade.Delta
		)
		err := c.view(ctx, func(tx stockade.Tx) error {
			var err error
			if levels, err = tx.LevelList(ctx, stockade.LevelQuery{All: true}); err != nil {
				return err
			}
			if ledger, err = tx.MovementSums(ctx); err != nil {
				return err
			}
			records, err = tx.AllocationSums(ctx)
			return err
		})
		if err != nil {
			return Report{}, err
		}
		rep := Report{Levels: len(levels), Mismatches: []Mismatch{}}
		seen := make(map[stockade.Key]bool, len(levels))
		for _, l := range levels {
			k := l.Key()
			seen[k] = true
			counters := stockade.Delta{OnHand: l.OnHand, Reserved: l.Reserved, Committed: l.Committed}
			if !balanced(counters, ledger[k], records[k]) {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Key: k, Counters: counters, Ledger: ledger[k], Records: records[k]})
			}
		}
		orphans := maps.Clone(ledger)
		maps.Copy(orphans, records)
		for _, k := range sortedKeys(orphans) {
			if !seen[k] && (ledger[k] != (stockade.Delta{}) || records[k] != (stockade.Delta{})) {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Key: k, Ledger: ledger[k], Records: records[k], Missing: true})
			}
		}
		slices.SortFunc(rep.Mismatches, func(a, b Mismatch) int { return a.Key.Compare(b.Key) })
		rep.Shows, rep.ShowMismatches, err = e.reconcileShows(ctx, c)
		if err != nil {
			return Report{}, err
		}
		if rep.ShowMismatches == nil {
			rep.ShowMismatches = []ShowMismatch{}
		}
		rep.OK = len(rep.Mismatches) == 0 && len(rep.ShowMismatches) == 0
		return rep, nil
	})
}
