-- As lapsed_holds.sql, but only the holds of event ?3.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds
WHERE status = 'held' AND show_id = ?3 AND expires_at < ?1
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'hold' AND p.target_id = holds.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT ?2;
