-- Up to $2 (bigint, NULL for all) held holds that expired before $1,
-- oldest expiry first, locked; rows another transaction has locked are
-- skipped, so that concurrent sweepers take disjoint sets. Holds whose
-- payment is in flight (processing or authorized) are left out: they
-- lapse through LapsedPayments. The payment of each is one lookup of the
-- unique constraint on the target.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds h
WHERE status = 'held' AND expires_at < $1::timestamptz
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'hold' AND p.target_id = h.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT $2::bigint
FOR UPDATE OF h SKIP LOCKED;
