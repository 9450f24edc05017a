package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Readying new seats
//
// An event is often put on sale as soon as its map is put. Until
// autovacuum reaches the seats table, which takes a minute or more, the
// planner has no statistics of the new event's seats and no visibility
// map of their pages: it reads every seat of the event where a statement
// names a few, and reads the free seats from the table rather than from
// seats_free alone. So a transaction that puts vacuumSeatsAt seats or
// more has the table vacuumed and analyzed once it commits, in the
// background (VACUUM cannot run in a transaction), as autovacuum would
// later. One VACUUM runs at a time; puts that commit meanwhile have one
// more run after it.

const (
	// vacuumSeatsAt is how many seats one transaction puts from which the
	// seats table is vacuumed after it commits.
	vacuumSeatsAt = 1000
	// vacuumTimeout bounds one VACUUM.
	vacuumTimeout = 5 * time.Minute
)

// upkeep vacuums and analyzes the seats table after large puts.
type upkeep struct {
	pool   *pgxpool.Pool
	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running bool // a vacuum runs
	again   bool // seats were put while it ran
	closed  bool
}

func newUpkeep(pool *pgxpool.Pool) *upkeep {
	ctx, cancel := context.WithCancel(context.Background())
	return &upkeep{pool: pool, ctx: ctx, cancel: cancel}
}

// seatsPut has the seats table vacuumed soon: a transaction that put
// many seats committed.
func (u *upkeep) seatsPut() {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case u.closed:
	case u.running:
		u.again = true
	default:
		u.running = true
		u.wg.Add(1)
		go u.vacuum()
	}
}

func (u *upkeep) vacuum() {
	defer u.wg.Done()
	for {
		ctx, cancel := context.WithTimeout(u.ctx, vacuumTimeout)
		// A vacuum that fails (the role may not own the table) leaves the
		// table to autovacuum, as it would be without this one.
		_, _ = u.pool.Exec(ctx, "VACUUM (ANALYZE) seats")
		cancel()
		u.mu.Lock()
		if !u.again || u.closed {
			u.running = false
			u.mu.Unlock()
			return
		}
		u.again = false
		u.mu.Unlock()
	}
}

// close stops a vacuum that runs and waits for it.
func (u *upkeep) close() {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	u.cancel()
	u.wg.Wait()
}
