package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/stockade/stockade"
)

// Report is the outcome of Reconcile.
type Report struct {
	// OK is true when every level's counters equal the sums of its ledger
	// rows and no ledger rows belong to a level that does not exist.
	OK bool `json:"ok"`
	// Levels is how many levels were compared.
	Levels int `json:"levels"`
	// Mismatches lists every level that does not balance, in key order.
	Mismatches []Mismatch `json:"mismatches"`
}

// Mismatch is a level whose counters differ from its ledger's sums.
type Mismatch struct {
	stockade.Key
	// Counters are the level's on hand, reserved and committed; zero for
	// ledger rows whose level does not exist.
	Counters stockade.Delta `json:"counters"`
	// Ledger are the sums of the level's ledger rows.
	Ledger stockade.Delta `json:"ledger"`
	// Missing is true when the ledger has rows for a level that does not
	// exist.
	Missing bool `json:"missing,omitempty"`
}

func (m Mismatch) String() string {
	if m.Missing {
		return fmt.Sprintf("%s: no level, ledger sums %+v", m.Key, m.Ledger)
	}
	return fmt.Sprintf("%s: counters %+v, ledger sums %+v", m.Key, m.Counters, m.Ledger)
}

// Reconcile recomputes every level's counters from the ledger, in one
// read transaction (one snapshot), and reports every level that does not
// balance. It changes nothing.
func (e *Engine) Reconcile(ctx context.Context) (Report, error) {
	return run(e, ctx, "reconcile", false, func(ctx context.Context, c *call) (Report, error) {
		var (
			levels []stockade.Level
			sums   map[stockade.Key]stockade.Delta
		)
		err := c.view(ctx, func(tx stockade.Tx) error {
			var err error
			if levels, err = tx.AllLevels(ctx); err != nil {
				return err
			}
			sums, err = tx.LedgerSums(ctx)
			return err
		})
		if err != nil {
			return Report{}, err
		}
		rep := Report{Levels: len(levels), Mismatches: []Mismatch{}}
		seen := make(map[stockade.Key]bool, len(levels))
		for _, l := range levels {
			seen[l.Key()] = true
			counters := stockade.Delta{OnHand: l.OnHand, Reserved: l.Reserved, Committed: l.Committed}
			if sums[l.Key()] != counters {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Key: l.Key(), Counters: counters, Ledger: sums[l.Key()]})
			}
		}
		for _, k := range sortedKeys(sums) {
			if !seen[k] && sums[k] != (stockade.Delta{}) {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Key: k, Ledger: sums[k], Missing: true})
			}
		}
		slices.SortFunc(rep.Mismatches, func(a, b Mismatch) int { return a.Key.Compare(b.Key) })
		rep.OK = len(rep.Mismatches) == 0
		return rep, nil
	})
}
