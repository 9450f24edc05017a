// Package sqlite is stockade's embedded store: one SQLite file opened
// through a pure-Go driver (modernc.org/sqlite, no cgo) in WAL mode, so the
// service runs with no server to install. It implements stockade.Store and
// passes storetest.Run.
//
//	s, err := sqlite.Open(ctx, "stockade.db", nil)
//	if err != nil { … }
//	defer s.Close()
//	if err := s.Migrate(ctx); err != nil { … } // serve and migrate call it
//	err = s.Update(ctx, func(tx stockade.Tx) error {
//		l, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: 2}, stockade.Guard{})
//		…
//	})
//
// # Connections
//
// SQLite allows one writer at a time. Every Update runs on a single
// dedicated writer connection and begins with BEGIN IMMEDIATE, so the
// write lock is held from the first statement to COMMIT: concurrent Updates
// queue for that connection in Go, honouring their contexts, instead of
// meeting each other in SQLite's busy handler, and a transaction never
// fails half-way to upgrade a read lock. View runs on a separate pool of
// read-only connections (PRAGMA query_only, so any write in a View fails);
// in WAL mode readers see the last committed state and neither wait for
// the writer nor hold it up. Ping uses a reader too, and so does Peek,
// each of whose statements runs on its own, outside a transaction.
//
// Because each Update holds the whole database, the Lock of every read
// (ByID, ByIDs, ByTarget, LevelQuery, SeatFilter) is ignored, and the lapse
// candidates are read without locks: no other writer can change a row an
// Update has read before it commits.
// Features reports no RowLocks, no AdvisoryLocks (AdvisoryLock returns an
// error wrapping stockade.ErrUnsupported) and no SkipLocked. fn must not
// call Update on the same Store: it would wait for its own connection.
//
// # Guarantees
//
// LevelUpdate is one conditional UPDATE … RETURNING whose WHERE clause
// holds every condition (nothing goes negative, the version, the fence),
// so the check and the write cannot be separated. CHECK constraints keep
// on_hand, reserved and committed at or above zero and available too, and
// triggers keep the movements ledger append-only, whatever statement
// reaches the file. Ledger ids are handed out in commit order, since one
// transaction writes at a time, so paging the ledger by id (the service's
// movements cursor) misses no row, even while writers append. So are the
// positions of events (AUTOINCREMENT seqs, never handed out twice, even
// once EventPrune has deleted the newest): Events returns every committed
// event at once, and a reader that pages by position reads each once.
// Times are stored as Unix microseconds, UTC. Text is compared byte for
// byte (SQLite's BINARY collation), which is the order of
// stockade.Key.Compare.
//
// Bookings (0006_bookings.sql) keep an event in shows (events is the
// outbox), its seats one row each in seats, its general-admission areas'
// counters in areas (CHECK constraints keep held + booked within
// capacity), holds and bookings with their seats and places as JSON, and
// the append-only seat_history (triggers refuse UPDATE and DELETE);
// seat_epochs (0007_seat_epochs.sql) keeps each event's seat epoch, and
// seat_epoch_changes (0020_seat_epoch_changes.sql) what moved it: the seats
// each epoch's transaction freed and took, as JSON arrays.
// SeatMoveMany is one UPDATE that moves a seat only from the status, hold or
// booking its move names, so the check and the write cannot be separated
// either.
//
// Orders keep what they have shipped as JSON beside their allocations,
// and shipments one row per part of an order that left, indexed for an
// order's list (0019_shipments.sql).
//
// Payments (0008_payments.sql) keep one row per payment, with at most one
// per target (a unique constraint on its kind and id: a second insert
// fails with an error wrapping stockade.ErrConflict, as on PostgreSQL),
// the append-only payment_changes (triggers refuse UPDATE and DELETE) and
// payment_inbox, the ids of the outcomes applied. ReservationLapseCandidates
// and HoldLapseCandidates read each candidate's payment status in the same
// statement as the candidate; as for everything an Update reads, it stays
// true until the Update commits. Which candidates lapse is the engine's
// rule, not the store's.
//
// Commits are durable against a crash of the process; with
// synchronous=NORMAL, the last transactions before a power loss may be
// lost, never half-applied.
//
// # Failure modes
//
// The one busy error left is another process holding the file's write
// lock (a second stockade on the same file, a backup) for longer than
// Options.BusyTimeout; it, and SQLITE_LOCKED, wrap stockade.ErrConflict so
// the engine retries. A file that cannot be opened or read (SQLITE_CANTOPEN,
// SQLITE_IOERR: its directory moved, a disk failing) wraps
// stockade.ErrUnavailable, which the engine answers with EUnavailable
// (HTTP 503). Missing rows are *stockade.Error with ENotFound where
// stockade.Tx says so; LevelSetOnHand refuses a negative quantity with EInvalid
// and one below reserved + committed with EInsufficientStock. Other errors
// say where they happened ("sqlite: update level sku@loc: …"). An
// in-memory database (":memory:") is refused: its connections would not
// share it.
//
// # Migrations
//
// The schema lives in migrations/NNNN_name.sql and the statements in
// queries/, one per file, all embedded in the binary.
// Migrate applies those not yet recorded in schema_migrations, each in its
// own transaction with its record; it is a no-op when the schema is up to
// date and refuses a database migrated by a newer binary. Open does not
// migrate. SchemaVersion says how far a database has been migrated, 0 for
// one without the schema; with Options.ReadOnly, Open and SchemaVersion
// neither create the file nor write to it.
package sqlite
