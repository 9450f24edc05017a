package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open stockade database file.
type DB struct {
	path string
	db   *sql.DB
}

// Open opens (creating if needed) the database file at path and checks that
// it can be read and written.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	q := url.Values{}
	for _, p := range []string{
		"journal_mode(WAL)",
		"synchronous(NORMAL)",
		"busy_timeout(5000)",
		"foreign_keys(ON)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	d := &DB{path: path, db: db}
	if err := d.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

// Path returns the file the database lives in.
func (d *DB) Path() string { return d.path }

// Ping checks that the database answers a query.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	if err := d.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlite: ping %s: %w", d.path, err)
	}
	return nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }
