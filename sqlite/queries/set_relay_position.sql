-- Move the checkpoint of relay ?1 to seq ?2, at ?3 (Unix microseconds),
-- creating it if missing.
INSERT INTO relay_checkpoints (name, seq, updated_at) VALUES (?1, ?2, ?3)
ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at;
