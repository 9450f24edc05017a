-- Where each relay of the outbox is: the position (seq) of the last event
-- it published, so that it goes on from there after a restart, and so that
-- pruning keeps every event a relay has yet to publish. One row per relay,
-- written when a batch of events has been acknowledged. With one writer
-- at a time, a relay's write transaction is its turn.
CREATE TABLE relay_checkpoints (
	name       TEXT    PRIMARY KEY,
	seq        INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
