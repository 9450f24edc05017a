package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

var (
	//go:embed migrations/*.sql
	migrationFiles embed.FS
	//go:embed queries/migrate_table.sql
	migrateTableSQL string
	//go:embed queries/migrate_applied.sql
	migrateAppliedSQL string
	//go:embed queries/migrate_record.sql
	migrateRecordSQL string
	//go:embed queries/schema_exists.sql
	schemaExistsSQL string
	//go:embed queries/schema_version.sql
	schemaVersionSQL string
)

// migration is one file of migrations/, named NNNN_name.sql.
type migration struct {
	version int
	name    string // the file name
	sql     string
}

// migrations are the embedded migrations, by version. A malformed file
// name is a bug in the package, caught by its tests.
var migrations = mustLoadMigrations()

func mustLoadMigrations() []migration {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		panic(err)
	}
	return ms
}

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("postgres: migration %s: name is not NNNN_name.sql", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("postgres: migrations %s and %s have the same version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// Migrate brings the schema up to date: it applies, in version order,
// every embedded migration that the schema_migrations table does not list,
// each in its own transaction together with its row in schema_migrations.
//
// Each transaction first takes an advisory lock on a fixed id, so that
// several instances starting at once apply each migration exactly once:
// the others wait, then find it applied. Migrate is idempotent. Versions
// in schema_migrations that this build does not know (a newer instance
// migrated the database) are left alone.
func (s *Store) Migrate(ctx context.Context) error {
	for _, m := range migrations {
		if err := s.migrate(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion reports the newest migration applied to the database, 0
// if it has no stockade schema, and latest, the newest this build knows.
// It only reads, so a tool that must change nothing can refuse a database
// that Migrate has not brought up to date.
func (s *Store) SchemaVersion(ctx context.Context) (version, latest int, err error) {
	if len(migrations) > 0 {
		latest = migrations[len(migrations)-1].version
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, schemaExistsSQL).Scan(&exists); err != nil {
		return 0, latest, mapError(ctx, "schema version", "", err)
	}
	if !exists {
		return 0, latest, nil
	}
	if err := s.pool.QueryRow(ctx, schemaVersionSQL).Scan(&version); err != nil {
		return 0, latest, mapError(ctx, "schema version", "", err)
	}
	return version, latest, nil
}

func (s *Store) migrate(ctx context.Context, m migration) error {
	what := "migrate " + m.name
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, advisoryLockSQL, migrateLockID); err != nil {
			return mapError(ctx, what, "", err)
		}
		// Simple protocol (no arguments): a statement can be run before
		// the table it names exists, and a file may hold several.
		if _, err := tx.Exec(ctx, migrateTableSQL); err != nil {
			return mapError(ctx, what, "", err)
		}
		var applied bool
		if err := tx.QueryRow(ctx, migrateAppliedSQL, m.version).Scan(&applied); err != nil {
			return mapError(ctx, what, "", err)
		}
		if applied {
			return nil
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return mapError(ctx, what, "", err)
		}
		if _, err := tx.Exec(ctx, migrateRecordSQL, m.version, m.name); err != nil {
			return mapError(ctx, what, "", err)
		}
		return nil
	})
}
