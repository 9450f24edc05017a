-- Payments: what a payment system says about the payment of one
-- reservation, hold or order (stockade.Payment), the history of each
-- payment's changes, and the inbox of the outcomes applied to them. ''
-- means none for the text columns that may be empty (a resolution, an
-- order, a booking, an owner), as in reservations and holds.

-- One row per payment. A target (its kind and id) has at most one
-- payment: the unique constraint is what makes that hold across
-- instances, whatever each checked first. A second transaction that
-- inserts a payment for the same target waits for the first at the
-- constraint's index, then fails with a unique violation (which the store
-- wraps as stockade.ErrConflict) if the first committed. stuck_at is NULL
-- until the payment is found in flight after its target's grace period.
-- version counts the payment's changes: 1 when made; UpdatePayment writes
-- only over the version before its own. No foreign key names the target,
-- which is a row of one of three tables, and whose row a check would
-- share-lock at every insert.
CREATE TABLE payments (
	id          text COLLATE "C" PRIMARY KEY,
	target_kind text NOT NULL CONSTRAINT payments_target_kind_check CHECK (target_kind IN
		('reservation', 'hold', 'order')),
	target_id   text COLLATE "C" NOT NULL,
	amount      bigint NOT NULL CONSTRAINT payments_amount_check CHECK (amount > 0),
	currency    text NOT NULL CONSTRAINT payments_currency_check CHECK (length(currency) = 3),
	status      text NOT NULL CONSTRAINT payments_status_check CHECK (status IN
		('pending', 'processing', 'authorized', 'succeeded', 'captured', 'failed', 'cancelled', 'refunded')),
	resolution  text NOT NULL DEFAULT '' CONSTRAINT payments_resolution_check CHECK (resolution IN
		('', 'confirmed', 'released', 'reordered', 'needs_refund')),
	order_id    text COLLATE "C" NOT NULL DEFAULT '',
	booking_id  text COLLATE "C" NOT NULL DEFAULT '',
	owner       text COLLATE "C" NOT NULL DEFAULT '',
	created_at  timestamptz NOT NULL,
	updated_at  timestamptz NOT NULL,
	stuck_at    timestamptz,
	version     bigint NOT NULL CONSTRAINT payments_version_check CHECK (version >= 1),
	CONSTRAINT payments_target_key UNIQUE (target_kind, target_id)
);

-- The lists of payments, newest first: all of them, those of one owner,
-- in one status, with one resolution, and the stuck ones (Payment.Stuck:
-- found stuck and not resolved since). The cursor (created_at, id) is a
-- range of each, read backwards. Unlike a reservation's, a payment's
-- status changes a few times in its life, so the status index costs
-- little. The stuck ones are the unresolved range of payments_stuck,
-- whose rows are the few payments ever found stuck: the list of unresolved
-- payments, pending ones included, is far longer.
CREATE INDEX payments_created ON payments (created_at, id);
CREATE INDEX payments_owner_created ON payments (owner, created_at, id);
CREATE INDEX payments_status_created ON payments (status, created_at, id);
CREATE INDEX payments_resolution_created ON payments (resolution, created_at, id);
CREATE INDEX payments_stuck ON payments (resolution, created_at, id) WHERE stuck_at IS NOT NULL;

-- LapsedPayments's scan: the payments in flight that have not been found
-- stuck, few at any time, each of which it looks up its target by. The
-- unique constraint on the target serves the other direction: the check
-- of LapsedReservations and LapsedHolds that a target's payment is not in
-- flight.
CREATE INDEX payments_in_flight ON payments (target_kind, target_id)
	WHERE status IN ('processing', 'authorized') AND stuck_at IS NULL;

-- A payment's history: every move of its status (from_status →
-- to_status), and every change of its resolution or its being found
-- stuck (from_status = to_status), written in the transaction of the
-- change, never updated nor deleted. The foreign key share-locks the
-- payment's row (FOR KEY SHARE) at each insert, which waits only for a
-- transaction that has locked the row with Payment or PaymentFor: one
-- that is changing the payment, and writes its history itself.
CREATE TABLE payment_changes (
	id          bigserial PRIMARY KEY,
	payment_id  text COLLATE "C" NOT NULL CONSTRAINT payment_changes_payment_id_fkey REFERENCES payments (id),
	from_status text NOT NULL CONSTRAINT payment_changes_from_status_check CHECK (from_status IN
		('pending', 'processing', 'authorized', 'succeeded', 'captured', 'failed', 'cancelled', 'refunded')),
	to_status   text NOT NULL CONSTRAINT payment_changes_to_status_check CHECK (to_status IN
		('pending', 'processing', 'authorized', 'succeeded', 'captured', 'failed', 'cancelled', 'refunded')),
	resolution  text NOT NULL DEFAULT '' CONSTRAINT payment_changes_resolution_check CHECK (resolution IN
		('', 'confirmed', 'released', 'reordered', 'needs_refund')),
	at          timestamptz NOT NULL DEFAULT now(),
	actor       text COLLATE "C" NOT NULL DEFAULT '',
	reason      text NOT NULL DEFAULT ''
);

-- One payment's history, in id order.
CREATE INDEX payment_changes_payment ON payment_changes (payment_id, id);

CREATE FUNCTION payment_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'payment_changes is append-only: % refused', TG_OP
		USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER payment_changes_append_only
	BEFORE UPDATE OR DELETE ON payment_changes
	FOR EACH ROW EXECUTE FUNCTION payment_changes_append_only();

-- The inbox: the ids of the outcomes a payment system reported that have
-- been applied, each written in the transaction that applied it, so that
-- one delivered again is applied once. RecordOutcome inserts with ON
-- CONFLICT DO NOTHING: a transaction that inserts an id another one is
-- inserting waits for it, then inserts nothing if it committed. payment_id
-- says which payment it was for, for a person reading the table; it is no
-- foreign key, since a record is kept for its age alone (PurgeOutcomes
-- deletes a range of payment_inbox_received) and need not follow its
-- payment, and a check would share-lock the payment's row.
CREATE TABLE payment_inbox (
	event_id    text COLLATE "C" PRIMARY KEY,
	payment_id  text COLLATE "C" NOT NULL,
	received_at timestamptz NOT NULL
);

CREATE INDEX payment_inbox_received ON payment_inbox (received_at);
