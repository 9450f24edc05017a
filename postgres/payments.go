package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// Payments: the payments of reservations, holds and orders, their history
// and the inbox of the outcomes applied to them. See
// migrations/0008_payments.sql.

var (
	//go:embed queries/insert_payment.sql
	insertPaymentSQL string
	//go:embed queries/payment.sql
	paymentSQL string
	//go:embed queries/payment_for.sql
	paymentForSQL string
	//go:embed queries/update_payment.sql
	updatePaymentSQL string
	//go:embed queries/list_payments.sql
	listPaymentsSQL string
	//go:embed queries/payment_lapse_candidates.sql
	paymentLapseCandidatesSQL string
	//go:embed queries/append_payment_changes.sql
	appendPaymentChangesSQL string
	//go:embed queries/payment_changes.sql
	paymentChangesSQL string
	//go:embed queries/purge_outcomes.sql
	purgeOutcomesSQL string
	//go:embed queries/payment_statuses.sql
	paymentStatusesSQL string
	//go:embed queries/record_outcomes.sql
	recordOutcomesSQL string
	//go:embed queries/forget_outcomes.sql
	forgetOutcomesSQL string
	//go:embed queries/payments.sql
	paymentsSQL string
)

var _ stockade.PaymentTx = (*tx)(nil)

// stuckAt is a payment's stuck time as stored: NULL for never.
func stuckAt(at time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: at, Valid: !at.IsZero()}
}

// PaymentInsert implements stockade.PaymentTx in one statement. An id in
// use, or a target that has a payment, is a unique violation, which wraps
// stockade.ErrConflict; a transaction inserting a payment for the same
// target is waited for first.
func (t *tx) PaymentInsert(ctx context.Context, p stockade.Payment) error {
	_, err := t.tx.Exec(ctx, insertPaymentSQL, p.ID, string(p.Target.Kind), p.Target.ID, p.Amount, p.Currency,
		string(p.Status), string(p.Resolution), p.Order, p.Booking, p.Owner, p.CreatedAt, p.UpdatedAt,
		stuckAt(p.StuckAt), p.Version, marshalMetadata(p.Metadata))
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("insert payment %q of %s", p.ID, p.Target), err)
	}
	return nil
}

// scanPayment scans id, target_kind, target_id, amount, currency, status,
// resolution, order_id, booking_id, owner, created_at, updated_at,
// stuck_at, version.
func scanPayment(row pgx.Row) (stockade.Payment, error) {
	var (
		p                        stockade.Payment
		kind, status, resolution string
		stuck                    pgtype.Timestamptz
		meta                     []byte
	)
	err := row.Scan(&p.ID, &kind, &p.Target.ID, &p.Amount, &p.Currency, &status, &resolution, &p.Order, &p.Booking,
		&p.Owner, &p.CreatedAt, &p.UpdatedAt, &stuck, &p.Version, &meta)
	if err != nil {
		return p, err
	}
	if err := unmarshalMetadata(meta, &p.Metadata); err != nil {
		return p, err
	}
	p.Target.Kind, p.Status, p.Resolution = stockade.PaymentTargetKind(kind), stockade.PaymentStatus(status), stockade.PaymentResolution(resolution)
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	if stuck.Valid {
		p.StuckAt = stuck.Time.UTC()
	}
	return p, nil
}

func (t *tx) PaymentGet(ctx context.Context, by stockade.ByID) (stockade.Payment, error) {
	q := paymentSQL
	if by.Lock {
		q += forUpdate
	}
	p, err := scanPayment(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Payment{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("payment %q not found", by.ID))
	case err != nil:
		return stockade.Payment{}, t.fail(ctx, "payment "+strconv.Quote(by.ID), err)
	}
	return p, nil
}

func (t *tx) PaymentGetByTarget(ctx context.Context, by stockade.ByTarget) (stockade.Payment, bool, error) {
	q := paymentForSQL
	if by.Lock {
		q += forUpdate
	}
	p, err := scanPayment(t.tx.QueryRow(ctx, q, string(by.Target.Kind), by.Target.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Payment{}, false, nil
	case err != nil:
		return stockade.Payment{}, false, t.fail(ctx, "payment of "+by.Target.String(), err)
	}
	return p, true, nil
}

// PaymentUpdate implements stockade.PaymentTx with one conditional
// UPDATE, whose WHERE holds the version.
func (t *tx) PaymentUpdate(ctx context.Context, p stockade.Payment) (bool, error) {
	tag, err := t.tx.Exec(ctx, updatePaymentSQL, p.ID, string(p.Status), string(p.Resolution), p.Order, p.Booking,
		stuckAt(p.StuckAt), p.UpdatedAt, p.Version)
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("update payment %q to version %d", p.ID, p.Version), err)
	}
	return tag.RowsAffected() == 1, nil
}

// PaymentList implements stockade.PaymentTx: list_payments.sql with only
// the conditions in use spelled out, so that each combination gets a plan
// on its index.
func (t *tx) PaymentList(ctx context.Context, f stockade.PaymentFilter) ([]stockade.Payment, error) {
	var (
		q    strings.Builder
		args []any
		and  = "\nWHERE "
	)
	q.WriteString(listPaymentsSQL)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	cond := func(expr string) {
		q.WriteString(and + expr)
		and = " AND "
	}
	if f.Status != "" {
		cond("status = " + arg(string(f.Status)) + "::text")
	}
	if f.Stuck {
		cond("stuck_at IS NOT NULL AND resolution = ''")
	}
	if f.Resolution != nil {
		cond("resolution = " + arg(string(*f.Resolution)) + "::text")
	}
	if f.Owner != "" {
		cond("owner = " + arg(f.Owner) + "::text")
	}
	if len(f.Metadata) > 0 {
		cond("metadata @> " + arg(marshalMetadata(f.Metadata)) + "::jsonb")
	}
	if !f.BeforeAt.IsZero() {
		cond("(created_at, id) < (" + arg(f.BeforeAt) + "::timestamptz, " + arg(f.BeforeID) + "::text)")
	}
	q.WriteString("\nORDER BY created_at DESC, id DESC\nLIMIT " + arg(f.Limit) + "::bigint")
	rows, _ := t.tx.Query(ctx, q.String(), args...)
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Payment, error) { return scanPayment(row) })
	if err != nil {
		return nil, t.fail(ctx, "list payments", err)
	}
	return ps, nil
}

// PaymentLapseCandidates implements stockade.PaymentTx without locks.
func (t *tx) PaymentLapseCandidates(ctx context.Context, q stockade.PaymentLapseQuery) ([]stockade.PaymentLapseCandidate, error) {
	rows, _ := t.tx.Query(ctx, paymentLapseCandidatesSQL, q.TargetExpiredBefore, q.After.ExpiresAt, q.After.ID, limitArg(q.Limit, false))
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.PaymentLapseCandidate, error) {
		var c stockade.PaymentLapseCandidate
		var err error
		c.Payment, err = scanPayment(lastColumn{row, &c.TargetExpiresAt})
		c.TargetExpiresAt = c.TargetExpiresAt.UTC()
		return c, err
	})
	if err != nil {
		return nil, t.fail(ctx, "payment lapse candidates", err)
	}
	return cs, nil
}

// PaymentChangeAppend implements stockade.PaymentTx in one statement. A
// change of a payment that does not exist is refused with ENotFound, by
// the foreign key.
func (t *tx) PaymentChangeAppend(ctx context.Context, cs ...stockade.PaymentChange) error {
	if len(cs) == 0 {
		return nil
	}
	n := len(cs)
	var (
		ids, from, to, resolutions = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		at                         = make([]pgtype.Timestamptz, n)
		actors, reasons            = make([]string, n), make([]string, n)
	)
	for i, c := range cs {
		ids[i], from[i], to[i], resolutions[i] = c.PaymentID, string(c.From), string(c.To), string(c.Resolution)
		at[i] = pgtype.Timestamptz{Time: c.At, Valid: !c.At.IsZero()}
		actors[i], reasons[i] = c.Actor, c.Reason
	}
	_, err := t.tx.Exec(ctx, appendPaymentChangesSQL, ids, from, to, resolutions, at, actors, reasons)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("append %d payment changes", n), paymentMissing(err))
	}
	return nil
}

// paymentMissing wraps err, from an insert of payment changes, with
// ENotFound when it is the foreign-key violation of a missing payment.
func paymentMissing(err error) error {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == foreignKeyViolation &&
		pe.ConstraintName == "payment_changes_payment_id_fkey" {
		return fmt.Errorf("%w: %w", stockade.Errorf(stockade.ENotFound, "payment not found ("+pe.Detail+")"), err)
	}
	return err
}

func (t *tx) PaymentChangeList(ctx context.Context, paymentID string) ([]stockade.PaymentChange, error) {
	rows, _ := t.tx.Query(ctx, paymentChangesSQL, paymentID)
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.PaymentChange, error) {
		var (
			c                    stockade.PaymentChange
			from, to, resolution string
		)
		err := row.Scan(&c.PaymentID, &from, &to, &resolution, &c.At, &c.Actor, &c.Reason)
		c.From, c.To, c.Resolution = stockade.PaymentStatus(from), stockade.PaymentStatus(to), stockade.PaymentResolution(resolution)
		c.At = c.At.UTC()
		return c, err
	})
	if err != nil {
		return nil, t.fail(ctx, "changes of payment "+strconv.Quote(paymentID), err)
	}
	return cs, nil
}

func (t *tx) OutcomePurge(ctx context.Context, before time.Time) (int, error) {
	tag, err := t.tx.Exec(ctx, purgeOutcomesSQL, before)
	if err != nil {
		return 0, t.fail(ctx, "purge outcomes", err)
	}
	return int(tag.RowsAffected()), nil
}

// OutcomeInsert implements stockade.PaymentTx with one INSERT … ON
// CONFLICT DO NOTHING RETURNING of the outcomes in event id order. It
// waits for a transaction inserting one of the ids and then inserts
// nothing for it if that one committed; taking the ids in order is what
// keeps two such waits from forming a cycle.
func (t *tx) OutcomeInsert(ctx context.Context, outcomes []stockade.OutcomeRecord, at time.Time) ([]string, error) {
	if len(outcomes) == 0 {
		return nil, nil
	}
	eventIDs, paymentIDs := make([]string, len(outcomes)), make([]string, len(outcomes))
	for i, o := range outcomes {
		eventIDs[i], paymentIDs[i] = o.EventID, o.PaymentID
	}
	rows, _ := t.tx.Query(ctx, recordOutcomesSQL, eventIDs, paymentIDs, at)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("record %d outcomes", len(outcomes)), err)
	}
	slices.Sort(ids)
	return ids, nil
}

func (t *tx) OutcomeDelete(ctx context.Context, eventIDs []string) (int, error) {
	if len(eventIDs) == 0 {
		return 0, nil
	}
	tag, err := t.tx.Exec(ctx, forgetOutcomesSQL, eventIDs)
	if err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("forget %d outcomes", len(eventIDs)), err)
	}
	return int(tag.RowsAffected()), nil
}

func (t *tx) PaymentGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Payment, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	q := paymentsSQL
	if by.Lock {
		q += forUpdate
	}
	rows, _ := t.tx.Query(ctx, q, by.IDs)
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Payment, error) { return scanPayment(row) })
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("%d payments", len(by.IDs)), err)
	}
	return ps, nil
}

// paymentStatuses returns the status of the payment of each of vs, the
// reservations or holds (targets of kind) that ReservationLapseCandidates
// or HoldLapseCandidates has just read, by id; those without a payment
// are left out. It runs as a statement of its own, once the sweeper's
// variant has locked its rows: since a payment is moved only under its
// target's lock (PaymentTx: lock the target, then the payment), it then
// sees every move that could have changed one, and none can happen before
// the transaction ends. A request's candidates are not locked, and the
// engine reads the payments of those it locks again.
func paymentStatuses[T any](ctx context.Context, t *tx, what string, kind stockade.PaymentTargetKind, vs []T, id func(T) string) (map[string]stockade.PaymentStatus, error) {
	if len(vs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = id(v)
	}
	rows, _ := t.tx.Query(ctx, paymentStatusesSQL, string(kind), ids)
	statuses := map[string]stockade.PaymentStatus{}
	var target, status string
	_, err := pgx.ForEachRow(rows, []any{&target, &status}, func() error {
		statuses[target] = stockade.PaymentStatus(status)
		return nil
	})
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	return statuses, nil
}

// lastColumn is a row with one more column than a scan function of a
// record reads: the scan reads the record's, and the last goes into dest.
type lastColumn struct {
	pgx.Row
	dest any
}

func (r lastColumn) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.dest)...) }
