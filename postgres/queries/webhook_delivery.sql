-- Delivery $2 (id) of webhook endpoint $1.
SELECT seq, id, endpoint_id, event_id, event_type, aggregate, aggregate_id, status, body, attempts,
	next_attempt_at, retry_until, last_attempt_at, last_code, last_error, created_at, version
FROM webhook_deliveries
WHERE endpoint_id = $1::text AND id = $2::text;
