-- Outbound webhooks: the endpoints an admin registers, and the deliveries
-- of events to them (stockade.WebhookEndpoint, stockade.WebhookDelivery).
-- Deliveries are written from the outbox by the webhooks' relay, in the
-- transaction that moves its checkpoint (relay_checkpoints, name
-- 'webhooks'), so each committed event is fanned out once.

-- One row per endpoint. secret signs its deliveries, and previous_secret,
-- until previous_expires_at, beside it (a rotation's overlap). They are
-- kept as given: the service signs with them. version counts the
-- endpoint's changes: 1 when made.
CREATE TABLE webhook_endpoints (
	id                  text COLLATE "C" PRIMARY KEY,
	url                 text NOT NULL,
	events              text[] NOT NULL,
	description         text NOT NULL DEFAULT '',
	disabled            boolean NOT NULL DEFAULT false,
	disabled_reason     text NOT NULL DEFAULT '',
	secret              text NOT NULL,
	previous_secret     text NOT NULL DEFAULT '',
	previous_expires_at timestamptz,
	created_at          timestamptz NOT NULL,
	updated_at          timestamptz NOT NULL,
	version             bigint NOT NULL CHECK (version >= 1)
);

-- One row per event and endpoint that wants it. seq follows the order in
-- which the relay wrote them, which is the outbox's: an aggregate's
-- deliveries to an endpoint go out in seq order, each after the one
-- before it has left pending. body is the event as posted, fixed when the
-- delivery is made. next_attempt_at is when a pending delivery is tried
-- next (while an attempt runs, when it is taken for lost); NULL once it
-- has left pending.
CREATE TABLE webhook_deliveries (
	seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id              text COLLATE "C" NOT NULL UNIQUE,
	endpoint_id     text COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
	event_id        text NOT NULL,
	event_type      text NOT NULL,
	aggregate       text COLLATE "C" NOT NULL,
	aggregate_id    text COLLATE "C" NOT NULL,
	status          text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
	body            bytea NOT NULL,
	attempts        integer NOT NULL CHECK (attempts >= 0),
	next_attempt_at timestamptz,
	retry_until     timestamptz NOT NULL,
	last_attempt_at timestamptz,
	last_code       integer NOT NULL DEFAULT 0,
	last_error      text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	version         bigint NOT NULL CHECK (version >= 1)
);

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
