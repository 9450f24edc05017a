package engine

import (
	"context"
	"time"

	"github.com/stockade/stockade"
)

// Updates of metadata
//
// A reservation, an order, a hold, a booking and a payment each take an
// update of their metadata by one body, updateMetadata: it reads the
// aggregate as its GET shows it, holding its row, merges the request into
// its metadata (stockade.Metadata.Merge), writes that alone, and adds the
// aggregate's *.updated event. It moves no status and no version, so it
// never conflicts with a change of state: the two only queue on the row.

// updatable is what updateMetadata needs of one kind of aggregate.
type updatable[T any] struct {
	aggregate string // its Aggregate name, which is its table's key in the store
	event     string // its *.updated event
	// read reads the aggregate id in tx as its GET shows it, holding its
	// row; another storefront's is ENotFound.
	read func(ctx context.Context, c *call, tx stockade.Tx, id string) (T, error)
	// metadata points at v's metadata.
	metadata func(v *T) *stockade.Metadata
	// emit adds v's event of typ to o.
	emit func(o *outbox, typ string, v T, at time.Time)
}

// updateMetadata applies req to the metadata of the aggregate id of kind
// u, as the effect of a call of op, and returns the aggregate after it.
func updateMetadata[T any](e *Engine, ctx context.Context, op string, u updatable[T], id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (T, error) {
	return run(e, ctx, op, idem, func(ctx context.Context, c *call) (T, error) {
		var v T
		if err := checkID(u.aggregate+" id", id); err != nil {
			return v, err
		}
		if err := req.Validate(); err != nil {
			return v, err
		}
		err := c.update(ctx, func(tx stockade.Tx) (err error) {
			v, err = once(ctx, c, tx, func() (T, error) {
				v, err := u.read(ctx, c, tx, id)
				if err != nil {
					return v, err
				}
				m := u.metadata(&v)
				if *m, err = m.Merge(req.Metadata); err != nil {
					return v, err
				}
				if ok, err := tx.MetadataSet(ctx, u.aggregate, id, *m); err != nil || !ok {
					return v, statusErr(err, u.aggregate, id)
				}
				var ob outbox
				u.emit(&ob, u.event, v, e.now())
				return v, ob.flush(ctx, tx)
			})
			return err
		})
		return v, err
	})
}

// UpdateReservation implements stockade.StockService.
func (e *Engine) UpdateReservation(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Reservation, error) {
	return updateMetadata(e, ctx, "update reservation", updatable[stockade.Reservation]{
		aggregate: stockade.AggregateReservation,
		event:     stockade.EventReservationUpdated,
		read: func(ctx context.Context, c *call, tx stockade.Tx, id string) (stockade.Reservation, error) {
			return c.reservationView(ctx, tx, id, true)
		},
		metadata: func(r *stockade.Reservation) *stockade.Metadata { return &r.Metadata },
		emit:     (*outbox).reservation,
	}, id, req, idem)
}

// UpdateOrder implements stockade.StockService.
func (e *Engine) UpdateOrder(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return updateMetadata(e, ctx, "update order", updatable[stockade.Order]{
		aggregate: stockade.AggregateOrder,
		event:     stockade.EventOrderUpdated,
		read: func(ctx context.Context, c *call, tx stockade.Tx, id string) (stockade.Order, error) {
			return c.order(ctx, tx, id, true)
		},
		metadata: func(o *stockade.Order) *stockade.Metadata { return &o.Metadata },
		emit:     (*outbox).order,
	}, id, req, idem)
}

// UpdateHold implements stockade.BookingService.
func (e *Engine) UpdateHold(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return updateMetadata(e, ctx, "update hold", updatable[stockade.Hold]{
		aggregate: stockade.AggregateHold,
		event:     stockade.EventHoldUpdated,
		read: func(ctx context.Context, c *call, tx stockade.Tx, id string) (stockade.Hold, error) {
			return c.holdView(ctx, tx, id, true)
		},
		metadata: func(h *stockade.Hold) *stockade.Metadata { return &h.Metadata },
		emit:     (*outbox).hold,
	}, id, req, idem)
}

// UpdateBooking implements stockade.BookingService.
func (e *Engine) UpdateBooking(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Booking, error) {
	return updateMetadata(e, ctx, "update booking", updatable[stockade.Booking]{
		aggregate: stockade.AggregateBooking,
		event:     stockade.EventBookingUpdated,
		read: func(ctx context.Context, c *call, tx stockade.Tx, id string) (stockade.Booking, error) {
			return c.booking(ctx, tx, id, true)
		},
		metadata: func(bk *stockade.Booking) *stockade.Metadata { return &bk.Metadata },
		emit:     (*outbox).booking,
	}, id, req, idem)
}

// UpdatePayment implements stockade.PaymentService.
func (e *Engine) UpdatePayment(ctx context.Context, id string, req stockade.UpdateRequest, idem *stockade.Idempotency) (stockade.Payment, error) {
	return updateMetadata(e, ctx, "update payment", updatable[stockade.Payment]{
		aggregate: stockade.AggregatePayment,
		event:     stockade.EventPaymentUpdated,
		read: func(ctx context.Context, c *call, tx stockade.Tx, id string) (stockade.Payment, error) {
			return c.payment(ctx, tx, id, true)
		},
		metadata: func(p *stockade.Payment) *stockade.Metadata { return &p.Metadata },
		emit:     (*outbox).payment,
	}, id, req, idem)
}
