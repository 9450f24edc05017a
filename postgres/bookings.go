package postgres

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stockade/stockade"
)

// Bookings: events (the shows table: events is the outbox), their seats
// and general-admission areas, holds, bookings and the seat history. See
// migrations/0006_bookings.sql.

var (
	//go:embed queries/put_show.sql
	putShowSQL string
	//go:embed queries/show.sql
	showSQL string
	//go:embed queries/show_head.sql
	showHeadSQL string
	//go:embed queries/list_shows.sql
	listShowsSQL string
	//go:embed queries/list_shows_newest.sql
	listShowsNewestSQL string
	//go:embed queries/put_seats.sql
	putSeatsSQL string
	//go:embed queries/delete_seats.sql
	deleteSeatsSQL string
	//go:embed queries/unlist_free_seats.sql
	unlistFreeSeatsSQL string
	//go:embed queries/list_free_seats.sql
	listFreeSeatsSQL string
	//go:embed queries/seats.sql
	seatsSQL string
	//go:embed queries/move_seats.sql
	moveSeatsSQL string
	//go:embed queries/seat_counts.sql
	seatCountsSQL string
	//go:embed queries/lock_areas.sql
	lockAreasSQL string
	//go:embed queries/put_areas.sql
	putAreasSQL string
	//go:embed queries/move_places.sql
	movePlacesSQL string
	//go:embed queries/area.sql
	areaSQL string
	//go:embed queries/append_seat_changes.sql
	appendSeatChangesSQL string
	//go:embed queries/seat_changes.sql
	seatChangesSQL string
	//go:embed queries/delete_areas.sql
	deleteAreasSQL string
	//go:embed queries/free_seat_ids.sql
	freeSeatIDsSQL string
	//go:embed queries/insert_holds.sql
	insertHoldsSQL string
	//go:embed queries/hold.sql
	holdSQL string
	//go:embed queries/holds.sql
	holdsSQL string
	//go:embed queries/seat_epoch.sql
	seatEpochSQL string
	//go:embed queries/bump_seat_epoch.sql
	bumpSeatEpochSQL string
	//go:embed queries/seat_epoch_changes.sql
	seatEpochChangesSQL string
	//go:embed queries/set_hold_status.sql
	setHoldStatusSQL string
	//go:embed queries/extend_hold.sql
	extendHoldSQL string
	//go:embed queries/hold_lapse_candidates.sql
	holdLapseCandidatesSQL string
	//go:embed queries/hold_lapse_candidates_show.sql
	holdLapseCandidatesShowSQL string
	//go:embed queries/insert_bookings.sql
	insertBookingsSQL string
	//go:embed queries/booking.sql
	bookingSQL string
	//go:embed queries/set_booking_status.sql
	setBookingStatusSQL string
)

var _ stockade.BookingTx = (*tx)(nil)

// forUpdateOfShow locks the show's row that show.sql selects, not its
// areas.
const forUpdateOfShow = "\nFOR UPDATE OF s"

// showMap is a show's map column: its rows and the areas' names,
// categories and capacities, as they were given.
type showMap struct {
	Rows  []stockade.SeatRow `json:"rows,omitempty"`
	Areas []mapArea          `json:"areas,omitempty"`
}

type mapArea struct {
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	Capacity int64  `json:"capacity"`
}

// ShowPut implements stockade.BookingTx: one upsert of the show's row.
func (t *tx) ShowPut(ctx context.Context, e stockade.Show) error {
	m := showMap{Rows: e.Rows}
	for _, a := range e.Areas {
		m.Areas = append(m.Areas, mapArea{Name: a.Name, Category: a.Category, Capacity: a.Capacity})
	}
	text, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("postgres: put show %q: %w", e.ID, err)
	}
	_, err = t.tx.Exec(ctx, putShowSQL, e.ID, e.Name, e.Focal.X, e.Focal.Y, string(text), e.CreatedAt, e.Version)
	if err != nil {
		return t.fail(ctx, "put event "+strconv.Quote(e.ID), err)
	}
	return nil
}

// scanShow scans id, name, focal_x, focal_y, map, created_at, version
// and the show's areas as a JSON array (NULL for none). The event's
// Areas are those of its map, in the map's order, with their current
// category, capacity and counts (those of the map and none for an area
// without a row yet), then any other area of the show, in name order.
func scanShow(row pgx.Row) (stockade.Show, error) {
	var (
		e          stockade.Show
		text, cur  []byte
		m          showMap
		rowsOfArea []stockade.Area
	)
	if err := row.Scan(&e.ID, &e.Name, &e.Focal.X, &e.Focal.Y, &text, &e.CreatedAt, &e.Version, &cur); err != nil {
		return e, err
	}
	e.CreatedAt = e.CreatedAt.UTC()
	if err := json.Unmarshal(text, &m); err != nil {
		return e, fmt.Errorf("decode map: %w", err)
	}
	if cur != nil {
		if err := json.Unmarshal(cur, &rowsOfArea); err != nil {
			return e, fmt.Errorf("decode areas: %w", err)
		}
	}
	e.Rows = m.Rows
	for _, a := range m.Areas {
		i := slices.IndexFunc(rowsOfArea, func(b stockade.Area) bool { return b.Name == a.Name })
		if i < 0 {
			e.Areas = append(e.Areas, stockade.Area{Name: a.Name, Category: a.Category, Capacity: a.Capacity})
			continue
		}
		e.Areas = append(e.Areas, rowsOfArea[i])
		rowsOfArea = slices.Delete(rowsOfArea, i, i+1)
	}
	e.Areas = append(e.Areas, rowsOfArea...) // in name order, as the query returns them
	return e, nil
}

// ShowGet implements stockade.BookingTx. With Lock it locks the show's
// row only: areas are locked by the statements that change them.
func (t *tx) ShowGet(ctx context.Context, by stockade.ByID) (stockade.Show, error) {
	return t.show(ctx, showSQL, by.ID, by.Lock)
}

// ShowGetHead implements stockade.BookingTx, locking as ShowGet does.
func (t *tx) ShowGetHead(ctx context.Context, by stockade.ByID) (stockade.Show, error) {
	return t.show(ctx, showHeadSQL, by.ID, by.Lock)
}

func (t *tx) show(ctx context.Context, q, id string, lock bool) (stockade.Show, error) {
	if lock {
		q += forUpdateOfShow
	}
	e, err := scanShow(t.tx.QueryRow(ctx, q, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Show{}, showNotFound(id)
	case err != nil:
		return stockade.Show{}, t.fail(ctx, "show "+strconv.Quote(id), err)
	}
	return e, nil
}

func (t *tx) ShowListNewest(ctx context.Context, f stockade.ListFilter) ([]stockade.Show, error) {
	q, args := listQuery(listShowsNewestSQL, f)
	rows, _ := t.tx.Query(ctx, q, args...)
	ss, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Show, error) { return scanShow(row) })
	if err != nil {
		return nil, t.fail(ctx, "list shows", err)
	}
	return ss, nil
}

// ShowList implements stockade.BookingTx; a negative limit is no limit.
func (t *tx) ShowList(ctx context.Context, after string, limit int) ([]stockade.Show, error) {
	rows, _ := t.tx.Query(ctx, listShowsSQL, after, limitArg(limit, true))
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Show, error) { return scanShow(row) })
	if err != nil {
		return nil, t.fail(ctx, "events", err)
	}
	return es, nil
}

// SeatPut implements stockade.BookingTx with one INSERT … ON CONFLICT DO
// UPDATE from parallel arrays, the seats' rows in free_seats deleted
// before it and those of the free ones inserted after it. A seat named
// twice fails the statement.
// Many seats have the table vacuumed after the commit (upkeep.go).
func (t *tx) SeatPut(ctx context.Context, showID string, seats []stockade.Seat) error {
	if len(seats) == 0 {
		return nil
	}
	n := len(seats)
	var (
		ids, sections, rowNames, labels  = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		categories, statuses, holds, bks = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		ords                             = make([]int32, n)
		accessible                       = make([]bool, n)
		xs, ys                           = make([]float64, n), make([]float64, n)
	)
	for i, s := range seats {
		ids[i], sections[i], rowNames[i], labels[i] = s.ID, s.Section, s.Row, s.Label
		categories[i], statuses[i], holds[i], bks[i] = s.Category, string(s.Status), s.HoldID, s.BookingID
		ords[i], accessible[i], xs[i], ys[i] = int32(s.Order), s.Accessible, s.Position.X, s.Position.Y
	}
	what := fmt.Sprintf("put %d seats of show %q", n, showID)
	if _, err := t.tx.Exec(ctx, unlistFreeSeatsSQL, showID, ids); err != nil {
		return t.fail(ctx, what, err)
	}
	_, err := t.tx.Exec(ctx, putSeatsSQL, showID, ids, sections, rowNames, labels, ords, categories, accessible,
		xs, ys, statuses, holds, bks)
	if err != nil {
		return t.fail(ctx, what, showMissing(showID, err))
	}
	if _, err := t.tx.Exec(ctx, listFreeSeatsSQL, showID, ids); err != nil {
		return t.fail(ctx, what, err)
	}
	t.seatsPut += n
	return nil
}

func (t *tx) SeatDelete(ctx context.Context, showID string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var n int
	if err := t.tx.QueryRow(ctx, deleteSeatsSQL, showID, ids).Scan(&n); err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("delete %d seats of show %q", len(ids), showID), err)
	}
	return n, nil
}

// Seats implements stockade.BookingTx in one query: seats.sql with only
// the conditions in use spelled out, so that each combination gets a plan
// on its index. An empty f.IDs, like a nil one, matches every seat. With
// lock, FOR UPDATE locks the rows in the ORDER BY's order: seat order.
func (t *tx) SeatList(ctx context.Context, showID string, f stockade.SeatFilter) ([]stockade.Seat, error) {
	var (
		q    strings.Builder
		args = []any{showID}
	)
	q.WriteString(seatsSQL)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if len(f.IDs) > 0 {
		q.WriteString("\n  AND id = ANY (" + arg(f.IDs) + "::text[])")
	}
	if f.Status != "" {
		q.WriteString("\n  AND status = " + arg(string(f.Status)) + "::text")
	}
	if f.Section != "" {
		q.WriteString("\n  AND section = " + arg(f.Section) + "::text")
	}
	if a := f.After; a != nil {
		q.WriteString("\n  AND (section, row, ord) > (" + arg(a.Section) + "::text, " + arg(a.Row) + "::text, " +
			arg(int32(a.Order)) + "::integer)")
	}
	q.WriteString("\nORDER BY section, row, ord, id")
	if f.Limit > 0 {
		q.WriteString("\nLIMIT " + arg(f.Limit) + "::bigint")
	}
	if f.Lock {
		q.WriteString(forUpdate)
	}
	rows, _ := t.tx.Query(ctx, q.String(), args...)
	seats, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Seat, error) {
		var (
			s      stockade.Seat
			status string
			ord    int32
		)
		err := row.Scan(&s.ID, &s.Section, &s.Row, &s.Label, &ord, &s.Category, &s.Accessible,
			&s.Position.X, &s.Position.Y, &status, &s.HoldID, &s.BookingID)
		s.Order, s.Status = int(ord), stockade.SeatStatus(status)
		return s, err
	})
	if err != nil {
		return nil, t.fail(ctx, "seats of show "+strconv.Quote(showID), err)
	}
	return seats, nil
}

// SeatMoveMany implements stockade.BookingTx in one statement: it locks
// every seat named in seat order, then makes the moves whose conditions
// hold in one UPDATE … FROM unnest (see queries/move_seats.sql). A seat
// named twice is an error from the database.
func (t *tx) SeatMoveMany(ctx context.Context, showID string, moves []stockade.SeatMove) ([]string, error) {
	if len(moves) == 0 {
		return nil, nil
	}
	n := len(moves)
	seats, from, to := make([]string, n), make([]string, n), make([]string, n)
	holds, bookings := make([]string, n), make([]string, n)
	for i, m := range moves {
		seats[i], from[i], to[i], holds[i], bookings[i] = m.Seat, string(m.From), string(m.To), m.Hold, m.Booking
	}
	rows, _ := t.tx.Query(ctx, moveSeatsSQL, showID, seats, from, to, holds, bookings)
	moved, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("move %d seats of show %q", n, showID), err)
	}
	if freed, taken := stockade.EpochChange(moves, moved); len(freed) > 0 {
		if _, err := t.bumpSeatEpoch(ctx, showID, freed, taken); err != nil {
			return nil, err
		}
	}
	return moved, nil
}

func (t *tx) SeatEpochGet(ctx context.Context, showID string) (stockade.SeatEpoch, error) {
	var (
		e    stockade.SeatEpoch
		held pgtype.Timestamptz
	)
	err := t.tx.QueryRow(ctx, seatEpochSQL, showID, stockade.ShowTarget(showID)).Scan(&e.Epoch, &e.Version, &held, &e.Gated)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.SeatEpoch{}, showNotFound(showID)
	case err != nil:
		return stockade.SeatEpoch{}, t.fail(ctx, "seat epoch of show "+strconv.Quote(showID), err)
	}
	if held.Valid {
		e.HeldUntil = held.Time.UTC()
	}
	return e, nil
}

func (t *tx) SeatEpochBump(ctx context.Context, showID string, taken []string) (int64, error) {
	return t.bumpSeatEpoch(ctx, showID, nil, taken)
}

// bumpSeatEpoch bumps showID's seat epoch in one statement that records
// the change and forgets the changes stockade.SeatEpochKept epochs older.
func (t *tx) bumpSeatEpoch(ctx context.Context, showID string, freed, taken []string) (int64, error) {
	var epoch int64
	err := t.tx.QueryRow(ctx, bumpSeatEpochSQL, showID, nonNil(freed), nonNil(taken),
		int64(stockade.SeatEpochKept)).Scan(&epoch)
	if err != nil {
		return 0, t.fail(ctx, "bump the seat epoch of show "+strconv.Quote(showID), err)
	}
	return epoch, nil
}

func (t *tx) SeatEpochChanges(ctx context.Context, showID string, after int64) ([]stockade.SeatEpochChange, error) {
	rows, _ := t.tx.Query(ctx, seatEpochChangesSQL, showID, after)
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.SeatEpochChange, error) {
		var c stockade.SeatEpochChange
		err := row.Scan(&c.Epoch, &c.Freed, &c.Taken)
		return c, err
	})
	if err != nil {
		return nil, t.fail(ctx, "seat epoch changes of show "+strconv.Quote(showID), err)
	}
	return cs, nil
}

func (t *tx) SeatCounts(ctx context.Context, showID string) ([]stockade.SeatCount, error) {
	rows, _ := t.tx.Query(ctx, seatCountsSQL, showID)
	counts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.SeatCount, error) {
		var (
			c      stockade.SeatCount
			status string
		)
		err := row.Scan(&c.Section, &c.Category, &status, &c.Count)
		c.Status = stockade.SeatStatus(status)
		return c, err
	})
	if err != nil {
		return nil, t.fail(ctx, "seat counts of show "+strconv.Quote(showID), err)
	}
	return counts, nil
}

// AreaPut implements stockade.BookingTx. It locks the areas that exist
// (in name order) and checks the new capacities against their counts
// before it writes, so that a refusal fails no statement: the transaction
// goes on, changed in nothing. The upsert is then one statement. A
// negative capacity is EInvalid, refused before any statement too.
func (t *tx) AreaPut(ctx context.Context, showID string, areas []stockade.Area) error {
	if len(areas) == 0 {
		return nil
	}
	what := fmt.Sprintf("put %d areas of show %q", len(areas), showID)
	n := len(areas)
	names, categories, capacities := make([]string, n), make([]string, n), make([]int64, n)
	for i, a := range areas {
		if a.Capacity < 0 {
			return stockade.Errorf(stockade.EInvalid, fmt.Sprintf("area %q: capacity %d is below zero", a.Name, a.Capacity))
		}
		names[i], categories[i], capacities[i] = a.Name, a.Category, a.Capacity
	}
	rows, _ := t.tx.Query(ctx, lockAreasSQL, showID, names)
	taken := make(map[string]int64)
	var (
		name         string
		held, booked int64
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &held, &booked}, func() error {
		taken[name] = held + booked
		return nil
	})
	if err != nil {
		return t.fail(ctx, what, err)
	}
	for _, a := range areas {
		if n, ok := taken[a.Name]; ok && a.Capacity < n {
			return stockade.Errorf(stockade.EInvalidState, fmt.Sprintf(
				"area %q has %d places held or booked, more than a capacity of %d", a.Name, n, a.Capacity))
		}
	}
	if _, err := t.tx.Exec(ctx, putAreasSQL, showID, names, categories, capacities); err != nil {
		return t.fail(ctx, what, showMissing(showID, err))
	}
	return nil
}

// scanArea scans name, category, capacity, held, booked.
func scanArea(row pgx.Row) (stockade.Area, error) {
	var a stockade.Area
	err := row.Scan(&a.Name, &a.Category, &a.Capacity, &a.Held, &a.Booked)
	return a, err
}

// AreaMovePlaces implements stockade.BookingTx with one conditional UPDATE;
// when it changes nothing, a second statement reads the area as it is
// then.
func (t *tx) AreaMovePlaces(ctx context.Context, showID, area string, held, booked int64) (stockade.Area, bool, error) {
	what := fmt.Sprintf("move places of area %q of show %q", area, showID)
	a, err := scanArea(t.tx.QueryRow(ctx, movePlacesSQL, showID, area, held, booked))
	switch {
	case err == nil:
		return a, true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return stockade.Area{}, false, t.fail(ctx, what, err)
	}
	a, err = scanArea(t.tx.QueryRow(ctx, areaSQL, showID, area))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Area{}, false, nil
	case err != nil:
		return stockade.Area{}, false, t.fail(ctx, what, err)
	}
	return a, false, nil
}

// SeatChangeAppend implements stockade.BookingTx in one statement. A
// zero At is the transaction's start.
func (t *tx) SeatChangeAppend(ctx context.Context, cs ...stockade.SeatChange) error {
	if len(cs) == 0 {
		return nil
	}
	n := len(cs)
	var (
		at                      = make([]pgtype.Timestamptz, n)
		events, seats, areas    = make([]string, n), make([]string, n), make([]string, n)
		quantities              = make([]int64, n)
		from, to                = make([]string, n), make([]string, n)
		holds, bookings, actors = make([]string, n), make([]string, n), make([]string, n)
	)
	for i, c := range cs {
		at[i] = pgtype.Timestamptz{Time: c.At, Valid: !c.At.IsZero()}
		events[i], seats[i], areas[i], quantities[i] = c.ShowID, c.Seat, c.Area, c.Quantity
		from[i], to[i] = string(c.From), string(c.To)
		holds[i], bookings[i], actors[i] = c.HoldID, c.BookingID, c.Actor
	}
	_, err := t.tx.Exec(ctx, appendSeatChangesSQL, at, events, seats, areas, quantities, from, to, holds, bookings, actors)
	if err != nil {
		return t.fail(ctx, fmt.Sprintf("append %d seat changes", n), err)
	}
	return nil
}

// SeatChangeList implements stockade.BookingTx: seat_changes.sql with only
// the conditions in use spelled out.
func (t *tx) SeatChangeList(ctx context.Context, showID string, f stockade.SeatChangeFilter) ([]stockade.SeatChange, error) {
	var (
		q    strings.Builder
		args = []any{showID}
	)
	q.WriteString(seatChangesSQL)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Seat != "" {
		q.WriteString("\n  AND seat = " + arg(f.Seat) + "::text")
	}
	if f.Area != "" {
		q.WriteString("\n  AND area = " + arg(f.Area) + "::text")
	}
	if f.AfterID != 0 {
		q.WriteString("\n  AND id > " + arg(f.AfterID) + "::bigint")
	}
	q.WriteString("\nORDER BY id")
	if f.Limit > 0 {
		q.WriteString("\nLIMIT " + arg(f.Limit) + "::bigint")
	}
	rows, _ := t.tx.Query(ctx, q.String(), args...)
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.SeatChange, error) {
		var (
			c        stockade.SeatChange
			from, to string
		)
		err := row.Scan(&c.ID, &c.At, &c.ShowID, &c.Seat, &c.Area, &c.Quantity, &from, &to, &c.HoldID, &c.BookingID, &c.Actor)
		c.At, c.From, c.To = c.At.UTC(), stockade.SeatStatus(from), stockade.SeatStatus(to)
		return c, err
	})
	if err != nil {
		return nil, t.fail(ctx, "seat changes of show "+strconv.Quote(showID), err)
	}
	return cs, nil
}

// HoldInsert implements stockade.BookingTx in one statement. An id in
// use is a unique violation, which wraps stockade.ErrConflict.
func (t *tx) HoldInsert(ctx context.Context, hs ...stockade.Hold) error {
	if len(hs) == 0 {
		return nil
	}
	what := "insert hold " + strconv.Quote(hs[0].ID)
	if len(hs) > 1 {
		what = fmt.Sprintf("insert %d holds", len(hs))
	}
	n := len(hs)
	var (
		ids, events, statuses = make([]string, n), make([]string, n), make([]string, n)
		seats, places         = make([]string, n), make([]string, n)
		splits                = make([]bool, n)
		created, expires      = make([]time.Time, n), make([]time.Time, n)
		bookingIDs, owners    = make([]string, n), make([]string, n)
		versions              = make([]int64, n)
		metas                 = make([]string, n)
	)
	for i, h := range hs {
		var err error
		if seats[i], places[i], err = marshalSeats(h.Seats, h.Places); err != nil {
			return fmt.Errorf("postgres: insert hold %q: %w", h.ID, err)
		}
		ids[i], events[i], statuses[i], splits[i] = h.ID, h.ShowID, string(h.Status), h.Split
		created[i], expires[i], bookingIDs[i], owners[i], versions[i] = h.CreatedAt, h.ExpiresAt, h.BookingID, h.Owner, h.Version
		metas[i] = marshalMetadata(h.Metadata)
	}
	_, err := t.tx.Exec(ctx, insertHoldsSQL, ids, events, statuses, seats, places, splits, created, expires, bookingIDs, owners, versions, metas)
	if err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

// scanHold scans id, show_id, status, seats, places, split, created_at,
// expires_at, booking_id, owner, version.
func scanHold(row pgx.Row) (stockade.Hold, error) {
	var (
		h             stockade.Hold
		status        string
		seats, places []byte
		meta          []byte
	)
	err := row.Scan(&h.ID, &h.ShowID, &status, &seats, &places, &h.Split, &h.CreatedAt, &h.ExpiresAt, &h.BookingID, &h.Owner, &h.Version, &meta)
	if err != nil {
		return h, err
	}
	if err := unmarshalMetadata(meta, &h.Metadata); err != nil {
		return h, err
	}
	h.Status, h.CreatedAt, h.ExpiresAt = stockade.HoldStatus(status), h.CreatedAt.UTC(), h.ExpiresAt.UTC()
	h.Seats, h.Places, err = unmarshalSeats(seats, places)
	return h, err
}

func (t *tx) HoldGet(ctx context.Context, by stockade.ByID) (stockade.Hold, error) {
	q := holdSQL
	if by.Lock {
		q += forUpdate
	}
	h, err := scanHold(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Hold{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("hold %q not found", by.ID))
	case err != nil:
		return stockade.Hold{}, t.fail(ctx, "hold "+strconv.Quote(by.ID), err)
	}
	return h, nil
}

func (t *tx) HoldGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Hold, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	q := holdsSQL
	if by.Lock {
		q += forUpdate
	}
	rows, _ := t.tx.Query(ctx, q, by.IDs)
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Hold, error) { return scanHold(row) })
	if err != nil {
		return nil, t.fail(ctx, fmt.Sprintf("%d holds", len(by.IDs)), err)
	}
	return hs, nil
}

func (t *tx) HoldSetStatus(ctx context.Context, from, to stockade.HoldStatus, moves ...stockade.HoldMove) (int, error) {
	if len(moves) == 0 {
		return 0, nil
	}
	ids, bookings := make([]string, len(moves)), make([]string, len(moves))
	for i, m := range moves {
		ids[i], bookings[i] = m.Hold, m.Booking
	}
	tag, err := t.tx.Exec(ctx, setHoldStatusSQL, string(from), string(to), ids, bookings)
	if err != nil {
		return 0, t.fail(ctx, fmt.Sprintf("set %d holds %s → %s", len(moves), from, to), err)
	}
	return int(tag.RowsAffected()), nil
}

func (t *tx) HoldExtend(ctx context.Context, id string, expiresAt time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, extendHoldSQL, id, expiresAt)
	if err != nil {
		return false, t.fail(ctx, "extend hold "+strconv.Quote(id), err)
	}
	return tag.RowsAffected() == 1, nil
}

// HoldLapseCandidates implements stockade.BookingTx: without a show
// (a sweeper) with FOR UPDATE SKIP LOCKED, so that sweepers take disjoint
// sets and never wait; with one (a hold that needs the show's seats)
// without locks: the engine locks those that lapse. Then the candidates'
// payments, in a second statement (see paymentStatuses).
func (t *tx) HoldLapseCandidates(ctx context.Context, q stockade.HoldLapseQuery) ([]stockade.HoldLapseCandidate, error) {
	args := []any{q.ExpiredBefore, q.After.ExpiresAt, q.After.ID, limitArg(q.Limit, false)}
	sql := holdLapseCandidatesSQL
	if q.ShowID != "" {
		sql, args = holdLapseCandidatesShowSQL, append(args, q.ShowID)
	}
	rows, _ := t.tx.Query(ctx, sql, args...)
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stockade.Hold, error) { return scanHold(row) })
	if err != nil {
		return nil, t.fail(ctx, "hold lapse candidates", err)
	}
	statuses, err := paymentStatuses(ctx, t, "hold lapse candidates", stockade.PayHold, hs, func(h stockade.Hold) string { return h.ID })
	if err != nil {
		return nil, err
	}
	cs := make([]stockade.HoldLapseCandidate, len(hs))
	for i, h := range hs {
		cs[i] = stockade.HoldLapseCandidate{Hold: h, Payment: statuses[h.ID]}
	}
	return cs, nil
}

// BookingInsert implements stockade.BookingTx in one statement. An id in
// use, or a hold that already has a booking, is a unique violation, which
// wraps stockade.ErrConflict.
func (t *tx) BookingInsert(ctx context.Context, bs ...stockade.Booking) error {
	if len(bs) == 0 {
		return nil
	}
	what := "insert booking " + strconv.Quote(bs[0].ID)
	if len(bs) > 1 {
		what = fmt.Sprintf("insert %d bookings", len(bs))
	}
	n := len(bs)
	var (
		ids, events, holdIDs, statuses = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		seats, places                  = make([]string, n), make([]string, n)
		created                        = make([]time.Time, n)
		owners, metas                  = make([]string, n), make([]string, n)
	)
	for i, b := range bs {
		var err error
		if seats[i], places[i], err = marshalSeats(b.Seats, b.Places); err != nil {
			return fmt.Errorf("postgres: insert booking %q: %w", b.ID, err)
		}
		ids[i], events[i], holdIDs[i], statuses[i] = b.ID, b.ShowID, b.HoldID, string(b.Status)
		created[i], owners[i], metas[i] = b.CreatedAt, b.Owner, marshalMetadata(b.Metadata)
	}
	_, err := t.tx.Exec(ctx, insertBookingsSQL, ids, events, holdIDs, statuses, seats, places, created, owners, metas)
	if err != nil {
		return t.fail(ctx, what, err)
	}
	return nil
}

// scanBooking scans id, show_id, hold_id, status, seats, places,
// created_at, owner.
func scanBooking(row pgx.Row) (stockade.Booking, error) {
	var (
		b             stockade.Booking
		status        string
		seats, places []byte
		meta          []byte
	)
	err := row.Scan(&b.ID, &b.ShowID, &b.HoldID, &status, &seats, &places, &b.CreatedAt, &b.Owner, &meta)
	if err != nil {
		return b, err
	}
	if err := unmarshalMetadata(meta, &b.Metadata); err != nil {
		return b, err
	}
	b.Status, b.CreatedAt = stockade.BookingStatus(status), b.CreatedAt.UTC()
	b.Seats, b.Places, err = unmarshalSeats(seats, places)
	return b, err
}

func (t *tx) BookingGet(ctx context.Context, by stockade.ByID) (stockade.Booking, error) {
	q := bookingSQL
	if by.Lock {
		q += forUpdate
	}
	b, err := scanBooking(t.tx.QueryRow(ctx, q, by.ID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return stockade.Booking{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("booking %q not found", by.ID))
	case err != nil:
		return stockade.Booking{}, t.fail(ctx, "booking "+strconv.Quote(by.ID), err)
	}
	return b, nil
}

func (t *tx) BookingSetStatus(ctx context.Context, id string, from, to stockade.BookingStatus) (bool, error) {
	tag, err := t.tx.Exec(ctx, setBookingStatusSQL, id, string(from), string(to))
	if err != nil {
		return false, t.fail(ctx, fmt.Sprintf("set booking %q %s → %s", id, from, to), err)
	}
	return tag.RowsAffected() == 1, nil
}

// showNotFound is the error of a missing event.
func showNotFound(id string) *stockade.Error {
	return stockade.Errorf(stockade.ENotFound, fmt.Sprintf("show %q not found", id))
}

// showMissing wraps err, from a write of a show's seats or areas, with
// ENotFound when it is the foreign-key violation of a missing event.
func showMissing(id string, err error) error {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == foreignKeyViolation &&
		(pe.ConstraintName == "seats_show_id_fkey" || pe.ConstraintName == "areas_show_id_fkey") {
		return fmt.Errorf("%w: %w", showNotFound(id), err)
	}
	return err
}

// limitArg is limit as a LIMIT parameter: NULL, no limit, for a negative
// limit, and for 0 unless zeroIsNone (then LIMIT 0).
func limitArg(limit int, zeroIsNone bool) *int64 {
	if limit < 0 || limit == 0 && !zeroIsNone {
		return nil
	}
	l := int64(limit)
	return &l
}

// marshalSeats encodes a hold's or booking's seats and places for their
// jsonb columns, [] for none.
func marshalSeats(seats []string, places []stockade.Places) (s, p string, err error) {
	s, p = "[]", "[]"
	if len(seats) > 0 {
		b, err := json.Marshal(seats)
		if err != nil {
			return "", "", err
		}
		s = string(b)
	}
	if len(places) > 0 {
		b, err := json.Marshal(places)
		if err != nil {
			return "", "", err
		}
		p = string(b)
	}
	return s, p, nil
}

// unmarshalSeats decodes what marshalSeats encoded; none is nil.
func unmarshalSeats(s, p []byte) (seats []string, places []stockade.Places, err error) {
	if err := json.Unmarshal(s, &seats); err != nil {
		return nil, nil, fmt.Errorf("decode seats: %w", err)
	}
	if err := json.Unmarshal(p, &places); err != nil {
		return nil, nil, fmt.Errorf("decode places: %w", err)
	}
	if len(seats) == 0 {
		seats = nil
	}
	if len(places) == 0 {
		places = nil
	}
	return seats, places, nil
}

// SeatFreeIDs implements stockade.BookingTx with an index-only scan of
// free_seats.
func (t *tx) SeatFreeIDs(ctx context.Context, showID string) ([]string, error) {
	rows, _ := t.tx.Query(ctx, freeSeatIDsSQL, showID)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, t.fail(ctx, "free seats of show "+strconv.Quote(showID), err)
	}
	return ids, nil
}

// AreaDelete implements stockade.BookingTx in one statement.
func (t *tx) AreaDelete(ctx context.Context, showID string, names []string) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	tag, err := t.tx.Exec(ctx, deleteAreasSQL, showID, names)
	if err != nil {
		return 0, t.fail(ctx, "delete areas of show "+strconv.Quote(showID), err)
	}
	return int(tag.RowsAffected()), nil
}
