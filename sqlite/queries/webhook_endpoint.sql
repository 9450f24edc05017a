-- Webhook endpoint ?1 (id).
SELECT id, url, events, description, disabled, disabled_reason, secret, previous_secret,
	previous_expires_at, created_at, updated_at, version
FROM webhook_endpoints
WHERE id = ?1;
