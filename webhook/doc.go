// Package webhook delivers the service's events to the outbound webhook
// endpoints that an admin registers (stockade.WebhookService): each event
// a POST of JSON to every endpoint that asked for its type, signed, at
// least once, in commit order per aggregate.
//
// The common path, as `stockade serve` wires it:
//
//	eng, _ := engine.New(store, &engine.Options{})
//	s := webhook.New(eng, &webhook.Options{Wake: eng.Written})
//	go s.Run(ctx) // until ctx ends
//
// # How a delivery is made
//
// A turn of the webhooks' relay (engine.Engine.FanOutWebhooks) reads the
// next events of the outbox and writes a delivery for each endpoint that
// wants each, in the transaction that moves the relay's checkpoint: an
// event that committed is made into deliveries once, one that rolled back
// never. Writes never wait for deliveries, nor for receivers.
//
// Each endpoint has a worker of its own, so a slow or dead receiver slows
// no other endpoint. A worker claims the endpoint's due deliveries, at
// most Options.Concurrency, the first pending one of each aggregate, so an
// aggregate's deliveries go out in the order its events committed, each
// after the one before it has succeeded or failed for good. A claim holds
// a delivery for twice Options.Timeout: an attempt whose outcome was never
// recorded (the process died, or the store could not be reached) is made
// again once it ends, by this instance or another. Any number of
// instances may run a Sender on one store.
//
// Each attempt posts the event, as GET /v1/events shows it, with
//
//	Content-Type: application/json
//	Stockade-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">[,v1=…]
//	Stockade-Delivery: whd_…   the delivery's id, the same on every attempt
//	Stockade-Event-Id, Stockade-Event-Type, Stockade-Attempt
//
// signed with the endpoint's secret (and, for a while after a rotation,
// also with the one before it: one v1 entry each). A receiver checks the
// signature as the payment webhook does (httpapi.VerifyWebhook), refuses
// a stale t, and drops a delivery id it has seen: a delivery arrives at
// least once, and twice when an answer is lost.
//
// # Answers
//
//   - 2xx: delivered.
//   - 408, 429, 5xx, no answer within Options.Timeout, or no connection:
//     tried again after a backoff that doubles from Options.MinBackoff to
//     Options.MaxBackoff, with jitter (a longer Retry-After is honoured),
//     until Options.RetryFor after the event; then the delivery fails.
//   - 410 Gone: the delivery fails and the endpoint is disabled.
//   - Anything else, redirects included (they are not followed): the
//     delivery fails at once; trying again would not change the answer.
//
// A failed delivery, or any finished one, can be made again by hand
// (RedeliverWebhook, POST /v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver).
// Every delivery records its attempts, the last answer's code and time,
// and what went wrong.
//
// # Addresses
//
// Endpoints on loopback, private, link-local and shared addresses are
// refused when registered (engine.Options.WebhookPrivate) and, by the
// sender, at every connection (Options.AllowPrivate), whatever a name
// resolves to then, so that an admin key cannot make the service call its
// own network. No proxy is used, and at most Options.MaxAnswerBytes of an
// answer is read.
package webhook
