-- The newest migration applied, 0 if none.
SELECT coalesce(max(version), 0) FROM schema_migrations;
