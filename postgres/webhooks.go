package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// Outbound webhooks: the endpoints and the deliveries of events to them.
// See migrations/0018_webhooks.sql.

var (
	//go:embed queries/insert_webhook_endpoint.sql
	insertWebhookEndpointSQL string
	//go:embed queries/webhook_endpoint.sql
	webhookEndpointSQL string
	//go:embed queries/webhook_endpoints.sql
	webhookEndpointsSQL string
	//go:embed queries/update_webhook_endpoint.sql
	updateWebhookEndpointSQL string
	//go:embed queries/delete_webhook_endpoint.sql
	deleteWebhookEndpointSQL string
	//go:embed queries/insert_webhook_deliveries.sql
	insertWebhookDeliveriesSQL string
	//go:embed queries/webhook_delivery.sql
	webhookDeliverySQL string
	//go:embed queries/webhook_delivery_heads.sql
	webhookDeliveryHeadsSQL string
	//go:embed queries/update_webhook_delivery.sql
	updateWebhookDeliverySQL string
	//go:embed queries/list_webhook_deliveries.sql
	listWebhookDeliveriesSQL string
	//go:embed queries/prune_webhook_deliveries.sql
	pruneWebhookDeliveriesSQL string
)

var _ stockade.WebhookTx = (*tx)(nil)

// optionalTime is a time as stored where it may be missing: NULL for the
// zero time.
func optionalTime(at time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: at, Valid: !at.IsZero()}
}

// fromOptional is the time of a column that may be NULL, in UTC; the zero
// time for NULL.
func fromOptional(at pgtype.Timestamptz) time.Time {
	if !at.Valid {
		return time.Time{}
	}
	return at.Time.UTC()
}

func (t *tx) WebhookEndpointInsert(ctx context.Context, ep stockade.WebhookEndpoint) error {
	_, err := t.tx.Exec(ctx, insertWebhookEndpointSQL, ep.ID, ep.URL, ep.Events, ep.Description, ep.Disabled,
		ep.DisabledReason, ep.Secret, ep.PreviousSecret, optionalTime(ep.PreviousExpiresAt), ep.CreatedAt,
		ep.UpdatedAt, ep.Version)
	if err != nil {
		return t.fail(ctx, "insert webhook endpoint "+strconv.Quote(ep.ID), err)
	}
	return nil
}

// scanWebhookEndpoint scans the columns of webhook_endpoint.sql.
func scanWebhookEndpoint(row pgx.Row) (stockade.WebhookEndpoint, error) {
	var (
		ep       stockade.WebhookEndpoint
		previous pgtype.Timestamptz
	)
	err := row.Scan(&ep.ID, &ep.URL, &ep.Events, &ep.Description, &ep.Disabled, &ep.DisabledReason, &ep.Secret,
		&ep.PreviousSecret, &previous, &ep.CreatedAt, &ep.UpdatedAt, &ep.Version)
	ep.PreviousExpiresAt = fromOptional(previous)
	ep.CreatedAt, ep.UpdatedAt = ep.CreatedAt.UTC(), ep.UpdatedAt.UTC()
	return ep, err
}

func (t *tx) WebhookEndpointGet(ctx context.Context, by stockade.ByID) (stockade.WebhookEndpoint, error) {
	q := webhookEndpointSQL
	if by.Lock {
		q += forUpdate
	}
	ep, err := scanWebhookEndpoint(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return ep, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("webhook endpoint %q not found", by.ID))
	case err != nil:
		return ep, t.fail(ctx, "webhook endpoint "+strconv.Quote(by.ID), err)
	}
	return ep, nil
}

func (t *tx) WebhookEndpointList(ctx context.Context, after string, limit int) ([]stockade.WebhookEndpoint, error) {
	rows, _ := t.tx.Query(ctx, webhookEndpointsSQL, after, limit)
	eps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.WebhookEndpoint, error) {
		return scanWebhookEndpoint(row)
	})
	if err != nil {
		return nil, t.fail(ctx, "list webhook endpoints", err)
	}
	return eps, nil
}

func (t *tx) WebhookEndpointUpdate(ctx context.Context, ep stockade.WebhookEndpoint) (bool, error) {
	tag, err := t.tx.Exec(ctx, updateWebhookEndpointSQL, ep.ID, ep.URL, ep.Events, ep.Description, ep.Disabled,
		ep.DisabledReason, ep.Secret, ep.PreviousSecret, optionalTime(ep.PreviousExpiresAt), ep.UpdatedAt, ep.Version)
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("update webhook endpoint %q to version %d", ep.ID, ep.Version), err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) WebhookEndpointDelete(ctx context.Context, id string) (bool, error) {
	tag, err := t.tx.Exec(ctx, deleteWebhookEndpointSQL, id)
	if err != nil {
		return false, t.fail(ctx, "delete webhook endpoint "+strconv.Quote(id), err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) WebhookDeliveryInsert(ctx context.Context, ds ...stockade.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	var (
		ids, endpoints, events, types, aggs, aggIDs, statuses = make([]string, len(ds)), make([]string, len(ds)),
			make([]string, len(ds)), make([]string, len(ds)), make([]string, len(ds)), make([]string, len(ds)), make([]string, len(ds))
		bodies         = make([][]byte, len(ds))
		attempts       = make([]int32, len(ds))
		next           = make([]pgtype.Timestamptz, len(ds))
		until, created = make([]time.Time, len(ds)), make([]time.Time, len(ds))
		versions       = make([]int64, len(ds))
	)
	for i, d := range ds {
		ids[i], endpoints[i], events[i], types[i], aggs[i], aggIDs[i], statuses[i] =
			d.ID, d.EndpointID, d.EventID, d.EventType, d.Aggregate, d.AggregateID, string(d.Status)
		bodies[i], attempts[i], next[i] = d.Body, int32(d.Attempts), optionalTime(d.NextAttemptAt)
		until[i], created[i], versions[i] = d.RetryUntil, d.CreatedAt, d.Version
	}
	_, err := t.tx.Exec(ctx, insertWebhookDeliveriesSQL, ids, endpoints, events, types, aggs, aggIDs, statuses,
		bodies, attempts, next, until, created, versions)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("insert %d webhook deliveries", len(ds)), err)
	}
	return nil
}

// scanWebhookDelivery scans the columns of webhook_delivery.sql.
func scanWebhookDelivery(row pgx.Row) (stockade.WebhookDelivery, error) {
	var (
		d          stockade.WebhookDelivery
		status     string
		next, last pgtype.Timestamptz
	)
	err := row.Scan(&d.Seq, &d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Aggregate, &d.AggregateID, &status,
		&d.Body, &d.Attempts, &next, &d.RetryUntil, &last, &d.LastCode, &d.LastError, &d.CreatedAt, &d.Version)
	d.Status = stockade.WebhookDeliveryStatus(status)
	d.NextAttemptAt, d.LastAttemptAt = fromOptional(next), fromOptional(last)
	d.RetryUntil, d.CreatedAt = d.RetryUntil.UTC(), d.CreatedAt.UTC()
	return d, err
}

func (t *tx) WebhookDeliveryGet(ctx context.Context, endpointID, id string) (stockade.WebhookDelivery, error) {
	d, err := scanWebhookDelivery(t.tx.QueryRow(ctx, webhookDeliverySQL, endpointID, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return d, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("webhook delivery %q of endpoint %q not found", id, endpointID))
	case err != nil:
		return d, t.fail(ctx, "webhook delivery "+strconv.Quote(id), err)
	}
	return d, nil
}

func (t *tx) collectDeliveries(ctx context.Context, what string, rows pgx.Rows) ([]stockade.WebhookDelivery, error) {
	ds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.WebhookDelivery, error) {
		return scanWebhookDelivery(row)
	})
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	return ds, nil
}

func (t *tx) WebhookDeliveryHeads(ctx context.Context, q stockade.WebhookHeadQuery) ([]stockade.WebhookDelivery, error) {
	rows, _ := t.tx.Query(ctx, webhookDeliveryHeadsSQL, q.EndpointID, q.Before, q.Limit)
	return t.collectDeliveries(ctx, "due webhook deliveries of "+strconv.Quote(q.EndpointID), rows)
}

func (t *tx) WebhookDeliveryUpdate(ctx context.Context, d stockade.WebhookDelivery) (bool, error) {
	tag, err := t.tx.Exec(ctx, updateWebhookDeliverySQL, d.ID, string(d.Status), d.Attempts, optionalTime(d.NextAttemptAt),
		d.RetryUntil, optionalTime(d.LastAttemptAt), d.LastCode, d.LastError, d.Version)
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("update webhook delivery %q to version %d", d.ID, d.Version), err)
	}
	return tag.RowsAffected() == 1, nil
}

// WebhookDeliveryList implements stockade.WebhookTx:
// list_webhook_deliveries.sql with only the conditions in use spelled
// out.
func (t *tx) WebhookDeliveryList(ctx context.Context, f stockade.WebhookDeliveryFilter) ([]stockade.WebhookDelivery, error) {
	var q strings.Builder
	args := []any{f.EndpointID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	q.WriteString(listWebhookDeliveriesSQL)
	if f.Status != "" {
		q.WriteString(" AND status = " + arg(string(f.Status)) + "::text")
	}
	if f.BeforeSeq > 0 {
		q.WriteString(" AND seq < " + arg(f.BeforeSeq) + "::bigint")
	}
	q.WriteString("\nORDER BY seq DESC\nLIMIT " + arg(f.Limit) + "::bigint")
	rows, _ := t.tx.Query(ctx, q.String(), args...)
	return t.collectDeliveries(ctx, "list webhook deliveries of "+strconv.Quote(f.EndpointID), rows)
}

func (t *tx) WebhookDeliveryPrune(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := t.tx.Exec(ctx, pruneWebhookDeliveriesSQL, before, limit)
	if err != nil {
		return 0, t.fail(ctx, "prune webhook deliveries", err)
	}
	return int(tag.RowsAffected()), nil
}
