-- A shop's own data on holds and bookings, as on reservations and orders
-- (0015).
ALTER TABLE holds ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bookings ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
