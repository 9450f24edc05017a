-- Ledger rows, oldest first. The store appends the WHERE clause for the
-- filter's non-zero fields (so that each combination gets a plan that uses
-- its index), then ORDER BY id and LIMIT.
SELECT id, at, sku, location, kind, on_hand, reserved, committed, ref, reason, actor
FROM movements
