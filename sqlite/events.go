package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// EventAppend writes evs in as few statements as SQLite binds. Their
// positions are seqs, which follow commit order because one transaction
// writes at a time (see migrations/0004_events.sql). An empty payload is
// stored as JSON null; one that is not JSON is refused with EInvalid.
func (t *tx) EventAppend(ctx context.Context, evs ...stockade.DomainEvent) error {
	err := t.insertRows(ctx, appendEventsSQL, 7, len(evs), func(i int, row []any) []any {
		e := evs[i]
		return append(row, e.ID, e.Type, e.Aggregate, e.AggregateID, e.Version, micros(e.At), payloadText(e.Payload))
	})
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("append %d events", len(evs))
	if len(evs) == 1 {
		what = "append event " + evs[0].ID
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_CHECK:
		return fmt.Errorf("sqlite: %s: %w: %w", what, stockade.Errorf(stockade.EInvalid, "event payload is not JSON"), err)
	}
	return wrapf(err, "%s", what)
}

// payloadText is a payload as the store keeps it: JSON text, null for
// none.
func payloadText(p json.RawMessage) string {
	if len(p) == 0 {
		return "null"
	}
	return string(p)
}

// EventList reads in seq order. Every committed event is readable at once:
// with one writer at a time, none can still commit behind a seq that a
// reader has passed. Positions here have Tx 0, so an After with a Tx is
// past every one of them.
func (t *tx) EventList(ctx context.Context, f stockade.DomainEventFilter) ([]stockade.DomainEvent, error) {
	if f.After.Tx != 0 {
		return nil, nil
	}
	where := []string{`seq > ?`}
	args := []any{f.After.Seq}
	if len(f.Types) > 0 {
		types, err := json.Marshal(f.Types)
		if err != nil {
			return nil, fmt.Errorf("sqlite: events: %w", err)
		}
		where, args = append(where, `type IN (SELECT value FROM json_each(?))`), append(args, string(types))
	}
	if f.Aggregate != "" {
		where, args = append(where, `aggregate = ?`), append(args, f.Aggregate)
	}
	if f.AggregateID != "" {
		where, args = append(where, `aggregate_id = ?`), append(args, f.AggregateID)
	}
	q := eventsSQL + `WHERE ` + strings.Join(where, ` AND `) + "\nORDER BY seq LIMIT ?"
	return queryAll(ctx, t, "events", scanEvent, q, append(args, f.Limit)...)
}

// EventLatestPosition is the largest seq: with one writer at a time,
// every event committed later gets a larger one (see
// queries/latest_event_position.sql).
func (t *tx) EventLatestPosition(ctx context.Context) (stockade.EventPosition, error) {
	var pos stockade.EventPosition
	if err := t.tx.QueryRowContext(ctx, latestEventPositionSQL).Scan(&pos.Seq); err != nil {
		return stockade.EventPosition{}, wrapf(err, "latest event position")
	}
	return pos, nil
}

// scanEvent reads an event's columns: seq, id, type, aggregate,
// aggregate_id, version, at, payload.
func scanEvent(row rowScanner) (stockade.DomainEvent, error) {
	var (
		e       stockade.DomainEvent
		at      int64
		payload string
	)
	err := row.Scan(&e.Position.Seq, &e.ID, &e.Type, &e.Aggregate, &e.AggregateID, &e.Version, &at, &payload)
	e.At, e.Payload = fromMicros(at), json.RawMessage(payload)
	return e, err
}

// EventPrune deletes nothing for a limit below 1.
func (t *tx) EventPrune(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	res, err := t.tx.ExecContext(ctx, pruneEventsSQL, micros(before), limit)
	if err != nil {
		return 0, wrapf(err, "prune events")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "prune events")
	}
	return int(n), nil
}
