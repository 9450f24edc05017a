-- Set the session's application_name to lock:$1:$2:$3, as acquire.sql
-- does, after a grant whose token was drawn by a statement of its own
-- (the sequence did not exist yet).
-- $1 text the kind (lock or rwlock), $2 bigint the token, $3 text the key
-- as sessionKey escapes it.
SELECT set_config('application_name', format('lock:%s:%s:%s', $1::text, $2::bigint, $3::text), false);
