-- Of targets $2 (text[] of ids) of kind $1, those whose payment is in
-- flight (processing or authorized), one lookup each of the unique
-- constraint on the target. LapsedReservations and LapsedHolds run it
-- after they have locked their rows, in a statement of its own: see
-- tx.leaveInFlight.
SELECT target_id
FROM payments
WHERE target_kind = $1::text AND target_id = ANY ($2::text[])
  AND status IN ('processing', 'authorized');
