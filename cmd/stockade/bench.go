package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/bench"
)

// benchConfig is what bench's flags and environment say.
type benchConfig struct {
	opts   bench.Options // without Store, Service and Progress
	store  *storeSpec    // nil: a temporary SQLite file
	urls   []string      // of the services to drive, with -url; several take turns
	key    string        // the API key sent with -url
	asJSON bool
	chart  string
	// timelineChart is where to draw the runs' timelines, if anywhere.
	timelineChart string
	// instances are the numbers of serve processes to run on the store,
	// each a point, with -instances; serveBin is the binary they run, and
	// locker the -locker they share.
	instances []int
	serveBin  string
	locker    string
	// sweepVar is the variable swept (bench.SweepClients or SweepSKUs)
	// over sweepValues, or "" for one run.
	sweepVar    string
	sweepValues []int
	cpuProf     string // write a CPU profile of the process here
	logLevel    slog.Level
	// dbWaits samples the PostgreSQL store's wait events during each run;
	// cpuCost reads the processes' CPU per successful request.
	dbWaits bool
	cpuCost bool
}

func parseBench(args []string, getenv func(string) string, stdout, stderr io.Writer) (benchConfig, error) {
	var c benchConfig
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade bench [flags]

Runs a workload on each strategy in turn, in this process, on the same
store (each run on SKUs of its own, stock set fresh), and prints a table:
successful and total requests per second, latency p50/p95/p99/max and
outcomes. After each run it checks that nothing was oversold and that the
ledger balances; if not, it says so and exits non-zero. With -url it drives
a running "stockade serve" over HTTP instead, whatever its strategy.

workloads:
  flash-sale  one SKU at one location; every request a checkout of 1 unit
  carts       200 SKUs over 3 locations, Zipf popularity; checkouts of 1-4
              lines of distinct SKUs, 1-3 units each, in random order
  booking     20 SKUs; holds of 1-2 units with a short TTL, 70% confirmed
              after 5-50ms, the rest left to expire (swept every 250ms)
  onsale      one event of -stock seats (default 10000: 10 sections of 25
              rows of 40); holds of 1-6 best-available seats side by side,
              or (10%) a named pair of the 24 seats nearest the stage; 80%
              confirmed at once, the rest left to expire (-hold-ttl). Ends
              when every seat is booked or at -duration. Reports holds/s,
              seats booked/s, the seats left and orphans (free seats with
              no free neighbour); checks that no seat was in two holds or
              bookings at once and that the seats match what the clients
              booked. Any error but sold_out, seats_unavailable and
              hold_expired fails the run
  waiting-room
              onsale's event behind a waiting room (active limit
              -room-active, -room-rate admitted a minute, -room-per-visitor
              seats counted per visitor, admissions of -room-ttl), opening
              as a crowd of -visitors arrives over -ramp, a goroutine each:
              each joins, watches its ticket, and once admitted holds once
              as onsale's buyers do. The room's admissions and the sweeper
              run every 250ms beside them. Ends when every visitor bought,
              held nothing or was told of the sell-out, when the room can
              admit no one ever again (stalled), or at -duration (default
              1m). Then a baseline of -room-active visitors at the crowd's
              pace (-room-baseline=false skips it). Reports joins/s, the
              time to sell out, the holds' p99 with and without the crowd,
              how late the sold-out notice reached the visitors waiting,
              and how far admission departed from the promised order;
              checks the seats as onsale does and the room's places and
              admissions. In process only (not with -url or -instances)

flags:
`)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	workload := fs.String("workload", bench.FlashSale, "`workload`: "+strings.Join(bench.Workloads(), ", "))
	store := env.String("store", "STOCKADE_STORE", "", storeUsage+"\n(default: a temporary SQLite file, removed afterwards)")
	svcURL := fs.String("url", "", "drive the running service at this base `URL` over HTTP instead of in-process engines; a comma-separated\nlist drives several instances of one service, a request to each in turn")
	key := env.String("key", "STOCKADE_KEY", "", "with -url: the API `key` to send: an admin's (the bench sets locations and stock), with a rate\nabove the bench's (keys create -rate-limit); none for a server started with -open")
	strategies := fs.String("strategies", "", "comma-separated `strategies` to run, in order (default: "+strings.Join(bench.Strategies(), ",")+")")
	clientsFlag := fs.String("clients", "64", "concurrent `clients`; a comma-separated list, such as 1,16,64,256,1024, runs the bench\nat each (a sweep): one table, -json object and -chart line per strategy and point")
	instancesFlag := fs.String("instances", "", "start this many `instances` of \"stockade serve\" on -store (PostgreSQL) for each strategy and drive\nthem together over HTTP, a request to each in turn; a comma-separated list, such as 1,2,4, sweeps them")
	serveBin := fs.String("serve-bin", "", "with -instances: the stockade `binary` to start (default: this one)")
	lockerFlag := fs.String("locker", "", "with -instances: the -locker the instances share, for the lock strategy (redis://…, etcd://… or postgres)")
	skusFlag := fs.String("skus", "", "carts: how many `SKUs` to sell (default 200, at most 100000); a comma-separated list sweeps them")
	duration := fs.Duration("duration", 10*time.Second, "how long each strategy runs; waiting-room: the longest each pass may last (default there 1m)")
	requests := fs.Int("requests", 0, "stop each run after this many requests instead of after -duration")
	stock := fs.Int64("stock", 0, "on-hand units set on every level before each run; onsale and waiting-room: the event's seats\n(default: enough to sell out partway with -requests; 1000000 for flash-sale and 10000 otherwise with -duration)")
	ttl := fs.Duration("hold-ttl", 2*time.Second, "booking, onsale and waiting-room: how long a hold lasts (whole seconds)")
	asJSON := fs.Bool("json", false, "print the results as a JSON list, one object per strategy, instead of a table")
	chart := fs.String("chart", "", "also draw the results as an SVG bar chart into this `file`")
	timelineChart := fs.String("timeline-chart", "", "also draw each run's p99 latency and requests per second, second by second, with the\nload asked for, as an SVG line chart into this `file`")
	dbWaits := fs.Bool("db-waits", false, "sample the -store PostgreSQL's pg_stat_activity every 10ms during each run, and report\nwhat its sessions were doing: running, or waiting, and on what (Lock:transactionid, IO:WALSync, …)")
	cpuCost := fs.Bool("cpu-cost", false, "report the CPU that each run cost, per successful request and in cores: this process,\nthe -instances, the -store PostgreSQL if it is on this machine, and the whole machine (Linux /proc)")
	cpuProf := fs.String("cpuprofile", "", "write a CPU profile of this process (engines and clients; not the database) to `file`, for go tool pprof")
	level := fs.String("log-level", "error", "`level` of the engines' log: debug, info (strategy fallbacks), warn (calls that gave up) or error")
	stagesFlag := fs.String("stages", "", "shape each run's load as k6's stages: `DURATION:TARGET,…`, such as 10s:50,20s:100,10s:0, each\nmoving the clients (or with -arrival-rate the requests started per second) in a straight line\nto its target, from 0; the run lasts as long as the stages, and -clients is the largest target\n(with -arrival-rate, -clients is the most requests in flight). Not with -duration or -requests")
	arrival := fs.Bool("arrival-rate", false, "the targets of -stages are requests started per second (an open model), not clients")
	rate := fs.Float64("rate", 0, "start this many `requests` per second for -duration (an open model), on at most -clients at\nonce; a request that finds every client busy is dropped and counted. Not with -stages")
	visitors := fs.Int("visitors", 0, fmt.Sprintf("waiting-room: how many `visitors` arrive, at most %d (default 10 × -room-active)", bench.MaxVisitors))
	ramp := fs.Duration("ramp", 0, "waiting-room: the crowd arrives evenly over this `duration`, the first visitor as the room opens (default 5s)")
	roomActive := fs.Int64("room-active", 0, "waiting-room: the room's active limit: the most admissions in force at once (default 500)")
	roomRate := fs.Int64("room-rate", 0, "waiting-room: how many `visitors` the room admits a minute (default 60 × -room-active)")
	roomPer := fs.Int64("room-per-visitor", 0, "waiting-room: the `seats` the room counts per admitted visitor against the seats left (default 6)")
	roomTTL := fs.Duration("room-ttl", 0, "waiting-room: how long an admission lasts, whole seconds (default 1m). The room counts an admission\nagainst its active limit until its visitor leaves, which each does once it has bought or given up, or it expires")
	baseline := fs.Bool("room-baseline", true, "waiting-room: after the crowd, run a baseline of -room-active visitors at the crowd's pace, for the holds' p99 without the crowd")
	var thresholds []bench.Threshold
	fs.Func("threshold", "a bound every run must keep, or the command fails naming it, as k6's: `METRIC<VALUE`,\nsuch as p95<500ms, p99.9<=2s, max<5s, errors<1% or throughput>1000; repeat for more", func(v string) error {
		th, err := bench.ParseThreshold(v)
		if err == nil {
			thresholds = append(thresholds, th)
		}
		return err
	})
	if err := env.Parse(args); err != nil {
		return c, fmt.Errorf("bench: %w", err)
	}
	fail := func(format string, args ...any) (benchConfig, error) {
		return c, fmt.Errorf("bench: "+format, args...)
	}
	if *workload == bench.WaitingRoom {
		for _, f := range []struct{ name, why string }{
			{"url", "it runs in process only, on -store"},
			{"instances", "it runs in process only, on -store"},
			{"clients", "each visitor is a client of its own (-visitors)"},
			{"requests", "a run ends when the room has sold out and every visitor knows it, or at -duration"},
			{"stages", "the crowd arrives over -ramp"},
			{"rate", "the crowd arrives over -ramp"},
			{"arrival-rate", "the crowd arrives over -ramp"},
		} {
			if isSet(fs, f.name) {
				return fail("-%s does not apply to waiting-room: %s", f.name, f.why)
			}
		}
		switch {
		case isSet(fs, "visitors") && (*visitors < 1 || *visitors > bench.MaxVisitors):
			return fail("-visitors must be between 1 and %d, got %d", bench.MaxVisitors, *visitors)
		case isSet(fs, "ramp") && *ramp <= 0:
			return fail("-ramp must be positive, got %v", *ramp)
		case isSet(fs, "ramp") && isSet(fs, "duration") && *ramp >= *duration:
			return fail("-ramp (%v) must be shorter than -duration (%v)", *ramp, *duration)
		case isSet(fs, "room-active") && (*roomActive < 1 || *roomActive > stockade.MaxRoomActiveLimit):
			return fail("-room-active must be between 1 and %d, got %d", stockade.MaxRoomActiveLimit, *roomActive)
		case isSet(fs, "room-rate") && (*roomRate < 1 || *roomRate > stockade.MaxRoomAdmitPerMinute):
			return fail("-room-rate must be between 1 and %d a minute, got %d", stockade.MaxRoomAdmitPerMinute, *roomRate)
		case isSet(fs, "room-per-visitor") && (*roomPer < 1 || *roomPer > stockade.MaxHoldSeats):
			return fail("-room-per-visitor must be between 1 and %d, got %d", stockade.MaxHoldSeats, *roomPer)
		case isSet(fs, "room-ttl") && (*roomTTL < time.Second || *roomTTL > stockade.MaxAdmissionTTL || *roomTTL%time.Second != 0):
			return fail("-room-ttl must be whole seconds, from 1s to %v, got %v", stockade.MaxAdmissionTTL, *roomTTL)
		}
		c.opts.Visitors, c.opts.Ramp, c.opts.RoomActive, c.opts.RoomRate = *visitors, *ramp, *roomActive, *roomRate
		c.opts.RoomPerVisitor, c.opts.RoomAdmissionTTL, c.opts.NoBaseline = *roomPer, *roomTTL, !*baseline
	} else {
		for _, f := range []string{"visitors", "ramp", "room-active", "room-rate", "room-per-visitor", "room-ttl", "room-baseline"} {
			if isSet(fs, f) {
				return fail("-%s is the waiting-room workload's", f)
			}
		}
	}
	if isSet(fs, "requests") && isSet(fs, "duration") {
		return fail("give -duration or -requests, not both")
	}
	if *stagesFlag != "" {
		if isSet(fs, "requests") || isSet(fs, "duration") {
			return fail("-stages set how long each run lasts: give no -duration or -requests with them")
		}
		if isSet(fs, "rate") {
			return fail("give -rate or -stages, not both (-stages with -arrival-rate ramps the rate)")
		}
		if isSet(fs, "clients") && !*arrival {
			return fail("-clients does not apply with -stages: the largest target is the clients (with -arrival-rate, -clients bounds the requests in flight)")
		}
		st, err := bench.ParseStages(*stagesFlag)
		if err != nil {
			return fail("-stages: %w", err)
		}
		c.opts.Stages, c.opts.ArrivalRate = st, *arrival
	} else if *arrival {
		return fail("-arrival-rate goes with -stages, whose targets it makes rates; for a constant rate give -rate")
	}
	if isSet(fs, "rate") {
		if !(*rate > 0 && *rate <= 1_000_000) {
			return fail("-rate must be above 0 and at most 1000000 requests per second, got %g", *rate)
		}
		if isSet(fs, "requests") {
			return fail("-rate runs for -duration: give no -requests with it")
		}
		c.opts.Rate = *rate
	}
	c.opts.Thresholds = thresholds
	clientList, err := parseCounts("-clients", *clientsFlag, 1_000_000)
	if err != nil {
		return fail("%w", err)
	}
	var skuList []int
	if *skusFlag != "" {
		if *workload != bench.Carts {
			return fail("-skus is the carts workload's; %s has its own", *workload)
		}
		if skuList, err = parseCounts("-skus", *skusFlag, 100_000); err != nil {
			return fail("%w", err)
		}
	}
	switch {
	case len(clientList) > 1 && len(skuList) > 1:
		return fail("sweep -clients or -skus, not both at once")
	case len(clientList) > 1:
		if *stagesFlag != "" && !*arrival {
			return fail("-stages set the clients: sweep -clients or give -stages, not both")
		}
		c.sweepVar, c.sweepValues = bench.SweepClients, clientList
	case len(skuList) > 1:
		c.sweepVar, c.sweepValues = bench.SweepSKUs, skuList
	}
	if *instancesFlag != "" {
		if c.instances, err = parseCounts("-instances", *instancesFlag, 64); err != nil {
			return fail("%w", err)
		}
		switch {
		case *svcURL != "":
			return fail("-instances starts its own services; -url drives running ones (a comma-separated list drives several)")
		case *store == "" || !strings.HasPrefix(*store, "postgres"):
			return fail("-instances needs -store postgres://…: the instances share one database")
		case c.sweepVar != "":
			return fail("sweep -instances or %s, not both at once", "-"+c.sweepVar)
		case *timelineChart != "":
			return fail("-timeline-chart draws one run; -instances runs several (its -json has each run's timeline)")
		}
		c.serveBin, c.locker = *serveBin, *lockerFlag
		if c.serveBin == "" {
			if c.serveBin, err = serveBinary(); err != nil {
				return fail("%w", err)
			}
		}
	} else if *serveBin != "" || *lockerFlag != "" {
		return fail("-serve-bin and -locker go with -instances")
	}
	if c.sweepVar != "" && *timelineChart != "" {
		return fail("-timeline-chart draws one run; a sweep has many (its -json has each point's timeline)")
	}
	if len(skuList) == 1 {
		c.opts.SKUs = skuList[0]
	}
	if *duration <= 0 {
		return fail("-duration must be positive, got %v", *duration)
	}
	if *requests < 0 || (isSet(fs, "requests") && *requests == 0) {
		return fail("-requests must be positive, got %d", *requests)
	}
	if *stock < 0 {
		return fail("-stock must not be negative, got %d", *stock)
	}
	if (*workload == bench.OnSale || *workload == bench.WaitingRoom) && *stock != 0 && (*stock < 2 || *stock > stockade.MaxSeats) {
		return fail("-stock is %s's seats: between 2 and %d, got %d", *workload, stockade.MaxSeats, *stock)
	}
	if *ttl < time.Second || *ttl%time.Second != 0 {
		return fail("-hold-ttl must be whole seconds, at least 1s, got %v", *ttl)
	}
	if !slices.Contains(bench.Workloads(), *workload) {
		return fail("unknown -workload %q (want one of %s)", *workload, strings.Join(bench.Workloads(), ", "))
	}
	if err := c.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return fail("-log-level %q: want debug, info, warn or error", *level)
	}
	if *svcURL != "" {
		for _, one := range strings.Split(*svcURL, ",") {
			u, err := url.Parse(one)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("-url %q: want http://HOST:PORT, or a comma-separated list of them", redact(one))
			}
			c.urls = append(c.urls, strings.TrimRight(one, "/"))
		}
		if isSet(fs, "strategies") {
			return fail("-strategies does not apply with -url: the service runs its own strategy")
		}
		if isSet(fs, "store") {
			return fail("-store does not apply with -url: the service has its own store")
		}
		c.key = *key
	} else {
		if *key != "" {
			return fail("-key goes with -url: in-process engines take no keys")
		}
		if *store != "" {
			spec, err := parseStore(*store)
			if err != nil {
				return fail("%w", err)
			}
			c.store = &spec
		}
		if isSet(fs, "strategies") {
			c.opts.Strategies = splitList(*strategies)
			if len(c.opts.Strategies) == 0 {
				return fail("-strategies: none given")
			}
			for _, s := range c.opts.Strategies {
				if !slices.Contains(bench.Strategies(), s) {
					return fail("-strategies: unknown strategy %q (want %s)", s, strings.Join(bench.Strategies(), ", "))
				}
			}
		}
	}
	c.opts.Workload, c.opts.Clients, c.opts.Stock, c.opts.HoldTTL = *workload, clientList[0], *stock, *ttl
	switch {
	case *workload == bench.WaitingRoom:
		c.opts.Clients = 0 // the visitors
		if isSet(fs, "duration") {
			c.opts.Duration = *duration
		}
	case len(c.opts.Stages) > 0: // they set the length
	case *requests > 0:
		c.opts.Requests = *requests
	default:
		c.opts.Duration = *duration
	}
	if *dbWaits && (c.store == nil || c.store.kind != "postgres") {
		return fail("-db-waits reads PostgreSQL's pg_stat_activity: it needs -store postgres://…")
	}
	c.asJSON, c.chart, c.timelineChart, c.cpuProf = *asJSON, *chart, *timelineChart, *cpuProf
	c.dbWaits, c.cpuCost = *dbWaits, *cpuCost
	return c, nil
}

func benchCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseBench(args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	if c.cpuProf != "" {
		stop, err := startCPUProfile(c.cpuProf)
		if err != nil {
			return err
		}
		defer stop()
	}
	o := c.opts
	o.Progress = stderr
	o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: c.logLevel}))

	if len(c.instances) > 0 {
		return runInstances(ctx, c, o, stdout, stderr)
	}
	if len(c.urls) > 0 {
		hc := &http.Client{
			Timeout:   time.Minute,
			Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxIdleConns: o.Clients * len(c.urls)},
		}
		defer hc.CloseIdleConnections()
		svcs := make([]stockade.StockService, len(c.urls))
		names := make([]string, len(c.urls))
		for i, u := range c.urls {
			svcs[i] = httpapi.NewClient(u, hc).WithKey(c.key)
			names[i] = redact(u)
		}
		o.Service = bench.Spread(svcs...)
		o.StoreName = "service at " + strings.Join(names, ", ")
		if len(c.urls) > 1 {
			o.StoreName = fmt.Sprintf("%d services, in turn, at %s", len(c.urls), strings.Join(names, ", "))
		}
	} else {
		spec := c.store
		if spec == nil {
			dir, err := os.MkdirTemp("", "stockade-bench-")
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			defer os.RemoveAll(dir)
			spec = &storeSpec{kind: "sqlite", path: filepath.Join(dir, "bench.db")}
		}
		st, err := openStore(ctx, *spec, false)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer st.Close()
		if err := st.Migrate(ctx); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		o.Store = st
		o.StoreName = spec.String()
		if c.store == nil {
			o.StoreName = "sqlite (temporary file)"
		}
	}

	probes, closeProbes := c.probes(nil)
	defer closeProbes()
	o.Probes = probes
	if c.sweepVar != "" {
		return runSweep(ctx, c, o, stdout, stderr)
	}
	rep, runErr := bench.Run(ctx, &o)
	if rep == nil {
		return runErr
	}
	if bench.Judged(runErr) {
		// The results are worth seeing even when an invariant broke or a
		// threshold was missed.
		var werr error
		if c.asJSON {
			werr = rep.WriteJSON(stdout)
		} else {
			werr = rep.WriteText(stdout)
		}
		if werr != nil {
			return fmt.Errorf("bench: %w", werr)
		}
		if c.chart != "" {
			if err := writeChart(c.chart, "-chart", rep.WriteSVG); err != nil {
				return err
			}
		}
		if c.timelineChart != "" {
			if err := writeChart(c.timelineChart, "-timeline-chart", rep.WriteTimelineSVG); err != nil {
				return err
			}
		}
	}
	sayFailed(stderr, runErr)
	return runErr
}

// probes are the probes c asks for, each run's; serve are the process IDs
// of the service instances the bench started, if any. closeProbes closes
// their connections.
func (c benchConfig) probes(serve []int) (probes []bench.Probe, closeProbes func()) {
	closeProbes = func() {}
	if c.cpuCost {
		cost := &bench.CPUCost{Serve: serve}
		if c.store != nil && c.store.local() {
			cost.Postgres = c.store.url
		}
		probes = append(probes, cost)
	}
	if c.dbWaits {
		w := &bench.PGWaits{DSN: c.store.url}
		probes = append(probes, w)
		closeProbes = func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			w.Close(ctx)
		}
	}
	return probes, closeProbes
}

// sayFailed tells stderr, after the results, why the command fails when
// a run broke an invariant or missed a threshold.
func sayFailed(stderr io.Writer, err error) {
	if errors.Is(err, bench.ErrInvariant) {
		fmt.Fprintln(stderr, "stockade bench: FAILED: an invariant broke; see the notes above")
	}
	if errors.Is(err, bench.ErrThreshold) {
		fmt.Fprintln(stderr, "stockade bench: FAILED: a threshold was missed; see the thresholds above")
	}
}

// runSweep runs the bench at each of c's sweep values and writes the
// sweep as bench does one run.
func runSweep(ctx context.Context, c benchConfig, o bench.Options, stdout, stderr io.Writer) error {
	sw, runErr := bench.RunSweep(ctx, &o, c.sweepVar, c.sweepValues)
	if sw == nil || !bench.Judged(runErr) {
		return runErr
	}
	return writeSweep(c, sw, runErr, stdout, stderr)
}

// writeSweep writes sw as a table or JSON, and its chart if c asks for
// one, and returns runErr, the sweep's judgement, after saying why it
// fails.
func writeSweep(c benchConfig, sw *bench.Sweep, runErr error, stdout, stderr io.Writer) error {
	write := sw.WriteText
	if c.asJSON {
		write = sw.WriteJSON
	}
	if err := write(stdout); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if c.chart != "" {
		if err := writeChart(c.chart, "-chart", sw.WriteSVG); err != nil {
			return err
		}
	}
	sayFailed(stderr, runErr)
	return runErr
}

// parseCounts reads flag's value: a whole number from 1 to most, or a
// comma-separated list of them.
func parseCounts(flag, s string, most int) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %q is not a whole number", flag, part)
		case n < 1:
			return nil, fmt.Errorf("%s must be at least 1, got %d", flag, n)
		case n > most:
			return nil, fmt.Errorf("%s must be at most %d, got %d", flag, most, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench: -cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: -cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeChart writes a chart of the report with draw to path; flag names
// the flag that asked for it, in errors.
func writeChart(path, flag string, draw func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", flag, err)
	}
	if err := draw(f); err != nil {
		f.Close()
		return fmt.Errorf("bench: %s: %w", flag, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: %s: %w", flag, err)
	}
	return nil
}
