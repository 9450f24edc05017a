-- Announces, after the fact and in a transaction of its own, that events
-- committed. The payload is empty: a listener reads the outbox to learn
-- what. PostgreSQL folds identical notifications of one transaction into
-- one, and a listener may get one announcement for many commits.
SELECT pg_notify('stockade_events', '')
