-- Events, in position order. The store appends the WHERE clause: the
-- position to read after (seq > ?), then the conditions of the filter's
-- non-zero fields (type in a JSON array of types, aggregate,
-- aggregate_id), so that a reader of one aggregate uses
-- events_aggregate_id; then ORDER BY seq and LIMIT ?.
SELECT seq, id, type, aggregate, aggregate_id, version, at, payload
FROM events
