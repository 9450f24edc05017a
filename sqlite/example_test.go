package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/sqlite"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "stockade-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	s, err := sqlite.Open(ctx, filepath.Join(dir, "stockade.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		log.Fatal(err)
	}

	k := stockade.Key{SKU: "tent-2p", Location: "ber"}
	err = s.Update(ctx, func(tx stockade.Tx) error {
		if err := tx.LocationPut(ctx, stockade.Location{ID: "ber", Name: "Berlin"}); err != nil {
			return err
		}
		if _, _, err := tx.LevelSetOnHand(ctx, k, 3, nil); err != nil {
			return err
		}
		for _, q := range []int64{2, 2} {
			l, ok, err := tx.LevelUpdate(ctx, k, stockade.Delta{Reserved: q}, stockade.Guard{})
			if err != nil {
				return err
			}
			if !ok {
				fmt.Printf("reserve %d: refused, not enough available\n", q)
				continue
			}
			fmt.Printf("reserve %d: done, %d available\n", q, l.Available())
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// reserve 2: done, 1 available
	// reserve 2: refused, not enough available
}
