-- Delete the inbox records of the event ids $1 (text[]).
DELETE FROM payment_inbox WHERE event_id = ANY ($1::text[]);
