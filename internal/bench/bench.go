package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/lock/memlock"
)

// Workload names, for Options.Workload.
const (
	FlashSale = "flash-sale"
	Carts     = "carts"
	Booking   = "booking"
	OnSale    = "onsale"
	// WaitingRoom is onsale's event behind a waiting room, and a crowd.
	WaitingRoom = "waiting-room"
)

// Workloads returns the workload names, in the order of the documentation.
func Workloads() []string { return []string{FlashSale, Carts, Booking, OnSale, WaitingRoom} }

// Strategies returns every engine strategy, in the order they run by
// default.
func Strategies() []string { return engine.Strategies() }

// ErrInvariant is returned by Run, with the report, when a run broke an
// invariant: it oversold, a counter went negative, the committed units do
// not match the successful requests, or the ledger does not balance; in
// OnSale also when a seat was in two holds or bookings at once, the seat
// counts do not match the clients' holds and bookings, or a request
// failed other than by a refusal; in WaitingRoom also when the room's
// places or admissions do not match its visitors, or admission departed
// from the promised order.
var ErrInvariant = errors.New("bench: invariant broken")

// Options configure a Run. A nil *Options is refused: Store or Service is
// required.
type Options struct {
	// Workload is FlashSale, Carts, Booking, OnSale or WaitingRoom.
	// Default: FlashSale.
	Workload string

	// Store is the migrated store the engines run on, in process. Exactly
	// one of Store and Service must be set; WaitingRoom needs Store.
	Store stockade.Store

	// StoreName describes Store or Service in the report, without a
	// password, e.g. "sqlite:bench.db" or "service at http://host:8080".
	// Default: "store" or "service".
	StoreName string

	// Strategies run one after another on Store, each with an engine of
	// its own. Not used with Service.
	// Default: Strategies().
	Strategies []string

	// Service is a running service to drive as it is (an httpapi.Client):
	// one run, named by ServiceName. Reconcile cannot be called on it, and
	// its own sweeper expires booking's and onsale's holds. OnSale needs
	// it to be a stockade.BookingService too, as an httpapi.Client is.
	Service stockade.StockService

	// ServiceName names the run on Service in the report.
	// Default: StoreName.
	ServiceName string

	// Clients is how many goroutines send requests at once. Not with
	// WaitingRoom, whose visitors are a goroutine each.
	// Default: 64.
	Clients int

	// Duration is how long each run sends requests, when Requests is 0;
	// in WaitingRoom, the longest each pass may last.
	// Default: 10s; WaitingRoom: 1m.
	Duration time.Duration

	// Requests, if positive, ends each run after that many requests
	// instead of after Duration.
	// Default: 0.
	Requests int

	// Stages shape each run's load over time, as k6's stages: each moves
	// the number of clients sending requests in a straight line to its
	// Target over its Duration, from 0 before the first; the run lasts
	// as long as the stages together, with as many clients as the
	// largest target (Clients does not apply). Not with Duration or
	// Requests.
	// Default: none: Clients send requests for the whole run.
	Stages []Stage

	// ArrivalRate makes the Stages' targets requests started per second
	// (an open model, k6's ramping-arrival-rate) rather than clients: a
	// request starts on schedule whatever the service's speed, on one of
	// Clients, and an arrival that finds every client busy is dropped
	// (Result.Dropped).
	// Default: false.
	ArrivalRate bool

	// Rate, if positive, starts that many requests per second for
	// Duration (k6's constant-arrival-rate), on at most Clients at once,
	// dropping those that find every client busy. Not with Stages.
	// Default: 0: closed loop, each client sends its next request when
	// the last is answered.
	Rate float64

	// Thresholds are bounds that every run's result must keep, as k6's:
	// Run checks each, reports how each run fared (Result.Thresholds)
	// and returns an error wrapping ErrThreshold if one was missed.
	// Default: none.
	Thresholds []Threshold

	// SKUs is how many SKUs the carts workload sells, from 1 to 100,000;
	// the others have their own.
	// Default: 200.
	SKUs int

	// Stock is the on-hand quantity set on every level before a run; in
	// OnSale and WaitingRoom, the event's seats (at most
	// stockade.MaxSeats).
	// Default: with Requests, enough to sell out partway (flash-sale: half
	// the requests; carts: Requests/10; booking: Requests/4; at least 5;
	// onsale: 2 × Requests seats); with Duration, 1,000,000 for flash-sale
	// and 10,000 otherwise.
	Stock int64

	// HoldTTL is how long booking's, onsale's and waiting-room's holds
	// last.
	// Default: 2s.
	HoldTTL time.Duration

	// Visitors is the crowd of WaitingRoom: how many visitors arrive, at
	// most 1,000,000. The options below up to NoBaseline are
	// WaitingRoom's too, and refused with the other workloads.
	// Default: 10 × RoomActive.
	Visitors int

	// Ramp is how long the crowd takes to arrive: visitors arrive evenly
	// over it, the first as the room opens. Shorter than Duration.
	// Default: 5s.
	Ramp time.Duration

	// RoomActive is the room's active limit: the most admissions in force
	// at once.
	// Default: 500.
	RoomActive int64

	// RoomRate is how many visitors the room admits a minute.
	// Default: 60 × RoomActive, the active limit each second.
	RoomRate int64

	// RoomPerVisitor is the seats the room counts per admitted visitor
	// against the seats left (stockade.Room.PerVisitor); its stock factor
	// is 1.
	// Default: 6, the most a buyer asks for.
	RoomPerVisitor int64

	// RoomAdmissionTTL is how long an admission lasts, in whole seconds.
	// The room counts an admission against its active limit until its
	// visitor leaves (each does, once it has bought or given up) or it
	// expires.
	// Default: 1m.
	RoomAdmissionTTL time.Duration

	// NoBaseline skips the pass without the crowd (RoomResult.Baseline)
	// that follows the crowd's on each strategy.
	// Default: false: the baseline runs.
	NoBaseline bool

	// Timeout bounds each call of the in-process engines (engine
	// Options.Timeout).
	// Default: 10s.
	Timeout time.Duration

	// Progress receives a line as each run starts and ends and one a
	// second while it runs.
	// Default: nil (no progress).
	Progress io.Writer

	// Logger is the engines' logger: strategy fallbacks, calls that gave
	// up, sweep errors.
	// Default: a logger that discards everything.
	Logger *slog.Logger

	// Probes watch each run from outside the clients: the database's
	// wait events (PGWaits), the processes' CPU (CPUCost). A probe that
	// cannot begin or end fails the run.
	// Default: none.
	Probes []Probe
}

func (o *Options) withDefaults() (Options, error) {
	if o == nil {
		return Options{}, errors.New("bench: no options: Store or Service is required")
	}
	c := *o
	if c.Workload == "" {
		c.Workload = FlashSale
	}
	if c.Workload == WaitingRoom {
		if err := c.roomDefaults(); err != nil {
			return c, err
		}
	} else if c.hasRoomOptions() {
		return c, fmt.Errorf("bench: visitors, ramp and the room's options are the waiting-room workload's; %s has none", c.Workload)
	}
	if c.Clients == 0 {
		c.Clients = 64
	}
	if len(c.Stages) > 0 {
		switch {
		case c.Duration != 0 || c.Requests != 0:
			return c, errors.New("bench: stages set the run's length: give no duration or requests with them")
		case c.Rate != 0:
			return c, errors.New("bench: give a constant rate or stages, not both (stages with ArrivalRate ramp the rate)")
		}
		c.Duration = stagesDuration(c.Stages)
		if !c.ArrivalRate {
			c.Clients = max(stagesMax(c.Stages), 1)
		}
	} else if c.ArrivalRate {
		return c, errors.New("bench: ArrivalRate needs stages whose targets are rates")
	}
	if c.Rate < 0 || c.Rate > maxTarget || math.IsNaN(c.Rate) {
		return c, fmt.Errorf("bench: rate must be between 0 and %d requests per second, got %v", maxTarget, c.Rate)
	}
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	switch {
	case c.SKUs == 0:
		if c.Workload == Carts {
			c.SKUs = cartSKUs
		}
	case c.Workload != Carts:
		return c, fmt.Errorf("bench: SKUs is the carts workload's; %s has its own", c.Workload)
	case c.SKUs < 1 || c.SKUs > maxCartSKUs:
		return c, fmt.Errorf("bench: carts' SKUs must be between 1 and %d, got %d", maxCartSKUs, c.SKUs)
	}
	if c.HoldTTL == 0 {
		c.HoldTTL = 2 * time.Second
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.Store == nil && c.Service == nil:
		return c, errors.New("bench: Store or Service is required")
	case c.Store != nil && c.Service != nil:
		return c, errors.New("bench: Store and Service are both set; want one")
	case !slices.Contains(Workloads(), c.Workload):
		return c, fmt.Errorf("bench: unknown workload %q (want %s)", c.Workload, strings.Join(Workloads(), ", "))
	case c.Clients < 1:
		return c, fmt.Errorf("bench: clients must be at least 1, got %d", c.Clients)
	case c.Duration < 0:
		return c, fmt.Errorf("bench: duration must be positive, got %v", c.Duration)
	case c.Requests < 0:
		return c, fmt.Errorf("bench: requests must not be negative, got %d", c.Requests)
	case c.Stock < 0 || c.Stock > stockade.MaxQuantity:
		return c, fmt.Errorf("bench: stock must be between 0 and %d, got %d", stockade.MaxQuantity, c.Stock)
	case c.HoldTTL < time.Second:
		// The API carries a hold's TTL in whole seconds.
		return c, fmt.Errorf("bench: hold TTL must be at least 1s, got %v", c.HoldTTL)
	case c.Timeout < 0:
		return c, fmt.Errorf("bench: timeout must be positive, got %v", c.Timeout)
	}
	if c.Service != nil {
		if len(c.Strategies) > 0 {
			return c, errors.New("bench: Strategies do not apply to a Service, which runs its own strategy")
		}
		if c.StoreName == "" {
			c.StoreName = "service"
		}
		if c.ServiceName == "" {
			c.ServiceName = c.StoreName
		}
	} else {
		if c.StoreName == "" {
			c.StoreName = "store"
		}
		if c.Strategies == nil {
			c.Strategies = Strategies()
		}
		if len(c.Strategies) == 0 {
			return c, errors.New("bench: no strategies")
		}
		for i, s := range c.Strategies {
			if !slices.Contains(Strategies(), s) {
				return c, fmt.Errorf("bench: unknown strategy %q (want %s)", s, strings.Join(Strategies(), ", "))
			}
			if slices.Contains(c.Strategies[:i], s) {
				return c, fmt.Errorf("bench: strategy %q given twice", s)
			}
		}
	}
	if c.Stock == 0 {
		c.Stock = defaultStock(c.Workload, c.Requests)
	}
	if c.Workload == OnSale || c.Workload == WaitingRoom {
		if c.Stock < 2 || c.Stock > stockade.MaxSeats {
			return c, fmt.Errorf("bench: %s: stock is the event's seats, between 2 and %d, got %d", c.Workload, stockade.MaxSeats, c.Stock)
		}
		if _, ok := c.Service.(stockade.BookingService); c.Service != nil && !ok {
			return c, fmt.Errorf("bench: onsale: the service (%T) sells no seats: it is not a stockade.BookingService", c.Service)
		}
	}
	return c, nil
}

// defaultStock is Options.Stock's default.
func defaultStock(workload string, requests int) int64 {
	if requests == 0 {
		if workload == FlashSale {
			return 1_000_000
		}
		return 10_000
	}
	n := int64(requests)
	switch workload {
	case FlashSale:
		n /= 2
	case Carts:
		n /= 10
	case OnSale:
		return min(max(2*n, 5), stockade.MaxSeats)
	default:
		n /= 4
	}
	return min(max(n, 5), stockade.MaxQuantity)
}

// Report is the outcome of Run.
type Report struct {
	Workload string        `json:"workload"`
	Store    string        `json:"store"`
	Clients  int           `json:"clients"`
	Duration time.Duration `json:"duration_ns,omitempty"` // 0 with Requests
	Requests int           `json:"requests,omitempty"`    // 0 with Duration
	Stock    int64         `json:"stock"`                 // per level; onsale: the event's seats
	SKUs     int           `json:"skus,omitempty"`        // carts' SKUs
	// Stages, ArrivalRate and Rate are the load's shape, if any (Options).
	Stages      []Stage `json:"stages,omitempty"`
	ArrivalRate bool    `json:"arrival_rate,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	// Room is the waiting room and crowd of WaitingRoom.
	Room    *RoomSetup `json:"room,omitempty"`
	Results []Result   `json:"results"`
}

// Result is one strategy's run (or the one run on a Service).
type Result struct {
	// Strategy is the strategy asked for, or the service's name.
	Strategy string `json:"strategy"`
	// Effective is what ran, with the engine's fallback if any
	// (engine.Engine.Strategy); empty for a service.
	Effective string `json:"effective,omitempty"`

	Requests  int     `json:"requests"`  // calls sent
	Successes int     `json:"successes"` // calls that succeeded
	Seconds   float64 `json:"seconds"`   // wall time of the run
	// Throughput is successful requests per second; RequestsPerSec counts
	// every request.
	Throughput     float64 `json:"throughput"`
	RequestsPerSec float64 `json:"requests_per_sec"`

	// Latency of every request, in milliseconds.
	P50Ms float64 `json:"p50_ms"`
	P95Ms float64 `json:"p95_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`

	// Outcomes counts requests by outcome; they sum to Requests.
	Outcomes map[string]int `json:"outcomes"`
	// Errors counts requests that failed other than by an expected refusal
	// (insufficient_stock, reservation_expired); ErrorSample is the first.
	Errors      int    `json:"errors"`
	ErrorSample string `json:"error_sample,omitempty"`

	// UnitsSold is the units of successful checkouts or confirms.
	UnitsSold int64 `json:"units_sold"`
	// Booking and onsale: holds left to expire, and holds the in-process
	// sweeps expired during the run (and onsale's final sweep).
	Abandoned int `json:"abandoned_holds,omitempty"`
	Swept     int `json:"swept_holds,omitempty"`

	// OnSale is what only the onsale workload measures: holds and seats
	// per second, the seats left, orphans. Nil for the other workloads.
	OnSale *OnSaleResult `json:"onsale,omitempty"`
	// Room is what only the waiting-room workload measures: joins, the
	// sell-out and its notice, the holds with and without the crowd, the
	// order of admission. Nil for the other workloads. Its OnSale is the
	// crowd's event's.
	Room *RoomResult `json:"room,omitempty"`

	// Dropped is the arrivals of an arrival-rate run that found every
	// client busy, and were not sent.
	Dropped int `json:"dropped,omitempty"`
	// Timeline is the run second by second: the load asked for, the
	// requests that ended and their latency.
	Timeline []TimePoint `json:"timeline,omitempty"`
	// Thresholds is how the run fared against Options.Thresholds.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`

	// CPU and DBWaits are what Options.Probes saw, if any.
	CPU     []CPUUse `json:"cpu,omitempty"`
	DBWaits *DBWaits `json:"db_waits,omitempty"`

	// InvariantsOK is false if any check below failed; Violations says
	// which.
	InvariantsOK bool     `json:"invariants_ok"`
	Violations   []string `json:"violations,omitempty"`
	// Reconcile is "ok", the engine's mismatches, or why it was not run.
	Reconcile string `json:"reconcile"`
}

// Run runs the workload on each strategy in turn (or once on the
// Service) and returns the report. When a run breaks an invariant it
// still runs the rest, and returns the report with an error wrapping
// ErrInvariant. Its calls to an engine in process are the service's own
// (stockade.System); a Service over HTTP authenticates them with its key.
func Run(ctx context.Context, opts *Options) (*Report, error) {
	ctx = stockade.WithActor(ctx, stockade.System)
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	rep := &Report{Workload: o.Workload, Store: o.StoreName, Clients: o.Clients, Stock: o.Stock, SKUs: o.SKUs,
		Stages: o.Stages, ArrivalRate: o.ArrivalRate, Rate: o.Rate}
	if o.Requests > 0 {
		rep.Requests = o.Requests
	} else {
		rep.Duration = o.Duration
	}
	if o.Workload == WaitingRoom {
		rep.Clients, rep.Room = 0, roomSetup(o)
	}
	// Runs share the store, so their SKUs carry a prefix of their own.
	prefix := "bench-" + strings.ToLower(rand.Text()[:8]) + "-"

	var broken, missed []string
	add := func(res Result) {
		rep.Results = append(rep.Results, res)
		if !res.InvariantsOK {
			broken = append(broken, res.Strategy+": "+strings.Join(res.Violations, "; "))
		}
		for _, th := range res.Thresholds {
			if !th.OK {
				missed = append(missed, fmt.Sprintf("%s: %s (was %s)", res.Strategy, th.Threshold, formatActual(th)))
			}
		}
	}
	if o.Service != nil {
		t := target{name: o.ServiceName, svc: o.Service}
		t.bk, _ = o.Service.(stockade.BookingService)
		res, err := runOne(ctx, o, t, prefix+"svc-")
		if err != nil {
			return rep, err
		}
		add(res)
	}
	for _, s := range o.Strategies {
		t, err := newTarget(ctx, o, s)
		if err != nil {
			return rep, err
		}
		run := runOne
		if o.Workload == WaitingRoom {
			run = runRoom
		}
		res, err := run(ctx, o, t, prefix+s+"-")
		if err != nil {
			return rep, err
		}
		add(res)
	}
	var errs []error
	if len(broken) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrInvariant, strings.Join(broken, " | ")))
	}
	if len(missed) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrThreshold, strings.Join(missed, " | ")))
	}
	return rep, errors.Join(errs...)
}

// target is what one run drives.
type target struct {
	name      string // the strategy, or the service's name
	effective string
	svc       stockade.StockService
	bk        stockade.BookingService // svc, if it sells seats; else nil
	eng       *engine.Engine          // nil for a service
}

// newTarget builds the engine of strategy on o.Store. The lock strategy
// gets an in-memory Locker whose tokens start above every fence the store
// has seen, or its writes would be refused as stale.
func newTarget(ctx context.Context, o Options, strategy string) (target, error) {
	eo := &engine.Options{Strategy: strategy, Timeout: o.Timeout, Logger: o.Logger}
	if strategy == engine.Lock {
		top, err := engine.MaxFence(ctx, o.Store)
		if err != nil {
			return target{}, fmt.Errorf("bench: %s: %w", strategy, err)
		}
		eo.Locker = memlock.New(&memlock.Options{FirstToken: top + 1})
	}
	eng, err := engine.New(o.Store, eo)
	if err != nil {
		return target{}, fmt.Errorf("bench: %s: %w", strategy, err)
	}
	return target{name: strategy, effective: eng.Strategy(), svc: eng, bk: eng, eng: eng}, nil
}

// runOne sets up the workload's stock under prefix, runs the clients, and
// checks the invariants.
func runOne(ctx context.Context, o Options, t target, prefix string) (Result, error) {
	w := newWorkload(o.Workload, prefix, o.HoldTTL, o.SKUs)
	if err := w.setup(ctx, t, o.Stock); err != nil {
		return Result{}, fmt.Errorf("bench: %s: set up: %w", t.name, err)
	}
	fmt.Fprintf(o.Progress, "bench: %s: %s, %d clients, %s\n", t.name, o.Workload, o.Clients, limitText(o))

	var (
		issued atomic.Int64 // requests claimed, for Requests
		done   atomic.Int64 // requests finished, for progress
		stop   atomic.Bool  // Duration passed
	)
	// over is closed, and stop set, when the run is over: Duration passed,
	// ctx ended, or a client found nothing left to sell.
	over := make(chan struct{})
	finish := sync.OnceFunc(func() {
		stop.Store(true)
		close(over)
	})
	gate := newGate(o, over)
	// claim reserves the right to send one more request.
	claim := func() bool {
		if stop.Load() || ctx.Err() != nil {
			return false
		}
		if o.Requests > 0 && issued.Add(1) > int64(o.Requests) {
			return false
		}
		return true
	}

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var bg sync.WaitGroup
	var swept atomic.Int64
	if t.eng != nil && w.sweeps() {
		bg.Go(func() { sweepLoop(runCtx, t.eng, o.Logger, &swept) })
	}
	if err := beginProbes(ctx, o.Probes); err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, err)
	}
	start := time.Now()
	if o.Requests == 0 {
		timer := time.AfterFunc(o.Duration, finish)
		defer timer.Stop()
	}
	bg.Go(func() {
		select {
		case <-runCtx.Done():
			finish()
		case <-over:
		}
	})
	if gate != nil {
		bg.Go(func() { gate.run(runCtx, start) })
	}
	bg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastAt := int64(0), start
		for {
			select {
			case <-runCtx.Done():
				return
			case now := <-tick.C:
				n := done.Load()
				fmt.Fprintf(o.Progress, "bench: %s: %d requests, %.0f ops/s\n",
					t.name, n, float64(n-last)/now.Sub(lastAt).Seconds())
				last, lastAt = n, now
			}
		}
	})

	tallies := make([]*tally, o.Clients)
	var clients sync.WaitGroup
	for i := range o.Clients {
		tl := newTally()
		tallies[i] = tl
		clients.Go(func() {
			c := &client{svc: t.svc, bk: t.bk, t: tl, claim: claim, stop: finish,
				done: &done, rng: newRand(uint64(i)), start: start}
			if gate != nil {
				c.claim = gate.claim(i, claim)
			}
			w.client(ctx, c)
		})
	}
	clients.Wait()
	elapsed := time.Since(start)
	all := newTally()
	for _, tl := range tallies {
		all.merge(tl)
	}
	res := all.result(t.name, elapsed)
	probeErr := endProbes(o.Probes, &res)
	cancelRun()
	bg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, err)
	}
	if probeErr != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, probeErr)
	}
	res.Effective = t.effective
	res.Swept = int(swept.Load())
	load := func(time.Duration) float64 { return float64(o.Clients) }
	if gate != nil {
		load = gate.level
		res.Dropped = int(gate.dropped.Load())
	}
	res.Timeline = timeline(all.ends, all.lat, elapsed, load)
	res.Thresholds = checkThresholds(o.Thresholds, res, all.lat)

	// Invariants: read back what the run left, with a context of its own
	// so that a slow store does not fail the check for lack of time.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	viol, err := w.check(cctx, t, o.Stock, all, &res)
	if err != nil {
		return res, fmt.Errorf("bench: %s: check: %w", t.name, err)
	}
	if t.eng != nil {
		text, rviol, err := reconcileEngine(cctx, t.eng)
		if err != nil {
			return res, fmt.Errorf("bench: %s: reconcile: %w", t.name, err)
		}
		res.Reconcile = text
		viol = append(viol, rviol...)
	} else {
		res.Reconcile = "not available over HTTP: checked the totals through Stock only"
		if w.on != nil {
			res.Reconcile = "not available over HTTP: checked the seats through Seats and Event only"
		}
	}
	res.Violations = viol
	res.InvariantsOK = len(viol) == 0
	ok := "invariants ok"
	if !res.InvariantsOK {
		ok = "INVARIANTS BROKEN: " + strings.Join(viol, "; ")
	}
	fmt.Fprintf(o.Progress, "bench: %s: done: %d requests in %.1fs, %.0f ok/s, p99 %.1fms, %s\n",
		t.name, res.Requests, res.Seconds, res.Throughput, res.P99Ms, ok)
	return res, nil
}

// reconcileEngine runs eng's Reconcile and says what it found, and what
// is wrong if anything is.
func reconcileEngine(ctx context.Context, eng *engine.Engine) (text string, viol []string, err error) {
	r, err := eng.Reconcile(ctx)
	switch {
	case err != nil:
		return "", nil, err
	case r.OK && r.Shows > 0:
		return fmt.Sprintf("ok (%d shows match their seat history, %d levels match the whole ledger and the records)", r.Shows, r.Levels), nil, nil
	case r.OK:
		return fmt.Sprintf("ok (%d levels match the whole ledger and the records)", r.Levels), nil, nil
	}
	var ms []string
	for _, m := range r.Mismatches {
		ms = append(ms, m.String())
	}
	for _, m := range r.ShowMismatches {
		ms = append(ms, m.String())
	}
	return "mismatches: " + strings.Join(ms, "; "),
		[]string{"reconcile: levels or seats do not match the ledger, the records or the seat history: " + strings.Join(ms, "; ")}, nil
}

// sweepLoop runs eng's Sweep every sweepEvery until ctx ends, as serve's
// sweeper would, and counts the holds and reservations it expired.
func sweepLoop(ctx context.Context, eng *engine.Engine, log *slog.Logger, swept *atomic.Int64) {
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n, err := eng.Sweep(ctx)
		swept.Add(int64(n))
		if err != nil && ctx.Err() == nil {
			log.Error("bench: sweep", "err", err)
		}
	}
}

// limitText says how a run ends, and its load's shape, for progress and
// reports.
func limitText(o Options) string {
	switch {
	case o.Requests > 0:
		return fmt.Sprintf("%d requests", o.Requests)
	case o.Rate > 0:
		return fmt.Sprintf("%v at %g requests/s", o.Duration, o.Rate)
	case len(o.Stages) > 0 && o.ArrivalRate:
		return fmt.Sprintf("stages of requests/s %s", stagesString(o.Stages))
	case len(o.Stages) > 0:
		return fmt.Sprintf("stages of clients %s", stagesString(o.Stages))
	}
	return o.Duration.String()
}

// formatActual writes a threshold's measured value in its metric's unit.
func formatActual(th ThresholdResult) string {
	switch {
	case strings.HasPrefix(th.Threshold, "errors"):
		return fmt.Sprintf("%.2f%%", 100*th.Actual)
	case strings.HasPrefix(th.Threshold, "throughput"):
		return fmt.Sprintf("%.0f/s", th.Actual)
	}
	return fmt.Sprintf("%.1fms", th.Actual)
}
