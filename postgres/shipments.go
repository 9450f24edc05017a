package postgres

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// Shipments of orders, and what an order has shipped. See
// migrations/0019_shipments.sql.

var (
	//go:embed queries/update_order.sql
	updateOrderSQL string
	//go:embed queries/insert_shipments.sql
	insertShipmentsSQL string
	//go:embed queries/list_shipments.sql
	listShipmentsSQL string
)

// marshalShipped is what an order has shipped as the JSON text its column
// holds: '[]' for nothing.
func marshalShipped(as []stockade.Allocation) (string, error) {
	if len(as) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(as)
	return string(b), err
}

// unmarshalShipped reads a shipped column into as, nil for '[]'.
func unmarshalShipped(b []byte, as *[]stockade.Allocation) error {
	var out []stockade.Allocation
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("decode shipped: %w", err)
	}
	if len(out) > 0 {
		*as = out
	}
	return nil
}

func (t *tx) OrderUpdate(ctx context.Context, o stockade.Order) (bool, error) {
	shipped, err := marshalShipped(o.Shipped)
	if err != nil {
		return false, fmt.Errorf("postgres: update order %q: %w", o.ID, err)
	}
	tag, err := t.tx.Exec(ctx, updateOrderSQL, o.ID, string(o.Status), shipped, o.Version)
	if err != nil {
		return false, t.fail(ctx, "update order "+strconv.Quote(o.ID), err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) ShipmentInsert(ctx context.Context, ss ...stockade.Shipment) error {
	if len(ss) == 0 {
		return nil
	}
	what := "insert shipment " + strconv.Quote(ss[0].ID)
	if len(ss) > 1 {
		what = fmt.Sprintf("insert %d shipments", len(ss))
	}
	var (
		ids, orders   = make([]string, len(ss)), make([]string, len(ss))
		created       = make([]time.Time, len(ss))
		lines, metas  = make([]string, len(ss)), make([]string, len(ss))
		orderVersions = make([]int64, len(ss))
	)
	for i, s := range ss {
		l, err := json.Marshal(s.Lines)
		if err != nil {
			return fmt.Errorf("postgres: insert shipment %q: %w", s.ID, err)
		}
		ids[i], orders[i], created[i], lines[i] = s.ID, s.OrderID, s.CreatedAt, string(l)
		orderVersions[i], metas[i] = s.OrderVersion, marshalMetadata(s.Metadata)
	}
	if _, err := t.tx.Exec(ctx, insertShipmentsSQL, ids, orders, created, lines, orderVersions, metas); err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

func (t *tx) ShipmentList(ctx context.Context, f stockade.ShipmentFilter) ([]stockade.Shipment, error) {
	rows, _ := t.tx.Query(ctx, listShipmentsSQL, f.OrderID, optionalTime(f.BeforeAt), f.BeforeID, limitArg(f.Limit, false))
	ss, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Shipment, error) { return scanShipment(row) })
	if err != nil {
		return nil, t.fail(ctx, "list the shipments of order "+strconv.Quote(f.OrderID), err)
	}
	return ss, nil
}

// scanShipment scans id, order_id, created_at, lines, order_version,
// metadata.
func scanShipment(row pgx.Row) (stockade.Shipment, error) {
	var (
		s           stockade.Shipment
		at          pgtype.Timestamptz
		lines, meta []byte
	)
	if err := row.Scan(&s.ID, &s.OrderID, &at, &lines, &s.OrderVersion, &meta); err != nil {
		return s, err
	}
	s.CreatedAt = at.Time.UTC()
	if err := json.Unmarshal(lines, &s.Lines); err != nil {
		return s, fmt.Errorf("decode the lines of shipment %q: %w", s.ID, err)
	}
	return s, unmarshalMetadata(meta, &s.Metadata)
}
