package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestSchemaVersion: 0 on a database without the schema, which
// SchemaVersion does not create; the latest version after Migrate.
func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := newDatabase(t)
	s := openStore(t, url)
	version, latest, err := s.SchemaVersion(ctx)
	if err != nil || version != 0 || latest < 1 {
		t.Fatalf("SchemaVersion of an empty database = %d, %d, %v; want 0 and the latest", version, latest, err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Fatalf("SchemaVersion left %d tables in an empty database", tables)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	version, latest, err = s.SchemaVersion(ctx)
	if err != nil || version != latest {
		t.Fatalf("SchemaVersion after Migrate = %d, %d, %v; want equal", version, latest, err)
	}
}
