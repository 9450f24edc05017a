package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"time"

	"github.com/stockade/stockade"
)

// Reservations implements stockade.Service. A held reservation whose
// expiry has passed is reported expired, as Reservation reports it (but
// one whose payment is in flight, which keeps it held); the status
// filter is on the stored status, so it is listed with the held ones
// until the sweeper (or a request for its stock) expires it.
func (e *Engine) Reservations(ctx context.Context, q stockade.ListQuery) (stockade.ReservationPage, error) {
	return run(e, ctx, "reservations", nil, func(ctx context.Context, c *call) (stockade.ReservationPage, error) {
		if err := q.ValidateReservations(); err != nil {
			return stockade.ReservationPage{}, err
		}
		f, err := c.listFilter(q, reservationCursorTag)
		if err != nil {
			return stockade.ReservationPage{}, err
		}
		var rs []stockade.Reservation
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			if rs, err = tx.ListReservations(ctx, f); err != nil {
				return err
			}
			now := e.now()
			for i := range rs {
				if rs[i].Status != stockade.Held {
					continue
				}
				gone, err := lapsed(ctx, tx, stockade.PaymentTarget{Kind: stockade.PayReservation, ID: rs[i].ID}, rs[i].ExpiresAt, now)
				if err != nil {
					return err
				}
				if gone {
					rs[i].Status = stockade.Expired
				}
			}
			return nil
		})
		if err != nil {
			return stockade.ReservationPage{}, err
		}
		page := stockade.ReservationPage{Reservations: rs}
		if limit := f.Limit - 1; len(rs) > limit {
			last := rs[limit-1]
			page.Reservations, page.Next = rs[:limit], listCursor(reservationCursorTag, last.CreatedAt, last.ID)
		}
		return page, nil
	})
}

// Orders implements stockade.Service.
func (e *Engine) Orders(ctx context.Context, q stockade.ListQuery) (stockade.OrderPage, error) {
	return run(e, ctx, "orders", nil, func(ctx context.Context, c *call) (stockade.OrderPage, error) {
		if err := q.ValidateOrders(); err != nil {
			return stockade.OrderPage{}, err
		}
		f, err := c.listFilter(q, orderCursorTag)
		if err != nil {
			return stockade.OrderPage{}, err
		}
		var os []stockade.Order
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			os, err = tx.ListOrders(ctx, f)
			return err
		})
		if err != nil {
			return stockade.OrderPage{}, err
		}
		page := stockade.OrderPage{Orders: os}
		if limit := f.Limit - 1; len(os) > limit {
			last := os[limit-1]
			page.Orders, page.Next = os[:limit], listCursor(orderCursorTag, last.CreatedAt, last.ID)
		}
		return page, nil
	})
}

// listFilter returns the store filter of q, a query of the list whose
// cursors carry tag: one row more than the page holds, so that the page
// knows whether another follows, and for a storefront actor only what its
// key created.
func (c *call) listFilter(q stockade.ListQuery, tag byte) (stockade.ListFilter, error) {
	at, id, err := parseListCursor(q.Cursor, tag)
	if err != nil {
		return stockade.ListFilter{}, err
	}
	f := stockade.ListFilter{Status: q.Status, CreatedAfter: q.CreatedAfter, CreatedBefore: q.CreatedBefore,
		BeforeAt: at, BeforeID: id, Limit: cmp.Or(q.Limit, stockade.DefaultListLimit) + 1}
	if c.actor.Role == stockade.RoleStorefront {
		f.Owner = c.actor.KeyID
	}
	return f, nil
}

// A reservation or order cursor is the last row of a page, which the next
// page starts after (the lists run newest first): a tag byte, the row's
// created_at in Unix microseconds as 8 bytes big-endian, and its id, in
// unpadded base64url.
const (
	reservationCursorTag = 'r'
	orderCursorTag       = 'o'
)

// listCursor returns the cursor of the page after the row created at at
// with id.
func listCursor(tag byte, at time.Time, id string) string {
	b := make([]byte, 9, 9+len(id))
	b[0] = tag
	binary.BigEndian.PutUint64(b[1:], uint64(at.UnixMicro()))
	return cursorEncoding.EncodeToString(append(b, id...))
}

// parseListCursor returns the time and id a cursor made by listCursor
// with tag holds, or zeros for the empty cursor (the first page).
// Anything else is refused with EInvalid.
func parseListCursor(s string, tag byte) (time.Time, string, error) {
	if s == "" {
		return time.Time{}, "", nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) > 9 && b[0] == tag {
		at, id := int64(binary.BigEndian.Uint64(b[1:9])), string(b[9:])
		if at > 0 && stockade.ValidateID("cursor", id) == nil {
			return time.UnixMicro(at).UTC(), id, nil
		}
	}
	return time.Time{}, "", refuse(stockade.EInvalid, "cursor: malformed; pass the next cursor of an earlier page, or none for the first")
}

// paymentCursorTag tags the cursors of payment lists (see listCursor).
const paymentCursorTag = 'p'

// Payments returns a page of payments, newest first; a storefront sees
// only those of its own reservations, holds and orders.
func (e *Engine) Payments(ctx context.Context, q stockade.PaymentQuery) (stockade.PaymentPage, error) {
	return run(e, ctx, "payments", nil, func(ctx context.Context, c *call) (stockade.PaymentPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.PaymentPage{}, err
		}
		at, id, err := parseListCursor(q.Cursor, paymentCursorTag)
		if err != nil {
			return stockade.PaymentPage{}, err
		}
		f := stockade.PaymentFilter{Status: q.Status, Stuck: q.Stuck, BeforeAt: at, BeforeID: id,
			Limit: cmp.Or(q.Limit, stockade.DefaultListLimit) + 1}
		switch q.Resolution {
		case "":
		case stockade.ResolutionUnresolved:
			f.Resolution = ptr(stockade.Unresolved)
		default:
			f.Resolution = ptr(stockade.PaymentResolution(q.Resolution))
		}
		if c.actor.Role == stockade.RoleStorefront {
			f.Owner = c.actor.KeyID
		}
		var ps []stockade.Payment
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			ps, err = tx.ListPayments(ctx, f)
			return err
		})
		if err != nil {
			return stockade.PaymentPage{}, err
		}
		page := stockade.PaymentPage{Payments: ps}
		if limit := f.Limit - 1; len(ps) > limit {
			last := ps[limit-1]
			page.Payments, page.Next = ps[:limit], listCursor(paymentCursorTag, last.CreatedAt, last.ID)
		}
		return page, nil
	})
}

func ptr[T any](v T) *T { return &v }
