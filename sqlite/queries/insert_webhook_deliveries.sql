-- Insert webhook deliveries. The store appends one (id, endpoint_id,
-- event_id, event_type, aggregate, aggregate_id, status, body, attempts,
-- next_attempt_at, retry_until, created_at, version) tuple of parameters
-- per row, as many rows per statement as SQLite binds; seqs are assigned
-- in row order.
INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, aggregate, aggregate_id, status,
	body, attempts, next_attempt_at, retry_until, created_at, version)
VALUES
