-- Holds, newest first. The store appends the WHERE clause for the
-- filter's non-zero fields (status, show_id, owner, created_at at or after
-- and before, and the cursor (created_at, id) < (at, id)), then ORDER BY
-- created_at DESC, id DESC and LIMIT, which read holds_created,
-- holds_show_created or holds_owner_created backwards.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds