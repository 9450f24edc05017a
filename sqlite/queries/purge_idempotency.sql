-- Delete the idempotency records created before ?1 (microseconds).
DELETE FROM idempotency WHERE created_at < ?1;
