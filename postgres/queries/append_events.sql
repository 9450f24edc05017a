-- Append events, given as parallel arrays: $1 id, $2 type, $3 aggregate,
-- $4 aggregate_id, $5 version, $6 at, $7 payload (JSON text). xid, the
-- writing transaction's id, is the column's default; seqs are assigned in
-- array order.
INSERT INTO events (id, type, aggregate, aggregate_id, version, at, payload)
SELECT e.id, e.type, e.aggregate, e.aggregate_id, e.version, e.at, e.payload::json
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[])
     WITH ORDINALITY AS e (id, type, aggregate, aggregate_id, version, at, payload, n)
ORDER BY e.n;
