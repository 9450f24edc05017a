// Package postgres is stockade's PostgreSQL store: a stockade.Store over a
// pgx connection pool, for running several service instances on one
// database. It offers every locking primitive the strategies use: row
// locks, advisory locks and SKIP LOCKED.
//
//	s, err := postgres.Open(ctx, "postgres://stockade@db/stockade", &postgres.Options{MaxConns: 32})
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	if err := s.Migrate(ctx); err != nil { // safe from every instance at once
//		return err
//	}
//	err = s.Update(ctx, func(tx stockade.Tx) error {
//		_, ok, err := tx.LevelUpdate(ctx, key, stockade.Delta{Reserved: 2}, stockade.Guard{})
//		if err != nil || !ok { // ok is false when fewer than 2 are available
//			return …
//		}
//		return tx.MovementAppend(ctx, stockade.Movement{SKU: key.SKU, Location: key.Location,
//			Kind: stockade.MoveReserve, Delta: stockade.Delta{Reserved: 2}, Ref: id})
//	})
//	// errors.Is(err, stockade.ErrConflict): retry the whole function
//
// The SQL is in the package's .sql files: migrations/ for the schema,
// queries/ for the statements.
//
// # Schema
//
// Migrate applies the embedded migrations/NNNN_name.sql files that the
// schema_migrations table does not list, each in its own transaction after
// taking an advisory lock on a fixed id, so instances that start together
// apply each exactly once. Open does not migrate. SchemaVersion says, and
// only reads, how far a database has been migrated: 0 without the schema.
//
//   - locations (id, name, lat, lon).
//   - levels (sku, location → locations, on_hand, reserved, committed,
//     version, fence), keyed by (sku, location). CHECK constraints keep
//     every counter and available = on_hand − reserved − committed at zero
//     or above, whatever writes to the table. fence is bigint: fencing
//     tokens are uint64 in Go, and LevelUpdate refuses one at or above
//     2⁶³ (every lock backend's tokens are int64 anyway).
//   - movements, the ledger: a bigserial id, at, sku, location, kind, the
//     three deltas, ref and reason; indexed for each filter of Movements.
//     A trigger refuses UPDATE and DELETE. Ids are given out in insertion
//     order but become visible in commit order, so a reader paging with
//     AfterID (the service's movements cursor) while writers commit can
//     miss a row that commits late with a smaller id; reconciliation uses
//     MovementSums, which has no such gap.
//   - reservations (lines and allocations as jsonb, read back whole) and
//     reservation_allocations, one row per allocation, indexed by (sku,
//     location) for the sweeper's key filter; a partial index on the
//     expiry of held reservations.
//   - orders, with at most one order per reservation (a unique index),
//     and what each has shipped as jsonb (0019_shipments.sql); shipments,
//     one row per part of an order that left, indexed on (order_id,
//     created_at, id) for an order's list.
//   - idempotency (key, request_hash, state, status, body bytea,
//     created_at), indexed on created_at for purging.
//   - events, the outbox (0004_events.sql): the writing transaction's id
//     (xid8, pg_current_xact_id()) and a bigserial seq, which together
//     are an event's position and its primary key; id (unique), type,
//     aggregate, aggregate_id, version, at, and the payload as json, kept
//     as written. Indexed on (aggregate_id, xid, seq) and on at, for
//     pruning; type and aggregate are filtered, not indexed.
//   - shows, the events of bookings (0006_bookings.sql; events is the
//     outbox): id, name, focal_x, focal_y, the seat map as given (json:
//     the rows and the areas' names, categories and capacities, read back
//     whole), created_at and version.
//   - seats (show_id → shows, id, section, row, label, ord, category,
//     accessible, x, y, status, hold_id, booking_id), keyed by (show_id,
//     id), indexed in seat order on (show_id, section, row, ord). Every
//     statement that locks seats takes them in seat order: SeatList with Lock
//     (ORDER BY … FOR UPDATE), and SeatMoveMany, one UPDATE … FROM unnest of
//     the moves that first locks the seats it names. The free seats are
//     also listed alone, in seat order with their ids, in the table
//     free_seats (0022_free_seats.sql), which SeatFreeIDs reads from its
//     primary key alone and each write of seats keeps in its own
//     statements; no index of seats holds the status, so a seat's move
//     is a HOT update when its page has room.
//   - areas (show_id → shows, name, category, capacity, held, booked),
//     keyed by (show_id, name). CHECK constraints keep held and booked at
//     zero or above and their sum within the capacity. AreaPut locks the
//     areas and checks them first, so a capacity below what is taken is
//     refused with EInvalidState without failing a statement.
//   - holds and bookings, their seats and places as jsonb, read back
//     whole; no foreign key to shows, which would share-lock the event's
//     row at every insert. A partial index on the expiry of held holds
//     for HoldLapseCandidates (FOR UPDATE SKIP LOCKED without an event);
//     at most one booking per hold (a unique index).
//   - seat_history, append-only like movements (a trigger refuses UPDATE
//     and DELETE): a bigserial id, at, show_id, seat, area, quantity,
//     from_status, to_status, hold_id, booking_id and actor; indexed on
//     (show_id, seat, id).
//   - seat_epochs (0007_seat_epochs.sql): show_id and epoch, the number
//     SeatEpochGet reads (with the show's version and its held holds'
//     earliest expiry), SeatEpochBump bumps, and SeatMoveMany bumps when
//     it frees seats;
//     a row apart from the event's, without a foreign key, so that a
//     transaction that frees seats never waits for a hold batch's lock on
//     the event's row. seat_epoch_changes (0020_seat_epoch_changes.sql)
//     records under each epoch the seats its transaction freed and took
//     (text[] columns), in the bump's own statement, which also forgets
//     the show's changes stockade.SeatEpochKept epochs older.
//   - payments (0008_payments.sql): one row per payment, with at most one
//     per target, a unique constraint on (target_kind, target_id). A
//     second insert for a target, from any instance, waits for the first
//     at the constraint and then fails with a unique violation, which
//     wraps stockade.ErrConflict. Indexed for each filter of
//     PaymentList. The lapse candidates look a target's payment up by the
//     unique constraint; PaymentLapseCandidates starts from the held
//     targets past their expiry. (0010_drop_payments_in_flight.sql drops
//     the partial index of the payments in flight that 0008 made: which
//     statuses are in flight is the engine's rule.)
//   - payment_changes, the payments' history, append-only like movements
//     (a trigger refuses UPDATE and DELETE), with a foreign key to
//     payments; and payment_inbox, the ids of the outcomes applied,
//     indexed on received_at for purging. OutcomeInsert is one INSERT …
//     ON CONFLICT DO NOTHING, which waits for a transaction inserting one
//     of the ids and inserts nothing for it if that one commits.
//
// Events reads only the events of transactions older than the oldest one
// still running when its snapshot was taken (pg_snapshot_xmin), in (xid,
// seq) order. Those have all ended, and any transaction that writes later
// gets a higher id, so a reader that pages by the last position it read
// never misses an event that commits late, nor reads one twice; a seq
// alone, handed out at insert but made visible at commit, would skip it.
// The cost is latency, not loss: an event waits until every write
// transaction of the server (xids are the server's, not the database's)
// that took an id before its own has ended, so one long write transaction
// holds every reader back. In an Update that has written, Events reads
// nothing after its own first write.
//
// EventLatestPosition, where a reader starts that wants only what comes
// next, is just below xmin: (xmin - 1, the largest seq). Every event
// readable now is at or before it, every transaction at or above xmin
// (running now, or yet to take an id) writes after it, so the reader
// reads each event that becomes readable from then on, even one that had
// committed but was held back by an older transaction.
//
// A store announces its commits of events on the channel stockade_events
// and listens there (stockade.EventSignaler), so that readers of events
// on every instance wake when any of them writes. The announcement is a
// NOTIFY of its own after the commit, not one inside the transaction:
// PostgreSQL takes one database-wide lock at the commit of every
// transaction that notifies, and that would serialise commits that share
// no row. A store has one announcement in flight at a time, a few
// milliseconds apart at least, however many transactions commit, and
// listens on one connection of its own outside the pool (application_name
// "stockade events listener"), reconnecting when it breaks. An
// announcement that is lost (the process died after its commit) delays
// readers until their next poll; it loses nothing.
//
// A transaction that puts 1,000 seats or more (an event's new map) has
// the seats table vacuumed and analyzed in the background once it
// commits, one VACUUM at a time, stopped by Close: an event is often put
// on sale at once, and until autovacuum reaches the table the planner
// knows neither the new seats' numbers nor which pages are all visible,
// and reads every seat of the event where a hold needs a few. A VACUUM
// that fails (a role that does not own the table) leaves the table to
// autovacuum.
//
// Likewise the levels table is analyzed in the background once the
// levels a store created since the last ANALYZE are 500 or more and a
// tenth of the table. pgx prepares each statement per connection, and
// PostgreSQL may keep a generic plan made while the table was small
// until the table is analyzed: for the statements that take a
// transaction's keys as arrays, a scan of every level, each call.
//
// Identifiers are text in the "C" collation, so ORDER BY sorts them byte by
// byte, as stockade.Key.Compare does, whatever the database's locale.
// Times are timestamptz: microsecond precision, returned in UTC.
//
// # Transactions and locking
//
// Update runs in a READ COMMITTED read-write transaction. That is what the
// strategies need: each statement sees what committed before it started,
// LevelUpdate checks and writes in one conditional UPDATE (a concurrent
// writer of the row makes it wait, then re-check its condition on the new
// row), row locks and advisory locks serialize the rest, and no
// serialization failure is ever raised. View runs in a REPEATABLE READ
// read-only transaction: all its reads see one snapshot, without locks.
// Peek runs each statement in a read-only transaction of its own, sent
// with its BEGIN and COMMIT as one pipeline: one round trip where a View
// of one statement takes three (the engine peeks at a sold-out show's
// seat epoch to refuse its crowd).
//
// LevelList with Lock runs SELECT … ORDER BY sku, location FOR
// UPDATE, which locks rows in that order: key order, the one global order
// in which every strategy takes its locks, so two transactions never wait
// on each other in a cycle. ReservationLapseCandidates takes held
// reservations past their expiry, oldest expiry first, with FOR UPDATE
// SKIP LOCKED, so sweepers on several instances take disjoint sets and
// never wait; with keys (a request's) it locks nothing, and the engine
// locks and checks again the ones that lapse, so that a reservation kept
// by its payment is never locked by the requests for its stock. It and
// HoldLapseCandidates read the status of each candidate's payment in a
// second statement, once the sweeper's variant has locked its rows.
// Which candidates lapse is not the store's to say: the engine decides.
// AdvisoryLock takes pg_advisory_xact_lock on each key's LockID (a
// SHA-256-based 64-bit hash), in the order of the ids; two keys whose ids
// collide share a lock, which only serializes them more.
//
// Idempotency, in a read-write transaction, first takes an advisory lock
// on the key, so that reading a key and then claiming it with
// IdempotencyPut is atomic across instances, as it is on SQLite. When it
// finds a record, it also writes a logical decoding message (see Durable
// commits).
//
// When a context ends during a statement, Open's pool cancels the
// statement on the server with a cancel request, sent at once: a
// transaction waiting for a lock leaves the queue, and its connection,
// rolled back, goes back to the pool. (pgx's default cuts the connection,
// so a burst of request timeouts would become a burst of reconnections.)
// A statement that has not ended Options.CancelGrace later has its
// connection cut, whether or not the cancel request got through: a server
// that has gone silent (packets dropped, no reset) cannot hold a call
// past that. A failed transaction then rolls back on the connection it
// has, until its context's deadline but for at least CancelGrace, so that
// a server that answers gets the connection back clean; a connection that
// was cut fails the rollback at once.
//
// COMMIT is the exception: it is never cancelled (see Durable commits),
// and its connection is cut CancelGrace after the context ends.
//
// So an Update or View returns at most 2 × CancelGrace + 100ms after its
// context ends, whatever the server does: CancelGrace for the statement
// in flight or the COMMIT, or for the rollback and then CancelGrace for that statement,
// plus the pause that pgx makes after a cancel request so that it cannot
// hit the connection's next statement. With the default CancelGrace that
// is 0.7s; a caller that must answer by a deadline (the service, with its
// -request-timeout) counts on it. When the server answers, the call ends
// as soon as the cancelled statement does.
//
// The other side is bounded too. A process that stops in the middle of a
// transaction (paused, frozen, its network cut) holds that transaction's
// row and advisory locks, and every other instance that needs those rows
// waits: its kernel keeps the connection open, so the server never learns
// that the client is gone. Open sets each session's
// idle_in_transaction_session_timeout to Options.IdleInTransaction (10s by
// default; under the lock strategy stockade serve lowers it to a shorter
// -lock-ttl), so the server ends a transaction whose client has sent
// nothing for that long, and frees its locks, without the client's help.
// A running transaction idles only between its statements. Open also
// turns JIT compilation off (jit=off) unless the URL sets jit: the
// store's statements are short, and a generic plan's estimates can pass
// jit_above_cost far above the work. The outbox relay waits
// for its broker inside its transaction, up to its AckWait (5s by
// default): an AckWait above IdleInTransaction ends such a turn, which the
// relay then takes again, publishing nothing twice.
//
// # Durable commits
//
// Update returns nil only for a commit that happened as the server's
// configuration asks: with synchronous_commit on and a synchronous
// standby (synchronous_standby_names), once the standby has it, so that
// an acknowledged write survives a failover to that standby.
//
// PostgreSQL makes that harder than it looks. A backend waiting for its
// synchronous standby that gets a cancel request stops waiting, warns
// that the transaction "has already committed locally, but might not have
// been replicated to the standby", and reports success; the same happens
// when an operator cancels it (pg_cancel_backend). So the store never
// sends a cancel request for a COMMIT: when the context ends during one,
// it waits CancelGrace for the answer and then closes the connection,
// and Update returns an error that wraps stockade.ErrUnavailable and
// says the outcome is unknown. A warning received during the COMMIT makes
// the outcome unknown too; Open's pool sees the server's notices, a pool
// given to New does not, so use Open with a synchronous standby. A
// statement_timeout does not cut the wait: the server lifts it before
// the commit.
//
// The server shows a transaction committed before its standby has it, so
// a retry with the same idempotency key can read the record of a write
// whose acknowledgement was cut short. The retry answers from that
// record only once its own COMMIT returns, and a transaction that wrote
// nothing does not wait for the standby: Idempotency, on finding a
// record in a read-write transaction, writes a transactional logical
// decoding message (pg_logical_emit_message, one WAL record that no table
// sees), so that the replay's COMMIT waits for the standby to have
// everything before it, the record included.
//
// Point the service at the primary and its standby with a multi-host URL
// that connects to whichever takes writes:
//
//	postgres://stockade@db1,db2/stockade?target_session_attrs=read-write
//
// After a failover a pooled connection may still reach the old primary,
// now a standby (after a switchover) or gone: a read-write transaction
// refused by a server in recovery closes its connection and returns an
// error that wraps stockade.ErrUnavailable, as a connection that breaks
// does, and the pool's next connection finds the new primary. Ping
// reports a standby as unavailable too, so an instance's readiness
// follows the primary.
//
// # Errors
//
// Every error names the call that failed and keeps pgx's error in its
// chain (errors.As reaches *pgconn.PgError):
//
//   - 40001 serialization failure, 40P01 deadlock, 55P03 lock not
//     available (lock_timeout) and 23505 unique violation (a concurrent
//     transaction inserted the same key first) wrap stockade.ErrConflict;
//     the engine retries the transaction.
//   - 23503 on a level's location is a *stockade.Error with ENotFound
//     naming the location (LevelSetOnHand checks first, so it reports that
//     without failing a statement).
//   - 23514, a check violation, is a *stockade.Error saying which
//     invariant the write would break. The API never reaches one.
//   - a database that cannot be reached wraps stockade.ErrUnavailable,
//     which the engine answers with EUnavailable (HTTP 503): a connection
//     that cannot be made or breaks (refused, reset, the stream ending
//     early), class 08 connection exceptions, and 57P01, 57P02 and 57P03,
//     a server shutting down, crashed or starting up. Ping's error wraps
//     it too. A wrong password or a missing database does not.
//   - a read-write transaction on a standby in recovery, and a COMMIT
//     whose outcome is unknown (no answer by CancelGrace after the
//     context ended, the connection broken, a warning from the server
//     during it), wrap stockade.ErrUnavailable, even when the context
//     ended: the caller retries with its idempotency key.
//   - when the context ended, its error is in the chain too (and the
//     error does not wrap ErrUnavailable: the deadline was the caller's).
//
// A failed statement aborts a PostgreSQL transaction: every later statement
// fails. Update then rolls back and returns the first failure, even when
// fn swallowed it.
//
// # Pool sizing
//
// An Update or View holds one connection from begin to commit, including
// while it waits for a row or advisory lock, so the pool (Options.MaxConns)
// bounds how many transactions run at once; the rest wait for a connection
// within their context. Size it for the concurrency wanted, and the
// server's max_connections for every instance's pool plus headroom. More
// connections than cores on the server rarely go faster when they contend
// for the same rows.
//
// The store keeps no session state between transactions, but pgx caches
// prepared statements per connection: through a transaction-pooling proxy
// (PgBouncer's pool_mode=transaction) add default_query_exec_mode=exec to
// the URL, unless the proxy tracks prepared statements itself.
package postgres
