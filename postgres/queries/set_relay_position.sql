-- Move the checkpoint of relay $1 (text) to the position ($2 xid8, $3
-- bigint), creating it if missing.
INSERT INTO relay_checkpoints (name, xid, seq) VALUES ($1::text, $2::xid8, $3::bigint)
ON CONFLICT (name) DO UPDATE SET xid = excluded.xid, seq = excluded.seq, updated_at = now();
