-- The first pending delivery of each aggregate of webhook endpoint $1,
-- those of them due at $2 (next_attempt_at at or before it), in
-- (next_attempt_at, seq) order, at most $3 (bigint): the due range of
-- webhook_deliveries_due, each row kept if webhook_deliveries_aggregate
-- has no earlier pending one of its aggregate.
SELECT d.seq, d.id, d.endpoint_id, d.event_id, d.event_type, d.aggregate, d.aggregate_id, d.status,
	d.body, d.attempts, d.next_attempt_at, d.retry_until, d.last_attempt_at, d.last_code, d.last_error,
	d.created_at, d.version
FROM webhook_deliveries d
WHERE d.endpoint_id = $1::text AND d.status = 'pending' AND d.next_attempt_at <= $2::timestamptz
  AND NOT EXISTS (
	SELECT 1 FROM webhook_deliveries e
	WHERE e.endpoint_id = d.endpoint_id AND e.aggregate = d.aggregate AND e.aggregate_id = d.aggregate_id
	  AND e.status = 'pending' AND e.seq < d.seq)
ORDER BY d.next_attempt_at, d.seq
LIMIT $3::bigint;
