-- The payments in flight were an index for the sweeper's search of stuck
-- payments, its WHERE the rule of which statuses are in flight. The
-- engine decides that rule now (engine/lapse.go): the search starts from
-- the held, expired targets (reservations_held_expiry, holds_held_expiry)
-- and looks up each one's payment by the unique constraint on the target,
-- so nothing reads this index any more.
DROP INDEX payments_in_flight;
