-- API keys, and who made what. Reservations and orders record the id of
-- the key that created them (owner), ledger rows the name of the key whose
-- call made the change (actor); '' means none, as for rows written before
-- this migration. Adding a NOT NULL column with a constant default rewrites
-- no row (PostgreSQL 11 and later), and movements' append-only trigger
-- fires on UPDATE and DELETE only, so the ledger takes the column.
ALTER TABLE reservations ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE movements ADD COLUMN actor text COLLATE "C" NOT NULL DEFAULT '';

-- The lists of reservations and orders, newest first: all of them, and
-- those of one owner. The cursor (created_at, id) is a range of either
-- index, read backwards. Status is filtered, not indexed: every status
-- change of a reservation would also write an index entry (and rule out
-- HOT updates), and the hot path (reserve, confirm, release, expire)
-- should stay cheap; a list by status reads further down the index
-- instead. The indexes are built in the migration's transaction, which
-- blocks writes to the two tables until it commits.
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
	id         text COLLATE "C" PRIMARY KEY,
	name       text COLLATE "C" NOT NULL CONSTRAINT api_keys_name_key UNIQUE,
	role       text NOT NULL CONSTRAINT api_keys_role_check CHECK (role IN
		('admin', 'storefront', 'reader')),
	rate_limit double precision NOT NULL DEFAULT 0
		CONSTRAINT api_keys_rate_limit_check CHECK (rate_limit >= 0 AND rate_limit <> 'NaN'),
	hash       text NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);
