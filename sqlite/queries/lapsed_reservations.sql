-- Up to ?2 (-1 for all) held reservations that expired before ?1 (Unix
-- microseconds), oldest expiry first.
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner
FROM reservations
WHERE status = 'held' AND expires_at < ?1
ORDER BY expires_at, id
LIMIT ?2;
