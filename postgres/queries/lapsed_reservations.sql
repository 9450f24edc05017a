-- Up to $2 (bigint, NULL for all) held reservations that expired before
-- $1, oldest expiry first, locked; rows another transaction has locked are
-- skipped, so that concurrent sweepers take disjoint sets.
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner
FROM reservations
WHERE status = 'held' AND expires_at < $1::timestamptz
ORDER BY expires_at, id
LIMIT $2::bigint
FOR UPDATE SKIP LOCKED;
