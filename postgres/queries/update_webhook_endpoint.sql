-- Write $2 url, $3 events, $4 description, $5 disabled, $6 its reason, $7
-- secret, $8 previous secret, $9 its end, $10 updated_at and $11 version
-- over webhook endpoint $1 (id) if its version is $11 - 1.
UPDATE webhook_endpoints
SET url = $2::text, events = $3::text[], description = $4::text, disabled = $5::boolean,
    disabled_reason = $6::text, secret = $7::text, previous_secret = $8::text,
    previous_expires_at = $9::timestamptz, updated_at = $10::timestamptz, version = $11::bigint
WHERE id = $1::text AND version = $11::bigint - 1;
