package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// roomAt is the rooms' cases' reference time, as stores keep times.
var roomAt = base.Add(time.Hour).UTC().Truncate(time.Microsecond)

// newRoom returns a room in status in front of show, or of skus if show
// is "", at version 1.
func newRoom(id string, status stockade.RoomStatus, show string, skus ...string) stockade.Room {
	return stockade.Room{ID: id, ShowID: show, SKUs: skus, OpensAt: roomAt, ActiveLimit: 100, AdmitPerMinute: 60,
		AdmissionTTL: stockade.DefaultAdmissionTTL, Order: stockade.RoomArrival, PerVisitor: 1, StockFactor: 1,
		Status: status, CreditAt: roomAt, Secret: "rsec_" + id, CreatedAt: roomAt, UpdatedAt: roomAt, Version: 1}
}

// insertRooms inserts rs in one Update and fails the test if it fails.
func insertRooms(t *testing.T, s stockade.Store, rs ...stockade.Room) {
	t.Helper()
	update(t, s, func(tx stockade.Tx) error {
		for _, r := range rs {
			if err := tx.RoomInsert(t.Context(), r); err != nil {
				return fmt.Errorf("RoomInsert(%s): %w", r.ID, err)
			}
		}
		return nil
	})
}

// insertVisitors inserts vs in one Update and fails the test if it
// fails.
func insertVisitors(t *testing.T, s stockade.Store, vs ...stockade.RoomVisitor) {
	t.Helper()
	update(t, s, func(tx stockade.Tx) error { return tx.RoomVisitorInsert(t.Context(), vs) })
}

// getVisitors returns the visitors of room named by ids, read in a View.
func getVisitors(t *testing.T, s stockade.Store, room string, ids ...string) []stockade.RoomVisitor {
	t.Helper()
	var vs []stockade.RoomVisitor
	view(t, s, func(tx stockade.Tx) error {
		var err error
		vs, err = tx.RoomVisitorGetMany(t.Context(), room, ids)
		return err
	})
	return vs
}

// wantConflict fails the test unless err wraps stockade.ErrConflict.
func wantConflict(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, stockade.ErrConflict) {
		t.Errorf("%s: %v, want an error wrapping stockade.ErrConflict", what, err)
	}
}

func roomIDs(rs []stockade.Room) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// testRooms: a room reads back as it was inserted, every field of it, by
// RoomGet with or without a lock and by RoomList, which pages in byte
// order of ids; RoomUpdate writes every field but the id, the targets and
// the creation time, only over the version before its own.
func testRooms(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	show := stockade.Room{ID: "Room-B", ShowID: "show-1", OpensAt: roomAt.Add(time.Hour), ActiveLimit: 500,
		AdmitPerMinute: 1200, AdmissionTTL: 90*time.Second + 250*time.Millisecond, Order: stockade.RoomRandomAtOpening,
		PerVisitor: 4, StockFactor: 1.5, Status: stockade.RoomQueueing, Joined: 10, Ordered: 7, Admitted: 3,
		Credit: 2.75, CreditAt: roomAt.Add(time.Minute), Paused: stockade.RoomPausedStock, Secret: "rsec_b",
		Metadata: stockade.Metadata{"sale": "spring", "tier": "1"}, CreatedAt: roomAt, UpdatedAt: roomAt.Add(2 * time.Minute),
		Version: 3}
	skus := stockade.Room{ID: "room-a", SKUs: []string{"sku-2", "SKU-1", "sku-3"}, OpensAt: roomAt, ActiveLimit: 1,
		AdmitPerMinute: 1, AdmissionTTL: stockade.DefaultAdmissionTTL, Order: stockade.RoomArrival, PerVisitor: 1,
		StockFactor: 1, Status: stockade.RoomSoldOut, Credit: 0.1, CreditAt: roomAt, SoldOutAt: roomAt.Add(3 * time.Minute),
		Secret: "rsec_a", CreatedAt: roomAt.Add(-time.Hour), UpdatedAt: roomAt, Version: 1}
	closed := newRoom("room-c", stockade.RoomClosed, "show-2")
	insertRooms(t, s, skus, closed, show)
	all := []stockade.Room{show, skus, closed} // in byte order of ids

	for _, lock := range []bool{false, true} {
		txFor(lock)(t, s, func(tx stockade.Tx) error {
			for _, want := range all {
				got, err := tx.RoomGet(ctx, stockade.ByID{ID: want.ID, Lock: lock})
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("RoomGet(%s, lock %v) = %+v, want %+v", want.ID, lock, got, want)
				}
			}
			_, err := tx.RoomGet(ctx, stockade.ByID{ID: "room-b", Lock: lock}) // another case
			wantCode(t, "RoomGet(room-b)", err, stockade.ENotFound)
			return nil
		})
	}
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.RoomList(ctx, "", 10)
		if err != nil || !reflect.DeepEqual(got, all) {
			t.Errorf("RoomList(\"\", 10) = %+v, %v; want %+v", got, err, all)
		}
		for _, tc := range []struct {
			after string
			limit int
			want  []string
		}{
			{"", 2, []string{"Room-B", "room-a"}},
			{"Room-B", 10, []string{"room-a", "room-c"}},
			{"room-a", 1, []string{"room-c"}},
			{"room-c", 10, []string{}},
		} {
			got, err := tx.RoomList(ctx, tc.after, tc.limit)
			if err != nil || !reflect.DeepEqual(roomIDs(got), tc.want) {
				t.Errorf("RoomList(%q, %d) = %v, %v; want %v", tc.after, tc.limit, roomIDs(got), err, tc.want)
			}
		}
		return nil
	})

	// Every field changes; the id, the targets and the creation time are
	// not written.
	next := stockade.Room{ID: show.ID, ShowID: "show-9", SKUs: []string{"sku-9"}, OpensAt: roomAt.Add(2 * time.Hour),
		ActiveLimit: 501, AdmitPerMinute: 1201, AdmissionTTL: 24 * time.Hour, Order: stockade.RoomArrival, PerVisitor: 2,
		StockFactor: 0.25, Status: stockade.RoomSoldOut, Joined: 11, Ordered: 11, Admitted: 9, Credit: 0.125,
		CreditAt: roomAt.Add(3 * time.Minute), SoldOutAt: roomAt.Add(4 * time.Minute), Secret: "rsec_b2",
		Metadata: stockade.Metadata{"sale": "summer"}, CreatedAt: roomAt.Add(time.Hour), UpdatedAt: roomAt.Add(4 * time.Minute),
		Version: 4}
	reopened := skus
	reopened.Status, reopened.SoldOutAt, reopened.Paused, reopened.Metadata = stockade.RoomQueueing, time.Time{}, stockade.RoomPausedActive, stockade.Metadata{"k": "v"}
	reopened.Version = 2
	update(t, s, func(tx stockade.Tx) error {
		for _, version := range []int64{5, 3, 1} {
			r := next
			r.Version = version
			if ok, err := tx.RoomUpdate(ctx, r); err != nil || ok {
				return fmt.Errorf("RoomUpdate(%s, version %d) over version 3 = %v, %v; want false", r.ID, version, ok, err)
			}
		}
		if ok, err := tx.RoomUpdate(ctx, next); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(%s, version 4) = %v, %v; want true", next.ID, ok, err)
		}
		if ok, err := tx.RoomUpdate(ctx, next); err != nil || ok {
			return fmt.Errorf("RoomUpdate(%s, version 4) again = %v, %v; want false", next.ID, ok, err)
		}
		if ok, err := tx.RoomUpdate(ctx, reopened); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(%s, version 2) = %v, %v; want true", reopened.ID, ok, err)
		}
		unknown := newRoom("room-nope", stockade.RoomClosed, "show-3")
		unknown.Version = 2
		if ok, err := tx.RoomUpdate(ctx, unknown); err != nil || ok {
			return fmt.Errorf("RoomUpdate of an unknown room = %v, %v; want false", ok, err)
		}
		return nil
	})
	want := next
	want.ShowID, want.SKUs, want.CreatedAt = show.ShowID, show.SKUs, show.CreatedAt
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.RoomList(ctx, "", 10)
		if wantAll := []stockade.Room{want, reopened, closed}; err != nil || !reflect.DeepEqual(got, wantAll) {
			t.Errorf("after the updates, RoomList = %+v, %v; want %+v", got, err, wantAll)
		}
		if _, err := tx.RoomGet(ctx, stockade.ByID{ID: "room-nope"}); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("RoomGet(room-nope) after updating it: %v, want not_found", err)
		}
		return nil
	})
}

// testRoomTargets: a room holds its targets while its status gates, and
// no two rooms that gate hold one target: RoomInsert and RoomUpdate refuse
// it, wrapping stockade.ErrConflict, and change nothing; a room that does
// not gate may share its targets. RoomUpdate holds and lets go the
// targets stored, whatever those of the room it is given. RoomHolding
// finds the holders of targets, RoomListGating the rooms that gate.
func testRoomTargets(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	a := newRoom("t-a", stockade.RoomScheduled, "show-1")
	b := newRoom("t-b", stockade.RoomQueueing, "", "sku-x", "sku-y")
	d := newRoom("t-d", stockade.RoomClosed, "show-1")
	e := newRoom("t-e", stockade.RoomSoldOut, "", "sku-y")
	insertRooms(t, s, a, b, d, e)

	holding := func(what string, targets []string, want ...string) {
		t.Helper()
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.RoomHolding(ctx, targets)
			if err != nil || !slices.Equal(roomIDs(got), want) {
				t.Errorf("%s: RoomHolding(%q) = %v, %v; want %v", what, targets, roomIDs(got), err, want)
			}
			return nil
		})
	}
	gating := func(what string, want ...string) {
		t.Helper()
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.RoomListGating(ctx)
			if err != nil || !slices.Equal(roomIDs(got), want) {
				t.Errorf("%s: RoomListGating = %v, %v; want %v", what, roomIDs(got), err, want)
			}
			return nil
		})
	}
	show1, skuX, skuY, skuZ := stockade.ShowTarget("show-1"), stockade.SKUTarget("sku-x"), stockade.SKUTarget("sku-y"), stockade.SKUTarget("sku-z")

	for _, tc := range []struct {
		name string
		r    stockade.Room
	}{
		{"an id in use", newRoom("t-a", stockade.RoomClosed, "show-9")},
		{"an id in use, by a room that gates", newRoom("t-b", stockade.RoomScheduled, "show-8")},
		{"a show that a room holds", newRoom("t-f", stockade.RoomQueueing, "show-1")},
		{"one of the SKUs that a room holds", newRoom("t-c", stockade.RoomScheduled, "", "sku-z", "sku-y")},
	} {
		err := s.Update(ctx, func(tx stockade.Tx) error { return tx.RoomInsert(ctx, tc.r) })
		wantConflict(t, "RoomInsert with "+tc.name, err)
	}
	view(t, s, func(tx stockade.Tx) error {
		for _, id := range []string{"t-c", "t-f"} {
			_, err := tx.RoomGet(ctx, stockade.ByID{ID: id})
			wantCode(t, "RoomGet("+id+") after its insert was refused", err, stockade.ENotFound)
		}
		got, err := tx.RoomGet(ctx, stockade.ByID{ID: "t-a"})
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Errorf("RoomGet(t-a) after an insert of its id was refused = %+v, %v; want %+v", got, err, a)
		}
		return nil
	})
	holding("the gating rooms", []string{show1}, "t-a")
	holding("the gating rooms", []string{skuY, show1, skuX}, "t-a", "t-b")
	holding("the gating rooms", []string{skuZ, stockade.ShowTarget("show-9"), stockade.ShowTarget("show-8")})
	holding("no targets", nil)
	gating("the rooms inserted", "t-a", "t-b")

	// Closing t-b lets its SKUs go to t-c; opening it again while t-c
	// holds one of them is refused.
	b.Status, b.Version = stockade.RoomClosed, 2
	c := newRoom("t-c", stockade.RoomQueueing, "", "sku-y", "sku-z")
	update(t, s, func(tx stockade.Tx) error {
		if ok, err := tx.RoomUpdate(ctx, b); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(t-b, closed) = %v, %v", ok, err)
		}
		return tx.RoomInsert(ctx, c)
	})
	holding("t-b closed", []string{skuX, skuY, skuZ}, "t-c")
	gating("t-b closed", "t-a", "t-c")
	reopen := b
	reopen.Status, reopen.Version = stockade.RoomQueueing, 3
	err := s.Update(ctx, func(tx stockade.Tx) error {
		_, err := tx.RoomUpdate(ctx, reopen)
		return err
	})
	wantConflict(t, "RoomUpdate(t-b, queueing) while t-c holds sku-y", err)
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.RoomGet(ctx, stockade.ByID{ID: "t-b"})
		if err != nil || !reflect.DeepEqual(got, b) {
			t.Errorf("RoomGet(t-b) after its update was refused = %+v, %v; want %+v", got, err, b)
		}
		return nil
	})
	holding("t-b's reopening refused", []string{skuX}) // not held
	holding("t-b's reopening refused", []string{skuY}, "t-c")

	// From scheduled to queueing and on, t-a keeps show-1; t-d, which
	// shares it closed, may not open while t-a holds it, and may once
	// t-a is closed.
	a.Status, a.Version = stockade.RoomQueueing, 2
	update(t, s, func(tx stockade.Tx) error {
		if ok, err := tx.RoomUpdate(ctx, a); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(t-a, queueing) = %v, %v", ok, err)
		}
		a.Admitted, a.Version = 1, 3
		if ok, err := tx.RoomUpdate(ctx, a); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(t-a, queueing again) = %v, %v", ok, err)
		}
		return nil
	})
	holding("t-a queueing", []string{show1}, "t-a")
	d.Status, d.Version = stockade.RoomScheduled, 2
	err = s.Update(ctx, func(tx stockade.Tx) error {
		_, err := tx.RoomUpdate(ctx, d)
		return err
	})
	wantConflict(t, "RoomUpdate(t-d, scheduled) while t-a holds show-1", err)
	a.Status, a.Version = stockade.RoomClosed, 4
	update(t, s, func(tx stockade.Tx) error {
		for _, r := range []stockade.Room{a, d} {
			if ok, err := tx.RoomUpdate(ctx, r); err != nil || !ok {
				return fmt.Errorf("RoomUpdate(%s, %s) = %v, %v", r.ID, r.Status, ok, err)
			}
		}
		return nil
	})
	holding("t-a closed, t-d scheduled", []string{show1}, "t-d")
	gating("t-a closed, t-d scheduled", "t-c", "t-d")

	// The targets held are those stored, not those of the room given: e
	// stands in front of sku-y, which t-c holds, and g of show-7.
	e.Status, e.ShowID, e.SKUs, e.Version = stockade.RoomScheduled, "show-8", nil, 2
	err = s.Update(ctx, func(tx stockade.Tx) error {
		_, err := tx.RoomUpdate(ctx, e)
		return err
	})
	wantConflict(t, "RoomUpdate(t-e, scheduled, given show-8) while t-c holds its sku-y", err)
	g := newRoom("t-g", stockade.RoomClosed, "show-7")
	insertRooms(t, s, g)
	g.Status, g.ShowID, g.Version = stockade.RoomQueueing, "show-8", 2
	update(t, s, func(tx stockade.Tx) error {
		if ok, err := tx.RoomUpdate(ctx, g); err != nil || !ok {
			return fmt.Errorf("RoomUpdate(t-g, queueing, given show-8) = %v, %v", ok, err)
		}
		return nil
	})
	holding("t-g queueing", []string{stockade.ShowTarget("show-7")}, "t-g")
	holding("t-g queueing", []string{stockade.ShowTarget("show-8")})
	gating("t-g queueing", "t-c", "t-d", "t-g")
}

// testRoomVisitors: visitors read back as they were inserted, each of a
// room once, RoomVisitorGetMany returning those of the room named that
// joined, in byte order of visitor ids. RoomVisitorInsert refuses a
// visitor already in the room and a position above 0 in use in the room,
// even within one call, wrapping stockade.ErrConflict and inserting none
// of the transaction's visitors; position 0 (no place yet) repeats, and
// another room may have the same visitors and positions.
func testRoomVisitors(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	insertRooms(t, s, newRoom("v-room", stockade.RoomQueueing, "show-1"), newRoom("v-other", stockade.RoomQueueing, "show-2"))
	vs := []stockade.RoomVisitor{
		{RoomID: "v-room", VisitorID: "vis-c", Position: 2, Draw: 7, JoinedAt: roomAt.Add(2 * time.Second), Owner: "key-shop"},
		{RoomID: "v-room", VisitorID: "Vis-A", Position: 1, Draw: math.MaxInt64, JoinedAt: roomAt,
			AdmittedAt: roomAt.Add(time.Minute), ExpiresAt: roomAt.Add(11 * time.Minute), UsedAt: roomAt.Add(2 * time.Minute)},
		{RoomID: "v-room", VisitorID: "vis-b", JoinedAt: roomAt.Add(time.Second)},
		{RoomID: "v-room", VisitorID: "vis-d", Draw: 12345, JoinedAt: roomAt.Add(3 * time.Second)},
		{RoomID: "v-other", VisitorID: "vis-c", Position: 2, Draw: 1, JoinedAt: roomAt.Add(time.Hour)},
	}
	update(t, s, func(tx stockade.Tx) error {
		for _, batch := range [][]stockade.RoomVisitor{vs[:3], nil, vs[3:]} {
			if err := tx.RoomVisitorInsert(ctx, batch); err != nil {
				return fmt.Errorf("RoomVisitorInsert of %d visitors: %w", len(batch), err)
			}
		}
		return nil
	})
	for _, tc := range []struct {
		room string
		ids  []string
		want []stockade.RoomVisitor
	}{
		{"v-room", []string{"vis-c", "nobody", "Vis-A", "vis-b", "vis-d"}, []stockade.RoomVisitor{vs[1], vs[2], vs[0], vs[3]}},
		{"v-room", []string{"vis-b"}, []stockade.RoomVisitor{vs[2]}},
		{"v-other", []string{"vis-c", "Vis-A"}, []stockade.RoomVisitor{vs[4]}},
		{"v-room", nil, nil},
		{"v-none", []string{"vis-c"}, nil},
	} {
		// None is nil or empty, as a store makes it.
		if got := getVisitors(t, s, tc.room, tc.ids...); (len(got) > 0 || len(tc.want) > 0) && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RoomVisitorGetMany(%s, %q) = %+v, want %+v", tc.room, tc.ids, got, tc.want)
		}
	}

	visitor := func(id string, position int64) stockade.RoomVisitor {
		return stockade.RoomVisitor{RoomID: "v-room", VisitorID: id, Position: position, Draw: 1, JoinedAt: roomAt.Add(time.Hour)}
	}
	for _, tc := range []struct {
		name    string
		batches [][]stockade.RoomVisitor // in one transaction; the last is refused
	}{
		{"a visitor in the room", [][]stockade.RoomVisitor{{visitor("vis-b", 3)}}},
		{"a visitor in the room, without a position", [][]stockade.RoomVisitor{{visitor("vis-e", 3), visitor("vis-d", 0)}}},
		{"a position in use", [][]stockade.RoomVisitor{{visitor("vis-e", 2)}}},
		{"a position twice in one call", [][]stockade.RoomVisitor{{visitor("vis-f", 5), visitor("vis-g", 5)}}},
		{"a visitor twice in one call", [][]stockade.RoomVisitor{{visitor("vis-h", 0), visitor("vis-h", 0)}}},
		{"a visitor inserted earlier in the transaction", [][]stockade.RoomVisitor{{visitor("vis-i", 6)}, {visitor("vis-i", 7)}}},
		{"a position taken earlier in the transaction", [][]stockade.RoomVisitor{{visitor("vis-j", 8)}, {visitor("vis-k", 8)}}},
	} {
		var last error
		err := s.Update(ctx, func(tx stockade.Tx) error {
			for i, batch := range tc.batches {
				if last = tx.RoomVisitorInsert(ctx, batch); last != nil {
					if i != len(tc.batches)-1 {
						t.Errorf("RoomVisitorInsert with %s: failed before the refused call: %v", tc.name, last)
					}
					return last
				}
			}
			return nil
		})
		if err == nil {
			t.Errorf("RoomVisitorInsert with %s succeeded", tc.name)
		}
		wantConflict(t, "RoomVisitorInsert with "+tc.name, last)
	}
	refused := []string{"vis-e", "vis-f", "vis-g", "vis-h", "vis-i", "vis-j", "vis-k"}
	if got := getVisitors(t, s, "v-room", refused...); len(got) != 0 {
		t.Errorf("visitors of refused inserts: %+v, want none", got)
	}
	if got := getVisitors(t, s, "v-room", "vis-b", "vis-d"); !reflect.DeepEqual(got, []stockade.RoomVisitor{vs[2], vs[3]}) {
		t.Errorf("after the refused inserts, vis-b and vis-d = %+v, want %+v", got, []stockade.RoomVisitor{vs[2], vs[3]})
	}

	// Visitors without a place share position 0, in the room and with
	// those of another room.
	more := []stockade.RoomVisitor{visitor("vis-l", 0), visitor("vis-m", 0), visitor("vis-n", 3)}
	more = append(more, stockade.RoomVisitor{RoomID: "v-other", VisitorID: "vis-b", JoinedAt: roomAt})
	insertVisitors(t, s, more...)
	if got := getVisitors(t, s, "v-room", "vis-l", "vis-m", "vis-n"); !reflect.DeepEqual(got, more[:3]) {
		t.Errorf("RoomVisitorGetMany(vis-l, vis-m, vis-n) = %+v, want %+v", got, more[:3])
	}
}

// testRoomVisitorDraw: RoomVisitorDraw gives the room's visitors without
// a position the positions after+1, after+2, … in the order of their
// draw, then of their visitor id, in one call however many they are,
// and returns how many it gave; it leaves alone visitors with a position
// and those of other rooms.
func testRoomVisitorDraw(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	insertRooms(t, s, newRoom("d-room", stockade.RoomScheduled, "show-1"), newRoom("d-other", stockade.RoomScheduled, "show-2"))
	rng := rand.New(rand.NewPCG(1, 2))
	vs := []stockade.RoomVisitor{
		{RoomID: "d-room", VisitorID: "p-1", Position: 1, Draw: 0, JoinedAt: roomAt},
		{RoomID: "d-room", VisitorID: "p-2", Position: 2, Draw: 0, JoinedAt: roomAt},
		{RoomID: "d-room", VisitorID: "w-last", Draw: math.MaxInt64, JoinedAt: roomAt},
		{RoomID: "d-room", VisitorID: "w-first", Draw: 0, JoinedAt: roomAt},
		{RoomID: "d-other", VisitorID: "w-000", Draw: 0, JoinedAt: roomAt},
	}
	const waiting = 500
	for i := range waiting {
		// Few draws, so that many visitors share one and their ids order
		// them; ids not in the order of the draws.
		id := fmt.Sprintf("w-%03d", (i*7919)%waiting)
		vs = append(vs, stockade.RoomVisitor{RoomID: "d-room", VisitorID: id, Draw: rng.Int64N(40), JoinedAt: roomAt.Add(time.Duration(i) * time.Millisecond)})
	}
	insertVisitors(t, s, vs...)

	var drawn []stockade.RoomVisitor
	for _, v := range vs {
		if v.RoomID == "d-room" && v.Position == 0 {
			drawn = append(drawn, v)
		}
	}
	slices.SortFunc(drawn, func(a, b stockade.RoomVisitor) int {
		return cmp.Or(cmp.Compare(a.Draw, b.Draw), cmp.Compare(a.VisitorID, b.VisitorID))
	})
	want := map[string]int64{"p-1": 1, "p-2": 2}
	for i, v := range drawn {
		want[v.VisitorID] = 3 + int64(i)
	}
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.RoomVisitorDraw(ctx, "d-room", 2); err != nil || n != int64(len(drawn)) {
			return fmt.Errorf("RoomVisitorDraw(d-room, after 2) = %d, %v; want %d", n, err, len(drawn))
		}
		if n, err := tx.RoomVisitorDraw(ctx, "d-room", 2+int64(len(drawn))); err != nil || n != 0 {
			return fmt.Errorf("RoomVisitorDraw(d-room) again = %d, %v; want 0", n, err)
		}
		return nil
	})
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	got := getVisitors(t, s, "d-room", ids...)
	if len(got) != len(want) {
		t.Fatalf("RoomVisitorGetMany after the draw: %d visitors, want %d", len(got), len(want))
	}
	wrong := 0
	for _, v := range got {
		if v.Position != want[v.VisitorID] {
			if wrong++; wrong <= 5 {
				t.Errorf("after the draw, %s (draw %d) is at position %d, want %d", v.VisitorID, v.Draw, v.Position, want[v.VisitorID])
			}
		}
	}
	if wrong > 5 {
		t.Errorf("… %d visitors in all at a wrong position", wrong)
	}
	if got := getVisitors(t, s, "d-other", "w-000"); len(got) != 1 || got[0].Position != 0 {
		t.Errorf("another room's visitor after the draw: %+v, want at position 0", got)
	}
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.RoomVisitorDraw(ctx, "d-other", 0); err != nil || n != 1 {
			return fmt.Errorf("RoomVisitorDraw(d-other, after 0) = %d, %v; want 1", n, err)
		}
		return nil
	})
	if got := getVisitors(t, s, "d-other", "w-000"); len(got) != 1 || got[0].Position != 1 {
		t.Errorf("after its room's draw, w-000 = %+v, want at position 1", got)
	}

	// Unplace takes every place of the room back, draws kept, and the
	// next draw gives them all places in the draws' order.
	inRoom := len(vs) - 1 // w-000 is d-other's
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.RoomVisitorUnplace(ctx, "d-room"); err != nil || n != int64(inRoom) {
			return fmt.Errorf("RoomVisitorUnplace(d-room) = %d, %v; want %d", n, err, inRoom)
		}
		return nil
	})
	for i, v := range getVisitors(t, s, "d-room", ids...) {
		if v.Position != 0 || v.Draw != got[i].Draw {
			t.Fatalf("after Unplace, %s = %+v; want position 0 and its draw %d", v.VisitorID, v, got[i].Draw)
		}
	}
	if again := getVisitors(t, s, "d-other", "w-000"); len(again) != 1 || again[0].Position != 1 {
		t.Errorf("another room's visitor after Unplace: %+v, want still at position 1", again)
	}
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.RoomVisitorDraw(ctx, "d-room", 0); err != nil || n != int64(inRoom) {
			return fmt.Errorf("RoomVisitorDraw(d-room) after Unplace = %d, %v; want %d", n, err, inRoom)
		}
		return nil
	})
	all := slices.Clone(got)
	slices.SortFunc(all, func(a, b stockade.RoomVisitor) int {
		return cmp.Or(cmp.Compare(a.Draw, b.Draw), cmp.Compare(a.VisitorID, b.VisitorID))
	})
	place := map[string]int64{}
	for i, v := range all {
		place[v.VisitorID] = int64(i + 1)
	}
	for _, v := range getVisitors(t, s, "d-room", ids...) {
		if v.Position != place[v.VisitorID] {
			t.Fatalf("the draw after Unplace put %s (draw %d) at %d, want %d", v.VisitorID, v.Draw, v.Position, place[v.VisitorID])
		}
	}
}

// testRoomVisitorAdmit: RoomVisitorAdmit sets the admission of the room's
// visitors at positions after+1 through through, and of no other, and
// returns how many.
func testRoomVisitorAdmit(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	insertRooms(t, s, newRoom("a-room", stockade.RoomQueueing, "show-1"), newRoom("a-other", stockade.RoomQueueing, "show-2"))
	var vs []stockade.RoomVisitor
	for _, room := range []string{"a-room", "a-other"} {
		for p := range int64(6) { // a-0, without a position, to a-5
			vs = append(vs, stockade.RoomVisitor{RoomID: room, VisitorID: fmt.Sprintf("a-%d", p), Position: p, Draw: p, JoinedAt: roomAt})
		}
	}
	vs[1].AdmittedAt, vs[1].ExpiresAt, vs[1].UsedAt = roomAt.Add(-10*time.Minute), roomAt.Add(-time.Minute), roomAt.Add(-5*time.Minute)
	insertVisitors(t, s, vs...)

	at, expires := roomAt.Add(time.Second), roomAt.Add(10*time.Minute+time.Second)
	update(t, s, func(tx stockade.Tx) error {
		for _, tc := range []struct {
			after, through, want int64
		}{
			{1, 3, 2},
			{5, 5, 0},
			{6, 9, 0},
		} {
			q := stockade.RoomAdmit{RoomID: "a-room", After: tc.after, Through: tc.through, At: at, Expires: expires}
			if n, err := tx.RoomVisitorAdmit(ctx, q); err != nil || n != tc.want {
				return fmt.Errorf("RoomVisitorAdmit(a-room, %d, %d) = %d, %v; want %d", tc.after, tc.through, n, err, tc.want)
			}
		}
		return nil
	})
	want := slices.Clone(vs)
	for _, i := range []int{2, 3} {
		want[i].AdmittedAt, want[i].ExpiresAt = at, expires
	}
	ids := []string{"a-0", "a-1", "a-2", "a-3", "a-4", "a-5"}
	if got := getVisitors(t, s, "a-room", ids...); !reflect.DeepEqual(got, want[:6]) {
		t.Errorf("after RoomVisitorAdmit(a-room, 1, 3), its visitors = %+v, want %+v", got, want[:6])
	}
	if got := getVisitors(t, s, "a-other", ids...); !reflect.DeepEqual(got, want[6:]) {
		t.Errorf("after RoomVisitorAdmit(a-room, 1, 3), another room's visitors = %+v, want %+v", got, want[6:])
	}
	update(t, s, func(tx stockade.Tx) error {
		q := stockade.RoomAdmit{RoomID: "a-room", After: 3, Through: 9, At: at.Add(time.Minute), Expires: expires.Add(time.Minute)}
		if n, err := tx.RoomVisitorAdmit(ctx, q); err != nil || n != 2 {
			return fmt.Errorf("RoomVisitorAdmit(a-room, 3, 9) = %d, %v; want 2", n, err)
		}
		return nil
	})
	for _, i := range []int{4, 5} {
		want[i].AdmittedAt, want[i].ExpiresAt = at.Add(time.Minute), expires.Add(time.Minute)
	}
	if got := getVisitors(t, s, "a-room", ids...); !reflect.DeepEqual(got, want[:6]) {
		t.Errorf("after RoomVisitorAdmit(a-room, 3, 9), its visitors = %+v, want %+v", got, want[:6])
	}
}

// testRoomVisitorActivity: RoomVisitorActivity counts the room's visitors
// admitted whose admission ends after now, strictly, and of them those
// with no UsedAt; RoomVisitorUse sets UsedAt of the visitors named that
// have none, and of no other.
func testRoomVisitorActivity(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	insertRooms(t, s, newRoom("u-room", stockade.RoomQueueing, "show-1"), newRoom("u-other", stockade.RoomQueueing, "show-2"))
	now := roomAt.Add(time.Hour)
	admitted := func(room, id string, position int64, expires, used time.Time) stockade.RoomVisitor {
		return stockade.RoomVisitor{RoomID: room, VisitorID: id, Position: position, JoinedAt: roomAt,
			AdmittedAt: expires.Add(-10 * time.Minute), ExpiresAt: expires, UsedAt: used}
	}
	vs := []stockade.RoomVisitor{
		admitted("u-room", "u-1", 1, now.Add(time.Minute), time.Time{}),                // in force, unused
		admitted("u-room", "u-2", 2, now.Add(time.Microsecond), now.Add(-time.Minute)), // in force, used
		admitted("u-room", "u-3", 3, now, time.Time{}),                                 // ended at now
		admitted("u-room", "u-4", 4, now.Add(-time.Minute), time.Time{}),               // ended
		admitted("u-room", "u-6", 6, now.Add(5*time.Minute), time.Time{}),              // in force, unused
		{RoomID: "u-room", VisitorID: "u-5", Position: 5, JoinedAt: roomAt},            // waiting
		admitted("u-other", "u-1", 1, now.Add(time.Minute), time.Time{}),               // another room's
		admitted("u-other", "u-2", 2, now.Add(time.Minute), now.Add(-2*time.Minute)),   // another room's
	}
	insertVisitors(t, s, vs...)
	activity := func(what, room string, at time.Time, want stockade.RoomActivity) {
		t.Helper()
		view(t, s, func(tx stockade.Tx) error {
			got, err := tx.RoomVisitorActivity(ctx, room, at)
			if err != nil || got != want {
				t.Errorf("%s: RoomVisitorActivity(%s, %s) = %+v, %v; want %+v", what, room, at, got, err, want)
			}
			return nil
		})
	}
	activity("before any use", "u-room", now, stockade.RoomActivity{Active: 3, Unused: 2})
	activity("before any use", "u-room", now.Add(-2*time.Minute), stockade.RoomActivity{Active: 5, Unused: 4})
	activity("before any use", "u-room", now.Add(5*time.Minute), stockade.RoomActivity{})
	activity("before any use", "u-other", now, stockade.RoomActivity{Active: 2, Unused: 1})
	activity("a room without visitors", "u-none", now, stockade.RoomActivity{})

	used := now.Add(30 * time.Second)
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.RoomVisitorUse(ctx, "u-room", []string{"u-1", "u-2", "nobody"}, used); err != nil {
			return err
		}
		return tx.RoomVisitorUse(ctx, "u-room", nil, used)
	})
	want := slices.Clone(vs)
	want[0].UsedAt = used // u-2 keeps its first use
	if got := getVisitors(t, s, "u-room", "u-1", "u-2", "u-6"); !reflect.DeepEqual(got, []stockade.RoomVisitor{want[0], want[1], want[4]}) {
		t.Errorf("after RoomVisitorUse(u-1, u-2), u-1, u-2 and u-6 = %+v, want %+v", got, []stockade.RoomVisitor{want[0], want[1], want[4]})
	}
	if got := getVisitors(t, s, "u-other", "u-1", "u-2"); !reflect.DeepEqual(got, want[6:]) {
		t.Errorf("after RoomVisitorUse in u-room, u-other's visitors = %+v, want %+v", got, want[6:])
	}
	activity("after u-1's use", "u-room", now, stockade.RoomActivity{Active: 3, Unused: 1})
	activity("after u-1's use", "u-other", now, stockade.RoomActivity{Active: 2, Unused: 1})

	// End: u-6 leaves at now; u-5 (waiting), u-4 (ended before) and
	// nobody have no admission in force to end.
	update(t, s, func(tx stockade.Tx) error {
		for _, c := range []struct {
			id   string
			want bool
		}{{"u-6", true}, {"u-6", false}, {"u-5", false}, {"u-4", false}, {"nobody", false}} {
			if ok, err := tx.RoomVisitorEnd(ctx, "u-room", c.id, now); err != nil || ok != c.want {
				return fmt.Errorf("RoomVisitorEnd(u-room, %s) = %v, %v; want %v", c.id, ok, err, c.want)
			}
		}
		return nil
	})
	ended := want[4]
	ended.ExpiresAt = now
	if got := getVisitors(t, s, "u-room", "u-4", "u-5", "u-6"); !reflect.DeepEqual(got, []stockade.RoomVisitor{want[3], want[5], ended}) {
		t.Errorf("after RoomVisitorEnd(u-6), u-4, u-5 and u-6 = %+v, want %+v", got, []stockade.RoomVisitor{want[3], want[5], ended})
	}
	activity("after u-6 left", "u-room", now, stockade.RoomActivity{Active: 2, Unused: 0})
	activity("after u-6 left", "u-other", now, stockade.RoomActivity{Active: 2, Unused: 1})
}
