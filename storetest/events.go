package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// maxEvents is the limit of the suite's reads of every event; no test
// writes as many.
const maxEvents = 10000

// ev returns an event of the fixtures, with payload as its JSON.
func ev(id, typ, agg, aggID string, version int64, at time.Time, payload string) stockade.DomainEvent {
	return stockade.DomainEvent{ID: id, Type: typ, Aggregate: agg, AggregateID: aggID, Version: version, At: at,
		Payload: json.RawMessage(payload)}
}

// appendEvents commits evs in one call to EventAppend in one Update.
func appendEvents(t *testing.T, s stockade.Store, evs ...stockade.DomainEvent) {
	t.Helper()
	update(t, s, func(tx stockade.Tx) error { return tx.EventAppend(t.Context(), evs...) })
}

// readEvents reads the events that match f in one View.
func readEvents(t *testing.T, s stockade.Store, f stockade.DomainEventFilter) []stockade.DomainEvent {
	t.Helper()
	var evs []stockade.DomainEvent
	view(t, s, func(tx stockade.Tx) error {
		var err error
		evs, err = tx.EventList(t.Context(), f)
		return err
	})
	if len(evs) > f.Limit {
		t.Fatalf("Events(%+v) returned %d events, more than the limit", f, len(evs))
	}
	return evs
}

// settleEvents waits until a View reads every event named in ids, and
// returns all the events that it read. A store may hold back a committed
// event while a transaction that could still write one before it is
// running (PostgreSQL, where that is any write transaction of the server
// older than it), so a test that has committed its events waits for
// them, rather than failing on another test's transaction. Once an event
// is readable, it stays so.
func settleEvents(t *testing.T, s stockade.Store, ids ...string) []stockade.DomainEvent {
	t.Helper()
	deadline := time.Now().Add(hangTimeout)
	for {
		evs := readEvents(t, s, stockade.DomainEventFilter{Limit: maxEvents})
		missing := slices.DeleteFunc(slices.Clone(ids), func(id string) bool {
			return slices.ContainsFunc(evs, func(e stockade.DomainEvent) bool { return e.ID == id })
		})
		if len(missing) == 0 {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("committed events %q still unread after %v", missing, hangTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// walkEvents reads the events that match f a page of limit at a time,
// each page after the position of the last event of the one before, until
// a page comes back short. It fails the test unless positions strictly
// increase along the walk.
func walkEvents(t *testing.T, s stockade.Store, f stockade.DomainEventFilter, limit int) []stockade.DomainEvent {
	t.Helper()
	var all []stockade.DomainEvent
	f.Limit = limit
	for {
		page := readEvents(t, s, f)
		for _, e := range page {
			if !f.After.Less(e.Position) {
				t.Fatalf("Events(%+v) returned %s at %+v, not after %+v", f, e.ID, e.Position, f.After)
			}
			f.After = e.Position
		}
		all = append(all, page...)
		if len(page) < limit {
			return all
		}
	}
}

// eventIDs returns the ids of evs, in order.
func eventIDs(evs []stockade.DomainEvent) []string {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return ids
}

// sameJSON reports whether a and b are equivalent JSON: the same values,
// whatever the spacing and the order of object keys.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// checkEvents fails the test unless got holds want's events, field by
// field, in the same order, the payloads equivalent JSON (an empty one is
// null), with strictly increasing positions.
func checkEvents(t *testing.T, what string, got, want []stockade.DomainEvent) {
	t.Helper()
	if !slices.Equal(eventIDs(got), eventIDs(want)) {
		t.Errorf("%s: events %q, want %q", what, eventIDs(got), eventIDs(want))
		return
	}
	for i, g := range got {
		w := want[i]
		if g.Type != w.Type || g.Aggregate != w.Aggregate || g.AggregateID != w.AggregateID || g.Version != w.Version {
			t.Errorf("%s: event %s = %s %s/%s v%d, want %s %s/%s v%d", what, g.ID,
				g.Type, g.Aggregate, g.AggregateID, g.Version, w.Type, w.Aggregate, w.AggregateID, w.Version)
		}
		checkTime(t, fmt.Sprintf("%s: event %s At", what, g.ID), g.At, w.At)
		wantPayload := w.Payload
		if len(wantPayload) == 0 {
			wantPayload = json.RawMessage("null")
		}
		if !sameJSON(g.Payload, wantPayload) {
			t.Errorf("%s: event %s payload %s, want %s", what, g.ID, g.Payload, wantPayload)
		}
		if i > 0 && !got[i-1].Position.Less(g.Position) {
			t.Errorf("%s: event %s at %+v after %s at %+v, want strictly increasing positions", what,
				g.ID, g.Position, got[i-1].ID, got[i-1].Position)
		}
	}
}

// eventFixture is what the filter and page tests append, in four
// transactions of 1, 4, 2 and 5 events.
var eventFixture = [][]stockade.DomainEvent{
	{ev("evt_01", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{"sku":"A"}`)},
	{
		ev("evt_02", stockade.EventReservationHeld, stockade.AggregateReservation, "r-1", 1, base, `{"id":"r-1"}`),
		ev("evt_03", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 2, base, `{"sku":"A"}`),
		ev("evt_04", stockade.EventOutOfStock, stockade.AggregateLevel, "A@w1", 2, base, `{"sku":"A"}`),
		ev("evt_05", stockade.EventReservationHeld, stockade.AggregateReservation, "r-2", 1, base, `{"id":"r-2"}`),
	},
	{
		ev("evt_06", stockade.EventReservationConfirmed, stockade.AggregateReservation, "r-1", 2, base, `{"id":"r-1"}`),
		ev("evt_07", stockade.EventOrderCommitted, stockade.AggregateOrder, "r-1", 1, base, `{"id":"r-1"}`),
	},
	{
		ev("evt_08", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 3, base, `{"sku":"A"}`),
		ev("evt_09", stockade.EventBackInStock, stockade.AggregateLevel, "A@w1", 3, base, `{"sku":"A"}`),
		ev("evt_10", stockade.EventStockSet, stockade.AggregateLevel, "B@w1", 1, base, `{"sku":"B"}`),
		ev("evt_11", stockade.EventReservationExpired, stockade.AggregateReservation, "r-2", 2, base, `{"id":"r-2"}`),
		ev("evt_12", stockade.EventOrderFulfilled, stockade.AggregateOrder, "r-1", 2, base, `{"id":"r-1"}`),
	},
}

// seedEventFixture appends eventFixture, waits until every event of it is
// readable, and returns the events in the order they were appended.
func seedEventFixture(t *testing.T, s stockade.Store) []stockade.DomainEvent {
	t.Helper()
	var all []stockade.DomainEvent
	for _, evs := range eventFixture {
		appendEvents(t, s, evs...)
		all = append(all, evs...)
	}
	checkEvents(t, "the fixture", settleEvents(t, s, eventIDs(all)...), all)
	return all
}

// matches reports whether e is one of the events that f selects, position
// aside.
func matches(e stockade.DomainEvent, f stockade.DomainEventFilter) bool {
	return (len(f.Types) == 0 || slices.Contains(f.Types, e.Type)) &&
		(f.Aggregate == "" || e.Aggregate == f.Aggregate) &&
		(f.AggregateID == "" || e.AggregateID == f.AggregateID)
}

// testEvents appends events and reads them back: every field, the payload
// as equivalent JSON, in the order they were appended, within a call and
// across transactions, with strictly increasing positions; Limit keeps the
// first ones, and nothing follows the last position.
func testEvents(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	first := []stockade.DomainEvent{
		// Keys out of order, nesting, escapes and text beyond ASCII: the
		// payload must come back as the same JSON, not as the same bytes.
		ev("evt_b", stockade.EventReservationHeld, stockade.AggregateReservation, "r-Ω 1", 1, base,
			`{"status":"held","id":"r-Ω 1","lines":[{"sku":"A","qty":2},{"sku":"\"quoted\"","qty":1e3}],"owner":null}`),
		ev("evt_a", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 1<<40, base.Add(time.Millisecond),
			" {\n\t\"version\" : 1099511627776 , \"sku\" : \"A\" } "),
		ev("evt_c", stockade.EventOutOfStock, stockade.AggregateLevel, "A@w1", 1<<40, base.Add(-time.Hour), `[]`),
	}
	second := []stockade.DomainEvent{
		{ID: "evt_0", Type: stockade.EventOrderCommitted, Aggregate: stockade.AggregateOrder, AggregateID: "o-1",
			Version: 1, At: base.Add(time.Minute)}, // no payload: stored as null
		ev("evt_d", stockade.EventOrderCancelled, stockade.AggregateOrder, "o-1", 2, base.Add(2*time.Minute), `"cancelled"`),
	}
	appendEvents(t, s, first...)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.EventAppend(ctx); err != nil { // nothing to append
			return err
		}
		if err := tx.EventAppend(ctx, second[0]); err != nil {
			return err
		}
		return tx.EventAppend(ctx, second[1])
	})
	want := append(slices.Clone(first), second...)
	got := settleEvents(t, s, eventIDs(want)...)
	checkEvents(t, "Events", got, want)
	if len(got) != len(want) {
		return
	}
	if p := got[3].Payload; string(p) != "null" {
		t.Errorf("event appended without a payload read back with %q, want null", p)
	}

	checkEvents(t, "Events with Limit 2", readEvents(t, s, stockade.DomainEventFilter{Limit: 2}), want[:2])
	checkEvents(t, "Events with Limit 1 after the first", readEvents(t, s, stockade.DomainEventFilter{After: got[0].Position, Limit: 1}), want[1:2])
	checkEvents(t, "Events after the third", readEvents(t, s, stockade.DomainEventFilter{After: got[2].Position, Limit: 10}), want[3:])
	if evs := readEvents(t, s, stockade.DomainEventFilter{After: got[len(got)-1].Position, Limit: 10}); len(evs) != 0 {
		t.Errorf("Events after the last position = %q, want none", eventIDs(evs))
	}
}

// testEventFilters reads the fixture with each filter, alone and
// combined, at once and a page at a time, and compares with what the
// filter selects from the fixture, in the order it was appended.
func testEventFilters(t *testing.T, s stockade.Store) {
	all := seedEventFixture(t, s)
	read := readEvents(t, s, stockade.DomainEventFilter{Limit: maxEvents})
	pos := func(id string) stockade.EventPosition {
		i := slices.IndexFunc(read, func(e stockade.DomainEvent) bool { return e.ID == id })
		return read[i].Position
	}
	tests := []struct {
		name string
		f    stockade.DomainEventFilter
		want []string // nil: what matches selects from the fixture
	}{
		{"none", stockade.DomainEventFilter{}, nil},
		{"one type", stockade.DomainEventFilter{Types: []string{stockade.EventStockSet}}, []string{"evt_01", "evt_08", "evt_10"}},
		{"types", stockade.DomainEventFilter{Types: []string{stockade.EventOutOfStock, stockade.EventOrderCommitted, stockade.EventBackInStock}},
			[]string{"evt_04", "evt_07", "evt_09"}},
		{"a type no event has", stockade.DomainEventFilter{Types: []string{"stock.lost"}}, []string{}},
		{"aggregate", stockade.DomainEventFilter{Aggregate: stockade.AggregateReservation}, []string{"evt_02", "evt_05", "evt_06", "evt_11"}},
		{"aggregate id", stockade.DomainEventFilter{AggregateID: "r-1"}, []string{"evt_02", "evt_06", "evt_07", "evt_12"}},
		{"aggregate and id", stockade.DomainEventFilter{Aggregate: stockade.AggregateOrder, AggregateID: "r-1"}, []string{"evt_07", "evt_12"}},
		{"aggregate and another's id", stockade.DomainEventFilter{Aggregate: stockade.AggregateOrder, AggregateID: "A@w1"}, []string{}},
		{"types and id", stockade.DomainEventFilter{Types: []string{stockade.EventStockSet, stockade.EventBackInStock}, AggregateID: "A@w1"},
			[]string{"evt_01", "evt_08", "evt_09"}},
		{"types and aggregate", stockade.DomainEventFilter{Types: []string{stockade.EventStockSet, stockade.EventReservationHeld},
			Aggregate: stockade.AggregateLevel}, []string{"evt_01", "evt_08", "evt_10"}},
		{"all three", stockade.DomainEventFilter{Types: []string{stockade.EventReservationHeld, stockade.EventReservationExpired},
			Aggregate: stockade.AggregateReservation, AggregateID: "r-2"}, []string{"evt_05", "evt_11"}},
		{"id after a position", stockade.DomainEventFilter{AggregateID: "A@w1", After: pos("evt_03")}, []string{"evt_04", "evt_08", "evt_09"}},
		{"all three after a position", stockade.DomainEventFilter{Types: []string{stockade.EventOrderCommitted, stockade.EventOrderFulfilled},
			Aggregate: stockade.AggregateOrder, AggregateID: "r-1", After: pos("evt_07")}, []string{"evt_12"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []stockade.DomainEvent
			for _, e := range all {
				if matches(e, tc.f) && (tc.f.After == stockade.EventPosition{} || tc.f.After.Less(pos(e.ID))) {
					want = append(want, e)
				}
			}
			if tc.want != nil && !slices.Equal(eventIDs(want), tc.want) {
				t.Fatalf("the fixture gives %q, the table %q", eventIDs(want), tc.want)
			}
			f := tc.f
			f.Limit = maxEvents
			checkEvents(t, "at once", readEvents(t, s, f), want)
			for _, limit := range []int{1, 2, 5} {
				checkEvents(t, fmt.Sprintf("pages of %d", limit), walkEvents(t, s, tc.f, limit), want)
			}
			if len(want) > 1 {
				f.Limit = 1
				checkEvents(t, "Limit 1", readEvents(t, s, f), want[:1])
			}
		})
	}
}

// testEventPages walks events a page at a time, from the start and from a
// position, across transactions of several sizes and page boundaries that
// fall inside and between them: each event is read once, in order.
func testEventPages(t *testing.T, s stockade.Store) {
	all := seedEventFixture(t, s)
	var more []stockade.DomainEvent
	for i := range 30 {
		more = append(more, ev(fmt.Sprintf("evt_m%02d", i), stockade.EventStockAdjusted, stockade.AggregateLevel, "B@w1",
			int64(i+2), base.Add(time.Duration(i)*time.Second), fmt.Sprintf(`{"n":%d}`, i)))
	}
	appendEvents(t, s, more[:1]...)
	appendEvents(t, s, more[1:17]...)
	appendEvents(t, s, more[17:]...)
	all = append(all, more...)
	read := settleEvents(t, s, eventIDs(all)...)
	checkEvents(t, "all events", read, all)
	for _, limit := range []int{1, 2, 3, 7, len(all) - 1, len(all), len(all) + 1} {
		checkEvents(t, fmt.Sprintf("pages of %d", limit), walkEvents(t, s, stockade.DomainEventFilter{}, limit), all)
	}
	if len(read) == len(all) {
		from := stockade.DomainEventFilter{After: read[14].Position}
		checkEvents(t, "pages of 4 from the 15th", walkEvents(t, s, from, 4), all[15:])
	}
}

// testPruneEvents deletes events written strictly before a time, at most
// the limit, oldest first whatever their positions, and reports how many.
func testPruneEvents(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	// Positions in id order; times not: evt_4 is the oldest. Pruning
	// looks at the first events by position only, which bounds its work
	// however many younger events there are.
	evs := []stockade.DomainEvent{
		ev("evt_1", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, at(3), `{}`),
		ev("evt_2", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, at(1), `{}`),
		ev("evt_3", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 3, at(5), `{}`),
		ev("evt_4", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 4, at(0), `{}`),
		ev("evt_5", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 5, at(2), `{}`),
		ev("evt_6", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 6, at(4), `{}`),
	}
	appendEvents(t, s, evs[:3]...)
	appendEvents(t, s, evs[3:]...)
	last := settleEvents(t, s, eventIDs(evs)...)[len(evs)-1].Position
	remaining := func(ids ...string) []stockade.DomainEvent {
		return slices.DeleteFunc(slices.Clone(evs), func(e stockade.DomainEvent) bool { return !slices.Contains(ids, e.ID) })
	}
	steps := []struct {
		name   string
		before time.Time
		limit  int
		n      int
		left   []string
	}{
		{"limit 0 deletes nothing", at(10), 0, 0, []string{"evt_1", "evt_2", "evt_3", "evt_4", "evt_5", "evt_6"}},
		{"the first two by position", at(4), 2, 2, []string{"evt_3", "evt_4", "evt_5", "evt_6"}},
		{"only those strictly before", at(4), 10, 2, []string{"evt_3", "evt_6"}},
		{"none left before", at(4), 10, 0, []string{"evt_3", "evt_6"}},
		{"the first by position is younger", at(4), 1, 0, []string{"evt_3", "evt_6"}},
		{"the first one", at(6), 1, 1, []string{"evt_6"}},
		{"the rest", at(6), 10, 1, []string{}},
	}
	for _, st := range steps {
		var n int
		update(t, s, func(tx stockade.Tx) error {
			var err error
			n, err = tx.EventPrune(ctx, st.before, st.limit)
			return err
		})
		if n != st.n {
			t.Errorf("%s: EventPrune(%v, %d) = %d, want %d", st.name, st.before, st.limit, n, st.n)
		}
		checkEvents(t, st.name, readEvents(t, s, stockade.DomainEventFilter{Limit: maxEvents}), remaining(st.left...))
	}

	// Positions are never handed out again once the events that had them
	// are gone, or a reader past them would miss the next ones.
	appendEvents(t, s, ev("evt_7", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 7, at(7), `{}`))
	got := settleEvents(t, s, "evt_7")
	if len(got) != 1 || !last.Less(got[0].Position) {
		t.Errorf("after pruning every event, a new one is at %+v, want a position after %+v", got, last)
	}
}

// testEventsRolledBack: the events of a transaction that rolls back are
// never read, and the events committed before and after it are.
func testEventsRolledBack(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	appendEvents(t, s, ev("evt_1", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{}`))
	err := s.Update(ctx, func(tx stockade.Tx) error {
		err := tx.EventAppend(ctx, ev("evt_boom", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, `{}`))
		if err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	appendEvents(t, s, ev("evt_2", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, `{}`))
	if got := settleEvents(t, s, "evt_1", "evt_2"); !slices.Equal(eventIDs(got), []string{"evt_1", "evt_2"}) {
		t.Errorf("events after two transactions rolled back = %q, want only the committed evt_1 and evt_2", eventIDs(got))
	}
}

// testInvalidEvents: a payload that is not JSON is refused with
// EInvalid, and a refused call writes none of its events.
func testInvalidEvents(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	appendEvents(t, s, ev("evt_1", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{}`))
	for _, payload := range []string{`{"sku":`, `not json`, `{"a":1}{"b":2}`} {
		err := s.Update(ctx, func(tx stockade.Tx) error {
			return tx.EventAppend(ctx,
				ev("evt_3", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, `{}`),
				ev("evt_4", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, payload))
		})
		wantCode(t, fmt.Sprintf("EventAppend with payload %q", payload), err, stockade.EInvalid)
	}
	appendEvents(t, s, ev("evt_5", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 2, base, `{}`))
	if got := settleEvents(t, s, "evt_1", "evt_5"); !slices.Equal(eventIDs(got), []string{"evt_1", "evt_5"}) {
		t.Errorf("events after the refused calls = %q, want evt_1 and evt_5", eventIDs(got))
	}
}

// testEventsCommitOrder is the case a reader ordered by insertion alone
// gets wrong. Transaction A appends an event and stays open; B, begun
// after A, appends one and commits. A reader that read B's event now, and
// went on after its position, would skip A's when A commits. So while A
// is open the reader must read nothing new; once A has committed, it reads
// A's event and then B's. Where one transaction writes at a time (no
// RowLocks), B waits for A, and the case holds trivially.
func testEventsCommitOrder(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	concurrent := s.Features().RowLocks
	appendEvents(t, s, ev("evt_0", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{"n":0}`))
	read := settleEvents(t, s, "evt_0")
	after := read[len(read)-1].Position // where the reader is

	evA := ev("evt_a", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 2, base, `{"n":1}`)
	evB := ev("evt_b", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 3, base, `{"n":2}`)
	release, doneA := appendHeldOpen(t, s, evA)
	doneB := make(chan error, 1)
	go func() {
		doneB <- s.Update(ctx, func(tx stockade.Tx) error { return tx.EventAppend(ctx, evB) })
	}()
	if concurrent {
		if err := <-doneB; err != nil {
			release()
			t.Fatalf("B, while A is open: %v", err)
		}
	} else {
		t.Log("the store writes one transaction at a time: B waits for A, so no reader can see B before A")
	}

	// B has committed and A is still open: the reader must not go past A.
	early := readEvents(t, s, stockade.DomainEventFilter{After: after, Limit: 10})
	if len(early) > 0 {
		t.Errorf("while A is open, B committed: the reader read %q after its last position, want nothing "+
			"(it would go on after B's position, and miss A's event when A commits)", eventIDs(early))
		after = early[len(early)-1].Position
	}
	release()
	if err := <-doneA; err != nil {
		t.Fatalf("A: %v", err)
	}
	if !concurrent {
		if err := <-doneB; err != nil {
			t.Fatalf("B: %v", err)
		}
	}
	settleEvents(t, s, "evt_a", "evt_b")
	checkEvents(t, "the reader after A committed", readEvents(t, s, stockade.DomainEventFilter{After: after, Limit: 10}),
		[]stockade.DomainEvent{evA, evB})
}

// latestEventPosition reads the head of the outbox in a View.
func latestEventPosition(t *testing.T, s stockade.Store) stockade.EventPosition {
	t.Helper()
	var pos stockade.EventPosition
	view(t, s, func(tx stockade.Tx) error {
		var err error
		pos, err = tx.EventLatestPosition(t.Context())
		return err
	})
	return pos
}

// checkHead fails the test unless the events that Events reads from the
// start are, those named in after after head and the others at or before
// it.
func checkHead(t *testing.T, what string, s stockade.Store, head stockade.EventPosition, after ...string) {
	t.Helper()
	for _, e := range readEvents(t, s, stockade.DomainEventFilter{Limit: maxEvents}) {
		switch past := head.Less(e.Position); {
		case slices.Contains(after, e.ID) && !past:
			t.Errorf("%s: event %s at %+v, want it after the head %+v", what, e.ID, e.Position, head)
		case !slices.Contains(after, e.ID) && past:
			t.Errorf("%s: event %s at %+v, after the head %+v; want it at or before", what, e.ID, e.Position, head)
		}
	}
}

// testLatestEventPosition: the head of the outbox is where a reader
// starts that wants only the events to come. Taken in an empty store, the
// first events come after it. Taken once events are readable, it is at or
// after the last of them, Events reads nothing after it, and then reads
// after it exactly the events appended since. Taken while a transaction
// that has appended is open (and, where transactions write concurrently,
// a younger one has committed), both come after it: the reader waits for
// them instead of starting past them.
func testLatestEventPosition(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	empty := latestEventPosition(t, s)
	first := []stockade.DomainEvent{
		ev("evt_1", stockade.EventStockSet, stockade.AggregateLevel, "A@w1", 1, base, `{"n":1}`),
		ev("evt_2", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 2, base, `{"n":2}`),
	}
	appendEvents(t, s, first...)
	settleEvents(t, s, eventIDs(first)...)
	checkEvents(t, "Events after the head of the empty store",
		readEvents(t, s, stockade.DomainEventFilter{After: empty, Limit: maxEvents}), first)

	more := ev("evt_3", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 3, base, `{"n":3}`)
	appendEvents(t, s, more)
	read := settleEvents(t, s, "evt_1", "evt_2", "evt_3")
	head := latestEventPosition(t, s)
	if last := read[len(read)-1].Position; head.Less(last) {
		t.Errorf("the head %+v is before the last event read, at %+v", head, last)
	}
	if evs := readEvents(t, s, stockade.DomainEventFilter{After: head, Limit: maxEvents}); len(evs) > 0 {
		t.Errorf("Events after the head read %q, want nothing", eventIDs(evs))
	}
	since := []stockade.DomainEvent{
		ev("evt_4", stockade.EventReservationHeld, stockade.AggregateReservation, "r-1", 1, base, `{"id":"r-1"}`),
		ev("evt_5", stockade.EventOutOfStock, stockade.AggregateLevel, "A@w1", 4, base, `{"n":4}`),
		ev("evt_6", stockade.EventReservationReleased, stockade.AggregateReservation, "r-1", 2, base, `{"id":"r-1"}`),
	}
	appendEvents(t, s, since[:2]...)
	appendEvents(t, s, since[2])
	settleEvents(t, s, eventIDs(since)...)
	checkEvents(t, "Events after the head", readEvents(t, s, stockade.DomainEventFilter{After: head, Limit: maxEvents}), since)
	checkHead(t, "the head", s, head, eventIDs(since)...)

	// A has appended and stays open; B, where it can, commits meanwhile.
	concurrent := s.Features().RowLocks
	evA := ev("evt_a", stockade.EventStockAdjusted, stockade.AggregateLevel, "A@w1", 5, base, `{"n":5}`)
	evB := ev("evt_b", stockade.EventStockAdjusted, stockade.AggregateLevel, "B@w1", 1, base, `{"n":6}`)
	release, doneA := appendHeldOpen(t, s, evA)
	want := []stockade.DomainEvent{evA}
	if concurrent {
		if err := s.Update(ctx, func(tx stockade.Tx) error { return tx.EventAppend(ctx, evB) }); err != nil {
			release()
			t.Fatalf("B, while A is open: %v", err)
		}
		want = append(want, evB)
	}
	open := latestEventPosition(t, s)
	if evs := readEvents(t, s, stockade.DomainEventFilter{After: open, Limit: maxEvents}); len(evs) > 0 {
		t.Errorf("while A is open, Events after the head read %q, want nothing", eventIDs(evs))
	}
	release()
	if err := <-doneA; err != nil {
		t.Fatalf("A: %v", err)
	}
	settleEvents(t, s, eventIDs(want)...)
	checkEvents(t, "Events after the head taken while A was open",
		readEvents(t, s, stockade.DomainEventFilter{After: open, Limit: maxEvents}), want)
	checkHead(t, "the head taken while A was open", s, open, eventIDs(want)...)
}

// testEventsWhileAppending has 20 writers append events in transactions
// of their own, one statement per event and a pause after each, so that
// transactions stay open after their first insert, some rolling back,
// while four readers page by position. Once the writers are done and
// their events readable, each reader must have read every committed event
// exactly once, in position order, and no rolled-back one.
func testEventsWhileAppending(t *testing.T, s stockade.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), hangTimeout)
	defer cancel()
	const writers, txs = 20, 8
	var (
		mu                    sync.Mutex
		committed, rolledBack []string
		wg                    sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			for i := range txs {
				evs := make([]stockade.DomainEvent, i%3+1)
				for j := range evs {
					evs[j] = ev(fmt.Sprintf("evt_w%02d_%d_%d", w, i, j), stockade.EventStockAdjusted, stockade.AggregateLevel,
						fmt.Sprintf("S%d@w1", w), int64(i+1), base, fmt.Sprintf(`{"w":%d,"i":%d,"j":%d}`, w, i, j))
				}
				rollBack := (w+i)%4 == 0
				_, err := retry(ctx, func() error {
					return s.Update(ctx, func(tx stockade.Tx) error {
						for _, e := range evs {
							if err := tx.EventAppend(ctx, e); err != nil {
								return err
							}
							time.Sleep(time.Millisecond) // widen the window between insert and commit
						}
						if rollBack {
							return errBoom
						}
						return nil
					})
				})
				if errors.Is(err, context.Canceled) {
					return // the reader failed the test
				}
				mu.Lock()
				switch {
				case rollBack && errors.Is(err, errBoom):
					rolledBack = append(rolledBack, eventIDs(evs)...)
				case !rollBack && err == nil:
					committed = append(committed, eventIDs(evs)...)
				default:
					t.Errorf("writer %d, transaction %d: %v", w, i, err)
				}
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	defer func() { cancel(); <-done }() // on a failure of the reader, too

	// Readers page by position, as relays do, until the writers are done.
	type reader struct {
		after stockade.EventPosition
		seen  map[string]int // id → how many times read
		order []string
		pages int
	}
	next := func(r *reader) (int, error) { // reads a page, returns its length
		var evs []stockade.DomainEvent
		err := s.View(ctx, func(tx stockade.Tx) error {
			var err error
			evs, err = tx.EventList(ctx, stockade.DomainEventFilter{After: r.after, Limit: 7})
			return err
		})
		if err != nil {
			return 0, err
		}
		if len(evs) > 7 {
			return 0, fmt.Errorf("read %d events with Limit 7", len(evs))
		}
		for _, e := range evs {
			if !r.after.Less(e.Position) {
				return 0, fmt.Errorf("read %s at %+v after position %+v", e.ID, e.Position, r.after)
			}
			r.after = e.Position
			r.seen[e.ID]++
			r.order = append(r.order, e.ID)
		}
		r.pages++
		return len(evs), nil
	}
	readers := make([]*reader, 4)
	var rg sync.WaitGroup
	for i := range readers {
		readers[i] = &reader{seen: map[string]int{}}
		rg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				n, err := next(readers[i])
				if err != nil {
					if !errors.Is(err, context.Canceled) {
						t.Errorf("reader %d: %v", i, err)
					}
					cancel() // stop everyone: the test has failed
					return
				}
				if n == 0 {
					time.Sleep(time.Millisecond) // caught up: poll, as a relay does
				}
			}
		})
	}
	rg.Wait()
	if t.Failed() {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	all := settleEvents(t, s, committed...)
	t.Logf("%d events committed, %d rolled back; %d readers read %d, %d, %d and %d pages while they were written",
		len(committed), len(rolledBack), len(readers), readers[0].pages, readers[1].pages, readers[2].pages, readers[3].pages)

	for i, r := range readers {
		for {
			n, err := next(r)
			if err != nil {
				t.Fatalf("reader %d, after the writers: %v", i, err)
			}
			if n == 0 {
				break
			}
		}
		for id, n := range r.seen {
			if n > 1 {
				t.Errorf("reader %d read event %s %d times", i, id, n)
			}
			if slices.Contains(rolledBack, id) {
				t.Errorf("reader %d read event %s of a transaction that rolled back", i, id)
			} else if !slices.Contains(committed, id) {
				t.Errorf("reader %d read event %s, which no writer wrote", i, id)
			}
		}
		var missed []string
		for _, id := range committed {
			if r.seen[id] == 0 {
				missed = append(missed, id)
			}
		}
		if len(missed) > 0 {
			t.Errorf("reader %d missed %d of %d committed events: %q", i, len(missed), len(committed), missed)
		}
		if !slices.Equal(eventIDs(all), r.order) {
			t.Errorf("reader %d read the events in another order than a read of all of them", i)
		}
	}
}

// storeEvent is the event the rollback and read-only tests find in the
// store, and the one they write.
var (
	storeEvent = ev("evt_old", stockade.EventReservationHeld, stockade.AggregateReservation, "r-old", 1, base, `{"id":"r-old"}`)
	newEvent   = ev("evt_new", stockade.EventReservationHeld, stockade.AggregateReservation, "r-new", 1, base.Add(48*time.Hour),
		`{"id":"r-new"}`)
)

// appendHeldOpen appends evs in a transaction ("A") that stays open, once
// they are appended, until release is called; done receives its outcome.
// It fails the test if the append fails.
func appendHeldOpen(t *testing.T, s stockade.Store, evs ...stockade.DomainEvent) (release func(), done <-chan error) {
	t.Helper()
	ctx := t.Context()
	return updateHeldOpen(t, ctx, s, func(tx stockade.Tx) error { return tx.EventAppend(ctx, evs...) })
}
