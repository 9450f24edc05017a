-- Delete the idempotency record of key $1, if any.
DELETE FROM idempotency WHERE key = $1::text;
