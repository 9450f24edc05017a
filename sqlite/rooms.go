package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// Waiting rooms, the targets they hold and their visitors. See
// migrations/0022_rooms.sql. Lock arguments are ignored: an Update holds
// the whole database.

var _ stockade.RoomTx = (*tx)(nil)

var (
	insertRoomSQL          = query("insert_room.sql")
	roomSQL                = query("room.sql")
	roomsSQL               = query("rooms.sql")
	roomsInStatusSQL       = query("rooms_in_status.sql")
	roomsHoldingSQL        = query("rooms_holding.sql")
	updateRoomSQL          = query("update_room.sql")
	holdRoomTargetsSQL     = query("hold_room_targets.sql")
	releaseRoomTargetsSQL  = query("release_room_targets.sql")
	insertRoomVisitorsSQL  = query("insert_room_visitors.sql")
	roomVisitorsSQL        = query("room_visitors.sql")
	drawRoomVisitorsSQL    = query("draw_room_visitors.sql")
	unplaceRoomVisitorsSQL = query("unplace_room_visitors.sql")
	endRoomVisitorSQL      = query("end_room_visitor.sql")
	admitRoomVisitorsSQL   = query("admit_room_visitors.sql")
	roomActivitySQL        = query("room_activity.sql")
	useRoomVisitorsSQL     = query("use_room_visitors.sql")
)

// invalidRoom is the error of a room that a CHECK constraint refused.
const invalidRoom = "invalid room order, status, count or version"

// gatingStatuses are the statuses of the rooms RoomListGating returns,
// as a JSON array: those that gate, as RoomStatus.Gates decides.
var gatingStatuses = func() string {
	var gating []stockade.RoomStatus
	for _, s := range []stockade.RoomStatus{stockade.RoomScheduled, stockade.RoomQueueing, stockade.RoomSoldOut, stockade.RoomClosed} {
		if s.Gates() {
			gating = append(gating, s)
		}
	}
	b, _ := json.Marshal(gating) // cannot fail: strings only
	return string(b)
}()

// textsJSON is ss as a JSON array, '[]' for none: a skus column, or a
// list for json_each.
func textsJSON(ss []string) string {
	if len(ss) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ss) // cannot fail: strings only
	return string(b)
}

// RoomInsert inserts the room, then its targets if its status gates.
func (t *tx) RoomInsert(ctx context.Context, r stockade.Room) error {
	_, err := t.tx.ExecContext(ctx, insertRoomSQL, r.ID, r.ShowID, textsJSON(r.SKUs), micros(r.OpensAt), r.ActiveLimit,
		r.AdmitPerMinute, r.AdmissionTTL.Microseconds(), string(r.Order), r.PerVisitor, r.StockFactor, string(r.Status),
		r.Joined, r.Ordered, r.Admitted, r.Credit, micros(r.CreditAt), r.Paused, optionalMicros(r.SoldOutAt), r.Secret,
		marshalMetadata(r.Metadata), micros(r.CreatedAt), micros(r.UpdatedAt), r.Version)
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert room %s: id in use: %w: %w", r.ID, stockade.ErrConflict, err)
	}
	if err != nil {
		return checkf(err, invalidRoom, "insert room %s", r.ID)
	}
	if r.Status.Gates() {
		return t.holdRoomTargets(ctx, r.ID, r.Targets())
	}
	return nil
}

// holdRoomTargets has room id hold targets.
func (t *tx) holdRoomTargets(ctx context.Context, id string, targets []string) error {
	_, err := t.tx.ExecContext(ctx, holdRoomTargetsSQL, id, textsJSON(targets))
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: room %s: hold %q: another room holds one: %w: %w", id, targets, stockade.ErrConflict, err)
	}
	if err != nil {
		return wrapf(err, "room %s: hold %q", id, targets)
	}
	return nil
}

// scanRoom reads the columns of room.sql.
func scanRoom(row rowScanner) (stockade.Room, error) {
	var (
		r                                      stockade.Room
		skus, order, status, meta              string
		opens, ttl, creditAt, created, updated int64
		soldOut                                sql.NullInt64
	)
	err := row.Scan(&r.ID, &r.ShowID, &skus, &opens, &r.ActiveLimit, &r.AdmitPerMinute, &ttl, &order, &r.PerVisitor,
		&r.StockFactor, &status, &r.Joined, &r.Ordered, &r.Admitted, &r.Credit, &creditAt, &r.Paused, &soldOut,
		&r.Secret, &meta, &created, &updated, &r.Version)
	if err != nil {
		return r, err
	}
	if err := unmarshalSKUs(skus, &r.SKUs); err != nil {
		return r, err
	}
	if err := unmarshalMetadata(meta, &r.Metadata); err != nil {
		return r, err
	}
	r.Order, r.Status = stockade.RoomOrder(order), stockade.RoomStatus(status)
	r.AdmissionTTL = time.Duration(ttl) * time.Microsecond
	r.OpensAt, r.CreditAt, r.SoldOutAt = fromMicros(opens), fromMicros(creditAt), fromOptionalMicros(soldOut)
	r.CreatedAt, r.UpdatedAt = fromMicros(created), fromMicros(updated)
	return r, nil
}

// unmarshalSKUs reads a skus column into skus, nil for '[]'.
func unmarshalSKUs(s string, skus *[]string) error {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return fmt.Errorf("skus: %w", err)
	}
	if len(out) > 0 {
		*skus = out
	}
	return nil
}

func (t *tx) RoomGet(ctx context.Context, q stockade.ByID) (stockade.Room, error) {
	r, err := scanRoom(t.tx.QueryRowContext(ctx, roomSQL, q.ID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("room %q not found", q.ID))
	case err != nil:
		return r, wrapf(err, "room %s", q.ID)
	}
	return r, nil
}

func (t *tx) RoomList(ctx context.Context, after string, limit int) ([]stockade.Room, error) {
	return queryAll(ctx, t, "list rooms", scanRoom, roomsSQL, after, limit)
}

func (t *tx) RoomListGating(ctx context.Context) ([]stockade.Room, error) {
	return queryAll(ctx, t, "list the rooms that gate", scanRoom, roomsInStatusSQL, gatingStatuses)
}

// RoomUpdate writes the room, then holds its targets if it gates and
// holds none, or lets them go if it does not gate and holds them: an
// update that leaves the room gating, or not gating, writes no target
// row. The targets are those stored, which the update keeps.
func (t *tx) RoomUpdate(ctx context.Context, r stockade.Room) (bool, error) {
	var (
		kept    stockade.Room
		skus    string
		holding bool
	)
	err := t.tx.QueryRowContext(ctx, updateRoomSQL, r.ID, micros(r.OpensAt), r.ActiveLimit, r.AdmitPerMinute,
		r.AdmissionTTL.Microseconds(), string(r.Order), r.PerVisitor, r.StockFactor, string(r.Status), r.Joined,
		r.Ordered, r.Admitted, r.Credit, micros(r.CreditAt), r.Paused, optionalMicros(r.SoldOutAt), r.Secret,
		marshalMetadata(r.Metadata), micros(r.UpdatedAt), r.Version).Scan(&kept.ShowID, &skus, &holding)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, checkf(err, invalidRoom, "update room %s to version %d", r.ID, r.Version)
	}
	switch gates := r.Status.Gates(); {
	case gates && !holding:
		if err := unmarshalSKUs(skus, &kept.SKUs); err != nil {
			return false, fmt.Errorf("sqlite: update room %s: %w", r.ID, err)
		}
		if err := t.holdRoomTargets(ctx, r.ID, kept.Targets()); err != nil {
			return false, err
		}
	case !gates && holding:
		if _, err := t.tx.ExecContext(ctx, releaseRoomTargetsSQL, r.ID); err != nil {
			return false, wrapf(err, "room %s: let its targets go", r.ID)
		}
	}
	return true, nil
}

func (t *tx) RoomHolding(ctx context.Context, targets []string) ([]stockade.Room, error) {
	return queryAll(ctx, t, fmt.Sprintf("the rooms holding %q", targets), scanRoom, roomsHoldingSQL, textsJSON(targets))
}

func (t *tx) RoomVisitorInsert(ctx context.Context, vs []stockade.RoomVisitor) error {
	err := t.insertRows(ctx, insertRoomVisitorsSQL, 9, len(vs), func(i int, row []any) []any {
		v := vs[i]
		return append(row, v.RoomID, v.VisitorID, v.Position, v.Draw, micros(v.JoinedAt), optionalMicros(v.AdmittedAt),
			optionalMicros(v.ExpiresAt), optionalMicros(v.UsedAt), v.Owner)
	})
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert %d room visitors: a visitor in its room already, or a position in use: %w: %w",
			len(vs), stockade.ErrConflict, err)
	}
	if err != nil {
		return checkf(err, "invalid room visitor position", "insert %d room visitors", len(vs))
	}
	return nil
}

// scanRoomVisitor reads the columns of room_visitors.sql.
func scanRoomVisitor(row rowScanner) (stockade.RoomVisitor, error) {
	var (
		v                       stockade.RoomVisitor
		joined                  int64
		admitted, expires, used sql.NullInt64
	)
	err := row.Scan(&v.RoomID, &v.VisitorID, &v.Position, &v.Draw, &joined, &admitted, &expires, &used, &v.Owner)
	v.JoinedAt = fromMicros(joined)
	v.AdmittedAt, v.ExpiresAt, v.UsedAt = fromOptionalMicros(admitted), fromOptionalMicros(expires), fromOptionalMicros(used)
	return v, err
}

func (t *tx) RoomVisitorGetMany(ctx context.Context, roomID string, ids []string) ([]stockade.RoomVisitor, error) {
	return queryAll(ctx, t, fmt.Sprintf("%d visitors of room %s", len(ids), roomID), scanRoomVisitor, roomVisitorsSQL,
		roomID, textsJSON(ids))
}

func (t *tx) RoomVisitorUnplace(ctx context.Context, roomID string) (int64, error) {
	res, err := t.tx.ExecContext(ctx, unplaceRoomVisitorsSQL, roomID)
	if err != nil {
		return 0, wrapf(err, "take the places of the visitors of room %s", roomID)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "take the places of the visitors of room %s", roomID)
	}
	return n, nil
}

func (t *tx) RoomVisitorDraw(ctx context.Context, roomID string, after int64) (int64, error) {
	res, err := t.tx.ExecContext(ctx, drawRoomVisitorsSQL, roomID, after)
	if err != nil {
		return 0, wrapf(err, "draw the visitors of room %s after position %d", roomID, after)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "draw the visitors of room %s after position %d", roomID, after)
	}
	return n, nil
}

func (t *tx) RoomVisitorAdmit(ctx context.Context, q stockade.RoomAdmit) (int64, error) {
	res, err := t.tx.ExecContext(ctx, admitRoomVisitorsSQL, q.RoomID, q.After, q.Through, micros(q.At), micros(q.Expires))
	if err != nil {
		return 0, wrapf(err, "admit the visitors of room %s after position %d through %d", q.RoomID, q.After, q.Through)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "admit the visitors of room %s after position %d through %d", q.RoomID, q.After, q.Through)
	}
	return n, nil
}

func (t *tx) RoomVisitorActivity(ctx context.Context, roomID string, now time.Time) (stockade.RoomActivity, error) {
	var a stockade.RoomActivity
	if err := t.tx.QueryRowContext(ctx, roomActivitySQL, roomID, micros(now)).Scan(&a.Active, &a.Unused); err != nil {
		return a, wrapf(err, "the admissions in force of room %s", roomID)
	}
	return a, nil
}

func (t *tx) RoomVisitorEnd(ctx context.Context, roomID, visitorID string, at time.Time) (bool, error) {
	res, err := t.tx.ExecContext(ctx, endRoomVisitorSQL, roomID, visitorID, micros(at))
	if err != nil {
		return false, wrapf(err, "end the admission of visitor %s of room %s", visitorID, roomID)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrapf(err, "end the admission of visitor %s of room %s", visitorID, roomID)
	}
	return n == 1, nil
}

func (t *tx) RoomVisitorUse(ctx context.Context, roomID string, ids []string, at time.Time) error {
	if _, err := t.tx.ExecContext(ctx, useRoomVisitorsSQL, roomID, textsJSON(ids), micros(at)); err != nil {
		return wrapf(err, "use the admissions of %d visitors of room %s", len(ids), roomID)
	}
	return nil
}
