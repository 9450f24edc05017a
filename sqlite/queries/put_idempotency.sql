-- Insert or replace the idempotency records in ?1, a JSON array with one
-- [key, op, fingerprint, result in hex, created_at in microseconds] array
-- per record. The keys must be distinct. ("WHERE true" tells the parser
-- that ON CONFLICT belongs to the INSERT, not to the SELECT's join.)
INSERT INTO idempotency (key, op, fingerprint, result, created_at)
SELECT value ->> 0, value ->> 1, value ->> 2, unhex(value ->> 3), value ->> 4
FROM json_each(?1)
WHERE true
ON CONFLICT (key) DO UPDATE
SET op          = excluded.op,
    fingerprint = excluded.fingerprint,
    result      = excluded.result,
    created_at  = excluded.created_at;
