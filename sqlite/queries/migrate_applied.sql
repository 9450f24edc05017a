-- Whether migration ?1 (version) has been applied (1 or 0), and the newest
-- version applied (0 if none).
SELECT count(*) FILTER (WHERE version = ?1), coalesce(max(version), 0)
FROM schema_migrations;
