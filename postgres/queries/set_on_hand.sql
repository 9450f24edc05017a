-- Set the on-hand quantity of level ($1 sku, $2 location) to $3 (bigint),
-- given $4 (bigint), the version the caller expects, or NULL for any.
--
-- A missing level is created at version 1 if location $2 exists and $4 is
-- NULL or 0 (a missing level has version 0). An existing one is changed,
-- and its version bumped, if $4 is NULL or its version, and if on hand
-- stays at least reserved + committed. Only one of the two statements can
-- write: "updated" when $4 is neither NULL nor 0, "inserted" otherwise.
--
-- Returns the level after the write, or no row when nothing was written;
-- the caller then reads the level to tell why (set_on_hand_miss.sql).
WITH updated AS (
	UPDATE levels
	SET on_hand = $3::bigint, version = version + 1
	WHERE sku = $1::text AND location = $2::text
	  AND version = $4::bigint AND $4::bigint <> 0
	  AND $3::bigint - reserved - committed >= 0
	RETURNING sku, location, on_hand, reserved, committed, version, fence
), inserted AS (
	INSERT INTO levels AS l (sku, location, on_hand, version)
	SELECT $1::text, id, $3::bigint, 1
	FROM locations
	WHERE id = $2::text AND ($4::bigint IS NULL OR $4::bigint = 0)
	ON CONFLICT (sku, location) DO UPDATE
	SET on_hand = excluded.on_hand, version = l.version + 1
	WHERE ($4::bigint IS NULL OR l.version = $4::bigint)
	  AND excluded.on_hand - l.reserved - l.committed >= 0
	RETURNING sku, location, on_hand, reserved, committed, version, fence
)
SELECT * FROM updated
UNION ALL
SELECT * FROM inserted;
