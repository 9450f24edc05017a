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
// free_seats' index alone. So a transaction that puts vacuumSeatsAt seats or
// more has the table vacuumed and analyzed once it commits, in the
// background (VACUUM cannot run in a transaction), as autovacuum would
// later. One VACUUM runs at a time; puts that commit meanwhile have one
// more run after it.

// Analyzing grown levels
//
// pgx prepares each statement once per connection, and after five runs
// PostgreSQL may keep one generic plan for it, made for the table as the
// statistics describe it and kept until an ANALYZE of the table. Made
// while the levels were few (a new shop's first stock: SetStock reads
// them), the plan of the statements that take a transaction's keys as
// arrays (Levels, LevelUpdateMany) is a hash join over a sequential scan of
// every level; as the table grows to 10,000 SKUs it cost a checkout
// 24.7 ms of the server's CPU. Autovacuum would analyze the table in a
// minute or so, if it runs. So the store counts the levels it creates,
// and once they are analyzeLevelsAt or more and a tenth of the table
// analyzed last, it analyzes the levels table in the background, which
// replans those statements on every connection. One ANALYZE runs at a
// time. Planning each call for its arguments instead cost a rowlock
// checkout a third more of the server's CPU.

const (
	// vacuumSeatsAt is how many seats one transaction puts from which the
	// seats table is vacuumed after it commits.
	vacuumSeatsAt = 1000
	// vacuumTimeout bounds one VACUUM or ANALYZE.
	vacuumTimeout = 5 * time.Minute
	// analyzeLevelsAt is the fewest levels created, since the levels
	// table was last analyzed, that have it analyzed again.
	analyzeLevelsAt = 500
)

// upkeep vacuums and analyzes the seats table after large puts, and
// analyzes the levels table as it grows.
type upkeep struct {
	pool   *pgxpool.Pool
	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running bool // a vacuum runs
	again   bool // seats were put while it ran
	closed  bool

	// The levels table.
	analyzing bool    // an ANALYZE runs
	added     int     // levels created since the running or last ANALYZE began
	analyzed  float64 // the rows the last ANALYZE counted
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
		_, _ = u.pool.Exec(ctx, "VACUUM (ANALYZE) seats, free_seats")
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

// levelsAdded counts n levels created by a transaction that committed,
// and has the levels table analyzed once they are enough.
func (u *upkeep) levelsAdded(n int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.added += n
	if u.closed || u.analyzing || !u.levelsGrown() {
		return
	}
	u.analyzing = true
	u.wg.Add(1)
	go u.analyzeLevels()
}

// levelsGrown says whether the levels created since the last ANALYZE
// call for another. u.mu is held.
func (u *upkeep) levelsGrown() bool {
	return u.added >= analyzeLevelsAt && float64(u.added) >= u.analyzed/10
}

func (u *upkeep) analyzeLevels() {
	defer u.wg.Done()
	for {
		u.mu.Lock()
		u.added = 0
		u.mu.Unlock()
		ctx, cancel := context.WithTimeout(u.ctx, vacuumTimeout)
		// An ANALYZE that fails (the role may not own the table) leaves
		// the table to autovacuum, as it would be without this one.
		var rows float64
		_, err := u.pool.Exec(ctx, "ANALYZE levels")
		if err == nil {
			err = u.pool.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'levels'::regclass").Scan(&rows)
		}
		cancel()
		u.mu.Lock()
		if err == nil {
			u.analyzed = rows
		}
		if u.closed || !u.levelsGrown() {
			u.analyzing = false
			u.mu.Unlock()
			return
		}
		u.mu.Unlock()
	}
}

// close stops a VACUUM or ANALYZE that runs and waits for it.
func (u *upkeep) close() {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	u.cancel()
	u.wg.Wait()
}
