package postgres_test

import (
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// TestEventsCommitted: a store hears the events that another store on the
// same database commits, goes on hearing them after its listening
// connection is cut, and stops at Close.
func TestEventsCommitted(t *testing.T) {
	t.Parallel()
	listener, url := newStore(t)
	writer := openStore(t, url)
	admin := newPool(t, url)
	n := 0
	write := func() {
		t.Helper()
		n++
		ev := stockade.DomainEvent{ID: "evt_signal_" + string(rune('a'+n)), Type: stockade.EventStockSet,
			Aggregate: stockade.AggregateLevel, AggregateID: "widget@east", Version: int64(n), At: time.Now(),
			Payload: []byte(`{}`)}
		update(t, writer, func(tx stockade.Tx) error { return tx.EventAppend(t.Context(), ev) })
	}
	waitFor := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(bound):
			t.Fatalf("%s: no signal", what)
		}
	}

	// The first call starts listening, and the listener signals once it
	// listens, for what it may have missed.
	waitFor("listening", listener.EventsCommitted())
	ch := listener.EventsCommitted()
	write()
	waitFor("a commit of another store", ch)

	// Cut the listening connection: the listener connects again, and
	// signals when it listens again.
	ch = listener.EventsCommitted()
	var cut int
	err := admin.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'stockade events listener'`).Scan(&cut)
	if err != nil || cut != 1 {
		t.Fatalf("terminated %d listening connections, want 1 (%v)", cut, err)
	}
	waitFor("listening again", ch)
	ch = listener.EventsCommitted()
	write()
	waitFor("a commit after the listener reconnected", ch)

	// A store announces its own commits too.
	ch = listener.EventsCommitted()
	n++
	update(t, listener, func(tx stockade.Tx) error {
		return tx.EventAppend(t.Context(), stockade.DomainEvent{ID: "evt_signal_own", Type: stockade.EventStockSet,
			Aggregate: stockade.AggregateLevel, AggregateID: "widget@east", Version: int64(n), At: time.Now(), Payload: []byte(`{}`)})
	})
	waitFor("its own commit", ch)

	ch = listener.EventsCommitted()
	if err := listener.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor("close", ch)
	waitFor("a call after close", listener.EventsCommitted())
}
