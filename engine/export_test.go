package engine

// QueuedCalls returns how many Reserve, Checkout and Confirm calls wait in
// e's group lane for a batch to take them: tests use it to know what the
// next batch will hold.
func QueuedCalls(e *Engine) int {
	if g, ok := e.stock.(*group[*stockCall]); ok {
		return g.queued()
	}
	return 0
}

// PrefixEnd is prefixEnd, for its test.
var PrefixEnd = prefixEnd

// QueuedHolds returns how many HoldSeats and ConfirmHold calls wait in
// e's group lane.
func QueuedHolds(e *Engine) int {
	if g, ok := e.holds.(*group[*holdCall]); ok {
		return g.queued()
	}
	return 0
}

// ShipmentLines is shipmentLines, for its table test.
var ShipmentLines = shipmentLines

// SeatReads returns how many times e read a show's free seats whole.
func SeatReads(e *Engine) int64 { return e.seatReads.Load() }

// CountdownEvery is countdownEvery, for its test.
var CountdownEvery = countdownEvery
