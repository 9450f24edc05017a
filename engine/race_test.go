package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
)

// inFlight bounds how many simulated buyers call the engine at once.
const inFlight = 64

// TestFlashSale is the point of the product: 800 buyers, 64 in flight,
// race for the 100 units of one SKU. Exactly 100 get one, every other is
// refused for lack of stock, and the ledger balances.
func TestFlashSale(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		testkit.Heavy(t)
		const stock, buyers = 100, 800
		en.location("w1", 52.5, 13.4)
		en.stock("hot", "w1", stock)
		ctx, cancel := context.WithTimeout(sys(t), bound)
		defer cancel()

		var won, refused atomic.Int64
		var mu sync.Mutex
		others := map[string]int{}
		sem := make(chan struct{}, inFlight)
		var wg sync.WaitGroup
		for i := range buyers {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				req := lines(line("hot", 1, ""))
				if i%2 == 0 {
					req.Lines[0].Location = "w1"
				}
				var err error
				if i%3 == 0 {
					_, err = en.eng.Checkout(ctx, req, nil)
				} else {
					_, err = en.eng.Reserve(ctx, req, nil)
				}
				switch stockade.ErrorCode(err) {
				case "":
					won.Add(1)
				case stockade.EInsufficientStock:
					refused.Add(1)
				default:
					mu.Lock()
					others[err.Error()]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for msg, n := range others {
			t.Errorf("%d× %s", n, msg)
		}
		if won.Load() != stock || refused.Load() != buyers-stock {
			t.Errorf("%d succeeded and %d were refused, want %d and %d", won.Load(), refused.Load(), stock, buyers-stock)
		}
		l := en.level("hot", "w1")
		if l.Reserved+l.Committed != stock || l.Available() != 0 {
			t.Errorf("level after the sale %+v, want all %d units reserved or committed", l, stock)
		}
		en.balanced()
	})
}

// TestCarts has 200 concurrent multi-line orders over 5 SKUs in 3
// locations, lines in random order, some naming a location, some shipped
// to a point: none deadlocks, each is all-or-nothing, and the counters
// are exactly the sum of what succeeded.
func TestCarts(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, en *env) {
		testkit.Heavy(t)
		skus := []string{"sku-a", "sku-b", "sku-c", "sku-d", "sku-e"}
		locs := []struct {
			id       string
			lat, lon float64
		}{{"ams", 52.37, 4.90}, {"ber", 52.52, 13.40}, {"mad", 40.42, -3.70}}
		for _, l := range locs {
			en.location(l.id, l.lat, l.lon)
			for _, sku := range skus {
				en.stock(sku, l.id, 12)
			}
		}
		ctx, cancel := context.WithTimeout(sys(t), bound)
		defer cancel()

		type success struct {
			req    stockade.ReserveRequest
			allocs []stockade.Allocation
		}
		var (
			mu        sync.Mutex
			successes []success
			refused   int
		)
		sem := make(chan struct{}, inFlight)
		var wg sync.WaitGroup
		for i := range 200 {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			var req stockade.ReserveRequest
			for _, j := range rng.Perm(len(skus))[:1+rng.IntN(4)] {
				l := line(skus[j], int64(1+rng.IntN(4)), "")
				if rng.IntN(3) == 0 {
					l.Location = locs[rng.IntN(len(locs))].id
				}
				req.Lines = append(req.Lines, l)
			}
			if rng.IntN(2) == 0 {
				req.ShipTo = &stockade.Point{Lat: 48.85, Lon: 2.35}
			}
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				var allocs []stockade.Allocation
				var err error
				if i%2 == 0 {
					var o stockade.Order
					o, err = en.eng.Checkout(ctx, req, nil)
					allocs = o.Allocations
				} else {
					var r stockade.Reservation
					r, err = en.eng.Reserve(ctx, req, nil)
					allocs = r.Allocations
				}
				mu.Lock()
				defer mu.Unlock()
				switch stockade.ErrorCode(err) {
				case "":
					successes = append(successes, success{req, allocs})
				case stockade.EInsufficientStock:
					refused++
				default:
					t.Errorf("order %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		t.Logf("%d orders succeeded, %d refused", len(successes), refused)

		taken := map[stockade.Key]int64{}
		for _, s := range successes {
			wantSKU, gotSKU := map[string]int64{}, map[string]int64{}
			located := map[stockade.Key]int64{}
			for _, l := range s.req.Lines {
				wantSKU[l.SKU] += l.Quantity
				if l.Location != "" {
					located[stockade.Key{SKU: l.SKU, Location: l.Location}] += l.Quantity
				}
			}
			for _, a := range s.allocs {
				gotSKU[a.SKU] += a.Quantity
				taken[a.Key()] += a.Quantity
				located[a.Key()] -= a.Quantity
			}
			if fmt.Sprint(gotSKU) != fmt.Sprint(wantSKU) {
				t.Errorf("order %v allocated %v per SKU, want %v", s.req.Lines, gotSKU, wantSKU)
			}
			for k, short := range located {
				if short > 0 {
					t.Errorf("order %v: %d short at %s, which a line named", s.req.Lines, short, k)
				}
			}
		}
		for _, sku := range skus {
			for _, l := range locs {
				got := en.level(sku, l.id)
				if held := got.Reserved + got.Committed; held != taken[got.Key()] {
					t.Errorf("%s: reserved+committed %d, successful orders took %d", got.Key(), held, taken[got.Key()])
				}
			}
		}
		en.balanced()
	})
}

// TestInstances runs a sale on PostgreSQL through three engines, each with
// its own connection pool, as three service instances would: the
// strategies that rely on the database alone never oversell across
// instances. (The lock strategy needs a shared Locker, which the service
// tests cover with Redis.) Under batch, the calls that arrive together
// share transactions: far fewer run than there are calls.
func TestInstances(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{engine.Atomic, engine.RowLock, engine.Optimistic, engine.Advisory, engine.Batch} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			testkit.Heavy(t)
			const stock, buyers, instances = 100, 1500, 3
			var (
				engines []*env
				stores  []*hooked
			)
			for _, s := range openPostgresN(t, instances) {
				h := &hooked{Store: s}
				stores = append(stores, h)
				engines = append(engines, newEnvOn(t, h, strategy, nil))
			}
			en := engines[0]
			en.location("w1", 0, 0)
			en.stock("hot", "w1", stock)
			transactions := func() (n int64) {
				for _, h := range stores {
					n += h.n.Load()
				}
				return n
			}
			before := transactions()

			// inFlight buyers at a time, more than the instances have
			// connections: every pool is busy. Each call has only its own
			// deadline (the engine's Timeout, 30 s), which covers its wait
			// for the row, not the whole sale's: a slow machine's sale has
			// taken 66 s. A call that the engine gave up on at its
			// deadline (unavailable: optimistic's retries have, on a
			// machine busy with the rest of the suite) is sent again
			// with its key, as a client would: the engine replays it if
			// its transaction committed after all.
			var won, refused atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			sem := make(chan struct{}, inFlight)
			for i := range buyers {
				wg.Go(func() {
					<-start
					sem <- struct{}{}
					defer func() { <-sem }()
					eng := engines[i%instances].eng
					key := &stockade.Idempotency{Key: fmt.Sprintf("buyer-%d", i)}
					var err error
					for range 3 {
						if i%2 == 0 {
							_, err = eng.Checkout(sys(t), lines(line("hot", 1, "")), key)
						} else {
							_, err = eng.Reserve(sys(t), lines(line("hot", 1, "w1")), key)
						}
						if stockade.ErrorCode(err) != stockade.EUnavailable {
							break
						}
					}
					switch stockade.ErrorCode(err) {
					case "":
						won.Add(1)
					case stockade.EInsufficientStock:
						refused.Add(1)
					default:
						t.Error(err)
					}
				})
			}
			close(start)
			wg.Wait()
			n := transactions() - before
			t.Logf("%d calls in %d write transactions", buyers, n)
			if strategy == engine.Batch && n >= buyers/2 {
				t.Errorf("%d write transactions for %d concurrent calls: they were not batched", n, buyers)
			}
			if won.Load() != stock || refused.Load() != buyers-stock {
				t.Errorf("%d succeeded and %d were refused, want %d and %d", won.Load(), refused.Load(), stock, buyers-stock)
			}
			if l := en.level("hot", "w1"); l.Reserved+l.Committed != stock || l.Available() != 0 {
				t.Errorf("level after the sale %+v, want all %d units reserved or committed", l, stock)
			}
			en.balanced()
		})
	}
}

// TestBatchConfirmsAcrossInstances: two batch engines on one PostgreSQL
// database confirm the same holds, half of them lapsed, while both take
// new holds on the same levels and sweep: every confirm either makes or
// returns the hold's one order or finds it expired, no call fails, and
// the counters match the ledger and the records.
func TestBatchConfirmsAcrossInstances(t *testing.T) {
	t.Parallel()
	stores := openPostgresN(t, 2)
	a, b := newEnvOn(t, stores[0], engine.Batch, nil), newEnvOn(t, stores[1], engine.Batch, nil)
	a.location("w1", 0, 0)
	for _, sku := range []string{"s1", "s2", "s3"} {
		a.stock(sku, "w1", 1000)
	}
	var holds []stockade.Reservation
	for i := range 200 {
		ttl := time.Hour
		if i%2 == 0 {
			ttl = time.Second // lapses below
		}
		r, err := a.eng.Reserve(sys(t), stockade.ReserveRequest{Lines: []stockade.Line{
			line(fmt.Sprintf("s%d", 1+i%3), 1, ""), line(fmt.Sprintf("s%d", 1+(i+1)%3), 1, "")}, TTL: ttl}, nil)
		if err != nil {
			t.Fatal(err)
		}
		holds = append(holds, r)
	}
	a.clock.Advance(2 * time.Second)
	b.clock.Advance(2 * time.Second)

	// The bound covers the confirms, checkouts and sweeps at once, not the
	// reservations made one by one before them.
	ctx, cancel := context.WithTimeout(sys(t), bound)
	defer cancel()
	var (
		mu     sync.Mutex
		orders = map[string]string{} // reservation → order
		wg     sync.WaitGroup
	)
	for i, r := range holds {
		for _, en := range []*env{a, b} { // every hold confirmed on both
			wg.Go(func() {
				o, err := en.eng.Confirm(ctx, r.ID, nil)
				lapsed := i%2 == 0
				switch code := stockade.ErrorCode(err); {
				case lapsed && code == stockade.EReservationExpired:
				case !lapsed && err == nil:
					mu.Lock()
					defer mu.Unlock()
					if prev, ok := orders[r.ID]; ok && prev != o.ID {
						t.Errorf("reservation %s confirmed as %s and %s", r.ID, prev, o.ID)
					}
					orders[r.ID] = o.ID
				default:
					t.Errorf("confirm of %s (lapsed %v): %v", r.ID, lapsed, err)
				}
			})
		}
		wg.Go(func() {
			if _, err := b.eng.Checkout(ctx, lines(line(fmt.Sprintf("s%d", 1+i%3), 1, "")), nil); err != nil {
				t.Errorf("checkout: %v", err)
			}
		})
	}
	for _, en := range []*env{a, b} {
		wg.Go(func() {
			for range 5 {
				if _, err := en.eng.Sweep(ctx); err != nil {
					t.Errorf("sweep: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if len(orders) != 100 {
		t.Errorf("%d holds confirmed, want the 100 that had not lapsed", len(orders))
	}
	a.balanced()
}
