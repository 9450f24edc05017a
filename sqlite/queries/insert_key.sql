-- Insert API key ?1 (id) named ?2 with role ?3, rate limit ?4 (requests
-- per second, 0 for the default), hash ?5 (hex SHA-256 of the secret),
-- created at ?6 and revoked at ?7 (Unix microseconds; NULL while live).
INSERT INTO api_keys (id, name, role, rate_limit, hash, created_at, revoked_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);
