-- Add outcome ?1 (event id) of payment ?2 (id), received at ?3 (Unix
-- microseconds), to the inbox, unless it is there: a row changed says it
-- was new.
INSERT INTO payment_inbox (event_id, payment_id, received_at)
VALUES (?1, ?2, ?3)
ON CONFLICT (event_id) DO NOTHING;
