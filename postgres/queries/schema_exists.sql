-- Whether the database has a stockade schema: the table of applied
-- migrations, looked up on the search path as the migrations create it.
SELECT to_regclass('schema_migrations') IS NOT NULL;
