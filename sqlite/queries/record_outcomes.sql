-- Add outcomes to the inbox, all received at ?2 (Unix microseconds),
-- unless they are there: ?1 is a JSON array with one [event id, payment
-- id] array per outcome, the event ids distinct. It returns the event ids
-- of the rows inserted, those that were new. ("WHERE true" tells the
-- parser that ON CONFLICT belongs to the INSERT, not to the SELECT's
-- join.)
INSERT INTO payment_inbox (event_id, payment_id, received_at)
SELECT value ->> 0, value ->> 1, ?2
FROM json_each(?1)
WHERE true
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id;
