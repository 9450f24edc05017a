-- As hold_lapse_candidates.sql, but only the holds of show $5, for a hold
-- that needs the show's seats, and without locks: the engine locks those
-- that lapse (holds.sql with FOR UPDATE) and checks them again, so that a
-- hold its payment keeps past its expiry is never locked by the holds of
-- its show.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds h
WHERE status = 'held' AND expires_at < $1::timestamptz AND show_id = $5::text
  AND (expires_at, id) > ($2::timestamptz, $3::text)
ORDER BY expires_at, id
LIMIT $4::bigint;
