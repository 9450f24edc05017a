package engine

// QueuedCalls returns how many calls wait in e's batcher for a batch to
// take them: tests use it to know what the next batch will hold.
func QueuedCalls(e *Engine) int {
	if e.batch == nil {
		return 0
	}
	e.batch.mu.Lock()
	defer e.batch.mu.Unlock()
	n := 0
	for _, p := range e.batch.queue {
		if !p.withdrawn {
			n++
		}
	}
	return n
}

// PrefixEnd is prefixEnd, for its test.
var PrefixEnd = prefixEnd

// QueuedHolds returns how many HoldSeats and ConfirmHold calls wait in
// e's hold batcher.
func QueuedHolds(e *Engine) int {
	if e.holds == nil {
		return 0
	}
	e.holds.mu.Lock()
	defer e.holds.mu.Unlock()
	n := 0
	for _, q := range e.holds.queues {
		for _, h := range q.calls {
			if !h.withdrawn {
				n++
			}
		}
	}
	return n
}
