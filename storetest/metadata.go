package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

// testMetadataSet: MetadataSet writes over the metadata of the aggregate
// it names and of no other, leaves the rest of the row as it was, and
// reports a missing row; an aggregate without metadata is an error that
// changes nothing.
func testMetadataSet(t *testing.T, s stockade.Store) {
	ctx := t.Context()
	seed(t, s, level{Key: keyA1, OnHand: 10})
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	start := stockade.Metadata{"cart": "c_1"}
	r := reservation("r-meta", stockade.Held, at, keyA1)
	r.Metadata = start
	o := stockade.Order{ID: "o-meta", Status: stockade.Committed, CreatedAt: at, Version: 1, Metadata: start,
		Lines: r.Lines, Allocations: r.Allocations}
	update(t, s, func(tx stockade.Tx) error {
		if err := tx.ReservationInsert(ctx, r); err != nil {
			return err
		}
		return tx.OrderInsert(ctx, o)
	})

	set := stockade.Metadata{"cart": "c_2", "note": "gift"}
	update(t, s, func(tx stockade.Tx) error {
		if ok, err := tx.MetadataSet(ctx, stockade.AggregateReservation, r.ID, set); err != nil || !ok {
			t.Errorf("MetadataSet(reservation %s) = %v, %v; want true", r.ID, ok, err)
		}
		if ok, err := tx.MetadataSet(ctx, stockade.AggregateOrder, "o-missing", set); err != nil || ok {
			t.Errorf("MetadataSet(a missing order) = %v, %v; want false", ok, err)
		}
		return nil
	})
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.ReservationGet(ctx, stockade.ByID{ID: r.ID})
		if err != nil {
			return err
		}
		checkReservation(t, got, r)
		if !reflect.DeepEqual(got.Metadata, set) {
			t.Errorf("the reservation's metadata: %v, want %v", got.Metadata, set)
		}
		ord, err := tx.OrderGet(ctx, stockade.ByID{ID: o.ID})
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(ord.Metadata, start) || ord.Version != o.Version {
			t.Errorf("the order beside it: metadata %v, version %d; want %v, %d", ord.Metadata, ord.Version, start, o.Version)
		}
		return nil
	})

	// Emptied, then over to the order: its version stays.
	update(t, s, func(tx stockade.Tx) error {
		if ok, err := tx.MetadataSet(ctx, stockade.AggregateReservation, r.ID, nil); err != nil || !ok {
			t.Errorf("MetadataSet(reservation %s, none) = %v, %v", r.ID, ok, err)
		}
		if ok, err := tx.MetadataSet(ctx, stockade.AggregateOrder, o.ID, set); err != nil || !ok {
			t.Errorf("MetadataSet(order %s) = %v, %v", o.ID, ok, err)
		}
		return nil
	})
	view(t, s, func(tx stockade.Tx) error {
		got, err := tx.ReservationGet(ctx, stockade.ByID{ID: r.ID})
		if err != nil {
			return err
		}
		if got.Metadata != nil {
			t.Errorf("the emptied reservation's metadata: %v, want none", got.Metadata)
		}
		ord, err := tx.OrderGet(ctx, stockade.ByID{ID: o.ID})
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(ord.Metadata, set) || ord.Version != o.Version || ord.Status != o.Status {
			t.Errorf("the order: metadata %v, version %d, %s; want %v, %d, %s", ord.Metadata, ord.Version, ord.Status, set, o.Version, o.Status)
		}
		return nil
	})

	if err := s.Update(ctx, func(tx stockade.Tx) error {
		_, err := tx.MetadataSet(ctx, stockade.AggregateLevel, keyA1.String(), set)
		return err
	}); err == nil {
		t.Errorf("MetadataSet(a level) succeeded; want an error, as levels carry no metadata")
	}
}
