-- Where each relay of the outbox is: the position of the last event it
-- published, so that it goes on from there after a restart, and so that
-- pruning keeps every event a relay has yet to publish. One row per relay
-- (a broker and stream it publishes to), written when a batch of events
-- has been acknowledged. Instances take turns through a transaction-scoped
-- advisory lock on the name (queries/lock_relay.sql), not a lock on this
-- row: a row lock takes a transaction id, and a transaction that holds
-- one, while it waits for the broker, holds back every reader of events
-- (see 0004_events.sql).
CREATE TABLE relay_checkpoints (
	name       text COLLATE "C" PRIMARY KEY,
	xid        xid8 NOT NULL,
	seq        bigint NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now()
);
