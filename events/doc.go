// Package events relays the service's outbox to a broker, NATS JetStream
// or Kafka, and applies the commands that other systems send through it.
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
//
// # Kafka
//
// NewKafka relays to a Kafka topic instead, through the same loop, turns
// and checkpoint; NewKafkaConsumer reads the same commands from a
// consumer group. Side by side:
//
//	                   JetStream                         Kafka
//	events             stream STOCKADE_EVENTS,           topic stockade.events, record key
//	                   subject <prefix>.<agg>.<type>     the aggregate id, headers
//	                                                     Stockade-Event-Id, -Event-Type
//	order              the outbox's, whole stream        the outbox's, per partition (so per
//	                                                     aggregate)
//	published when     every message acknowledged        every record acknowledged by all
//	                                                     in-sync replicas
//	sent again         dropped by Nats-Msg-Id within     written again: the consumer drops
//	(died before the   the duplicate window              it by Stockade-Event-Id; the first
//	checkpoint)                                          copies stay in order
//	retried by the     dropped (Nats-Msg-Id)             dropped (idempotent producer)
//	client
//	a turn failed      dropped (Nats-Msg-Id)             the relay leaves out what the
//	part way                                             brokers acknowledged
//	commands           subject <prefix>.<command>        topic stockade.commands, header
//	                                                     Stockade-Command
//	command id         Nats-Msg-Id                       Stockade-Msg-Id, or the record's
//	                                                     topic/partition@offset
//	shared by          a durable consumer                a consumer group
//	acknowledged       each message, after its commit    a poll's offsets, after every
//	                                                     record's commit
//	passing failure    redelivered with a delay          tried again in place, a second more
//	                                                     each time
//	poison             stockade.deadletter.<command>     topic stockade.deadletter
//
//	cl, err := kgo.NewClient(kgo.SeedBrokers("broker1:9092", "broker2:9092"))
//	relay := events.NewKafka(store, cl, &events.KafkaOptions{Partitions: 12, Wake: eng.Written})
//	go relay.Run(ctx)
//	cons := events.NewKafkaConsumer(eng, []kgo.Opt{kgo.SeedBrokers("broker1:9092")}, nil)
//	go cons.Run(ctx)
//
// The client's producer must be franz-go's default, idempotent and
// waiting for all in-sync replicas, which the relay relies on: a request
// that the client retries is written once. A Kafka topic keeps no
// duplicate window, so a batch that a new turn sends again (the process
// died after the brokers acknowledged it, before the checkpoint moved) is
// written twice; its consumers drop the copies by the event id. The
// group does not rebalance while a poll's records are applied, so an
// instance that joins or leaves mid-batch takes over only committed
// offsets; one that is put out of the group for taking longer than the
// rebalance timeout loses its commit, and its records, delivered again,
// change nothing.
package events
