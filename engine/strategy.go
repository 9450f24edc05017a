package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stockade/stockade"
)

// strategy is how a locking strategy makes a write safe, as planning,
// choosing seats and committing consult it, after the fallbacks for the
// store at hand. New chooses it once, with the lanes the writes take.
type strategy struct {
	// name is what Engine.Strategy reports: the name asked for, and what
	// runs instead if it fell back.
	name string
	// lockLevels: a plan row-locks every level its transaction may write,
	// in key order, before it decides (SELECT … FOR UPDATE), and commits
	// them in one statement.
	lockLevels bool
	// advisory: a plan takes the store's advisory locks on those levels
	// first, and the writes still check each level as they go.
	advisory bool
	// versioned: a write to a level that gives stock checks the version
	// its plan read; a changed level is a conflict, and the transaction is
	// retried.
	versioned bool
	// leases: a transaction first takes lock.Locker leases, one per SKU
	// for stock and one per show for holds, and fences its writes to
	// levels with their tokens.
	leases bool
	// lockSeats: a hold reads the seats it names with their rows locked,
	// and locks and checks the best-available seats it chose.
	lockSeats bool
	// group: the writes that can be batched queue and are decided in
	// batches (group lanes), a show's holds under its row's lock, on free
	// seats kept between batches.
	group bool
}

// newStrategy returns the strategy named name on a store with features
// f, falling back as the package documentation describes.
func newStrategy(name string, f stockade.Features, haveLocker bool) (strategy, error) {
	const serial = "serialized write transactions"
	s := strategy{name: name}
	fallback := ""
	switch name {
	case Atomic:
	case Optimistic:
		s.versioned = true
	case Lock:
		if !haveLocker {
			return s, errors.New("engine: the lock strategy needs Options.Locker")
		}
		s.leases = true
	case RowLock:
		if f.RowLocks {
			s.lockLevels, s.lockSeats = true, true
		} else {
			fallback = serial + ", the store has no row locks"
		}
	case Batch:
		s.lockLevels, s.group = true, true
	case Advisory:
		switch {
		case f.AdvisoryLocks:
			s.advisory = true
		case f.RowLocks:
			s.lockLevels, s.lockSeats = true, true
			fallback = "rowlock, the store has no advisory locks"
		default:
			fallback = serial + ", the store has no advisory locks"
		}
	default:
		return s, fmt.Errorf("engine: unknown strategy %q (want one of %s)", name, strings.Join(Strategies(), ", "))
	}
	if fallback != "" {
		s.name = name + " (fallback: " + fallback + ")"
	}
	return s, nil
}
