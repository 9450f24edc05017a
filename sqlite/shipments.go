package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockade/stockade"
)

// Shipments of orders, and what an order has shipped. See
// migrations/0019_shipments.sql.

var (
	updateOrderSQL     = query("update_order.sql")
	insertShipmentsSQL = query("insert_shipments.sql")
	listShipmentsSQL   = query("list_shipments.sql")
)

// marshalShipped is what an order has shipped as the JSON text its column
// holds: '[]' for nothing.
func marshalShipped(as []stockade.Allocation) (string, error) {
	if len(as) == 0 {
		return "[]", nil
	}
	return jsonOf(as)
}

// unmarshalShipped reads a shipped column into as, nil for '[]'.
func unmarshalShipped(s string, as *[]stockade.Allocation) error {
	var out []stockade.Allocation
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return fmt.Errorf("shipped: %w", err)
	}
	if len(out) > 0 {
		*as = out
	}
	return nil
}

func (t *tx) OrderUpdate(ctx context.Context, o stockade.Order) (bool, error) {
	shipped, err := marshalShipped(o.Shipped)
	if err != nil {
		return false, fmt.Errorf("sqlite: update order %s: %w", o.ID, err)
	}
	res, err := t.tx.ExecContext(ctx, updateOrderSQL, o.ID, string(o.Status), shipped, o.Version)
	if err != nil {
		return false, checkf(err, "invalid order status", "update order %s", o.ID)
	}
	return affected(res, "update order %s", o.ID)
}

func (t *tx) ShipmentInsert(ctx context.Context, ss ...stockade.Shipment) error {
	lines := make([]string, len(ss))
	for i, s := range ss {
		var err error
		if lines[i], err = jsonOf(s.Lines); err != nil {
			return fmt.Errorf("sqlite: insert shipment %s: %w", s.ID, err)
		}
	}
	err := t.insertRows(ctx, insertShipmentsSQL, 6, len(ss),
		func(i int, row []any) []any {
			s := ss[i]
			return append(row, s.ID, s.OrderID, micros(s.CreatedAt), lines[i], s.OrderVersion, marshalMetadata(s.Metadata))
		})
	if err != nil {
		if len(ss) == 1 {
			return wrapf(err, "insert shipment %s", ss[0].ID)
		}
		return wrapf(err, "insert %d shipments", len(ss))
	}
	return nil
}

func (t *tx) ShipmentList(ctx context.Context, f stockade.ShipmentFilter) ([]stockade.Shipment, error) {
	return queryAll(ctx, t, "list the shipments of order "+f.OrderID, scanShipment, listShipmentsSQL,
		f.OrderID, optionalMicros(f.BeforeAt), f.BeforeID, f.Limit)
}

// scanShipment reads a shipment's columns: id, order_id, created_at,
// lines, order_version, metadata.
func scanShipment(row rowScanner) (stockade.Shipment, error) {
	var (
		s           stockade.Shipment
		created     int64
		lines, meta string
	)
	if err := row.Scan(&s.ID, &s.OrderID, &created, &lines, &s.OrderVersion, &meta); err != nil {
		return s, err
	}
	s.CreatedAt = fromMicros(created)
	if err := json.Unmarshal([]byte(lines), &s.Lines); err != nil {
		return s, fmt.Errorf("lines: %w", err)
	}
	return s, unmarshalMetadata(meta, &s.Metadata)
}
