-- Take the turn of relay $1 (text) for the rest of the transaction, if no
-- other transaction has it: an advisory lock in the two-key space (class
-- 0x73746b72, "stkr", and the name's hash), apart from the one-key locks
-- of the advisory strategy. It takes no transaction id. Returns whether it
-- was taken.
SELECT pg_try_advisory_xact_lock(1937009522, hashtext($1::text));
