-- Bound this session's turns in the server's lock queue: a wait that has
-- not been granted within $1 (text, milliseconds) ends with lock_timeout's
-- error (55P03), on the server's own clock, and the waiter queues again if
-- it still wants the lock. A waiter whose process has stopped (paused,
-- frozen) cannot queue again: its turn ends, and the server never grants
-- it the lock that a live waiter behind it is waiting for. release.sql
-- and release_if_held.sql reset it.
SELECT set_config('lock_timeout', $1, false);
