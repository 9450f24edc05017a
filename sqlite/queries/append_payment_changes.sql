-- Append rows to the payments' history. The store appends one
-- (payment_id, from_status, to_status, resolution, at, actor, reason)
-- tuple of parameters per row, as many rows per statement as SQLite
-- binds; ids are assigned in row order.
INSERT INTO payment_changes (payment_id, from_status, to_status, resolution, at, actor, reason)
VALUES
