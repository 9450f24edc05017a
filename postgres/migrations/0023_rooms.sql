-- Waiting rooms (stockade.Room), the targets they hold and their visitors
-- (stockade.RoomVisitor).

-- One row per room. A room is in front of a show (show_id, skus empty) or
-- of SKUs (skus, show_id ''). admission_ttl_us is how long an admission
-- lasts, in microseconds; admission_order the order of admission
-- (stockade.RoomOrder). joined, ordered and admitted count the visitors
-- who took a place, the places the order has given and the visitors let
-- in; credit is the rate's bucket at credit_at. sold_out_at is NULL until
-- the room finds the stock gone. version counts the room's changes: 1
-- when made; an update writes only over the version before its own. Each
-- admission round updates an open room's row, and changes no indexed
-- column but when the status moves: room on each page for HOT updates.
CREATE TABLE rooms (
	id               text COLLATE "C" PRIMARY KEY,
	show_id          text COLLATE "C" NOT NULL DEFAULT '',
	skus             text[] NOT NULL DEFAULT '{}',
	opens_at         timestamptz NOT NULL,
	active_limit     bigint NOT NULL,
	admit_per_minute bigint NOT NULL,
	admission_ttl_us bigint NOT NULL,
	admission_order  text NOT NULL CONSTRAINT rooms_admission_order_check CHECK (admission_order IN
		('arrival', 'random_at_opening')),
	per_visitor      bigint NOT NULL,
	stock_factor     double precision NOT NULL,
	status           text NOT NULL CONSTRAINT rooms_status_check CHECK (status IN
		('scheduled', 'queueing', 'sold_out', 'closed')),
	joined           bigint NOT NULL CONSTRAINT rooms_joined_check CHECK (joined >= 0),
	ordered          bigint NOT NULL CONSTRAINT rooms_ordered_check CHECK (ordered >= 0),
	admitted         bigint NOT NULL CONSTRAINT rooms_admitted_check CHECK (admitted >= 0),
	credit           double precision NOT NULL,
	credit_at        timestamptz NOT NULL,
	paused           text NOT NULL DEFAULT '',
	sold_out_at      timestamptz,
	secret           text NOT NULL,
	metadata         jsonb NOT NULL DEFAULT '{}',
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL,
	version          bigint NOT NULL CONSTRAINT rooms_version_check CHECK (version >= 1)
) WITH (fillfactor = 80);

-- The rooms in one status: RoomListGating reads those that gate.
CREATE INDEX rooms_status ON rooms (status, id);

-- What the rooms that gate stand in front of (stockade.Room.Targets:
-- 'show:' and a show's id, or 'sku:' and a SKU), one row per target: the
-- primary key is what keeps two such rooms off one target across
-- instances, whatever each checked first. A second transaction that
-- inserts a target waits for the first at the key's index, then fails
-- with a unique violation (which the store wraps as stockade.ErrConflict)
-- if the first committed. A room's rows are inserted when it starts to
-- gate and deleted when it stops (hold_room_targets.sql,
-- release_room_targets.sql); a room that stays open writes none.
CREATE TABLE room_targets (
	target  text COLLATE "C" PRIMARY KEY,
	room_id text COLLATE "C" NOT NULL REFERENCES rooms (id)
);

-- A room's targets, for letting them go.
CREATE INDEX room_targets_room ON room_targets (room_id);

-- One row per visitor of a room. position is the visitor's place in the
-- order of admission, 1, 2, …; 0 until the draw at opening gives one to a
-- visitor who joined a random_at_opening room before it opened, in the
-- order of draw, then of visitor_id. admitted_at and expires_at are set
-- when the visitor is admitted, used_at when an admitted visitor first
-- holds. No foreign key names the room: its check would share-lock the
-- room's row at every join, many at once when a sale opens, while the
-- admission rounds update it.
CREATE TABLE room_visitors (
	room_id     text COLLATE "C" NOT NULL,
	visitor_id  text COLLATE "C" NOT NULL,
	position    bigint NOT NULL CONSTRAINT room_visitors_position_check CHECK (position >= 0),
	draw        bigint NOT NULL,
	joined_at   timestamptz NOT NULL,
	admitted_at timestamptz,
	expires_at  timestamptz,
	used_at     timestamptz,
	owner       text NOT NULL,
	PRIMARY KEY (room_id, visitor_id)
);

-- A place is one visitor's: the index also finds the range of positions
-- an admission round lets in (admit_room_visitors.sql).
CREATE UNIQUE INDEX room_visitors_position ON room_visitors (room_id, position) WHERE position > 0;
-- The visitors waiting for the draw at opening, in the order it gives
-- them places (draw_room_visitors.sql); empty once the draw is made.
CREATE INDEX room_visitors_draw ON room_visitors (room_id, draw, visitor_id) WHERE position = 0;
-- The admissions in force, by when they end (room_activity.sql). used_at
-- is left out of every index, so that marking an admission used may be a
-- HOT update.
CREATE INDEX room_visitors_admitted ON room_visitors (room_id, expires_at) WHERE admitted_at IS NOT NULL;
