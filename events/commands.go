package events

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/stockade/stockade"
)

// Commands that other systems send the service through a broker: the
// end of a JetStream subject (after ConsumerOptions.Subject), or a Kafka
// record's Stockade-Command header. The body of a reservation's names
// it, {"reservation_id": "res_…"}; that of a payment outcome is a
// stockade.PaymentOutcome, {"event_id": …, "payment_id": …, "status": …,
// "reason": …}, sent by the payment system.
const (
	CommandConfirm        = "reservation.confirm" // Service.Confirm
	CommandRelease        = "reservation.release" // Service.Release
	CommandPaymentOutcome = "payment.outcome"     // PaymentService.ApplyOutcome
)

// inbound is a command as a broker delivered it.
type inbound struct {
	name string // the command: CommandConfirm, CommandRelease or CommandPaymentOutcome
	from string // where it came from, for the logs: a subject, a topic/partition@offset
	data []byte // its body

	// key is its idempotency key ("nats:<Nats-Msg-Id>"), which keyField
	// names in a refusal; fingerprint is what the key's fingerprint
	// covers besides the body.
	key, keyField, fingerprint string

	// deliveries is how often it has been delivered, this time included.
	deliveries int
}

// verdict is what a consumer does with a command it handled: acknowledge
// it (the zero verdict), send it to the dead letters (code and reason say
// why), or have it delivered again.
type verdict struct {
	deadLetter   bool
	retry        bool
	code, reason string
}

// commands applies the commands of a broker to a service, and decides
// what becomes of each: the body that the consumers of every broker share.
type commands struct {
	svc        stockade.StockService
	source     string // the payments' name for the broker: "jetstream", "kafka"
	maxDeliver int
	logger     *slog.Logger

	applied, duplicates, deadLetters, retries atomic.Int64
}

func newCommands(svc stockade.StockService, source string, maxDeliver int, logger *slog.Logger) *commands {
	return &commands{svc: svc, source: source, maxDeliver: maxDeliver, logger: logger}
}

func (c *commands) counts() (applied, duplicates, deadLetters, retries int64) {
	return c.applied.Load(), c.duplicates.Load(), c.deadLetters.Load(), c.retries.Load()
}

// handle applies in and says what to do with it: a refusal that no
// delivery will change sends it to the dead letters at once; a failure
// that may pass (the database is down) has it delivered again, up to
// maxDeliver deliveries, and then to the dead letters.
func (c *commands) handle(ctx context.Context, in inbound) verdict {
	err := c.apply(ctx, in)
	var refusal *stockade.Error
	switch {
	case err == nil:
		return verdict{}
	case errors.As(err, &refusal) && refusal.Code != stockade.EUnavailable && refusal.Code != stockade.EInternal:
		return verdict{deadLetter: true, code: refusal.Code, reason: refusal.Message}
	case in.deliveries >= c.maxDeliver:
		return verdict{deadLetter: true, code: stockade.ErrorCode(err),
			reason: fmt.Sprintf("gave up after %d deliveries: %v", in.deliveries, err)}
	default:
		return verdict{retry: true}
	}
}

// command is the body of a command.
type command struct {
	ReservationID string `json:"reservation_id"`
}

// apply runs in under its idempotency key, as the service's own actor:
// the broker's commands come from the shop's other services, which own
// no API key.
func (c *commands) apply(ctx context.Context, in inbound) error {
	ctx = stockade.WithActor(ctx, stockade.System)
	switch in.name {
	case CommandPaymentOutcome:
		return c.applyOutcome(ctx, in)
	case CommandConfirm, CommandRelease:
	default:
		return stockade.Errorf(stockade.EInvalid, fmt.Sprintf("unknown command %q (want %s, %s or %s)", in.name, CommandConfirm, CommandRelease, CommandPaymentOutcome))
	}
	var cmd command
	dec := json.NewDecoder(bytes.NewReader(in.data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd); err != nil {
		return stockade.Errorf(stockade.EInvalid, "body: want {\"reservation_id\": \"res_…\"}: "+err.Error())
	}
	sum := sha256.Sum256(append([]byte(in.fingerprint+"\n"), in.data...))
	idem := &stockade.Idempotency{Key: in.key, Fingerprint: hex.EncodeToString(sum[:])}
	if err := stockade.ValidateIdempotencyKey(in.keyField, idem.Key); err != nil {
		return err
	}
	var err error
	switch in.name {
	case CommandConfirm:
		_, err = c.svc.Confirm(ctx, cmd.ReservationID, idem)
	case CommandRelease:
		_, err = c.svc.Release(ctx, cmd.ReservationID, idem)
	}
	if err != nil {
		return err
	}
	if idem.Replayed {
		c.duplicates.Add(1)
	} else {
		c.applied.Add(1)
	}
	return nil
}

// applyOutcome applies the payment outcome in carries.
func (c *commands) applyOutcome(ctx context.Context, in inbound) error {
	payments, ok := c.svc.(stockade.PaymentService)
	if !ok {
		return stockade.Errorf(stockade.EInvalid, "this service keeps no payments")
	}
	var o stockade.PaymentOutcome
	dec := json.NewDecoder(bytes.NewReader(in.data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return stockade.Errorf(stockade.EInvalid, `body: want {"event_id": …, "payment_id": …, "status": …, "reason": …}: `+err.Error())
	}
	_, err := payments.ApplyOutcome(ctx, o, c.source)
	var ignored *stockade.IgnoredOutcome
	switch {
	case errors.As(err, &ignored):
		// It contradicts an earlier outcome: the payment's history
		// records it, and it changes nothing. It is acknowledged as the
		// webhook answers it 200: no delivery of it will ever do more.
		c.logger.Info("events: an outcome was ignored", "from", in.from, "payment", o.PaymentID,
			"event_id", o.EventID, "reason", ignored.Err.Message)
	case err != nil:
		return err
	}
	c.applied.Add(1)
	return nil
}
