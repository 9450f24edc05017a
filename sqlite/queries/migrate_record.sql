-- Record migration ?1 (version), named ?2, as applied at ?3 (Unix
-- microseconds).
INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3);
