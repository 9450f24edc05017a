-- Delete the idempotency records created before $1.
DELETE FROM idempotency WHERE created_at < $1::timestamptz;
