package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// lazyTx is the transaction of an Update or View. Its BEGIN goes out with
// its first statement, in one pipeline (pgx.Batch.BeginTx), which saves
// the round trip that a BEGIN alone costs; the statements after the first
// run on the transaction that began. A function that runs no statement
// begins nothing.
type lazyTx struct {
	conn *pgx.Conn
	opts pgx.TxOptions
	tx   pgx.Tx // once the first statement went out
	// beginErr is the BEGIN's failure: the transaction never began.
	beginErr error
}

// begun runs before each statement: it reports whether the transaction
// began, or has failed to, and begins it alone for a statement that
// cannot go in a pipeline (args gives a query mode, which a pipeline's
// statements cannot have).
func (l *lazyTx) begun(ctx context.Context, args []any) bool {
	if l.tx == nil && l.beginErr == nil && hasMode(args) {
		if l.tx, l.beginErr = l.conn.BeginTx(ctx, l.opts); l.beginErr != nil {
			l.tx = nil
		}
	}
	return l.tx != nil || l.beginErr != nil
}

// hasMode reports whether args begin with a pgx.QueryExecMode.
func hasMode(args []any) bool {
	if len(args) == 0 {
		return false
	}
	_, ok := args[0].(pgx.QueryExecMode)
	return ok
}

// first sends the transaction's first statements, which queue queues,
// after its BEGIN, and reads the BEGIN's result.
func (l *lazyTx) first(ctx context.Context, queue func(b *pgx.Batch)) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	b.BeginTx(l.opts)
	queue(b)
	br := l.conn.SendBatch(ctx, b)
	l.tx = br.Tx()
	if _, err := br.Exec(); err != nil {
		l.beginErr = err
		return nil, closeBatch(br, err)
	}
	return br, nil
}

func (l *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if l.begun(ctx, args) {
		if l.beginErr != nil {
			return pgconn.CommandTag{}, l.beginErr
		}
		return l.tx.Exec(ctx, sql, args...)
	}
	br, err := l.first(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, closeBatch(br, err)
}

func (l *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if l.begun(ctx, args) {
		if l.beginErr != nil {
			return errRows{l.beginErr}, l.beginErr
		}
		return l.tx.Query(ctx, sql, args...)
	}
	br, err := l.first(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}, err
	}
	return queryBatch(br, func(err error) error { return closeBatch(br, err) })
}

func (l *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if l.begun(ctx, args) {
		if l.beginErr != nil {
			return errRows{l.beginErr}
		}
		return l.tx.QueryRow(ctx, sql, args...)
	}
	br, err := l.first(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}
	}
	return batchRow{row: br.QueryRow(), end: func(err error) error { return closeBatch(br, err) }}
}

func (l *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if l.begun(ctx, nil) {
		if l.beginErr != nil {
			return pgx.FailedBatchResults(b, l.beginErr)
		}
		return l.tx.SendBatch(ctx, b)
	}
	br, err := l.first(ctx, func(all *pgx.Batch) { all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...) })
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return br
}

// closeBatch closes br, whose last result read failed with err if err is
// not nil, and returns the first error.
func closeBatch(br pgx.BatchResults, err error) error {
	if err != nil {
		_ = br.Close() // the same error, or the server's skip of the rest
		return err
	}
	return br.Close()
}

// queryBatch reads the next result of br as rows, which end once closed.
func queryBatch(br pgx.BatchResults, end func(err error) error) (pgx.Rows, error) {
	rows, err := br.Query()
	if err != nil {
		err = end(err)
		return errRows{err}, err
	}
	return &batchRows{Rows: rows, end: end}, nil
}

// batchRows are the rows of a statement sent in a pipeline with others,
// or in a transaction of its own: closing them ends what they are part
// of (end).
type batchRows struct {
	pgx.Rows
	end    func(err error) error
	closed bool
	err    error // end's
}

func (b *batchRows) Next() bool {
	if b.Rows.Next() {
		return true
	}
	b.Close()
	return false
}

func (b *batchRows) Close() {
	if b.closed {
		return
	}
	b.closed = true
	b.Rows.Close()
	b.err = b.end(b.Rows.Err())
}

func (b *batchRows) Err() error {
	if err := b.Rows.Err(); err != nil {
		return err
	}
	return b.err
}

// batchRow is the row of a statement sent in a pipeline with others, or
// in a transaction of its own: scanning it ends what it is part of (end).
type batchRow struct {
	row pgx.Row
	end func(err error) error
}

func (b batchRow) Scan(dest ...any) error {
	err := b.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		// The statement ran and found nothing: the rest goes on.
		if end := b.end(nil); end != nil {
			return end
		}
		return err
	}
	return b.end(err)
}

// errRows are the rows, and the row, of a statement that could not run.
type errRows struct{ err error }

func (e errRows) Close()                                       {}
func (e errRows) Err() error                                   { return e.err }
func (e errRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (e errRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (e errRows) Next() bool                                   { return false }
func (e errRows) Scan(...any) error                            { return e.err }
func (e errRows) Values() ([]any, error)                       { return nil, e.err }
func (e errRows) RawValues() [][]byte                          { return nil }
func (e errRows) Conn() *pgx.Conn                              { return nil }
func (e errRows) TypeMap() *pgtype.Map                         { return nil }
