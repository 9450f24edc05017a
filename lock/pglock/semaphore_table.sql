-- The table of semaphore entries, created on first use. __TABLE__ stands
-- for the quoted, schema-qualified name from Options (default
-- "public"."lock_semaphore").
-- One row per holder or waiter of a key's permits:
--   key         Prefix+key
--   arrival     the arrival order, within a key
--   n           the permits it asks for, or holds
--   "limit"     the key's limit, the same on every live row of the key
--   owner       random bits that only the entry's caller knows
--   expires_at  the end of its lease: a holder's TTL, or a waiter's keep-alive
-- An entry holds its permits when the permits of the live entries that
-- arrived before it, plus its own, fit the limit: nothing else is stored.
CREATE TABLE IF NOT EXISTS __TABLE__ (
    key        text        NOT NULL,
    arrival    bigserial   NOT NULL,
    n          integer     NOT NULL,
    "limit"    integer     NOT NULL,
    owner      bigint      NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (key, arrival)
);
