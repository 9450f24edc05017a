package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// jsonOf encodes lines or allocations for their JSON column.
func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// scanReservation reads a reservation's columns: id, status, created_at,
// expires_at, order_id, lines, allocations, owner, metadata.
func scanReservation(row rowScanner) (stockade.Reservation, error) {
	var r stockade.Reservation
	var status, lines, allocs, meta string
	var created, expires int64
	if err := row.Scan(&r.ID, &status, &created, &expires, &r.OrderID, &lines, &allocs, &r.Owner, &meta); err != nil {
		return r, err
	}
	if err := unmarshalMetadata(meta, &r.Metadata); err != nil {
		return r, err
	}
	r.Status, r.CreatedAt, r.ExpiresAt = stockade.ReservationStatus(status), fromMicros(created), fromMicros(expires)
	if err := json.Unmarshal([]byte(lines), &r.Lines); err != nil {
		return r, fmt.Errorf("lines: %w", err)
	}
	if err := json.Unmarshal([]byte(allocs), &r.Allocations); err != nil {
		return r, fmt.Errorf("allocations: %w", err)
	}
	return r, nil
}

// ReservationInsert stores rs and the levels each draws on, for the key
// filter of ReservationLapseCandidates.
func (t *tx) ReservationInsert(ctx context.Context, rs ...stockade.Reservation) error {
	what := func() string {
		if len(rs) == 1 {
			return "insert reservation " + rs[0].ID
		}
		return fmt.Sprintf("insert %d reservations", len(rs))
	}
	type drawn struct{ id, sku, location string }
	var (
		lines, allocs = make([]string, len(rs)), make([]string, len(rs))
		levels        []drawn // distinct per reservation
	)
	for i, r := range rs {
		var err error
		if lines[i], err = jsonOf(r.Lines); err != nil {
			return fmt.Errorf("sqlite: insert reservation %s: %w", r.ID, err)
		}
		if allocs[i], err = jsonOf(r.Allocations); err != nil {
			return fmt.Errorf("sqlite: insert reservation %s: %w", r.ID, err)
		}
		for j, a := range r.Allocations {
			if !slices.ContainsFunc(r.Allocations[:j], func(b stockade.Allocation) bool { return b.Key() == a.Key() }) {
				levels = append(levels, drawn{r.ID, a.SKU, a.Location})
			}
		}
	}
	err := t.insertRows(ctx, insertReservationsSQL, 9, len(rs),
		func(i int, row []any) []any {
			r := rs[i]
			return append(row, r.ID, string(r.Status), micros(r.CreatedAt), micros(r.ExpiresAt), r.OrderID, lines[i], allocs[i], r.Owner,
				marshalMetadata(r.Metadata))
		})
	if err != nil {
		return checkf(err, "invalid reservation status", "%s", what())
	}
	err = t.insertRows(ctx, insertReservationAllocationsSQL, 3, len(levels),
		func(i int, row []any) []any { return append(row, levels[i].id, levels[i].sku, levels[i].location) })
	if err != nil {
		return wrapf(err, "%s: allocations", what())
	}
	return nil
}

// ReservationGetMany ignores Lock; see tx.
func (t *tx) ReservationGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Reservation, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(by.IDs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %d reservations: %w", len(by.IDs), err)
	}
	return queryAll(ctx, t, fmt.Sprintf("%d reservations", len(by.IDs)), scanReservation, reservationsSQL, string(list))
}

// ReservationGet ignores Lock; see tx.
func (t *tx) ReservationGet(ctx context.Context, by stockade.ByID) (stockade.Reservation, error) {
	r, err := scanReservation(t.tx.QueryRowContext(ctx, reservationSQL, by.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return r, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("reservation %q not found", by.ID))
	}
	if err != nil {
		return r, wrapf(err, "reservation %s", by.ID)
	}
	return r, nil
}

func (t *tx) ReservationSetStatus(ctx context.Context, id string, from, to stockade.ReservationStatus, orderID string) (bool, error) {
	res, err := t.tx.ExecContext(ctx, setReservationStatusSQL, id, string(from), string(to), orderID)
	if err != nil {
		return false, checkf(err, "invalid reservation status", "set reservation %s %s → %s", id, from, to)
	}
	return affected(res, "set reservation %s %s → %s", id, from, to)
}

// affected reports whether res changed a row.
func affected(res sql.Result, format string, args ...any) (bool, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrapf(err, format, args...)
	}
	return n > 0, nil
}

// ReservationLapseCandidates takes no locks (see tx) and skips none: the
// payments' statuses it reads in the same statement stay true until the
// Update commits.
func (t *tx) ReservationLapseCandidates(ctx context.Context, q stockade.ReservationLapseQuery) ([]stockade.ReservationLapseCandidate, error) {
	sql, args := reservationLapseCandidatesSQL, []any{micros(q.ExpiredBefore), micros(q.After.ExpiresAt), q.After.ID, sqliteLimit(q.Limit)}
	if len(q.Keys) > 0 {
		sql, args = reservationLapseCandidatesKeysSQL, append(args, keysJSON(q.Keys))
	}
	return queryAll(ctx, t, "reservation lapse candidates", func(row rowScanner) (stockade.ReservationLapseCandidate, error) {
		var c stockade.ReservationLapseCandidate
		var err error
		c.Reservation, err = scanReservation(lastColumn{row, &c.Payment})
		return c, err
	}, sql, args...)
}

func (t *tx) OrderInsert(ctx context.Context, orders ...stockade.Order) error {
	lines, allocs := make([]string, len(orders)), make([]string, len(orders))
	for i, o := range orders {
		var err error
		if lines[i], err = jsonOf(o.Lines); err != nil {
			return fmt.Errorf("sqlite: insert order %s: %w", o.ID, err)
		}
		if allocs[i], err = jsonOf(o.Allocations); err != nil {
			return fmt.Errorf("sqlite: insert order %s: %w", o.ID, err)
		}
	}
	err := t.insertRows(ctx, insertOrdersSQL, 8, len(orders),
		func(i int, row []any) []any {
			o := orders[i]
			return append(row, o.ID, string(o.Status), micros(o.CreatedAt), o.ReservationID, lines[i], allocs[i], o.Owner,
				marshalMetadata(o.Metadata))
		})
	if err != nil {
		if len(orders) == 1 {
			return checkf(err, "invalid order status", "insert order %s", orders[0].ID)
		}
		return checkf(err, "invalid order status", "insert %d orders", len(orders))
	}
	return nil
}

// scanOrder reads an order's columns: id, status, created_at,
// reservation_id, lines, allocations, owner, version, metadata, shipped.
func scanOrder(row rowScanner) (stockade.Order, error) {
	var o stockade.Order
	var status, lines, allocs, meta, shipped string
	var created int64
	if err := row.Scan(&o.ID, &status, &created, &o.ReservationID, &lines, &allocs, &o.Owner, &o.Version, &meta, &shipped); err != nil {
		return o, err
	}
	if err := unmarshalMetadata(meta, &o.Metadata); err != nil {
		return o, err
	}
	if err := unmarshalShipped(shipped, &o.Shipped); err != nil {
		return o, err
	}
	o.Status, o.CreatedAt = stockade.OrderStatus(status), fromMicros(created)
	if err := json.Unmarshal([]byte(lines), &o.Lines); err != nil {
		return o, fmt.Errorf("lines: %w", err)
	}
	if err := json.Unmarshal([]byte(allocs), &o.Allocations); err != nil {
		return o, fmt.Errorf("allocations: %w", err)
	}
	return o, nil
}

// OrderGet ignores Lock; see tx.
func (t *tx) OrderGet(ctx context.Context, by stockade.ByID) (stockade.Order, error) {
	o, err := scanOrder(t.tx.QueryRowContext(ctx, orderSQL, by.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return o, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("order %q not found", by.ID))
	}
	if err != nil {
		return o, wrapf(err, "order %s", by.ID)
	}
	return o, nil
}

func (t *tx) OrderSetStatus(ctx context.Context, id string, from, to stockade.OrderStatus) (bool, error) {
	res, err := t.tx.ExecContext(ctx, setOrderStatusSQL, id, string(from), string(to))
	if err != nil {
		return false, checkf(err, "invalid order status", "set order %s %s → %s", id, from, to)
	}
	return affected(res, "set order %s %s → %s", id, from, to)
}

// metadataTables are the tables of the aggregates that carry metadata.
var metadataTables = map[string]string{
	stockade.AggregateReservation: "reservations",
	stockade.AggregateOrder:       "orders",
	stockade.AggregateHold:        "holds",
	stockade.AggregateBooking:     "bookings",
	stockade.AggregatePayment:     "payments",
}

// MetadataSet implements stockade.Tx.
func (t *tx) MetadataSet(ctx context.Context, aggregate, id string, m stockade.Metadata) (bool, error) {
	table, ok := metadataTables[aggregate]
	if !ok {
		return false, fmt.Errorf("sqlite: set metadata: %q carries no metadata", aggregate)
	}
	res, err := t.tx.ExecContext(ctx, "UPDATE "+table+" SET metadata = ?2 WHERE id = ?1", id, marshalMetadata(m))
	if err != nil {
		return false, wrapf(err, "set the metadata of %s %s", aggregate, id)
	}
	return affected(res, "set the metadata of %s %s", aggregate, id)
}

func scanIdempotency(row rowScanner) (stockade.IdempotencyRecord, error) {
	var (
		rec     stockade.IdempotencyRecord
		created int64
	)
	err := row.Scan(&rec.Key, &rec.Op, &rec.Fingerprint, &rec.Result, &created)
	rec.CreatedAt = fromMicros(created)
	return rec, err
}

// IdempotencyGetMany ignores locking: the writer holds the whole database.
func (t *tx) IdempotencyGetMany(ctx context.Context, keys []string) ([]stockade.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %d idempotency records: %w", len(keys), err)
	}
	return queryAll(ctx, t, fmt.Sprintf("%d idempotency records", len(keys)), scanIdempotency, idempotenciesSQL, string(list))
}

func (t *tx) IdempotencyPut(ctx context.Context, recs ...stockade.IdempotencyRecord) error {
	if len(recs) == 0 {
		return nil
	}
	what := "put idempotency " + recs[0].Key
	if len(recs) > 1 {
		what = fmt.Sprintf("put %d idempotency records", len(recs))
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = []any{r.Key, r.Op, r.Fingerprint, hex.EncodeToString(r.Result), micros(r.CreatedAt)}
	}
	list, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if _, err := t.tx.ExecContext(ctx, putIdempotencySQL, string(list)); err != nil {
		return wrapf(err, "%s", what)
	}
	return nil
}

func (t *tx) IdempotencyPurge(ctx context.Context, before time.Time) (int, error) {
	res, err := t.tx.ExecContext(ctx, purgeIdempotencySQL, micros(before))
	if err != nil {
		return 0, wrapf(err, "purge idempotency")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "purge idempotency")
	}
	return int(n), nil
}

// marshalMetadata is m as the JSON text its column holds: '{}' for none.
func marshalMetadata(m stockade.Metadata) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // cannot fail: strings only
	return string(b)
}

// unmarshalMetadata reads a metadata column into m, nil for '{}'.
func unmarshalMetadata(s string, m *stockade.Metadata) error {
	var out stockade.Metadata
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	if len(out) > 0 {
		*m = out
	}
	return nil
}
