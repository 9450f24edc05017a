-- Write $2 status, $3 attempts, $4 next_attempt_at (NULL for none), $5
-- retry_until, $6 last_attempt_at (NULL for none), $7 last_code, $8
-- last_error and $9 version over webhook delivery $1 (id) if its version
-- is $9 - 1.
UPDATE webhook_deliveries
SET status = $2::text, attempts = $3::integer, next_attempt_at = $4::timestamptz,
    retry_until = $5::timestamptz, last_attempt_at = $6::timestamptz, last_code = $7::integer,
    last_error = $8::text, version = $9::bigint
WHERE id = $1::text AND version = $9::bigint - 1;
