-- Up to ?2 (-1 for all) held holds that expired before ?1 (Unix
-- microseconds), oldest expiry first, but for those whose payment is in
-- flight (processing or authorized): they lapse through LapsedPayments.
-- The payment of each is one lookup of the unique constraint on the
-- target.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds
WHERE status = 'held' AND expires_at < ?1
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'hold' AND p.target_id = holds.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT ?2;
