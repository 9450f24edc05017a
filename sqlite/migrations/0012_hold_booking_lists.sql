-- The lists of holds and of bookings, newest first: all of them, a
-- show's, or a storefront key's (GET /v1/holds, /v1/shows/{id}/holds, and
-- the same for bookings).
CREATE INDEX holds_created ON holds (created_at, id);
CREATE INDEX holds_show_created ON holds (show_id, created_at, id);
CREATE INDEX holds_owner_created ON holds (owner, created_at, id);
CREATE INDEX bookings_created ON bookings (created_at, id);
CREATE INDEX bookings_show_created ON bookings (show_id, created_at, id);
CREATE INDEX bookings_owner_created ON bookings (owner, created_at, id);
