-- Up to ?2 (-1 for all) held holds that expired before ?1 (Unix
-- microseconds), oldest expiry first.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds
WHERE status = 'held' AND expires_at < ?1
ORDER BY expires_at, id
LIMIT ?2;
