-- Insert webhook deliveries, given as parallel arrays: $1 id, $2
-- endpoint_id, $3 event_id, $4 event_type, $5 aggregate, $6 aggregate_id,
-- $7 status, $8 body, $9 attempts, $10 next_attempt_at, $11 retry_until,
-- $12 created_at, $13 version. seqs are assigned in array order.
INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, aggregate, aggregate_id, status,
	body, attempts, next_attempt_at, retry_until, created_at, version)
SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.aggregate, d.aggregate_id, d.status,
	d.body, d.attempts, d.next_attempt_at, d.retry_until, d.created_at, d.version
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
	$8::bytea[], $9::integer[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::bigint[])
     WITH ORDINALITY AS d (id, endpoint_id, event_id, event_type, aggregate, aggregate_id, status,
	body, attempts, next_attempt_at, retry_until, created_at, version, n)
ORDER BY d.n;
