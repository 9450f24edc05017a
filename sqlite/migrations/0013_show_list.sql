-- The list of shows, newest first (GET /v1/shows).
CREATE INDEX shows_created ON shows (created_at, id);
