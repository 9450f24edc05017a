-- The status of the payment of each of targets $2 (text[] of ids) of
-- kind $1 that has one, one lookup each of the unique constraint on the
-- target. ReservationLapseCandidates and HoldLapseCandidates run it after
-- they have locked their rows, in a statement of its own: see
-- tx.paymentStatuses.
SELECT target_id, status
FROM payments
WHERE target_kind = $1::text AND target_id = ANY ($2::text[]);
