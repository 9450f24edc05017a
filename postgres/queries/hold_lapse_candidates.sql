-- Up to $4 (bigint, NULL for all) held holds that expired before $1,
-- after the cursor ($2, $3): by expiry, then id, locked; rows another
-- transaction has locked are skipped, so that concurrent sweepers take
-- disjoint sets. Which of them lapse is the engine's rule: the store reads
-- their payments' statuses once it has the rows, in a statement of its
-- own (payment_statuses.sql).
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds h
WHERE status = 'held' AND expires_at < $1::timestamptz
  AND (expires_at, id) > ($2::timestamptz, $3::text)
ORDER BY expires_at, id
LIMIT $4::bigint
FOR UPDATE OF h SKIP LOCKED;
