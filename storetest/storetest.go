package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// Run runs the conformance suite, one subtest per part of the contract.
// newStore returns a fresh, migrated, empty store and registers its own
// clean-up on the t it is given; Run calls it once per subtest, from
// subtests that run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) stockade.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s stockade.Store)
	}{
		{"Ping", testPing},
		{"Locations", testLocations},
		{"SKUTotals", testSKUTotals},
		{"LevelSetOnHand", testSetOnHand},
		{"LevelUpdate", testUpdateLevel},
		{"LevelUpdateMany", testUpdateLevels},
		{"UpdateLevelGuard", testUpdateLevelGuard},
		{"FenceRange", testFenceRange},
		{"LevelOrder", testLevelOrder},
		{"Movements", testMovements},
		{"MovementsDefaultLimit", testMovementsDefaultLimit},
		{"ManyMovements", testManyMovements},
		{"MovementPages", testMovementPages},
		{"MovementPagesWhileAppending", testMovementPagesWhileAppending},
		{"MovementSums", testLedgerSums},
		{"Reservations", testReservations},
		{"ReservationLapseCandidates", testReservationLapseCandidates},
		{"Orders", testOrders},
		{"AllocationSums", testRecordSums},
		{"OrderUpdate", testOrderUpdate},
		{"Shipments", testShipments},
		{"Idempotency", testIdempotency},
		{"InvalidStatus", testInvalidStatus},
		{"UpdateRollsBack", testUpdateRollsBack},
		{"ViewIsReadOnly", testViewIsReadOnly},
		{"Peek", testPeek},
		{"ViewDoesNotWait", testViewDoesNotWait},
		{"LocksExclude", testLocksExclude},
		{"AdvisoryLock", testAdvisoryLock},
		{"SkipLocked", testSkipLocked},
		{"ConcurrentReserve", testConcurrentReserve},
		{"OppositeOrder", testOppositeOrder},
		{"IdempotencyClaim", testIdempotencyClaim},
		{"IdempotenciesOrder", testIdempotenciesOrder},
		{"ReservationList", testListReservations},
		{"OrderList", testListOrders},
		{"MetadataSet", testMetadataSet},
		{"Keys", testKeys},
		{"Webhooks", testWebhooks},
		{"Rooms", testRooms},
		{"RoomTargets", testRoomTargets},
		{"RoomVisitors", testRoomVisitors},
		{"RoomVisitorDraw", testRoomVisitorDraw},
		{"RoomVisitorAdmit", testRoomVisitorAdmit},
		{"RoomVisitorActivity", testRoomVisitorActivity},
		{"KeyConflict", testKeyConflict},
		{"InvalidKey", testInvalidKey},
		{"Events", testEvents},
		{"EventFilters", testEventFilters},
		{"EventPages", testEventPages},
		{"EventPrune", testPruneEvents},
		{"EventsRolledBack", testEventsRolledBack},
		{"InvalidEvents", testInvalidEvents},
		{"EventsCommitOrder", testEventsCommitOrder},
		{"EventLatestPosition", testLatestEventPosition},
		{"EventsWhileAppending", testEventsWhileAppending},
		{"RelayCheckpoint", testRelayCheckpoint},
		{"RelayTurn", testRelayTurn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
	t.Run("Bookings", func(t *testing.T) {
		t.Parallel()
		RunBookings(t, newStore)
	})
	t.Run("Payments", func(t *testing.T) {
		t.Parallel()
		RunPayments(t, newStore)
	})
}

// hangTimeout bounds every wait of the suite. It only turns a hang (a
// deadlock, a lock that is never released) into a failure; no test
// depends on how fast a store is.
const hangTimeout = 30 * time.Second

// base is the suite's reference time. It carries nanoseconds and a zone
// other than UTC, so that the tests see how a store rounds and which zone
// it returns.
var base = time.Date(2031, time.March, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+2", 2*60*60))

var errBoom = errors.New("storetest: boom")

// update runs fn in s.Update and fails the test if it returns an error.
func update(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// view runs fn in s.View and fails the test if it returns an error.
func view(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// txFor returns update for a test that takes locks, which are for write
// transactions, and view for one that does not.
func txFor(lock bool) func(t *testing.T, s stockade.Store, fn func(tx stockade.Tx) error) {
	if lock {
		return update
	}
	return view
}

// retry calls fn until it returns an error that does not wrap
// stockade.ErrConflict, or ctx is done. A store may return conflicts; the
// engine retries them, and so do the concurrent tests.
func retry(ctx context.Context, fn func() error) (conflicts int, err error) {
	for {
		err = fn()
		if !errors.Is(err, stockade.ErrConflict) {
			return conflicts, err
		}
		conflicts++
		if ctx.Err() != nil {
			return conflicts, fmt.Errorf("still conflicting when the test gave up: %w", err)
		}
	}
}

// level describes a level to create with seed.
type level struct {
	stockade.Key
	OnHand, Reserved, Committed int64
}

// seed creates the locations of levels (named after their ids), then the
// levels, each with ledger rows that explain its counters.
func seed(t *testing.T, s stockade.Store, levels ...level) {
	t.Helper()
	ctx := t.Context()
	update(t, s, func(tx stockade.Tx) error {
		for _, lv := range levels {
			if err := tx.LocationPut(ctx, stockade.Location{ID: lv.Location, Name: "Location " + lv.Location}); err != nil {
				return err
			}
			if _, ok, err := tx.LevelSetOnHand(ctx, lv.Key, lv.OnHand, nil); err != nil || !ok {
				return fmt.Errorf("LevelSetOnHand(%s, %d) = %v, %v", lv.Key, lv.OnHand, ok, err)
			}
			ms := []stockade.Movement{{At: base, SKU: lv.SKU, Location: lv.Location, Kind: stockade.MoveSet,
				Delta: stockade.Delta{OnHand: lv.OnHand}, Reason: "seed"}}
			if lv.Reserved != 0 || lv.Committed != 0 {
				d := stockade.Delta{Reserved: lv.Reserved, Committed: lv.Committed}
				if _, ok, err := tx.LevelUpdate(ctx, lv.Key, d, stockade.Guard{}); err != nil || !ok {
					return fmt.Errorf("LevelUpdate(%s, %+v) = %v, %v", lv.Key, d, ok, err)
				}
				ms = append(ms, stockade.Movement{At: base, SKU: lv.SKU, Location: lv.Location, Kind: stockade.MoveAdjust,
					Delta: d, Reason: "seed"})
			}
			if err := tx.MovementAppend(ctx, ms...); err != nil {
				return err
			}
		}
		return nil
	})
}

// getLevel returns the level at k, read in a View, and whether it exists.
func getLevel(t *testing.T, s stockade.Store, k stockade.Key) (stockade.Level, bool) {
	t.Helper()
	var ls []stockade.Level
	view(t, s, func(tx stockade.Tx) error {
		var err error
		ls, err = tx.LevelList(t.Context(), stockade.LevelQuery{Keys: []stockade.Key{k}})
		return err
	})
	switch len(ls) {
	case 0:
		return stockade.Level{}, false
	case 1:
		if ls[0].Key() != k {
			t.Fatalf("Levels([%s]) returned %s", k, ls[0].Key())
		}
		return ls[0], true
	}
	t.Fatalf("Levels([%s]) returned %d levels", k, len(ls))
	return stockade.Level{}, false
}

// counters is a level without its version and fence.
type counters struct{ OnHand, Reserved, Committed int64 }

func countersOf(l stockade.Level) counters { return counters{l.OnHand, l.Reserved, l.Committed} }

// wantCode fails the test unless err is a *stockade.Error with code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var e *stockade.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: error = %v, want a *stockade.Error with code %q", what, err, code)
	}
}

// sameTime reports whether a store returned want: the same instant to the
// millisecond or better, in UTC.
func sameTime(got, want time.Time) bool {
	d := got.Sub(want)
	return got.Location() == time.UTC && d < time.Millisecond && d > -time.Millisecond
}

// checkTime fails the test unless sameTime(got, want).
func checkTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !sameTime(got, want) {
		t.Errorf("%s = %v (%v), want %v in UTC, to the millisecond", what, got, got.Location(), want.UTC())
	}
}

// equalSlices compares two slices, taking nil and empty as equal.
func equalSlices[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// snapshot is everything the suite's rollback and read-only tests look at.
type snapshot struct {
	Locations    []stockade.Location
	Levels       []stockade.Level
	Movements    []stockade.Movement
	Reservations map[string]string // id → "status/order id/owner" or the error code
	Orders       map[string]string // id → "status/owner" or the error code
	Idempotency  map[string]string // key → "op/fingerprint/result/created" or "missing"
	Keys         []stockade.APIKey
	Events       []stockade.DomainEvent
}

// take reads a snapshot of s in a View, with the given reservations,
// orders and idempotency keys.
func take(t *testing.T, s stockade.Store, reservations, orders, idem []string) snapshot {
	t.Helper()
	ctx := t.Context()
	snap := snapshot{Reservations: map[string]string{}, Orders: map[string]string{}, Idempotency: map[string]string{}}
	view(t, s, func(tx stockade.Tx) error {
		var err error
		if snap.Locations, err = tx.LocationList(ctx); err != nil {
			return err
		}
		if snap.Levels, err = tx.LevelList(ctx, stockade.LevelQuery{All: true}); err != nil {
			return err
		}
		if snap.Movements, err = tx.MovementList(ctx, stockade.MovementFilter{}); err != nil {
			return err
		}
		if snap.Keys, err = tx.KeyList(ctx, "", 1000); err != nil {
			return err
		}
		if snap.Events, err = tx.EventList(ctx, stockade.DomainEventFilter{Limit: maxEvents}); err != nil {
			return err
		}
		for _, id := range reservations {
			r, err := tx.ReservationGet(ctx, stockade.ByID{ID: id})
			snap.Reservations[id] = string(r.Status) + "/" + r.OrderID + "/" + r.Owner + stockade.ErrorCode(err)
		}
		for _, id := range orders {
			o, err := tx.OrderGet(ctx, stockade.ByID{ID: id})
			snap.Orders[id] = string(o.Status) + "/" + o.Owner + stockade.ErrorCode(err)
		}
		for _, key := range idem {
			rec, ok, err := idempotencyRecord(ctx, tx, key)
			if err != nil {
				return err
			}
			snap.Idempotency[key] = "missing"
			if ok {
				snap.Idempotency[key] = fmt.Sprintf("%s/%s/%q/%s", rec.Op, rec.Fingerprint, rec.Result, rec.CreatedAt)
			}
		}
		return nil
	})
	return snap
}

func testPing(t *testing.T, s stockade.Store) {
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// recordOutcome records one outcome's id in the inbox with
// OutcomeInsert, and reports whether it was new.
func recordOutcome(ctx context.Context, tx stockade.Tx, eventID, paymentID string, at time.Time) (bool, error) {
	ids, err := tx.OutcomeInsert(ctx, []stockade.OutcomeRecord{{EventID: eventID, PaymentID: paymentID}}, at)
	return len(ids) == 1, err
}

// idempotencyRecord reads the record of one key with IdempotencyGetMany.
func idempotencyRecord(ctx context.Context, tx stockade.Tx, key string) (stockade.IdempotencyRecord, bool, error) {
	recs, err := tx.IdempotencyGetMany(ctx, []string{key})
	if err != nil || len(recs) == 0 {
		return stockade.IdempotencyRecord{}, false, err
	}
	return recs[0], true, nil
}
