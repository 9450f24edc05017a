-- Waiting rooms (stockade.Room), the targets they hold and their visitors
-- (stockade.RoomVisitor). Times are INTEGER Unix microseconds, UTC; NULL
-- where a time may be missing.

-- One row per room. A room is in front of a show (show_id, skus '[]') or
-- of SKUs (skus, a JSON array of text, show_id ''). admission_ttl_us is
-- how long an admission lasts, in microseconds; admission_order the
-- order of admission (stockade.RoomOrder). joined, ordered and admitted
-- count the visitors who took a place, the places the order has given
-- and the visitors let in; credit is the rate's bucket at credit_at.
-- sold_out_at is NULL until the room finds the stock gone. version counts
-- the room's changes: 1 when made; an update writes only over the version
-- before its own.
CREATE TABLE rooms (
	id               TEXT    PRIMARY KEY,
	show_id          TEXT    NOT NULL DEFAULT '',
	skus             TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(skus)),
	opens_at         INTEGER NOT NULL,
	active_limit     INTEGER NOT NULL,
	admit_per_minute INTEGER NOT NULL,
	admission_ttl_us INTEGER NOT NULL,
	admission_order  TEXT    NOT NULL CHECK (admission_order IN ('arrival', 'random_at_opening')),
	per_visitor      INTEGER NOT NULL,
	stock_factor     REAL    NOT NULL,
	status           TEXT    NOT NULL CHECK (status IN ('scheduled', 'queueing', 'sold_out', 'closed')),
	joined           INTEGER NOT NULL CHECK (joined >= 0),
	ordered          INTEGER NOT NULL CHECK (ordered >= 0),
	admitted         INTEGER NOT NULL CHECK (admitted >= 0),
	credit           REAL    NOT NULL,
	credit_at        INTEGER NOT NULL,
	paused           TEXT    NOT NULL DEFAULT '',
	sold_out_at      INTEGER,
	secret           TEXT    NOT NULL,
	metadata         TEXT    NOT NULL DEFAULT '{}',
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	version          INTEGER NOT NULL CHECK (version >= 1)
) STRICT;

-- The rooms in one status: RoomListGating reads those that gate.
CREATE INDEX rooms_status ON rooms (status, id);

-- What the rooms that gate stand in front of (stockade.Room.Targets:
-- 'show:' and a show's id, or 'sku:' and a SKU), one row per target: the
-- primary key is what keeps two such rooms off one target, whatever the
-- writer checked first. A room's rows are inserted when it starts to gate
-- and deleted when it stops (hold_room_targets.sql,
-- release_room_targets.sql).
CREATE TABLE room_targets (
	target  TEXT PRIMARY KEY,
	room_id TEXT NOT NULL REFERENCES rooms (id)
) STRICT, WITHOUT ROWID;

-- A room's targets, for letting them go.
CREATE INDEX room_targets_room ON room_targets (room_id);

-- One row per visitor of a room. position is the visitor's place in the
-- order of admission, 1, 2, …; 0 until the draw at opening gives one to a
-- visitor who joined a random_at_opening room before it opened, in the
-- order of draw, then of visitor_id. admitted_at and expires_at are set
-- when the visitor is admitted, used_at when an admitted visitor first
-- holds. No foreign key names the room, as on PostgreSQL, where a check
-- would share-lock the room's row at every join.
CREATE TABLE room_visitors (
	room_id     TEXT    NOT NULL,
	visitor_id  TEXT    NOT NULL,
	position    INTEGER NOT NULL CHECK (position >= 0),
	draw        INTEGER NOT NULL,
	joined_at   INTEGER NOT NULL,
	admitted_at INTEGER,
	expires_at  INTEGER,
	used_at     INTEGER,
	owner       TEXT    NOT NULL,
	PRIMARY KEY (room_id, visitor_id)
) STRICT, WITHOUT ROWID;

-- A place is one visitor's: the index also finds the range of positions
-- an admission round lets in (admit_room_visitors.sql).
CREATE UNIQUE INDEX room_visitors_position ON room_visitors (room_id, position) WHERE position > 0;
-- The visitors waiting for the draw at opening, in the order it gives
-- them places (draw_room_visitors.sql); empty once the draw is made.
CREATE INDEX room_visitors_draw ON room_visitors (room_id, draw, visitor_id) WHERE position = 0;
-- The admissions in force, by when they end, and whether they were used:
-- room_activity.sql reads a range of it and nothing else (admitted_at is
-- a column of it too, for the query's own check of it).
CREATE INDEX room_visitors_admitted ON room_visitors (room_id, expires_at, used_at, admitted_at)
	WHERE admitted_at IS NOT NULL;
