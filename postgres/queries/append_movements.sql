-- Append movements, given as parallel arrays: $1 at (timestamptz[], NULL
-- for the transaction's start), $2 sku, $3 location, $4 kind, $5 on_hand,
-- $6 reserved, $7 committed, $8 ref, $9 reason, $10 actor. Ids are
-- assigned in array order.
INSERT INTO movements (at, sku, location, kind, on_hand, reserved, committed, ref, reason, actor)
SELECT coalesce(m.at, now()), m.sku, m.location, m.kind, m.on_hand, m.reserved, m.committed, m.ref, m.reason, m.actor
FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[],
            $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::text[])
     WITH ORDINALITY AS m (at, sku, location, kind, on_hand, reserved, committed, ref, reason, actor, n)
ORDER BY m.n;
