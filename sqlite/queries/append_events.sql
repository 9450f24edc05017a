-- Append events. The store appends one (id, type, aggregate, aggregate_id,
-- version, at, payload) tuple of parameters per row, as many rows per
-- statement as SQLite binds; at is Unix microseconds, payload JSON text.
-- seqs, the events' positions, are assigned in row order.
INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
VALUES
