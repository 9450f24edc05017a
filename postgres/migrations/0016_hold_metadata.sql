-- A shop's own data on holds and bookings, as on reservations and orders
-- (0015).
ALTER TABLE holds ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE bookings ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
CREATE INDEX holds_metadata ON holds USING gin (metadata jsonb_path_ops);
CREATE INDEX bookings_metadata ON bookings USING gin (metadata jsonb_path_ops);
