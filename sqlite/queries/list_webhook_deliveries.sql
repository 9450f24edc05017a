-- The deliveries of webhook endpoint ?1, newest first. The store appends
-- the conditions in use (status, and the cursor seq < ?), then ORDER BY
-- seq DESC and LIMIT, so that each reads webhook_deliveries_endpoint or
-- webhook_deliveries_endpoint_status backwards.
SELECT seq, id, endpoint_id, event_id, event_type, aggregate, aggregate_id, status, body, attempts,
	next_attempt_at, retry_until, last_attempt_at, last_code, last_error, created_at, version
FROM webhook_deliveries
WHERE endpoint_id = ?1
