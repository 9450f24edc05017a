-- Append movements. The store appends one (at, sku, location, kind,
-- on_hand, reserved, committed, ref, reason, actor) tuple of parameters per
-- row, as many rows per statement as SQLite binds; ids are assigned in row
-- order.
INSERT INTO movements (at, sku, location, kind, on_hand, reserved, committed, ref, reason, actor)
VALUES
