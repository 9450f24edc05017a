-- Insert API key $1 (id) named $2 with role $3, rate limit $4 (requests
-- per second, 0 for the default), hash $5 (hex SHA-256 of the secret),
-- created at $6 and revoked at $7 (NULL while live). An id or name in use
-- is a unique violation.
INSERT INTO api_keys (id, name, role, rate_limit, hash, created_at, revoked_at)
VALUES ($1::text, $2::text, $3::text, $4::double precision, $5::text, $6::timestamptz, $7::timestamptz);
