-- Up to $2 webhook endpoints with an id after $1 ('' for from the first),
-- in id order.
SELECT id, url, events, description, disabled, disabled_reason, secret, previous_secret,
	previous_expires_at, created_at, updated_at, version
FROM webhook_endpoints
WHERE id > $1::text
ORDER BY id
LIMIT $2::bigint;
