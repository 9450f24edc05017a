package bench

import (
	"context"
	"sync/atomic"

	"github.com/stockade/stockade"
)

// spread is a service made of several instances of one service on one
// store: it sends the workloads' requests to each instance in turn, and
// everything else (setting stock up, reading it back) to the first.
type spread struct {
	stockade.StockService // the first
	all                   []stockade.StockService
	next                  atomic.Uint64
}

// Spread returns a service that sends the workloads' requests (checkouts,
// reservations, confirms, holds) to services in turn, round robin, for
// Options.Service: instances of one service that share a store, such as
// several "stockade serve" processes on one PostgreSQL. It sells seats if
// every service does. With one service it returns it.
func Spread(services ...stockade.StockService) stockade.StockService {
	if len(services) == 1 {
		return services[0]
	}
	s := &spread{StockService: services[0], all: services}
	for _, svc := range services {
		if _, ok := svc.(stockade.BookingService); !ok {
			return s // sells no seats
		}
	}
	return spreadBookings{s, services[0].(stockade.BookingService)}
}

// pick returns the service for the next request.
func (s *spread) pick() stockade.StockService {
	return s.all[(s.next.Add(1)-1)%uint64(len(s.all))]
}

func (s *spread) Reserve(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Reservation, error) {
	return s.pick().Reserve(ctx, req, idem)
}

func (s *spread) Confirm(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Order, error) {
	return s.pick().Confirm(ctx, id, idem)
}

func (s *spread) Checkout(ctx context.Context, req stockade.ReserveRequest, idem *stockade.Idempotency) (stockade.Order, error) {
	return s.pick().Checkout(ctx, req, idem)
}

// spreadBookings is a spread whose services all sell seats; the calls it
// does not spread go to the first.
type spreadBookings struct {
	*spread
	stockade.BookingService // the first's
}

func (s spreadBookings) HoldSeats(ctx context.Context, req stockade.HoldRequest, idem *stockade.Idempotency) (stockade.Hold, error) {
	return s.pick().(stockade.BookingService).HoldSeats(ctx, req, idem)
}

func (s spreadBookings) ConfirmHold(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Booking, error) {
	return s.pick().(stockade.BookingService).ConfirmHold(ctx, id, idem)
}

var (
	_ stockade.StockService   = spreadBookings{}
	_ stockade.BookingService = spreadBookings{}
)
