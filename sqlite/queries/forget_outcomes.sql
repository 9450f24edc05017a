-- Delete the inbox records of the event ids in ?1 (a JSON array of text).
DELETE FROM payment_inbox
WHERE event_id IN (SELECT value FROM json_each(?1));
