-- Insert webhook endpoint $1 (id) with URL $2, event types $3, description
-- $4, disabled $5 and its reason $6, secret $7, previous secret $8 ('' for
-- none) until $9 (NULL for none), created at $10, updated at $11, version
-- $12. An id in use is a unique violation.
INSERT INTO webhook_endpoints (id, url, events, description, disabled, disabled_reason, secret,
	previous_secret, previous_expires_at, created_at, updated_at, version)
VALUES ($1::text, $2::text, $3::text[], $4::text, $5::boolean, $6::text, $7::text,
	$8::text, $9::timestamptz, $10::timestamptz, $11::timestamptz, $12::bigint);
