package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// Peek implements stockade.Store. Each statement of fn runs in a
// read-only transaction of its own, sent in one round trip with its BEGIN
// and COMMIT (a pipeline the server answers at once): a read sees what
// had committed when it began and takes no lock, and a write fails. A
// transaction of one statement this way costs one round trip instead of
// three.
func (s *Store) Peek(ctx context.Context, fn func(tx stockade.Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return mapError(ctx, "peek", "", err)
	}
	defer conn.Release() // a connection left in a transaction or closed is destroyed
	t := &tx{tx: &peekConn{conn: conn.Conn()}, readOnly: true}
	err = fn(t)
	if conn.Conn().PgConn().TxStatus() != 'I' {
		// A statement failed, and the server skipped its COMMIT: end
		// the transaction it left open.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.grace)
		_, _ = conn.Exec(rctx, "rollback")
		cancel()
	}
	switch {
	case err != nil:
		return err
	case t.failed != nil:
		return fmt.Errorf("postgres: peek: %w", t.failed)
	}
	return nil
}

// beginPeek begins each statement's transaction in a Peek.
const beginPeek = "begin isolation level read committed read only"

// peekConn runs each statement it is given on conn as a transaction of
// its own, pipelined with its BEGIN and COMMIT (see Store.Peek).
type peekConn struct{ conn *pgx.Conn }

// send sends the statements that queue queues, between a BEGIN and a
// COMMIT, and reads the BEGIN's result. On an error the results are
// closed.
func (p *peekConn) send(ctx context.Context, queue func(b *pgx.Batch)) (*peekResults, error) {
	b := &pgx.Batch{}
	b.Queue(beginPeek)
	queue(b)
	b.Queue("commit")
	br := p.conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		return nil, closeBatch(br, err)
	}
	return &peekResults{br: br}, nil
}

// alone begins the transaction of a statement that cannot go in a
// pipeline (its args give a query mode): it costs three round trips.
func (p *peekConn) alone(ctx context.Context) (pgx.Tx, func(err error) error, error) {
	tx, err := p.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly})
	end := func(err error) error {
		if err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		return tx.Commit(ctx)
	}
	return tx, end, err
}

func (p *peekConn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if hasMode(args) {
		tx, end, err := p.alone(ctx)
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		tag, err := tx.Exec(ctx, sql, args...)
		return tag, end(err)
	}
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := r.br.Exec()
	return tag, r.end(err)
}

func (p *peekConn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if hasMode(args) {
		tx, end, err := p.alone(ctx)
		if err != nil {
			return errRows{err}, err
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			err = end(err)
			return errRows{err}, err
		}
		return &batchRows{Rows: rows, end: end}, nil
	}
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}, err
	}
	return queryBatch(r.br, r.end)
}

func (p *peekConn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if hasMode(args) {
		tx, end, err := p.alone(ctx)
		if err != nil {
			return errRows{err}
		}
		return batchRow{row: tx.QueryRow(ctx, sql, args...), end: end}
	}
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}
	}
	return batchRow{row: r.br.QueryRow(), end: r.end}
}

func (p *peekConn) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	r, err := p.send(ctx, func(all *pgx.Batch) { all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...) })
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	r.left = len(b.QueuedQueries)
	return r
}

// peekResults are the results of a peek's statements after its BEGIN's,
// with its COMMIT's last. As a pgx.BatchResults it gives the results of
// the statements alone, and reads the COMMIT's once it is closed.
type peekResults struct {
	br     pgx.BatchResults
	left   int // statements whose results were not read, as a batch
	closed bool
	err    error
}

// end reads the COMMIT's result and closes the results, unless err, the
// statement's, says the server skipped it. It returns the first error.
func (r *peekResults) end(err error) error {
	if err == nil {
		_, err = r.br.Exec()
	}
	return closeBatch(r.br, err)
}

func (r *peekResults) Exec() (pgconn.CommandTag, error) {
	r.left--
	return r.br.Exec()
}

func (r *peekResults) Query() (pgx.Rows, error) {
	r.left--
	return r.br.Query()
}

func (r *peekResults) QueryRow() pgx.Row {
	r.left--
	return r.br.QueryRow()
}

// Tx implements pgx.BatchResults: the peek's transactions are its own.
func (r *peekResults) Tx() pgx.Tx { return nil }

func (r *peekResults) Close() error {
	if r.closed {
		return r.err
	}
	r.closed = true
	var err error
	for ; r.left > 0 && err == nil; r.left-- {
		_, err = r.br.Exec()
	}
	r.err = r.end(err)
	return r.err
}
