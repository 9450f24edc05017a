// Package engine is the stockade reservation engine: it implements
// stockade.Service on any stockade.Store, and is where allocation, the
// concurrency strategies, expiry and idempotency live. It imports the
// domain and the lock interfaces only, never a concrete store or lock
// backend; cmd/stockade wires those in.
//
//	store, err := sqlite.Open(ctx, "stockade.db", nil) // or postgres.Open
//	…
//	eng, err := engine.New(store, &engine.Options{Strategy: engine.RowLock})
//	if err != nil { … }
//	go eng.RunSweeper(ctx, time.Second)                // expire lapsed holds
//	res, err := eng.Reserve(ctx, stockade.ReserveRequest{
//		Lines:  []stockade.Line{{SKU: "tent", Quantity: 2}},
//		ShipTo: &stockade.Point{Lat: 48.85, Lon: 2.35},
//	}, &stockade.Idempotency{Key: "cart-42", Fingerprint: "…"}) // or nil
//	// stockade.ErrorCode(err) == stockade.EInsufficientStock: nothing was held
//	order, err := eng.Confirm(ctx, res.ID, nil)
//
// # Guarantees
//
//   - Never oversold: every write to a level is a store's conditional
//     LevelUpdate or LevelUpdateMany, which changes nothing if a counter or
//     available would go below zero, whatever the strategy; the strategies decide how an
//     allocation is made safe before it is written, not whether the store
//     checks.
//   - All or nothing: a reservation or checkout is one transaction; a line
//     that cannot be met rolls every other back.
//   - The ledger balances: every counter change writes its movement rows
//     (MoveReserve, MoveCheckout, MoveConfirm, MoveRelease, MoveExpire,
//     MoveCancel, MoveFulfill, MoveSet, MoveAdjust; Ref is the reservation
//     or order, and a shipment's rows name it as their Reason) in the same
//     transaction. Reconcile checks it, counting a committed order's
//     allocations less what it has shipped.
//   - No deadlocks between requests: every transaction writes levels in one
//     global order (stockade.Key.Compare), and takes row locks, advisory
//     locks and SKU leases in key order too.
//   - A refusal is only ever a *stockade.Error that says why: EInvalid for
//     bad input (checked by the domain's Validate functions, against the
//     limits stockade.MaxLines, MaxQuantity, MaxIDLength, MaxTextLength and
//     Options.MaxTTL), EInvalidState for a request the reservation's or
//     order's status does not allow, ENotFound for an unknown location, SKU, reservation or
//     order, EInsufficientStock when the stock is not there, and the
//     state-specific codes below. Contention is never a refusal: conflicts
//     are retried (see Failure modes).
//
// # Strategies
//
// Options.Strategy chooses how Reserve and Checkout make their allocation
// safe. Each transaction first plans: it reads the levels of the request's
// SKUs and finds the held reservations on them that have lapsed; these
// are expired in the same writes, so a lapsed hold never blocks a sale.
// Demand is merged per (SKU, location) before anything is checked. Then
// it allocates, and writes what it decided in one order: the expiries,
// the reservation or order, the ledger rows, and last the levels, each
// moved by the sum of its ledger rows. A single Reserve or Checkout and a
// batch of them share that planning step and that writer. Then, by
// strategy:
//
//   - atomic: read without locks, allocate, and write each level with
//     LevelUpdate: the availability check and the write are one conditional
//     statement. If a write finds its level changed since the read (false),
//     the transaction is retried as a whole and allocates from a fresh
//     read; it refuses only when an allocation made from what it read
//     cannot be met. The level writes come last in the transaction, after
//     the order or reservation and ledger rows, so a hot row is locked
//     only from its UPDATE to the commit.
//   - rowlock: lock every level the transaction will write with one
//     LevelList with Lock (SELECT … FOR UPDATE, in key order), then read,
//     allocate and write them in one LevelUpdateMany: nothing can change
//     under it.
//   - optimistic: read without locks, allocate, and write each level at the
//     version read (Guard.Version). A version that moved is a conflict: the
//     whole transaction is retried with backoff. Insufficient stock is
//     decided from the read.
//   - lock: take a lock.Locker lease on every SKU of the request
//     ("stockade:sku:" + SKU, all or none with lock.AcquireAll, Options.
//     LockTTL), then in one transaction read, allocate and write each level
//     with the SKU's fencing token (Guard.Fence). A write whose level carries
//     a newer fence came from a holder whose lease ran out: it is a conflict
//     and the request is retried with a new lease. The leases are released
//     when the transaction has ended.
//   - advisory: take the store's transaction-scoped advisory locks on every
//     level the transaction will write (Tx.AdvisoryLock), then read,
//     allocate and write.
//   - batch: group commit of Reserve, Checkout and Confirm. Calls queue
//     in the engine while a batch transaction runs; the next transaction
//     takes every queued call (at most Options.MaxBatch), in arrival
//     order. It reads the levels they draw on, expires the lapsed holds
//     there, locks the reservations to confirm (Tx.ReservationGetMany, in id
//     order; a lapsed one is expired with the rest) and the levels in key
//     order (LevelList with Lock), and decides each call from what the calls
//     before it left: met in full, or refused as it would be alone; a
//     confirm as Confirm does (below). Then it inserts the reservations,
//     orders, ledger rows and idempotency records in bulk and writes each
//     level once, with the sum of the batch's changes. Nothing lingers: a
//     call that finds no batch running starts one at once, and under load
//     batches grow by themselves, so one hot row costs one commit per
//     batch instead of one per call. An engine runs one batch transaction
//     at a time, whatever SKUs its calls name, so a batch that waits (for
//     rows another instance's batch has locked) holds up the calls behind
//     it. The row locks keep it correct with many engines on one database;
//     two batches on two instances that lock reservation rows in other
//     orders (lapsed holds by expiry, confirms by id) may meet in a
//     deadlock, which the database breaks and the batch retries. A
//     conflict retries the whole batch; any other failure fails each call
//     of the batch, none of which was committed. A caller whose context
//     ends while its call is queued withdraws it, which changes nothing.
//     One whose context ends once a batch holds its call does not wait
//     for the batch either: it gets EUnavailable saying that the outcome
//     is unknown, while the batch commits or rolls back the call with the
//     others, under its own deadline (Options.Timeout). The call's
//     idempotency record commits with its effect, so a retry with the
//     same key gets the stored result if the batch committed, and runs
//     afresh if it did not.
//
// Whatever the strategy, Reserve, Checkout and Confirm have one body,
// decideStock, which decides a batch of calls in one transaction: under
// batch a group of queued calls, under the others each call alone, as a
// batch of one (see lane.go). HoldSeats and ConfirmHold (decideHolds,
// decideConfirms) and ApplyOutcome (decideOutcomes) are built the same
// way. A Confirm takes no SKU lease: it moves only stock that
// its reservation holds, and its levels are checked as they are written.
//
// Release, CancelOrder, FulfillOrder, ShipOrder, SetStock, AdjustStock
// and Sweep lock the reservation or order row, then move its counters
// with LevelUpdate in key order. Every change of an order has one body,
// changeOrder, which reads the order under its row lock (the whole
// database, on SQLite) and decides from it as it is: two shipments of
// one order queue on that lock under every strategy, batch included, so
// they never ship more than was ordered. They only ever return stock, move it between
// reserved and committed, or are checked by LevelUpdate themselves, so no
// strategy needs to guard them.
//
// # Fallbacks
//
// A strategy the store cannot offer falls back when New is called, which
// logs it; Strategy then returns the name asked for followed by what runs
// instead:
//
//   - rowlock without Features().RowLocks (SQLite): "rowlock (fallback:
//     serialized write transactions, the store has no row locks)". A store
//     without row locks runs one write transaction at a time, so reading,
//     allocating and writing in one transaction is already serialized.
//   - advisory without AdvisoryLocks: with RowLocks, it runs as rowlock,
//     "advisory (fallback: rowlock, the store has no advisory locks)";
//     without (SQLite), as above, "advisory (fallback: serialized write
//     transactions, the store has no advisory locks)".
//
// atomic, optimistic, lock and batch run on every store. New refuses an unknown
// strategy, and lock without Options.Locker.
//
// # Allocation
//
// A line that names a location takes from it; lines of the same SKU and
// location are summed. The lines of a SKU without a location are summed
// too and take from what is left: with a ship-to point, from the nearest
// locations first by great-circle (haversine) distance, splitting across
// as many as it must; without one, from the location with the most
// available first; ties go to the smaller location id. Allocations come
// back one per level, in key order. A location that does not exist is
// ENotFound, as is a SKU with no level anywhere; a known SKU with no level
// at a named location has nothing there: EInsufficientStock.
//
// # Bookings
//
// The engine is also a stockade.BookingService: events (shows) with
// seats and general-admission areas, holds and bookings, through the
// same calls, retries, deadlines, idempotency, outbox and sweeper as
// stock. A seat is a row of its own in one status (free, held, booked,
// blocked), because buyers pick seats and best-available selection
// places them; an area is a counter like a level (capacity, held,
// booked). Every seat and area change is a conditional write
// (stockade.BookingTx.SeatMoveMany moves a seat only from the status it is
// in, AreaMovePlaces never passes capacity), so no strategy can sell a seat
// twice: a hold that finds a chosen seat taken is retried whole and
// chooses again. Each change appends to the event's seat history in the
// same transaction, and Reconcile checks seats and areas against it.
//
// HoldSeats takes, all or nothing, named seats (ESeatsUnavailable names
// those that are not free), best-available seats (ESoldOut when none fit)
// and places (ESoldOut when too few are left). Best available picks, on
// what is free, the block of seats side by side in one row nearest the
// focal point that leaves no lone seat beside it; else the nearest block;
// else, only if the request allows it, the nearest seats apart (the hold
// says Split). A hold lasts its TTL (Options.DefaultTTL unless asked),
// may be extended within Options.MaxHoldLifetime of its creation, and
// expires lazily in any hold of its event and at the sweep.
// ConfirmHold books it (EHoldExpired once it lapsed), ReleaseHold frees
// it, CancelBooking frees a booking. Seats lists an event's seats, and
// SeatHistory its history, oldest row first, a page at a time.
//
// Strategies for holds: Lock takes one lease per event, as the designs
// that lock a whole event do, and serialises its buyers; RowLock locks
// the seats it takes (SELECT … FOR UPDATE) and retries when one was
// taken meanwhile; Batch group-commits the holds of each event: the calls
// that arrive while a batch of the event runs are decided together in
// the next, in arrival order and each all or nothing, on one read of the
// event's free seats, and written in bulk; the confirms that arrive
// while a confirm batch runs are decided together in the next, whatever
// their events, and written in bulk too. A batch of holds that the seats
// kept from the event's last batch refuse whole (a sold-out event's
// crowd) is answered without the event's lock, after one read that says
// the kept seats still hold (stockade.BookingTx.SeatEpochGet), outside
// any transaction when no call has an idempotency key
// (stockade.Store.Peek). The other strategies write the conditional
// moves directly and retry when one did not apply. Releases and
// extensions run as under Atomic, as confirms do but under Batch.
//
// The engine is also a stockade.PaymentService: a client records the
// payment of a held reservation or hold, or a committed order
// (CreatePayment, one per target), and the payment system's outcomes
// (ApplyOutcome) confirm or give back what it pays for, each applied once
// by its event id and in any order; payments.go tells the saga, the
// payment-aware expiry (Options.PaymentGrace, stuck payments) and what a
// success after a lapse does. Under Batch, outcomes group-commit too: those
// that arrive while an outcome batch runs are decided together in the
// next, with the inbox rows, the payments and their targets read and
// locked in bulk.
//
// # Waiting rooms
//
// The engine is also a stockade.RoomService: a waiting room in front of a
// show or of SKUs, for a sale that draws a crowd many times what it can
// serve. Visitors join (JoinRoom) and take a place: the next in arrival
// order, or, in a room of stockade.RoomRandomAtOpening joined before it
// opens, a random draw that the opening turns into places, so that coming
// a second early gains nothing. A visitor has one place however often it
// joins. Joins group-commit under every strategy, one queue per room: a
// join writes the room's queue, never stock or seats.
//
// AdmitRooms, on a ticker in serve (RunAdmissions), opens the rooms whose
// time has come and admits, in the order of the places, what
// stockade.Room.Admissions allows: no more a minute than the room's rate
// (a bucket of RoomBurst seconds), no more admissions in force than its
// active limit, and no more visitors than the stock left can serve: the
// visitors admitted who have not held yet, times PerVisitor, fall short of
// the free seats, places or units times StockFactor. A room so paused
// admits again when holds lapse and their stock comes back. When nothing
// is free or held, the room is sold out: it stops queueing, and every
// visitor still in it learns so from its ticket. The round of a room runs
// in a transaction that locks the room's row, so instances take turns and
// the places are admitted once each, in order. A room's creation, an
// admin's change, its opening and its sell-out each write an event of the
// room (stockade.EventRoomCreated and the rest), its payload the room as
// the API shows it; joins and admissions write none, since a crowd's
// places are the room's queue, not a change a shop's systems follow.
//
// An admission is a token (stockade.AdmissionToken): HMAC-SHA256 with
// the room's secret over the room, the visitor, its place and its
// expiry, which a shop's front end can check with the secret. While a
// room is scheduled or queueing, HoldSeats on its show, and Reserve and
// Checkout drawing on its SKUs, need an admission in force for the
// visitor the call names (EAdmissionRequired without one, naming the room
// to join; EAdmissionInvalid for a forged, expired or another visitor's or
// room's token). The check runs in the transaction that decides the call,
// against the rooms read there, and marks the admission used, which the
// stock rule counts. WatchTicket streams a visitor's ticket: one reader per
// watched room reads it every Options.TicketPoll and works out every
// watcher's ticket from its place. A new status or place goes out at once;
// a ticket that only counts down, at most every twentieth of the visitor's
// estimated wait (1 to 15 s), so that a crowd far from the front wakes
// seldom.
//
// # Flows and their edge cases
//
//   - Reserve holds for the request's TTL (Options.DefaultTTL if zero, at
//     most Options.MaxTTL). A hold lapses when its expiry is strictly
//     before now; Reservation then reports it expired even before its stock
//     is returned.
//   - Confirm of a held, unlapsed reservation creates its order. A lapsed
//     one is expired in that transaction (its stock returns) and refused
//     with EReservationExpired, as is an expired one. Confirming a
//     confirmed reservation returns its order again, changing nothing; a
//     released one is EInvalidState.
//   - Release of a held reservation returns its stock; of a lapsed one,
//     expires it; of a released or expired one, returns it unchanged; of a
//     confirmed one, EInvalidState (cancel the order).
//   - ShipOrder ships units of a committed order: a line with a location
//     takes from the order's allocation of its SKU there, the lines of a
//     SKU without one from what is left of its allocations in location
//     order, and the shipment says which (shipmentLines, pure). More than
//     is left is EInvalidState naming what is left, a SKU or location the
//     order has not EInvalid; either changes nothing. A shipment moves on
//     hand and committed down (MoveFulfill), moves the order one version
//     on, is stored and emits order.shipped; the one that ships the last
//     units fulfils the order and emits order.fulfilled too.
//   - FulfillOrder ships what is left as one shipment, through the same
//     body (ship); CancelOrder gives back what has not shipped, and the
//     cancelled order keeps its shipments. Both act on committed orders,
//     return the order unchanged if it already has the status asked for,
//     and are EInvalidState on the other final status. With an expected
//     version they, and ShipOrder, are a compare-and-set (EVersionConflict
//     naming the order's).
//   - A payment's failure cancels its order only if the order has
//     shipped nothing: a fulfilled or partly shipped order cannot be
//     undone, and the payment stays unresolved, for a person.
//   - UpdateReservation, UpdateOrder, UpdateHold, UpdateBooking and
//     UpdatePayment are one body (metadata.go): read the aggregate with
//     its row held, merge the request into its metadata, write that alone
//     and its *.updated event. Any status; no version moves.
//   - SetStock writes at the version it read, so its MoveSet row carries
//     the exact change; with an expected version it is a compare-and-set
//     (EVersionConflict). Below reserved + committed it is
//     EInsufficientStock. AdjustStock refuses a zero delta or an empty
//     reason (EInvalid), and a negative result or one below reserved +
//     committed (EInsufficientStock); a positive delta creates a missing
//     level.
//   - Sweep expires lapsed holds in batches of Options.SweepBatch, each a
//     transaction, but those whose payment is in flight; marks stuck the
//     payments still in flight Options.PaymentGrace after their hold
//     lapsed; and purges idempotency records older than
//     Options.IdempotencyTTL and inbox records older than
//     Options.OutcomeRetention. On PostgreSQL (SkipLocked) any number of
//     instances may sweep at once; each reservation is expired once.
//
// # Idempotency
//
// A mutating call with a *stockade.Idempotency runs its whole effect in
// one write transaction that begins by reading the key's record, which
// holds the key until the transaction ends (Tx.IdempotencyGetMany). No record,
// or one older than Options.IdempotencyTTL: the call runs, and its result
// (the JSON of the domain value it returns) is stored with the key in the
// same commit as its effect. A record of the same operation and
// fingerprint: the transaction ends having written nothing, and the call
// returns the stored result with Idempotency.Replayed set. Any other
// record: EIdempotencyMismatch.
//
// A second call with the key while the first runs waits for the key, so
// it answers with the first's result once that commits; it never runs
// the effect twice. Nothing is claimed ahead of the effect, so no key is
// left stuck by a crash, a lost connection or a deadline: the call either
// committed, and a retry gets its result, or did not, and a retry runs
// afresh. A refusal (invalid input, insufficient stock, a wrong state, an
// expired reservation) changes nothing and is not stored either, so the
// same key succeeds once the cause is gone, such as after a restock.
//
// Under batch, the batch transaction reads the records of its calls' keys
// first, holding them until it commits (Tx.IdempotencyGetMany, in one fixed
// order), answers a call from its key's record as above, and stores each
// successful call's result in its own commit; a key's second call in the
// same batch replays the first's result.
//
// # Actors
//
// A call's context carries a stockade.Actor, the API key that makes it or
// stockade.System for the service's own calls (the command line, a
// broker's commands, open mode, an in-process bench), given with
// stockade.WithActor; the engine reads it once, when the call starts, and
// refuses a call without one (EUnauthenticated), so that an entry point
// that forgot to say who calls sees nothing rather than everything. Two
// calls need none: Sweep, which is the service's own work, and
// Authenticate, which is how a caller gets its actor.
// Its idempotency keys are stored under the key's id, so two API keys'
// calls with the same idempotency key are two operations. Reservations
// and orders it creates record the key's id as Owner (an order confirmed
// from a reservation keeps the reservation's), and every ledger row it
// writes records the key's name as Actor. A storefront actor reads,
// confirms, releases and cancels only what its key owns: another's
// reservation or order is ENotFound with the words of a missing one, in
// every strategy (batch checks the owner when it decides a confirm), and
// the lists leave it out. System, an admin or a reader sees everything; which routes each role may call is the
// HTTP API's business (httpapi's route table). The engine also implements
// stockade.KeyService: keys live in the store, as hashes.
//
// # Failure modes
//
//   - Errors wrapping stockade.ErrConflict (serialization failures,
//     deadlocks the database broke, a version that moved, a stale fence)
//     retry the whole transaction, with a new reservation or order id,
//     after a pause that doubles from Options.MinBackoff to MaxBackoff with
//     jitter. Every call is bounded by its context's deadline and by
//     Options.Timeout; when the deadline comes while retrying, waiting for
//     a lease or a connection, or the lock backend is unreachable, the call
//     fails with EUnavailable (logged), having changed nothing. A call
//     that a batch holds when its deadline comes also answers
//     EUnavailable at once, but its outcome is the batch's (see batch
//     above): its idempotency key tells a retry which it was.
//   - Other store errors are returned as they are: internal errors for the
//     edge to log.
//   - Under the lock strategy with an in-memory Locker on a store that
//     outlives the process, start the Locker's tokens above MaxFence of the
//     store, or every fenced write is refused as stale.
//   - Concurrently with SKIP LOCKED, a request may not see a lapsed hold
//     that another transaction is expiring at that instant, and count its
//     stock as still held.
//
// # Files
//
// By aggregate, with the shared writes on a ground floor that the others
// call down into and that calls nothing above it:
//
//   - engine.go: Engine, Options, New; a call's actor, deadline, retries
//     and error classes (run, retry, classify).
//   - strategy.go, lane.go: the strategy as one value, and the lanes
//     through which every write that batch groups goes (direct: a batch of
//     one; group: queued). leases.go: the lock strategy's leases.
//   - idempotency.go: records, the one idempotency helper; lapse.go: the
//     one rule of lapse (and the payment grace).
//   - stock.go: levels, locations, SKUs and the ledger's reads.
//   - reservations.go: Reserve, Checkout and Confirm (decideStock),
//     Release, orders and their cancel; shipments.go: ShipOrder,
//     FulfillOrder and the lists of shipments (changeOrder, ship); plan.go: what a stock transaction reads, locks and
//     commits under each strategy; allocate.go: where stock is taken from.
//   - shows.go: shows, their seats and layouts; seats.go, seatrows.go:
//     best-available seats; holds.go: holds and bookings (decideHolds,
//     decideConfirms).
//   - payments.go: payments, their saga and reorders; outcomes.go:
//     ApplyOutcome (decideOutcomes).
//   - rooms.go: waiting rooms, joins (decideJoins), admissions and the
//     gate of holds and reservations; roomwatch.go: watched tickets.
//   - sweep.go: the sweeper; events.go: the event feed; reconcile*.go:
//     checks of the ledger and the outbox; keys.go: API keys.
//   - writes.go: the ground floor: the outbox, ledger rows and counter
//     moves, seat and place moves, status errors.
package engine
