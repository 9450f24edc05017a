-- API keys, and who made what. Reservations and orders record the id of
-- the key that created them (owner), ledger rows the name of the key whose
-- call made the change (actor); '' means none, as for rows written before
-- this migration. Adding a column with a constant default rewrites no row,
-- and movements' append-only triggers fire on UPDATE and DELETE only.
ALTER TABLE reservations ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE movements ADD COLUMN actor TEXT NOT NULL DEFAULT '';

-- The lists of reservations and orders, newest first: all of them, and
-- those of one owner. The cursor (created_at, id) is a range of either
-- index. Status is filtered, not indexed: every status change of a
-- reservation would also write an index entry, and the hot path (reserve,
-- confirm, release, expire) should stay cheap; a list by status reads
-- further down the index instead.
CREATE INDEX reservations_created ON reservations (created_at, id);
CREATE INDEX reservations_owner_created ON reservations (owner, created_at, id);
CREATE INDEX orders_created ON orders (created_at, id);
CREATE INDEX orders_owner_created ON orders (owner, created_at, id);

-- The keys clients authenticate with. The secret is never stored, only
-- its SHA-256 (hash, hex). A revoked key keeps its row, so that its id and
-- name still explain the records and ledger rows that name it; revoked_at
-- is NULL while the key is live. rate_limit is requests per second, 0 for
-- the server's default.
CREATE TABLE api_keys (
	id         TEXT    PRIMARY KEY,
	name       TEXT    NOT NULL UNIQUE,
	role       TEXT    NOT NULL CHECK (role IN ('admin', 'storefront', 'reader')),
	rate_limit REAL    NOT NULL DEFAULT 0 CHECK (rate_limit >= 0),
	hash       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;
