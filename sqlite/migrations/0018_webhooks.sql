-- Outbound webhooks: the endpoints an admin registers, and the deliveries
-- of events to them (stockade.WebhookEndpoint, stockade.WebhookDelivery).
-- Deliveries are written from the outbox by the webhooks' relay, in the
-- transaction that moves its checkpoint (relay_checkpoints, name
-- 'webhooks'), so each committed event is fanned out once. Times are
-- INTEGER Unix microseconds, UTC.

-- One row per endpoint. events is a JSON array of event types. secret
-- signs its deliveries, and previous_secret, until previous_expires_at,
-- beside it (a rotation's overlap). version counts the endpoint's
-- changes: 1 when made.
CREATE TABLE webhook_endpoints (
	id                  TEXT    PRIMARY KEY,
	url                 TEXT    NOT NULL,
	events              TEXT    NOT NULL,
	description         TEXT    NOT NULL DEFAULT '',
	disabled            INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
	disabled_reason     TEXT    NOT NULL DEFAULT '',
	secret              TEXT    NOT NULL,
	previous_secret     TEXT    NOT NULL DEFAULT '',
	previous_expires_at INTEGER,
	created_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL,
	version             INTEGER NOT NULL CHECK (version >= 1)
) STRICT;

-- One row per event and endpoint that wants it. seq follows the order in
-- which the relay wrote them, which is the outbox's: an aggregate's
-- deliveries to an endpoint go out in seq order, each after the one
-- before it has left pending. body is the event as posted, fixed when the
-- delivery is made. next_attempt_at is when a pending delivery is tried
-- next (while an attempt runs, when it is taken for lost); NULL once it
-- has left pending.
CREATE TABLE webhook_deliveries (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	id              TEXT    NOT NULL UNIQUE,
	endpoint_id     TEXT    NOT NULL,
	event_id        TEXT    NOT NULL,
	event_type      TEXT    NOT NULL,
	aggregate       TEXT    NOT NULL,
	aggregate_id    TEXT    NOT NULL,
	status          TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
	body            BLOB    NOT NULL,
	attempts        INTEGER NOT NULL CHECK (attempts >= 0),
	next_attempt_at INTEGER,
	retry_until     INTEGER NOT NULL,
	last_attempt_at INTEGER,
	last_code       INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT    NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	version         INTEGER NOT NULL CHECK (version >= 1)
) STRICT;

-- The pending deliveries of an endpoint: those due, in the order they are
-- tried (heads.sql), and per aggregate, to find whether an earlier one is
-- pending. Both hold only the pending rows, few beside the delivered.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at, seq)
	WHERE status = 'pending';
CREATE INDEX webhook_deliveries_aggregate ON webhook_deliveries (endpoint_id, aggregate, aggregate_id, seq)
	WHERE status = 'pending';
-- The finished deliveries by age, for the sweeper's pruning.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at)
	WHERE status <> 'pending';
-- An endpoint's deliveries, newest first, all or in one status.
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (endpoint_id, status, seq);
