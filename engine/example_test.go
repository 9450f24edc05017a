package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/sqlite"
)

func Example() {
	dir, err := os.MkdirTemp("", "engine-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// Every call says who makes it: here the service itself; behind the
	// HTTP API, the API key that authenticated the request.
	ctx := stockade.WithActor(context.Background(), stockade.System)

	store, err := sqlite.Open(ctx, filepath.Join(dir, "stockade.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(store, nil) // the atomic strategy
	if err != nil {
		log.Fatal(err)
	}

	// Two warehouses with tents.
	for _, loc := range []stockade.Location{
		{ID: "ams", Name: "Amsterdam", Point: &stockade.Point{Lat: 52.37, Lon: 4.90}},
		{ID: "ber", Name: "Berlin", Point: &stockade.Point{Lat: 52.52, Lon: 13.40}},
	} {
		if _, err := eng.PutLocation(ctx, loc, nil); err != nil {
			log.Fatal(err)
		}
	}
	for loc, n := range map[string]int64{"ams": 2, "ber": 5} {
		if _, err := eng.SetStock(ctx, stockade.Key{SKU: "tent", Location: loc}, n, nil, nil); err != nil {
			log.Fatal(err)
		}
	}

	// Hold 4 tents for a customer in Paris: the nearest warehouse first.
	res, err := eng.Reserve(ctx, stockade.ReserveRequest{
		Lines:  []stockade.Line{{SKU: "tent", Quantity: 4}},
		ShipTo: &stockade.Point{Lat: 48.85, Lon: 2.35},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Allocations)

	// The customer pays: the hold becomes an order.
	order, err := eng.Confirm(ctx, res.ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order.Status, order.Allocations)

	// Only 3 tents are left: a request for 4 gets none.
	_, err = eng.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tent", Quantity: 4}}}, nil)
	fmt.Println(stockade.ErrorCode(err)+":", stockade.ErrorMessage(err))

	stock, err := eng.Stock(ctx, "tent")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", stock.Totals)
	report, err := eng.Reconcile(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ledger balanced:", report.OK)
	// Output:
	// held [{tent ams 2} {tent ber 2}]
	// committed [{tent ams 2} {tent ber 2}]
	// insufficient_stock: insufficient stock of "tent": 4 requested, 3 available
	// {OnHand:7 Reserved:0 Committed:4 Available:3}
	// ledger balanced: true
}

// A flash sale under the Batch strategy: the checkouts that arrive while a
// transaction runs are decided together in the next one, in arrival
// order, each met in full or refused.
func Example_batch() {
	dir, err := os.MkdirTemp("", "engine-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := stockade.WithActor(context.Background(), stockade.System)

	store, err := sqlite.Open(ctx, filepath.Join(dir, "stockade.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(store, &engine.Options{Strategy: engine.Batch, MaxBatch: 256})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := eng.PutLocation(ctx, stockade.Location{ID: "ams", Name: "Amsterdam"}, nil); err != nil {
		log.Fatal(err)
	}
	if _, err := eng.SetStock(ctx, stockade.Key{SKU: "ticket", Location: "ams"}, 100, nil, nil); err != nil {
		log.Fatal(err)
	}

	// 1,000 buyers at once for 100 tickets.
	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		wg       sync.WaitGroup
	)
	for range 1000 {
		wg.Go(func() {
			_, err := eng.Checkout(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "ticket", Quantity: 1}}}, nil)
			mu.Lock()
			defer mu.Unlock()
			outcomes[cmp.Or(stockade.ErrorCode(err), "ok")]++
		})
	}
	wg.Wait()
	fmt.Println(outcomes)
	report, err := eng.Reconcile(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ledger balanced:", report.OK)
	// Output:
	// map[insufficient_stock:900 ok:100]
	// ledger balanced: true
}

// A checkout retried with the same idempotency key is answered from the
// first one's stored result, and orders nothing more.
func ExampleEngine_Checkout_idempotent() {
	dir, err := os.MkdirTemp("", "engine-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := stockade.WithActor(context.Background(), stockade.System)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "stockade.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(store, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := eng.PutLocation(ctx, stockade.Location{ID: "ams", Name: "Amsterdam"}, nil); err != nil {
		log.Fatal(err)
	}
	if _, err := eng.SetStock(ctx, stockade.Key{SKU: "tent", Location: "ams"}, 3, nil, nil); err != nil {
		log.Fatal(err)
	}

	req := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tent", Quantity: 2}}}
	var orders []string
	for range 2 { // the client did not hear the first answer, and retries
		idem := &stockade.Idempotency{Key: "cart-42", Fingerprint: "checkout 2 tents"}
		o, err := eng.Checkout(ctx, req, idem)
		if err != nil {
			log.Fatal(err)
		}
		orders = append(orders, o.ID)
		fmt.Println("replayed:", idem.Replayed)
	}
	st, err := eng.Stock(ctx, "tent")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same order:", orders[0] == orders[1])
	fmt.Println("committed:", st.Totals.Committed)
	// Output:
	// replayed: false
	// replayed: true
	// same order: true
	// committed: 2
}
