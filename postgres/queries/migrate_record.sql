-- Record migration $1 (integer version), named $2, as applied.
INSERT INTO schema_migrations (version, name) VALUES ($1, $2);
