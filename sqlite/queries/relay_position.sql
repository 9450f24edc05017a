-- The checkpoint of relay ?1: the seq of the last event it published. No
-- row: it has published nothing.
SELECT seq FROM relay_checkpoints WHERE name = ?1;
