package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockade/stockade"
)

// commit commits ptx and returns nil only when the commit is known to have
// happened as the server's configuration asks: with a synchronous
// standby, once the standby has it.
//
// The COMMIT is never cancelled. A cancel request that reaches a backend
// waiting for its synchronous standby does not undo the commit: the
// server stops waiting, warns that the transaction "has already committed
// locally, but might not have been replicated to the standby", and
// reports success, which a failover then turns into a lost acknowledged
// write. So the COMMIT runs on a context that does not end with ctx, and
// when ctx has ended and CancelGrace passed without an answer, commit
// closes the connection instead: the caller learns that the outcome is
// unknown (stockade.ErrUnavailable), and a retry with the same
// idempotency key finds the effect or makes it. A warning that the
// server sends during the COMMIT (the wait cut short by an operator's
// cancel or a statement_timeout) makes the outcome unknown too.
//
// A transaction whose context ended before its COMMIT rolls back: it is
// too late to answer its caller with a success.
func (s *Store) commit(ctx context.Context, ptx pgx.Tx) error {
	if ctx.Err() != nil {
		s.rollback(ctx, ptx)
		return mapError(ctx, "commit", "", ctx.Err())
	}
	conn := ptx.Conn().PgConn()
	s.commits.start(conn)
	var (
		done = make(chan struct{})
		cut  atomic.Bool
	)
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(s.grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			cut.Store(true)
			conn.Conn().Close() // the COMMIT's read fails; no cancel request goes out
		}
	})
	err := ptx.Commit(context.WithoutCancel(ctx))
	close(done)
	stop()
	warning := s.commits.end(conn)
	switch {
	case err != nil && cut.Load():
		return fmt.Errorf("postgres: commit: %w: no answer %v after the deadline, the connection was closed and the outcome is unknown: %w",
			stockade.ErrUnavailable, s.grace, errors.Join(ctx.Err(), err))
	case err != nil:
		if _, refused := errors.AsType[*pgconn.PgError](err); refused {
			// The server answered with an error: it rolled back.
			return mapError(ctx, "commit", "", err)
		}
		// No answer (the connection broke): the server may have
		// committed before it went, so the outcome is unknown.
		return fmt.Errorf("postgres: commit: %w: the outcome is unknown: %w", stockade.ErrUnavailable, err)
	case warning != nil:
		// The server stops output after such a warning only when it
		// terminates the session; the connection is fine otherwise.
		return fmt.Errorf("postgres: commit: %w: the server warned during the commit, which may not be durable: %s: %s",
			stockade.ErrUnavailable, warning.Message, warning.Detail)
	}
	return nil
}

// commitWatch keeps the warnings the server sends on each connection
// while it runs a COMMIT. Open sets its notice method as the pool's
// notice handler; a pool made by the caller reports none.
type commitWatch struct {
	mu      sync.Mutex
	running map[*pgconn.PgConn]*pgconn.Notice // nil until a warning comes
}

func newCommitWatch() *commitWatch {
	return &commitWatch{running: make(map[*pgconn.PgConn]*pgconn.Notice)}
}

// start watches conn's notices until end.
func (w *commitWatch) start(conn *pgconn.PgConn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running[conn] = nil
}

// end stops watching conn and returns the first warning it had, if any.
func (w *commitWatch) end(conn *pgconn.PgConn) *pgconn.Notice {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.running[conn]
	delete(w.running, conn)
	return n
}

// notice is a pgconn.NoticeHandler. It keeps the first WARNING (by its
// unlocalized severity: lc_messages changes the text) that a watched
// connection receives.
func (w *commitWatch) notice(conn *pgconn.PgConn, n *pgconn.Notice) {
	if n.SeverityUnlocalized != "WARNING" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if first, ok := w.running[conn]; ok && first == nil {
		w.running[conn] = n
	}
}

// chainNotice returns a handler that calls both handlers; first may be nil.
func chainNotice(first, then pgconn.NoticeHandler) pgconn.NoticeHandler {
	if first == nil {
		return then
	}
	return func(c *pgconn.PgConn, n *pgconn.Notice) {
		first(c, n)
		then(c, n)
	}
}

// inRecoverySQL asks whether the server is a standby in recovery.
const inRecoverySQL = "SELECT pg_is_in_recovery()"

// standbyError is the error of op on a standby in recovery, cause the
// server's refusal if it gave one.
func standbyError(op string, cause error) error {
	err := fmt.Errorf("postgres: %s: %w: the server is a standby in recovery, it takes no writes", op, stockade.ErrUnavailable)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// inRecovery reports whether err, the failure of a read-write BEGIN on
// conn, is the server refusing it because it is a standby ("cannot set
// transaction read-write mode during recovery", SQLSTATE 0A000, a code
// too general to tell by): it asks the server.
func inRecovery(ctx context.Context, conn *pgxpool.Conn, err error) bool {
	if _, ok := errors.AsType[*pgconn.PgError](err); !ok {
		return false
	}
	var recovering bool
	return conn.QueryRow(ctx, inRecoverySQL).Scan(&recovering) == nil && recovering
}

// drop closes conn, so that the pool, when conn is released, destroys it
// and connects afresh.
func (s *Store) drop(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	_ = conn.Conn().Close(ctx)
}
