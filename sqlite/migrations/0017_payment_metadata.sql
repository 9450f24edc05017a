-- A shop's own data on payments, as on reservations and orders (0015).
ALTER TABLE payments ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
