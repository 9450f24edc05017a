package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// tx is one transaction. Its lock arguments are ignored: an Update holds
// the database's one write lock from BEGIN IMMEDIATE to COMMIT, so no
// other writer can change a row it has read, and a View needs no locks.
type tx struct {
	tx querier
}

// querier runs a tx's statements: a *sql.Tx, or for a Peek the read-only
// connections' *sql.DB, on which each statement is a transaction of its
// own.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var _ stockade.Tx = (*tx)(nil)

// defaultMovementLimit is the number of rows Movements returns when the
// filter sets no limit.
const defaultMovementLimit = 1000

// micros is how times are stored: Unix microseconds, UTC.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// keysJSON encodes keys for json_each: [["sku","location"], …].
func keysJSON(keys []stockade.Key) string {
	pairs := make([][2]string, len(keys))
	for i, k := range keys {
		pairs[i] = [2]string{k.SKU, k.Location}
	}
	b, _ := json.Marshal(pairs) // cannot fail: strings only
	return string(b)
}

func (t *tx) LocationPut(ctx context.Context, loc stockade.Location) error {
	var at stockade.Point // 0, 0 for a location without a place
	if loc.Point != nil {
		at = *loc.Point
	}
	_, err := t.tx.ExecContext(ctx, putLocationSQL, loc.ID, loc.Name, at.Lat, at.Lon, loc.Point != nil)
	if err != nil {
		return wrapf(err, "put location %s", loc.ID)
	}
	return nil
}

func (t *tx) LocationList(ctx context.Context, ids ...string) ([]stockade.Location, error) {
	var list any // NULL: every location
	if len(ids) > 0 {
		b, _ := json.Marshal(ids) // cannot fail: strings only
		list = string(b)
	}
	rows, err := t.tx.QueryContext(ctx, locationsSQL, list)
	if err != nil {
		return nil, wrapf(err, "locations")
	}
	defer rows.Close()
	var locs []stockade.Location
	for rows.Next() {
		var (
			l      stockade.Location
			at     stockade.Point
			placed bool
		)
		if err := rows.Scan(&l.ID, &l.Name, &at.Lat, &at.Lon, &placed); err != nil {
			return nil, wrapf(err, "locations")
		}
		if placed {
			l.Point = &at
		}
		locs = append(locs, l)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapf(err, "locations")
	}
	return locs, nil
}

func (t *tx) SKUTotalList(ctx context.Context, after, from, to string, limit int) ([]stockade.SKUTotals, error) {
	rows, err := t.tx.QueryContext(ctx, skuTotalsSQL, after, from, to, limit)
	if err != nil {
		return nil, wrapf(err, "sku totals")
	}
	defer rows.Close()
	var out []stockade.SKUTotals
	for rows.Next() {
		var s stockade.SKUTotals
		if err := rows.Scan(&s.SKU, &s.Totals.OnHand, &s.Totals.Reserved, &s.Totals.Committed); err != nil {
			return nil, wrapf(err, "sku totals")
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapf(err, "sku totals")
	}
	return out, nil
}

// scanLevel reads a level's columns: sku, location, on_hand, reserved,
// committed, version, fence.
func scanLevel(row rowScanner) (stockade.Level, error) {
	var l stockade.Level
	var fence int64
	err := row.Scan(&l.SKU, &l.Location, &l.OnHand, &l.Reserved, &l.Committed, &l.Version, &fence)
	l.Fence = uint64(fence)
	return l, err
}

// levels runs a query for levels and collects them.
func (t *tx) LevelListAt(ctx context.Context, location, after, from, to string, limit int) ([]stockade.Level, error) {
	return t.levels(ctx, "levels at "+location, locationLevelsSQL, location, after, from, to, limit)
}

func (t *tx) levels(ctx context.Context, op, q string, args ...any) ([]stockade.Level, error) {
	return queryAll(ctx, t, op, scanLevel, q, args...)
}

// rowScanner is a row of a query result.
type rowScanner interface{ Scan(...any) error }

// lastColumn is a row with one more column than a scan function of a
// record reads: the scan reads the record's, and the last goes into dest.
type lastColumn struct {
	rowScanner
	dest any
}

func (r lastColumn) Scan(dest ...any) error { return r.rowScanner.Scan(append(dest, r.dest)...) }

// sqliteLimit is a LIMIT argument: limit, or -1 (none) for 0 or less.
func sqliteLimit(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

// queryAll runs q and returns every row, read by scan; op names the query
// in errors.
func queryAll[T any](ctx context.Context, t *tx, op string, scan func(rowScanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := t.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrapf(err, "%s", op)
	}
	defer rows.Close()
	var vs []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, wrapf(err, "%s", op)
		}
		vs = append(vs, v)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapf(err, "%s", op)
	}
	return vs, nil
}

// LevelList runs the query of what q selects by. It ignores q.Lock; see
// tx.
func (t *tx) LevelList(ctx context.Context, q stockade.LevelQuery) ([]stockade.Level, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	switch {
	case q.All:
		return t.levels(ctx, "all levels", allLevelsSQL)
	case len(q.SKUs) == 1:
		return t.levels(ctx, "levels of "+q.SKUs[0], skuLevelSQL, q.SKUs[0])
	case len(q.SKUs) > 1:
		list, err := json.Marshal(q.SKUs)
		if err != nil {
			return nil, fmt.Errorf("sqlite: levels of %d SKUs: %w", len(q.SKUs), err)
		}
		return t.levels(ctx, fmt.Sprintf("levels of %d SKUs", len(q.SKUs)), skuLevelsSQL, string(list))
	case len(q.Keys) > 0:
		return t.levels(ctx, "levels", levelsSQL, keysJSON(q.Keys))
	}
	return nil, nil
}

// LevelSetOnHand writes in one statement: an upsert, an insert if missing, or
// an update at a version. When it does not write, it returns the current
// level (the zero Level if there is none) and false.
func (t *tx) LevelSetOnHand(ctx context.Context, k stockade.Key, onHand int64, expectedVersion *int64) (stockade.Level, bool, error) {
	if onHand < 0 {
		return stockade.Level{}, false, stockade.Errorf(stockade.EInvalid,
			fmt.Sprintf("%s: on hand %d is negative", k, onHand))
	}
	var one int
	err := t.tx.QueryRowContext(ctx, locationExistsSQL, k.Location).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Level{}, false, stockade.Errorf(stockade.ENotFound,
			fmt.Sprintf("location %q not found", k.Location))
	}
	if err != nil {
		return stockade.Level{}, false, wrapf(err, "set on hand %s", k)
	}

	var q string
	args := []any{k.SKU, k.Location, onHand}
	switch {
	case expectedVersion == nil:
		q = setOnHandSQL
	case *expectedVersion == 0:
		q = setOnHandNewSQL
	default:
		q = setOnHandAtSQL
		args = append(args, *expectedVersion)
	}
	l, err := scanLevel(t.tx.QueryRowContext(ctx, q, args...))
	switch {
	case err == nil:
		return l, true, nil
	case errors.Is(err, sql.ErrNoRows):
		ls, err := t.LevelList(ctx, stockade.LevelQuery{Keys: []stockade.Key{k}})
		if err != nil || len(ls) == 0 {
			return stockade.Level{}, false, err
		}
		return ls[0], false, nil
	case sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_CHECK:
		return stockade.Level{}, false, stockade.Errorf(stockade.EInsufficientStock,
			fmt.Sprintf("%s: on hand %d is less than reserved and committed", k, onHand))
	}
	return stockade.Level{}, false, wrapf(err, "set on hand %s", k)
}

// LevelUpdate checks and writes in one conditional UPDATE: the WHERE
// clause holds every condition, so zero rows means refused.
func (t *tx) LevelUpdate(ctx context.Context, k stockade.Key, d stockade.Delta, guard stockade.Guard) (stockade.Level, bool, error) {
	if guard.Fence > math.MaxInt64 {
		return stockade.Level{}, false, stockade.Errorf(stockade.EInvalid,
			fmt.Sprintf("%s: fencing token %d out of range", k, guard.Fence))
	}
	var version any // NULL: any version
	if guard.Version != nil {
		version = *guard.Version
	}
	l, err := scanLevel(t.tx.QueryRowContext(ctx, updateLevelSQL,
		k.SKU, k.Location, d.OnHand, d.Reserved, d.Committed, int64(guard.Fence), version))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Level{}, false, nil
	}
	if err != nil {
		return stockade.Level{}, false, wrapf(err, "update level %s", k)
	}
	return l, true, nil
}

// LevelUpdateMany runs LevelUpdate for each change: in process, one
// statement per level costs little.
func (t *tx) LevelUpdateMany(ctx context.Context, changes []stockade.LevelChange) ([]stockade.Level, error) {
	var ls []stockade.Level
	for _, c := range changes {
		l, ok, err := t.LevelUpdate(ctx, c.Key, c.Delta, stockade.Guard{})
		if err != nil {
			return nil, err
		}
		if ok {
			ls = append(ls, l)
		}
	}
	slices.SortFunc(ls, func(a, b stockade.Level) int { return a.Key().Compare(b.Key()) })
	return ls, nil
}

func (t *tx) MovementAppend(ctx context.Context, ms ...stockade.Movement) error {
	err := t.insertRows(ctx, appendMovementsSQL, 10, len(ms), func(i int, row []any) []any {
		m := ms[i]
		return append(row, micros(m.At), m.SKU, m.Location, string(m.Kind), m.OnHand, m.Reserved, m.Committed, m.Ref, m.Reason, m.Actor)
	})
	if err != nil {
		return wrapf(err, "append %d movements", len(ms))
	}
	return nil
}

// maxVariables is the most parameters SQLite binds in one statement (its
// SQLITE_MAX_VARIABLE_NUMBER, 32766 since 3.32).
const maxVariables = 32766

// insertRows runs insert, which ends in VALUES, for n rows of cols values
// each, which row appends for row i, followed by tail (such as an ON
// CONFLICT clause), if any: as many rows per statement as SQLite binds, so
// that a batch costs a few statements instead of one per row. Rows are
// inserted in order. The rows are spelled out here, not in the statement's
// file, because their number varies: the file ends at VALUES.
func (t *tx) insertRows(ctx context.Context, insert string, cols, n int, row func(i int, args []any) []any, tail ...string) error {
	perStmt := maxVariables / cols
	tuple := "(?" + strings.Repeat(", ?", cols-1) + ")"
	var q strings.Builder
	args := make([]any, 0, min(n, perStmt)*cols)
	for start := 0; start < n; start += perStmt {
		end := min(start+perStmt, n)
		q.Reset()
		q.WriteString(insert)
		args = args[:0]
		for i := start; i < end; i++ {
			if i > start {
				q.WriteString(", ")
			}
			q.WriteString(tuple)
			args = row(i, args)
		}
		for _, s := range tail {
			q.WriteString(s)
		}
		if _, err := t.tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) MovementList(ctx context.Context, f stockade.MovementFilter) ([]stockade.Movement, error) {
	var where []string
	var args []any
	for _, c := range []struct {
		col, v string
	}{{"sku", f.SKU}, {"location", f.Location}, {"ref", f.Ref}} {
		if c.v != "" {
			where = append(where, c.col+` = ?`)
			args = append(args, c.v)
		}
	}
	where = append(where, `id > ?`)
	args = append(args, f.AfterID)
	limit := f.Limit
	if limit <= 0 {
		limit = defaultMovementLimit
	}
	args = append(args, limit)
	rows, err := t.tx.QueryContext(ctx, movementsSQL+`WHERE `+strings.Join(where, ` AND `)+` ORDER BY id LIMIT ?`, args...)
	if err != nil {
		return nil, wrapf(err, "movements")
	}
	defer rows.Close()
	var ms []stockade.Movement
	for rows.Next() {
		var m stockade.Movement
		var at int64
		var kind string
		err := rows.Scan(&m.ID, &at, &m.SKU, &m.Location, &kind, &m.OnHand, &m.Reserved, &m.Committed, &m.Ref, &m.Reason, &m.Actor)
		if err != nil {
			return nil, wrapf(err, "movements")
		}
		m.At, m.Kind = fromMicros(at), stockade.MovementKind(kind)
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapf(err, "movements")
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
func (t *tx) sums(ctx context.Context, op, q string, fields func(d *stockade.Delta) []any) (map[stockade.Key]stockade.Delta, error) {
	type sum struct {
		k stockade.Key
		d stockade.Delta
	}
	rows, err := queryAll(ctx, t, op, func(row rowScanner) (sum, error) {
		var s sum
		err := row.Scan(append([]any{&s.k.SKU, &s.k.Location}, fields(&s.d)...)...)
		return s, err
	}, q)
	if err != nil {
		return nil, err
	}
	sums := make(map[stockade.Key]stockade.Delta, len(rows))
	for _, s := range rows {
		sums[s.k] = s.d
	}
	return sums, nil
}

// AdvisoryLock is not supported: SQLite has no advisory locks, and a write
// transaction already holds the whole database.
func (t *tx) AdvisoryLock(ctx context.Context, keys []stockade.Key) error {
	return fmt.Errorf("sqlite: advisory lock: %w", stockade.ErrUnsupported)
}
