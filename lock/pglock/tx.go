package pglock

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade/lock"
)

//go:embed lock_tx.sql
var lockTxSQL string

// LockTx takes the lock on key for the rest of transaction tx, waiting in
// PostgreSQL's lock queue if it is held, and returns a fencing token drawn
// after the lock was granted. The lock is released when tx commits or rolls
// back; there is no lease, no TTL and no Release. Use it to serialize
// writes made in the same database, in the same transaction.
//
// LockTx and Lockers with the same Options.Prefix exclude each other on the
// same key, and draw their tokens from the same sequence, so tokens keep
// rising across both.
//
// The wait ends when ctx does, with an error matching lock.ErrNotAcquired
// and the context's error; the wait is cancelled on the server and the
// connection stays open. A connection or server failure gives
// lock.ErrUnavailable wrapping the cause. After an error, roll tx back: it
// is aborted if the statement reached the server.
//
// Like a lease, the lock is not reentrant across sessions: LockTx on a key
// that a lease of the same process holds waits for that lease.
//
// If the token sequence does not exist, LockTx creates it outside tx, on a
// connection of its own opened with tx's connection configuration, so that
// rolling tx back cannot take the sequence (and the tokens it gave) away;
// see the package documentation for the DDL, to create it up front.
func LockTx(ctx context.Context, tx pgx.Tx, key string, opts *Options) (token uint64, err error) {
	if err := lock.CheckKey(key); err != nil {
		return 0, err
	}
	o := opts.withDefaults()
	id := lockID(o.Prefix, key)
	var tok *int64
	err = queryCancellable(ctx, tx, tx.Conn().PgConn(), lockTxSQL, []any{id, o.sequence()}, &tok)
	switch {
	case ctx.Err() != nil:
		return 0, errors.Join(fmt.Errorf("%w: %q", lock.ErrNotAcquired, key), ctx.Err())
	case err != nil:
		return 0, fmt.Errorf("%w: lock %q in transaction: %w", lock.ErrUnavailable, key, err)
	}
	if tok == nil { // granted, but the sequence is missing
		if tok, err = drawApart(ctx, tx.Conn().Config(), &o); err != nil {
			return 0, fmt.Errorf("%w: lock %q in transaction: %w", lock.ErrUnavailable, key, err)
		}
	}
	return uint64(*tok), nil
}

// drawApart creates the token sequence and draws a token from it on a new
// connection made with cfg, so that the DDL commits on its own. The token
// is drawn there too: a transaction that already looked the sequence up
// and found it missing keeps seeing it missing until its next transaction.
func drawApart(ctx context.Context, cfg *pgx.ConnConfig, o *Options) (*int64, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create token sequence %s: %w", o.sequence(), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return createAndDraw(ctx, conn, o)
}
