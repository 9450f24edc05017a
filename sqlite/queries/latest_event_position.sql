-- The head of the outbox: the largest seq, 0 when there is no event. One
-- transaction writes at a time, so every event committed so far is at or
-- before it, and every one committed later gets a larger seq. That holds
-- after pruning too: AUTOINCREMENT hands out seqs above every one ever
-- used, even once the events that had them are deleted. max of the
-- primary key reads one row.
SELECT coalesce(max(seq), 0) FROM events;
