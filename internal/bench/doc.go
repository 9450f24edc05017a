// Package bench is "stockade bench": it drives a stockade.StockService with
// many concurrent clients on one of five workloads, measures throughput,
// latency and outcomes, and checks afterwards that nothing was oversold.
//
// In process, Run builds one engine per strategy on the same store and runs
// them one after another, each on SKUs of its own with freshly set stock,
// so the runs do not see each other's sales:
//
//	rep, err := bench.Run(ctx, &bench.Options{
//		Workload:   bench.FlashSale,
//		Store:      store, // migrated; sqlite.Open or postgres.Open
//		StoreName:  "sqlite:bench.db",
//		Strategies: []string{engine.Atomic, engine.RowLock},
//		Requests:   1000,
//	})
//	rep.WriteText(os.Stdout)
//	// errors.Is(err, bench.ErrInvariant): a run oversold or its ledger
//	// does not balance; rep says which.
//
// With Options.Service instead of Store it drives one running service (an
// httpapi.Client) as it is: one run, whatever strategy the service has.
//
// # Workloads
//
//   - flash-sale: one SKU at one location; every request is a Checkout of
//     one unit. Everyone wants the same row.
//   - carts: 200 SKUs (Options.SKUs) over 3 locations, popularity
//     Zipf-distributed; every request is a Checkout of 1–4 lines of
//     distinct SKUs (as many as there are, if fewer), quantity 1–3, in
//     random order, without a location (the engine allocates).
//   - booking: 20 SKUs at one location; every client Reserves 1–2 units
//     with a short TTL (Options.HoldTTL), then Confirms 70% of its holds
//     after a pause of 5–50ms and leaves the rest to expire. In process
//     the engine's Sweep runs every 250ms, as serve's sweeper would.
//   - onsale: one event (a stockade.BookingService show) of Stock seats,
//     default 10,000: rows of 40 seats, 25 rows to a section, sections 5
//     side by side in tiers one behind the other (10,000 seats: 2 tiers
//     of 5 sections), the stage in front of the first tier's middle, so
//     that the distance to it varies by section, row and seat. 90% of
//     the holds ask for the best 1–6 seats available side by side; 10%
//     name a pair of seats side by side among the 24 nearest the stage,
//     which collide with each other and with best available. 80% of the
//     successful holds are confirmed at once, the rest left to expire
//     (HoldTTL); Sweep runs every 250ms in process. A client told
//     sold_out waits 50–100ms before it asks again. The run ends when
//     every seat is booked, or at Duration or Requests. With Service, the
//     service must be a stockade.BookingService too.
//   - waiting-room: onsale's event behind a waiting room, and a crowd;
//     see below. In process only.
//
// A request is one Service call; booking's reserves and confirms, and
// onsale's holds and confirms, all count. Its outcome is "ok" or the
// error's stockade code (booking and onsale prefix the call:
// "reserve:ok", "confirm:reservation_expired", "hold:sold_out",
// "hold:seats_unavailable", "confirm:hold_expired"), or "error" for an
// error that is not a *stockade.Error (a transport error). Onsale also
// reports, in Result.OnSale, successful holds and seats booked per
// second, the latency of holds alone, the seats left by status and the
// orphans among them: free seats whose neighbours in the row are both
// taken or absent.
//
// # Invariants
//
// After each run, for every SKU of the run (read with Stock): every
// level's available, reserved and committed are ≥ 0; committed ≤ the
// stock set; the committed units equal the units of the successful
// checkouts or confirms (within the units of requests that ended in an
// error, whose effect is unknown); in booking, reserved is at most the
// units of holds not confirmed. In process, engine.Reconcile must also
// report the whole ledger balanced; over HTTP it cannot be called, and the
// report says so. A broken invariant makes Run return ErrInvariant.
//
// Onsale checks the event's seats (read with Seats) once the holds left
// to expire have lapsed and a final Sweep freed them (over HTTP, once the
// service's sweeper did), waiting up to 10s for that. Nothing is released
// or cancelled in this workload, so: no seat is booked twice; no hold
// began after a booking of its seat did; in process, no two holds of a
// seat each came back before the other expired (a booked hold never
// expires); a seat a client booked is booked by that booking; one whose
// holds were all left to expire is free, or still held by one of them
// that had not lapsed when the final sweep began (over HTTP, by any of
// them); no seat is held or booked by a hold no client got (beyond the
// seats of requests that failed); the seats booked equal the seats the
// clients booked; the event's counts by status (Event) equal the seats
// listed; every hold is what was asked (the named seats, or as many best
// seats side by side in one row). Any error but sold_out,
// seats_unavailable and hold_expired breaks the run too. In process
// engine.Reconcile must also find every event's seats agreeing with their
// history.
//
// # Waiting room
//
// The waiting-room workload puts a room (engine.CreateRoom) in front of
// onsale's event of Stock seats: active limit Options.RoomActive (500),
// RoomRate admitted a minute (60 × RoomActive), RoomPerVisitor seats
// counted per visitor (6, the most a buyer asks for) against the seats
// left with a stock factor of 1, admissions of RoomAdmissionTTL (1m).
// The room opens as it is created, and the crowd starts arriving then:
// Visitors (10 × RoomActive) arrive evenly over Ramp (5s), a goroutine
// each. A visitor joins (JoinRoom, as "v000042") and watches its ticket
// (WatchTicket) until it is admitted or told the room sold out. Admitted,
// it holds once as an onsale buyer does, with its admission: a named pair
// of hot seats or the best 1–6; a refused pair picks again at once, a
// sold_out asks again after 50–100ms while its admission is in force and
// the room has not sold out. It confirms 80% of its holds at once and
// leaves the rest to expire (HoldTTL); then it leaves the room
// (LeaveRoom), which ends its admission. The engine's admissions run every
// 250ms (RunAdmissions, as serve's) and its sweeper every 250ms, in
// process beside the crowd.
//
// The room counts an admission against its active limit until the
// visitor leaves or the admission expires: a visitor that leaves lets the
// next one in at the next round.
//
// A pass ends when every visitor is done: it bought or held nothing, or
// was told the room sold out (RoomEndSoldOut, or RoomEndServed if the
// crowd was served before the seats ran out); or when the room stalls
// (RoomEndStalled): it queues visitors but can admit none of them ever
// again, because fewer seats are free than it counts per visitor, none is
// held and no admitted visitor is buying; or at Duration (a minute).
//
// Each strategy's run is two passes, each on an event and a room of its
// own: the crowd's, then a baseline of only RoomActive visitors (as many
// as may be active at once), arriving at the crowd's pace (over Ramp ×
// RoomActive / Visitors) so that the room admits them in rounds of the
// same size; everything else is the same. Options.NoBaseline skips it.
// The Result's requests, latencies and outcomes are the crowd's holds and
// confirms, its OnSale the crowd's event's, and its Room (RoomResult) the
// workload's own figures: the joins per second (those that succeeded
// over the time from the first join's start to the last of them's end)
// and the latency of every join; how long after its opening the room sold out (its SoldOutAt);
// the holds' p50 and p99 with the crowd and in the baseline, and the
// ratio of the p99s; for every visitor waiting when the room sold out,
// how late its watch told it (the time the sold_out ticket arrived less
// SoldOutAt), p50, p99 and max; and how far admission departed from the
// promised order, read from the store after the pass: the visitors
// admitted whose place is after that of a visitor never admitted, and the
// pairs admitted the one at the lower place later than the other.
//
// After each pass the event's seats are checked as onsale's are, and the
// room's record: the places are 1 … Joined once each and those the joins
// gave; the room's count of admissions is the visitors with an admission;
// a visitor told sold out was never admitted, one that saw an admission
// has it, one that held has it marked used; and admission followed the
// promised order (both counts above 0). Any error, including a join or a
// watch that failed, breaks the run; a join that failed may have taken a
// place all the same (its outcome is unknown), so the places are read for
// every visitor that arrived. The room is closed after the check
// if it still gates.
//
// # Load shapes and thresholds
//
// By default Clients send requests back to back for Duration (or until
// Requests). Options.Stages shape the load over time as k6's stages do:
// each moves the number of clients allowed to send in a straight line to
// its target over its duration, from 0; a client beyond that number
// waits, so a ramp down drains. With Options.ArrivalRate the targets are
// requests started per second instead (an open model, k6's
// ramping-arrival-rate), and Options.Rate starts a constant rate for
// Duration: an arrival is handed to a client that is free, and one that
// finds every client busy is dropped and counted (Result.Dropped), so a
// slow service shows as drops and latency, not as a slower schedule. Each
// Result has a Timeline, one point a second: the load asked for, the
// requests that ended in that second and their p50 and p99.
//
// Options.Thresholds are bounds on each result, parsed by ParseThreshold
// from k6's notation: a latency percentile or the maximum (p95<500ms,
// max<5s), the share of errors (errors<1%), or the successful requests
// per second (throughput>1000). Every result is measured against every
// threshold (Result.Thresholds), and a missed one makes Run return an
// error wrapping ErrThreshold, beside ErrInvariant if that broke too.
//
// # Sweeps
//
// RunSweep runs the bench once per value of one variable, the clients or
// carts' SKUs (Options.SKUs, 1 to 100,000), with each point's invariants
// and thresholds checked on their own, and its Sweep writes one table,
// JSON rows with the point's clients and SKUs as fields, and a chart of
// throughput and p99 against the swept values, one line per strategy.
//
// # Why a curve bends
//
// Options.Probes watch each run from outside the clients. PGWaits samples
// PostgreSQL's pg_stat_activity and reports what the database's sessions
// were doing (Result.DBWaits): running, waiting for another transaction's
// row lock, for the log to reach disk, or for their client in the middle
// of a transaction. CPUCost reads Linux's /proc and reports the CPU of this
// process, of the service instances and of the store's PostgreSQL if it
// runs on this machine, per successful request and in cores (Result.CPU),
// beside the whole machine's: on a machine that clients, services and
// database share, it is what says what each would need on machines of
// its own.
//
// Latencies and throughputs are wall-clock measurements of this machine at
// this moment: compare strategies within one report, not across machines.
package bench
