-- Revoke API key $1 (id) at $2, if it is live.
UPDATE api_keys SET revoked_at = $2::timestamptz WHERE id = $1::text AND revoked_at IS NULL;
