// Package bench is "stockade bench": it drives a stockade.Service with
// many concurrent clients on one of three workloads, measures throughput,
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
//   - carts: 200 SKUs over 3 locations, popularity Zipf-distributed; every
//     request is a Checkout of 1–4 lines of distinct SKUs, quantity 1–3,
//     in random order, without a location (the engine allocates).
//   - booking: 20 SKUs at one location; every client Reserves 1–2 units
//     with a short TTL (Options.HoldTTL), then Confirms 70% of its holds
//     after a pause of 5–50ms and leaves the rest to expire. In process
//     the engine's Sweep runs every 250ms, as serve's sweeper would.
//
// A request is one Service call; booking's reserves and confirms both
// count. Its outcome is "ok" or the error's stockade code ("booking"
// prefixes the call: "reserve:ok", "confirm:reservation_expired"), or
// "error" for an error that is not a *stockade.Error (a transport error).
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
// Latencies and throughputs are wall-clock measurements of this machine at
// this moment: compare strategies within one report, not across machines.
package bench
