-- Payments: what a payment system says about the payment of one
-- reservation, hold or order (stockade.Payment), the history of each
-- payment's changes, and the inbox of the outcomes applied to them. Times
-- are INTEGER Unix microseconds, UTC; '' means none for the text columns
-- that may be empty (a resolution, an order, a booking, an owner), as in
-- reservations and holds.

-- One row per payment. A target (its kind and id) has at most one
-- payment: the unique constraint is what makes that hold for every
-- writer of the file, whatever the caller checked first. stuck_at is NULL
-- until the payment is found in flight after its target's grace period.
-- version counts the payment's changes: 1 when made; UpdatePayment writes
-- only over the version before its own.
CREATE TABLE payments (
	id          TEXT    PRIMARY KEY,
	target_kind TEXT    NOT NULL CHECK (target_kind IN ('reservation', 'hold', 'order')),
	target_id   TEXT    NOT NULL,
	amount      INTEGER NOT NULL CHECK (amount > 0),
	currency    TEXT    NOT NULL CHECK (length(currency) = 3),
	status      TEXT    NOT NULL CHECK (status IN ('pending', 'processing', 'authorized', 'succeeded',
		'captured', 'failed', 'cancelled', 'refunded')),
	resolution  TEXT    NOT NULL DEFAULT '' CHECK (resolution IN ('', 'confirmed', 'released', 'reordered', 'needs_refund')),
	order_id    TEXT    NOT NULL DEFAULT '',
	booking_id  TEXT    NOT NULL DEFAULT '',
	owner       TEXT    NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	stuck_at    INTEGER,
	version     INTEGER NOT NULL CHECK (version >= 1),
	CONSTRAINT payments_target UNIQUE (target_kind, target_id)
) STRICT;

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
-- change. AUTOINCREMENT keeps ids increasing and never reused, so a
-- payment's rows read in id order are in the order they were written.
CREATE TABLE payment_changes (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	payment_id  TEXT    NOT NULL REFERENCES payments (id),
	from_status TEXT    NOT NULL CHECK (from_status IN ('pending', 'processing', 'authorized', 'succeeded',
		'captured', 'failed', 'cancelled', 'refunded')),
	to_status   TEXT    NOT NULL CHECK (to_status IN ('pending', 'processing', 'authorized', 'succeeded',
		'captured', 'failed', 'cancelled', 'refunded')),
	resolution  TEXT    NOT NULL DEFAULT '' CHECK (resolution IN ('', 'confirmed', 'released', 'reordered', 'needs_refund')),
	at          INTEGER NOT NULL,
	actor       TEXT    NOT NULL DEFAULT '',
	reason      TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX payment_changes_payment ON payment_changes (payment_id, id);

CREATE TRIGGER payment_changes_no_update BEFORE UPDATE ON payment_changes
BEGIN
	SELECT RAISE(ABORT, 'payment history is append-only');
END;

CREATE TRIGGER payment_changes_no_delete BEFORE DELETE ON payment_changes
BEGIN
	SELECT RAISE(ABORT, 'payment history is append-only');
END;

-- The inbox: the ids of the outcomes a payment system reported that have
-- been applied, each written in the transaction that applied it, so that
-- one delivered again is applied once. payment_id says which payment it
-- was for, for a person reading the table; it is no foreign key, since a
-- record is kept for its age alone (PurgeOutcomes deletes a range of
-- payment_inbox_received) and need not follow its payment.
CREATE TABLE payment_inbox (
	event_id    TEXT    PRIMARY KEY,
	payment_id  TEXT    NOT NULL,
	received_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX payment_inbox_received ON payment_inbox (received_at);
