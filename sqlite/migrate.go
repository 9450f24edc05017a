package sqlite

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// migrationFiles are the schema's versions: migrations/NNNN_name.sql,
// numbered from 1 without gaps. A released migration is never edited; a
// change to the schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string // the file name
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(names)) // Glob sorts: 0001 before 0002
	for i, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		prefix, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: want a name starting with %04d_", name, i+1)
		}
		b, err := migrationFiles.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	return ms, nil
}

// Migrate brings the schema up to date: it applies each embedded migration
// not yet recorded in schema_migrations, each in its own transaction with
// its record, so a failure leaves the schema at the last good version. It
// is a no-op on an up-to-date database, safe to run from several processes
// at once, and refuses a database migrated by a newer stockade.
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	_, err = s.w.ExecContext(ctx, migrateTableSQL)
	if err != nil {
		return wrapf(err, "migrate %s", s.path)
	}
	for _, m := range ms {
		if err := s.apply(ctx, m, len(ms)); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion reports the newest migration applied to the database, 0
// if it has no stockade schema, and latest, the newest this build knows.
// It only reads, so a tool that must change nothing (on a Store opened
// with Options.ReadOnly) can refuse a database that Migrate has not
// brought up to date.
func (s *Store) SchemaVersion(ctx context.Context) (version, latest int, err error) {
	ms, err := migrations()
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	latest = len(ms)
	var tables int
	err = s.r.QueryRowContext(ctx, migrateHasTableSQL).Scan(&tables)
	if err != nil {
		return 0, latest, wrapf(err, "schema version %s", s.path)
	}
	if tables == 0 {
		return 0, latest, nil
	}
	err = s.r.QueryRowContext(ctx, migrateVersionSQL).Scan(&version)
	if err != nil {
		return 0, latest, wrapf(err, "schema version %s", s.path)
	}
	return version, latest, nil
}

// apply applies m unless it has been; latest is the newest version this
// binary knows.
func (s *Store) apply(ctx context.Context, m migration, latest int) error {
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one migrator at a time
	if err != nil {
		return wrapf(err, "migrate %s: begin", s.path)
	}
	defer tx.Rollback()
	var applied, newest int
	err = tx.QueryRowContext(ctx, migrateAppliedSQL, m.version).Scan(&applied, &newest)
	if err != nil {
		return wrapf(err, "migrate %s", s.path)
	}
	if newest > latest {
		return fmt.Errorf("sqlite: migrate %s: the schema is at version %d, newer than this binary's %d", s.path, newest, latest)
	}
	if applied > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return wrapf(err, "migrate %s: %s", s.path, m.name)
	}
	_, err = tx.ExecContext(ctx, migrateRecordSQL, m.version, m.name, micros(time.Now()))
	if err != nil {
		return wrapf(err, "migrate %s: %s", s.path, m.name)
	}
	if err := tx.Commit(); err != nil {
		return wrapf(err, "migrate %s: %s: commit", s.path, m.name)
	}
	return nil
}
