// Package storetest is the conformance suite for stockade.Store
// implementations. The sqlite and postgres stores both run it from their
// tests, so that the engine can rely on one contract whichever store it is
// given: the documentation of stockade.Store and stockade.Tx, made precise
// where the prose leaves a choice.
//
// # Using it
//
// Call Run from a test with a function that returns a fresh, migrated,
// empty store and registers its clean-up on the t it is given:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) stockade.Store {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), nil)
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			if err := s.Migrate(t.Context()); err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// A store on a server creates a database per call, best copied from one
// migrated once (CREATE DATABASE … TEMPLATE). Run calls newStore once per
// subtest, and the subtests run in parallel (t.Parallel), each on its own
// store, so newStore must be safe for concurrent use; `go test -run
// 'Store/ReservationLapseCandidates'` runs one part.
//
// # What it pins down
//
// Beyond the documented behaviour of each Tx method, the suite fixes these
// choices, which a store must make the same way:
//
//   - Order is byte order (Go's string comparison, Key.Compare), for
//     locations, levels and the keys locks are taken in. The fixtures mix
//     cases and punctuation, so a natural-language collation fails; on
//     PostgreSQL use COLLATE "C".
//   - Times come back in UTC and equal what was stored to the millisecond
//     or better. Boundaries are strict: a reservation that expires exactly
//     at a lapse query's bound is not its candidate, and IdempotencyPurge
//     keeps a record created exactly at before. Lapse candidates come by
//     expiry, then by id in byte order; a cursor is strict on both. Which
//     candidates lapse is the engine's rule, tested there, not here.
//   - A new level has a version above 0 (a missing level counts as 0), and
//     every write raises it. LevelSetOnHand refuses a negative quantity with
//     EInvalid and one below reserved + committed with EInsufficientStock,
//     both *stockade.Error, changing nothing.
//   - ReservationSetStatus and OrderSetStatus on an unknown id return
//     false and no error. Inserting a reservation or order whose id exists
//     fails. A status or state outside the domain's constants is refused
//     with EInvalid.
//   - Fencing tokens are stored as signed 64-bit integers: LevelUpdate
//     refuses a fence above math.MaxInt64 with EInvalid.
//   - Movements with Limit 0 returns at most 1000 rows; MovementAppend
//     ignores the IDs it is given. Walking the ledger a page at a time,
//     each page after the last id of the one before, reads every row once,
//     in id order, with or without a filter (MovementPages); while writers
//     append, such a walk never reads a row twice nor out of order, and
//     once they stop it reads every row (MovementPagesWhileAppending).
//   - In an Update, reading an idempotency key and then putting a record
//     for it is atomic: of many requests racing to claim a key that way,
//     exactly one succeeds (IdempotencyClaim).
//   - ReservationList and OrderList sort newest first, records created
//     at the same time in descending byte order of their ids; CreatedAfter
//     is inclusive, CreatedBefore and the cursor strict. Walking a list a
//     page at a time, each page's cursor the created_at and id of the last
//     row of the one before, reads every row once, in order.
//   - Owner and Actor read back as they were written by every read of a
//     reservation, an order or a movement; "" is stored as "".
//   - KeyInsert refuses an id or a name in use, byte for byte, with an
//     error wrapping stockade.ErrConflict on every store, and a role
//     outside stockade.Roles or a negative rate limit with EInvalid. Key
//     of an unknown id is ENotFound, `api key "id" not found`. Keys pages
//     in byte order of ids. RevokeKey reports true once: revoking a
//     revoked key keeps its first time and returns false.
//   - Events come back as they were appended, their payloads as equivalent
//     JSON (an empty payload as null), in the order of their positions,
//     which strictly increase: within a call to EventAppend in its order,
//     across transactions in commit order. Filters combine with AND, Types
//     matching any of its types. Walking the events a page at a time, each
//     page after the last position of the one before, reads every event
//     once, in order. EventPrune deletes only events strictly before its
//     time, at most limit (none for a limit below 1), oldest At first
//     whatever their positions, and returns how many; a position is never
//     handed out again once its event is gone. An event id in use is
//     refused with an error wrapping stockade.ErrConflict, a payload that
//     is not JSON with EInvalid.
//   - EventLatestPosition, the head, is at or after every event readable
//     when it is taken, so Events reads nothing after it then, and before
//     every event that becomes readable later: those appended since, and
//     those of a transaction that was open when it was taken. The head of
//     an empty store is before the first events.
//   - A store may hold back a committed event while a transaction that
//     could still commit one before it is running (on PostgreSQL, any
//     older write transaction of the server): the tests wait for the
//     events they committed to become readable instead of expecting them
//     at once, and fail only if that takes 30 seconds.
//   - A room reads back field for field, AdmissionTTL to the microsecond
//     and Credit and StockFactor exactly; RoomGet of an unknown id is
//     ENotFound, `room "id" not found`, RoomUpdate of one false and no
//     error. RoomList pages in byte order of ids. RoomUpdate holds and
//     lets go the targets the room was stored with, whatever the ShowID
//     and SKUs it is given, and a refused insert or update (a target held,
//     an id, visitor or position in use: stockade.ErrConflict) leaves
//     nothing once its transaction rolls back. RoomVisitorDraw gives the
//     positions after+1, after+2, …; RoomVisitorAdmit and
//     RoomVisitorActivity are strict at the lower bound (a position equal
//     to After is not admitted, an admission that ends at now is not in
//     force). A list or set of visitors that holds none may be nil or
//     empty.
//   - Every write inside View fails, whatever the store does to enforce it.
//   - A View neither waits for an Update in progress nor sees its
//     uncommitted writes.
//
// Features are checked as the store declares them: AdvisoryLock must
// return an error wrapping stockade.ErrUnsupported unless AdvisoryLocks is
// set, and must then exclude other transactions locking the same key;
// SkipLocked is tested only when declared. Reads with lock must exclude
// each other until commit whatever RowLocks says: a store without row locks
// satisfies that by running one write transaction at a time.
//
// # Concurrency
//
// ConcurrentReserve has 32 goroutines reserve one unit at a time from a
// level of 100 until refused: exactly 100 must succeed, and the counters
// must equal the ledger's sums. Wherever transactions run concurrently, an
// error wrapping stockade.ErrConflict is legal and retried, as the engine
// retries it; any other error fails the test. The exception is
// OppositeOrder, in which two goroutines lock two SKUs in key order with
// LevelList and then update them in opposite orders: with RowLocks, it
// fails on any conflict, since a deadlock the database detects and breaks
// is still a deadlock. Without RowLocks it proves nothing, and says so.
//
// EventsCommitOrder is the outbox's race: transaction A appends an event
// and stays open; B, begun after it, appends one and commits. A reader
// must not read B's event while A is open (it would go on after B's
// position and skip A's), and reads A's then B's once A commits; a reader
// ordered by a sequence taken at insert fails it. EventsWhileAppending has
// 20 writers append events, some rolling back, while four readers page by
// position: each must read every committed event exactly once, in order,
// and no rolled-back one. Without RowLocks, writers run one at a time and
// both hold trivially.
//
// # Timing
//
// The suite runs in seconds on SQLite. Every wait is bounded by 30 seconds
// only to turn a hang into a failure; the tests that look for overlapping
// lock holders sleep a few milliseconds inside each transaction to give an
// overlap the chance to show, but no result depends on how fast a store
// is. Run it with -race.
package storetest
