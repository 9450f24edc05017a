-- Events after position ($1 xid8, $2 bigint), in position order, written
-- by transactions older than the oldest one still running when the
-- statement's snapshot was taken (its xmin): those have all ended, and any
-- that commits later has a higher xid, so no event can still appear behind
-- one that this returns. In a View (REPEATABLE READ) the snapshot is the
-- transaction's; in an Update, the statement's, and once the Update has
-- written, it is itself among those still running, so it reads nothing
-- that it wrote, nor anything written after its first write. The store
-- appends the conditions of the filter's non-zero fields (type = ANY,
-- aggregate, aggregate_id), then ORDER BY xid, seq and LIMIT, so that each
-- combination reads the primary key or, for one aggregate,
-- events_aggregate_id, from the position on.
SELECT xid, seq, id, type, aggregate, aggregate_id, version, at, payload
FROM events
WHERE (xid, seq) > ($1::xid8, $2::bigint)
  AND xid < pg_snapshot_xmin(pg_current_snapshot())
