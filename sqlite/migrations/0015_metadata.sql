-- A shop's own data on reservations and orders (stockade.Metadata): a
-- JSON object of strings, '{}' when there is none. The lists' filters
-- (json_extract) read it row by row after their other conditions.
ALTER TABLE reservations ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE orders ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
