package engine_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
	"github.com/stockade/stockade/postgres"
)

// TestLapsedDecidedUnderLock: a request reads the lapse candidates in its
// path without locks, and decides again once it holds the rows of those
// that lapse. A reservation whose payment another transaction puts in
// flight, under the reservation's lock, while the request waits for it,
// is kept: the request finds no stock, and the reservation stays held.
// A request that trusted its unlocked read would expire it and sell its
// stock. And a reservation its payment keeps is not locked by requests
// for its stock: a request that needs it goes through while another
// transaction holds its row.
func TestLapsedDecidedUnderLock(t *testing.T) {
	t.Parallel()
	ctx := sys(t)
	url := teststore.PostgresURLOn(t, testkit.SharedPostgres(t))
	s, err := postgres.Open(ctx, url, &postgres.Options{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	en := newEnvOn(t, s, engine.Atomic, nil)
	en.location("w1", 0, 0)
	en.stock("tee", "w1", 2)
	reserve := func() (stockade.Reservation, error) {
		return en.eng.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "tee", Quantity: 1}}, TTL: time.Minute}, nil)
	}
	kept, err := reserve()
	if err != nil {
		t.Fatal(err)
	}
	racing, err := reserve()
	if err != nil {
		t.Fatal(err)
	}
	inFlight := en.pay(stockade.PayReservation, kept.ID)
	en.mustOutcome(inFlight.ID, stockade.PaymentProcessing)
	en.pay(stockade.PayReservation, racing.ID) // pending: it keeps nothing
	en.clock.Advance(2 * time.Minute)          // both expired; kept's payment is in flight

	// Another transaction holds kept's row: a request that needs its stock
	// does not wait for it.
	hold := func(id string, then func(tx stockade.Tx) error) (locked chan struct{}, release chan struct{}, done chan error) {
		locked, release, done = make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- s.Update(ctx, func(tx stockade.Tx) error {
				if _, err := tx.ReservationGet(ctx, stockade.ByID{ID: id, Lock: true}); err != nil {
					return err
				}
				close(locked)
				<-release
				return then(tx)
			})
		}()
		return locked, release, done
	}
	locked, release, done := hold(kept.ID, func(stockade.Tx) error { return nil })
	<-locked
	// racing lapsed: its unit is for sale; kept's is not.
	sold, err := reserve()
	close(release)
	if err != nil {
		t.Fatalf("a request for the stock of a kept reservation whose row is locked: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := reserve(); stockade.ErrorCode(err) != stockade.EInsufficientStock {
		t.Fatalf("a third reservation of 2 units: %v, want %s", err, stockade.EInsufficientStock)
	}
	if _, err := en.eng.Release(ctx, sold.ID, nil); err != nil {
		t.Fatal(err)
	}

	// The race: a reservation, expired, whose pending payment goes in
	// flight while a request that read it as lapsed waits for its row.
	en.clock.Advance(-2 * time.Minute)
	next, err := reserve()
	if err != nil {
		t.Fatal(err)
	}
	p := en.pay(stockade.PayReservation, next.ID)
	en.clock.Advance(2 * time.Minute)
	locked, release, done = hold(next.ID, func(tx stockade.Tx) error {
		cur, err := tx.PaymentGet(ctx, stockade.ByID{ID: p.ID, Lock: true})
		if err != nil {
			return err
		}
		cur.Status, cur.Version = stockade.PaymentProcessing, cur.Version+1
		if ok, err := tx.PaymentUpdate(ctx, cur); err != nil || !ok {
			return errors.Join(err, errors.New("the payment changed"))
		}
		return nil
	})
	<-locked
	result := make(chan error, 1)
	go func() {
		_, err := reserve()
		result <- err
	}()
	eventually(t, "the request to wait for the reservation's row", func() bool { return lockWaiters(t, pool) == 1 })
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-result; stockade.ErrorCode(err) != stockade.EInsufficientStock {
		t.Fatalf("a request that waited for a reservation whose payment went in flight meanwhile: %v, want %s", err, stockade.EInsufficientStock)
	}
	if got, err := en.eng.Reservation(ctx, next.ID); err != nil || got.Status != stockade.Held {
		t.Fatalf("the reservation whose payment went in flight: %v, %v; want it held", got.Status, err)
	}
	en.balanced()
}

// eventually waits, within bound, until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", bound, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lockWaiters counts the sessions of pool's database that wait for a
// lock.
func lockWaiters(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	err := pool.QueryRow(sys(t), `
		SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
