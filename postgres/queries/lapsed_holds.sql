-- Up to $2 (bigint, NULL for all) held holds that expired before $1,
-- oldest expiry first, locked; rows another transaction has locked are
-- skipped, so that concurrent sweepers take disjoint sets.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version
FROM holds
WHERE status = 'held' AND expires_at < $1::timestamptz
ORDER BY expires_at, id
LIMIT $2::bigint
FOR UPDATE SKIP LOCKED;
