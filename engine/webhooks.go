package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Outbound webhooks: the admin's endpoints (stockade.WebhookService), and
// the state of their deliveries, which the sender in package webhook
// moves through FanOutWebhooks, ClaimWebhookDeliveries and
// RecordWebhookAttempt. The HTTP calls, and the judgement of their
// answers, are the sender's; what a judgement does to a delivery and its
// endpoint is here, once.

var _ stockade.WebhookService = (*Engine)(nil)

// webhookRelay names the webhooks' checkpoint in the outbox
// (Tx.RelayLock): the position of the last event made into deliveries.
const webhookRelay = "webhooks"

// webhook cursors: an endpoint's id, and a delivery's Seq.
const (
	webhookEndpointCursorTag = 'w'
	webhookDeliveryCursorTag = 'd'
)

// CreateWebhookEndpoint implements stockade.WebhookService.
func (e *Engine) CreateWebhookEndpoint(ctx context.Context, req stockade.NewWebhookEndpointRequest) (stockade.WebhookEndpoint, string, error) {
	ep, err := run(e, ctx, "create webhook endpoint", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		if err := req.Validate(); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		if err := e.checkWebhookHost(req.URL); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		var ep stockade.WebhookEndpoint
		err := c.write(ctx, func(tx stockade.Tx) error {
			now := e.now()
			ep = stockade.WebhookEndpoint{ID: newID("we"), URL: req.URL, Events: req.Events, Description: req.Description,
				Secret: stockade.NewWebhookSecret(), CreatedAt: now, UpdatedAt: now, Version: 1}
			return tx.WebhookEndpointInsert(ctx, ep)
		})
		return ep, err
	})
	if err != nil {
		return stockade.WebhookEndpoint{}, "", err
	}
	return ep, ep.Secret, nil
}

// checkWebhookHost refuses a URL whose host is loopback or private, unless
// Options.WebhookPrivate allows them. Names are checked again, address by
// address, each time the sender calls them.
func (e *Engine) checkWebhookHost(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || e.opts.WebhookPrivate || stockade.WebhookHostAllowed(u.Hostname()) {
		return err
	}
	return refuse(stockade.EInvalid, "url: host %q is a loopback, private or link-local address, which webhooks do not call "+
		"unless the server allows them (stockade serve -webhook-allow-private)", u.Hostname())
}

// WebhookEndpoints implements stockade.WebhookService.
func (e *Engine) WebhookEndpoints(ctx context.Context, q stockade.WebhookEndpointQuery) (stockade.WebhookEndpointPage, error) {
	return run(e, ctx, "webhook endpoints", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpointPage, error) {
		if err := q.Validate(); err != nil {
			return stockade.WebhookEndpointPage{}, err
		}
		after, err := parseIDCursor(q.Cursor, webhookEndpointCursorTag)
		if err != nil {
			return stockade.WebhookEndpointPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultWebhookLimit)
		var eps []stockade.WebhookEndpoint
		err = c.view(ctx, func(tx stockade.Tx) (err error) {
			eps, err = tx.WebhookEndpointList(ctx, after, limit+1)
			return err
		})
		page := stockade.WebhookEndpointPage{Endpoints: eps}
		if len(eps) > limit {
			page.Endpoints, page.Next = eps[:limit], idCursor(webhookEndpointCursorTag, eps[limit-1].ID)
		}
		return page, err
	})
}

// WebhookEndpoint implements stockade.WebhookService.
func (e *Engine) WebhookEndpoint(ctx context.Context, id string) (stockade.WebhookEndpoint, error) {
	return run(e, ctx, "webhook endpoint", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		if err := checkID("webhook endpoint id", id); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		var ep stockade.WebhookEndpoint
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			ep, err = tx.WebhookEndpointGet(ctx, stockade.ByID{ID: id})
			return err
		})
		return ep, err
	})
}

// UpdateWebhookEndpoint implements stockade.WebhookService.
func (e *Engine) UpdateWebhookEndpoint(ctx context.Context, id string, u stockade.WebhookEndpointUpdate) (stockade.WebhookEndpoint, error) {
	return run(e, ctx, "update webhook endpoint", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		if err := checkID("webhook endpoint id", id); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		if err := u.Validate(); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		if u.URL != nil {
			if err := e.checkWebhookHost(*u.URL); err != nil {
				return stockade.WebhookEndpoint{}, err
			}
		}
		return e.changeEndpoint(ctx, c, id, func(ep *stockade.WebhookEndpoint, _ time.Time) {
			if u.URL != nil {
				ep.URL = *u.URL
			}
			if u.Events != nil {
				ep.Events = u.Events
			}
			if u.Description != nil {
				ep.Description = *u.Description
			}
			if u.Disabled != nil {
				ep.Disabled = *u.Disabled
				ep.DisabledReason = ""
				if ep.Disabled {
					ep.DisabledReason = "disabled by " + c.actor.Name
				}
			}
		})
	})
}

// changeEndpoint applies change to endpoint id in a transaction of its
// own, as a new version.
func (e *Engine) changeEndpoint(ctx context.Context, c *call, id string, change func(ep *stockade.WebhookEndpoint, now time.Time)) (stockade.WebhookEndpoint, error) {
	var ep stockade.WebhookEndpoint
	err := c.write(ctx, func(tx stockade.Tx) (err error) {
		if ep, err = tx.WebhookEndpointGet(ctx, stockade.ByID{ID: id, Lock: true}); err != nil {
			return err
		}
		now := e.now()
		change(&ep, now)
		ep.UpdatedAt, ep.Version = now, ep.Version+1
		ok, err := tx.WebhookEndpointUpdate(ctx, ep)
		if err == nil && !ok {
			err = conflictf("webhook endpoint %q changed concurrently", id)
		}
		return err
	})
	return ep, err
}

// DeleteWebhookEndpoint implements stockade.WebhookService.
func (e *Engine) DeleteWebhookEndpoint(ctx context.Context, id string) (stockade.WebhookEndpoint, error) {
	return run(e, ctx, "delete webhook endpoint", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		if err := checkID("webhook endpoint id", id); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		var ep stockade.WebhookEndpoint
		err := c.write(ctx, func(tx stockade.Tx) (err error) {
			if ep, err = tx.WebhookEndpointGet(ctx, stockade.ByID{ID: id, Lock: true}); err != nil {
				return err
			}
			ok, err := tx.WebhookEndpointDelete(ctx, id)
			if err == nil && !ok {
				err = conflictf("webhook endpoint %q deleted concurrently", id)
			}
			return err
		})
		return ep, err
	})
}

// RotateWebhookSecret implements stockade.WebhookService.
func (e *Engine) RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (stockade.WebhookEndpoint, string, error) {
	ep, err := run(e, ctx, "rotate webhook secret", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		if err := checkID("webhook endpoint id", id); err != nil {
			return stockade.WebhookEndpoint{}, err
		}
		if overlap < 0 || overlap > stockade.MaxWebhookSecretOverlap {
			return stockade.WebhookEndpoint{}, refuse(stockade.EInvalid, "overlap_seconds: must be between 0 and %d (0 for %d), got %d",
				int(stockade.MaxWebhookSecretOverlap.Seconds()), int(stockade.DefaultWebhookSecretOverlap.Seconds()), int(overlap.Seconds()))
		}
		overlap = cmp.Or(overlap, stockade.DefaultWebhookSecretOverlap)
		secret := stockade.NewWebhookSecret()
		return e.changeEndpoint(ctx, c, id, func(ep *stockade.WebhookEndpoint, now time.Time) {
			ep.PreviousSecret, ep.PreviousExpiresAt, ep.Secret = ep.Secret, now.Add(overlap), secret
		})
	})
	if err != nil {
		return stockade.WebhookEndpoint{}, "", err
	}
	return ep, ep.Secret, nil
}

// WebhookDeliveries implements stockade.WebhookService.
func (e *Engine) WebhookDeliveries(ctx context.Context, endpointID string, q stockade.WebhookDeliveryQuery) (stockade.WebhookDeliveryPage, error) {
	return run(e, ctx, "webhook deliveries", nil, func(ctx context.Context, c *call) (stockade.WebhookDeliveryPage, error) {
		if err := checkID("webhook endpoint id", endpointID); err != nil {
			return stockade.WebhookDeliveryPage{}, err
		}
		if err := q.Validate(); err != nil {
			return stockade.WebhookDeliveryPage{}, err
		}
		before, err := parseRowCursor(q.Cursor, webhookDeliveryCursorTag)
		if err != nil {
			return stockade.WebhookDeliveryPage{}, err
		}
		limit := cmp.Or(q.Limit, stockade.DefaultWebhookLimit)
		var ds []stockade.WebhookDelivery
		err = c.view(ctx, func(tx stockade.Tx) error {
			if _, err := tx.WebhookEndpointGet(ctx, stockade.ByID{ID: endpointID}); err != nil {
				return err
			}
			ds, err = tx.WebhookDeliveryList(ctx, stockade.WebhookDeliveryFilter{EndpointID: endpointID, Status: q.Status,
				BeforeSeq: before, Limit: limit + 1})
			return err
		})
		page := stockade.WebhookDeliveryPage{Deliveries: ds}
		if len(ds) > limit {
			page.Deliveries, page.Next = ds[:limit], rowCursor(webhookDeliveryCursorTag, ds[limit-1].Seq)
		}
		return page, err
	})
}

// RedeliverWebhook implements stockade.WebhookService.
func (e *Engine) RedeliverWebhook(ctx context.Context, endpointID, deliveryID string) (stockade.WebhookDelivery, error) {
	return run(e, ctx, "redeliver webhook", nil, func(ctx context.Context, c *call) (stockade.WebhookDelivery, error) {
		if err := checkID("webhook endpoint id", endpointID); err != nil {
			return stockade.WebhookDelivery{}, err
		}
		if err := checkID("webhook delivery id", deliveryID); err != nil {
			return stockade.WebhookDelivery{}, err
		}
		var d stockade.WebhookDelivery
		err := c.write(ctx, func(tx stockade.Tx) (err error) {
			if d, err = tx.WebhookDeliveryGet(ctx, endpointID, deliveryID); err != nil {
				return err
			}
			if d.Status == stockade.DeliveryPending {
				return refuse(stockade.EInvalidState, "webhook delivery %q is pending: it is tried again on its own (next at %s)",
					deliveryID, d.NextAttemptAt.Format(time.RFC3339))
			}
			now := e.now()
			d.Status, d.NextAttemptAt, d.RetryUntil, d.Version = stockade.DeliveryPending, now, now, d.Version+1
			return updateDelivery(ctx, tx, d)
		})
		return d, err
	})
}

// updateDelivery writes d over the version before it.
func updateDelivery(ctx context.Context, tx stockade.Tx, d stockade.WebhookDelivery) error {
	ok, err := tx.WebhookDeliveryUpdate(ctx, d)
	if err == nil && !ok {
		err = conflictf("webhook delivery %q changed concurrently", d.ID)
	}
	return err
}

// FanOutWebhooks takes one turn of the webhooks' relay: it reads the
// next events of the outbox after the relay's checkpoint, at most
// f.Limit, makes each a delivery to every endpoint that wants it (in the
// events' order, so that an endpoint's deliveries follow the outbox), and
// moves the checkpoint past them, all in one transaction: an event is
// made into deliveries once, however the turn ends. It returns how many
// events it read: 0 when there were none, or another instance has the
// turn.
//
// The turn wakes no reader of events: it writes none.
func (e *Engine) FanOutWebhooks(ctx context.Context, f stockade.WebhookFanOut) (int, error) {
	return run(e, ctx, "fan out webhooks", nil, func(ctx context.Context, c *call) (int, error) {
		n := 0
		err := c.write(ctx, func(tx stockade.Tx) error {
			n = 0
			pos, ok, err := tx.RelayLock(ctx, webhookRelay)
			if err != nil || !ok {
				return err
			}
			evs, err := tx.EventList(ctx, stockade.DomainEventFilter{After: pos, Limit: f.Limit})
			if err != nil || len(evs) == 0 {
				return err
			}
			eps, err := allEndpoints(ctx, tx)
			if err != nil {
				return err
			}
			now := e.now()
			var ds []stockade.WebhookDelivery
			for _, ev := range evs {
				var body []byte
				for _, ep := range eps {
					if !ep.Wants(ev) {
						continue
					}
					if body == nil {
						if body, err = webhookBody(ev); err != nil {
							return err
						}
					}
					ds = append(ds, stockade.WebhookDelivery{ID: newID("whd"), EndpointID: ep.ID, EventID: ev.ID,
						EventType: ev.Type, Aggregate: ev.Aggregate, AggregateID: ev.AggregateID, Status: stockade.DeliveryPending,
						Body: body, NextAttemptAt: now, RetryUntil: now.Add(f.RetryFor), CreatedAt: now, Version: 1})
				}
			}
			if err := tx.WebhookDeliveryInsert(ctx, ds...); err != nil {
				return err
			}
			n = len(evs)
			return tx.RelaySetPosition(ctx, webhookRelay, evs[len(evs)-1].Position)
		})
		return n, err
	})
}

// allEndpoints reads every endpoint, a page at a time.
func allEndpoints(ctx context.Context, tx stockade.Tx) ([]stockade.WebhookEndpoint, error) {
	var all []stockade.WebhookEndpoint
	for after := ""; ; {
		eps, err := tx.WebhookEndpointList(ctx, after, stockade.MaxWebhookLimit)
		all = append(all, eps...)
		if err != nil || len(eps) < stockade.MaxWebhookLimit {
			return all, err
		}
		after = eps[len(eps)-1].ID
	}
}

// webhookBody is what a delivery of ev posts: the event as GET /v1/events
// shows it, its cursor included.
func webhookBody(ev stockade.DomainEvent) ([]byte, error) {
	b, err := json.Marshal(struct {
		stockade.DomainEvent
		Cursor string `json:"cursor"`
	}{ev, ev.Position.Cursor()})
	if err != nil {
		return nil, fmt.Errorf("engine: webhook body of event %s: %w", ev.ID, err)
	}
	return b, nil
}

// ClaimWebhookDeliveries returns endpoint q.EndpointID as it is now and
// the deliveries of it that are due, claimed for q.Lease: the first
// pending one of each aggregate (Tx.WebhookDeliveryHeads), each counted
// as attempted and its next attempt moved to the end of the lease. A
// disabled endpoint has none; a deleted one is ENotFound.
func (e *Engine) ClaimWebhookDeliveries(ctx context.Context, q stockade.WebhookClaim) (stockade.WebhookEndpoint, []stockade.WebhookDelivery, error) {
	var ds []stockade.WebhookDelivery
	ep, err := run(e, ctx, "claim webhook deliveries", nil, func(ctx context.Context, c *call) (stockade.WebhookEndpoint, error) {
		// A read first: an idle endpoint's worker asks often, and finding
		// nothing due should not take a write transaction.
		var ep stockade.WebhookEndpoint
		due := false
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			if ep, err = tx.WebhookEndpointGet(ctx, stockade.ByID{ID: q.EndpointID}); err != nil || ep.Disabled {
				return err
			}
			heads, err := tx.WebhookDeliveryHeads(ctx, stockade.WebhookHeadQuery{EndpointID: ep.ID, Before: e.now(), Limit: 1})
			due = len(heads) > 0
			return err
		})
		if err != nil || !due {
			return ep, err
		}
		err = c.write(ctx, func(tx stockade.Tx) (err error) {
			ds = nil
			if ep, err = tx.WebhookEndpointGet(ctx, stockade.ByID{ID: q.EndpointID}); err != nil || ep.Disabled {
				return err
			}
			now := e.now()
			heads, err := tx.WebhookDeliveryHeads(ctx, stockade.WebhookHeadQuery{EndpointID: ep.ID, Before: now, Limit: q.Limit})
			if err != nil {
				return err
			}
			for _, d := range heads {
				d.Attempts, d.NextAttemptAt, d.Version = d.Attempts+1, now.Add(q.Lease), d.Version+1
				if err := updateDelivery(ctx, tx, d); err != nil {
					return err
				}
				ds = append(ds, d)
			}
			return nil
		})
		return ep, err
	})
	if err != nil {
		return stockade.WebhookEndpoint{}, nil, err
	}
	return ep, ds, nil
}

// RecordWebhookAttempt records how the attempt at d, as claimed, ended:
// delivered, it succeeds; to be retried, it waits until a.RetryAt, or
// fails if that is past its RetryUntil; refused, it fails; gone, it fails
// and its endpoint is disabled. It reports whether it recorded anything:
// not when d has moved since its claim (its lease ran out and another
// attempt claimed it, it was redelivered, or its endpoint deleted).
func (e *Engine) RecordWebhookAttempt(ctx context.Context, d stockade.WebhookDelivery, a stockade.WebhookAttempt) (bool, error) {
	return run(e, ctx, "record webhook attempt", nil, func(ctx context.Context, c *call) (bool, error) {
		recorded := false
		err := c.write(ctx, func(tx stockade.Tx) error {
			recorded = false
			cur, err := tx.WebhookDeliveryGet(ctx, d.EndpointID, d.ID)
			if stockade.ErrorCode(err) == stockade.ENotFound || err == nil && cur.Version != d.Version {
				return nil
			}
			if err != nil {
				return err
			}
			now := e.now()
			cur.LastAttemptAt, cur.LastCode, cur.LastError, cur.NextAttemptAt = now, a.Code, a.Error, time.Time{}
			switch {
			case a.Result == stockade.WebhookDelivered:
				cur.Status = stockade.DeliverySucceeded
			case a.Result == stockade.WebhookRetry && !a.RetryAt.After(cur.RetryUntil):
				cur.NextAttemptAt = a.RetryAt
			case a.Result == stockade.WebhookRetry:
				cur.Status = stockade.DeliveryFailed
				cur.LastError = fmt.Sprintf("%s; gave up after %d attempts: retried until %s", a.Error, cur.Attempts,
					cur.RetryUntil.Format(time.RFC3339))
			default:
				cur.Status = stockade.DeliveryFailed
			}
			cur.Version++
			if err := updateDelivery(ctx, tx, cur); err != nil {
				return err
			}
			recorded = true
			if a.Result != stockade.WebhookGone {
				return nil
			}
			ep, err := tx.WebhookEndpointGet(ctx, stockade.ByID{ID: d.EndpointID, Lock: true})
			if err != nil || ep.Disabled {
				return err
			}
			ep.Disabled, ep.DisabledReason = true, "the receiver answered 410 Gone at "+now.Format(time.RFC3339)
			ep.UpdatedAt, ep.Version = now, ep.Version+1
			ok, err := tx.WebhookEndpointUpdate(ctx, ep)
			if err == nil && !ok {
				err = conflictf("webhook endpoint %q changed concurrently", ep.ID)
			}
			return err
		})
		return recorded, err
	})
}

// write runs fn in a write transaction, retried whole on conflicts, as
// update does, but wakes no reader of events: for transactions that write
// none, which would otherwise wake a relay that then finds nothing.
func (c *call) write(ctx context.Context, fn func(tx stockade.Tx) error) error {
	return c.retry(ctx, func(ctx context.Context) error { return c.e.store.Update(ctx, fn) })
}
