-- Append rows to the payments' history, given as parallel arrays:
-- $1 payment_id, $2 from_status, $3 to_status, $4 resolution, $5 at
-- (timestamptz[], NULL for the transaction's start), $6 actor, $7 reason.
-- Ids are assigned in array order.
INSERT INTO payment_changes (payment_id, from_status, to_status, resolution, at, actor, reason)
SELECT c.payment_id, c.from_status, c.to_status, c.resolution, coalesce(c.at, now()), c.actor, c.reason
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[])
     WITH ORDINALITY AS c (payment_id, from_status, to_status, resolution, at, actor, reason, n)
ORDER BY c.n;
