package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// Payments: the payments of reservations, holds and orders, their history
// and the inbox of the outcomes applied to them. See
// migrations/0008_payments.sql. As everywhere in this store, the lock
// arguments are ignored: an Update holds the whole database.

var _ stockade.PaymentTx = (*tx)(nil)

var (
	insertPaymentSQL          = query("insert_payment.sql")
	paymentSQL                = query("payment.sql")
	paymentForSQL             = query("payment_for.sql")
	updatePaymentSQL          = query("update_payment.sql")
	listPaymentsSQL           = query("list_payments.sql")
	paymentLapseCandidatesSQL = query("payment_lapse_candidates.sql")
	appendPaymentChangesSQL   = query("append_payment_changes.sql")
	paymentChangesSQL         = query("payment_changes.sql")
	purgeOutcomesSQL          = query("purge_outcomes.sql")
	recordOutcomesSQL         = query("record_outcomes.sql")
	forgetOutcomesSQL         = query("forget_outcomes.sql")
	paymentsSQL               = query("payments.sql")
)

// invalidPayment is the error of a payment that a CHECK constraint
// refused.
const invalidPayment = "invalid payment target kind, amount, currency, status, resolution or version"

// stuckMicros is a payment's stuck time as stored: NULL for never.
func stuckMicros(at time.Time) any {
	if at.IsZero() {
		return nil
	}
	return micros(at)
}

// PaymentInsert wraps stockade.ErrConflict when the id or the target has
// a payment, as the PostgreSQL store does: a writer here holds the whole
// database, so a caller that checked PaymentGetByTarget in the same transaction
// meets it only for an id that collides, which a retry with a new id
// cures.
func (t *tx) PaymentInsert(ctx context.Context, p stockade.Payment) error {
	_, err := t.tx.ExecContext(ctx, insertPaymentSQL, p.ID, string(p.Target.Kind), p.Target.ID, p.Amount, p.Currency,
		string(p.Status), string(p.Resolution), p.Order, p.Booking, p.Owner, micros(p.CreatedAt), micros(p.UpdatedAt),
		stuckMicros(p.StuckAt), p.Version, marshalMetadata(p.Metadata))
	if err == nil {
		return nil
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("sqlite: insert payment %s of %s: id or target has a payment: %w: %w", p.ID, p.Target, stockade.ErrConflict, err)
	}
	return checkf(err, invalidPayment, "insert payment %s of %s", p.ID, p.Target)
}

// scanPayment reads a payment's columns: id, target_kind, target_id,
// amount, currency, status, resolution, order_id, booking_id, owner,
// created_at, updated_at, stuck_at, version.
func scanPayment(row rowScanner) (stockade.Payment, error) {
	var (
		p                        stockade.Payment
		kind, status, resolution string
		created, updated         int64
		stuck                    sql.NullInt64
		meta                     string
	)
	err := row.Scan(&p.ID, &kind, &p.Target.ID, &p.Amount, &p.Currency, &status, &resolution, &p.Order, &p.Booking,
		&p.Owner, &created, &updated, &stuck, &p.Version, &meta)
	if err != nil {
		return p, err
	}
	if err := unmarshalMetadata(meta, &p.Metadata); err != nil {
		return p, err
	}
	p.Target.Kind, p.Status, p.Resolution = stockade.PaymentTargetKind(kind), stockade.PaymentStatus(status), stockade.PaymentResolution(resolution)
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	if stuck.Valid {
		p.StuckAt = fromMicros(stuck.Int64)
	}
	return p, nil
}

// PaymentGet ignores Lock; see tx.
func (t *tx) PaymentGet(ctx context.Context, by stockade.ByID) (stockade.Payment, error) {
	p, err := scanPayment(t.tx.QueryRowContext(ctx, paymentSQL, by.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Payment{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("payment %q not found", by.ID))
	}
	if err != nil {
		return stockade.Payment{}, wrapf(err, "payment %s", by.ID)
	}
	return p, nil
}

// PaymentGetByTarget ignores Lock; see tx.
func (t *tx) PaymentGetByTarget(ctx context.Context, by stockade.ByTarget) (stockade.Payment, bool, error) {
	p, err := scanPayment(t.tx.QueryRowContext(ctx, paymentForSQL, string(by.Target.Kind), by.Target.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Payment{}, false, nil
	}
	if err != nil {
		return stockade.Payment{}, false, wrapf(err, "payment of %s", by.Target)
	}
	return p, true, nil
}

func (t *tx) PaymentUpdate(ctx context.Context, p stockade.Payment) (bool, error) {
	res, err := t.tx.ExecContext(ctx, updatePaymentSQL, p.ID, string(p.Status), string(p.Resolution), p.Order, p.Booking,
		stuckMicros(p.StuckAt), micros(p.UpdatedAt), p.Version)
	if err != nil {
		return false, checkf(err, invalidPayment, "update payment %s to version %d", p.ID, p.Version)
	}
	return affected(res, "update payment %s to version %d", p.ID, p.Version)
}

// PaymentList appends to list_payments.sql only the conditions in use,
// so that each combination gets a plan on its index.
func (t *tx) PaymentList(ctx context.Context, f stockade.PaymentFilter) ([]stockade.Payment, error) {
	var (
		where []string
		args  []any
	)
	cond := func(expr string, vs ...any) {
		where = append(where, expr)
		args = append(args, vs...)
	}
	if f.Status != "" {
		cond(`status = ?`, string(f.Status))
	}
	if f.Stuck {
		cond(`stuck_at IS NOT NULL AND resolution = ''`)
	}
	if f.Resolution != nil {
		cond(`resolution = ?`, string(*f.Resolution))
	}
	if f.Owner != "" {
		cond(`owner = ?`, f.Owner)
	}
	metadataConds(f.Metadata, cond)
	if !f.BeforeAt.IsZero() {
		cond(`(created_at, id) < (?, ?)`, micros(f.BeforeAt), f.BeforeID)
	}
	var q strings.Builder
	q.WriteString(listPaymentsSQL)
	if len(where) > 0 {
		q.WriteString(`WHERE ` + strings.Join(where, ` AND `) + "\n")
	}
	q.WriteString(`ORDER BY created_at DESC, id DESC LIMIT ?`)
	return queryAll(ctx, t, "list payments", scanPayment, q.String(), append(args, f.Limit)...)
}

// PaymentLapseCandidates takes no locks (see tx).
func (t *tx) PaymentLapseCandidates(ctx context.Context, q stockade.PaymentLapseQuery) ([]stockade.PaymentLapseCandidate, error) {
	args := []any{micros(q.TargetExpiredBefore), micros(q.After.ExpiresAt), q.After.ID, sqliteLimit(q.Limit)}
	return queryAll(ctx, t, "payment lapse candidates", func(row rowScanner) (stockade.PaymentLapseCandidate, error) {
		var c stockade.PaymentLapseCandidate
		var expires int64
		var err error
		c.Payment, err = scanPayment(lastColumn{row, &expires})
		c.TargetExpiresAt = fromMicros(expires)
		return c, err
	}, paymentLapseCandidatesSQL, args...)
}

// PaymentChangeAppend refuses a change of a payment that does not exist
// with ENotFound, and a status or resolution outside the domain's
// constants with EInvalid.
func (t *tx) PaymentChangeAppend(ctx context.Context, cs ...stockade.PaymentChange) error {
	err := t.insertRows(ctx, appendPaymentChangesSQL, 7, len(cs), func(i int, row []any) []any {
		c := cs[i]
		return append(row, c.PaymentID, string(c.From), string(c.To), string(c.Resolution), micros(c.At), c.Actor, c.Reason)
	})
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("append %d payment changes", len(cs))
	if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return fmt.Errorf("sqlite: %s: %w: %w", what, paymentsNotFound(cs), err)
	}
	return checkf(err, "invalid payment status or resolution", "%s", what)
}

// paymentsNotFound is the error of changes of which one names a payment
// that does not exist: SQLite does not say which, unless all name one.
func paymentsNotFound(cs []stockade.PaymentChange) *stockade.Error {
	for _, c := range cs[1:] {
		if c.PaymentID != cs[0].PaymentID {
			return stockade.Errorf(stockade.ENotFound, "a payment of the changes not found")
		}
	}
	return stockade.Errorf(stockade.ENotFound, fmt.Sprintf("payment %q not found", cs[0].PaymentID))
}

func (t *tx) PaymentChangeList(ctx context.Context, paymentID string) ([]stockade.PaymentChange, error) {
	return queryAll(ctx, t, "changes of payment "+paymentID, func(row rowScanner) (stockade.PaymentChange, error) {
		var (
			c                    stockade.PaymentChange
			from, to, resolution string
			at                   int64
		)
		err := row.Scan(&c.PaymentID, &from, &to, &resolution, &at, &c.Actor, &c.Reason)
		c.From, c.To, c.Resolution = stockade.PaymentStatus(from), stockade.PaymentStatus(to), stockade.PaymentResolution(resolution)
		c.At = fromMicros(at)
		return c, err
	}, paymentChangesSQL, paymentID)
}

func (t *tx) OutcomePurge(ctx context.Context, before time.Time) (int, error) {
	res, err := t.tx.ExecContext(ctx, purgeOutcomesSQL, micros(before))
	if err != nil {
		return 0, wrapf(err, "purge outcomes")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "purge outcomes")
	}
	return int(n), nil
}

// OutcomeInsert is one INSERT … ON CONFLICT DO NOTHING RETURNING of rows
// read from a JSON array, as IdempotencyPut is: one statement however
// many outcomes, binding two parameters. JSON carries the ids unchanged
// as long as they are UTF-8, which stockade.ValidateID requires. With one
// writer at a time, no record is being written by another transaction
// while it runs.
func (t *tx) OutcomeInsert(ctx context.Context, outcomes []stockade.OutcomeRecord, at time.Time) ([]string, error) {
	if len(outcomes) == 0 {
		return nil, nil
	}
	pairs := make([][2]string, len(outcomes))
	for i, o := range outcomes {
		pairs[i] = [2]string{o.EventID, o.PaymentID}
	}
	list, err := jsonText(pairs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: record %d outcomes: %w", len(outcomes), err)
	}
	ids, err := queryAll(ctx, t, fmt.Sprintf("record %d outcomes", len(outcomes)), func(row rowScanner) (string, error) {
		var id string
		err := row.Scan(&id)
		return id, err
	}, recordOutcomesSQL, list, micros(at))
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return ids, nil
}

func (t *tx) OutcomeDelete(ctx context.Context, eventIDs []string) (int, error) {
	if len(eventIDs) == 0 {
		return 0, nil
	}
	list, err := jsonText(eventIDs)
	if err != nil {
		return 0, fmt.Errorf("sqlite: forget %d outcomes: %w", len(eventIDs), err)
	}
	res, err := t.tx.ExecContext(ctx, forgetOutcomesSQL, list)
	if err != nil {
		return 0, wrapf(err, "forget %d outcomes", len(eventIDs))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "forget %d outcomes", len(eventIDs))
	}
	return int(n), nil
}

// PaymentGetMany ignores Lock; see tx.
func (t *tx) PaymentGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Payment, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	list, err := jsonText(by.IDs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %d payments: %w", len(by.IDs), err)
	}
	return queryAll(ctx, t, fmt.Sprintf("%d payments", len(by.IDs)), scanPayment, paymentsSQL, list)
}
