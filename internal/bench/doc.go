// Package bench is "stockade bench": it drives a stockade.StockService with
// many concurrent clients on one of four workloads, measures throughput,
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
