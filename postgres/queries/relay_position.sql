-- The checkpoint of relay $1 (text): the position of the last event it
-- published. No row: it has published nothing.
SELECT xid, seq FROM relay_checkpoints WHERE name = $1::text;
