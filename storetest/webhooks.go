package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// testWebhooks: endpoints round-trip, list in id order, update only over
// the version before and delete with their deliveries; deliveries get Seq
// in insertion order, list newest first by status and cursor, update only
// over the version before, and WebhookDeliveryHeads returns the first
// pending delivery of each aggregate that is due, in (next attempt, Seq)
// order.
func testWebhooks(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	at := base.Add(time.Hour).UTC().Truncate(time.Microsecond) // as stores keep times
	ep := func(id string) stockade.WebhookEndpoint {
		return stockade.WebhookEndpoint{ID: id, URL: "https://shop.example/" + id, Events: []string{"order.committed", "hold.held"},
			Description: "d " + id, Secret: "whsec_" + id, CreatedAt: at, UpdatedAt: at, Version: 1}
	}
	e1, e2 := ep("we_1"), ep("we_2")
	e2.PreviousSecret, e2.PreviousExpiresAt, e2.Disabled, e2.DisabledReason = "whsec_old", at.Add(time.Hour), true, "gone"
	dl := func(id, endpoint, aggID string, next time.Time) stockade.WebhookDelivery {
		return stockade.WebhookDelivery{ID: id, EndpointID: endpoint, EventID: "evt_" + id, EventType: "order.committed",
			Aggregate: "order", AggregateID: aggID, Status: stockade.DeliveryPending, Body: []byte(`{"id":"` + id + `"}`),
			NextAttemptAt: next, RetryUntil: at.Add(72 * time.Hour), CreatedAt: at, Version: 1}
	}
	ds := []stockade.WebhookDelivery{
		dl("d1", "we_1", "o-1", at),
		dl("d2", "we_1", "o-1", at),                   // behind d1
		dl("d3", "we_1", "o-2", at.Add(-time.Minute)), // due first
		dl("d4", "we_1", "o-3", at.Add(time.Hour)),    // not due
		dl("d5", "we_2", "o-1", at),                   // another endpoint
	}
	update(t, s, func(tx stockade.Tx) error {
		for _, e := range []stockade.WebhookEndpoint{e2, e1} {
			if err := tx.WebhookEndpointInsert(ctx, e); err != nil {
				return err
			}
		}
		return tx.WebhookDeliveryInsert(ctx, ds...)
	})
	view(t, s, func(tx stockade.Tx) error {
		for _, want := range []stockade.WebhookEndpoint{e1, e2} {
			got, err := tx.WebhookEndpointGet(ctx, stockade.ByID{ID: want.ID})
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("WebhookEndpointGet(%s) = %+v, want %+v", want.ID, got, want)
			}
		}
		if _, err := tx.WebhookEndpointGet(ctx, stockade.ByID{ID: "we_nope"}); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("WebhookEndpointGet(we_nope): %v, want not_found", err)
		}
		eps, err := tx.WebhookEndpointList(ctx, "we_1", 10)
		if err != nil || len(eps) != 1 || eps[0].ID != "we_2" {
			t.Errorf("WebhookEndpointList(after we_1) = %v, %v; want we_2", eps, err)
		}
		heads, err := tx.WebhookDeliveryHeads(ctx, stockade.WebhookHeadQuery{EndpointID: "we_1", Before: at, Limit: 10})
		if err != nil {
			return err
		}
		if got := deliveryIDs(heads); !reflect.DeepEqual(got, []string{"d3", "d1"}) {
			t.Errorf("WebhookDeliveryHeads = %v, want [d3 d1]", got)
		}
		all, err := tx.WebhookDeliveryList(ctx, stockade.WebhookDeliveryFilter{EndpointID: "we_1", Limit: 10})
		if err != nil {
			return err
		}
		if got := deliveryIDs(all); !reflect.DeepEqual(got, []string{"d4", "d3", "d2", "d1"}) {
			t.Errorf("WebhookDeliveryList = %v, want [d4 d3 d2 d1]", got)
		}
		for i := 1; i < len(all); i++ {
			if all[i].Seq >= all[i-1].Seq {
				t.Errorf("Seq of %s %d, of %s %d: want descending", all[i].ID, all[i].Seq, all[i-1].ID, all[i-1].Seq)
			}
		}
		got, err := tx.WebhookDeliveryGet(ctx, "we_1", "d1")
		want := ds[0]
		want.Seq = got.Seq
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("WebhookDeliveryGet(d1) = %+v, %v; want %+v", got, err, want)
		}
		if _, err := tx.WebhookDeliveryGet(ctx, "we_2", "d1"); stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("WebhookDeliveryGet(we_2, d1): %v, want not_found", err)
		}
		return nil
	})
	update(t, s, func(tx stockade.Tx) error {
		d := ds[0]
		d.Status, d.Attempts, d.NextAttemptAt, d.LastAttemptAt, d.LastCode, d.Version = stockade.DeliverySucceeded, 1, time.Time{}, at, 200, 2
		if ok, err := tx.WebhookDeliveryUpdate(ctx, d); err != nil || !ok {
			return fmt.Errorf("WebhookDeliveryUpdate(d1, version 2) = %v, %v", ok, err)
		}
		if ok, err := tx.WebhookDeliveryUpdate(ctx, d); err != nil || ok {
			return fmt.Errorf("WebhookDeliveryUpdate(d1, version 2) again = %v, %v; want false", ok, err)
		}
		heads, err := tx.WebhookDeliveryHeads(ctx, stockade.WebhookHeadQuery{EndpointID: "we_1", Before: at, Limit: 10})
		if got := deliveryIDs(heads); err != nil || !reflect.DeepEqual(got, []string{"d3", "d2"}) {
			t.Errorf("after d1 succeeded, WebhookDeliveryHeads = %v, %v; want [d3 d2]", got, err)
		}
		done, err := tx.WebhookDeliveryList(ctx, stockade.WebhookDeliveryFilter{EndpointID: "we_1", Status: stockade.DeliverySucceeded, Limit: 10})
		if got := deliveryIDs(done); err != nil || !reflect.DeepEqual(got, []string{"d1"}) {
			t.Errorf("succeeded deliveries = %v, %v; want [d1]", got, err)
		}
		e := e1
		e.Disabled, e.Version = true, 2
		if ok, err := tx.WebhookEndpointUpdate(ctx, e); err != nil || !ok {
			return fmt.Errorf("WebhookEndpointUpdate(we_1, version 2) = %v, %v", ok, err)
		}
		if ok, err := tx.WebhookEndpointUpdate(ctx, e); err != nil || ok {
			return fmt.Errorf("WebhookEndpointUpdate(we_1, version 2) again = %v, %v; want false", ok, err)
		}
		if ok, err := tx.WebhookEndpointDelete(ctx, "we_1"); err != nil || !ok {
			return fmt.Errorf("WebhookEndpointDelete(we_1) = %v, %v", ok, err)
		}
		if ok, err := tx.WebhookEndpointDelete(ctx, "we_1"); err != nil || ok {
			return fmt.Errorf("WebhookEndpointDelete(we_1) again = %v, %v; want false", ok, err)
		}
		left, err := tx.WebhookDeliveryList(ctx, stockade.WebhookDeliveryFilter{EndpointID: "we_1", Limit: 10})
		if err != nil || len(left) != 0 {
			t.Errorf("deliveries of a deleted endpoint = %v, %v; want none", deliveryIDs(left), err)
		}
		return nil
	})
	update(t, s, func(tx stockade.Tx) error {
		if n, err := tx.WebhookDeliveryPrune(ctx, at.Add(time.Second), 10); err != nil || n != 0 {
			return fmt.Errorf("WebhookDeliveryPrune with only a pending delivery = %d, %v; want 0", n, err)
		}
		d := ds[4]
		d.Status, d.NextAttemptAt, d.Version = stockade.DeliveryFailed, time.Time{}, 2
		if ok, err := tx.WebhookDeliveryUpdate(ctx, d); err != nil || !ok {
			return fmt.Errorf("WebhookDeliveryUpdate(d5) = %v, %v", ok, err)
		}
		if n, err := tx.WebhookDeliveryPrune(ctx, at, 10); err != nil || n != 0 {
			return fmt.Errorf("WebhookDeliveryPrune before d5 was made = %d, %v; want 0", n, err)
		}
		if n, err := tx.WebhookDeliveryPrune(ctx, at.Add(time.Second), 10); err != nil || n != 1 {
			return fmt.Errorf("WebhookDeliveryPrune after d5 failed = %d, %v; want 1", n, err)
		}
		return nil
	})
}

func deliveryIDs(ds []stockade.WebhookDelivery) []string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	return ids
}
