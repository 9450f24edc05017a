-- Idempotency records store the result of a call that succeeded, written
-- in the transaction that commits its effect; nothing is claimed ahead of
-- the effect any more, so the in-flight state, the HTTP status and the
-- rendered body give way to the operation, a fingerprint and the result.
-- Records of the old shape cannot be replayed by the new code and are
-- dropped: a client retrying a key across the upgrade runs its call again.
DROP TABLE idempotency;

CREATE TABLE idempotency (
	key         TEXT    PRIMARY KEY,
	op          TEXT    NOT NULL,
	fingerprint TEXT    NOT NULL,
	result      BLOB    NOT NULL, -- the JSON of the call's result
	created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX idempotency_created_at ON idempotency (created_at);
