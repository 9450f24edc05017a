-- Payments, newest first. The store appends the WHERE clause for the
-- filter's non-zero fields (status, the stuck ones, resolution, owner, and
-- the cursor (created_at, id) < (at, id)), then ORDER BY created_at DESC,
-- id DESC and LIMIT, so that each combination gets a plan that reads one
-- of the payments_*created indexes backwards.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata
FROM payments
