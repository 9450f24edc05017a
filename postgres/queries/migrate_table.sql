-- The applied migrations, created on first use (under the migration lock:
-- concurrent CREATE TABLE IF NOT EXISTS can fail).
CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
);
