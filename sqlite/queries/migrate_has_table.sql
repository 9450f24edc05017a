-- 1 if the database has the table of applied migrations, 0 if not (it has
-- no stockade schema).
SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations';
