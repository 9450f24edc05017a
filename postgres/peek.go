package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

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
		return nil, errors.Join(err, br.Close())
	}
	return &peekResults{br: br}, nil
}

func (p *peekConn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := r.br.Exec()
	return tag, r.end(err)
}

func (p *peekConn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}, err
	}
	rows, err := r.br.Query()
	if err != nil {
		err = r.end(err)
		return errRows{err}, err
	}
	return &peekRows{Rows: rows, r: r}, nil
}

func (p *peekConn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	r, err := p.send(ctx, func(b *pgx.Batch) { b.Queue(sql, args...) })
	if err != nil {
		return errRows{err}
	}
	return peekRow{row: r.br.QueryRow(), r: r}
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
	if err != nil {
		_ = r.br.Close() // the same error, or the server's skip of the rest
		return err
	}
	if _, err = r.br.Exec(); err != nil {
		_ = r.br.Close()
		return err
	}
	return r.br.Close()
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

// peekRows are a peek statement's rows: closing them ends its
// transaction.
type peekRows struct {
	pgx.Rows
	r      *peekResults
	closed bool
	err    error // the COMMIT's
}

func (p *peekRows) Next() bool {
	if p.Rows.Next() {
		return true
	}
	p.Close()
	return false
}

func (p *peekRows) Close() {
	if p.closed {
		return
	}
	p.closed = true
	p.Rows.Close()
	p.err = p.r.end(p.Rows.Err())
}

func (p *peekRows) Err() error {
	if err := p.Rows.Err(); err != nil {
		return err
	}
	return p.err
}

// peekRow is a peek statement's row: scanning it ends its transaction.
type peekRow struct {
	row pgx.Row
	r   *peekResults
}

func (p peekRow) Scan(dest ...any) error {
	err := p.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		// The statement ran: its transaction commits.
		if end := p.r.end(nil); end != nil {
			return end
		}
		return err
	}
	return p.r.end(err)
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
