package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// Outbound webhooks: the endpoints and the deliveries of events to them.
// See migrations/0018_webhooks.sql. Lock arguments are ignored: an Update
// holds the whole database.

var _ stockade.WebhookTx = (*tx)(nil)

var (
	insertWebhookEndpointSQL   = query("insert_webhook_endpoint.sql")
	webhookEndpointSQL         = query("webhook_endpoint.sql")
	webhookEndpointsSQL        = query("webhook_endpoints.sql")
	updateWebhookEndpointSQL   = query("update_webhook_endpoint.sql")
	deleteWebhookEndpointSQL   = query("delete_webhook_endpoint.sql")
	deleteWebhookDeliveriesSQL = query("delete_webhook_deliveries.sql")
	insertWebhookDeliveriesSQL = query("insert_webhook_deliveries.sql")
	webhookDeliverySQL         = query("webhook_delivery.sql")
	webhookDeliveryHeadsSQL    = query("webhook_delivery_heads.sql")
	updateWebhookDeliverySQL   = query("update_webhook_delivery.sql")
	listWebhookDeliveriesSQL   = query("list_webhook_deliveries.sql")
	pruneWebhookDeliveriesSQL  = query("prune_webhook_deliveries.sql")
)

// optionalMicros is a time as stored where it may be missing: NULL for
// the zero time.
func optionalMicros(at time.Time) any {
	if at.IsZero() {
		return nil
	}
	return micros(at)
}

// fromOptionalMicros is the time of a column that may be NULL; the zero
// time for NULL.
func fromOptionalMicros(us sql.NullInt64) time.Time {
	if !us.Valid {
		return time.Time{}
	}
	return fromMicros(us.Int64)
}

// endpointEvents is an endpoint's events column: its event types as a
// JSON array.
func endpointEvents(ep stockade.WebhookEndpoint) (string, error) {
	b, err := json.Marshal(ep.Events)
	return string(b), err
}

func (t *tx) WebhookEndpointInsert(ctx context.Context, ep stockade.WebhookEndpoint) error {
	events, err := endpointEvents(ep)
	if err != nil {
		return fmt.Errorf("sqlite: insert webhook endpoint %s: %w", ep.ID, err)
	}
	_, err = t.tx.ExecContext(ctx, insertWebhookEndpointSQL, ep.ID, ep.URL, events, ep.Description, ep.Disabled,
		ep.DisabledReason, ep.Secret, ep.PreviousSecret, optionalMicros(ep.PreviousExpiresAt), micros(ep.CreatedAt),
		micros(ep.UpdatedAt), ep.Version)
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert webhook endpoint %s: id in use: %w: %w", ep.ID, stockade.ErrConflict, err)
	}
	if err != nil {
		return wrapf(err, "insert webhook endpoint %s", ep.ID)
	}
	return nil
}

// scanWebhookEndpoint reads the columns of webhook_endpoint.sql.
func scanWebhookEndpoint(row rowScanner) (stockade.WebhookEndpoint, error) {
	var (
		ep               stockade.WebhookEndpoint
		events           string
		previous         sql.NullInt64
		created, updated int64
	)
	err := row.Scan(&ep.ID, &ep.URL, &events, &ep.Description, &ep.Disabled, &ep.DisabledReason, &ep.Secret,
		&ep.PreviousSecret, &previous, &created, &updated, &ep.Version)
	if err != nil {
		return ep, err
	}
	ep.PreviousExpiresAt, ep.CreatedAt, ep.UpdatedAt = fromOptionalMicros(previous), fromMicros(created), fromMicros(updated)
	return ep, json.Unmarshal([]byte(events), &ep.Events)
}

func (t *tx) WebhookEndpointGet(ctx context.Context, by stockade.ByID) (stockade.WebhookEndpoint, error) {
	ep, err := scanWebhookEndpoint(t.tx.QueryRowContext(ctx, webhookEndpointSQL, by.ID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ep, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("webhook endpoint %q not found", by.ID))
	case err != nil:
		return ep, wrapf(err, "webhook endpoint %s", by.ID)
	}
	return ep, nil
}

func (t *tx) WebhookEndpointList(ctx context.Context, after string, limit int) ([]stockade.WebhookEndpoint, error) {
	return queryAll(ctx, t, "list webhook endpoints", scanWebhookEndpoint, webhookEndpointsSQL, after, limit)
}

func (t *tx) WebhookEndpointUpdate(ctx context.Context, ep stockade.WebhookEndpoint) (bool, error) {
	events, err := endpointEvents(ep)
	if err != nil {
		return false, fmt.Errorf("sqlite: update webhook endpoint %s: %w", ep.ID, err)
	}
	res, err := t.tx.ExecContext(ctx, updateWebhookEndpointSQL, ep.ID, ep.URL, events, ep.Description, ep.Disabled,
		ep.DisabledReason, ep.Secret, ep.PreviousSecret, optionalMicros(ep.PreviousExpiresAt), micros(ep.UpdatedAt), ep.Version)
	if err != nil {
		return false, wrapf(err, "update webhook endpoint %s to version %d", ep.ID, ep.Version)
	}
	return affected(res, "update webhook endpoint %s to version %d", ep.ID, ep.Version)
}

// WebhookEndpointDelete deletes the endpoint's deliveries, then the
// endpoint.
func (t *tx) WebhookEndpointDelete(ctx context.Context, id string) (bool, error) {
	if _, err := t.tx.ExecContext(ctx, deleteWebhookDeliveriesSQL, id); err != nil {
		return false, wrapf(err, "delete the deliveries of webhook endpoint %s", id)
	}
	res, err := t.tx.ExecContext(ctx, deleteWebhookEndpointSQL, id)
	if err != nil {
		return false, wrapf(err, "delete webhook endpoint %s", id)
	}
	return affected(res, "delete webhook endpoint %s", id)
}

func (t *tx) WebhookDeliveryInsert(ctx context.Context, ds ...stockade.WebhookDelivery) error {
	err := t.insertRows(ctx, insertWebhookDeliveriesSQL, 13, len(ds), func(i int, row []any) []any {
		d := ds[i]
		return append(row, d.ID, d.EndpointID, d.EventID, d.EventType, d.Aggregate, d.AggregateID, string(d.Status),
			d.Body, d.Attempts, optionalMicros(d.NextAttemptAt), micros(d.RetryUntil), micros(d.CreatedAt), d.Version)
	})
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert %d webhook deliveries: an id in use: %w: %w", len(ds), stockade.ErrConflict, err)
	}
	if err != nil {
		return checkf(err, "invalid webhook delivery status or attempts", "insert %d webhook deliveries", len(ds))
	}
	return nil
}

// scanWebhookDelivery reads the columns of webhook_delivery.sql.
func scanWebhookDelivery(row rowScanner) (stockade.WebhookDelivery, error) {
	var (
		d              stockade.WebhookDelivery
		status         string
		next, last     sql.NullInt64
		until, created int64
	)
	err := row.Scan(&d.Seq, &d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Aggregate, &d.AggregateID, &status,
		&d.Body, &d.Attempts, &next, &until, &last, &d.LastCode, &d.LastError, &created, &d.Version)
	d.Status = stockade.WebhookDeliveryStatus(status)
	d.NextAttemptAt, d.LastAttemptAt = fromOptionalMicros(next), fromOptionalMicros(last)
	d.RetryUntil, d.CreatedAt = fromMicros(until), fromMicros(created)
	return d, err
}

func (t *tx) WebhookDeliveryGet(ctx context.Context, endpointID, id string) (stockade.WebhookDelivery, error) {
	d, err := scanWebhookDelivery(t.tx.QueryRowContext(ctx, webhookDeliverySQL, endpointID, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return d, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("webhook delivery %q of endpoint %q not found", id, endpointID))
	case err != nil:
		return d, wrapf(err, "webhook delivery %s", id)
	}
	return d, nil
}

func (t *tx) WebhookDeliveryHeads(ctx context.Context, q stockade.WebhookHeadQuery) ([]stockade.WebhookDelivery, error) {
	return queryAll(ctx, t, "due webhook deliveries of "+q.EndpointID, scanWebhookDelivery, webhookDeliveryHeadsSQL,
		q.EndpointID, micros(q.Before), q.Limit)
}

func (t *tx) WebhookDeliveryUpdate(ctx context.Context, d stockade.WebhookDelivery) (bool, error) {
	res, err := t.tx.ExecContext(ctx, updateWebhookDeliverySQL, d.ID, string(d.Status), d.Attempts, optionalMicros(d.NextAttemptAt),
		micros(d.RetryUntil), optionalMicros(d.LastAttemptAt), d.LastCode, d.LastError, d.Version)
	if err != nil {
		return false, checkf(err, "invalid webhook delivery status or attempts", "update webhook delivery %s to version %d", d.ID, d.Version)
	}
	return affected(res, "update webhook delivery %s to version %d", d.ID, d.Version)
}

// WebhookDeliveryList appends to list_webhook_deliveries.sql only the
// conditions in use.
func (t *tx) WebhookDeliveryList(ctx context.Context, f stockade.WebhookDeliveryFilter) ([]stockade.WebhookDelivery, error) {
	var q strings.Builder
	args := []any{f.EndpointID}
	q.WriteString(listWebhookDeliveriesSQL)
	if f.Status != "" {
		q.WriteString("AND status = ?\n")
		args = append(args, string(f.Status))
	}
	if f.BeforeSeq > 0 {
		q.WriteString("AND seq < ?\n")
		args = append(args, f.BeforeSeq)
	}
	q.WriteString("ORDER BY seq DESC LIMIT ?")
	return queryAll(ctx, t, "list webhook deliveries of "+f.EndpointID, scanWebhookDelivery, q.String(), append(args, f.Limit)...)
}

func (t *tx) WebhookDeliveryPrune(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := t.tx.ExecContext(ctx, pruneWebhookDeliveriesSQL, micros(before), limit)
	if err != nil {
		return 0, wrapf(err, "prune webhook deliveries")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "prune webhook deliveries")
	}
	return int(n), nil
}
