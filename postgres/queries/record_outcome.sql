-- Add outcome $1 (event id) of payment $2 (id), received at $3, to the
-- inbox, unless it is there: a row inserted says it was new. A
-- transaction still inserting the same id is waited for; if it commits,
-- this inserts nothing.
INSERT INTO payment_inbox (event_id, payment_id, received_at)
VALUES ($1::text, $2::text, $3::timestamptz)
ON CONFLICT (event_id) DO NOTHING;
