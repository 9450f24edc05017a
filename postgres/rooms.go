package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// Waiting rooms, the targets they hold and their visitors. See
// migrations/0023_rooms.sql.

var (
	//go:embed queries/insert_room.sql
	insertRoomSQL string
	//go:embed queries/room.sql
	roomSQL string
	//go:embed queries/rooms.sql
	roomsSQL string
	//go:embed queries/rooms_in_status.sql
	roomsInStatusSQL string
	//go:embed queries/rooms_holding.sql
	roomsHoldingSQL string
	//go:embed queries/room_holding.sql
	roomHoldingSQL string
	//go:embed queries/update_room.sql
	updateRoomSQL string
	//go:embed queries/hold_room_targets.sql
	holdRoomTargetsSQL string
	//go:embed queries/release_room_targets.sql
	releaseRoomTargetsSQL string
	//go:embed queries/insert_room_visitors.sql
	insertRoomVisitorsSQL string
	//go:embed queries/room_visitors.sql
	roomVisitorsSQL string
	//go:embed queries/end_room_visitor.sql
	endRoomVisitorSQL string
	//go:embed queries/unplace_room_visitors.sql
	unplaceRoomVisitorsSQL string
	//go:embed queries/draw_room_visitors.sql
	drawRoomVisitorsSQL string
	//go:embed queries/admit_room_visitors.sql
	admitRoomVisitorsSQL string
	//go:embed queries/room_activity.sql
	roomActivitySQL string
	//go:embed queries/use_room_visitors.sql
	useRoomVisitorsSQL string
)

var _ stockade.RoomTx = (*tx)(nil)

// gatingStatuses are the statuses of the rooms RoomListGating returns:
// those that gate, as RoomStatus.Gates decides.
var gatingStatuses = func() []string {
	var gating []string
	for _, s := range []stockade.RoomStatus{stockade.RoomScheduled, stockade.RoomQueueing, stockade.RoomSoldOut, stockade.RoomClosed} {
		if s.Gates() {
			gating = append(gating, string(s))
		}
	}
	return gating
}()

// RoomInsert inserts the room, then its targets if its status gates.
func (t *tx) RoomInsert(ctx context.Context, r stockade.Room) error {
	_, err := t.tx.Exec(ctx, insertRoomSQL, r.ID, r.ShowID, nonNil(r.SKUs), r.OpensAt, r.ActiveLimit, r.AdmitPerMinute,
		r.AdmissionTTL.Microseconds(), string(r.Order), r.PerVisitor, r.StockFactor, string(r.Status), r.Joined,
		r.Ordered, r.Admitted, r.Credit, r.CreditAt, r.Paused, optionalTime(r.SoldOutAt), r.Secret,
		marshalMetadata(r.Metadata), r.CreatedAt, r.UpdatedAt, r.Version)
	if err != nil {
		return t.fail(ctx, "insert room "+strconv.Quote(r.ID), err)
	}
	if r.Status.Gates() {
		return t.holdRoomTargets(ctx, r.ID, r.Targets())
	}
	return nil
}

// holdRoomTargets has room id hold targets. A target that another room
// holds is a unique violation, which wraps stockade.ErrConflict.
func (t *tx) holdRoomTargets(ctx context.Context, id string, targets []string) error {
	if _, err := t.tx.Exec(ctx, holdRoomTargetsSQL, id, nonNil(targets)); err != nil {
		return t.fail(ctx, fmt.Sprintf("room %q: hold %q", id, targets), err)
	}
	return nil
}

// scanRoom scans the columns of room.sql.
func scanRoom(row pgx.Row) (stockade.Room, error) {
	var (
		r             stockade.Room
		order, status string
		ttl           int64
		soldOut       pgtype.Timestamptz
		meta          []byte
	)
	err := row.Scan(&r.ID, &r.ShowID, &r.SKUs, &r.OpensAt, &r.ActiveLimit, &r.AdmitPerMinute, &ttl, &order, &r.PerVisitor,
		&r.StockFactor, &status, &r.Joined, &r.Ordered, &r.Admitted, &r.Credit, &r.CreditAt, &r.Paused, &soldOut,
		&r.Secret, &meta, &r.CreatedAt, &r.UpdatedAt, &r.Version)
	if err != nil {
		return r, err
	}
	if err := unmarshalMetadata(meta, &r.Metadata); err != nil {
		return r, err
	}
	if len(r.SKUs) == 0 {
		r.SKUs = nil
	}
	r.Order, r.Status = stockade.RoomOrder(order), stockade.RoomStatus(status)
	r.AdmissionTTL = time.Duration(ttl) * time.Microsecond
	r.OpensAt, r.CreditAt, r.SoldOutAt = r.OpensAt.UTC(), r.CreditAt.UTC(), fromOptional(soldOut)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return r, nil
}

func (t *tx) collectRooms(ctx context.Context, what string, rows pgx.Rows) ([]stockade.Room, error) {
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Room, error) {
		return scanRoom(row)
	})
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	return rs, nil
}

func (t *tx) RoomGet(ctx context.Context, q stockade.ByID) (stockade.Room, error) {
	stmt := roomSQL
	if q.Lock {
		stmt += forUpdate
	}
	r, err := scanRoom(t.tx.QueryRow(ctx, stmt, q.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return r, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("room %q not found", q.ID))
	case err != nil:
		return r, t.fail(ctx, "room "+strconv.Quote(q.ID), err)
	}
	return r, nil
}

func (t *tx) RoomList(ctx context.Context, after string, limit int) ([]stockade.Room, error) {
	rows, _ := t.tx.Query(ctx, roomsSQL, after, limit)
	return t.collectRooms(ctx, "list rooms", rows)
}

func (t *tx) RoomListGating(ctx context.Context) ([]stockade.Room, error) {
	rows, _ := t.tx.Query(ctx, roomsInStatusSQL, gatingStatuses)
	return t.collectRooms(ctx, "list the rooms that gate", rows)
}

// RoomUpdate writes the room, then holds its targets if it gates and
// holds none, or lets them go if it does not gate and holds them: an
// update that leaves the room gating, or not gating, writes no target
// row. The targets are those stored, which the update keeps.
func (t *tx) RoomUpdate(ctx context.Context, r stockade.Room) (bool, error) {
	var (
		kept    stockade.Room
		holding bool
	)
	err := t.tx.QueryRow(ctx, updateRoomSQL, r.ID, r.OpensAt, r.ActiveLimit, r.AdmitPerMinute, r.AdmissionTTL.Microseconds(),
		string(r.Order), r.PerVisitor, r.StockFactor, string(r.Status), r.Joined, r.Ordered, r.Admitted, r.Credit,
		r.CreditAt, r.Paused, optionalTime(r.SoldOutAt), r.Secret, marshalMetadata(r.Metadata), r.UpdatedAt,
		r.Version).Scan(&kept.ShowID, &kept.SKUs, &holding)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, t.fail(ctx, fmt.Sprintf("update room %q to version %d", r.ID, r.Version), err)
	}
	switch gates := r.Status.Gates(); {
	case gates && !holding:
		if err := t.holdRoomTargets(ctx, r.ID, kept.Targets()); err != nil {
			return false, err
		}
	case !gates && holding:
		if _, err := t.tx.Exec(ctx, releaseRoomTargetsSQL, r.ID); err != nil {
			return false, t.fail(ctx, fmt.Sprintf("room %q: let its targets go", r.ID), err)
		}
	}
	return true, nil
}

func (t *tx) RoomHolding(ctx context.Context, targets []string) ([]stockade.Room, error) {
	var rows pgx.Rows
	if len(targets) == 1 {
		rows, _ = t.tx.Query(ctx, roomHoldingSQL, targets[0])
	} else {
		rows, _ = t.tx.Query(ctx, roomsHoldingSQL, nonNil(targets))
	}
	return t.collectRooms(ctx, fmt.Sprintf("the rooms holding %q", targets), rows)
}

// planned is the mode of the statements that read or change a room's
// visitors: planned at each run with its parameters, never from a plan
// that the session cached earlier. A room's visitors grow from none to a
// crowd within seconds of a sale opening, faster than autovacuum analyzes
// the table, and a plan cached while the table was small reads it whole:
// 30,000 joins over 3 s spent 31 ms a batch looking up their visitors by
// id, and 3 ms once planned afresh.
const planned = pgx.QueryExecModeExec

func (t *tx) RoomVisitorInsert(ctx context.Context, vs []stockade.RoomVisitor) error {
	if len(vs) == 0 {
		return nil
	}
	var (
		rooms, visitors         = make([]string, len(vs)), make([]string, len(vs))
		positions, draws        = make([]int64, len(vs)), make([]int64, len(vs))
		joined                  = make([]time.Time, len(vs))
		owners                  = make([]string, len(vs))
		admitted, expires, used = make([]pgtype.Timestamptz, len(vs)), make([]pgtype.Timestamptz, len(vs)), make([]pgtype.Timestamptz, len(vs))
	)
	for i, v := range vs {
		rooms[i], visitors[i], positions[i], draws[i], joined[i] = v.RoomID, v.VisitorID, v.Position, v.Draw, v.JoinedAt
		admitted[i], expires[i], used[i] = optionalTime(v.AdmittedAt), optionalTime(v.ExpiresAt), optionalTime(v.UsedAt)
		owners[i] = v.Owner
	}
	_, err := t.tx.Exec(ctx, insertRoomVisitorsSQL, rooms, visitors, positions, draws, joined, admitted, expires, used, owners)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("insert %d room visitors", len(vs)), err)
	}
	return nil
}

// scanRoomVisitor scans the columns of room_visitors.sql.
func scanRoomVisitor(row pgx.Row) (stockade.RoomVisitor, error) {
	var (
		v                       stockade.RoomVisitor
		admitted, expires, used pgtype.Timestamptz
	)
	err := row.Scan(&v.RoomID, &v.VisitorID, &v.Position, &v.Draw, &v.JoinedAt, &admitted, &expires, &used, &v.Owner)
	v.JoinedAt = v.JoinedAt.UTC()
	v.AdmittedAt, v.ExpiresAt, v.UsedAt = fromOptional(admitted), fromOptional(expires), fromOptional(used)
	return v, err
}

func (t *tx) RoomVisitorGetMany(ctx context.Context, roomID string, ids []string) ([]stockade.RoomVisitor, error) {
	rows, _ := t.tx.Query(ctx, roomVisitorsSQL, planned, roomID, nonNil(ids))
	vs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.RoomVisitor, error) {
		return scanRoomVisitor(row)
	})
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("%d visitors of room %q", len(ids), roomID), err)
	}
	return vs, nil
}

func (t *tx) RoomVisitorUnplace(ctx context.Context, roomID string) (int64, error) {
	tag, err := t.tx.Exec(ctx, unplaceRoomVisitorsSQL, planned, roomID)
	if err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("take the places of the visitors of room %q", roomID), err)
	}
	return tag.RowsAffected(), nil
}

func (t *tx) RoomVisitorDraw(ctx context.Context, roomID string, after int64) (int64, error) {
	tag, err := t.tx.Exec(ctx, drawRoomVisitorsSQL, planned, roomID, after)
	if err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("draw the visitors of room %q after position %d", roomID, after), err)
	}
	return tag.RowsAffected(), nil
}

func (t *tx) RoomVisitorAdmit(ctx context.Context, q stockade.RoomAdmit) (int64, error) {
	tag, err := t.tx.Exec(ctx, admitRoomVisitorsSQL, planned, q.RoomID, q.After, q.Through, q.At, q.Expires)
	if err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("admit the visitors of room %q after position %d through %d", q.RoomID, q.After, q.Through), err)
	}
	return tag.RowsAffected(), nil
}

func (t *tx) RoomVisitorActivity(ctx context.Context, roomID string, now time.Time) (stockade.RoomActivity, error) {
	var a stockade.RoomActivity
	if err := t.tx.QueryRow(ctx, roomActivitySQL, planned, roomID, now).Scan(&a.Active, &a.Unused); err != nil {
		return a, t.fail(ctx, fmt.Sprintf("the admissions in force of room %q", roomID), err)
	}
	return a, nil
}

func (t *tx) RoomVisitorEnd(ctx context.Context, roomID, visitorID string, at time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, endRoomVisitorSQL, planned, roomID, visitorID, at)
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("end the admission of visitor %q of room %q", visitorID, roomID), err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) RoomVisitorUse(ctx context.Context, roomID string, ids []string, at time.Time) error {
	if _, err := t.tx.Exec(ctx, useRoomVisitorsSQL, planned, roomID, nonNil(ids), at); err != nil {
		return t.fail(ctx, fmt.Sprintf("use the admissions of %d visitors of room %q", len(ids), roomID), err)
	}
	return nil
}
