package postgres

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

var (
	//go:embed queries/put_location.sql
	putLocationSQL string
	//go:embed queries/locations.sql
	locationsSQL string
	//go:embed queries/sku_totals.sql
	skuTotalsSQL string
	//go:embed queries/location_levels.sql
	locationLevelsSQL string
	//go:embed queries/levels.sql
	levelsSQL string
	//go:embed queries/sku_levels.sql
	skuLevelsSQL string
	//go:embed queries/all_levels.sql
	allLevelsSQL string
	//go:embed queries/set_on_hand.sql
	setOnHandSQL string
	//go:embed queries/set_on_hand_miss.sql
	setOnHandMissSQL string
	//go:embed queries/update_level.sql
	updateLevelSQL string
	//go:embed queries/update_levels.sql
	updateLevelsSQL string
	//go:embed queries/append_movements.sql
	appendMovementsSQL string
	//go:embed queries/movements.sql
	movementsSQL string
	//go:embed queries/ledger_sums.sql
	ledgerSumsSQL string
	//go:embed queries/record_sums.sql
	recordSumsSQL string
	//go:embed queries/insert_reservations.sql
	insertReservationsSQL string
	//go:embed queries/reservation.sql
	reservationSQL string
	//go:embed queries/reservations.sql
	reservationsSQL string
	//go:embed queries/set_reservation_status.sql
	setReservationStatusSQL string
	//go:embed queries/reservation_lapse_candidates.sql
	reservationLapseCandidatesSQL string
	//go:embed queries/reservation_lapse_candidates_keys.sql
	reservationLapseCandidatesKeysSQL string
	//go:embed queries/insert_orders.sql
	insertOrdersSQL string
	//go:embed queries/order.sql
	orderSQL string
	//go:embed queries/set_order_status.sql
	setOrderStatusSQL string
	//go:embed queries/idempotencies.sql
	idempotenciesSQL string
	//go:embed queries/put_idempotency.sql
	putIdempotencySQL string
	//go:embed queries/purge_idempotency.sql
	purgeIdempotencySQL string
	//go:embed queries/advisory_lock.sql
	advisoryLockSQL string
	//go:embed queries/list_reservations.sql
	listReservationsSQL string
	//go:embed queries/list_orders.sql
	listOrdersSQL string
	//go:embed queries/list_holds.sql
	listHoldsSQL string
	//go:embed queries/list_bookings.sql
	listBookingsSQL string
	//go:embed queries/insert_key.sql
	insertKeySQL string
	//go:embed queries/key.sql
	keySQL string
	//go:embed queries/key_named.sql
	keyNamedSQL string
	//go:embed queries/keys.sql
	keysSQL string
	//go:embed queries/revoke_key.sql
	revokeKeySQL string
	//go:embed queries/append_events.sql
	appendEventsSQL string
	//go:embed queries/events.sql
	eventsSQL string
	//go:embed queries/prune_events.sql
	pruneEventsSQL string
	//go:embed queries/latest_event_position.sql
	latestEventPositionSQL string
	//go:embed queries/lock_relay.sql
	lockRelaySQL string
	//go:embed queries/relay_position.sql
	relayPositionSQL string
	//go:embed queries/set_relay_position.sql
	setRelayPositionSQL string
)

// replayMarkSQL writes a transactional WAL record that changes no table
// (a logical decoding message, which any user may emit), so that the
// transaction's COMMIT is a write that waits for a synchronous standby.
const replayMarkSQL = "SELECT pg_logical_emit_message(true, 'stockade', '')"

// defaultMovementLimit is the number of ledger rows Movements returns when
// the filter sets no limit.
const defaultMovementLimit = 1000

// forUpdate locks the rows a query selects; the queries that take it end
// with their ORDER BY, and the lock is taken in that order.
const forUpdate = "\nFOR UPDATE"

// tx is a stockade.Tx on a pgx transaction.
type tx struct {
	tx       executor
	readOnly bool
	// failed is the first error from a statement. PostgreSQL aborts the
	// transaction at a failed statement, so Update returns it even if fn
	// did not.
	failed error
	// appended: the transaction wrote events, which Update announces
	// once it has committed.
	appended bool
	// levelsAdded counts the levels the transaction created (upkeep.go).
	levelsAdded int
	// seatsPut counts the seats the transaction put; from vacuumSeatsAt,
	// Update has the seats table vacuumed once it has committed.
	seatsPut int
}

var _ stockade.Tx = (*tx)(nil)

// executor runs a tx's statements: a pgx.Tx, or a Peek's connection.
type executor interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// fail maps err, an error from a statement, and records it as the
// transaction's failure.
func (t *tx) fail(ctx context.Context, what string, err error) error {
	return t.failAt(ctx, what, "", err)
}

// failAt is fail for a statement that writes at location loc.
func (t *tx) failAt(ctx context.Context, what, loc string, err error) error {
	err = mapError(ctx, what, loc, err)
	if t.failed == nil {
		t.failed = err
	}
	return err
}

func (t *tx) LocationPut(ctx context.Context, loc stockade.Location) error {
	var at stockade.Point // 0, 0 for a location without a place
	if loc.Point != nil {
		at = *loc.Point
	}
	if _, err := t.tx.Exec(ctx, putLocationSQL, loc.ID, loc.Name, at.Lat, at.Lon, loc.Point != nil); err != nil {
		return t.fail(ctx, "put location "+strconv.Quote(loc.ID), err)
	}
	return nil
}

func (t *tx) LocationList(ctx context.Context, ids ...string) ([]stockade.Location, error) {
	rows, _ := t.tx.Query(ctx, locationsSQL, nonNil(ids))
	locs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Location, error) {
		var (
			l      stockade.Location
			at     stockade.Point
			placed bool
		)
		err := row.Scan(&l.ID, &l.Name, &at.Lat, &at.Lon, &placed)
		if placed {
			l.Point = &at
		}
		return l, err
	})
	if err != nil {
		return nil, t.fail(ctx, "locations", err)
	}
	return locs, nil
}

func (t *tx) SKUTotalList(ctx context.Context, after, from, to string, limit int) ([]stockade.SKUTotals, error) {
	rows, _ := t.tx.Query(ctx, skuTotalsSQL, after, from, to, limit)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.SKUTotals, error) {
		var s stockade.SKUTotals
		err := row.Scan(&s.SKU, &s.Totals.OnHand, &s.Totals.Reserved, &s.Totals.Committed)
		return s, err
	})
	if err != nil {
		return nil, t.fail(ctx, "sku totals", err)
	}
	return out, nil
}

// LevelList runs the query of what q selects by.
func (t *tx) LevelListAt(ctx context.Context, location, after, from, to string, limit int) ([]stockade.Level, error) {
	ls, err := t.levels(ctx, locationLevelsSQL, location, after, from, to, limit)
	if err != nil {
		return nil, t.fail(ctx, "levels at "+strconv.Quote(location), err)
	}
	return ls, nil
}

func (t *tx) LevelList(ctx context.Context, q stockade.LevelQuery) ([]stockade.Level, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	var (
		query, what string
		args        []any
	)
	switch {
	case q.All:
		query, what = allLevelsSQL, "all levels"
	case len(q.SKUs) > 0:
		query, what, args = skuLevelsSQL, skuLevelsWhat(q.SKUs), []any{q.SKUs}
	case len(q.Keys) > 0:
		skus, locs := splitKeys(q.Keys)
		query, what, args = levelsSQL, fmt.Sprintf("levels of %d keys", len(q.Keys)), []any{skus, locs}
	default:
		return nil, nil
	}
	if q.Lock {
		query += forUpdate
	}
	ls, err := t.levels(ctx, query, args...)
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	return ls, nil
}

// skuLevelsWhat names a query of the levels of skus in an error.
func skuLevelsWhat(skus []string) string {
	if len(skus) == 1 {
		return "levels of " + skus[0]
	}
	return fmt.Sprintf("levels of %d SKUs", len(skus))
}

func (t *tx) levels(ctx context.Context, q string, args ...any) ([]stockade.Level, error) {
	rows, _ := t.tx.Query(ctx, q, args...)
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Level, error) { return scanLevel(row) })
}

// scanLevel scans sku, location, on_hand, reserved, committed, version,
// fence.
func scanLevel(row pgx.Row) (stockade.Level, error) {
	var l stockade.Level
	var fence int64
	err := row.Scan(&l.SKU, &l.Location, &l.OnHand, &l.Reserved, &l.Committed, &l.Version, &fence)
	l.Fence = uint64(fence)
	return l, err
}

func (t *tx) LevelSetOnHand(ctx context.Context, k stockade.Key, onHand int64, expectedVersion *int64) (stockade.Level, bool, error) {
	what := "set on hand of " + k.String()
	if onHand < 0 {
		return stockade.Level{}, false, stockade.Errorf(stockade.EInvalid, fmt.Sprintf("%s: on hand %d is negative", k, onHand))
	}
	l, err := scanLevel(t.tx.QueryRow(ctx, setOnHandSQL, k.SKU, k.Location, onHand, expectedVersion))
	switch {
	case err == nil:
		if l.Version == 1 { // created: a level written again has a later version
			t.levelsAdded++
		}
		return l, true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return stockade.Level{}, false, t.failAt(ctx, what, k.Location, err)
	}
	// Nothing was written: find out why, from the state now.
	var locExists, levelExists bool
	var fence int64
	l = stockade.Level{SKU: k.SKU, Location: k.Location}
	err = t.tx.QueryRow(ctx, setOnHandMissSQL, k.SKU, k.Location).
		Scan(&locExists, &levelExists, &l.OnHand, &l.Reserved, &l.Committed, &l.Version, &fence)
	if err != nil {
		return stockade.Level{}, false, t.fail(ctx, what, err)
	}
	l.Fence = uint64(fence)
	switch {
	case !locExists:
		return stockade.Level{}, false, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("location %q not found", k.Location))
	case expectedVersion != nil && *expectedVersion != l.Version:
		return l, false, nil
	case onHand-l.Reserved-l.Committed < 0:
		return l, false, stockade.Errorf(stockade.EInsufficientStock, fmt.Sprintf(
			"%s: on hand %d would be below reserved %d plus committed %d", k, onHand, l.Reserved, l.Committed))
	}
	// The level changed between the two statements.
	return stockade.Level{}, false, fmt.Errorf("postgres: %s: %w: level changed concurrently", what, stockade.ErrConflict)
}

func (t *tx) LevelUpdate(ctx context.Context, k stockade.Key, d stockade.Delta, guard stockade.Guard) (stockade.Level, bool, error) {
	if guard.Fence > math.MaxInt64 {
		return stockade.Level{}, false, stockade.Errorf(stockade.EInvalid,
			fmt.Sprintf("update level %s: fencing token %d is above 2^63-1, which the store cannot hold", k, guard.Fence))
	}
	l, err := scanLevel(t.tx.QueryRow(ctx, updateLevelSQL,
		k.SKU, k.Location, d.OnHand, d.Reserved, d.Committed, guard.Version, int64(guard.Fence)))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Level{}, false, nil
	case err != nil:
		return stockade.Level{}, false, t.fail(ctx, "update level "+k.String(), err)
	}
	return l, true, nil
}

func (t *tx) LevelUpdateMany(ctx context.Context, changes []stockade.LevelChange) ([]stockade.Level, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	var (
		skus, locs                  = make([]string, len(changes)), make([]string, len(changes))
		onHand, reserved, committed = make([]int64, len(changes)), make([]int64, len(changes)), make([]int64, len(changes))
	)
	for i, c := range changes {
		skus[i], locs[i] = c.SKU, c.Location
		onHand[i], reserved[i], committed[i] = c.OnHand, c.Reserved, c.Committed
	}
	ls, err := t.levels(ctx, updateLevelsSQL, skus, locs, onHand, reserved, committed)
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("update %d levels", len(changes)), err)
	}
	slices.SortFunc(ls, func(a, b stockade.Level) int { return a.Key().Compare(b.Key()) })
	return ls, nil
}

func (t *tx) MovementAppend(ctx context.Context, ms ...stockade.Movement) error {
	if len(ms) == 0 {
		return nil
	}
	var (
		at                          = make([]pgtype.Timestamptz, len(ms))
		skus, locs, kinds           = make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
		onHand, reserved, committed = make([]int64, len(ms)), make([]int64, len(ms)), make([]int64, len(ms))
		refs, reasons, actors       = make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
	)
	for i, m := range ms {
		at[i] = pgtype.Timestamptz{Time: m.At, Valid: !m.At.IsZero()}
		skus[i], locs[i], kinds[i] = m.SKU, m.Location, string(m.Kind)
		onHand[i], reserved[i], committed[i] = m.OnHand, m.Reserved, m.Committed
		refs[i], reasons[i], actors[i] = m.Ref, m.Reason, m.Actor
	}
	_, err := t.tx.Exec(ctx, appendMovementsSQL, at, skus, locs, kinds, onHand, reserved, committed, refs, reasons, actors)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("append %d movements", len(ms)), err)
	}
	return nil
}

func (t *tx) MovementList(ctx context.Context, f stockade.MovementFilter) ([]stockade.Movement, error) {
	var (
		q    strings.Builder
		args []any
		and  = "\nWHERE "
	)
	q.WriteString(movementsSQL)
	cond := func(expr string, arg any) {
		args = append(args, arg)
		fmt.Fprintf(&q, "%s%s $%d", and, expr, len(args))
		and = " AND "
	}
	if f.SKU != "" {
		cond("sku =", f.SKU)
	}
	if f.Location != "" {
		cond("location =", f.Location)
	}
	if f.Ref != "" {
		cond("ref =", f.Ref)
	}
	if f.AfterID != 0 {
		cond("id >", f.AfterID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultMovementLimit
	}
	args = append(args, limit)
	fmt.Fprintf(&q, "\nORDER BY id\nLIMIT $%d", len(args))

	rows, _ := t.tx.Query(ctx, q.String(), args...)
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Movement, error) {
		var m stockade.Movement
		var kind string
		err := row.Scan(&m.ID, &m.At, &m.SKU, &m.Location, &kind, &m.OnHand, &m.Reserved, &m.Committed, &m.Ref, &m.Reason, &m.Actor)
		m.At, m.Kind = m.At.UTC(), stockade.MovementKind(kind)
		return m, err
	})
	if err != nil {
		return nil, t.fail(ctx, "movements", err)
	}
	return ms, nil
}

func (t *tx) MovementSums(ctx context.Context) (map[stockade.Key]stockade.Delta, error) {
	return t.sums(ctx, "ledger sums", ledgerSumsSQL,
		func(d *stockade.Delta) []any { return []any{&d.OnHand, &d.Reserved, &d.Committed} })
}

func (t *tx) AllocationSums(ctx context.Context) (map[stockade.Key]stockade.Delta, error) {
	return t.sums(ctx, "record sums", recordSumsSQL,
		func(d *stockade.Delta) []any { return []any{&d.Reserved, &d.Committed} })
}

// sums runs q, whose rows are a level's sku and location and then the
// sums that fields points into, and returns the sums by level.
func (t *tx) sums(ctx context.Context, what, q string, fields func(d *stockade.Delta) []any) (map[stockade.Key]stockade.Delta, error) {
	rows, _ := t.tx.Query(ctx, q)
	sums := make(map[stockade.Key]stockade.Delta)
	var (
		k stockade.Key
		d stockade.Delta
	)
	_, err := pgx.ForEachRow(rows, append([]any{&k.SKU, &k.Location}, fields(&d)...), func() error {
		sums[k] = d
		return nil
	})
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	return sums, nil
}

func (t *tx) ReservationInsert(ctx context.Context, rs ...stockade.Reservation) error {
	if len(rs) == 0 {
		return nil
	}
	what := "insert reservation " + strconv.Quote(rs[0].ID)
	if len(rs) > 1 {
		what = fmt.Sprintf("insert %d reservations", len(rs))
	}
	var (
		ids, statuses, orderIDs = make([]string, len(rs)), make([]string, len(rs)), make([]string, len(rs))
		owners, metas           = make([]string, len(rs)), make([]string, len(rs))
		created, expires        = make([]time.Time, len(rs)), make([]time.Time, len(rs))
		lines, allocs           = make([]string, len(rs)), make([]string, len(rs))
		// One row per allocation.
		aIDs, aSKUs, aLocs []string
		aNs                []int32
		aQty               []int64
	)
	for i, r := range rs {
		l, a, err := marshalLines(r.Lines, r.Allocations)
		if err != nil {
			return fmt.Errorf("postgres: insert reservation %q: %w", r.ID, err)
		}
		ids[i], statuses[i], orderIDs[i], owners[i], metas[i] = r.ID, string(r.Status), r.OrderID, r.Owner, marshalMetadata(r.Metadata)
		created[i], expires[i] = r.CreatedAt, r.ExpiresAt
		lines[i], allocs[i] = string(l), string(a)
		for n, al := range r.Allocations {
			aIDs, aNs = append(aIDs, r.ID), append(aNs, int32(n+1))
			aSKUs, aLocs, aQty = append(aSKUs, al.SKU), append(aLocs, al.Location), append(aQty, al.Quantity)
		}
	}
	_, err := t.tx.Exec(ctx, insertReservationsSQL, ids, statuses, created, expires, orderIDs, lines, allocs, owners,
		nonNil(aIDs), nonNil(aNs), nonNil(aSKUs), nonNil(aLocs), nonNil(aQty), metas)
	if err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

func (t *tx) ReservationGet(ctx context.Context, by stockade.ByID) (stockade.Reservation, error) {
	q := reservationSQL
	if by.Lock {
		q += forUpdate
	}
	r, err := scanReservation(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Reservation{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("reservation %q not found", by.ID))
	case err != nil:
		return stockade.Reservation{}, t.fail(ctx, "reservation "+strconv.Quote(by.ID), err)
	}
	return r, nil
}

func (t *tx) ReservationGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Reservation, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	q := reservationsSQL
	if by.Lock {
		q += forUpdate
	}
	rows, _ := t.tx.Query(ctx, q, by.IDs)
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Reservation, error) { return scanReservation(row) })
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("%d reservations", len(by.IDs)), err)
	}
	return rs, nil
}

// scanReservation scans id, status, created_at, expires_at, order_id,
// lines, allocations, owner.
func scanReservation(row pgx.Row) (stockade.Reservation, error) {
	var (
		r             stockade.Reservation
		status        string
		lines, allocs []byte
		meta          []byte
	)
	if err := row.Scan(&r.ID, &status, &r.CreatedAt, &r.ExpiresAt, &r.OrderID, &lines, &allocs, &r.Owner, &meta); err != nil {
		return r, err
	}
	if err := unmarshalMetadata(meta, &r.Metadata); err != nil {
		return r, err
	}
	r.Status, r.CreatedAt, r.ExpiresAt = stockade.ReservationStatus(status), r.CreatedAt.UTC(), r.ExpiresAt.UTC()
	var err error
	r.Lines, r.Allocations, err = unmarshalLines(lines, allocs)
	return r, err
}

func (t *tx) ReservationSetStatus(ctx context.Context, id string, from, to stockade.ReservationStatus, orderID string) (bool, error) {
	tag, err := t.tx.Exec(ctx, setReservationStatusSQL, id, string(from), string(to), orderID)
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("set reservation %q %s → %s", id, from, to), err)
	}
	return tag.RowsAffected() == 1, nil
}

// ReservationLapseCandidates implements stockade.Tx: without keys (a
// sweeper) with FOR UPDATE SKIP LOCKED, with keys without locks (see the
// queries); then the candidates' payments, in a second statement (see
// paymentStatuses).
func (t *tx) ReservationLapseCandidates(ctx context.Context, q stockade.ReservationLapseQuery) ([]stockade.ReservationLapseCandidate, error) {
	args := []any{q.ExpiredBefore, q.After.ExpiresAt, q.After.ID, limitArg(q.Limit, false)}
	sql := reservationLapseCandidatesSQL
	if len(q.Keys) > 0 {
		skus, locs := splitKeys(q.Keys)
		sql, args = reservationLapseCandidatesKeysSQL, append(args, skus, locs)
	}
	rows, _ := t.tx.Query(ctx, sql, args...)
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Reservation, error) { return scanReservation(row) })
	if err != nil {
		return nil, t.fail(ctx, "reservation lapse candidates", err)
	}
	statuses, err := paymentStatuses(ctx, t, "reservation lapse candidates", stockade.PayReservation, rs, func(r stockade.Reservation) string { return r.ID })
	if err != nil {
		return nil, err
	}
	cs := make([]stockade.ReservationLapseCandidate, len(rs))
	for i, r := range rs {
		cs[i] = stockade.ReservationLapseCandidate{Reservation: r, Payment: statuses[r.ID]}
	}
	return cs, nil
}

func (t *tx) OrderInsert(ctx context.Context, orders ...stockade.Order) error {
	if len(orders) == 0 {
		return nil
	}
	what := "insert order " + strconv.Quote(orders[0].ID)
	if len(orders) > 1 {
		what = fmt.Sprintf("insert %d orders", len(orders))
	}
	var (
		ids, statuses, resIDs = make([]string, len(orders)), make([]string, len(orders)), make([]string, len(orders))
		owners, metas         = make([]string, len(orders)), make([]string, len(orders))
		created               = make([]time.Time, len(orders))
		lines, allocs         = make([]string, len(orders)), make([]string, len(orders))
	)
	for i, o := range orders {
		l, a, err := marshalLines(o.Lines, o.Allocations)
		if err != nil {
			return fmt.Errorf("postgres: insert order %q: %w", o.ID, err)
		}
		ids[i], statuses[i], resIDs[i], created[i], owners[i] = o.ID, string(o.Status), o.ReservationID, o.CreatedAt, o.Owner
		lines[i], allocs[i], metas[i] = string(l), string(a), marshalMetadata(o.Metadata)
	}
	if _, err := t.tx.Exec(ctx, insertOrdersSQL, ids, statuses, created, resIDs, lines, allocs, owners, metas); err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

func (t *tx) OrderGet(ctx context.Context, by stockade.ByID) (stockade.Order, error) {
	q := orderSQL
	if by.Lock {
		q += forUpdate
	}
	o, err := scanOrder(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Order{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("order %q not found", by.ID))
	case err != nil:
		return stockade.Order{}, t.fail(ctx, "order "+strconv.Quote(by.ID), err)
	}
	return o, nil
}

// scanOrder scans id, status, created_at, reservation_id, lines,
// allocations, owner, version, metadata, shipped.
func scanOrder(row pgx.Row) (stockade.Order, error) {
	var (
		o             stockade.Order
		status        string
		lines, allocs []byte
		meta, shipped []byte
	)
	if err := row.Scan(&o.ID, &status, &o.CreatedAt, &o.ReservationID, &lines, &allocs, &o.Owner, &o.Version, &meta, &shipped); err != nil {
		return o, err
	}
	if err := unmarshalMetadata(meta, &o.Metadata); err != nil {
		return o, err
	}
	if err := unmarshalShipped(shipped, &o.Shipped); err != nil {
		return o, err
	}
	o.Status, o.CreatedAt = stockade.OrderStatus(status), o.CreatedAt.UTC()
	var err error
	o.Lines, o.Allocations, err = unmarshalLines(lines, allocs)
	return o, err
}

func (t *tx) OrderSetStatus(ctx context.Context, id string, from, to stockade.OrderStatus) (bool, error) {
	tag, err := t.tx.Exec(ctx, setOrderStatusSQL, id, string(from), string(to))
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("set order %q %s → %s", id, from, to), err)
	}
	return tag.RowsAffected() == 1, nil
}

// metadataTables are the tables of the aggregates that carry metadata.
var metadataTables = map[string]string{
	stockade.AggregateReservation: "reservations",
	stockade.AggregateOrder:       "orders",
	stockade.AggregateHold:        "holds",
	stockade.AggregateBooking:     "bookings",
	stockade.AggregatePayment:     "payments",
}

// MetadataSet implements stockade.Tx.
func (t *tx) MetadataSet(ctx context.Context, aggregate, id string, m stockade.Metadata) (bool, error) {
	table, ok := metadataTables[aggregate]
	if !ok {
		return false, fmt.Errorf("postgres: set metadata: %q carries no metadata", aggregate)
	}
	tag, err := t.tx.Exec(ctx, "UPDATE "+table+" SET metadata = $2::jsonb WHERE id = $1::text", id, marshalMetadata(m))
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("set the metadata of %s %q", aggregate, id), err)
	}
	return tag.RowsAffected() == 1, nil
}

// IdempotencyGetMany implements stockade.Tx. In a read-write transaction it
// first takes a transaction-scoped advisory lock on each key (see
// idempotencyLockID), in the order of the lock ids, so that two
// transactions that read a key and then claim it with IdempotencyPut run
// one after the other: the second reads what the first wrote. READ
// COMMITTED alone would let both read "no record" and both claim the key.
// The locks and the read go in one round trip; the read, a statement of
// its own, takes its snapshot once every lock is granted. When it finds a
// record, a read-write transaction writes a WAL record of its own, so
// that its COMMIT waits for a synchronous standby even when it only
// replays the record (see Durable commits in the package documentation).
func (t *tx) IdempotencyGetMany(ctx context.Context, keys []string) ([]stockade.IdempotencyRecord, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	what := "idempotency record " + strconv.Quote(keys[0])
	if len(keys) > 1 {
		what = fmt.Sprintf("%d idempotency records", len(keys))
	}
	b := &pgx.Batch{}
	var ids []int64
	if !t.readOnly {
		ids = make([]int64, len(keys))
		for i, k := range keys {
			ids[i] = idempotencyLockID(k)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for _, id := range ids {
			b.Queue(advisoryLockSQL, id)
		}
	}
	b.Queue(idempotenciesSQL, keys)
	br := t.tx.SendBatch(ctx, b)
	defer br.Close()
	for range ids {
		if _, err := br.Exec(); err != nil {
			return nil, t.fail(ctx, what, err)
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	recs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.IdempotencyRecord, error) {
		var rec stockade.IdempotencyRecord
		err := row.Scan(&rec.Key, &rec.Op, &rec.Fingerprint, &rec.Result, &rec.CreatedAt)
		rec.CreatedAt = rec.CreatedAt.UTC()
		return rec, err
	})
	if err != nil {
		return nil, t.fail(ctx, what, err)
	}
	if len(recs) > 0 && !t.readOnly {
		// A replay: its COMMIT must wait for a synchronous standby as a
		// write's does, since the server shows a commit before its
		// standby has it. A transaction that wrote no WAL does not wait,
		// so it writes a record of its own.
		br.Close()
		if _, err := t.tx.Exec(ctx, replayMarkSQL); err != nil {
			return nil, t.fail(ctx, what, err)
		}
	}
	return recs, nil
}

func (t *tx) IdempotencyPut(ctx context.Context, recs ...stockade.IdempotencyRecord) error {
	if len(recs) == 0 {
		return nil
	}
	what := "put idempotency record " + strconv.Quote(recs[0].Key)
	if len(recs) > 1 {
		what = fmt.Sprintf("put %d idempotency records", len(recs))
	}
	var (
		keys, ops, prints = make([]string, len(recs)), make([]string, len(recs)), make([]string, len(recs))
		results           = make([][]byte, len(recs))
		created           = make([]time.Time, len(recs))
	)
	for i, r := range recs {
		keys[i], ops[i], prints[i], results[i], created[i] = r.Key, r.Op, r.Fingerprint, r.Result, r.CreatedAt
	}
	if _, err := t.tx.Exec(ctx, putIdempotencySQL, keys, ops, prints, results, created); err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

func (t *tx) IdempotencyPurge(ctx context.Context, before time.Time) (int, error) {
	tag, err := t.tx.Exec(ctx, purgeIdempotencySQL, before)
	if err != nil {
		return 0, t.fail(ctx, "purge idempotency records", err)
	}
	return int(tag.RowsAffected()), nil
}

// AdvisoryLock implements stockade.Tx with pg_advisory_xact_lock on the
// LockID of each key. The locks are taken one by one, in one round trip,
// in the order of their ids rather than of the keys: any fixed order keeps
// AdvisoryLock callers from waiting on each other in a cycle, and this one
// also does when two keys' ids collide (in key order, the colliding ids
// could be taken in opposite orders by two transactions).
func (t *tx) AdvisoryLock(ctx context.Context, keys []stockade.Key) error {
	ids := make([]int64, len(keys))
	for i, k := range keys {
		ids[i] = LockID(k)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue(advisoryLockSQL, id)
	}
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return t.fail(ctx, fmt.Sprintf("advisory lock on %d keys", len(keys)), err)
	}
	return nil
}

// splitKeys returns the SKUs and locations of keys, pairwise.
func splitKeys(keys []stockade.Key) (skus, locs []string) {
	skus, locs = make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		skus[i], locs[i] = k.SKU, k.Location
	}
	return skus, locs
}

// nonNil returns s, or an empty slice if s is nil: pgx sends a nil slice
// as NULL.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// marshalLines encodes lines and allocations as JSON for jsonb columns. A
// nil slice becomes JSON null, so that it reads back nil.
func marshalLines(lines []stockade.Line, allocs []stockade.Allocation) (l, a []byte, err error) {
	if l, err = json.Marshal(lines); err != nil {
		return nil, nil, err
	}
	if a, err = json.Marshal(allocs); err != nil {
		return nil, nil, err
	}
	return l, a, nil
}

func unmarshalLines(l, a []byte) (lines []stockade.Line, allocs []stockade.Allocation, err error) {
	if err := json.Unmarshal(l, &lines); err != nil {
		return nil, nil, fmt.Errorf("decode lines: %w", err)
	}
	if err := json.Unmarshal(a, &allocs); err != nil {
		return nil, nil, fmt.Errorf("decode allocations: %w", err)
	}
	return lines, allocs, nil
}

// marshalMetadata is m as the JSON text its column holds: '{}' for none.
func marshalMetadata(m stockade.Metadata) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // cannot fail: strings only
	return string(b)
}

// unmarshalMetadata reads a metadata column into m, nil for '{}'.
func unmarshalMetadata(b []byte, m *stockade.Metadata) error {
	var out stockade.Metadata
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("decode metadata: %w", err)
	}
	if len(out) > 0 {
		*m = out
	}
	return nil
}
