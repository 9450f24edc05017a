package postgres_test

import (
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) stockade.Store {
		s, _ := newStore(t) // a database of its own, migrated and empty
		return s
	})
}
