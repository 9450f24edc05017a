-- A shop's own data on payments, as on reservations and orders (0015).
ALTER TABLE payments ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
CREATE INDEX payments_metadata ON payments USING gin (metadata jsonb_path_ops);
