-- The newest migration applied, 0 if none has been.
SELECT coalesce(max(version), 0) FROM schema_migrations;
