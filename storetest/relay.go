package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// testRelayCheckpoint: a relay starts at the zero position, its
// checkpoint moves and reads back, and pruning keeps every event after
// any relay's checkpoint, however old.
func testRelayCheckpoint(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	turn := func(name string) stockade.EventPosition {
		t.Helper()
		var pos stockade.EventPosition
		update(t, s, func(tx stockade.Tx) error {
			var ok bool
			var err error
			if pos, ok, err = tx.RelayLock(ctx, name); err == nil && !ok {
				t.Errorf("RelayLock(%q) with no other transaction: not taken", name)
			}
			return err
		})
		return pos
	}
	if pos := turn("nats"); pos != (stockade.EventPosition{}) {
		t.Errorf("a new relay is at %+v, want the zero position", pos)
	}
	evs := []stockade.DomainEvent{
		ev("evt_1", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{}`),
		ev("evt_2", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, `{}`),
		ev("evt_3", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 3, base, `{}`),
	}
	appendEvents(t, s, evs...)
	read := settleEvents(t, s, eventIDs(evs)...)
	update(t, s, func(tx stockade.Tx) error {
		if _, ok, err := tx.RelayLock(ctx, "nats"); err != nil || !ok {
			t.Fatalf("RelayLock: %v, %v", ok, err)
		}
		return tx.RelaySetPosition(ctx, "nats", read[0].Position)
	})
	if pos := turn("nats"); pos != read[0].Position {
		t.Errorf("the relay is at %+v, want %+v", pos, read[0].Position)
	}
	if pos := turn("other"); pos != (stockade.EventPosition{}) {
		t.Errorf("another relay is at %+v, want the zero position", pos)
	}
	// Only the first event has been published, by nats; other has
	// published nothing, but has no checkpoint row yet: a relay keeps
	// events only once it has a checkpoint.
	var n int
	update(t, s, func(tx stockade.Tx) (err error) {
		n, err = tx.EventPrune(ctx, base.Add(time.Hour), 10)
		return err
	})
	if n != 1 {
		t.Errorf("EventPrune with a relay past the first event deleted %d, want 1", n)
	}
	checkEvents(t, "after pruning", readEvents(t, s, stockade.DomainEventFilter{Limit: maxEvents}), evs[1:])
	update(t, s, func(tx stockade.Tx) error { return tx.RelaySetPosition(ctx, "nats", read[2].Position) })
	update(t, s, func(tx stockade.Tx) (err error) {
		n, err = tx.EventPrune(ctx, base.Add(time.Hour), 10)
		return err
	})
	if n != 2 {
		t.Errorf("EventPrune with the relay past every event deleted %d, want 2", n)
	}
}

// testRelayTurn: while one transaction has a relay's turn, another does
// not get it, and gets it once the first has ended. Where one transaction
// writes at a time (no RowLocks), the second waits for the first, and the
// case holds trivially.
func testRelayTurn(t *testing.T, s stockade.Store) {
	if !s.Features().RowLocks {
		t.Skip("one write transaction at a time: a relay's transaction is its turn")
	}
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(ctx, func(tx stockade.Tx) error {
			if _, ok, err := tx.RelayLock(ctx, "nats"); err != nil || !ok {
				t.Errorf("first RelayLock: %v, %v", ok, err)
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	update(t, s, func(tx stockade.Tx) error {
		_, ok, err := tx.RelayLock(ctx, "nats")
		if ok {
			t.Errorf("a second transaction took the relay's turn while the first has it")
		}
		return err
	})
	update(t, s, func(tx stockade.Tx) error {
		if _, ok, err := tx.RelayLock(ctx, "other"); err != nil || !ok {
			t.Errorf("another relay's turn: %v, %v; want it taken", ok, err)
		}
		return nil
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx stockade.Tx) error {
		if _, ok, err := tx.RelayLock(ctx, "nats"); err != nil || !ok {
			t.Errorf("RelayLock after the first ended: %v, %v; want it taken", ok, err)
		}
		return nil
	})
}
