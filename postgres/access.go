package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// listQuery returns q, a list_*.sql of reservations, orders, holds or
// bookings, with the WHERE clause of f's non-zero fields, the lists' ORDER
// BY and LIMIT, and its arguments. Only the conditions in use are spelled out, so that each
// combination gets a plan on its index.
func listQuery(q string, f stockade.ListFilter) (string, []any) {
	var (
		b    strings.Builder
		args []any
		and  = "\nWHERE "
	)
	b.WriteString(q)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	cond := func(expr string) {
		b.WriteString(and + expr)
		and = " AND "
	}
	if f.Status != "" {
		cond("status = " + arg(f.Status) + "::text")
	}
	if f.ShowID != "" {
		cond("show_id = " + arg(f.ShowID) + "::text")
	}
	if len(f.Metadata) > 0 {
		cond("metadata @> " + arg(marshalMetadata(f.Metadata)) + "::jsonb")
	}
	if f.Owner != "" {
		cond("owner = " + arg(f.Owner) + "::text")
	}
	if !f.CreatedAfter.IsZero() {
		cond("created_at >= " + arg(f.CreatedAfter) + "::timestamptz")
	}
	if !f.CreatedBefore.IsZero() {
		cond("created_at < " + arg(f.CreatedBefore) + "::timestamptz")
	}
	if !f.BeforeAt.IsZero() {
		cond("(created_at, id) < (" + arg(f.BeforeAt) + "::timestamptz, " + arg(f.BeforeID) + "::text)")
	}
	b.WriteString("\nORDER BY created_at DESC, id DESC\nLIMIT " + arg(f.Limit) + "::bigint")
	return b.String(), args
}

func (t *tx) ReservationList(ctx context.Context, f stockade.ListFilter) ([]stockade.Reservation, error) {
	q, args := listQuery(listReservationsSQL, f)
	rows, _ := t.tx.Query(ctx, q, args...)
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Reservation, error) { return scanReservation(row) })
	if err != nil {
		return nil, t.fail(ctx, "list reservations", err)
	}
	return rs, nil
}

func (t *tx) HoldList(ctx context.Context, f stockade.ListFilter) ([]stockade.Hold, error) {
	q, args := listQuery(listHoldsSQL, f)
	rows, _ := t.tx.Query(ctx, q, args...)
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Hold, error) { return scanHold(row) })
	if err != nil {
		return nil, t.fail(ctx, "list holds", err)
	}
	return hs, nil
}

func (t *tx) BookingList(ctx context.Context, f stockade.ListFilter) ([]stockade.Booking, error) {
	q, args := listQuery(listBookingsSQL, f)
	rows, _ := t.tx.Query(ctx, q, args...)
	bs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Booking, error) { return scanBooking(row) })
	if err != nil {
		return nil, t.fail(ctx, "list bookings", err)
	}
	return bs, nil
}

func (t *tx) OrderList(ctx context.Context, f stockade.ListFilter) ([]stockade.Order, error) {
	q, args := listQuery(listOrdersSQL, f)
	rows, _ := t.tx.Query(ctx, q, args...)
	orders, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Order, error) { return scanOrder(row) })
	if err != nil {
		return nil, t.fail(ctx, "list orders", err)
	}
	return orders, nil
}

// scanKey scans id, name, role, rate_limit, hash, created_at, revoked_at.
func scanKey(row pgx.Row) (stockade.APIKey, error) {
	var (
		k       stockade.APIKey
		role    string
		revoked pgtype.Timestamptz
	)
	if err := row.Scan(&k.ID, &k.Name, &role, &k.RateLimit, &k.Hash, &k.CreatedAt, &revoked); err != nil {
		return k, err
	}
	k.Role, k.CreatedAt = stockade.Role(role), k.CreatedAt.UTC()
	if revoked.Valid {
		k.RevokedAt = revoked.Time.UTC()
	}
	return k, nil
}

// KeyInsert implements stockade.Tx. An id or name in use is a unique
// violation, which wraps stockade.ErrConflict (see mapError): with
// KeyGetByName checked first in the same transaction, only a concurrent
// transaction that inserted the name since can cause it, and a retry then
// finds that key.
func (t *tx) KeyInsert(ctx context.Context, k stockade.APIKey) error {
	revoked := pgtype.Timestamptz{Time: k.RevokedAt, Valid: !k.RevokedAt.IsZero()}
	_, err := t.tx.Exec(ctx, insertKeySQL, k.ID, k.Name, string(k.Role), k.RateLimit, k.Hash, k.CreatedAt, revoked)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("insert key %q (%q)", k.ID, k.Name), err)
	}
	return nil
}

func (t *tx) KeyGet(ctx context.Context, id string) (stockade.APIKey, error) {
	k, err := scanKey(t.tx.QueryRow(ctx, keySQL, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.APIKey{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("api key %q not found", id))
	case err != nil:
		return stockade.APIKey{}, t.fail(ctx, "key "+strconv.Quote(id), err)
	}
	return k, nil
}

func (t *tx) KeyGetByName(ctx context.Context, name string) (stockade.APIKey, bool, error) {
	k, err := scanKey(t.tx.QueryRow(ctx, keyNamedSQL, name))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.APIKey{}, false, nil
	case err != nil:
		return stockade.APIKey{}, false, t.fail(ctx, "key named "+strconv.Quote(name), err)
	}
	return k, true, nil
}

func (t *tx) KeyList(ctx context.Context, after string, limit int) ([]stockade.APIKey, error) {
	rows, _ := t.tx.Query(ctx, keysSQL, after, limit)
	ks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.APIKey, error) { return scanKey(row) })
	if err != nil {
		return nil, t.fail(ctx, "keys", err)
	}
	return ks, nil
}

func (t *tx) KeyRevoke(ctx context.Context, id string, at time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, revokeKeySQL, id, at)
	if err != nil {
		return false, t.fail(ctx, "revoke key "+strconv.Quote(id), err)
	}
	return tag.RowsAffected() == 1, nil
}
