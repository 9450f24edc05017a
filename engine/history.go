package engine

import (
	"cmp"
	"context"

	"github.com/stockade/stockade"
)

// The seat history of a show is append-only: every transaction that
// moves a seat or an area's places writes its rows (stockade.SeatChange),
// and SeatHistory reads them back a page at a time, oldest first.

// A seat history cursor is the id of the last row of a page, as a
// movement cursor is (cursor.go), under the byte 'h'.
const seatHistoryCursorTag = 'h'

// SeatHistory implements stockade.BookingService. It reads one row more
// than the page holds: if that row exists, the page has a Next cursor,
// the id of its last row. An unknown show is ENotFound; a seat or area
// that has no rows (or does not exist) gives an empty page. A storefront
// sees the moves only, as Seats shows it a seat's status only: which
// hold, booking and key moved a seat is not its to know.
func (e *Engine) SeatHistory(ctx context.Context, showID string, q stockade.SeatHistoryQuery) (stockade.SeatHistoryPage, error) {
	return run(e, ctx, "seat history", nil, func(ctx context.Context, c *call) (stockade.SeatHistoryPage, error) {
		if err := checkID("show id", showID); err != nil {
			return stockade.SeatHistoryPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.SeatHistoryPage{}, err
		}
		after, err := parseRowCursor(q.Cursor, seatHistoryCursorTag)
		if err != nil {
			return stockade.SeatHistoryPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultSeatHistoryLimit)
		f := stockade.SeatChangeFilter{Seat: q.Seat, Area: q.Area, AfterID: after, Limit: limit + 1}
		var cs []stockade.SeatChange
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if _, err := tx.ShowGetHead(ctx, stockade.ByID{ID: showID}); err != nil {
				return err
			}
			cs, err = tx.SeatChangeList(ctx, showID, f)
			return err
		})
		if err != nil {
			return stockade.SeatHistoryPage{}, err
		}
		page := stockade.SeatHistoryPage{Changes: cs[:min(limit, len(cs))]}
		if len(cs) > limit {
			page.Next = rowCursor(seatHistoryCursorTag, page.Changes[len(page.Changes)-1].ID)
		}
		if c.actor.Role == stockade.RoleStorefront {
			for i := range page.Changes {
				page.Changes[i].HoldID, page.Changes[i].BookingID, page.Changes[i].Actor = "", "", ""
			}
		}
		return page, nil
	})
}
