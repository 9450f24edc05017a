-- An order's version counts its changes, for clients that change it only
-- if it is as they last read it (If-Match, expected_version): 1 when it
-- is committed, one more at each change of its status. Orders that have
-- changed already count the one change they can have had.
ALTER TABLE orders ADD COLUMN version bigint NOT NULL DEFAULT 1
	CONSTRAINT orders_version_check CHECK (version >= 1);

UPDATE orders SET version = 2 WHERE status <> 'committed';
