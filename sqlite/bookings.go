package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockade/stockade"
)

// Bookings: events (the shows table, since events is the outbox), seats,
// general-admission areas, holds, bookings and the seat history. See
// migrations/0006_bookings.sql. As everywhere in this store, the lock
// arguments are ignored: an Update holds the whole database.

var _ stockade.BookingTx = (*tx)(nil)

var (
	putShowSQL                 = query("put_show.sql")
	showSQL                    = query("show.sql")
	showHeadSQL                = query("show_head.sql")
	showsSQL                   = query("shows.sql")
	listShowsNewestSQL         = query("list_shows_newest.sql")
	putSeatsSQL                = query("put_seats.sql")
	deleteSeatsSQL             = query("delete_seats.sql")
	seatsSQL                   = query("seats.sql")
	moveSeatsSQL               = query("move_seats.sql")
	seatCountsSQL              = query("seat_counts.sql")
	putAreasSQL                = query("put_areas.sql")
	areaSQL                    = query("area.sql")
	movePlacesSQL              = query("move_places.sql")
	appendSeatChangesSQL       = query("append_seat_changes.sql")
	seatChangesSQL             = query("seat_changes.sql")
	insertHoldsSQL             = query("insert_holds.sql")
	freeSeatIDsSQL             = query("free_seat_ids.sql")
	deleteAreasSQL             = query("delete_areas.sql")
	holdSQL                    = query("hold.sql")
	holdsSQL                   = query("holds.sql")
	seatEpochSQL               = query("seat_epoch.sql")
	bumpSeatEpochSQL           = query("bump_seat_epoch.sql")
	recordSeatEpochChangeSQL   = query("record_seat_epoch_change.sql")
	forgetSeatEpochChangesSQL  = query("forget_seat_epoch_changes.sql")
	seatEpochChangesSQL        = query("seat_epoch_changes.sql")
	setHoldStatusSQL           = query("set_hold_status.sql")
	extendHoldSQL              = query("extend_hold.sql")
	holdLapseCandidatesSQL     = query("hold_lapse_candidates.sql")
	holdLapseCandidatesShowSQL = query("hold_lapse_candidates_show.sql")
	insertBookingsSQL          = query("insert_bookings.sql")
	bookingSQL                 = query("booking.sql")
	setBookingStatusSQL        = query("set_booking_status.sql")
)

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

// jsonText encodes v for a JSON column or parameter: strings and numbers
// only, so it fails only on a NaN or infinite coordinate.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// listJSON encodes a list for a JSON column, [] for none.
func listJSON[T any](vs []T) (string, error) {
	if len(vs) == 0 {
		return "[]", nil
	}
	return jsonText(vs)
}

// decodeList decodes a JSON list column; none is nil.
func decodeList[T any](s string) ([]T, error) {
	var vs []T
	if err := json.Unmarshal([]byte(s), &vs); err != nil || len(vs) == 0 {
		return nil, err
	}
	return vs, nil
}

// bit is a bool as SQLite stores it.
func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// notFoundEvent is the error of a write that needs event id when the
// foreign key says it is missing, else wrapf's.
func notFoundEvent(err error, id, format string, args ...any) error {
	if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return fmt.Errorf("sqlite: %s: %w: %w", fmt.Sprintf(format, args...),
			stockade.Errorf(stockade.ENotFound, fmt.Sprintf("show %q not found", id)), err)
	}
	return checkf(err, "invalid seat status", format, args...)
}

func (t *tx) ShowPut(ctx context.Context, e stockade.Show) error {
	m := showMap{Rows: e.Rows}
	for _, a := range e.Areas {
		m.Areas = append(m.Areas, mapArea{Name: a.Name, Category: a.Category, Capacity: a.Capacity})
	}
	text, err := jsonText(m)
	if err != nil {
		return fmt.Errorf("sqlite: put show %s: %w", e.ID, err)
	}
	_, err = t.tx.ExecContext(ctx, putShowSQL, e.ID, e.Name, e.Focal.X, e.Focal.Y, text, micros(e.CreatedAt), e.Version)
	if err != nil {
		return wrapf(err, "put show %s", e.ID)
	}
	return nil
}

// scanShow reads a show's columns: id, name, focal_x, focal_y, map,
// created_at, version, and its areas' rows as a JSON array of objects.
// Its Areas are those of the map, in the map's order, with their current
// category, capacity and counts (none for an area without a row yet),
// then any other area of the show, in name order.
func scanShow(row rowScanner) (stockade.Show, error) {
	var (
		e             stockade.Show
		text, current string
		created       int64
	)
	if err := row.Scan(&e.ID, &e.Name, &e.Focal.X, &e.Focal.Y, &text, &created, &e.Version, &current); err != nil {
		return e, err
	}
	e.CreatedAt = fromMicros(created)
	var m showMap
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return e, fmt.Errorf("map: %w", err)
	}
	areas, err := decodeList[stockade.Area](current)
	if err != nil {
		return e, fmt.Errorf("areas: %w", err)
	}
	slices.SortFunc(areas, func(a, b stockade.Area) int { return strings.Compare(a.Name, b.Name) })
	e.Rows = m.Rows
	for _, a := range m.Areas {
		i := slices.IndexFunc(areas, func(b stockade.Area) bool { return b.Name == a.Name })
		if i < 0 {
			e.Areas = append(e.Areas, stockade.Area{Name: a.Name, Category: a.Category, Capacity: a.Capacity})
			continue
		}
		e.Areas = append(e.Areas, areas[i])
		areas = slices.Delete(areas, i, i+1)
	}
	e.Areas = append(e.Areas, areas...)
	return e, nil
}

// ShowGet ignores Lock; see tx.
func (t *tx) ShowGet(ctx context.Context, by stockade.ByID) (stockade.Show, error) {
	return t.event(ctx, showSQL, by.ID)
}

// ShowGetHead ignores Lock; see tx.
func (t *tx) ShowGetHead(ctx context.Context, by stockade.ByID) (stockade.Show, error) {
	return t.event(ctx, showHeadSQL, by.ID)
}

func (t *tx) event(ctx context.Context, q, id string) (stockade.Show, error) {
	e, err := scanShow(t.tx.QueryRowContext(ctx, q, id))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Show{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("show %q not found", id))
	}
	if err != nil {
		return stockade.Show{}, wrapf(err, "show %s", id)
	}
	return e, nil
}

func (t *tx) ShowList(ctx context.Context, after string, limit int) ([]stockade.Show, error) {
	return queryAll(ctx, t, "events", scanShow, showsSQL, after, limit)
}

func (t *tx) ShowListNewest(ctx context.Context, f stockade.ListFilter) ([]stockade.Show, error) {
	where, args := listWhere(f)
	return queryAll(ctx, t, "list shows", scanShow, listShowsNewestSQL+where, args...)
}

// SeatPut writes every seat in one statement, from a JSON array:
// SQLite reads back the coordinates Go writes there exactly.
func (t *tx) SeatPut(ctx context.Context, showID string, seats []stockade.Seat) error {
	if len(seats) == 0 {
		return nil
	}
	rows := make([][]any, len(seats))
	for i, s := range seats {
		rows[i] = []any{s.ID, s.Section, s.Row, s.Label, s.Order, s.Category, bit(s.Accessible),
			s.Position.X, s.Position.Y, string(s.Status), s.HoldID, s.BookingID}
	}
	list, err := jsonText(rows)
	if err != nil {
		return fmt.Errorf("sqlite: put %d seats of show %s: %w", len(seats), showID, err)
	}
	if _, err := t.tx.ExecContext(ctx, putSeatsSQL, showID, list); err != nil {
		return notFoundEvent(err, showID, "put %d seats of show %s", len(seats), showID)
	}
	return nil
}

func (t *tx) SeatDelete(ctx context.Context, showID string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	list, err := jsonText(ids)
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete %d seats of show %s: %w", len(ids), showID, err)
	}
	res, err := t.tx.ExecContext(ctx, deleteSeatsSQL, showID, list)
	if err != nil {
		return 0, wrapf(err, "delete %d seats of show %s", len(ids), showID)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "delete %d seats of show %s", len(ids), showID)
	}
	return int(n), nil
}

// scanSeat reads a seat's columns: id, section, row, label, ord,
// category, accessible, x, y, status, hold_id, booking_id.
func scanSeat(row rowScanner) (stockade.Seat, error) {
	var (
		s      stockade.Seat
		status string
	)
	err := row.Scan(&s.ID, &s.Section, &s.Row, &s.Label, &s.Order, &s.Category, &s.Accessible,
		&s.Position.X, &s.Position.Y, &status, &s.HoldID, &s.BookingID)
	s.Status = stockade.SeatStatus(status)
	return s, err
}

// Seats ignores lock; see tx. An empty f.IDs, like a nil one, matches
// every seat.
func (t *tx) SeatList(ctx context.Context, showID string, f stockade.SeatFilter) ([]stockade.Seat, error) {
	where := []string{`show_id = ?`}
	args := []any{showID}
	if len(f.IDs) > 0 {
		list, err := jsonText(f.IDs)
		if err != nil {
			return nil, fmt.Errorf("sqlite: seats of show %s: %w", showID, err)
		}
		// The event and the ids as one list of primary keys: the planner
		// then looks each up, instead of scanning the show's seats in
		// seat order to save the sort.
		where[0] = `(show_id, id) IN (SELECT ?, value FROM json_each(?))`
		args = append(args, list)
	}
	if f.Status != "" {
		where, args = append(where, `status = ?`), append(args, string(f.Status))
	}
	if f.Section != "" {
		where, args = append(where, `section = ?`), append(args, f.Section)
	}
	if f.After != nil {
		where, args = append(where, `(section, "row", ord) > (?, ?, ?)`), append(args, f.After.Section, f.After.Row, f.After.Order)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	q := seatsSQL + `WHERE ` + strings.Join(where, ` AND `) + "\nORDER BY section, \"row\", ord, id LIMIT ?"
	return queryAll(ctx, t, "seats of show "+showID, scanSeat, q, append(args, limit)...)
}

// SeatMoveMany makes every move in one UPDATE … FROM the moves, whose WHERE
// holds each move's conditions, and sorts what it returns.
func (t *tx) SeatMoveMany(ctx context.Context, showID string, moves []stockade.SeatMove) ([]string, error) {
	if len(moves) == 0 {
		return nil, nil
	}
	rows := make([][5]string, len(moves))
	for i, m := range moves {
		rows[i] = [5]string{m.Seat, string(m.From), string(m.To), m.Hold, m.Booking}
	}
	list, err := jsonText(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: move %d seats of show %s: %w", len(moves), showID, err)
	}
	moved, err := queryAll(ctx, t, fmt.Sprintf("move %d seats of show %s", len(moves), showID),
		func(row rowScanner) (stockade.Seat, error) {
			var s stockade.Seat
			err := row.Scan(&s.ID, &s.Section, &s.Row, &s.Order)
			return s, err
		}, moveSeatsSQL, showID, list)
	if err != nil {
		if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_CHECK {
			return nil, fmt.Errorf("%w: %w", stockade.Errorf(stockade.EInvalid, "invalid seat status"), err)
		}
		return nil, err
	}
	slices.SortFunc(moved, func(a, b stockade.Seat) int {
		if c := a.Compare(b); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, len(moved))
	for i, s := range moved {
		ids[i] = s.ID
	}
	if freed, taken := stockade.EpochChange(moves, ids); len(freed) > 0 {
		if _, err := t.bumpSeatEpoch(ctx, showID, freed, taken); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (t *tx) SeatEpochGet(ctx context.Context, showID string) (stockade.SeatEpoch, error) {
	var (
		e    stockade.SeatEpoch
		held sql.NullInt64
	)
	err := t.tx.QueryRowContext(ctx, seatEpochSQL, showID, stockade.ShowTarget(showID)).Scan(&e.Epoch, &e.Version, &held, &e.Gated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return stockade.SeatEpoch{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("show %q not found", showID))
	case err != nil:
		return stockade.SeatEpoch{}, wrapf(err, "seat epoch of show %s", showID)
	}
	if held.Valid {
		e.HeldUntil = fromMicros(held.Int64)
	}
	return e, nil
}

func (t *tx) SeatEpochBump(ctx context.Context, showID string, taken []string) (int64, error) {
	return t.bumpSeatEpoch(ctx, showID, nil, taken)
}

// bumpSeatEpoch bumps showID's seat epoch, records the change and
// forgets the changes stockade.SeatEpochKept epochs older.
func (t *tx) bumpSeatEpoch(ctx context.Context, showID string, freed, taken []string) (int64, error) {
	what := "bump the seat epoch of show " + showID
	var epoch int64
	if err := t.tx.QueryRowContext(ctx, bumpSeatEpochSQL, showID).Scan(&epoch); err != nil {
		return 0, wrapf(err, "%s", what)
	}
	f, err := listJSON(freed)
	if err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	tk, err := listJSON(taken)
	if err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if _, err := t.tx.ExecContext(ctx, recordSeatEpochChangeSQL, showID, epoch, f, tk); err != nil {
		return 0, wrapf(err, "%s", what)
	}
	if _, err := t.tx.ExecContext(ctx, forgetSeatEpochChangesSQL, showID, epoch-stockade.SeatEpochKept); err != nil {
		return 0, wrapf(err, "%s", what)
	}
	return epoch, nil
}

func (t *tx) SeatEpochChanges(ctx context.Context, showID string, after int64) ([]stockade.SeatEpochChange, error) {
	return queryAll(ctx, t, "seat epoch changes of show "+showID, func(row rowScanner) (stockade.SeatEpochChange, error) {
		var (
			c            stockade.SeatEpochChange
			freed, taken string
		)
		if err := row.Scan(&c.Epoch, &freed, &taken); err != nil {
			return c, err
		}
		var err error
		if c.Freed, err = decodeList[string](freed); err != nil {
			return c, fmt.Errorf("decode freed seats: %w", err)
		}
		if c.Taken, err = decodeList[string](taken); err != nil {
			return c, fmt.Errorf("decode taken seats: %w", err)
		}
		return c, nil
	}, seatEpochChangesSQL, showID, after)
}

func (t *tx) SeatCounts(ctx context.Context, showID string) ([]stockade.SeatCount, error) {
	return queryAll(ctx, t, "seat counts of show "+showID, func(row rowScanner) (stockade.SeatCount, error) {
		var (
			c      stockade.SeatCount
			status string
		)
		err := row.Scan(&c.Section, &c.Category, &status, &c.Count)
		c.Status = stockade.SeatStatus(status)
		return c, err
	}, seatCountsSQL, showID)
}

// AreaPut writes every area in one statement, which the CHECK on the
// counts fails whole; it then finds the area to name.
func (t *tx) AreaPut(ctx context.Context, showID string, areas []stockade.Area) error {
	if len(areas) == 0 {
		return nil
	}
	rows := make([][]any, len(areas))
	for i, a := range areas {
		rows[i] = []any{a.Name, a.Category, a.Capacity}
	}
	list, err := jsonText(rows)
	if err != nil {
		return fmt.Errorf("sqlite: put %d areas of show %s: %w", len(areas), showID, err)
	}
	_, err = t.tx.ExecContext(ctx, putAreasSQL, showID, list)
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("put %d areas of show %s", len(areas), showID)
	if sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_CHECK {
		return notFoundEvent(err, showID, "%s", what)
	}
	for _, a := range areas {
		cur, ok, qerr := t.area(ctx, showID, a.Name)
		if qerr != nil {
			return errors.Join(wrapf(err, "%s", what), qerr)
		}
		if ok && a.Capacity >= 0 && a.Capacity < cur.Held+cur.Booked {
			return fmt.Errorf("sqlite: %s: %w: %w", what, stockade.Errorf(stockade.EInvalidState,
				fmt.Sprintf("area %q has %d places held and %d booked, more than a capacity of %d", a.Name, cur.Held, cur.Booked, a.Capacity)), err)
		}
	}
	return fmt.Errorf("sqlite: %s: %w: %w", what, stockade.Errorf(stockade.EInvalid, "area capacity below zero"), err)
}

// scanArea reads an area's columns: name, category, capacity, held,
// booked.
func scanArea(row rowScanner) (stockade.Area, error) {
	var a stockade.Area
	err := row.Scan(&a.Name, &a.Category, &a.Capacity, &a.Held, &a.Booked)
	return a, err
}

// area returns an area of a show, if it exists.
func (t *tx) area(ctx context.Context, showID, name string) (stockade.Area, bool, error) {
	a, err := scanArea(t.tx.QueryRowContext(ctx, areaSQL, showID, name))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return stockade.Area{}, false, nil
	case err != nil:
		return stockade.Area{}, false, wrapf(err, "area %s of show %s", name, showID)
	}
	return a, true, nil
}

// AreaMovePlaces is one conditional UPDATE … RETURNING, whose WHERE holds
// every bound; when it refuses, the area is read as it is.
func (t *tx) AreaMovePlaces(ctx context.Context, showID, area string, held, booked int64) (stockade.Area, bool, error) {
	a, err := scanArea(t.tx.QueryRowContext(ctx, movePlacesSQL, showID, area, held, booked))
	switch {
	case err == nil:
		return a, true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return stockade.Area{}, false, wrapf(err, "move places of area %s of show %s", area, showID)
	}
	a, _, err = t.area(ctx, showID, area)
	return a, false, err
}

func (t *tx) SeatChangeAppend(ctx context.Context, cs ...stockade.SeatChange) error {
	err := t.insertRows(ctx, appendSeatChangesSQL, 10, len(cs), func(i int, row []any) []any {
		c := cs[i]
		return append(row, micros(c.At), c.ShowID, c.Seat, c.Area, c.Quantity, string(c.From), string(c.To), c.HoldID, c.BookingID, c.Actor)
	})
	if err != nil {
		return checkf(err, "invalid seat status", "append %d seat changes", len(cs))
	}
	return nil
}

func (t *tx) SeatChangeList(ctx context.Context, showID string, f stockade.SeatChangeFilter) ([]stockade.SeatChange, error) {
	where := []string{`show_id = ?`}
	args := []any{showID}
	if f.Seat != "" {
		where, args = append(where, `seat = ?`), append(args, f.Seat)
	}
	if f.Area != "" {
		where, args = append(where, `area = ?`), append(args, f.Area)
	}
	where, args = append(where, `id > ?`), append(args, f.AfterID)
	limit := f.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	q := seatChangesSQL + `WHERE ` + strings.Join(where, ` AND `) + "\nORDER BY id LIMIT ?"
	return queryAll(ctx, t, "seat changes of show "+showID, func(row rowScanner) (stockade.SeatChange, error) {
		var (
			c        stockade.SeatChange
			at       int64
			from, to string
		)
		err := row.Scan(&c.ID, &at, &c.ShowID, &c.Seat, &c.Area, &c.Quantity, &from, &to, &c.HoldID, &c.BookingID, &c.Actor)
		c.At, c.From, c.To = fromMicros(at), stockade.SeatStatus(from), stockade.SeatStatus(to)
		return c, err
	}, q, append(args, limit)...)
}

// what names a batch of records in errors: the one id, or how many.
func what(verb, noun string, ids ...string) string {
	if len(ids) == 1 {
		return verb + " " + noun + " " + ids[0]
	}
	return fmt.Sprintf("%s %d %ss", verb, len(ids), noun)
}

// seatsAndPlaces encodes a hold's or booking's seats and places for their
// JSON columns.
func seatsAndPlaces(seats []string, places []stockade.Places) (string, string, error) {
	s, err := listJSON(seats)
	if err != nil {
		return "", "", err
	}
	p, err := listJSON(places)
	return s, p, err
}

func (t *tx) HoldInsert(ctx context.Context, hs ...stockade.Hold) error {
	ids := make([]string, len(hs))
	seats, places := make([]string, len(hs)), make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
		var err error
		if seats[i], places[i], err = seatsAndPlaces(h.Seats, h.Places); err != nil {
			return fmt.Errorf("sqlite: insert hold %s: %w", h.ID, err)
		}
	}
	err := t.insertRows(ctx, insertHoldsSQL, 12, len(hs), func(i int, row []any) []any {
		h := hs[i]
		return append(row, h.ID, h.ShowID, string(h.Status), seats[i], places[i], bit(h.Split),
			micros(h.CreatedAt), micros(h.ExpiresAt), h.BookingID, h.Owner, h.Version, marshalMetadata(h.Metadata))
	})
	if err != nil {
		return checkf(err, "invalid hold status", "%s", what("insert", "hold", ids...))
	}
	return nil
}

// scanHold reads a hold's columns: id, show_id, status, seats, places,
// split, created_at, expires_at, booking_id, owner, version.
func scanHold(row rowScanner) (stockade.Hold, error) {
	var (
		h                     stockade.Hold
		status, seats, places string
		meta                  string
		created, expires      int64
	)
	err := row.Scan(&h.ID, &h.ShowID, &status, &seats, &places, &h.Split, &created, &expires, &h.BookingID, &h.Owner, &h.Version, &meta)
	if err != nil {
		return h, err
	}
	if err := unmarshalMetadata(meta, &h.Metadata); err != nil {
		return h, err
	}
	h.Status, h.CreatedAt, h.ExpiresAt = stockade.HoldStatus(status), fromMicros(created), fromMicros(expires)
	if h.Seats, err = decodeList[string](seats); err != nil {
		return h, fmt.Errorf("seats: %w", err)
	}
	if h.Places, err = decodeList[stockade.Places](places); err != nil {
		return h, fmt.Errorf("places: %w", err)
	}
	return h, nil
}

// HoldGet ignores Lock; see tx.
func (t *tx) HoldGet(ctx context.Context, by stockade.ByID) (stockade.Hold, error) {
	h, err := scanHold(t.tx.QueryRowContext(ctx, holdSQL, by.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Hold{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("hold %q not found", by.ID))
	}
	if err != nil {
		return stockade.Hold{}, wrapf(err, "hold %s", by.ID)
	}
	return h, nil
}

// HoldGetMany ignores Lock; see tx.
func (t *tx) HoldGetMany(ctx context.Context, by stockade.ByIDs) ([]stockade.Hold, error) {
	if len(by.IDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(by.IDs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %d holds: %w", len(by.IDs), err)
	}
	return queryAll(ctx, t, fmt.Sprintf("%d holds", len(by.IDs)), scanHold, holdsSQL, string(list))
}

func (t *tx) HoldSetStatus(ctx context.Context, from, to stockade.HoldStatus, moves ...stockade.HoldMove) (int, error) {
	if len(moves) == 0 {
		return 0, nil
	}
	pairs := make([][2]string, len(moves))
	for i, m := range moves {
		pairs[i] = [2]string{m.Hold, m.Booking}
	}
	list, err := json.Marshal(pairs)
	if err != nil {
		return 0, fmt.Errorf("sqlite: set %d holds %s → %s: %w", len(moves), from, to, err)
	}
	res, err := t.tx.ExecContext(ctx, setHoldStatusSQL, string(from), string(to), string(list))
	if err != nil {
		return 0, checkf(err, "invalid hold status", "set %d holds %s → %s", len(moves), from, to)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "set %d holds %s → %s", len(moves), from, to)
	}
	return int(n), nil
}

func (t *tx) HoldExtend(ctx context.Context, id string, expiresAt time.Time) (bool, error) {
	res, err := t.tx.ExecContext(ctx, extendHoldSQL, id, micros(expiresAt))
	if err != nil {
		return false, wrapf(err, "extend hold %s", id)
	}
	return affected(res, "extend hold %s", id)
}

// HoldLapseCandidates takes no locks (see tx) and skips none: within an
// Update, no other transaction can change a hold, or its payment, that it
// has read.
func (t *tx) HoldLapseCandidates(ctx context.Context, q stockade.HoldLapseQuery) ([]stockade.HoldLapseCandidate, error) {
	sql, args := holdLapseCandidatesSQL, []any{micros(q.ExpiredBefore), micros(q.After.ExpiresAt), q.After.ID, sqliteLimit(q.Limit)}
	if q.ShowID != "" {
		sql, args = holdLapseCandidatesShowSQL, append(args, q.ShowID)
	}
	return queryAll(ctx, t, "hold lapse candidates", func(row rowScanner) (stockade.HoldLapseCandidate, error) {
		var c stockade.HoldLapseCandidate
		var err error
		c.Hold, err = scanHold(lastColumn{row, &c.Payment})
		return c, err
	}, sql, args...)
}

func (t *tx) BookingInsert(ctx context.Context, bs ...stockade.Booking) error {
	ids := make([]string, len(bs))
	seats, places := make([]string, len(bs)), make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.ID
		var err error
		if seats[i], places[i], err = seatsAndPlaces(b.Seats, b.Places); err != nil {
			return fmt.Errorf("sqlite: insert booking %s: %w", b.ID, err)
		}
	}
	err := t.insertRows(ctx, insertBookingsSQL, 9, len(bs), func(i int, row []any) []any {
		b := bs[i]
		return append(row, b.ID, b.ShowID, b.HoldID, string(b.Status), seats[i], places[i], micros(b.CreatedAt), b.Owner,
			marshalMetadata(b.Metadata))
	})
	if err != nil {
		return checkf(err, "invalid booking status", "%s", what("insert", "booking", ids...))
	}
	return nil
}

// scanBooking reads a booking's columns: id, show_id, hold_id, status,
// seats, places, created_at, owner.
func scanBooking(row rowScanner) (stockade.Booking, error) {
	var (
		b                     stockade.Booking
		status, seats, places string
		meta                  string
		created               int64
	)
	err := row.Scan(&b.ID, &b.ShowID, &b.HoldID, &status, &seats, &places, &created, &b.Owner, &meta)
	if err != nil {
		return b, err
	}
	if err := unmarshalMetadata(meta, &b.Metadata); err != nil {
		return b, err
	}
	b.Status, b.CreatedAt = stockade.BookingStatus(status), fromMicros(created)
	if b.Seats, err = decodeList[string](seats); err != nil {
		return b, fmt.Errorf("seats: %w", err)
	}
	if b.Places, err = decodeList[stockade.Places](places); err != nil {
		return b, fmt.Errorf("places: %w", err)
	}
	return b, nil
}

// BookingGet ignores Lock; see tx.
func (t *tx) BookingGet(ctx context.Context, by stockade.ByID) (stockade.Booking, error) {
	b, err := scanBooking(t.tx.QueryRowContext(ctx, bookingSQL, by.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return stockade.Booking{}, stockade.Errorf(stockade.ENotFound, fmt.Sprintf("booking %q not found", by.ID))
	}
	if err != nil {
		return stockade.Booking{}, wrapf(err, "booking %s", by.ID)
	}
	return b, nil
}

func (t *tx) BookingSetStatus(ctx context.Context, id string, from, to stockade.BookingStatus) (bool, error) {
	res, err := t.tx.ExecContext(ctx, setBookingStatusSQL, id, string(from), string(to))
	if err != nil {
		return false, checkf(err, "invalid booking status", "set booking %s %s → %s", id, from, to)
	}
	return affected(res, "set booking %s %s → %s", id, from, to)
}

// SeatFreeIDs implements stockade.BookingTx from the partial index
// seats_free alone.
func (t *tx) SeatFreeIDs(ctx context.Context, showID string) ([]string, error) {
	return queryAll(ctx, t, "free seats of show "+showID, func(r rowScanner) (id string, err error) {
		err = r.Scan(&id)
		return id, err
	}, freeSeatIDsSQL, showID)
}

// AreaDelete deletes the areas in one statement.
func (t *tx) AreaDelete(ctx context.Context, showID string, names []string) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	list, err := jsonText(names)
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete %d areas of show %s: %w", len(names), showID, err)
	}
	res, err := t.tx.ExecContext(ctx, deleteAreasSQL, showID, list)
	if err != nil {
		return 0, wrapf(err, "delete %d areas of show %s", len(names), showID)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrapf(err, "delete %d areas of show %s", len(names), showID)
	}
	return int(n), nil
}
