-- As lapsed_holds.sql, but only the holds of event $3, and for a hold that
-- needs the event's seats: it waits for rows another transaction (a
-- sweeper) has locked instead of skipping them, and READ COMMITTED
-- re-checks the status and expiry once it has the lock, so holds that
-- transaction expired (or extended) are left out.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds h
WHERE status = 'held' AND expires_at < $1::timestamptz AND show_id = $3::text
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'hold' AND p.target_id = h.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT $2::bigint
FOR UPDATE OF h;
