// Package events relays the service's outbox to NATS JetStream.
//
// Every change of the service writes its events in its own transaction
// (stockade.Tx.EventAppend); a Relay reads them in position order, the
// order in which no late commit can slip behind a reader, and publishes
// each to a JetStream stream, on the subject
// <prefix>.<aggregate>.<type>, with its id as the Nats-Msg-Id header:
//
//	nc, err := nats.Connect("nats://127.0.0.1:4222")
//	js, err := jetstream.New(nc)
//	relay := events.New(store, js, &events.Options{Wake: eng.Written})
//	go relay.Run(ctx) // until ctx ends
//
// A batch counts as published once the broker has acknowledged each of
// its messages; only then does the relay's checkpoint in the store move
// past it. So nothing is lost: a process that dies before, or a broker
// that is down, leaves the events in the outbox, and the next turn sends
// them again, in order. And nothing is seen twice: a message sent again
// carries the same Nats-Msg-Id, and JetStream drops it within the stream's
// duplicate window (2 minutes by default), which is far longer than a
// turn. Consumers that keep messages longer than that dedupe by the event
// id themselves.
//
// Any number of instances may run a relay on one PostgreSQL database:
// they take turns (stockade.Tx.RelayLock), and only the one whose turn it
// is publishes. Events are pruned only once every relay's checkpoint has
// passed them.
//
// The other way, a Consumer applies the commands other systems send on a
// stream of their own (stockade.commands.reservation.confirm and
// .release, {"reservation_id": "res_…"}, and a payment system's
// stockade.commands.payment.outcome, a stockade.PaymentOutcome) through
// a durable consumer that the instances share. Each runs under an idempotency key made of its
// message id, whose record the service writes in the transaction of the
// effect: that record is the command's inbox row, so a redelivery, or a
// duplicate a producer sent, changes nothing. A payment outcome has an
// inbox of its own, by the outcome's event id. The message is acknowledged
// (and the acknowledgement confirmed) only after the commit. An outcome
// that contradicts an earlier one is recorded in the payment's history as
// ignored (stockade.IgnoredOutcome) and acknowledged, counted as applied.
// A command that can never apply (unknown, malformed, a reservation missing or in
// the wrong state) goes to the dead letters at once, with its reason; one
// that fails for a reason that may pass is delivered again, with a
// growing delay, and goes to the dead letters after MaxDeliver tries.
package events
