-- Serialize the statements on one semaphore key: the first statement of
-- every batch on the key takes advisory lock $1 (bigint, the key's id) for
-- the batch's implicit transaction, so that the next statement sees every
-- entry committed before it and none is inserted meanwhile. Arrival order
-- is then the order in which entries are seen. Creating the table takes it
-- too, on an id of the table's.
SELECT pg_advisory_xact_lock($1);
