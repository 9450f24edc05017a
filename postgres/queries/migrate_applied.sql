-- Whether migration $1 (integer version) has been applied.
SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1);
