-- Orders, newest first. The store appends the WHERE clause for the
-- filter's non-zero fields (status, owner, created_at at or after and
-- before, and the cursor (created_at, id) < (at, id)), then ORDER BY
-- created_at DESC, id DESC and LIMIT, so that each combination gets a plan
-- that reads orders_created or, with an owner, orders_owner_created
-- backwards.
SELECT id, status, created_at, reservation_id, lines, allocations, owner, version, metadata, shipped
FROM orders
