package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// Options configure a Store. A nil *Options means every default.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock that another
	// process holds on the database file (a second stockade on the same
	// file, a backup) before it fails with an error wrapping
	// stockade.ErrConflict. Transactions of this Store never wait for each
	// other on the file: they queue for its one writer connection.
	// Default: 5s.
	BusyTimeout time.Duration
	// Readers is the number of read-only connections that View uses.
	// Default: 4.
	Readers int
	// ReadOnly opens an existing file for reading only: Open fails if it
	// is missing, writes nothing to it (nor switches it to WAL mode), and
	// Update and Migrate fail. For tools that must change nothing.
	// Default: false.
	ReadOnly bool
}

func (o *Options) init() Options {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if opts.Readers <= 0 {
		opts.Readers = 4
	}
	return opts
}

// Store is a stockade database in one SQLite file. It is safe for
// concurrent use.
type Store struct {
	path string
	w    *sql.DB // exactly one connection, for Update and Migrate
	r    *sql.DB // read-only connections, for View and Ping
}

var _ stockade.Store = (*Store)(nil)

// Open opens the database file at path, creating it if it is missing, in
// WAL mode, and checks that it can be written. It does not create the
// schema: call Migrate. With Options.ReadOnly it only reads.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	o := opts.init()
	busy := strconv.FormatInt(o.BusyTimeout.Milliseconds(), 10)
	if o.ReadOnly {
		return openReadOnly(ctx, path, o, busy)
	}

	// The writer: BEGIN IMMEDIATE takes the write lock at the start of the
	// transaction, so a transaction never fails half-way to upgrade it.
	// Statement journals (which a multi-row INSERT keeps, to undo itself
	// alone on a constraint failure) stay in memory instead of temp files.
	w, err := sql.Open("sqlite", dsn(path, url.Values{
		"_busy_timeout": {busy},
		"_txlock":       {"immediate"},
		"_pragma":       {"journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(ON)", "temp_store(MEMORY)"},
	}))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := checkWriter(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	// The readers: WAL lets them read the last committed state while the
	// writer writes. query_only makes any write fail.
	return withReaders(ctx, path, w, url.Values{"_busy_timeout": {busy}, "_query_only": {"1"}}, o.Readers)
}

// withReaders opens the pool of readers on the file at path with params,
// beside the writer w, and checks that the store answers. On failure it
// closes what is open, w included.
func withReaders(ctx context.Context, path string, w *sql.DB, params url.Values, readers int) (*Store, error) {
	r, err := sql.Open("sqlite", dsn(path, params))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{path: path, w: w, r: r}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openReadOnly opens the file at path for Options.ReadOnly: every
// connection in SQLite's read-only mode, which neither creates the file
// nor writes to it.
func openReadOnly(ctx context.Context, path string, o Options, busy string) (*Store, error) {
	params := url.Values{"mode": {"ro"}, "_busy_timeout": {busy}, "_query_only": {"1"}}
	w, err := sql.Open("sqlite", dsn(path, params))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	return withReaders(ctx, path, w, params, o.Readers)
}

// dsn returns the driver's name for the file at path with params.
func dsn(path string, params url.Values) string {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: params.Encode()}
	return u.String()
}

// checkWriter checks that the writer's database is in WAL mode and can be
// written.
func checkWriter(ctx context.Context, w *sql.DB) error {
	conn, err := w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal (an in-memory database cannot be shared by the connections)", mode)
	}
	return conn.Raw(func(c any) error {
		ro, ok := c.(interface{ IsReadOnly(string) (bool, error) })
		if !ok {
			return nil
		}
		readOnly, err := ro.IsReadOnly("main")
		if err == nil && readOnly {
			err = errors.New("the database is read-only")
		}
		return err
	})
}

// Path returns the file the database lives in.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers a query. It uses a read
// connection, so it does not wait for a write in progress.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return wrapf(err, "ping %s", s.path)
	}
	return nil
}

// Close closes the database. Transactions in progress fail.
func (s *Store) Close() error {
	return errors.Join(s.r.Close(), s.w.Close())
}

// Features reports what SQLite offers: no row locks, since a write
// transaction holds the whole database; no advisory locks; no SKIP LOCKED.
func (s *Store) Features() stockade.Features { return stockade.Features{} }

// Update runs fn in a write transaction on the one writer connection. Calls
// queue for it in Go, so they never meet SQLite's busy handler, except
// against another process writing the same file. fn must not call Update:
// it would wait for its own connection.
func (s *Store) Update(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return run(ctx, s.w, nil, "update", fn)
}

// View runs fn in a read transaction on a read-only connection. It sees
// the state committed when it began, and never waits for Update.
func (s *Store) View(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return run(ctx, s.r, &sql.TxOptions{ReadOnly: true}, "view", fn)
}

// Peek runs each of fn's statements on its own on the read-only
// connections: each sees the state committed when it began.
func (s *Store) Peek(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return fn(&tx{tx: s.r})
}

func run(ctx context.Context, db *sql.DB, opts *sql.TxOptions, op string, fn func(tx stockade.Tx) error) error {
	sqlTx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return wrapf(err, "%s: begin", op)
	}
	defer sqlTx.Rollback() // after Commit, a no-op; else also on panic
	if err := fn(&tx{tx: sqlTx}); err != nil {
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return wrapf(err, "%s: commit", op)
	}
	return nil
}

// wrapf wraps err, an error from the database, with the call site. An error
// that another connection holding the database caused (SQLITE_BUSY,
// SQLITE_LOCKED) also wraps stockade.ErrConflict: a retry may cure it. One
// that says the file cannot be opened or read (SQLITE_CANTOPEN,
// SQLITE_IOERR and its extended codes) wraps stockade.ErrUnavailable.
func wrapf(err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("sqlite: %s: %w: %w", msg, stockade.ErrConflict, err)
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR:
		return fmt.Errorf("sqlite: %s: %w: %w", msg, stockade.ErrUnavailable, err)
	}
	return fmt.Errorf("sqlite: %s: %w", msg, err)
}

// checkf is wrapf for a statement whose only CHECK constraint that can
// fail is on a status or state: it then also wraps a *stockade.Error with
// EInvalid and msg.
func checkf(err error, msg string, format string, args ...any) error {
	if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_CHECK {
		return fmt.Errorf("sqlite: %s: %w: %w", fmt.Sprintf(format, args...), stockade.Errorf(stockade.EInvalid, msg), err)
	}
	return wrapf(err, format, args...)
}

// sqliteCode returns the extended result code of the SQLite error in err's
// chain, or 0.
func sqliteCode(err error) int {
	if e, ok := errors.AsType[*sqlite.Error](err); ok {
		return e.Code()
	}
	return 0
}
