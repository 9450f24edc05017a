package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// listWhere returns the WHERE clause of f's non-zero fields, the ORDER BY
// of the lists and their LIMIT, to append to list_reservations.sql,
// list_orders.sql, list_holds.sql or list_bookings.sql, and its arguments. Only the conditions in use are
// spelled out, so that each combination gets a plan on its index.
func listWhere(f stockade.ListFilter) (string, []any) {
	var (
		where []string
		args  []any
	)
	cond := func(expr string, vs ...any) {
		where = append(where, expr)
		args = append(args, vs...)
	}
	if f.Status != "" {
		cond(`status = ?`, f.Status)
	}
	if f.ShowID != "" {
		cond(`show_id = ?`, f.ShowID)
	}
	metadataConds(f.Metadata, cond)
	if f.Owner != "" {
		cond(`owner = ?`, f.Owner)
	}
	if !f.CreatedAfter.IsZero() {
		cond(`created_at >= ?`, micros(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		cond(`created_at < ?`, micros(f.CreatedBefore))
	}
	if !f.BeforeAt.IsZero() {
		cond(`(created_at, id) < (?, ?)`, micros(f.BeforeAt), f.BeforeID)
	}
	var q strings.Builder
	if len(where) > 0 {
		q.WriteString(`WHERE ` + strings.Join(where, ` AND `) + "\n")
	}
	q.WriteString(`ORDER BY created_at DESC, id DESC LIMIT ?`)
	return q.String(), append(args, f.Limit)
}

// metadataConds adds to a list's WHERE, through cond, one condition per
// pair of a metadata filter, in key order. Metadata keys hold no quote nor
// backslash (Metadata.Validate), so each names its JSON path as is.
func metadataConds(m stockade.Metadata, cond func(expr string, vs ...any)) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		cond(`json_extract(metadata, ?) = ?`, `$."`+k+`"`, m[k])
	}
}

func (t *tx) ReservationList(ctx context.Context, f stockade.ListFilter) ([]stockade.Reservation, error) {
	where, args := listWhere(f)
	return queryAll(ctx, t, "list reservations", scanReservation, listReservationsSQL+where, args...)
}

func (t *tx) OrderList(ctx context.Context, f stockade.ListFilter) ([]stockade.Order, error) {
	where, args := listWhere(f)
	return queryAll(ctx, t, "list orders", scanOrder, listOrdersSQL+where, args...)
}

func (t *tx) HoldList(ctx context.Context, f stockade.ListFilter) ([]stockade.Hold, error) {
	where, args := listWhere(f)
	return queryAll(ctx, t, "list holds", scanHold, listHoldsSQL+where, args...)
}

func (t *tx) BookingList(ctx context.Context, f stockade.ListFilter) ([]stockade.Booking, error) {
	where, args := listWhere(f)
	return queryAll(ctx, t, "list bookings", scanBooking, listBookingsSQL+where, args...)
}

// scanKey reads an API key's columns: id, name, role, rate_limit, hash,
// created_at, revoked_at.
func scanKey(row rowScanner) (stockade.APIKey, error) {
	var (
		k       stockade.APIKey
		role    string
		created int64
		revoked sql.NullInt64
	)
	if err := row.Scan(&k.ID, &k.Name, &role, &k.RateLimit, &k.Hash, &created, &revoked); err != nil {
		return k, err
	}
	k.Role, k.CreatedAt = stockade.Role(role), fromMicros(created)
	if revoked.Valid {
		k.RevokedAt = fromMicros(revoked.Int64)
	}
	return k, nil
}

// KeyInsert wraps stockade.ErrConflict when the id or the name is in use,
// as the PostgreSQL store does: a writer here holds the whole database, so
// a caller that checked KeyGetByName in the same transaction meets it only for
// an id that collides, which a retry with a new id cures.
func (t *tx) KeyInsert(ctx context.Context, k stockade.APIKey) error {
	var revoked any // NULL: live
	if !k.RevokedAt.IsZero() {
		revoked = micros(k.RevokedAt)
	}
	_, err := t.tx.ExecContext(ctx, insertKeySQL, k.ID, k.Name, string(k.Role), k.RateLimit, k.Hash, micros(k.CreatedAt), revoked)
	if err == nil {
		return nil
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert key %s (%s): id or name in use: %w: %w", k.ID, k.Name, stockade.ErrConflict, err)
	case sqlite3.SQLITE_CONSTRAINT_CHECK, sqlite3.SQLITE_CONSTRAINT_NOTNULL:
		return fmt.Errorf("sqlite: insert key %s (%s): %w: %w", k.ID, k.Name,
			stockade.Errorf(stockade.EInvalid, "invalid api key role or rate limit"), err)
	}
	return wrapf(err, "insert key %s (%s)", k.ID, k.Name)
}

func (t *tx) KeyGet(ctx context.Context, id string) (stockade.APIKey, error) {
	k, err := scanKey(t.tx.QueryRowContext(ctx, keySQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.APIKey{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("api key %q not found", id))
	}
	if err != nil {
		return stockade.APIKey{}, wrapf(err, "key %s", id)
	}
	return k, nil
}

func (t *tx) KeyGetByName(ctx context.Context, name string) (stockade.APIKey, bool, error) {
	k, err := scanKey(t.tx.QueryRowContext(ctx, keyNamedSQL, name))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.APIKey{}, false, nil
	}
	if err != nil {
		return stockade.APIKey{}, false, wrapf(err, "key named %s", name)
	}
	return k, true, nil
}

func (t *tx) KeyList(ctx context.Context, after string, limit int) ([]stockade.APIKey, error) {
	return queryAll(ctx, t, "keys", scanKey, keysSQL, after, limit)
}

func (t *tx) KeyRevoke(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := t.tx.ExecContext(ctx, revokeKeySQL, id, micros(at))
	if err != nil {
		return false, wrapf(err, "revoke key %s", id)
	}
	return affected(res, "revoke key %s", id)
}
