-- A shop's own data on reservations and orders (stockade.Metadata): a
-- flat object of strings, '{}' when there is none. The GIN indexes serve
-- the lists' filters (metadata @> '{"cart":"c_42"}').
ALTER TABLE reservations ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE orders ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
CREATE INDEX reservations_metadata ON reservations USING gin (metadata jsonb_path_ops);
CREATE INDEX orders_metadata ON orders USING gin (metadata jsonb_path_ops);
