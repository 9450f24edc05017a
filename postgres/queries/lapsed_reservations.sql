-- Up to $2 (bigint, NULL for all) held reservations that expired before
-- $1, oldest expiry first, locked; rows another transaction has locked are
-- skipped, so that concurrent sweepers take disjoint sets. Reservations
-- whose payment is in flight (processing or authorized) are left out:
-- they lapse through LapsedPayments. The payment of each is one lookup of
-- the unique constraint on the target.
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner
FROM reservations r
WHERE status = 'held' AND expires_at < $1::timestamptz
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'reservation' AND p.target_id = r.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT $2::bigint
FOR UPDATE OF r SKIP LOCKED;
