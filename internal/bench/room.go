package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
)

// The waiting-room workload: onsale's event with a waiting room in front
// of it, and a crowd many times the room's active limit arriving within a
// few seconds, each visitor a goroutine that joins, watches its ticket,
// and once admitted buys as an onsale client does. See the package
// documentation for its shape.

// Shape of the waiting-room workload.
const (
	roomAdmitEvery     = 250 * time.Millisecond // the admissions' round: serve's default -admit-interval
	roomPoll           = 250 * time.Millisecond // how often the run reads its room
	roomStallPolls     = 2                      // reads in a row that must find the room stalled
	roomChunk          = 1000                   // visitors read per store call after a pass
	roomTokenMargin    = 50 * time.Millisecond  // no hold is sent closer than this to the token's expiry
	roomDeadline       = time.Minute            // Options.Duration's default
	defaultRoomActive  = 500
	defaultRoomPer     = onsaleMaxBest
	defaultRoomTTL     = time.Minute
	defaultRoomRamp    = 5 * time.Second
	maxVisitors        = MaxVisitors
	roomVisitorsPerAct = 10 // Options.Visitors' default, times RoomActive
)

// MaxVisitors bounds Options.Visitors.
const MaxVisitors = 1_000_000

// How a pass of the waiting-room workload ended, for RoomResult.End.
const (
	RoomEndSoldOut  = "sold_out" // the room sold out and every visitor waiting was told
	RoomEndServed   = "served"   // every visitor was served before the seats ran out
	RoomEndStalled  = "stalled"  // the room could admit no one, and nothing could change that
	RoomEndDeadline = "deadline" // Options.Duration passed first
)

// RoomSetup is the waiting room of a waiting-room run, as Options set it.
type RoomSetup struct {
	Visitors       int           `json:"visitors"`
	ActiveLimit    int64         `json:"active_limit"`
	AdmitPerMinute int64         `json:"admit_per_minute"`
	PerVisitor     int64         `json:"per_visitor"`
	AdmissionTTL   time.Duration `json:"admission_ttl_ns"`
	Ramp           time.Duration `json:"ramp_ns"`
	HoldTTL        time.Duration `json:"hold_ttl_ns"`
	// Baseline is whether each run has a pass without the crowd.
	Baseline bool `json:"baseline"`
}

// RoomResult is what a run of the waiting-room workload measured beside
// the requests (holds and confirms) of its Result, which are the crowd
// pass's.
type RoomResult struct {
	// Visitors counts the crowd; Joined those who took a place, and
	// TurnedAway those whose join was refused because the room had sold
	// out.
	Visitors   int `json:"visitors"`
	Joined     int `json:"joined"`
	TurnedAway int `json:"turned_away,omitempty"`
	// JoinsPerSec is the joins that succeeded over the time from the
	// first join's start to the last of them's end (with none failed,
	// the visitors over the time from the first join's start to the
	// last's end); JoinP50Ms and JoinP99Ms the latency of every join,
	// failed ones too.
	JoinsPerSec float64 `json:"joins_per_sec"`
	JoinP50Ms   float64 `json:"join_p50_ms"`
	JoinP99Ms   float64 `json:"join_p99_ms"`
	// Failed counts the joins and watches that failed, other than a join
	// refused because the room sold out; they break the run. A join that
	// failed may have taken a place all the same (its outcome is
	// unknown), which the room then admits in its turn.
	Failed int `json:"failed"`
	// Admitted counts the visitors the room admitted; Bought those of
	// them who held seats, and NoSeats those who held none: the seats
	// were gone or their admission ran out first.
	Admitted int `json:"admitted"`
	Bought   int `json:"bought"`
	NoSeats  int `json:"no_seats"`
	// End is how the pass ended: RoomEndSoldOut, RoomEndServed,
	// RoomEndStalled (Stalled says why) or RoomEndDeadline.
	End     string `json:"end"`
	Stalled string `json:"stalled,omitempty"`
	// SoldOut is whether the room sold out, and SellOutSec how long after
	// its opening (its SoldOutAt less its OpensAt).
	SoldOut    bool    `json:"sold_out"`
	SellOutSec float64 `json:"sell_out_sec,omitempty"`
	// Holds counts the hold requests, successful or not, and HoldP50Ms
	// and HoldP99Ms are their latency.
	Holds     int     `json:"holds"`
	HoldP50Ms float64 `json:"hold_p50_ms"`
	HoldP99Ms float64 `json:"hold_p99_ms"`
	// Told counts the visitors still waiting when the room sold out whose
	// watch told them so, and Notice* how late: the time the watch
	// delivered the sold_out ticket less the room's SoldOutAt.
	// StillWaiting counts the visitors waiting when the pass ended, never
	// admitted nor told.
	Told         int     `json:"told"`
	NoticeP50Ms  float64 `json:"notice_p50_ms,omitempty"`
	NoticeP99Ms  float64 `json:"notice_p99_ms,omitempty"`
	NoticeMaxMs  float64 `json:"notice_max_ms,omitempty"`
	StillWaiting int     `json:"still_waiting"`
	// LateAdmissions counts the visitors admitted whose place is after
	// that of a visitor never admitted, and Inversions the pairs of
	// visitors admitted the one at the lower place later than the other:
	// how far admission departed from the promised order. Both 0 is
	// an invariant.
	LateAdmissions int   `json:"late_admissions"`
	Inversions     int64 `json:"inversions"`
	// Baseline is the pass without the crowd, if there was one, and
	// HoldP99Ratio the crowd's hold p99 over the baseline's.
	Baseline     *RoomBaseline `json:"baseline,omitempty"`
	HoldP99Ratio float64       `json:"hold_p99_ratio,omitempty"`
}

// RoomBaseline is the pass of a waiting-room run without the crowd: as
// many visitors as the room's active limit, arriving as fast as the crowd
// did, on an event and in a room of their own.
type RoomBaseline struct {
	Visitors  int           `json:"visitors"`
	Ramp      time.Duration `json:"ramp_ns"`
	Seconds   float64       `json:"seconds"`
	Holds     int           `json:"holds"`
	HoldP50Ms float64       `json:"hold_p50_ms"`
	HoldP99Ms float64       `json:"hold_p99_ms"`
	End       string        `json:"end"`
}

// roomDefaults applies the waiting-room workload's defaults to c and
// refuses what does not apply to it or is out of range.
func (c *Options) roomDefaults() error {
	switch {
	case c.Service != nil:
		return errors.New("bench: waiting-room runs in process only, on Store: it cannot drive a Service over HTTP")
	case c.Clients != 0:
		return errors.New("bench: waiting-room: clients do not apply: each visitor is a client of its own (Visitors)")
	case c.Requests != 0:
		return errors.New("bench: waiting-room: requests do not apply: a run ends when the room has sold out and every visitor knows it, or at Duration")
	case len(c.Stages) > 0 || c.Rate != 0 || c.ArrivalRate:
		return errors.New("bench: waiting-room: stages and rates do not apply: the crowd arrives over Ramp")
	}
	if c.Duration == 0 {
		c.Duration = roomDeadline
	}
	if c.RoomActive == 0 {
		c.RoomActive = defaultRoomActive
	}
	if c.RoomRate == 0 {
		c.RoomRate = min(60*c.RoomActive, stockade.MaxRoomAdmitPerMinute)
	}
	if c.RoomPerVisitor == 0 {
		c.RoomPerVisitor = defaultRoomPer
	}
	if c.RoomAdmissionTTL == 0 {
		c.RoomAdmissionTTL = defaultRoomTTL
	}
	if c.Visitors == 0 {
		c.Visitors = int(min(roomVisitorsPerAct*c.RoomActive, maxVisitors))
	}
	if c.Ramp == 0 {
		c.Ramp = defaultRoomRamp
	}
	switch {
	case c.RoomActive < 1 || c.RoomActive > stockade.MaxRoomActiveLimit:
		return fmt.Errorf("bench: waiting-room: the room's active limit must be between 1 and %d, got %d", stockade.MaxRoomActiveLimit, c.RoomActive)
	case c.RoomRate < 1 || c.RoomRate > stockade.MaxRoomAdmitPerMinute:
		return fmt.Errorf("bench: waiting-room: the room's rate must be between 1 and %d a minute, got %d", stockade.MaxRoomAdmitPerMinute, c.RoomRate)
	case c.RoomPerVisitor < 1 || c.RoomPerVisitor > stockade.MaxHoldSeats:
		return fmt.Errorf("bench: waiting-room: seats per visitor must be between 1 and %d, got %d", stockade.MaxHoldSeats, c.RoomPerVisitor)
	case c.RoomAdmissionTTL < time.Second || c.RoomAdmissionTTL > stockade.MaxAdmissionTTL || c.RoomAdmissionTTL%time.Second != 0:
		// An admission token carries its expiry in whole seconds.
		return fmt.Errorf("bench: waiting-room: the admission TTL must be whole seconds, from 1s to %v, got %v", stockade.MaxAdmissionTTL, c.RoomAdmissionTTL)
	case c.Visitors < 1 || c.Visitors > maxVisitors:
		return fmt.Errorf("bench: waiting-room: visitors must be between 1 and %d, got %d", maxVisitors, c.Visitors)
	case c.Ramp < 0 || c.Ramp >= c.Duration:
		return fmt.Errorf("bench: waiting-room: the ramp (%v) must be positive and shorter than the duration (%v)", c.Ramp, c.Duration)
	}
	return nil
}

// hasRoomOptions reports whether o sets an option of the waiting-room
// workload.
func (o *Options) hasRoomOptions() bool {
	return o.Visitors != 0 || o.RoomActive != 0 || o.RoomRate != 0 || o.RoomPerVisitor != 0 ||
		o.RoomAdmissionTTL != 0 || o.Ramp != 0 || o.NoBaseline
}

// roomSetup is the report's account of o's room.
func roomSetup(o Options) *RoomSetup {
	return &RoomSetup{Visitors: o.Visitors, ActiveLimit: o.RoomActive, AdmitPerMinute: o.RoomRate, PerVisitor: o.RoomPerVisitor,
		AdmissionTTL: o.RoomAdmissionTTL, Ramp: o.Ramp, HoldTTL: o.HoldTTL, Baseline: !o.NoBaseline}
}

// runRoom runs the waiting-room workload on t: the crowd's pass, then,
// unless o.NoBaseline, the baseline's, each on an event and a room of its
// own under prefix; then it checks both passes' invariants and
// reconciles the engine's records.
func runRoom(ctx context.Context, o Options, t target, prefix string) (Result, error) {
	fmt.Fprintf(o.Progress, "bench: %s: %s, %d visitors over %v, active limit %d, %d admitted a minute, until sold out or %v\n",
		t.name, o.Workload, o.Visitors, o.Ramp, o.RoomActive, o.RoomRate, o.Duration)
	crowd := newRoomPass("crowd", o, t, prefix+"crowd-", o.Visitors, o.Ramp)
	if err := crowd.setup(ctx); err != nil {
		return Result{}, fmt.Errorf("bench: %s: set up: %w", t.name, err)
	}
	if err := beginProbes(ctx, o.Probes); err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, err)
	}
	crowd.run(ctx)
	all := crowd.merged()
	res := all.result(t.name, crowd.elapsed)
	probeErr := endProbes(o.Probes, &res)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, err)
	}
	if probeErr != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", t.name, probeErr)
	}
	res.Effective = t.effective
	res.Timeline = timeline(all.ends, all.lat, crowd.elapsed, crowd.arrived)
	res.Thresholds = checkThresholds(o.Thresholds, res, all.lat)

	// Invariants: read back what the passes left, with a context of their
	// own so that a slow store does not fail the checks for lack of time.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	room, viol, err := crowd.check(cctx, all, &res)
	if err != nil {
		return res, fmt.Errorf("bench: %s: check: %w", t.name, err)
	}
	res.Room = room

	if !o.NoBaseline {
		// As many visitors as may be active at once, arriving at the
		// crowd's pace, so that the room admits them in the same rounds
		// of the same size.
		ramp := time.Duration(float64(o.Ramp) * min(1, float64(o.RoomActive)/float64(o.Visitors))).Round(time.Millisecond)
		base := newRoomPass("baseline", o, t, prefix+"base-", int(min(o.RoomActive, maxVisitors)), ramp)
		if err := base.setup(ctx); err != nil {
			return res, fmt.Errorf("bench: %s: baseline: set up: %w", t.name, err)
		}
		base.run(ctx)
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("bench: %s: baseline: %w", t.name, err)
		}
		ball := base.merged()
		bres := ball.result(t.name, base.elapsed)
		broom, bviol, err := base.check(cctx, ball, &bres)
		if err != nil {
			return res, fmt.Errorf("bench: %s: baseline: check: %w", t.name, err)
		}
		for _, v := range bviol {
			viol = append(viol, "baseline: "+v)
		}
		res.Swept += bres.Swept
		room.Baseline = &RoomBaseline{Visitors: base.visitors, Ramp: ramp, Seconds: bres.Seconds, Holds: broom.Holds,
			HoldP50Ms: broom.HoldP50Ms, HoldP99Ms: broom.HoldP99Ms, End: broom.End}
		if broom.HoldP99Ms > 0 {
			room.HoldP99Ratio = room.HoldP99Ms / broom.HoldP99Ms
		}
	}

	text, rviol, err := reconcileEngine(cctx, t.eng)
	if err != nil {
		return res, fmt.Errorf("bench: %s: reconcile: %w", t.name, err)
	}
	res.Reconcile = text
	res.Violations = append(viol, rviol...)
	res.InvariantsOK = len(res.Violations) == 0
	ok := "invariants ok"
	if !res.InvariantsOK {
		ok = "INVARIANTS BROKEN: " + strings.Join(res.Violations, "; ")
	}
	fmt.Fprintf(o.Progress, "bench: %s: done: %d visitors in %.1fs, %s; hold p99 %.1fms, %s\n",
		t.name, room.Visitors, res.Seconds, room.End, room.HoldP99Ms, ok)
	return res, nil
}

// visitorFate is what became of a visitor.
type visitorFate uint8

const (
	visitorWaiting    visitorFate = iota // waiting still when the pass ended
	visitorTurnedAway                    // its join was refused: sold out
	visitorFailed                        // its join or watch failed
	visitorTold                          // waiting when the room sold out, and told so
	visitorBought                        // admitted, and held seats
	visitorNoSeats                       // admitted, and held none
)

// roomPass is one pass of the waiting-room workload: a crowd of visitors
// in front of an event of its own.
type roomPass struct {
	name     string // "crowd" or "baseline", for progress
	o        Options
	tg       target
	on       *onsale
	roomID   string
	visitors int
	ramp     time.Duration

	// runCtx ends when the pass is over: every visitor done, the room
	// stalled, or Duration passed. Visitors' watches and pauses use it;
	// their requests use the caller's context, so that none is cut short.
	runCtx context.Context
	finish context.CancelFunc

	start   time.Time
	elapsed time.Duration // from start until every visitor was done
	// Each visitor's, by index: when its join began and ended, the place
	// the join gave it, what became of it, when its watch told it the
	// room sold out, and its requests if it was admitted.
	joinStart, joinEnd []time.Time
	place              []int64
	fate               []visitorFate
	told               []time.Time
	tallies            []*tally

	soldOut  atomic.Bool  // the room sold out, as the run learned it
	shopping atomic.Int64 // admitted visitors still buying
	learned  atomic.Int64 // visitors whose watch said admitted or expired
	done     atomic.Int64 // requests finished, for progress
	swept    atomic.Int64
	deadline atomic.Bool // Duration passed
	stalled  string      // why the room stalled, set by watchRoom before it ends the pass

	errMu     sync.Mutex
	joinErrs  int // joins that failed
	errs      int // joins and watches that failed
	errSample string
}

func newRoomPass(name string, o Options, t target, prefix string, visitors int, ramp time.Duration) *roomPass {
	return &roomPass{name: name, o: o, tg: t, on: &onsale{id: prefix + "show", ttl: o.HoldTTL}, roomID: prefix + "room",
		visitors: visitors, ramp: ramp,
		joinStart: make([]time.Time, visitors), joinEnd: make([]time.Time, visitors), place: make([]int64, visitors),
		fate: make([]visitorFate, visitors), told: make([]time.Time, visitors), tallies: make([]*tally, visitors)}
}

// setup creates the pass's event, onsale's of Options.Stock seats, and
// the room in front of it, which opens at once: the crowd arrives as it
// opens.
func (p *roomPass) setup(ctx context.Context) error {
	if err := p.on.setup(ctx, p.tg.bk, int(p.o.Stock)); err != nil {
		return err
	}
	_, _, err := p.tg.eng.CreateRoom(ctx, stockade.NewRoomRequest{ID: p.roomID, ShowID: p.on.id,
		ActiveLimit: p.o.RoomActive, AdmitPerMinute: p.o.RoomRate, AdmissionTTL: p.o.RoomAdmissionTTL,
		PerVisitor: p.o.RoomPerVisitor, StockFactor: 1, Metadata: stockade.Metadata{"bench": p.name}}, nil)
	if err != nil {
		return fmt.Errorf("room %s: %w", p.roomID, err)
	}
	return nil
}

// run runs the pass: the admissions' round and the sweeper, as serve
// runs them, a reader of the room, and the visitors, arriving evenly over
// the ramp, until every visitor is done, the room stalls or Duration
// passes.
func (p *roomPass) run(ctx context.Context) {
	p.runCtx, p.finish = context.WithCancel(ctx)
	defer p.finish()
	var bg sync.WaitGroup
	bg.Go(func() { p.tg.eng.RunAdmissions(p.runCtx, roomAdmitEvery) })
	bg.Go(func() { sweepLoop(p.runCtx, p.tg.eng, p.o.Logger, &p.swept) })
	bg.Go(p.watchRoom)

	p.start = time.Now()
	timer := time.AfterFunc(p.o.Duration, func() {
		p.deadline.Store(true)
		p.finish()
	})
	defer timer.Stop()
	var visitors sync.WaitGroup
	for i := range p.visitors {
		at := p.start.Add(time.Duration(int64(p.ramp) * int64(i) / int64(p.visitors)))
		if d := time.Until(at); d > 0 {
			sleep(ctx, d)
		}
		if ctx.Err() != nil {
			break
		}
		visitors.Go(func() { p.visitor(ctx, i) })
	}
	visitors.Wait()
	p.elapsed = time.Since(p.start)
	p.finish()
	bg.Wait()
}

// arrived is how many visitors had arrived d after the pass began: the
// timeline's load.
func (p *roomPass) arrived(d time.Duration) float64 {
	if p.ramp <= 0 || d >= p.ramp {
		return float64(p.visitors)
	}
	return math.Ceil(float64(p.visitors) * float64(d) / float64(p.ramp))
}

// visitor is the i-th visitor: it joins, watches its ticket until it is
// admitted or told the room sold out, and once admitted buys.
func (p *roomPass) visitor(ctx context.Context, i int) {
	id := visitorID(i)
	p.joinStart[i] = time.Now()
	tk, err := p.tg.eng.JoinRoom(ctx, stockade.JoinRequest{RoomID: p.roomID, VisitorID: id})
	p.joinEnd[i] = time.Now()
	switch {
	case stockade.ErrorCode(err) == stockade.ESoldOut:
		p.fate[i] = visitorTurnedAway
		return
	case err != nil:
		p.failed(i, "join", err)
		return
	}
	p.place[i] = tk.Position
	wctx, cancel := context.WithCancel(p.runCtx)
	defer cancel()
	tickets, err := p.tg.eng.WatchTicket(wctx, p.roomID, id)
	if err != nil {
		if p.runCtx.Err() == nil {
			p.failed(i, "watch", err)
		}
		return
	}
	for tk := range tickets {
		switch tk.Status {
		case stockade.TicketAdmitted:
			cancel()
			p.shopping.Add(1)
			p.learned.Add(1)
			p.shop(ctx, i, tk)
			p.shopping.Add(-1)
			return
		case stockade.TicketSoldOut:
			p.told[i] = time.Now()
			p.fate[i] = visitorTold
			p.soldOut.Store(true)
			return
		case stockade.TicketExpired: // admitted, and the admission ran out before the visitor saw it
			p.learned.Add(1)
			p.fate[i] = visitorNoSeats
			return
		case stockade.TicketClosed:
			p.failed(i, "watch", fmt.Errorf("visitor %s: the room closed during the run", id))
			return
		}
	}
}

// visitorID names the i-th visitor.
func visitorID(i int) string { return fmt.Sprintf("v%06d", i) }

// shop is the i-th visitor once admitted with ticket tk: it holds seats
// as an onsale client does, with its admission, and confirms or leaves
// the hold; told sold_out it asks again after a pause while its admission
// is in force and the room has not sold out; refused a named pair it
// picks again at once.
func (p *roomPass) shop(ctx context.Context, i int, tk stockade.RoomTicket) {
	until := time.Unix(tk.ExpiresAt.Unix(), 0) // the token's expiry, in whole seconds
	t := newTally()
	p.tallies[i] = t
	c := &client{svc: p.tg.svc, bk: p.tg.bk, t: t, done: &p.done, rng: newRand(uint64(i)), start: p.start,
		claim: func() bool { return p.runCtx.Err() == nil },
		stop:  func() {}, // the room says when it sold out
		lapsed: func(err error) bool {
			return stockade.ErrorCode(err) == stockade.EAdmissionInvalid &&
				strings.Contains(stockade.ErrorMessage(err), "expired") && !time.Now().Before(until)
		}}
	proof := &stockade.AdmissionProof{VisitorID: tk.VisitorID, Token: tk.Token}
	p.fate[i] = visitorNoSeats
	defer func() { // done: the next visitor may come in
		if _, err := p.tg.eng.LeaveRoom(ctx, p.roomID, tk.VisitorID); err != nil && p.runCtx.Err() == nil {
			p.failed(i, "leave", err)
		}
	}()
	for p.runCtx.Err() == nil && time.Until(until) > roomTokenMargin {
		rec, err := p.on.hold(ctx, c, proof)
		switch code := stockade.ErrorCode(err); {
		case err == nil:
			p.fate[i] = visitorBought
			p.on.settleHold(ctx, c, rec)
			return
		case code == stockade.ESoldOut:
			if p.soldOut.Load() {
				return
			}
			sleep(p.runCtx, soldOutPause(c))
		case code == stockade.ESeatsUnavailable:
		default: // the admission ran out, or an error, which the tally counts
			return
		}
	}
}

func (p *roomPass) failed(i int, call string, err error) {
	p.fate[i] = visitorFailed
	p.errMu.Lock()
	defer p.errMu.Unlock()
	if call == "join" {
		p.joinErrs++
	}
	p.errs++
	if p.errSample == "" {
		p.errSample = fmt.Sprintf("%s of %s: %v", call, visitorID(i), err)
	}
}

// watchRoom reads the room every roomPoll until the pass is over: it
// notes a sell-out for the visitors buying, reports progress once a
// second, and ends the pass when the room has stalled (see stall).
func (p *roomPass) watchRoom() {
	tick := time.NewTicker(roomPoll)
	defer tick.Stop()
	stalls := 0
	for n := 1; ; n++ {
		select {
		case <-p.runCtx.Done():
			return
		case <-tick.C:
		}
		v, err := p.tg.eng.Room(p.runCtx, p.roomID)
		if err != nil {
			if p.runCtx.Err() == nil {
				p.o.Logger.Error("bench: read the room", "room", p.roomID, "err", err)
			}
			continue
		}
		if v.Status == stockade.RoomSoldOut {
			p.soldOut.Store(true)
		}
		if why := p.stall(v); why != "" {
			if stalls++; stalls >= roomStallPolls {
				p.stalled = why
				p.finish()
				return
			}
		} else {
			stalls = 0
		}
		if n%int(time.Second/roomPoll) == 0 {
			fmt.Fprintf(p.o.Progress, "bench: %s: %s: %d joined, %d admitted, %d waiting, %d seats booked, %d requests\n",
				p.tg.name, p.name, v.Joined, v.Admitted, v.Queued, p.on.booked.Load(), p.done.Load())
		}
	}
}

// stall says why the room v, as just read, can admit no one ever again,
// or "" if it may: it queues visitors and has seats free, but none is held
// (so none can come back) and no visitor it admitted is still buying (so
// none will be taken), and the room's own rule, with the rate's bucket
// full and no one active, admits none against the seats free (a stock
// factor below 1 that leaves no whole seat).
func (p *roomPass) stall(v stockade.RoomView) string {
	if v.Status != stockade.RoomQueueing || v.Queued == 0 || v.Stock.Held > 0 || v.Stock.Free == 0 ||
		p.shopping.Load() > 0 || p.learned.Load() < v.Admitted {
		return ""
	}
	if n, _ := v.Admissions(v.CreditAt.Add(time.Hour), stockade.RoomActivity{}, v.Stock); n > 0 {
		return ""
	}
	return fmt.Sprintf("%d seats are free, which times the stock factor %v is no whole seat, none is held and no admitted visitor is buying: the room admits none of the %d waiting and never sells out",
		v.Stock.Free, v.StockFactor, v.Queued)
}

// merged is the tally of every visitor's requests.
func (p *roomPass) merged() *tally {
	all := newTally()
	for _, t := range p.tallies {
		if t != nil {
			all.merge(t)
		}
	}
	return all
}

// check checks the pass's event as onsale does (completing res), reads
// its room and every visitor's place, and returns what the pass measured
// and what is wrong: places not 1 … Joined once each, or not those the
// joins gave; a count of admissions that is not the visitors admitted;
// visitors admitted out of their order; visitors whose fate disagrees
// with their record; joins or watches that failed. It closes the room if
// it still gates, so that later runs' admissions pass it by.
func (p *roomPass) check(ctx context.Context, all *tally, res *Result) (*RoomResult, []string, error) {
	viol, err := p.on.check(ctx, p.tg, all, res)
	if err != nil {
		return nil, nil, err
	}
	res.Swept += int(p.swept.Load())
	report := func(format string, args ...any) { viol = append(viol, fmt.Sprintf(format, args...)) }
	if p.errs > 0 {
		report("%d joins or watches failed; first: %s", p.errs, p.errSample)
	}
	room, err := p.tg.eng.Room(ctx, p.roomID)
	if err != nil {
		return nil, nil, fmt.Errorf("room %s: %w", p.roomID, err)
	}
	vs, err := p.readVisitors(ctx)
	if err != nil {
		return nil, nil, err
	}

	r := &RoomResult{Visitors: p.visitors, Failed: p.errs, Admitted: int(room.Admitted), SoldOut: room.Status == stockade.RoomSoldOut, Stalled: p.stalled}
	switch {
	case p.stalled != "":
		r.End = RoomEndStalled
	case p.deadline.Load():
		r.End = RoomEndDeadline
	case r.SoldOut:
		r.End = RoomEndSoldOut
	default:
		r.End = RoomEndServed
	}
	if r.SoldOut {
		r.SellOutSec = room.SoldOutAt.Sub(room.OpensAt).Seconds()
	}

	// Joins, and what became of the visitors.
	var joinLat, notice []time.Duration
	var first, last time.Time
	for i := range p.visitors {
		if p.joinStart[i].IsZero() {
			continue // never arrived: the run was cut short
		}
		joinLat = append(joinLat, p.joinEnd[i].Sub(p.joinStart[i]))
		if first.IsZero() || p.joinStart[i].Before(first) {
			first = p.joinStart[i]
		}
		if p.place[i] > 0 {
			r.Joined++
			if p.joinEnd[i].After(last) {
				last = p.joinEnd[i]
			}
		}
		switch p.fate[i] {
		case visitorTurnedAway:
			r.TurnedAway++
		case visitorTold:
			r.Told++
			notice = append(notice, p.told[i].Sub(room.SoldOutAt))
		case visitorBought:
			r.Bought++
		case visitorNoSeats:
			r.NoSeats++
		case visitorWaiting:
			r.StillWaiting++
		}
	}
	if span := last.Sub(first).Seconds(); span > 0 {
		r.JoinsPerSec = float64(r.Joined) / span
	}
	slices.Sort(joinLat)
	r.JoinP50Ms, r.JoinP99Ms = percentile(joinLat, 0.50), percentile(joinLat, 0.99)
	slices.Sort(notice)
	r.NoticeP50Ms, r.NoticeP99Ms = percentile(notice, 0.50), percentile(notice, 0.99)
	if len(notice) > 0 {
		r.NoticeMaxMs = ms(notice[len(notice)-1])
	}
	lat := slices.Clone(all.on.holdLat)
	slices.Sort(lat)
	r.Holds = len(lat)
	r.HoldP50Ms, r.HoldP99Ms = percentile(lat, 0.50), percentile(lat, 0.99)

	// The room's record: the places, the admissions and their order.
	viol = append(viol, p.checkVisitors(room.Room, vs, r)...)

	if room.Status.Gates() {
		closed := stockade.RoomClosed
		if _, err := p.tg.eng.UpdateRoom(ctx, p.roomID, stockade.RoomUpdate{Status: &closed}, nil); err != nil {
			return nil, nil, fmt.Errorf("close room %s: %w", p.roomID, err)
		}
	}
	return r, viol, nil
}

// readVisitors reads the record of every visitor of the pass that
// arrived, roomChunk at a time, in one transaction: those whose join
// succeeded, and those whose join failed and may have taken a place.
func (p *roomPass) readVisitors(ctx context.Context) ([]stockade.RoomVisitor, error) {
	var ids []string
	for i := range p.visitors {
		if !p.joinStart[i].IsZero() {
			ids = append(ids, visitorID(i))
		}
	}
	slices.Sort(ids)
	var vs []stockade.RoomVisitor
	err := p.o.Store.View(ctx, func(tx stockade.Tx) error {
		vs = vs[:0]
		for chunk := range slices.Chunk(ids, roomChunk) {
			got, err := tx.RoomVisitorGetMany(ctx, p.roomID, chunk)
			if err != nil {
				return err
			}
			vs = append(vs, got...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("visitors of room %s: %w", p.roomID, err)
	}
	return vs, nil
}

// checkVisitors checks the visitors' records vs against the room and
// what the visitors saw, and counts in r how far admission departed from
// the promised order.
func (p *roomPass) checkVisitors(room stockade.Room, vs []stockade.RoomVisitor, r *RoomResult) []string {
	var viol []string
	report := func(format string, args ...any) { viol = append(viol, fmt.Sprintf(format, args...)) }
	// Each kind of disagreement is reported once, with a count and the
	// first.
	type finding struct {
		n     int
		first string
	}
	found := map[string]*finding{}
	var kinds []string
	wrong := func(kind, format string, args ...any) {
		f := found[kind]
		if f == nil {
			f = &finding{first: fmt.Sprintf(format, args...)}
			found[kind] = f
			kinds = append(kinds, kind)
		}
		f.n++
	}

	if int64(len(vs)) != room.Joined || len(vs) < r.Joined || len(vs) > r.Joined+p.joinErrs {
		report("the room counts %d visitors joined and has %d records; %d joins succeeded and %d failed", room.Joined, len(vs), r.Joined, p.joinErrs)
	}
	places := make([]int64, 0, len(vs))
	var admitted []stockade.RoomVisitor
	never := int64(math.MaxInt64) // the first place never admitted
	for _, v := range vs {
		places = append(places, v.Position)
		i, err := strconv.Atoi(strings.TrimPrefix(v.VisitorID, "v"))
		if err != nil || i < 0 || i >= p.visitors {
			wrong("unknown", "visitor %q is none of the run's", v.VisitorID)
			continue
		}
		switch {
		case p.place[i] == 0 && p.fate[i] != visitorFailed:
			wrong("unjoined", "%s has place %d, but its join was refused", v.VisitorID, v.Position)
		case p.place[i] != 0 && v.Position != p.place[i]:
			wrong("place", "%s is at place %d, its join said %d", v.VisitorID, v.Position, p.place[i])
		}
		if v.AdmittedAt.IsZero() {
			never = min(never, v.Position)
		} else {
			admitted = append(admitted, v)
		}
		switch f := p.fate[i]; {
		case f == visitorTold && !v.AdmittedAt.IsZero():
			wrong("told", "%s was told the room sold out, but was admitted at %s", v.VisitorID, v.AdmittedAt.Format(time.StampMicro))
		case (f == visitorBought || f == visitorNoSeats) && v.AdmittedAt.IsZero():
			wrong("admitted", "%s saw an admission that its record does not have", v.VisitorID)
		case f == visitorBought && v.UsedAt.IsZero():
			wrong("used", "%s held seats, but its admission is not marked used", v.VisitorID)
		}
	}
	slices.Sort(places)
	for i, pl := range places {
		if pl != int64(i+1) {
			report("the places are not 1 … %d once each: the %d-th is %d", len(places), i+1, pl)
			break
		}
	}
	if int64(len(admitted)) != room.Admitted {
		report("the room counts %d admitted, but %d visitors have an admission", room.Admitted, len(admitted))
	}
	for _, v := range admitted {
		if v.Position > never {
			r.LateAdmissions++
		}
	}
	slices.SortFunc(admitted, func(a, b stockade.RoomVisitor) int { return cmp.Compare(a.Position, b.Position) })
	at := make([]int64, len(admitted))
	for i, v := range admitted {
		at[i] = v.AdmittedAt.UnixNano()
	}
	r.Inversions = inversions(at)
	if r.LateAdmissions > 0 || r.Inversions > 0 {
		report("admission departed from the promised order: %d visitors admitted after a visitor at an earlier place who never was (first never admitted: place %d), %d pairs admitted in the wrong order",
			r.LateAdmissions, never, r.Inversions)
	}
	for _, k := range kinds {
		f := found[k]
		report("%d visitors disagree with their record; first: %s", f.n, f.first)
	}
	return viol
}

// inversions counts the pairs i < j with xs[i] > xs[j], by merge sort;
// it sorts xs.
func inversions(xs []int64) int64 {
	if len(xs) < 2 {
		return 0
	}
	mid := len(xs) / 2
	n := inversions(xs[:mid]) + inversions(xs[mid:])
	merged := make([]int64, 0, len(xs))
	i, j := 0, mid
	for i < mid && j < len(xs) {
		if xs[j] < xs[i] {
			n += int64(mid - i) // xs[j] is below every one left of the first half
			merged = append(merged, xs[j])
			j++
		} else {
			merged = append(merged, xs[i])
			i++
		}
	}
	merged = append(merged, xs[i:mid]...)
	merged = append(merged, xs[j:]...)
	copy(xs, merged)
	return n
}
