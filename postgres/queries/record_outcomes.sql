-- Add outcomes to the inbox, given as parallel arrays ($1 event_id, $2
-- payment_id, the event ids distinct), all received at $3, unless they
-- are there: it returns the event ids of the rows inserted, those that
-- were new, in no order. A transaction still inserting one of the ids is
-- waited for; if it commits, this inserts nothing for that id. The rows
-- are inserted in event id order, so two transactions recording
-- overlapping sets wait for each other in that order, never in a cycle.
INSERT INTO payment_inbox (event_id, payment_id, received_at)
SELECT o.event_id, o.payment_id, $3::timestamptz
FROM unnest($1::text[], $2::text[]) AS o (event_id, payment_id)
ORDER BY o.event_id COLLATE "C"
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id;
