-- As hold_lapse_candidates.sql, but only the holds of event $5, and for a
-- hold that needs the event's seats: it waits for rows another
-- transaction (a sweeper) has locked instead of skipping them, and READ
-- COMMITTED re-checks the status and expiry once it has the lock, so
-- holds that transaction expired (or extended) are left out.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds h
WHERE status = 'held' AND expires_at < $1::timestamptz AND show_id = $5::text
  AND (expires_at, id) > ($2::timestamptz, $3::text)
ORDER BY expires_at, id
LIMIT $4::bigint
FOR UPDATE OF h;
