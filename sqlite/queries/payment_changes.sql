-- The history of payment ?1 (id), oldest first.
SELECT payment_id, from_status, to_status, resolution, at, actor, reason
FROM payment_changes
WHERE payment_id = ?1
ORDER BY id;
