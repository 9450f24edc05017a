package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// invalidTextRepresentation is the SQLSTATE of a payload that is not JSON.
const invalidTextRepresentation = "22P02"

// EventAppend writes evs in one statement. Each takes as its position the
// writing transaction's id and the next seq (see
// migrations/0004_events.sql). An empty payload is stored as JSON null; one
// that is not JSON is refused with EInvalid.
func (t *tx) EventAppend(ctx context.Context, evs ...stockade.DomainEvent) error {
	if len(evs) == 0 {
		return nil
	}
	var (
		ids, types, aggs, aggIDs = make([]string, len(evs)), make([]string, len(evs)), make([]string, len(evs)), make([]string, len(evs))
		versions                 = make([]int64, len(evs))
		at                       = make([]time.Time, len(evs))
		payloads                 = make([]string, len(evs))
	)
	for i, e := range evs {
		ids[i], types[i], aggs[i], aggIDs[i] = e.ID, e.Type, e.Aggregate, e.AggregateID
		versions[i], at[i], payloads[i] = e.Version, e.At, string(e.Payload)
		if len(e.Payload) == 0 {
			payloads[i] = "null"
		}
	}
	_, err := t.tx.Exec(ctx, appendEventsSQL, ids, types, aggs, aggIDs, versions, at, payloads)
	if err == nil {
		t.appended = true
		return nil
	}
	what := fmt.Sprintf("append %d events", len(evs))
	if len(evs) == 1 {
		what = "append event " + strconv.Quote(evs[0].ID)
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == invalidTextRepresentation {
		err = fmt.Errorf("%w: %w", stockade.Errorf(stockade.EInvalid, "event payload is not JSON"), err)
	}
	return t.fail(ctx, what, err)
}

// EventList reads events in (xid, seq) order, only those of transactions
// that no running transaction can come before: see queries/events.sql.
// Only the conditions in use are spelled out, so that each combination
// gets a plan on its index.
func (t *tx) EventList(ctx context.Context, f stockade.DomainEventFilter) ([]stockade.DomainEvent, error) {
	var (
		q    strings.Builder
		args = []any{f.After.Tx, f.After.Seq}
	)
	q.WriteString(eventsSQL)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if len(f.Types) > 0 {
		q.WriteString("\n  AND type = ANY (" + arg(f.Types) + "::text[])")
	}
	if f.Aggregate != "" {
		q.WriteString("\n  AND aggregate = " + arg(f.Aggregate) + "::text")
	}
	if f.AggregateID != "" {
		q.WriteString("\n  AND aggregate_id = " + arg(f.AggregateID) + "::text")
	}
	q.WriteString("\nORDER BY xid, seq\nLIMIT " + arg(f.Limit) + "::bigint")
	rows, _ := t.tx.Query(ctx, q.String(), args...)
	evs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.DomainEvent, error) {
		var e stockade.DomainEvent
		err := row.Scan(&e.Position.Tx, &e.Position.Seq, &e.ID, &e.Type, &e.Aggregate, &e.AggregateID, &e.Version, &e.At, &e.Payload)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, t.fail(ctx, "events", err)
	}
	return evs, nil
}

// EventLatestPosition is (xmin - 1, math.MaxInt64), xmin being the
// snapshot's. Events compares positions as (xid, seq) pairs, and no seq
// is above math.MaxInt64, so the events after the head are exactly those
// of transactions at or above xmin: the ones running now and the ones
// that take an id later. Those below xmin have ended, and Events reads
// their events from now on: they are at or before the head. See
// queries/latest_event_position.sql. An event that has committed but that
// an older transaction still running holds back is after the head, so a
// reader that starts there reads it once it is readable.
func (t *tx) EventLatestPosition(ctx context.Context) (stockade.EventPosition, error) {
	var xmin uint64
	if err := t.tx.QueryRow(ctx, latestEventPositionSQL).Scan(&xmin); err != nil {
		return stockade.EventPosition{}, t.fail(ctx, "latest event position", err)
	}
	if xmin == 0 { // cannot happen: transaction ids start at 3
		return stockade.EventPosition{}, nil
	}
	return stockade.EventPosition{Tx: xmin - 1, Seq: math.MaxInt64}, nil
}

// EventPrune deletes nothing for a limit below 1.
func (t *tx) EventPrune(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	tag, err := t.tx.Exec(ctx, pruneEventsSQL, before, limit)
	if err != nil {
		return 0, t.fail(ctx, "prune events", err)
	}
	return int(tag.RowsAffected()), nil
}
