package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stockade/stockade"
)

// Shapes of the workloads; see the package documentation.
const (
	cartSKUs      = 200 // by default; Options.SKUs
	maxCartSKUs   = 100_000
	cartLocations = 3
	cartZipfS     = 1.1 // Zipf exponent of SKU popularity: the top SKU gets ~15% of lines
	bookingSKUs   = 20
	confirmShare  = 0.7
	sweepEvery    = 250 * time.Millisecond
)

// locations are the bench's locations, shared by every run: PutLocation
// replaces them, and levels are per SKU.
var locations = []stockade.Location{
	{ID: "bench-1", Name: "bench warehouse 1", Point: &stockade.Point{Lat: 52.52, Lon: 13.40}},
	{ID: "bench-2", Name: "bench warehouse 2", Point: &stockade.Point{Lat: 48.14, Lon: 11.58}},
	{ID: "bench-3", Name: "bench warehouse 3", Point: &stockade.Point{Lat: 53.55, Lon: 9.99}},
}

// workload is one run's workload: its SKUs and locations, named under the
// run's prefix.
type workload struct {
	kind string
	skus []string
	locs []stockade.Location
	ttl  time.Duration
	on   *onsale // OnSale's event and clients; nil for the others
}

// newWorkload returns the workload of kind under prefix; skus is carts'
// SKU count.
func newWorkload(kind, prefix string, ttl time.Duration, skus int) *workload {
	w := &workload{kind: kind, ttl: ttl, locs: locations[:1]}
	switch kind {
	case FlashSale:
		w.skus = []string{prefix + "hot"}
	case Carts:
		w.locs = locations[:cartLocations]
		for i := range skus {
			w.skus = append(w.skus, fmt.Sprintf("%ssku-%03d", prefix, i))
		}
	case Booking:
		for i := range bookingSKUs {
			w.skus = append(w.skus, fmt.Sprintf("%sshow-%02d", prefix, i))
		}
	case OnSale:
		w.locs = nil
		w.on = &onsale{id: prefix + "show", ttl: ttl}
	}
	return w
}

// sweeps reports whether an in-process run should sweep lapsed holds.
func (w *workload) sweeps() bool { return w.kind == Booking || w.kind == OnSale }

// setup creates the locations and sets every level's stock, or OnSale's
// event of stock seats.
func (w *workload) setup(ctx context.Context, t target, stock int64) error {
	if w.on != nil {
		return w.on.setup(ctx, t.bk, int(stock))
	}
	svc := t.svc
	for _, l := range w.locs {
		if _, err := svc.PutLocation(ctx, l, nil); err != nil {
			return fmt.Errorf("location %s: %w", l.ID, err)
		}
	}
	var keys []stockade.Key
	for _, sku := range w.skus {
		for _, l := range w.locs {
			keys = append(keys, stockade.Key{SKU: sku, Location: l.ID})
		}
	}
	return inParallel(len(keys), func(i int) error {
		if _, err := svc.SetStock(ctx, keys[i], stock, nil, nil); err != nil {
			return fmt.Errorf("stock %s: %w", keys[i], err)
		}
		return nil
	})
}

// inParallel calls fn for 0 … n-1, a few at a time (carts sets and checks
// up to 300,000 levels), and returns the errors; a goroutine stops at its
// first.
func inParallel(n int, fn func(i int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next atomic.Int64
	)
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// client is one goroutine of a run.
type client struct {
	svc   stockade.StockService
	bk    stockade.BookingService // svc, for OnSale
	t     *tally
	claim func() bool // false when the run is over
	stop  func()      // ends the run, for every client: OnSale sold out
	done  *atomic.Int64
	rng   *rand.Rand
	start time.Time // the run's, for the timeline
	// lapsed, if set, reports whether err refused a request because the
	// client's admission to a waiting room had run out meanwhile: an
	// expected refusal for a visitor of the waiting-room workload.
	lapsed func(err error) bool
}

func newRand(i uint64) *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), i)) }

// client sends the workload's requests until claim refuses.
func (w *workload) client(ctx context.Context, c *client) {
	switch w.kind {
	case FlashSale:
		lines := []stockade.Line{{SKU: w.skus[0], Quantity: 1, Location: w.locs[0].ID}}
		for c.claim() {
			c.checkout(ctx, lines)
		}
	case Carts:
		zipf := rand.NewZipf(c.rng, cartZipfS, 1, uint64(len(w.skus)-1))
		for c.claim() {
			n := 1 + c.rng.IntN(min(4, len(w.skus)))
			lines := make([]stockade.Line, 0, n)
			for len(lines) < n {
				sku := w.skus[zipf.Uint64()]
				if !slices.ContainsFunc(lines, func(l stockade.Line) bool { return l.SKU == sku }) {
					lines = append(lines, stockade.Line{SKU: sku, Quantity: 1 + c.rng.Int64N(3)})
				}
			}
			c.rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			c.checkout(ctx, lines)
		}
	case OnSale:
		w.on.client(ctx, c)
	case Booking:
		for c.claim() {
			lines := []stockade.Line{{
				SKU:      w.skus[c.rng.IntN(len(w.skus))],
				Quantity: 1 + c.rng.Int64N(2),
				Location: w.locs[0].ID,
			}}
			var res stockade.Reservation
			err := c.do("reserve", lines, false, func() (err error) {
				res, err = c.svc.Reserve(ctx, stockade.ReserveRequest{Lines: lines, TTL: w.ttl}, nil)
				return err
			})
			if err != nil {
				continue
			}
			c.t.held(lines, 1)
			if c.rng.Float64() >= confirmShare {
				c.t.abandoned++
				continue
			}
			sleep(ctx, time.Duration(5+c.rng.IntN(46))*time.Millisecond)
			if !c.claim() {
				c.t.abandoned++
				break
			}
			err = c.do("confirm", lines, true, func() error {
				_, err := c.svc.Confirm(ctx, res.ID, nil)
				return err
			})
			if err == nil || stockade.ErrorCode(err) == stockade.EReservationExpired {
				c.t.held(lines, -1) // confirmed, or expired and returned
			}
		}
	}
}

func (c *client) checkout(ctx context.Context, lines []stockade.Line) {
	c.do("", lines, true, func() error {
		_, err := c.svc.Checkout(ctx, stockade.ReserveRequest{Lines: lines}, nil)
		return err
	})
}

// do sends one request and records its latency and outcome under kind. A
// success of a request that sells counts its lines as sold; an error that
// is not a refusal counts them as uncertain, since it may have taken
// effect.
func (c *client) do(kind string, lines []stockade.Line, sells bool, fn func() error) error {
	t0 := time.Now()
	err := fn()
	end := time.Now()
	c.t.lat = append(c.t.lat, end.Sub(t0))
	c.t.ends = append(c.t.ends, end.Sub(c.start))
	code := "ok"
	if err != nil {
		code = "error"
		if e, ok := errors.AsType[*stockade.Error](err); ok {
			code = e.Code
		}
	}
	key := code
	if kind != "" {
		key = kind + ":" + code
	}
	c.t.outcomes[key]++
	switch {
	case err == nil:
		if sells {
			for _, l := range lines {
				c.t.sold[l.SKU] += l.Quantity
			}
		}
	case !c.refused(err):
		c.t.errors++
		if c.t.errSample == "" {
			c.t.errSample = fmt.Sprintf("%s: %v", orDefault(kind, "checkout"), err)
		}
		for _, l := range lines {
			c.t.uncertain[l.SKU] += l.Quantity
		}
	}
	c.done.Add(1)
	return err
}

// refused reports whether err, not nil, is an expected refusal: one of
// refusal's codes, or an admission that ran out (c.lapsed).
func (c *client) refused(err error) bool {
	return refusal(stockade.ErrorCode(err)) || (c.lapsed != nil && c.lapsed(err))
}

// refusal reports whether code is an expected refusal of the workloads,
// not a failure: no stock or seats left, or a hold that ran out.
func refusal(code string) bool {
	switch code {
	case stockade.EInsufficientStock, stockade.EReservationExpired,
		stockade.ESoldOut, stockade.ESeatsUnavailable, stockade.EHoldExpired:
		return true
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// tally is what one client (or, merged, a run) saw.
type tally struct {
	lat       []time.Duration
	ends      []time.Duration // when each request of lat ended, from the run's start
	outcomes  map[string]int
	errors    int
	errSample string
	sold      map[string]int64 // SKU → units checked out or confirmed
	uncertain map[string]int64 // SKU → units of requests that ended in an error
	holding   map[string]int64 // SKU → units of holds neither confirmed nor expired by Confirm
	abandoned int
	on        onsaleTally
}

func newTally() *tally {
	return &tally{
		outcomes:  map[string]int{},
		sold:      map[string]int64{},
		uncertain: map[string]int64{},
		holding:   map[string]int64{},
	}
}

func (t *tally) held(lines []stockade.Line, sign int64) {
	for _, l := range lines {
		t.holding[l.SKU] += sign * l.Quantity
	}
}

func (t *tally) merge(o *tally) {
	t.lat = append(t.lat, o.lat...)
	t.ends = append(t.ends, o.ends...)
	for k, v := range o.outcomes {
		t.outcomes[k] += v
	}
	t.errors += o.errors
	if t.errSample == "" {
		t.errSample = o.errSample
	}
	for _, m := range [][2]map[string]int64{{t.sold, o.sold}, {t.uncertain, o.uncertain}, {t.holding, o.holding}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
	t.abandoned += o.abandoned
	t.on.merge(&o.on)
}

// result summarises a run's merged tally.
func (t *tally) result(name string, elapsed time.Duration) Result {
	r := Result{
		Strategy:    name,
		Requests:    len(t.lat),
		Seconds:     elapsed.Seconds(),
		Outcomes:    t.outcomes,
		Errors:      t.errors,
		ErrorSample: t.errSample,
		Abandoned:   t.abandoned,
	}
	for k, n := range t.outcomes {
		if k == "ok" || strings.HasSuffix(k, ":ok") {
			r.Successes += n
		}
	}
	for _, n := range t.sold {
		r.UnitsSold += n
	}
	if s := elapsed.Seconds(); s > 0 {
		r.Throughput = float64(r.Successes) / s
		r.RequestsPerSec = float64(r.Requests) / s
	}
	lat := slices.Clone(t.lat)
	slices.Sort(lat)
	r.P50Ms, r.P95Ms, r.P99Ms = percentile(lat, 0.50), percentile(lat, 0.95), percentile(lat, 0.99)
	if len(lat) > 0 {
		r.MaxMs = ms(lat[len(lat)-1])
	}
	return r
}

// percentile returns the nearest-rank q-quantile of sorted, in ms.
func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// check reads back every SKU of the run, or OnSale's seats, and returns
// what is wrong. OnSale also completes res.
func (w *workload) check(ctx context.Context, tg target, stock int64, t *tally, res *Result) ([]string, error) {
	if w.on != nil {
		return w.on.check(ctx, tg, t, res)
	}
	svc := tg.svc
	// Read every SKU's stock first, a few at a time, then check them in
	// order.
	stocks := make([]stockade.Stock, len(w.skus))
	if err := inParallel(len(w.skus), func(i int) error {
		st, err := svc.Stock(ctx, w.skus[i])
		if err != nil {
			return fmt.Errorf("stock %s: %w", w.skus[i], err)
		}
		stocks[i] = st
		return nil
	}); err != nil {
		return nil, err
	}
	var viol []string
	report := func(format string, args ...any) {
		viol = append(viol, fmt.Sprintf(format, args...))
	}
	var totalSold, totalStock, totalCommitted int64
	for i, sku := range w.skus {
		st := stocks[i]
		if len(st.Levels) != len(w.locs) {
			report("%s: %d levels, want %d", sku, len(st.Levels), len(w.locs))
		}
		for _, l := range st.Levels {
			if l.Available() < 0 || l.Reserved < 0 || l.Committed < 0 {
				report("%s: negative counter: available %d, reserved %d, committed %d", l.Key(), l.Available(), l.Reserved, l.Committed)
			}
			if l.OnHand != stock {
				report("%s: on hand %d, want the %d set", l.Key(), l.OnHand, stock)
			}
		}
		levelsStock := stock * int64(len(w.locs))
		tot := st.Totals
		totalStock += levelsStock
		totalSold += t.sold[sku]
		totalCommitted += tot.Committed
		if tot.Committed+tot.Reserved > levelsStock {
			report("%s: OVERSOLD: committed %d + reserved %d > stock %d", sku, tot.Committed, tot.Reserved, levelsStock)
		}
		if lo, hi := t.sold[sku], t.sold[sku]+t.uncertain[sku]; tot.Committed < lo || tot.Committed > hi {
			report("%s: committed %d, but successful requests sold %d (+%d in requests that failed)", sku, tot.Committed, lo, hi-lo)
		}
		if w.kind == Booking {
			if hi := t.holding[sku] + t.uncertain[sku]; tot.Reserved > hi {
				report("%s: reserved %d, more than the %d units of holds not confirmed", sku, tot.Reserved, hi)
			}
		} else if tot.Reserved != 0 {
			report("%s: reserved %d, want 0 (checkouts hold nothing)", sku, tot.Reserved)
		}
	}
	if totalSold > totalStock {
		report("OVERSOLD: %d units sold of %d in stock", totalSold, totalStock)
	}
	if len(viol) > 5 {
		viol = append(viol[:5], fmt.Sprintf("and %d more", len(viol)-5))
	}
	return viol, nil
}
